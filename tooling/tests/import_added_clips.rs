//! `psxanim import --add-clips`: clips of other engines' files compiled onto the FBX character, in both
//! storage modes, with their events; `preview --add-clips` draws the same tables; bad input exits 1
//! naming the file, bone or limit and writes nothing.
//!
//! `tests/fixtures/formats/wave.ani` is our `.ani` writer's output for [`wave`] (checked here; run with
//! `PSXANIM_REGENERATE=1` to rewrite it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use psxanim::compile::StorageMode;
use psxanim::formats::{self, Losses, Target, Tolerance};
use psxanim::model::{Animation, Bone, Clip, ClipExtras, Event, Format, Quat, RotationKey, TimeUnit, Track};
use psxanim::preview::subject::Subject;
use psxanim_runtime::tables::Tables;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture() -> PathBuf {
    root().join("tests/fixtures/fbx/character.fbx")
}

fn wave_path() -> PathBuf {
    root().join("tests/fixtures/formats/wave.ani")
}

fn psxanim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().expect("psxanim runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A rotation key at `ms` of `deg` degrees about `axis`.
fn key(ms: f64, deg: f64, axis: [f64; 3]) -> RotationKey {
    let (s, c) = (deg.to_radians() / 2.0).sin_cos();
    RotationKey { time: ms, value: Quat { w: c, x: axis[0] * s, y: axis[1] * s, z: axis[2] * s }, stored: None }
}

/// A one-shot wave of the right arm, one second, for the fixture character: the upper arm lifts 80
/// degrees about X and back, the forearm bends 60 and back; events "lift" at 200 ms and "wave" at
/// 500 ms (samples 6 and 15 at 30 Hz). An `.ani` clip names no clip: it is called after the file.
fn wave() -> Animation {
    let track = |bone: &str, deg: f64| Track {
        bone: Bone::Name(bone.into()),
        rotation: vec![key(0.0, 0.0, [1.0, 0.0, 0.0]), key(500.0, deg, [1.0, 0.0, 0.0]), key(1000.0, 0.0, [1.0, 0.0, 0.0])],
        ..Track::default()
    };
    let clip = Clip {
        name: String::new(),
        looping: false,
        time_unit: TimeUnit::Ms,
        length: 1000.0,
        frame_rate: None,
        tracks: vec![track("UpperArm.R", 80.0), track("Forearm.R", 60.0)],
        events: vec![Event::new(200.0, "lift", None), Event::new(500.0, "wave", None)],
        extras: ClipExtras::default(),
    };
    Animation { format: Format::Ani, version: 4000, clips: vec![clip], warnings: vec![] }
}

fn write_ani(anim: &Animation, path: &Path) {
    let bytes = formats::write(anim, Target::Ani(Some(4000)), Tolerance::default(), &mut Losses::default()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn the_committed_wave_fixture_is_our_writers_output() {
    let bytes = formats::write(&wave(), Target::Ani(Some(4000)), Tolerance::default(), &mut Losses::default()).unwrap();
    if std::env::var_os("PSXANIM_REGENERATE").is_some() {
        std::fs::write(wave_path(), &bytes).unwrap();
    }
    assert_eq!(std::fs::read(wave_path()).unwrap(), bytes, "regenerate with PSXANIM_REGENERATE=1");
}

/// Runs `import` of the fixture with `extra` arguments into a fresh directory: (output, directory).
fn import(storage: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["import", fixture().to_str().unwrap().to_string().leak() as &str, "--storage", storage, "-o", dir.path().to_str().unwrap().to_string().leak()];
    args.extend_from_slice(extra);
    (psxanim(&args), dir)
}

fn blob(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("character.pxsk")).unwrap()
}

#[test]
fn added_clips_compile_beside_the_models_own_with_their_events_in_both_modes() {
    let wave = wave_path();
    for storage in ["rigid-gte", "baked-vertices"] {
        let (o, dir) = import(storage, &["--add-clips", wave.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{storage}: {}", stderr(&o));
        // The bones without a track are listed; every time is on a 30 Hz sample, so the one loss is
        // the `.ani` keys' translations (the bind translations are kept).
        let e = stderr(&o);
        assert!(e.contains("wave.ani: clip 'wave': bones keeping the bind pose (no track): Hips, Spine, Head"), "{e}");
        let losses: Vec<&str> = e.lines().filter(|l| l.contains("lossy")).collect();
        assert_eq!(losses.len(), 1, "{e}");
        assert!(losses[0].contains("translation keys of 2 tracks dropped"), "{e}");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(json["added_clips"][0]["frames"], 31);
        assert_eq!(json["added_clips"][0]["events"], 2);

        let b = blob(dir.path());
        let t = Tables::parse(&b).unwrap();
        let names: Vec<&str> = (0..t.clip_count()).map(|i| t.name(t.clip(i).unwrap().name_offset).unwrap()).collect();
        assert_eq!(names, ["Idle", "Turn", "Walk", "wave"]);
        let w = t.find_clip("wave").unwrap();
        assert_eq!((t.clip(w).unwrap().frame_count, t.clip(w).unwrap().rate_hz), (31, 30));
        assert_eq!((t.event(w, 0), t.event(w, 1), t.event_count(0)), (Some(("lift", 6)), Some(("wave", 15)), 0));
    }
}

#[test]
fn preview_draws_the_added_clip_from_the_same_tables() {
    let wave = wave_path();
    let (o, dir) = import("rigid-gte", &["--add-clips", wave.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let subject = Subject::load_with_clips(&fixture(), std::slice::from_ref(&wave), None, &[StorageMode::RigidGte]).unwrap();
    let previewed = subject.tables(StorageMode::RigidGte).unwrap();
    assert_eq!(previewed.bytes(), &blob(dir.path())[..]);
    let info = subject.clips.iter().find(|c| c.name == "wave").unwrap();
    assert_eq!(info.events, [(6, "lift".to_string()), (15, "wave".to_string())]);
}

#[test]
fn a_bone_map_renames_tracks_and_every_target_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    // The same wave on bones named after another engine's rig, mapped back.
    let mut anim = wave();
    anim.clips[0].tracks[0].bone = Bone::Name("Bip01 R UpperArm".into());
    anim.clips[0].tracks[1].bone = Bone::Name("Bip01 R Forearm".into());
    let other = dir.path().join("wave.ani");
    write_ani(&anim, &other);
    let map = dir.path().join("map.txt");
    std::fs::write(&map, "\"Bip01 R UpperArm\" = UpperArm.R\n\"Bip01 R Forearm\" = Forearm.R\n").unwrap();
    let (o, out) = import("rigid-gte", &["--add-clips", other.to_str().unwrap(), "--bone-map", map.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (reference, ref_dir) = import("rigid-gte", &["--add-clips", wave_path().to_str().unwrap()]);
    assert!(reference.status.success());
    assert_eq!(blob(out.path()), blob(ref_dir.path()), "mapped tracks drive the same bones");

    // A map naming a bone the model lacks: exit 1, the map and the bone named, nothing written.
    std::fs::write(&map, "\"Bip01 R UpperArm\" = UpperArm.R\n\"Bip01 R Forearm\" = Tail\n").unwrap();
    let (o, out) = import("rigid-gte", &["--add-clips", other.to_str().unwrap(), "--bone-map", map.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("map.txt: maps to bone \"Tail\"") && stderr(&o).contains("Forearm.R"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn a_clip_matching_no_bone_or_longer_than_the_profile_exits_1_writing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut none = wave();
    for t in &mut none.clips[0].tracks {
        t.bone = Bone::Name("Tail".into());
    }
    let nothing = dir.path().join("nothing.ani");
    write_ani(&none, &nothing);
    let (o, out) = import("baked-vertices", &["--add-clips", nothing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("nothing.ani: clip 'nothing': no track matches a bone of") && e.contains("tracks: \"Tail\""), "{e}");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);

    let mut long = wave();
    long.clips[0].length = 61_000.0;
    let long_path = dir.path().join("long.ani");
    write_ani(&long, &long_path);
    let (o, out) = import("rigid-gte", &["--add-clips", long_path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("long.ani: clip 'long' lasts 61.00 s, longer than the profile limit of 60 s"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);

    // A partial match is fine: the unmatched track is listed, and times off the 30 Hz grid are losses.
    let mut partial = wave();
    partial.clips[0].tracks[0].bone = Bone::Name("Tail".into());
    partial.clips[0].events[0].time = 210.0;
    let partial_path = dir.path().join("partial.ani");
    write_ani(&partial, &partial_path);
    let (o, _out) = import("rigid-gte", &["--add-clips", partial_path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("tracks matching no bone (ignored): \"Tail\" (track 0)"), "{e}");
    assert!(e.contains("lossy: clip \"partial\": event times rounded to 30 Hz samples"), "{e}");
}

#[test]
fn animbin_frames_are_vsync_ticks_converted_to_the_import_rate() {
    // An ANIMBIN clip of 60 ticks (one second at 60 per second) with keys on even ticks: 31 samples
    // at 30 Hz, exact but for the unstated rate, reported as `convert` reports it.
    let dir = tempfile::tempdir().unwrap();
    let mut anim = wave();
    anim.format = Format::Animbin;
    anim.version = 1;
    let clip = &mut anim.clips[0];
    clip.name = "Kick".into();
    clip.time_unit = TimeUnit::Frame;
    clip.length = 60.0;
    for t in &mut clip.tracks {
        for k in &mut t.rotation {
            k.time = k.time * 60.0 / 1000.0;
        }
    }
    clip.tracks[0].bone = Bone::Id(5);
    clip.tracks[1].bone = Bone::Id(6);
    for e in &mut clip.events {
        e.time = e.time * 60.0 / 1000.0;
    }
    let path = dir.path().join("kick.animbin");
    let bytes = formats::write(&anim, Target::Animbin(Default::default()), Tolerance::default(), &mut Losses::default()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let (o, out) = import("rigid-gte", &["--add-clips", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("lossy: clip \"Kick\": its frames have no stated rate; 60 frames per second assumed"), "{}", stderr(&o));
    let b = blob(out.path());
    let t = Tables::parse(&b).unwrap();
    let k = t.find_clip("Kick").unwrap();
    assert_eq!(t.clip(k).unwrap().frame_count, 31);
    assert_eq!((t.event(k, 0), t.event(k, 1)), (Some(("lift", 6)), Some(("wave", 15))));
}

#[test]
fn metroid_prime_anim_and_panim_clips_compile_onto_the_skeleton_too() {
    // The wave on bone ids (UpperArm.R is bone 5, Forearm.R 6 in the fixture's parent-first order),
    // written by our ANIM and .panim writers; read back through the readers as they are.
    let dir = tempfile::tempdir().unwrap();
    let mut anim = wave();
    anim.clips[0].name = "Wave".into();
    anim.clips[0].tracks[0].bone = Bone::Id(5);
    anim.clips[0].tracks[1].bone = Bone::Id(6);
    for (target, file) in [(Target::MpAnim(Some(2)), "wave.anim"), (Target::MpAnim(Some(0)), "wave_v0.anim"), (Target::Panim, "wave.panim")] {
        let path = dir.path().join(file);
        let bytes = formats::write(&anim, target, Tolerance::default(), &mut Losses::default()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        for storage in ["rigid-gte", "baked-vertices"] {
            let (o, out) = import(storage, &["--add-clips", path.to_str().unwrap()]);
            assert!(o.status.success(), "{file} {storage}: {}", stderr(&o));
            let b = blob(out.path());
            let t = Tables::parse(&b).unwrap();
            assert_eq!(t.clip_count(), 4, "{file}: the model's three and the added one");
            let added = t.clip(3).unwrap();
            assert!(added.frame_count > 1, "{file}: {} frames", added.frame_count);
        }
    }
}

/// The committed `wave.ani` with its tracks renamed (`UpperArm.R`, `Forearm.R` in order) and `extra`
/// tracks added (copies of the first), written to `dir/name/wave.ani` (the clip is named after the file).
fn renamed_wave(dir: &Path, name: &str, names: [&str; 2], extra: &[&str]) -> PathBuf {
    let bytes = std::fs::read(wave_path()).unwrap();
    let mut anim = formats::read(formats::detect(&bytes, Some(&wave_path())).unwrap(), &bytes).unwrap();
    let clip = &mut anim.clips[0];
    for (t, n) in clip.tracks.iter_mut().zip(names) {
        t.bone = Bone::Name(n.into());
    }
    for n in extra {
        let mut t = clip.tracks[0].clone();
        t.bone = Bone::Name((*n).into());
        clip.tracks.push(t);
    }
    std::fs::create_dir_all(dir.join(name)).unwrap();
    let path = dir.join(name).join("wave.ani");
    write_ani(&anim, &path);
    path
}

#[test]
fn tracks_of_other_rigs_find_their_bones_by_the_alias_rules_and_say_which_rule() {
    let dir = tempfile::tempdir().unwrap();
    let (reference, ref_dir) = import("rigid-gte", &["--add-clips", wave_path().to_str().unwrap()]);
    assert!(reference.status.success(), "{}", stderr(&reference));
    // Mixamo's names (namespace prefix, Left/Right words, Arm/ForeArm) and Unreal's (upperarm_r,
    // lowerarm_r), each with a track the character has no bone for.
    let rigs = [
        ("mixamo", ["mixamorig:RightArm", "mixamorig:RightForeArm"], "mixamorig:RightHandThumb1", ["alias", "side"]),
        ("unreal", ["upperarm_r", "lowerarm_r"], "thumb_01_r", ["case", "alias"]),
    ];
    for (file, names, extra, rules) in rigs {
        let path = renamed_wave(dir.path(), file, names, &[extra]);
        for storage in ["rigid-gte", "baked-vertices"] {
            let (o, out) = import(storage, &["--add-clips", path.to_str().unwrap(), "--json"]);
            assert!(o.status.success(), "{file} {storage}: {}", stderr(&o));
            let e = stderr(&o);
            // Text: the matches with their rule, and the miss.
            let line = e.lines().find(|l| l.contains("tracks matched to bones of other names")).unwrap_or_else(|| panic!("{e}"));
            for ((track, bone), rule) in names.iter().zip(["UpperArm.R", "Forearm.R"]).zip(rules) {
                assert!(line.contains(&format!("{track} -> {bone} ({rule})")), "{line}");
            }
            assert!(e.contains(&format!("tracks matching no bone (ignored): \"{extra}\" (track 2)")), "{e}");
            // JSON: the same.
            let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let added = &json["added_clips"][0];
            let matches: Vec<(String, String, String)> = added["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["track"].as_str().unwrap().into(), m["bone"].as_str().unwrap().into(), m["rule"].as_str().unwrap().into()))
                .collect();
            assert_eq!(
                matches,
                [(names[0].into(), "UpperArm.R".into(), rules[0].into()), (names[1].into(), "Forearm.R".into(), rules[1].into())]
            );
            assert_eq!(added["ignored_tracks"][0], format!("\"{extra}\" (track 2)"));
            if storage == "rigid-gte" {
                assert!(blob(out.path()) == blob(ref_dir.path()), "{file}: the renamed tracks drive the same bones");
            }
        }
    }
    // The bone map renames first: a mapped track matches exactly, the others still by the rules.
    let path = renamed_wave(dir.path(), "mapped", ["Arm_Upper_Right", "mixamorig:RightForeArm"], &[]);
    let map = dir.path().join("map.txt");
    std::fs::write(&map, "Arm_Upper_Right = UpperArm.R\n").unwrap();
    let (o, out) = import("rigid-gte", &["--add-clips", path.to_str().unwrap(), "--bone-map", map.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules: Vec<&str> = json["added_clips"][0]["matches"].as_array().unwrap().iter().map(|m| m["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["exact", "side"]);
    assert!(blob(out.path()) == blob(ref_dir.path()));
    // Without the map, that name matches nothing (its words are not an alias): reported, bind pose kept.
    let (o, _) = import("rigid-gte", &["--add-clips", path.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("tracks matching no bone (ignored): \"Arm_Upper_Right\" (track 0)"), "{}", stderr(&o));
    assert!(stderr(&o).contains("bones keeping the bind pose (no track): Hips, Spine, Head, UpperArm.L, Forearm.L, UpperArm.R,"), "{}", stderr(&o));
}
