//! Tests of the mednafen backend. The end-to-end ones run a hand-assembled PS-EXE through the real core:
//! they skip (with a message) when the core is not installed, except under CI (`CI=true`), where that is
//! a failure.
use super::*;
use crate::bootrom::mips::*;

#[test]
fn content_passes_the_cores_strict_size_check_with_whole_words() {
    // The core throws (and aborts) unless the file is exactly the header plus t_size bytes; the ROM
    // copies whole words, so the text is padded to them.
    let mut program = probe_exe(0x800);
    program.text.truncate(0x7FE);
    let bytes = content_exe(&program);
    let exe = PsExe::parse(&bytes, "content").unwrap();
    assert_eq!(bytes.len(), bootrom::psexe::HEADER_SIZE + exe.text.len());
    assert_eq!((exe.text.len(), &exe.text[..0x7FE]), (0x800, &program.text[..]));
}

#[test]
fn locate_needs_both_the_core_and_libtrio() {
    let workspace = tempfile::tempdir().unwrap();
    assert!(locate(workspace.path()).is_none());
    let lib = install_dir(workspace.path()).join("root/usr/lib/x86_64-linux-gnu");
    std::fs::create_dir_all(lib.join("libretro")).unwrap();
    std::fs::write(lib.join("libretro").join(CORE_FILE), b"").unwrap();
    assert!(locate(workspace.path()).is_none());
    std::fs::write(lib.join(TRIO_FILE), b"").unwrap();
    let found = locate(workspace.path()).unwrap();
    assert_eq!(found.core, lib.join("libretro").join(CORE_FILE));
    assert_eq!(found.trio, lib.join(TRIO_FILE));
}

#[test]
fn install_tool_failures_say_what_failed() {
    let missing = run_tool(
        &mut Command::new("/nonexistent/apt-get"),
        "apt-get download",
    )
    .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("could not start apt-get download"),
        "{missing:#}"
    );
    let failed = run_tool(
        Command::new("sh").args(["-c", "echo no route to host >&2; exit 100"]),
        "apt-get update",
    )
    .unwrap_err();
    let message = failed.to_string();
    assert!(
        message.contains("apt-get update failed") && message.contains("no route to host"),
        "{message}"
    );
}

/// True when the core is installed; otherwise skips, or fails under CI.
fn core_installed() -> bool {
    if locate(&workspace_root()).is_some() {
        return true;
    }
    let message = "the beetle-psx core is not installed (run `cargo xtask setup`)";
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}; CI must install it");
    }
    eprintln!("skipped: {message}");
    false
}

/// Where the probe program stores what it saw, and the words it stores there.
const RESULTS: u32 = 0x8010_0000;
const GP_VALUE: u32 = 0x8001_2340;
const STACK: (u32, u32) = (0x8018_0000, 0x100);
const REACHED_AFTER_SYSCALL: u32 = 0x05CA_11ED;
const DONE: u32 = 0xC0FF_EE42;
/// The last word of the probe's text, which it reads back (`RESULTS + 28`): the whole text was copied.
const LAST_TEXT_WORD: u32 = 0x7E47_E2D5;

/// A PS-EXE that checks what the boot ROM promised: SP and GP, the 0xA0 stub returning 0, `syscall`
/// resuming after itself, BSS zeroed after the text copy (its BSS covers a text word holding 0xDEADBEEF),
/// the last word of its text (`text_len` bytes, `LAST_TEXT_WORD` at the end); then it fills the screen
/// red and counts in a loop forever.
fn probe_exe(text_len: usize) -> PsExe {
    let origin = 0x8001_0000;
    let mut a = Asm::new(origin);
    let probe_word = a.new_label();
    let spin = a.new_label();
    a.li(T0, RESULTS);
    a.emit(sw(SP, 0, T0));
    a.emit(sw(GP, 4, T0));
    a.li(V0, 0x1234);
    a.li(T9, 0xA0);
    a.emit(jalr(T9));
    a.emit(NOP);
    // A BIOS call may use every temporary register, as the real one does.
    a.li(T0, RESULTS);
    a.emit(sw(V0, 8, T0));
    a.emit(syscall());
    a.li(T1, REACHED_AFTER_SYSCALL);
    a.emit(sw(T1, 12, T0));
    a.li_label(T2, probe_word);
    a.emit(lw(T1, 0, T2));
    a.emit(NOP);
    a.emit(sw(T1, 16, T0));
    a.li(T2, origin + text_len as u32 - 4);
    a.emit(lw(T1, 0, T2));
    a.emit(NOP);
    a.emit(sw(T1, 28, T0));
    // GPU: reset, 320x240 NTSC, standard display ranges, display on, fill the frame buffer red.
    show_colour(&mut a, 0x00_00FF);
    a.li(T1, DONE);
    a.emit(sw(T1, 20, T0));
    a.bind(spin);
    a.emit(lw(T1, 24, T0));
    a.emit(NOP);
    a.emit(addiu(T1, T1, 1));
    a.emit(sw(T1, 24, T0));
    a.j(spin);
    a.emit(NOP);
    let probe_at = a.here();
    a.bind(probe_word);
    a.emit(0xDEAD_BEEF);
    let mut text = to_bytes(&a.finish().unwrap());
    text.resize(text_len, 0);
    text[text_len - 4..].copy_from_slice(&LAST_TEXT_WORD.to_le_bytes());
    PsExe {
        pc: origin,
        gp: GP_VALUE,
        t_addr: origin,
        b_addr: probe_at,
        b_size: 4,
        s_addr: STACK.0,
        s_size: STACK.1,
        text,
    }
}

fn request(dir: &Path, frames: u32, screenshot_frames: Vec<u32>, timeout: Duration) -> RunRequest {
    request_sized(dir, 0x800, frames, screenshot_frames, timeout)
}

fn request_sized(dir: &Path, text_len: usize, frames: u32, screenshot_frames: Vec<u32>, timeout: Duration) -> RunRequest {
    let exe = dir.join("probe.exe");
    std::fs::write(&exe, probe_exe(text_len).to_file_bytes()).unwrap();
    RunRequest {
        exe,
        frames,
        screenshot_frames,
        work_dir: dir.join("work"),
        timeout,
        probe: true,
    }
}

fn word(ram: &[u8], address: u32) -> u32 {
    read_word(ram, (address & 0x1F_FFFF) as usize)
}

#[test]
fn probe_program_boots_and_sees_what_the_bios_would_give_it() {
    if !core_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(&request(
        dir.path(),
        30,
        vec![1, 30],
        Duration::from_secs(60),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.fault, None, "{}", out.log);
    assert_eq!(out.frames_run, 30);
    assert_eq!(out.ram.len(), 2 * 1024 * 1024);
    let ram = &out.ram;
    assert_eq!(
        word(ram, RESULTS + 20),
        DONE,
        "the program did not run to its loop\n{}",
        out.log
    );
    assert_eq!(word(ram, RESULTS), STACK.0 + STACK.1, "SP");
    assert_eq!(word(ram, RESULTS + 4), GP_VALUE, "GP");
    assert_eq!(word(ram, RESULTS + 8), 0, "the 0xA0 stub returns 0");
    assert_eq!(
        word(ram, RESULTS + 12),
        REACHED_AFTER_SYSCALL,
        "syscall resumes after itself"
    );
    assert_eq!(word(ram, RESULTS + 16), 0, "BSS zeroed after the text copy");
    assert_eq!(word(ram, RESULTS + 28), LAST_TEXT_WORD, "the text's last word");
    assert!(word(ram, RESULTS + 24) > 1000, "the loop keeps counting");
    // The mailbox: handed over, exactly one exception (the syscall, ExcCode 8).
    assert_eq!(read_word(ram, mailbox::STATE), mailbox::HANDED_OVER);
    assert_eq!(read_word(ram, mailbox::EXCEPTIONS), 1);
    assert_eq!((read_word(ram, mailbox::LAST_CAUSE) >> 2) & 0x1F, 8);

    assert_eq!(
        out.screenshots.iter().map(|s| s.frame).collect::<Vec<_>>(),
        [1, 30]
    );
    let last = &out.screenshots[1];
    assert_eq!((last.width, last.height), (320, 240));
    let centre = 3 * (120 * 320 + 160);
    let (r, g, b) = (last.rgb[centre], last.rgb[centre + 1], last.rgb[centre + 2]);
    assert!(
        r > 200 && g < 40 && b < 40,
        "centre pixel is ({r}, {g}, {b}), expected red"
    );
}

/// An EXE larger than a boot ROM can carry (491,520 bytes: 512 KiB less the ROM's own 32 KiB) boots
/// and runs: its 1.5 MiB of text reach RAM whole (its last word read back by the program).
#[test]
fn an_exe_larger_than_the_rom_boots_and_runs() {
    if !core_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text_len = 3 << 19;
    let req = request_sized(dir.path(), text_len, 10, vec![10], Duration::from_secs(60));
    assert!(std::fs::metadata(&req.exe).unwrap().len() > 491_520);
    let out = run(&req).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((out.fault, out.frames_run), (None, 10), "{}", out.log);
    assert_eq!(word(&out.ram, RESULTS + 20), DONE, "the program did not run to its loop\n{}", out.log);
    assert_eq!(word(&out.ram, RESULTS + 28), LAST_TEXT_WORD, "the text's last word");
    assert_eq!(word(&out.ram, RESULTS + 4), GP_VALUE, "GP");
    // The text as loaded, past the code (whose BSS word is zeroed) and below the results it writes.
    let text = probe_exe(text_len).text;
    let (at, results) = (0x1_0000, (RESULTS & 0x1F_FFFF) as usize - 0x1_0000);
    assert!(text[0x800..results].iter().any(|&b| b != 0) || text[text_len - 0x1000..].iter().any(|&b| b != 0));
    assert_eq!(&out.ram[at + 0x800..at + results], &text[0x800..results], "the text in RAM");
    assert_eq!(&out.ram[at + text_len - 0x1000..at + text_len], &text[text_len - 0x1000..], "the text's end in RAM");
}

#[test]
fn two_runs_leave_identical_ram() {
    if !core_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let first = run(&request(dir.path(), 20, vec![], Duration::from_secs(60)))
        .unwrap_or_else(|e| panic!("{e}"));
    let second = run(&request(dir.path(), 20, vec![], Duration::from_secs(60)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(word(&first.ram, RESULTS + 24) > 0);
    assert!(
        first.ram == second.ram,
        "RAM differs between two identical runs"
    );
}

#[test]
fn a_run_past_its_timeout_is_killed() {
    if !core_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Ten million frames cannot finish in half a second.
    match run(&request(
        dir.path(),
        10_000_000,
        vec![],
        Duration::from_millis(500),
    )) {
        Err(RunError::TimedOut(limit)) => assert_eq!(limit, Duration::from_millis(500)),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn bad_requests_are_errors_before_the_core_starts() {
    if !core_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut req = request(dir.path(), 10, vec![11], Duration::from_secs(10));
    assert!(run(&req).unwrap_err().to_string().contains("frame 11"));
    req.screenshot_frames.clear();
    std::fs::write(&req.exe, b"not an exe").unwrap();
    assert!(run(&req)
        .unwrap_err()
        .to_string()
        .contains("shorter than the 2048-byte"));
}

/// `examples/hello` as built by `cargo xtask build-exe hello`, when it has been built.
fn hello_exe() -> Option<PathBuf> {
    let exe = workspace_root().join("target/psx/hello.exe");
    if exe.is_file() {
        Some(exe)
    } else {
        eprintln!(
            "skipped: {} not built (run `cargo xtask build-exe hello`)",
            exe.display()
        );
        None
    }
}

#[test]
fn hello_example_fills_its_record_and_runs_deterministically() {
    use psxanim_runtime::record::{status, MAGIC0, MAGIC1};
    if !core_installed() {
        return;
    }
    let Some(exe) = hello_exe() else { return };
    let dir = tempfile::tempdir().unwrap();
    let req = RunRequest {
        exe,
        frames: 60,
        screenshot_frames: vec![60],
        work_dir: dir.path().to_path_buf(),
        timeout: Duration::from_secs(60),
        probe: true,
    };
    let first = run(&req).unwrap_or_else(|e| panic!("{e}"));
    let second = run(&req).unwrap_or_else(|e| panic!("{e}"));

    let mut magic = MAGIC0.to_le_bytes().to_vec();
    magic.extend_from_slice(&MAGIC1.to_le_bytes());
    let at = first
        .ram
        .windows(8)
        .position(|w| w == magic)
        .expect("no verification record in RAM");
    let field = |index: usize| read_word(&first.ram, at + 4 * index);
    assert_eq!(field(3), u32::from_le_bytes(*b"HELO"), "program");
    assert!(
        field(4) >= 50,
        "the main loop saw {} vsyncs in 60 frames",
        field(4)
    );
    assert!(
        matches!(field(5), status::RUNNING | status::DONE),
        "status {}\n{}",
        field(5),
        first.log
    );

    assert!(
        first.ram == second.ram,
        "RAM differs between two identical runs"
    );
    assert_eq!(
        first.screenshots[0].rgb, second.screenshots[0].rgb,
        "frame 60 differs between runs"
    );
}
