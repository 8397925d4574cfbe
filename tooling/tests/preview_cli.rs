//! `psxanim preview` end to end: GIF frame count and motion, the PNG contact sheet, animation files on
//! an FBX skeleton, the viewer's JSON, and clear failures for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use psxanim::compile::StorageMode;
use psxanim::formats::{self, Losses, Target, Tolerance};
use psxanim::model::{
    Animation, Bone, Clip, ClipExtras, Event, Format, Quat, RotationKey, TimeUnit, Track,
};
use psxanim::preview::camera::{Framing, Orbit};
use psxanim::preview::serve::{respond, Viewer};
use psxanim::preview::subject::{Normals, Subject};
use psxanim::preview::LightOptions;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/character.fbx")
}

/// The painted character (`tests/fixtures/fbx/make_fixtures.py`: the image embedded in the FBX).
fn textured_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fbx/textured_embedded.fbx")
}

/// The web viewer of `subject`, light off at first.
fn viewer(subject: Subject) -> Viewer {
    Viewer {
        subject,
        initial_light: LightOptions::default(),
    }
}

/// `psxanim preview INPUT --clip Walk --frames FRAME --out OUT EXTRA...`, which must succeed; its stderr.
fn walk_frame_png(input: &Path, frame: usize, out: &Path, extra: &[&str]) -> String {
    let frame = frame.to_string();
    let mut args = vec![
        "preview",
        input.to_str().unwrap(),
        "--clip",
        "Walk",
        "--frames",
        &frame,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = psxanim(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

fn json(r: &psxanim::preview::serve::Response) -> serde_json::Value {
    serde_json::from_slice(&r.body).unwrap()
}

fn psxanim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(args)
        .output()
        .expect("psxanim runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every frame of a GIF as RGB.
fn gif_frames(path: &Path) -> (usize, usize, Vec<Vec<u8>>, Vec<u16>) {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(std::fs::File::open(path).unwrap()).unwrap();
    let (w, h) = (dec.width() as usize, dec.height() as usize);
    let mut frames = Vec::new();
    let mut delays = Vec::new();
    while let Some(f) = dec.read_next_frame().unwrap() {
        assert_eq!(
            (f.width as usize, f.height as usize, f.left, f.top),
            (w, h, 0, 0),
            "every frame is a full picture"
        );
        frames.push(
            f.buffer
                .chunks_exact(4)
                .flat_map(|c| [c[0], c[1], c[2]])
                .collect(),
        );
        delays.push(f.delay);
    }
    (w, h, frames, delays)
}

#[test]
fn gif_has_one_frame_per_clip_frame_and_changes_exactly_where_the_character_moves() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.gif");
    let o = psxanim(&[
        "preview",
        fixture().to_str().unwrap(),
        "--clip",
        "Walk",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (w, h, frames, delays) = gif_frames(&out);
    assert_eq!((w, h), (320, 240));
    let subject = Subject::load(&fixture(), None, &[StorageMode::RigidGte]).unwrap();
    let clip = subject.clip_index("Walk").unwrap();
    assert_eq!(
        frames.len(),
        subject.clips[clip].frames,
        "one GIF frame per clip frame"
    );
    assert!(
        delays.iter().all(|&d| d == 3),
        "30 Hz clip: 3/100 s per frame, got {delays:?}"
    );

    // What the console draws, frame by frame, from the same stages (default camera).
    let framing = Framing::new(subject.bounds(), Orbit::default());
    let shots: Vec<_> = (0..frames.len())
        .map(|f| {
            subject
                .shot(clip, f, StorageMode::RigidGte, &framing)
                .unwrap()
        })
        .collect();
    for (f, shot) in shots.iter().enumerate() {
        assert!(
            frames[f] == psxanim::preview::shot::paint(shot, None, w, h, false).rgb,
            "GIF frame {f} is the console's picture, colour for colour"
        );
    }
    let mut moving_pairs = 0;
    for f in 1..frames.len() {
        let (a, b) = (&shots[f - 1], &shots[f]);
        let changed: Vec<(usize, usize)> = (0..w * h)
            .filter(|&i| frames[f - 1][3 * i..3 * i + 3] != frames[f][3 * i..3 * i + 3])
            .map(|i| (i % w, i / w))
            .collect();
        if a.triangles == b.triangles {
            assert!(
                changed.is_empty(),
                "frames {} and {f}: same triangles, yet {} pixels differ",
                f - 1,
                changed.len()
            );
            continue;
        }
        moving_pairs += 1;
        assert!(
            !changed.is_empty(),
            "frames {} and {f}: the pose moves but the pictures are identical",
            f - 1
        );
        // Every change lies inside the screen box of the triangles of the two frames.
        let xs = a
            .triangles
            .iter()
            .chain(&b.triangles)
            .flat_map(|t| t.xy.map(|p| (p.x as usize, p.y as usize)));
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for (x, y) in xs {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        for &(x, y) in &changed {
            assert!(
                (x0..=x1).contains(&x) && (y0..=y1).contains(&y),
                "frames {} and {f}: change at ({x}, {y}) outside {x0},{y0}..{x1},{y1}",
                f - 1
            );
        }
    }
    assert!(
        moving_pairs >= frames.len() / 2,
        "a walk moves in most frames ({moving_pairs} of {})",
        frames.len() - 1
    );
}

#[test]
fn frame_range_baked_storage_and_contact_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("part.gif");
    let o = psxanim(&[
        "preview",
        fixture().to_str().unwrap(),
        "--clip",
        "Turn",
        "--frames",
        "10..=19",
        "--storage",
        "baked-vertices",
        "--out",
        gif.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, _, frames, _) = gif_frames(&gif);
    assert_eq!(frames.len(), 10);
    assert_ne!(frames[0], frames[9], "the turn turns");

    let png = dir.path().join("sheet.png");
    let o = psxanim(&[
        "preview",
        fixture().to_str().unwrap(),
        "--clip",
        "Walk",
        "--frames",
        "0..8",
        "--bones",
        "--compare",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    // 8 cells of 640x240 (console + float side by side), 6 per row, 2-pixel gaps.
    assert_eq!((info.width, info.height), (6 * 642 - 2, 2 * 242 - 2));
    assert!(std::fs::read_dir(dir.path()).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains("psxanim-tmp")));
}

#[test]
fn bad_input_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.gif");
    let fbx = fixture();
    let fbx = fbx.to_str().unwrap();

    let o = psxanim(&[
        "preview",
        fbx,
        "--clip",
        "Dance",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no clip named 'Dance'") && stderr(&o).contains("Walk"),
        "{}",
        stderr(&o)
    );

    let o = psxanim(&[
        "preview",
        fbx,
        "--clip",
        "Walk",
        "--frames",
        "0..999",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has 31 frames"), "{}", stderr(&o));

    let o = psxanim(&[
        "preview",
        fbx,
        "--clip",
        "Walk",
        "--out",
        dir.path().join("x.bmp").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(".png") && stderr(&o).contains(".gif"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());

    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let o = psxanim(&["preview", fbx, "--serve", "--port", &port]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already in use"), "{}", stderr(&o));

    // Compiled tables keep no float pose to compare with.
    let o = psxanim(&[
        "import",
        fbx,
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pxsk = dir.path().join("character.pxsk");
    let o = psxanim(&[
        "preview",
        pxsk.to_str().unwrap(),
        "--clip",
        "Walk",
        "--frames",
        "3",
        "--compare",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--compare needs an FBX"),
        "{}",
        stderr(&o)
    );
    let o = psxanim(&[
        "preview",
        pxsk.to_str().unwrap(),
        "--clip",
        "Walk",
        "--frames",
        "3",
        "--storage",
        "baked-vertices",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no baked-vertices tables"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compiled_tables_preview_like_the_fbx() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture();
    let o = psxanim(&[
        "import",
        fbx.to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (dir.path().join("a.gif"), dir.path().join("b.gif"));
    for (input, out) in [(fbx.clone(), &a), (dir.path().join("character.pxsk"), &b)] {
        let o = psxanim(&[
            "preview",
            input.to_str().unwrap(),
            "--clip",
            "Idle",
            "--frames",
            "0..5",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(
        gif_frames(&a).2,
        gif_frames(&b).2,
        "the same tables give the same pictures"
    );
}

/// `dir/NAME.ani`: one clip turning `bones` (by name) about Z over one second, with one event marker.
/// (`.ani` clips carry no name: the preview names them after the file.)
fn ani_file(dir: &Path, name: &str, bones: &[&str]) -> PathBuf {
    let key = |ms: f64, deg: f64| {
        let h = (deg.to_radians() / 2.0).sin_cos();
        RotationKey {
            time: ms,
            value: Quat {
                w: h.1,
                x: 0.0,
                y: 0.0,
                z: h.0,
            },
            stored: None,
        }
    };
    let tracks = bones
        .iter()
        .map(|b| Track {
            bone: Bone::Name(b.to_string()),
            rotation: vec![key(0.0, 0.0), key(1000.0, 90.0)],
            ..Track::default()
        })
        .collect();
    let clip = Clip {
        name: "Wave".into(),
        looping: true,
        time_unit: TimeUnit::Ms,
        length: 1000.0,
        frame_rate: None,
        tracks,
        events: vec![Event::new(500.0, "halfway", None)],
        extras: ClipExtras::default(),
    };
    let anim = Animation {
        format: Format::Ani,
        version: 4000,
        clips: vec![clip],
        warnings: Vec::new(),
    };
    let bytes = formats::write(
        &anim,
        Target::Ani(Some(4000)),
        Tolerance::default(),
        &mut Losses::default(),
    )
    .unwrap();
    let path = dir.join(format!("{name}.ani"));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn animation_file_drives_the_fbx_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    let ani = ani_file(dir.path(), "Wave", &["Forearm.L", "UpperArm.R"]);
    let out = dir.path().join("wave.gif");
    let o = psxanim(&[
        "preview",
        ani.to_str().unwrap(),
        "--skeleton",
        fixture().to_str().unwrap(),
        "--clip",
        "Wave",
        "--bones",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, _, frames, _) = gif_frames(&out);
    assert_eq!(frames.len(), 31, "1 s at 30 Hz, both ends");
    assert_ne!(frames[0], frames[30], "the arms turn");

    // Markers reach the viewer's clip list.
    let subject = Subject::load(&ani, Some(&fixture()), &[StorageMode::RigidGte]).unwrap();
    let info = json(&respond(&viewer(subject), "/api/info"));
    assert_eq!(
        info["clips"][0]["events"][0],
        serde_json::json!({ "frame": 15, "name": "halfway" })
    );

    // Without a skeleton, or with bones the model lacks, it says what is wrong.
    let o = psxanim(&[
        "preview",
        ani.to_str().unwrap(),
        "--clip",
        "Wave",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--skeleton"), "{}", stderr(&o));
    let bad = ani_file(dir.path(), "Wave2", &["Tail", "Forearm.L", "Wing.R"]);
    let o = psxanim(&[
        "preview",
        bad.to_str().unwrap(),
        "--skeleton",
        fixture().to_str().unwrap(),
        "--clip",
        "Wave",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("\"Tail\" (track 0)")
            && e.contains("\"Wing.R\" (track 2)")
            && !e.contains("\"Forearm.L\" (track"),
        "{e}"
    );
}

#[test]
fn viewer_api_answers_frames_and_rejects_bad_queries() {
    let subject = Subject::load(
        &fixture(),
        None,
        &[StorageMode::RigidGte, StorageMode::BakedVertices],
    )
    .unwrap();
    let viewer = viewer(subject);
    let page = respond(&viewer, "/");
    assert_eq!(page.status, 200);
    let html = String::from_utf8(page.body).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("src="),
        "the page loads nothing from elsewhere"
    );
    let frame = json(&respond(
        &viewer,
        "/api/frame?clip=0&frame=3&storage=baked-vertices",
    ));
    assert_eq!(
        (frame["clip"].as_u64(), frame["frame"].as_u64()),
        (Some(0), Some(3))
    );
    assert!(frame["triangles"].as_array().unwrap().len() > 100);
    let picture = respond(
        &viewer,
        "/api/picture?clip=0&frame=3&storage=baked-vertices",
    );
    assert_eq!((picture.status, picture.content_type), (200, "image/png"));
    assert_eq!(
        image::load_from_memory(&picture.body)
            .unwrap()
            .to_rgb8()
            .dimensions(),
        (320, 240)
    );
    // Each bad query is refused with what is wrong, on both routes.
    for (query, says) in [
        ("clip=9&frame=0", "clip 9 does not exist"),
        ("clip=0&frame=9999", "frame 9999 does not exist"),
        ("clip=0", "parameter frame is missing"),
        ("clip=0&frame=0&storage=wire", "storage wire is not"),
        ("clip=0&frame=0&yaw=x", "yaw=x is not a number"),
        ("clip=0&frame=0&light=yes", "light=yes is not 0 or 1"),
    ] {
        for route in ["/api/frame", "/api/picture"] {
            let r = respond(&viewer, &format!("{route}?{query}"));
            assert_eq!(
                (r.status, r.content_type),
                (400, "application/json"),
                "{route}?{query}"
            );
            let error = json(&r)["error"].as_str().unwrap_or_default().to_string();
            assert!(error.contains(says), "{route}?{query}: {error}");
        }
    }
    assert_eq!(respond(&viewer, "/nothing").status, 404);
}

#[test]
fn animbin_tracks_match_bones_by_index() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, ids: &[u32]| {
        let key = |frame: f64, deg: f64| {
            let h = (deg.to_radians() / 2.0).sin_cos();
            RotationKey {
                time: frame,
                value: Quat {
                    w: h.1,
                    x: h.0,
                    y: 0.0,
                    z: 0.0,
                },
                stored: None,
            }
        };
        let tracks = ids
            .iter()
            .map(|&id| Track {
                bone: Bone::Id(id),
                rotation: vec![key(0.0, 0.0), key(20.0, 60.0)],
                ..Track::default()
            })
            .collect();
        let clip = Clip {
            name: "Kick".into(),
            looping: false,
            time_unit: TimeUnit::Frame,
            length: 20.0,
            frame_rate: None,
            tracks,
            events: vec![],
            extras: ClipExtras::default(),
        };
        let anim = Animation {
            format: Format::Animbin,
            version: 1,
            clips: vec![clip],
            warnings: Vec::new(),
        };
        let bytes = formats::write(
            &anim,
            Target::Animbin(Default::default()),
            Tolerance::default(),
            &mut Losses::default(),
        )
        .unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let fbx = fixture();
    let out = dir.path().join("kick.gif");
    // Bone 7 is Thigh.L in the fixture's parent-first order.
    let good = write("kick.animbin", &[7]);
    let o = psxanim(&[
        "preview",
        good.to_str().unwrap(),
        "--skeleton",
        fbx.to_str().unwrap(),
        "--clip",
        "Kick",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, _, frames, _) = gif_frames(&out);
    assert_eq!(frames.len(), 21, "frames 0..=20");
    assert_ne!(frames[0], frames[20], "the leg kicks");

    let bad = write("bad.animbin", &[7, 40]);
    let o = psxanim(&[
        "preview",
        bad.to_str().unwrap(),
        "--skeleton",
        fbx.to_str().unwrap(),
        "--clip",
        "Kick",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bones 40 (track 1) have no match") && stderr(&o).contains("0..11"),
        "{}",
        stderr(&o)
    );
}

/// `--light`: the GTE's lighting drawn as the console draws it. The light side of the character is
/// brighter than the unlit picture and the far side darker; compiled tables without normals are drawn
/// unlit with a warning.
#[test]
fn light_shades_the_character_as_the_console_does() {
    let dir = tempfile::tempdir().unwrap();
    let picture = |extra: &[&str], input: &Path, name: &str| {
        let out = dir.path().join(name);
        let warnings = walk_frame_png(input, 10, &out, extra);
        (image::open(&out).unwrap().to_rgb8(), warnings)
    };
    let (unlit, _) = picture(&[], &fixture(), "unlit.png");
    let (lit, _) = picture(&["--light"], &fixture(), "lit.png");
    assert_eq!(unlit.dimensions(), lit.dimensions());
    let background = *unlit.get_pixel(0, 0);
    let (mut brighter, mut darker) = (0, 0);
    for (u, l) in unlit.pixels().zip(lit.pixels()) {
        if *u == background || *l == background {
            continue;
        }
        let sum = |p: &image::Rgb<u8>| p.0.iter().map(|&c| c as u32).sum::<u32>();
        brighter += usize::from(sum(l) > sum(u) + 12);
        darker += usize::from(sum(l) + 12 < sum(u));
    }
    assert!(
        brighter > 100 && darker > 100,
        "lit: {brighter} pixels brighter, {darker} darker"
    );
    // Tables imported without --lighting have no normals.
    let import = psxanim(&[
        "import",
        fixture().to_str().unwrap(),
        "--storage",
        "rigid-gte",
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert!(import.status.success(), "{}", stderr(&import));
    let (plain, warning) = picture(
        &["--light"],
        &dir.path().join("character.pxsk"),
        "plain.png",
    );
    assert!(
        warning.contains("imported without --lighting; drawing it unlit"),
        "{warning}"
    );
    assert_eq!(plain, unlit);
    // --fog: the GTE's depth cue over the framed character's depth, toward the background's dark
    // colour, darker than every lit colour here (the ambient alone is 64): every corner's colour
    // darkens, the far side more (each material's colour times the fogged light / 128, as the GPU
    // modulates); a few pixels where Gouraud steps round differently may not.
    let (fogged, _) = picture(&["--light", "--fog"], &fixture(), "fogged.png");
    let sum = |p: &image::Rgb<u8>| p.0.iter().map(|&c| c as i32).sum::<i32>();
    let (mut darker, mut brighter) = (0, 0);
    for (l, f) in lit.pixels().zip(fogged.pixels()) {
        darker += usize::from(sum(f) + 12 < sum(l));
        brighter += usize::from(sum(f) > sum(l) + 12);
    }
    assert!(darker > 1000 && brighter * 100 < darker, "fogged: {darker} pixels darker, {brighter} brighter");
    let o = psxanim(&["preview", fixture().to_str().unwrap(), "--fog", "--out", dir.path().join("x.png").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "--fog without --light: {}", stderr(&o));
}

/// The web viewer's picture of a frame is the PNG `preview --out` writes for it, byte for byte: the
/// painted character's texels through the VRAM model, lit (modulated, Gouraud) and unlit, in both
/// storage modes, from one viewer that holds tables with and without normals.
#[test]
fn viewer_picture_is_the_preview_png_byte_for_byte_textured_lit_and_unlit() {
    let dir = tempfile::tempdir().unwrap();
    let input = textured_fixture();
    let subject = Subject::load_with(
        &input,
        None,
        &[StorageMode::RigidGte, StorageMode::BakedVertices],
        &Default::default(),
        Normals::Both,
    )
    .unwrap();
    let viewer = viewer(subject);
    let clip = viewer.subject.clip_index("Walk").unwrap();
    let info = json(&respond(&viewer, "/api/info"));
    assert_eq!(
        info["light"],
        serde_json::json!([
            { "name": "light", "label": "Light", "on": false },
            { "name": "fog", "label": "Fog", "on": false }
        ])
    );
    assert_eq!(
        info["lightable"],
        serde_json::json!({ "rigid-gte": true, "baked-vertices": false })
    );
    let camera = ["--yaw", "-40", "--pitch", "20", "--zoom", "1.3"];
    let mut pictures = std::collections::HashMap::new();
    for storage in ["rigid-gte", "baked-vertices"] {
        for light in [false, true] {
            let out = dir.path().join(format!("{storage}-{light}.png"));
            let mut extra = vec!["--storage", storage];
            extra.extend_from_slice(&camera);
            if light {
                extra.push("--light");
            }
            walk_frame_png(&input, 7, &out, &extra);
            let query = format!(
                "clip={clip}&frame=7&storage={storage}&yaw=-40&pitch=20&zoom=1.3&light={}",
                u8::from(light)
            );
            let served = respond(&viewer, &format!("/api/picture?{query}"));
            assert_eq!(
                served.status,
                200,
                "{}",
                String::from_utf8_lossy(&served.body)
            );
            assert!(
                served.body == std::fs::read(&out).unwrap(),
                "{storage}, light {light}: the viewer's PNG is preview --out's"
            );
            let frame = json(&respond(&viewer, &format!("/api/frame?{query}")));
            assert_eq!(
                frame["lit"],
                light && storage == "rigid-gte",
                "{storage}, light {light}"
            );
            pictures.insert(
                (storage, light),
                image::load_from_memory(&served.body).unwrap().to_rgb8(),
            );
        }
    }
    // Textured: many pixels of colours no material has (texels); every colour a 15-bit one widened as
    // the GPU stores it; lit differs from unlit where the character is; baked tables carry no normals,
    // so they are drawn unlit either way.
    let unlit = &pictures[&("rigid-gte", false)];
    let flat = psxanim::preview::palette(&viewer.subject);
    let texels = unlit.pixels().filter(|p| !flat.contains(&p.0)).count();
    assert!(texels > 300, "{texels} pixels of texel colours");
    let background = psxanim::preview::shot::BACKGROUND;
    assert!(
        unlit
            .pixels()
            .all(|p| p.0 == background || psxanim::preview::raster::vram_colour(p.0) == p.0),
        "15-bit colours"
    );
    let changed = unlit
        .pixels()
        .zip(pictures[&("rigid-gte", true)].pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 1000, "light changes {changed} pixels");
    assert_eq!(
        pictures[&("baked-vertices", false)],
        pictures[&("baked-vertices", true)]
    );
}

/// `--serve --light`: the viewer starts lit, and answers on localhost what `respond` answers.
#[test]
fn serve_with_light_starts_lit() {
    use std::io::{BufRead, BufReader, Read, Write};
    struct Server(std::process::Child);
    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let child = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args([
            "preview",
            fixture().to_str().unwrap(),
            "--serve",
            "--light",
            "--port",
            "0",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let get = |target: &str| {
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(stream, "GET {target} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let head_end = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        (
            String::from_utf8_lossy(&response[..head_end]).into_owned(),
            response[head_end..].to_vec(),
        )
    };
    let (head, body) = get("/api/info");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let info: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(info["light"][0]["on"], true, "{info}");
    let (head, body) = get("/api/picture?clip=0&frame=2&light=1");
    assert!(
        head.starts_with("HTTP/1.1 200") && head.contains("Content-Type: image/png"),
        "{head}"
    );
    assert!(image::load_from_memory(&body).is_ok());
    let (head, body) = get("/api/picture?clip=0&frame=2&zoom=near");
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("zoom=near is not a number"));
}

/// A model beyond baked-vertices' 512 vertices (the dense fixture's 2,946) is served in rigid-gte
/// alone, with a note naming why, instead of refusing to serve at all.
#[test]
fn serve_takes_a_model_only_rigid_gte_holds() {
    use std::io::{BufRead, BufReader, Read, Write};
    struct Server(std::process::Child);
    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let dense = fixture().with_file_name("dense_character.fbx");
    let child = Command::new(env!("CARGO_BIN_EXE_psxanim"))
        .args(["preview", dense.to_str().unwrap(), "--serve", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split("http://").nth(1).and_then(|s| s.split('/').next()).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(stream, "GET /api/info HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let head_end = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let info: serde_json::Value = serde_json::from_slice(&response[head_end..]).unwrap();
    assert_eq!(info["storages"], serde_json::json!(["rigid-gte"]), "{info}");
    drop(server.0.stdout.take());
    let mut note = String::new();
    let _ = server.0.kill();
    server.0.stderr.take().unwrap().read_to_string(&mut note).unwrap();
    assert!(note.contains("serving rigid-gte only; baked-vertices:") && note.contains("exceed baked-vertices' limit of 512"), "{note}");
}
