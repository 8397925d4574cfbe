//! The `psxanim inspect / convert / validate` binary: JSON document, exit codes, messages naming file
//! and offset, losses on stderr, --strict, atomic output, bone maps, validation profiles.

mod formats_support;
use formats_support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn psxanim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psxanim")).args(args).output().expect("run psxanim")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `clips` clips of two tracks each (joints 0 and 1, `keys` rotation keys), joint 0 also translated;
/// one marker per clip.
fn animbin(clips: u8, keys: u16) -> Vec<u8> {
    let mut b = Bytes::new().raw(b"ANIMBIN").u8(1).u8(clips);
    for c in 0..clips {
        b = b.fixed(&format!("clip{c}"), 32).u32le(1).u16le(keys).u16le(2).u16le(1);
        for joint in 0..2u8 {
            b = b.u8(0).u8(joint).u16le(if joint == 0 { keys * 2 } else { keys });
            for f in 0..keys {
                let q = axis_angle([0.0, 1.0, joint as f64], f as f64 * 0.1);
                b = animbin_rot(b, f, [q.w, q.x, q.y, q.z].map(|v| (v * 4096.0).round() as i16));
                if joint == 0 {
                    b = animbin_trans(b, f, [4096 * f as i32, 0, -2048]);
                }
            }
        }
        b = b.fixed("step", 32).u16le(keys / 2);
    }
    b.done()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn inspect_json_is_the_animation_document() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "walk.animbin", &animbin(1, 4));
    let out = psxanim(&["inspect", f.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["format"], "animbin");
    assert_eq!(doc["version"], 1);
    let clip = &doc["clips"][0];
    assert_eq!(clip["name"], "clip0");
    assert_eq!(clip["looping"], true);
    assert_eq!(clip["time_unit"], "frame");
    assert_eq!(clip["length"], 4);
    assert!(clip["frame_rate"].is_null());
    let t0 = &clip["tracks"][0];
    assert_eq!(t0["bone"], 0);
    assert_eq!(t0["rotation"].as_array().unwrap().len(), 4);
    assert_eq!(t0["rotation"][0], serde_json::json!([0, 1.0, 0.0, 0.0, 0.0]));
    assert_eq!(t0["translation"][1], serde_json::json!([1, 1.0, 0.0, -0.5]));
    assert_eq!(t0["scale"], serde_json::json!([]));
    assert_eq!(t0["euler_s16"], serde_json::json!([]));
    assert_eq!(clip["events"], serde_json::json!([{"time": 2, "name": "step", "data": null}]));
}

#[test]
fn inspect_summary_is_readable() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "walk.animbin", &animbin(1, 4));
    let out = psxanim(&["inspect", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("format animbin version 1, 1 clip(s)"), "{s}");
    assert!(s.contains("\"clip0\": 4 frame"), "{s}");
    assert!(s.contains("event at 2: \"step\""), "{s}");
}

#[test]
fn malformed_input_exits_1_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = animbin(1, 4);
    bytes[9 + 42 + 4 + 2] = 7; // first key's keyType
    let f = write(dir.path(), "bad.animbin", &bytes);
    for cmd in [vec!["inspect", f.to_str().unwrap()], vec!["validate", f.to_str().unwrap()], vec!["convert", f.to_str().unwrap(), "x.ani"]] {
        let out = psxanim(&cmd);
        assert_eq!(out.status.code(), Some(1), "{cmd:?}");
        let err = text(&out.stderr);
        assert!(err.contains("bad.animbin") && err.contains("byte offset 57") && err.contains("key type 0"), "{err}");
    }
    let unknown = write(dir.path(), "noise.bin", b"\x01\x02\x03\x04");
    let out = psxanim(&["inspect", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("expected a known format"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(psxanim(&["inspect"]).status.code(), Some(2));
    assert_eq!(psxanim(&["validate", "x.animbin", "--profile", "huge"]).status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "walk.animbin", &animbin(1, 4));
    let out = psxanim(&["convert", f.to_str().unwrap(), dir.path().join("out.xyz").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = psxanim(&["convert", f.to_str().unwrap(), "o.ani", "--to", "fbx"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn validate_names_the_exceeded_limit() {
    let dir = tempfile::tempdir().unwrap();
    let ok = write(dir.path(), "ok.animbin", &animbin(2, 10));
    let out = psxanim(&["validate", ok.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let many = write(dir.path(), "many.animbin", &animbin(6, 10));
    let out = psxanim(&["validate", many.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("MAX_ANIMATIONS"), "{}", text(&out.stderr));
    // Readable and convertible all the same; valid under the large profile.
    assert_eq!(psxanim(&["inspect", many.to_str().unwrap()]).status.code(), Some(0));
    assert_eq!(psxanim(&["validate", many.to_str().unwrap(), "--profile", "large"]).status.code(), Some(0));

    let long = write(dir.path(), "long.animbin", &animbin(1, 16)); // joint 0: 32 keys
    let out = psxanim(&["validate", long.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("keys: 32 exceeds the original profile's limit of 30 (MAX_KEYS)"), "{}", text(&out.stderr));
}

#[test]
fn convert_reports_losses_and_strict_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "walk.animbin", &animbin(1, 4));
    let out_path = dir.path().join("walk.ani");
    let out = psxanim(&["convert", src.to_str().unwrap(), out_path.to_str().unwrap(), "--to", "ani4001"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("lossy: precision"), "{err}");
    assert!(err.contains("resampled time") || err.contains("rounded to whole units"), "{err}");
    assert!(out_path.exists());

    let strict_out = dir.path().join("strict.ani");
    let out = psxanim(&["convert", src.to_str().unwrap(), strict_out.to_str().unwrap(), "--strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--strict"));
    assert!(!strict_out.exists(), "nothing written under --strict");
    // No temporary file left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.contains("psxanim-tmp")), "{names:?}");

    // An exact rewrite has no loss even under --strict, and is byte-identical.
    let same = dir.path().join("same.animbin");
    let out = psxanim(&["convert", src.to_str().unwrap(), same.to_str().unwrap(), "--strict"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&same).unwrap(), std::fs::read(&src).unwrap());
}

#[test]
fn bone_map_renames_and_reindexes() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "walk.animbin", &animbin(1, 4));
    let map = write(dir.path(), "map.txt", b"# joints to names\n0 = Bip01\n1 = \"Bip01 Spine\"  # quoted\n");
    let ani = dir.path().join("walk.ani");
    let out = psxanim(&["convert", src.to_str().unwrap(), ani.to_str().unwrap(), "--bone-map", map.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&psxanim(&["inspect", ani.to_str().unwrap(), "--json"]).stdout).unwrap();
    assert_eq!(doc["clips"][0]["tracks"][0]["bone"], "Bip01");
    assert_eq!(doc["clips"][0]["tracks"][1]["bone"], "Bip01 Spine");

    // And back to ids, re-indexed.
    let back_map = write(dir.path(), "back.txt", b"Bip01 = 7\n\"Bip01 Spine\" = 3\n");
    let back = dir.path().join("back.animbin");
    let out = psxanim(&["convert", ani.to_str().unwrap(), back.to_str().unwrap(), "--bone-map", back_map.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&psxanim(&["inspect", back.to_str().unwrap(), "--json"]).stdout).unwrap();
    assert_eq!(doc["clips"][0]["tracks"][0]["bone"], 7);
    assert_eq!(doc["clips"][0]["tracks"][1]["bone"], 3);

    // Names with no map cannot become ids.
    let out = psxanim(&["convert", ani.to_str().unwrap(), dir.path().join("x.panim").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--bone-map"), "{}", text(&out.stderr));

    let bad_map = write(dir.path(), "bad.txt", b"0 = a\nnonsense\n");
    let out = psxanim(&["convert", src.to_str().unwrap(), ani.to_str().unwrap(), "--bone-map", bad_map.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("line 2"), "{}", text(&out.stderr));
}

#[test]
fn every_format_converts_to_every_other() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "walk.animbin", &animbin(1, 6));
    let exts = ["animbin", "anim", "ani", "panim"];
    for from in exts {
        let first = dir.path().join(format!("first.{from}"));
        let out = psxanim(&["convert", src.to_str().unwrap(), first.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        for to in exts {
            let second = dir.path().join(format!("{from}-to.{to}"));
            let out = psxanim(&["convert", first.to_str().unwrap(), second.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(0), "{from} -> {to}: {}", text(&out.stderr));
            let doc: serde_json::Value = serde_json::from_slice(&psxanim(&["inspect", second.to_str().unwrap(), "--json"]).stdout).unwrap();
            let format = if to == "anim" { "mp-anim" } else { to };
            assert_eq!(doc["format"], format);
            assert_eq!(doc["clips"][0]["tracks"].as_array().unwrap().len(), 2, "{from} -> {to}");
        }
    }
}

#[test]
fn help_teaches_the_bone_map_format() {
    let out = psxanim(&["convert", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("BONE MAP FILE") && s.contains("FROM = TO"), "{s}");
    assert!(s.contains("--strict"));
}

#[test]
fn detection_is_by_magic_then_extension() {
    use psxanim::formats::detect;
    use psxanim::model::Format;
    let p = |s: &str| Some(Path::new(s).to_path_buf());
    // Magic wins over a misleading extension.
    assert_eq!(detect(b"ANI\0\xa0\x0f\0\0", p("x.animbin").as_deref()), Some(Format::Ani));
    assert_eq!(detect(b"ANIMBIN\x01\x00", p("x.ani").as_deref()), Some(Format::Animbin));
    let mut panim = vec![0u8; 100];
    panim.extend_from_slice(b"values");
    assert_eq!(detect(&panim, p("x.anim").as_deref()), Some(Format::Panim));
    // No magic: the extension decides; ANIM's version word is the last resort.
    assert_eq!(detect(b"\0\0\0\x02", p("x.panim").as_deref()), Some(Format::Panim));
    assert_eq!(detect(b"\0\0\0\x02", p("x.bin").as_deref()), Some(Format::MpAnim));
    assert_eq!(detect(b"\0\0\0\x07", p("x.bin").as_deref()), None);
}

#[test]
fn what_the_original_loader_accepts_reads_with_a_warning_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    // An ANIMBIN with bytes after its last clip (15 bytes, one track's worth; the clip has a marker, so
    // they are not told apart as a track).
    let mut bytes = animbin(1, 3);
    bytes.extend_from_slice(&[0, 7, 1, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0]);
    let path = write(dir.path(), "extra.animbin", &bytes);
    for command in ["inspect", "validate"] {
        let out = psxanim(&[command, path.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{command}: {stderr}");
        assert!(stderr.contains("extra.animbin: warning: animbin: at byte offset 204") && stderr.contains("15 byte(s) after the last of 1 animation(s)"), "{stderr}");
    }
    // Converting writes what was read (the declared tracks) and says so on stderr too.
    let out_path = dir.path().join("clean.animbin");
    let out = psxanim(&["convert", path.to_str().unwrap(), out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&out_path).unwrap(), animbin(1, 3));
}
