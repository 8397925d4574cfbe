//! `psxanim import`: FBX character to the table blob the runtime embeds.
//!
//! Writes `DIR/<model>.pxsk` (and with `--rust`, `DIR/<model>.rs` embedding it aligned, with its clip
//! and event names checked at build time: `super::rust_source`), only after the import, validation,
//! compilation and accuracy check have all succeeded, and atomically.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::ValueEnum;
use serde::Serialize;

use super::{finish, CliError};
use crate::compile::{compile_textured, write_atomically, CompileOptions, CompileReport, StorageMode, Textures};
use crate::character::import;
use crate::fbx::ImportOptions;
use crate::texture::tim::Depth;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StorageArg {
    /// Per-bone pose samples; vertex ranges go through the GTE with their bone's matrix.
    RigidGte,
    /// Per-frame model-space vertex positions (Q8 deltas from the bind pose).
    BakedVertices,
}

/// Which meshes of the file make the character, and at what size (`import` and `preview` share them).
#[derive(clap::Args, Debug, Clone)]
pub struct MeshChoice {
    /// Comma-separated mesh (node) names to import, leaving out every other mesh (default: every mesh).
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    pub meshes: Option<Vec<String>>,
    /// A mesh (node name) to leave out, such as a high-resolution copy beside the character; repeatable,
    /// or comma-separated.
    #[arg(long = "skip-mesh", value_delimiter = ',', value_name = "NAME")]
    pub skip_mesh: Vec<String>,
    /// Leave out every mesh that follows no bone (neither skinned nor under a bone: the scenery of a
    /// scene file), naming them in a warning; without it such a mesh stops the import, naming them all.
    #[arg(long)]
    pub skinned_only: bool,
    /// Scale the whole model (skeleton, meshes, animation) by FACTOR on top of the file's units (1 m =
    /// 4096 GTE units): a model beyond the +-7.5 m the console's 16-bit coordinates hold, often one
    /// exported in centimetres as metres (0.01), or one to draw at another size.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub scale: f64,
}

impl MeshChoice {
    /// `options` with this choice of meshes and scale.
    pub fn options(&self, options: ImportOptions) -> Result<ImportOptions, CliError> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(CliError::usage(format!("--scale must be a positive number, not {}", self.scale)));
        }
        Ok(ImportOptions {
            meshes: self.meshes.clone(),
            skip_meshes: self.skip_mesh.clone(),
            skinned_only: self.skinned_only,
            scale: self.scale,
            ..options
        })
    }
}

#[derive(clap::Args, Debug)]
#[command(
    about = "Import an FBX or glTF character and compile it to console tables",
    long_about = "Import an FBX or glTF 2.0 (.gltf, .glb) character and compile it to console tables.\n\n\
        Writes OUT/<model>.pxsk (read by psxanim_runtime::tables), only if the import, the profile checks \
        and the accuracy check against the file's own evaluation (ufbx's for FBX) all pass; a failure (exit 1) leaves existing files untouched.\n\
        Model space: +X right, +Y down, +Z into the screen; 1 m = 4096 GTE units."
)]
pub struct Args {
    /// The FBX file (binary or ASCII), or glTF 2.0 (.gltf with its buffers, .glb).
    pub model: PathBuf,
    /// How the animation is stored for the console.
    #[arg(long, value_enum)]
    pub storage: StorageArg,
    /// Output directory (created if missing).
    #[arg(short = 'o', long = "out", default_value = ".")]
    pub out: PathBuf,
    /// Comma-separated clip names to import, in this order (default: every clip).
    #[arg(long, value_delimiter = ',')]
    pub clips: Option<Vec<String>>,
    #[command(flatten)]
    pub mesh_choice: MeshChoice,
    /// Sample rate of the clips in Hz.
    #[arg(long, default_value_t = 30)]
    pub rate: u32,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Accuracy threshold in GTE units against ufbx's evaluation: baked-vertices against true skinning
    /// (default 9); rigid-gte against each vertex on its strongest bone (default 2, more when bones
    /// are animated to scale up), its distance from true skinning being reported and warned about
    /// above 2% of the model's height; `inf` accepts any error.
    #[arg(long)]
    pub max_error: Option<f64>,
    /// Rigid-gte: how far (GTE units) the compact pose samples may put a vertex from the exact samples
    /// (default 1). A clip no precision keeps within it (a very tall model) is stored at the closest
    /// precision with a warning stating its error.
    #[arg(long, value_name = "UNITS")]
    pub pose_tolerance: Option<f64>,
    /// Rigid-gte: influences kept per vertex: 2 (the default: the two strongest, renormalised, blended
    /// on the GTE at joints, about 59 cycles a blended vertex on the console against 26 a rigid one) or
    /// 1 (each vertex on its strongest bone: hard creases at joints, every vertex at the rigid rate).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub max_influences: u8,
    /// Rigid-gte with two influences: a vertex whose second weight (its share of the two) is below
    /// this stays rigid on its strongest bone (default 1/64).
    #[arg(long, value_name = "SHARE")]
    pub blend_threshold: Option<f64>,
    /// Rigid-gte with two influences: blend weights are quantised to multiples of 1/LEVELS (default
    /// 32); the console loads one blended matrix per bone pair and level.
    #[arg(long, value_name = "LEVELS")]
    pub blend_levels: Option<u16>,
    /// Rigid-gte: store a normal per vertex for the GTE's lighting (the game sets lights with
    /// `render::light::Lighting`): smooth across joins under 60 degrees, split at harder edges and UV
    /// seams; 8 bytes a vertex. baked-vertices refuses it (its normals would move with every frame).
    #[arg(long)]
    pub lighting: bool,
    /// Also write OUT/<model>.rs for `include!`: the blob embedded with 4-byte alignment, `clips::WALK`
    /// style constants of the clip and event names, and `clip!("Walk")` / `event!("step")` macros that
    /// stop the build on a name the model does not have, listing those it has.
    #[arg(long)]
    pub rust: bool,
    /// Animation files (ANIMBIN, Metroid Prime ANIM, .ani, .panim) whose clips are compiled onto the
    /// model's skeleton beside its own: tracks matched to bones by name, or by index for numeric ids;
    /// bones without a track keep the bind pose (listed); translations and scales stay at the bind
    /// pose; times converted to the --rate samples (losses listed as `convert` lists them).
    #[arg(long, value_delimiter = ',', value_name = "FILE")]
    pub add_clips: Option<Vec<PathBuf>>,
    /// Bone map renaming the added clips' tracks before matching (`FROM = TO` per line, as `convert`
    /// reads it); every TO must be a bone of the model.
    #[arg(long, value_name = "MAP", requires = "add_clips")]
    pub bone_map: Option<PathBuf>,
    /// Texel depth of every texture: 4 or 8 (a CLUT of 16 or 256 colours) or 15 (direct colour, twice
    /// an 8-bit texture's VRAM). Default: 4 for an image of at most 16 colours, else 8 (quantised
    /// above 256). Each texture is written as OUT/<model>.<material>.tim.
    #[arg(long, value_name = "BITS", value_parser = ["4", "8", "15"])]
    pub texture_depth: Option<String>,
    /// Dither textures whose colours are reduced to fit their CLUT (Floyd-Steinberg).
    #[arg(long)]
    pub dither: bool,
    /// One more folder to look for texture images in (after the path the file gives, relative to the
    /// model, and the image's file name beside the model).
    #[arg(long, value_name = "DIR")]
    pub textures: Option<PathBuf>,
    /// What a material whose image cannot be found gets: `error` (exit 1, every place tried listed) or
    /// `flat` (its colour, with a warning).
    #[arg(long, value_name = "WHAT", value_parser = ["error", "flat"], default_value = "error")]
    pub missing_textures: String,
}

#[derive(Serialize)]
struct Output<'a> {
    blob: String,
    rust: Option<String>,
    /// Each texture: its TIM file, the image it came from, depth, size, colours, VRAM placement.
    textures: Vec<TextureOutput>,
    added_clips: &'a [crate::fbx::AddedClip],
    #[serde(flatten)]
    report: &'a CompileReport,
}

#[derive(Serialize)]
struct TextureOutput {
    tim: String,
    #[serde(flatten)]
    report: crate::texture::Report,
}

pub fn run(args: Args) -> i32 {
    finish(execute(args))
}

fn execute(args: Args) -> Result<(), CliError> {
    if let Some(e) = args.max_error {
        if e.is_nan() || e < 0.0 {
            return Err(CliError::usage(format!("--max-error must be a non-negative number, not {e}")));
        }
    }
    if let Some(t) = args.pose_tolerance {
        if !(t.is_finite() && t > 0.0) {
            return Err(CliError::usage(format!("--pose-tolerance must be a positive number of GTE units, not {t}")));
        }
    }
    if let Some(t) = args.blend_threshold {
        if !(0.0..=0.5).contains(&t) {
            return Err(CliError::usage(format!("--blend-threshold must be a share between 0 and 0.5, not {t}")));
        }
    }
    if let Some(l) = args.blend_levels {
        if !(2..=4096).contains(&l) {
            return Err(CliError::usage(format!("--blend-levels must be between 2 and 4096, not {l}")));
        }
    }
    let options = args.mesh_choice.options(ImportOptions { rate: args.rate, clips: args.clips.clone(), ..Default::default() })?;
    let show_progress = std::io::stderr().is_terminal() && !args.json;
    let mut progress = |clip: &str, frame: usize, frames: usize| {
        if show_progress {
            eprint!("\rsampling {clip}: {:>4}/{frames}", frame + 1);
            if frame + 1 == frames {
                eprint!("\r\x1b[K");
            }
        }
    };
    let mut character = import(&args.model, &options, &mut progress).map_err(|e| CliError::invalid(e.to_string()))?;
    let added = match &args.add_clips {
        Some(files) => super::added::add_clips(&mut character, &args.model, files, args.bone_map.as_deref(), args.rate)?,
        None => Vec::new(),
    };
    let storage = match args.storage {
        StorageArg::RigidGte => StorageMode::RigidGte,
        StorageArg::BakedVertices => StorageMode::BakedVertices,
    };
    let texture_options = crate::texture::Options {
        depth: args.texture_depth.as_deref().map(|d| match d {
            "4" => Depth::Four,
            "8" => Depth::Eight,
            _ => Depth::Fifteen,
        }),
        dither: args.dither,
        dir: args.textures.clone(),
        missing_flat: args.missing_textures == "flat",
    };
    let model_dir = args.model.parent().map_or_else(|| PathBuf::from("."), |d| if d.as_os_str().is_empty() { PathBuf::from(".") } else { d.to_path_buf() });
    let (textures, texture_warnings) = crate::texture::convert_all(&character, &model_dir, &texture_options)
        .map_err(|e| CliError::invalid(format!("{}: {e}", args.model.display())))?;
    let blob_textures = Textures::from_converted(&character, &textures);
    let options = CompileOptions {
        storage,
        max_error: args.max_error,
        pose_tolerance: args.pose_tolerance,
        max_influences: args.max_influences,
        blend_threshold: args.blend_threshold.unwrap_or(crate::compile::DEFAULT_BLEND_THRESHOLD),
        blend_levels: args.blend_levels.unwrap_or(crate::compile::DEFAULT_BLEND_LEVELS),
        lighting: args.lighting,
    };
    let compiled = compile_textured(&character, &options, &blob_textures).map_err(|e| CliError::invalid(e.to_string()))?;

    let stem = args.model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let blob_path = args.out.join(format!("{stem}.pxsk"));
    let mut files = vec![(blob_path.clone(), compiled.blob.clone())];
    let textures: Vec<TextureOutput> = textures
        .into_iter()
        .map(|(report, tim)| {
            let path = args.out.join(format!("{stem}.{}.tim", crate::texture::file_part(&report.material)));
            files.push((path.clone(), tim.to_bytes()));
            TextureOutput { tim: path.display().to_string(), report }
        })
        .collect();
    let rust_path =
        args.rust.then(|| args.out.join(format!("{}.rs", stem.replace(|c: char| !c.is_ascii_alphanumeric(), "_"))));
    let mut renamed = Vec::new();
    if let Some(p) = &rust_path {
        let model = args.model.file_name().map_or_else(|| format!("{stem}.fbx"), |n| n.to_string_lossy().into_owned());
        let generated = super::rust_source::rust_source(&model, &stem, &compiled.blob)
            .map_err(|e| CliError::invalid(format!("{}: the compiled tables do not read back: {e:?}", args.model.display())))?;
        renamed = generated.renamed.iter().map(|r| format!("psxanim: {}: {r}", p.display())).collect();
        files.push((p.clone(), generated.text.into_bytes()));
    }
    write_atomically(&files)
        .map_err(|e| CliError::invalid(format!("{}: cannot write output: {e}", args.out.display())))?;
    for line in &renamed {
        super::say_err(line);
    }
    for w in &texture_warnings {
        super::say_err(&format!("warning: {w}"));
    }
    super::added::report(&added);

    let r = &compiled.report;
    if args.json {
        let out = Output {
            blob: blob_path.display().to_string(),
            rust: rust_path.map(|p| p.display().to_string()),
            textures,
            added_clips: &added,
            report: r,
        };
        println!("{}", serde_json::to_string_pretty(&out).expect("report serialises"));
    } else {
        print_summary(r, &blob_path);
        for t in &textures {
            let r = &t.report;
            let clut = r.clut.map_or("no CLUT".to_string(), |c| format!("CLUT {} colours at ({}, {})", r.clut_colours, c.x, c.y));
            println!(
                "texture '{}' ({}): {}x{}, {}-bit, {} colours{}; VRAM ({}, {}) {}x{} halfwords, {clut}{} -> {}",
                r.material,
                r.source,
                r.width,
                r.height,
                r.depth_bits,
                r.source_colours,
                if r.quantised { " quantised" } else { "" },
                r.vram.x,
                r.vram.y,
                r.vram.w,
                r.vram.h,
                match r.tiling {
                    "none" => String::new(),
                    tiling => format!("; UVs outside 0..1: {tiling}"),
                },
                t.tim
            );
        }
    }
    Ok(())
}

fn print_summary(r: &CompileReport, blob: &std::path::Path) {
    let storage = match r.storage {
        StorageMode::RigidGte => "rigid-gte",
        StorageMode::BakedVertices => "baked-vertices",
    };
    println!("{} -> {} ({storage}, {} bytes)", r.source, blob.display(), r.blob_bytes);
    println!(
        "bones {}  vertices {}  triangles {}  materials {}  quads {} (planar triangle pairs)  strips {}  \
         primitive stream {} words",
        r.bones,
        r.vertices,
        r.triangles,
        r.materials.len(),
        r.quads,
        r.strips,
        r.primitive_words
    );
    for p in &r.props {
        println!("prop '{}' -> bone '{}', {} vertices", p.mesh, p.bone, p.vertices);
    }
    if !r.ranges.is_empty() {
        let ranges: Vec<String> = r.ranges.iter().map(|(b, first, n)| format!("{b}[{first}+{n}]")).collect();
        println!("ranges {}: {}", r.ranges.len(), ranges.join(" "));
    }
    for c in &r.clips {
        let rate = match (c.bytes_per_bone_second, c.bytes_per_frame) {
            (Some(b), _) => format!("{b:.1} B/bone-s"),
            (_, Some(f)) => format!("{f:.1} B/frame"),
            _ => String::new(),
        };
        println!(
            "clip {:<16} {:>5} frames {:>7.2} s {:>8} bytes  {rate}  format error {:.3}",
            c.name, c.frames, c.seconds, c.bytes, c.format_error
        );
    }
    match (r.bytes_per_bone_second, r.bytes_per_frame) {
        (Some(b), _) => println!("animation data {} bytes, {b:.1} bytes per bone-second", r.animation_bytes),
        (_, Some(f)) => println!("animation data {} bytes, {f:.1} bytes per frame", r.animation_bytes),
        _ => println!("animation data {} bytes", r.animation_bytes),
    }
    let a = &r.accuracy;
    // Whose float evaluation the tables were checked against.
    let by = if crate::gltf::is_gltf(std::path::Path::new(&r.source), &[]) { "the glTF evaluation" } else { "ufbx" };
    match r.storage {
        StorageMode::BakedVertices => println!(
            "accuracy vs {by}'s true skinning: max {:.3} mean {:.3} GTE units (threshold {:.3}, {:.2}% of the model's height {:.0})",
            a.versus_skinned.max, a.versus_skinned.mean, a.threshold, a.skinned_percent_of_height, a.model_height
        ),
        StorageMode::RigidGte => println!(
            "accuracy vs {by} (each vertex on its strongest bone): max {:.3} mean {:.3} GTE units (threshold {:.3}); \
             vs true skinning: max {:.3} mean {:.3} ({:.2}% of the model's height {:.0})",
            a.versus_rigid.max,
            a.versus_rigid.mean,
            a.threshold,
            a.versus_skinned.max,
            a.versus_skinned.mean,
            a.skinned_percent_of_height,
            a.model_height
        ),
    }
    if r.storage == StorageMode::RigidGte && r.max_influences == 1 {
        println!("one influence per vertex (--max-influences 1; the default 2 blends joints on the GTE)");
    } else if r.storage == StorageMode::RigidGte {
        let pairs: Vec<String> = r.blend_pairs.iter().map(|p| format!("{}+{}[{} in {}]", p.a, p.b, p.vertices, p.groups)).collect();
        println!(
            "blended {} of {} vertices ({:.1}%, two influences: --max-influences {}) in {} bone pairs{}{}",
            r.blended_vertices,
            r.vertices,
            100.0 * r.blended_vertices as f64 / r.vertices.max(1) as f64,
            r.max_influences,
            r.blend_pairs.len(),
            if pairs.is_empty() { "" } else { ": " },
            pairs.join(" ")
        );
        println!(
            "distance from true skinning: one bone per vertex max {:.3} ({:.2}% of the height), as stored max {:.3} ({:.2}%)",
            a.one_bone_versus_skinned.max, a.one_bone_percent_of_height, a.versus_skinned.max, a.skinned_percent_of_height
        );
    }
    if let Some(fp) = &a.console_fp12 {
        println!("console FP12/GTE path vs {by}: max {:.3} mean {:.3} GTE units (informative)", fp.max, fp.mean);
    }
    println!("bounds {:?} .. {:?}", r.bounds[0], r.bounds[1]);
    if r.beyond_two_vertices > 0 && r.storage == StorageMode::RigidGte && r.max_influences == 2 {
        println!(
            "warning: {} vertices had more than two influences and were reduced to their two strongest (largest dropped weight {:.3})",
            r.beyond_two_vertices, r.largest_dropped_beyond_two
        );
    } else if r.reduced_vertices > 0 && r.storage == StorageMode::RigidGte && r.max_influences == 1 {
        println!(
            "warning: {} vertices had several influences and were reduced to their strongest bone (largest dropped weight {:.3})",
            r.reduced_vertices, r.largest_dropped_weight
        );
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
}
