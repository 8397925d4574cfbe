//! What a preview shows: a character's compiled tables (one or both storage modes), its clips and their
//! event markers, and, when it came from an FBX, the ufbx float evaluation for `--compare`.
//!
//! Inputs:
//! - an FBX or glTF character: imported and compiled in memory exactly as `psxanim import` would (accuracy threshold
//!   off: a preview shows whatever the import produces);
//! - compiled tables (`.pxsk`, magic "PXSK"): shown as stored, one storage mode, no float reference;
//! - an animation file of any format the tool reads, with `--skeleton MODEL.fbx`: each track is
//!   matched to a bone of the model by name, or by index for numeric ids, and its rotation replaces
//!   the bone's parent-relative rotation (translations stay at the bind pose: the formats' units
//!   differ); the clips are then compiled like imported ones, so the same fixed-point stages draw them.

use std::path::Path;

use psxanim_runtime::tables::{Storage, Tables};

use super::camera::Framing;
use super::shot::{self, Shot};
use crate::cli::CliError;
use crate::compile::{compile_textured, CompileOptions, StorageMode, Textures};
use crate::fbx::{self, Character};
use crate::model::{Animation, TimeUnit};

/// A clip as the preview lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    pub name: String,
    pub frames: usize,
    pub rate: u32,
    /// Event markers: frame and name.
    pub events: Vec<(usize, String)>,
}

/// Which rigid-gte tables an FBX or glTF character is compiled to: without normals, with each vertex's
/// normal (as `import --lighting`, for `preview --light`), or both (the web viewer's light toggle shows
/// each as `preview` draws it, with or without `--light`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normals {
    Without,
    With,
    Both,
}

/// A loaded input, ready to draw.
pub struct Subject {
    pub source: String,
    /// The imported character (FBX inputs only): float reference and bone names.
    pub character: Option<Character>,
    rigid: Option<Vec<u8>>,
    baked: Option<Vec<u8>>,
    /// With [`Normals::Both`]: the rigid-gte tables with normals, drawn when lit (`rigid` has none).
    lit_rigid: Option<Vec<u8>>,
    pub clips: Vec<ClipInfo>,
}

/// Longest clip an animation file may drive (the import profile's 60 s at 60 Hz).
const MAX_DRIVEN_FRAMES: usize = 3600;
/// Sample rate of animation files whose clips are counted in frames without a stated rate.
const DEFAULT_FRAME_RATE: u32 = 30;

fn is_character(path: &Path, bytes: &[u8]) -> bool {
    crate::character::is_character(path, bytes)
}

pub fn storage_name(mode: StorageMode) -> &'static str {
    match mode {
        StorageMode::RigidGte => "rigid-gte",
        StorageMode::BakedVertices => "baked-vertices",
    }
}

impl Subject {
    /// Loads `input`, compiling the storage modes in `modes` where the input is not compiled already.
    pub fn load(
        input: &Path,
        skeleton: Option<&Path>,
        modes: &[StorageMode],
    ) -> Result<Subject, CliError> {
        Subject::load_with(
            input,
            skeleton,
            modes,
            &fbx::ImportOptions::default(),
            Normals::Without,
        )
    }

    /// [`Subject::load`] importing FBX files with `options` (the meshes `--meshes` / `--skip-mesh` choose),
    /// its rigid-gte tables compiled with or without each vertex's normal as `lit` says.
    pub fn load_with(
        input: &Path,
        skeleton: Option<&Path>,
        modes: &[StorageMode],
        options: &fbx::ImportOptions,
        lit: Normals,
    ) -> Result<Subject, CliError> {
        let bytes = std::fs::read(input)
            .map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", input.display())))?;
        if bytes.starts_with(&psxanim_runtime::tables::MAGIC) {
            if skeleton.is_some() {
                return Err(CliError::usage(format!(
                    "{}: compiled tables carry their own skeleton; drop --skeleton",
                    input.display()
                )));
            }
            return Subject::from_tables(input, bytes);
        }
        if is_character(input, &bytes) {
            if skeleton.is_some() {
                return Err(CliError::usage(format!(
                    "{}: a character file carries its own skeleton; drop --skeleton",
                    input.display()
                )));
            }
            let character = import_fbx(input, options)?;
            return Subject::from_character(character, modes, lit);
        }
        let animation = crate::cli::load(input)?;
        let Some(model) = skeleton else {
            return Err(CliError::usage(format!(
                "{}: a {} file has no skeleton or mesh to draw; give one with --skeleton MODEL.fbx",
                input.display(),
                animation.format
            )));
        };
        let mut character = import_fbx(model, options)?;
        let events = drive(&mut character, &animation, input, model)?;
        Ok(Subject::from_character(character, modes, lit)?.with_events(events))
    }

    fn from_tables(input: &Path, bytes: Vec<u8>) -> Result<Subject, CliError> {
        let t = Tables::parse(&bytes).map_err(|e| {
            CliError::invalid(format!("{}: compiled tables: {e:?}", input.display()))
        })?;
        let mut clips = Vec::new();
        for i in 0..t.clip_count() {
            let c = t
                .clip(i)
                .map_err(|e| CliError::invalid(format!("{}: clip {i}: {e:?}", input.display())))?;
            let name = t.name(c.name_offset).unwrap_or("?").to_string();
            clips.push(ClipInfo {
                name,
                frames: c.frame_count as usize,
                rate: c.rate_hz as u32,
                events: Vec::new(),
            });
        }
        let (rigid, baked) = match t.storage() {
            Storage::RigidGte => (Some(bytes), None),
            Storage::BakedVertices => (None, Some(bytes)),
        };
        Ok(Subject {
            source: input.display().to_string(),
            character: None,
            rigid,
            baked,
            lit_rigid: None,
            clips,
        })
    }

    /// An FBX with the clips of animation files added onto its skeleton, exactly as `psxanim import
    /// --add-clips` adds them (`crate::cli::added`).
    pub fn load_with_clips(
        input: &Path,
        files: &[std::path::PathBuf],
        bone_map: Option<&Path>,
        modes: &[StorageMode],
    ) -> Result<Subject, CliError> {
        Subject::load_with_clips_with(
            input,
            files,
            bone_map,
            modes,
            &fbx::ImportOptions::default(),
            Normals::Without,
        )
    }

    /// [`Subject::load_with_clips`] importing the FBX with `options`, with normals as `lit` says.
    pub fn load_with_clips_with(
        input: &Path,
        files: &[std::path::PathBuf],
        bone_map: Option<&Path>,
        modes: &[StorageMode],
        options: &fbx::ImportOptions,
        lit: Normals,
    ) -> Result<Subject, CliError> {
        let bytes = std::fs::read(input)
            .map_err(|e| CliError::invalid(format!("{}: cannot read: {e}", input.display())))?;
        if !is_character(input, &bytes) {
            return Err(CliError::usage(format!(
                "{}: --add-clips puts clips onto an FBX or glTF character; this is not one",
                input.display()
            )));
        }
        let mut character = import_fbx(input, options)?;
        let rate = options.rate;
        let added = crate::cli::added::add_clips(&mut character, input, files, bone_map, rate)?;
        crate::cli::added::report(&added);
        Subject::from_character(character, modes, lit)
    }

    fn from_character(
        character: Character,
        modes: &[StorageMode],
        lit: Normals,
    ) -> Result<Subject, CliError> {
        // Textures as `import` converts them by default; one that is missing or unreadable leaves its
        // material in its colour here (the preview says so), where `import` would stop.
        let model_dir = Path::new(&character.source)
            .parent()
            .map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
        let options = crate::texture::Options {
            missing_flat: true,
            ..Default::default()
        };
        let textures = match crate::texture::convert_all(&character, &model_dir, &options) {
            Ok((converted, warnings)) => {
                for w in warnings {
                    eprintln!("psxanim: warning: {w}");
                }
                Textures::from_converted(&character, &converted)
            }
            Err(e) => {
                eprintln!("psxanim: warning: {e}; the preview draws its materials' colours");
                Textures::default()
            }
        };
        let build = |character: &Character,
                     mode: StorageMode,
                     lighting: bool|
         -> Result<Vec<u8>, CliError> {
            let options = CompileOptions {
                storage: mode,
                max_error: Some(f64::INFINITY),
                pose_tolerance: None,
                lighting,
                ..Default::default()
            };
            compile_textured(character, &options, &textures)
                .map(|c| c.blob)
                .map_err(|e| CliError::invalid(e.to_string()))
        };
        // The skeleton overlay reads rigid pose samples, so a baked preview compiles both; for the overlay
        // alone, animated blend shapes (which rigid-gte refuses, and which move no bone) are left out.
        // Normals for the light: rigid-gte only (baked-vertices refuses them).
        let overlay_only;
        let rigid_source =
            if modes.contains(&StorageMode::RigidGte) || character.blend_shapes.is_empty() {
                &character
            } else {
                overlay_only = Character {
                    blend_shapes: Vec::new(),
                    instanced_skins: Vec::new(),
                    ..character.clone()
                };
                &overlay_only
            };
        let rigid = Some(build(
            rigid_source,
            StorageMode::RigidGte,
            lit == Normals::With,
        )?);
        let lit_rigid = if lit == Normals::Both && modes.contains(&StorageMode::RigidGte) {
            Some(build(&character, StorageMode::RigidGte, true)?)
        } else {
            None
        };
        let baked = if modes.contains(&StorageMode::BakedVertices) {
            Some(build(&character, StorageMode::BakedVertices, false)?)
        } else {
            None
        };
        let clips = character
            .clips
            .iter()
            .map(|c| ClipInfo {
                name: c.name.clone(),
                frames: c.frame_count(),
                rate: c.rate,
                events: c.events.clone(),
            })
            .collect();
        Ok(Subject {
            source: character.source.clone(),
            character: Some(character),
            rigid,
            baked,
            lit_rigid,
            clips,
        })
    }

    /// Attaches event markers (from a driving animation file) to the clips of the same index.
    fn with_events(mut self, events: Vec<Vec<(usize, String)>>) -> Subject {
        for (c, e) in self.clips.iter_mut().zip(events) {
            c.events = e;
        }
        self
    }

    pub fn has(&self, mode: StorageMode) -> bool {
        match mode {
            StorageMode::RigidGte => self.rigid.is_some(),
            StorageMode::BakedVertices => self.baked.is_some(),
        }
    }

    /// The storage modes this subject can show.
    pub fn modes(&self) -> Vec<StorageMode> {
        [StorageMode::RigidGte, StorageMode::BakedVertices]
            .into_iter()
            .filter(|m| self.has(*m))
            .collect()
    }

    pub fn tables(&self, mode: StorageMode) -> Result<Tables<'_>, String> {
        let bytes = match mode {
            StorageMode::RigidGte => self.rigid.as_deref(),
            StorageMode::BakedVertices => self.baked.as_deref(),
        };
        let bytes = bytes.ok_or_else(|| {
            format!(
                "{}: no {} tables (compiled tables hold one storage mode)",
                self.source,
                storage_name(mode)
            )
        })?;
        self.parse(bytes)
    }

    fn parse<'a>(&self, bytes: &'a [u8]) -> Result<Tables<'a>, String> {
        Tables::parse(bytes)
            .map_err(|e| format!("{}: internal: tables unreadable: {e:?}", self.source))
    }

    /// The tables a frame of `mode` is drawn from, lit (`lit`) or not: those with normals when the
    /// subject holds both kinds ([`Normals::Both`]), else [`tables`](Self::tables).
    pub fn drawn_tables(&self, mode: StorageMode, lit: bool) -> Result<Tables<'_>, String> {
        match (&self.lit_rigid, mode) {
            (Some(bytes), StorageMode::RigidGte) if lit => self.parse(bytes),
            _ => self.tables(mode),
        }
    }

    /// Whether a lit frame of `mode` is drawn lit (its tables carry normals).
    pub fn lightable(&self, mode: StorageMode) -> bool {
        self.drawn_tables(mode, true).is_ok_and(|t| t.has_normals())
    }

    /// Index of the clip `name`, or an error listing the clips there are.
    pub fn clip_index(&self, name: &str) -> Result<usize, CliError> {
        self.clips
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.clips.iter().map(|c| c.name.as_str()).collect();
                CliError::invalid(format!(
                    "{}: no clip named '{name}' (clips: {})",
                    self.source,
                    names.join(", ")
                ))
            })
    }

    /// Base colour of every material (of the tables, and of the float reference's source).
    pub fn material_colours(&self) -> Vec<[u8; 3]> {
        let mut out: Vec<[u8; 3]> = self
            .character
            .iter()
            .flat_map(|c| c.materials.iter().map(|m| m.rgb))
            .collect();
        for t in self.modes().into_iter().filter_map(|m| self.tables(m).ok()) {
            out.extend((0..t.material_count()).map(|i| t.material(i)));
        }
        out
    }

    /// The model-space box covering every pose (framing all frames alike keeps the camera still).
    pub fn bounds(&self) -> [[i16; 3]; 2] {
        self.modes()
            .first()
            .and_then(|m| self.tables(*m).ok())
            .map(|t| t.bounds())
            .unwrap_or([[-1000; 3], [1000; 3]])
    }

    /// What the console draws for `frame` of `clip` in `mode`, with the skeleton from the rigid samples.
    /// Lit (`framing.lighting`), from the tables with normals ([`drawn_tables`](Self::drawn_tables)).
    pub fn shot(
        &self,
        clip: usize,
        frame: usize,
        mode: StorageMode,
        framing: &Framing,
    ) -> Result<Shot, String> {
        let triangles = shot::triangles(
            &self.drawn_tables(mode, framing.lighting.is_some())?,
            clip,
            frame,
            framing,
        )?;
        let joints = match &self.rigid {
            Some(_) => shot::joints(&self.tables(StorageMode::RigidGte)?, clip, frame, framing)?,
            None => Vec::new(),
        };
        Ok(Shot { triangles, joints })
    }
}

fn import_fbx(path: &Path, options: &fbx::ImportOptions) -> Result<Character, CliError> {
    crate::character::import(path, options, &mut |_, _, _| {})
        .map_err(|e| CliError::invalid(e.to_string()))
}

/// Seconds of a clip time in its unit, at `rate` frames per second for frame-counted clips.
fn seconds(time: f64, unit: TimeUnit, rate: u32) -> f64 {
    match unit {
        TimeUnit::Frame => time / rate as f64,
        TimeUnit::Ms => time / 1000.0,
        TimeUnit::S => time,
    }
}

/// Replaces the character's clips with the animation's, posing its bones by the matched tracks;
/// returns each clip's event markers.
fn drive(
    c: &mut Character,
    anim: &Animation,
    anim_path: &Path,
    model_path: &Path,
) -> Result<Vec<Vec<(usize, String)>>, CliError> {
    let bone_names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
    let bind_local = fbx::added::bind_local(c, model_path).map_err(CliError::invalid)?;
    let mut clips = Vec::new();
    let mut events = Vec::new();
    let stem = anim_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clip".into());
    for (ci, clip) in anim.clips.iter().enumerate() {
        // Some formats (`.ani`) name no clip: use the file's name.
        let name = match (clip.name.is_empty(), anim.clips.len()) {
            (false, _) => clip.name.clone(),
            (true, 1) => stem.clone(),
            (true, _) => format!("{stem}#{ci}"),
        };
        // Match every track to a bone first, so that the error names all mismatches at once.
        let (track_of_bone, unmatched) = fbx::added::match_tracks(c, clip);
        if !unmatched.is_empty() {
            return Err(CliError::invalid(format!(
                "{}: clip '{name}': bones {} have no match in {} (bones by index 0..{}: {})",
                anim_path.display(),
                unmatched.join(", "),
                model_path.display(),
                c.bones.len(),
                bone_names.join(", ")
            )));
        }
        let rate = clip
            .frame_rate
            .filter(|r| r.is_finite() && *r >= 1.0 && *r <= 120.0)
            .map(|r| r.round() as u32)
            .unwrap_or(DEFAULT_FRAME_RATE);
        let length = seconds(clip.length.max(0.0), clip.time_unit, rate);
        let frames = (length * rate as f64).round() as usize + 1;
        if !length.is_finite() || frames > MAX_DRIVEN_FRAMES {
            return Err(CliError::invalid(format!(
                "{}: clip '{name}': {frames} frames at {rate} Hz is beyond the preview's {MAX_DRIVEN_FRAMES}",
                anim_path.display()
            )));
        }
        let keys: Vec<Vec<(f64, [f64; 4])>> = clip
            .tracks
            .iter()
            .map(|t| {
                let mut k: Vec<(f64, [f64; 4])> = t
                    .rotation
                    .iter()
                    .filter(|k| k.time.is_finite())
                    .map(|k| {
                        (
                            seconds(k.time, clip.time_unit, rate),
                            [k.value.x, k.value.y, k.value.z, k.value.w],
                        )
                    })
                    .collect();
                k.sort_by(|a, b| a.0.total_cmp(&b.0));
                k
            })
            .collect();
        let (poses, reference) = fbx::added::pose_from_rotation_keys(
            c,
            &bind_local,
            &track_of_bone,
            &keys,
            frames,
            |f| f as f64 / rate as f64,
        );
        let marks: Vec<(usize, String)> = clip
            .events
            .iter()
            .filter(|e| e.time.is_finite())
            .map(|e| {
                (
                    ((seconds(e.time, clip.time_unit, rate) * rate as f64)
                        .round()
                        .max(0.0) as usize)
                        .min(frames - 1),
                    e.name.clone(),
                )
            })
            .collect();
        events.push(marks.clone());
        clips.push(fbx::Clip {
            name,
            rate,
            poses,
            rigid_reference: reference.clone(),
            skinned_reference: reference,
            events: marks,
        });
    }
    c.clips = clips;
    c.source = format!("{} on {}", anim_path.display(), model_path.display());
    Ok(events)
}
