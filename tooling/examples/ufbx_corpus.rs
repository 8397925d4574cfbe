//! Runs `psxanim import` over the ufbx project's public test corpus and prints the outcome table by
//! authoring tool. For local runs only: the corpus is never committed (fetch `github:ufbx/ufbx`).
//!
//!     cargo build --release -p psxanim
//!     cargo run --release -p psxanim --example ufbx_corpus -- /path/to/ufbx [--psxanim PATH] [--only TEXT]
//!
//! (`--only` keeps the files whose name contains TEXT.)
//!
//! 1. Every `data/*.fbx` is imported in both storage modes by the `psxanim` binary (a child process,
//!    so a panic or a hang is recorded, not suffered; 60 s limit): imported, rejected (the message's
//!    reason), panic (exit 101) or hang.
//! 2. For every frame the ufbx test suite checks against the authoring tool's `.obj` export (each
//!    `ufbxt_check_frame(scene, err, _, "OBJ", TAKE, TIME)` in `test/*.h`, under its
//!    `UFBXT_FILE_TEST*` naming the files), the file is imported at a rate that puts TIME on a frame,
//!    compiled in baked-vertices, the frame decoded as the console does (`inspect`'s decoder), and
//!    compared with the `.obj` positions (divided by a `# ufbx:position_scale` hint, taken through the
//!    file's axes and units into model space). The error is the largest per-axis difference in GTE
//!    units: vertex by vertex when the `.obj` lists the same number of vertices in the same order
//!    (checked: the pairing must beat the nearest-neighbour bound), else the symmetric nearest-vertex
//!    (Hausdorff) distance, marked `nn`. The bound is max(10 GTE units, 1% of the model's height).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use psxanim::cli::inspect_tables::positions;
use psxanim::compile::{compile, model_height, CompileOptions, StorageMode};
use psxanim::fbx::{file_to_model, import, ImportOptions};
use psxanim_runtime::tables::Tables;

const TIMEOUT: Duration = Duration::from_secs(60);

fn tool_of(file: &str) -> &'static str {
    let stem = file.to_ascii_lowercase();
    if stem.starts_with("blender") {
        "Blender"
    } else if stem.starts_with("maya") {
        "Maya"
    } else if stem.starts_with("max") {
        "3ds Max"
    } else if stem.starts_with("motionbuilder") {
        "MotionBuilder"
    } else {
        "other (synthetic, zbrush, marvelous, revit, casegen)"
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    imported: [usize; 2],
    rejected: [BTreeMap<String, usize>; 2],
    panics: Vec<String>,
    hangs: Vec<String>,
    slowest: f64,
    obj_checks: usize,
    obj_within: usize,
    obj_worst: Vec<String>,
}

/// The reason of a rejection, without the file name and the numbers that vary per file.
fn reason(stderr: &str) -> String {
    let line = stderr.lines().find(|l| l.starts_with("psxanim:")).unwrap_or("(no message)");
    let after = line.splitn(3, ": ").nth(2).unwrap_or(line);
    let known = [
        "cannot load FBX",
        "no mesh",
        "has no skin deformer and no bone",
        "exceed the profile limit",
        "outside the profile limit",
        "longer than the profile limit",
        "unweighted vertices",
        "dual-quaternion skinning",
        "blend shapes",
        "skin deformers",
        "relative to its parent",
        "sheared transform",
        "singular transform",
        "moves relative to its bone",
        "differs from ufbx's skinning",
        "triangles can only use",
        "512 KiB",
    ];
    for k in known {
        if after.contains(k) {
            if k == "exceed the profile limit" {
                // "<n> vertices exceed ...": keep what exceeded.
                let what: Vec<&str> = after.split_whitespace().skip(1).take_while(|w| *w != "exceed").collect();
                return format!("{} exceed the profile limit", what.join(" "));
            }
            return k.to_string();
        }
    }
    after.chars().take(80).collect()
}

fn run_import(psxanim: &Path, file: &Path, storage: &str, out: &Path) -> (Option<i32>, String, f64) {
    let start = Instant::now();
    let mut child = match Command::new(psxanim)
        .args(["import", file.to_str().unwrap(), "--storage", storage, "-o", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return (Some(-1), format!("psxanim: x: cannot run: {e}"), 0.0),
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            use std::io::Read;
            if let Some(mut s) = child.stderr.take() {
                let _ = s.read_to_string(&mut err);
            }
            return (status.code(), err, start.elapsed().as_secs_f64());
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return (None, String::new(), start.elapsed().as_secs_f64());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `a / b`-style constant expressions of the test headers.
fn eval(expr: &str) -> Option<f64> {
    fn parse_sum(s: &[u8], i: &mut usize) -> Option<f64> {
        let mut v = parse_product(s, i)?;
        while *i < s.len() && (s[*i] == b'+' || s[*i] == b'-') {
            let op = s[*i];
            *i += 1;
            let r = parse_product(s, i)?;
            v = if op == b'+' { v + r } else { v - r };
        }
        Some(v)
    }
    fn parse_product(s: &[u8], i: &mut usize) -> Option<f64> {
        let mut v = parse_atom(s, i)?;
        while *i < s.len() && (s[*i] == b'*' || s[*i] == b'/') {
            let op = s[*i];
            *i += 1;
            let r = parse_atom(s, i)?;
            v = if op == b'*' { v * r } else { v / r };
        }
        Some(v)
    }
    fn parse_atom(s: &[u8], i: &mut usize) -> Option<f64> {
        if *i < s.len() && s[*i] == b'(' {
            *i += 1;
            let v = parse_sum(s, i)?;
            *i += 1;
            return Some(v);
        }
        if *i < s.len() && s[*i] == b'-' {
            *i += 1;
            return parse_atom(s, i).map(|v| -v);
        }
        let start = *i;
        while *i < s.len() && (s[*i].is_ascii_digit() || s[*i] == b'.' || s[*i] == b'f') {
            *i += 1;
        }
        std::str::from_utf8(&s[start..*i]).ok()?.trim_end_matches('f').parse().ok()
    }
    let s: Vec<u8> = expr.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut i = 0;
    let v = parse_sum(&s, &mut i)?;
    (i == s.len()).then_some(v)
}

/// One frame the ufbx tests check: file stem pattern, obj name, take (None: the default), time.
#[derive(Debug, Clone)]
struct FrameCheck {
    base: String,
    suffix: Option<String>,
    obj: String,
    take: Option<String>,
    time: f64,
}

fn macro_args(text: &str, at: usize) -> Vec<String> {
    let open = text[at..].find('(').map(|o| at + o + 1).unwrap_or(at);
    let close = text[open..].find(')').map(|c| open + c).unwrap_or(open);
    text[open..close].split(',').map(|a| a.trim().trim_matches('"').to_string()).collect()
}

fn frame_checks(corpus: &Path) -> Vec<FrameCheck> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(corpus.join("test")) else { return out };
    for entry in dir.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "h") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let mut current: Option<(String, Option<String>)> = None;
        let mut pos = 0;
        while pos < text.len() {
            // Any test macro starts a block; only file tests name the files (others load with options).
            let next_test = text[pos..].find("\nUFBXT_").map(|i| pos + i + 1);
            let next_check = text[pos..].find("ufbxt_check_frame(scene").map(|i| pos + i);
            match (next_test, next_check) {
                (Some(t), c) if c.is_none_or(|c| t < c) => {
                    let name_end = text[t..].find('(').map(|i| t + i).unwrap_or(t);
                    let kind = &text[t..name_end];
                    let args = macro_args(&text, t);
                    let alt = kind.contains("ALT");
                    let base = if alt { args.get(1) } else { args.first() }.cloned().unwrap_or_default();
                    let suffix = if kind.contains("SUFFIX") { args.get(if alt { 2 } else { 1 }).cloned() } else { None };
                    current = if kind.contains("PATH") || !kind.starts_with("UFBXT_FILE_TEST") { None } else { Some((base, suffix)) };
                    pos = name_end + 1;
                }
                (_, Some(c)) => {
                    let args = macro_args(&text, c);
                    if let (Some((base, suffix)), true) = (&current, args.len() >= 6) {
                        if let Some(time) = eval(&args[5]) {
                            let take = (args[4] != "NULL").then(|| args[4].clone());
                            out.push(FrameCheck { base: base.clone(), suffix: suffix.clone(), obj: args[3].clone(), take, time });
                        }
                    }
                    pos = c + 1;
                }
                _ => break,
            }
        }
    }
    out
}

/// Whether `stem` is `{base}_{version}_{ascii|binary}[_{suffix}]`.
fn matches(stem: &str, check: &FrameCheck) -> bool {
    let Some(rest) = stem.strip_prefix(&format!("{}_", check.base)) else { return false };
    let parts: Vec<&str> = rest.splitn(3, '_').collect();
    if parts.len() < 2 || !parts[0].chars().all(|c| c.is_ascii_digit()) || !(parts[1] == "ascii" || parts[1] == "binary") {
        return false;
    }
    match (&check.suffix, parts.get(2)) {
        (None, None) => true,
        (Some(s), Some(p)) => s == p,
        _ => false,
    }
}

struct Obj {
    positions: Vec<[f64; 3]>,
    scale: f64,
}

fn load_obj(path: &Path) -> Option<Obj> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut positions = Vec::new();
    let mut scale = 1.0;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("# ufbx:position_scale=") {
            scale = v.trim().parse().unwrap_or(1.0);
        } else if let Some(v) = line.strip_prefix("v ") {
            let c: Vec<f64> = v.split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
            if c.len() == 3 {
                positions.push([c[0], c[1], c[2]]);
            }
        }
    }
    Some(Obj { positions, scale })
}

fn chebyshev(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

/// The compiled baked frame vs the obj: (error, how it was paired, model height).
fn compare(fbx: &Path, check: &FrameCheck, obj: &Obj) -> Result<(f64, &'static str, f64, usize), String> {
    let scene = ufbx::load_file(fbx.to_str().unwrap(), ufbx::LoadOpts { load_external_files: false, ignore_embedded: true, ..Default::default() })
        .map_err(|e| format!("ufbx: {}", e.description))?;
    let stacks: Vec<&ufbx::AnimStack> = scene.anim_stacks.as_ref().iter().map(|s| &**s).collect();
    let stack = match &check.take {
        Some(name) => stacks.iter().copied().find(|s| &*s.element.name == name.as_str() || s.element.name.ends_with(&format!("|{name}"))),
        None => stacks.iter().copied().find(|s| std::ptr::eq(&*s.anim, &*scene.anim)).or(stacks.first().copied()),
    }
    .ok_or("no such take")?;
    let begin = if stack.time_end > stack.time_begin { stack.time_begin } else { 0.0 };
    let rate = [30u32, 24, 60, 25, 20, 15, 12, 10, 48, 50]
        .into_iter()
        .find(|&r| {
            let f = (check.time - begin) * r as f64;
            (f - f.round()).abs() < 1e-4
        })
        .unwrap_or(30);
    let frame = ((check.time - begin) * rate as f64).round().max(0.0) as usize;
    let stack_name = stack.element.name.to_string();
    let options = ImportOptions { rate, clips: Some(vec![stack_name]), ..Default::default() };
    let c = import(fbx, &options, &mut |_, _, _| {}).map_err(|e| e.to_string())?;
    let compiled = compile(&c, &CompileOptions { storage: StorageMode::BakedVertices, max_error: Some(f64::INFINITY), pose_tolerance: None, ..Default::default() }).map_err(|e| e.to_string())?;
    let t = Tables::parse(&compiled.blob).map_err(|e| format!("{e:?}"))?;
    let frames = t.clip(0).map_err(|e| format!("{e:?}"))?.frame_count as usize;
    let ours: Vec<[f64; 3]> = positions(&t, 0, frame.min(frames.saturating_sub(1)))?.into_iter().map(|p| p.map(f64::from)).collect();
    let conv = file_to_model(&scene.settings);
    let theirs: Vec<[f64; 3]> = obj.positions.iter().map(|p| conv.apply(p.map(|x| x / obj.scale))).collect();
    let nearest = |a: &[[f64; 3]], b: &[[f64; 3]]| a.iter().map(|p| b.iter().map(|q| chebyshev(*p, *q)).fold(f64::INFINITY, f64::min)).fold(0.0, f64::max);
    let hausdorff = nearest(&ours, &theirs).max(nearest(&theirs, &ours));
    let height = model_height(&c);
    if ours.len() == theirs.len() {
        let paired = ours.iter().zip(&theirs).map(|(a, b)| chebyshev(*a, *b)).fold(0.0, f64::max);
        if paired <= hausdorff * 4.0 + 50.0 {
            return Ok((paired, "pair", height, frame));
        }
    }
    Ok((hausdorff, "nn", height, frame))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(corpus) = args.get(1).map(PathBuf::from) else {
        eprintln!("usage: ufbx_corpus /path/to/ufbx [--psxanim PATH]");
        std::process::exit(2);
    };
    let psxanim = match args.iter().position(|a| a == "--psxanim") {
        Some(i) => PathBuf::from(&args[i + 1]),
        None => std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("psxanim"),
    };
    let data = corpus.join("data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&data)
        .expect("the corpus path holds data/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx")))
        .collect();
    files.sort();
    if let Some(i) = args.iter().position(|a| a == "--only") {
        let only = args.get(i + 1).cloned().unwrap_or_default();
        files.retain(|f| f.file_name().is_some_and(|n| n.to_string_lossy().contains(&only)));
    }
    let out = std::env::temp_dir().join(format!("ufbx_corpus_{}", std::process::id()));
    let mut tallies: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut imported_baked: Vec<PathBuf> = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let t = tallies.entry(tool_of(&name)).or_default();
        t.files += 1;
        for (m, storage) in ["baked-vertices", "rigid-gte"].into_iter().enumerate() {
            let (code, stderr, seconds) = run_import(&psxanim, file, storage, &out);
            t.slowest = t.slowest.max(seconds);
            match code {
                Some(0) => {
                    t.imported[m] += 1;
                    if m == 0 {
                        imported_baked.push(file.clone());
                    }
                }
                Some(1) => *t.rejected[m].entry(reason(&stderr)).or_default() += 1,
                None => t.hangs.push(format!("{name} ({storage})")),
                Some(code) => t.panics.push(format!("{name} ({storage}, exit {code}): {}", stderr.lines().last().unwrap_or(""))),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&out);

    let mut checks = frame_checks(&corpus);
    // Several tests may check one frame of one file.
    let mut seen = std::collections::HashSet::new();
    checks.retain(|c| seen.insert(format!("{}|{:?}|{}|{:?}|{}", c.base, c.suffix, c.obj, c.take, c.time)));
    let mut lines = Vec::new();
    for file in &imported_baked {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        for check in checks.iter().filter(|c| matches(&stem, c)) {
            let Some(obj) = load_obj(&data.join(format!("{}.obj", check.obj))) else { continue };
            let t = tallies.get_mut(tool_of(&stem)).unwrap();
            let result = std::panic::catch_unwind(|| compare(file, check, &obj));
            let line = match result {
                Ok(Ok((err, how, height, frame))) => {
                    let bound = 10f64.max(0.01 * height);
                    t.obj_checks += 1;
                    let ok = err <= bound;
                    if ok {
                        t.obj_within += 1;
                    }
                    t.obj_worst.push(format!("{err:.1}"));
                    format!(
                        "{} {stem} vs {}.obj (take {}, t = {:.4} s, frame {frame}): {err:.1} GTE units ({how}), bound {bound:.1}",
                        if ok { "ok  " } else { "OVER" },
                        check.obj,
                        check.take.as_deref().unwrap_or("default"),
                        check.time
                    )
                }
                Ok(Err(e)) => format!("skip {stem} vs {}.obj: {e}", check.obj),
                Err(_) => {
                    t.panics.push(format!("{stem} vs {}.obj: panic in the comparison", check.obj));
                    format!("PANIC {stem} vs {}.obj", check.obj)
                }
            };
            lines.push(line);
        }
    }
    for l in &lines {
        println!("{l}");
    }
    println!();
    println!("| tool | files | imported baked / rigid | rejected (baked) | rejected (rigid) | panics | hangs | slowest import | .obj frames within max(10, 1% height) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (tool, t) in &tallies {
        let fmt = |m: &BTreeMap<String, usize>| m.iter().map(|(r, n)| format!("{n} {r}")).collect::<Vec<_>>().join("; ");
        let worst = t.obj_worst.iter().filter_map(|w| w.parse::<f64>().ok()).fold(0.0, f64::max);
        println!(
            "| {tool} | {} | {} / {} | {} | {} | {} | {} | {:.2} s | {} of {} (worst {worst:.1}) |",
            t.files,
            t.imported[0],
            t.imported[1],
            fmt(&t.rejected[0]),
            fmt(&t.rejected[1]),
            t.panics.len(),
            t.hangs.len(),
            t.slowest,
            t.obj_within,
            t.obj_checks
        );
    }
    for t in tallies.values() {
        for p in t.panics.iter().chain(&t.hangs) {
            println!("problem: {p}");
        }
    }
}
