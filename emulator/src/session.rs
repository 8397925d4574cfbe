//! One run of any PS-EXE as a game developer asks for it (`psxanim run`, `cargo xtask run`): the EXE
//! checked before an emulator starts, frames saved as PNG (with a contact sheet and, on request, a
//! GIF), the program's TTY output, and a verdict on how the program fared: it ran, it crashed (a fatal
//! exception, with its PC), or it hung (no vsync acknowledged, or nothing changed, for a second).
use crate::{frames, psexe, Emulator, Fault, FrameProbe, RunError, RunOutput, RunRequest, Screenshot};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Frames in a second of NTSC vsyncs: the default hang threshold.
pub const VSYNC_HZ: u32 = 60;

/// What to run, for how long, and what to keep.
#[derive(Debug, Clone)]
pub struct Plan {
    pub emulator: Emulator,
    pub exe: PathBuf,
    /// Frames (vsyncs) to run after the program starts.
    pub frames: u32,
    /// Frames after which to save a picture, ascending, each in 1..=frames.
    pub shots: Vec<u32>,
    /// Where the PNGs (and the sheet and GIF) go; created when missing.
    pub out_dir: PathBuf,
    /// Wall-clock limit of the emulator run.
    pub timeout: Duration,
    /// Frames without a sign of life after which the program counts as hung (0: never).
    pub hang_frames: u32,
    /// Also write `run.gif` of the saved frames.
    pub gif: bool,
}

/// How the program fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It ran every frame asked for.
    Ran,
    /// It took an exception it could not survive.
    Crashed(Fault),
    /// From `since` on (for at least the hang threshold), no sign of life: `how` says which signal.
    Hung { since: u32, pc: Option<u32>, how: &'static str },
}

/// A saved frame.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SavedFrame {
    pub frame: u32,
    pub path: PathBuf,
    /// Distinct colours in the picture (1: blank).
    pub colours: usize,
}

/// Everything a run produced.
#[derive(Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub frames_run: u32,
    pub saved: Vec<SavedFrame>,
    pub sheet: Option<PathBuf>,
    pub gif: Option<PathBuf>,
    /// The raw output: RAM (for `--expect`), the screenshots, the TTY text, the emulator's log.
    pub output: RunOutput,
}

/// Reads and checks a PS-EXE before any emulator starts: a clear error for a file that is not one, is
/// truncated, or loads outside RAM.
pub fn check_exe(path: &Path) -> anyhow::Result<psexe::Header> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    psexe::validate_for_running(&bytes).map_err(|e| anyhow::anyhow!("{}: not a PS-EXE this can run: {e}", path.display()))
}

/// Runs the plan: the EXE on the emulator, then the files and the verdict.
pub fn run(plan: &Plan) -> Result<Outcome, RunError> {
    check_exe(&plan.exe)?;
    std::fs::create_dir_all(&plan.out_dir).with_context(|| format!("creating {}", plan.out_dir.display()))?;
    let work_dir = plan.out_dir.join(".work");
    let req = RunRequest {
        exe: plan.exe.clone(),
        frames: plan.frames,
        screenshot_frames: plan.shots.clone(),
        work_dir: work_dir.clone(),
        timeout: plan.timeout,
        probe: true,
    };
    let output = plan.emulator.run(&req)?;
    let _ = std::fs::remove_dir_all(&work_dir);
    let verdict = judge(&output.probes, output.fault, plan.hang_frames);
    let stem = plan.exe.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "game".into());
    // The frames of an earlier run of the same EXE on the same emulator would mix with these.
    let prefix = format!("{stem}-{}-frame", plan.emulator);
    for entry in std::fs::read_dir(&plan.out_dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && name.ends_with(".png") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let mut saved = Vec::new();
    for shot in &output.screenshots {
        let path = plan.out_dir.join(format!("{stem}-{}-frame{:05}.png", plan.emulator, shot.frame));
        frames::write_png(&path, shot)?;
        saved.push(SavedFrame { frame: shot.frame, path, colours: frames::distinct_colours(shot) });
    }
    let shots: &[Screenshot] = &output.screenshots;
    let sheet = if shots.len() >= 2 {
        let path = plan.out_dir.join(format!("{stem}-{}-sheet.png", plan.emulator));
        frames::write_png(&path, &frames::contact_sheet(shots, 4)?)?;
        Some(path)
    } else {
        None
    };
    let gif = if plan.gif && !shots.is_empty() {
        let path = plan.out_dir.join(format!("{stem}-{}.gif", plan.emulator));
        let gap = shots.windows(2).map(|w| w[1].frame - w[0].frame).min().unwrap_or(VSYNC_HZ);
        frames::write_gif(&path, shots, gap, VSYNC_HZ)?;
        Some(path)
    } else {
        None
    };
    Ok(Outcome { verdict, frames_run: output.frames_run, saved, sheet, gif, output })
}

/// The verdict from what the backend saw. A fatal exception is a crash. Otherwise a program is hung
/// from the first frame of a run of `hang_frames` frames with no sign of life: no vsync acknowledged
/// (where the backend watches acknowledgements) and an activity fingerprint that did not change. Either
/// is life: a program that waits for no vsync but works, or one that waits and draws a still picture.
pub fn judge(probes: &[FrameProbe], fault: Option<Fault>, hang_frames: u32) -> Verdict {
    if let Some(fault) = fault {
        return Verdict::Crashed(fault);
    }
    if hang_frames == 0 {
        return Verdict::Ran;
    }
    let mut quiet_since: Option<&FrameProbe> = None;
    let mut previous: Option<&FrameProbe> = None;
    for probe in probes {
        let changed = previous.is_none_or(|before| probe.activity != before.activity);
        let alive = probe.vsync_acked == Some(true) || changed;
        previous = Some(probe);
        if alive {
            quiet_since = None;
            continue;
        }
        let since = *quiet_since.get_or_insert(probe);
        if probe.frame - since.frame + 1 >= hang_frames {
            let how = if probe.vsync_acked.is_some() {
                "no vsync acknowledged (I_STAT never written by the program) and nothing changed in RAM"
            } else {
                "nothing changed: RAM, the displayed buffer and the GPU's DMA stayed the same"
            };
            return Verdict::Hung { since: since.frame, pc: probe.pc, how };
        }
    }
    Verdict::Ran
}

/// Screenshot frames: `every` K frames up to `frames`, or the listed ones, deduplicated and sorted.
pub fn shot_frames(frames: u32, listed: &[u32], every: Option<u32>) -> Result<Vec<u32>, String> {
    let mut shots: Vec<u32> = listed.to_vec();
    if let Some(k) = every {
        if k == 0 {
            return Err("--every needs a number of frames above 0".into());
        }
        shots.extend((1..=frames / k).map(|i| i * k));
    }
    shots.sort_unstable();
    shots.dedup();
    if let Some(&bad) = shots.iter().find(|&&f| f == 0 || f > frames) {
        return Err(format!("frame {bad} is outside the run: shots must lie in 1..={frames} (see --frames)"));
    }
    Ok(shots)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probes(acks: Option<&[bool]>, activity: &[u64]) -> Vec<FrameProbe> {
        activity
            .iter()
            .enumerate()
            .map(|(i, &a)| FrameProbe {
                frame: i as u32 + 1,
                vsync_acked: acks.map(|acks| acks[i]),
                activity: a,
                pc: Some(0x8001_0000 + 4 * i as u32),
            })
            .collect()
    }

    #[test]
    fn a_fatal_exception_is_a_crash_whatever_else_was_seen() {
        let fault = Fault { frame: 3, epc: 0x8001_2340, cause: 9 << 2 };
        assert_eq!(judge(&probes(None, &[1, 2, 3]), Some(fault), 60), Verdict::Crashed(fault));
        assert_eq!(fault.name(), "break (a Rust panic or an explicit trap)");
        assert!(Fault::is_fatal(4 << 2) && !Fault::is_fatal(0) && !Fault::is_fatal(8 << 2));
    }

    #[test]
    fn a_second_without_acknowledgements_is_a_hang_and_one_ack_resets_it() {
        let mut acks = vec![true; 10];
        acks.extend(vec![false; 59]);
        acks.push(true);
        acks.extend(vec![false; 60]);
        let activity = vec![7; acks.len()];
        let seen = probes(Some(&acks), &activity);
        match judge(&seen, None, 60) {
            Verdict::Hung { since, how, pc } => {
                assert_eq!(since, 71);
                assert!(how.contains("vsync"), "{how}");
                assert_eq!(pc, Some(0x8001_0000 + 4 * 129));
            }
            other => panic!("{other:?}"),
        }
        // A 30 fps game acknowledges every other frame: alive.
        let halves: Vec<bool> = (0..200).map(|i| i % 2 == 0).collect();
        assert_eq!(judge(&probes(Some(&halves), &vec![1; 200]), None, 60), Verdict::Ran);
        // A program that waits for no vsync but changes RAM is alive too.
        let counting: Vec<u64> = (0..200).collect();
        assert_eq!(judge(&probes(Some(&[false; 200]), &counting), None, 60), Verdict::Ran);
    }

    #[test]
    fn without_acknowledgements_an_unchanging_fingerprint_is_a_hang() {
        let mut activity: Vec<u64> = (0..30).collect();
        activity.extend(vec![99; 61]);
        assert!(matches!(judge(&probes(None, &activity), None, 60), Verdict::Hung { since: 32, .. }));
        assert_eq!(judge(&probes(None, &activity), None, 0), Verdict::Ran, "0 turns the check off");
        assert_eq!(judge(&probes(None, &activity[..80]), None, 60), Verdict::Ran, "59 quiet frames are not a second");
        assert_eq!(judge(&[], None, 60), Verdict::Ran, "a backend that sees nothing judges nothing");
    }

    #[test]
    fn shots_every_k_frames_or_listed() {
        assert_eq!(shot_frames(300, &[], Some(60)).unwrap(), vec![60, 120, 180, 240, 300]);
        assert_eq!(shot_frames(100, &[90, 5, 5], Some(50)).unwrap(), vec![5, 50, 90, 100]);
        assert!(shot_frames(100, &[101], None).unwrap_err().contains("1..=100"));
        assert!(shot_frames(100, &[0], None).is_err());
        assert!(shot_frames(100, &[], Some(0)).is_err());
    }

    #[test]
    fn files_that_are_no_ps_exe_are_refused_before_any_emulator_starts() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.exe");
        std::fs::write(&text, "#!/bin/sh\necho hello\n").unwrap();
        let error = check_exe(&text).unwrap_err().to_string();
        assert!(error.contains("notes.exe") && error.contains("shorter than the 2048-byte"), "{error}");

        let mut exe = vec![0u8; 4096];
        exe[..8].copy_from_slice(b"PS-X EXE");
        let put = |exe: &mut Vec<u8>, at: usize, v: u32| exe[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(&mut exe, 0x10, 0x8001_0000);
        put(&mut exe, 0x18, 0x8001_0000);
        put(&mut exe, 0x1C, 2048);
        let good = dir.path().join("good.exe");
        std::fs::write(&good, &exe).unwrap();
        assert!(check_exe(&good).is_ok());

        let truncated = dir.path().join("truncated.exe");
        std::fs::write(&truncated, &exe[..3000]).unwrap();
        let error = check_exe(&truncated).unwrap_err().to_string();
        assert!(error.contains("truncated") && error.contains("0x1C"), "{error}");

        put(&mut exe, 0x18, 0x0040_0000);
        let outside = dir.path().join("outside.exe");
        std::fs::write(&outside, &exe).unwrap();
        let error = check_exe(&outside).unwrap_err().to_string();
        assert!(error.contains("load address"), "{error}");

        let missing = check_exe(&dir.path().join("nothing.exe")).unwrap_err().to_string();
        assert!(missing.contains("cannot read"), "{missing}");
    }

    /// Hand-assembled programs that set up the display, fill it red, then live, stop or crash.
    mod end_to_end {
        use super::super::*;
        use crate::bootrom::mips::*;
        use crate::bootrom::psexe::PsExe;

        #[derive(Clone, Copy)]
        enum Then {
            /// Counts in a RAM word forever.
            Count,
            /// Jumps to itself forever, touching nothing.
            Stop,
            /// Executes `break`.
            Break,
            /// Prints through the BIOS's TTY calls, then counts.
            Print,
        }

        fn exe(dir: &Path, then: Then) -> PathBuf {
            let origin = 0x8001_0000;
            let mut a = Asm::new(origin);
            show_colour(&mut a, 0x00_00FF);
            let (format, text) = (a.new_label(), a.new_label());
            if let Then::Print = then {
                // printf("%s|%c|%d%%!\n", "str", 'x', 5); B0 putchar('P'); A0 puts("uts\n");
                // B0 write(1, "wr", 2); write(2, ...) is not stdout.
                let call = |a: &mut Asm, table: u32, number: u32| {
                    a.li(T1, number);
                    a.li(T9, table);
                    a.emit(jalr(T9));
                    a.emit(NOP);
                };
                a.emit(addiu(SP, SP, -32));
                a.li_label(A0, format);
                a.li_label(A1, text);
                a.li(A2, u32::from(b'x'));
                a.li(A3, 5);
                call(&mut a, 0xA0, 0x3F);
                a.li(A0, u32::from(b'P'));
                call(&mut a, 0xB0, 0x3D);
                a.li_label(A0, text);
                a.emit(addiu(A0, A0, 4)); // "uts\n"
                call(&mut a, 0xA0, 0x3E);
                for fd in [1, 2] {
                    a.li(A0, fd);
                    a.li_label(A1, text);
                    a.emit(addiu(A1, A1, 9)); // "wr"
                    a.li(A2, 2);
                    call(&mut a, 0xB0, 0x35);
                }
                a.emit(addiu(SP, SP, 32));
            }
            let spin = a.new_label();
            a.li(T0, 0x8010_0000);
            a.bind(spin);
            match then {
                Then::Count | Then::Print => {
                    a.emit(lw(T1, 0, T0));
                    a.emit(NOP);
                    a.emit(addiu(T1, T1, 1));
                    a.emit(sw(T1, 0, T0));
                }
                Then::Stop => {}
                Then::Break => a.emit(0x0000_000D),
            }
            a.j(spin);
            a.emit(NOP);
            a.bind(format);
            for word in b"%s|%c|%d%%!\n\0\0\0\0".chunks(4) {
                a.emit(u32::from_le_bytes(word.try_into().unwrap()));
            }
            a.bind(text);
            for word in b"str\0uts\n\0wr\0\0\0\0\0".chunks(4) {
                a.emit(u32::from_le_bytes(word.try_into().unwrap()));
            }
            let mut text = to_bytes(&a.finish().unwrap());
            text.resize(0x800, 0);
            let program = PsExe { pc: origin, gp: 0, t_addr: origin, b_addr: 0, b_size: 0, s_addr: 0x801F_FF00, s_size: 0, text };
            let path = dir.join(match then {
                Then::Count => "count.exe",
                Then::Stop => "stop.exe",
                Then::Break => "break.exe",
                Then::Print => "print.exe",
            });
            std::fs::write(&path, program.to_file_bytes()).unwrap();
            path
        }

        fn installed(emulator: Emulator) -> bool {
            let workspace = crate::workspace_root();
            let found = match emulator {
                Emulator::Mednafen => crate::mednafen::is_installed(&workspace),
                Emulator::PcsxRearmed => crate::rearmed::is_installed(&workspace),
                Emulator::PcsxRedux => crate::redux::locate(None).is_some(),
            };
            if !found {
                let message = format!("{emulator} is not installed (run `cargo xtask setup`)");
                if std::env::var("CI").is_ok_and(|v| v == "true") && emulator != Emulator::PcsxRedux {
                    panic!("{message}; CI must install it");
                }
                eprintln!("skipped: {message}");
            }
            found
        }

        fn plan_for(then: Then, dir: &Path) -> Plan {
            Plan {
                emulator: Emulator::Mednafen,
                exe: exe(dir, then),
                frames: 150,
                shots: vec![30, 150],
                out_dir: dir.join("frames"),
                timeout: Duration::from_secs(120),
                hang_frames: 60,
                gif: false,
            }
        }

        fn verdict(emulator: Emulator, then: Then) -> (Verdict, Outcome, tempfile::TempDir) {
            let dir = tempfile::tempdir().unwrap();
            let plan = Plan { emulator, ..plan_for(then, dir.path()) };
            let outcome = run(&plan).unwrap_or_else(|e| panic!("{emulator}: {e}"));
            (outcome.verdict.clone(), outcome, dir)
        }

        #[test]
        fn mednafen_tells_a_running_program_from_a_stopped_and_a_crashed_one() {
            if !installed(Emulator::Mednafen) {
                return;
            }
            let (ran, outcome, _dir) = verdict(Emulator::Mednafen, Then::Count);
            assert_eq!(ran, Verdict::Ran);
            assert_eq!((outcome.frames_run, outcome.saved.len()), (150, 2));
            assert!(outcome.saved.iter().all(|f| f.path.is_file()));
            // A second run into the same folder leaves only its own frames.
            let mut again = Plan { shots: vec![60], out_dir: outcome.saved[0].path.parent().unwrap().to_path_buf(), ..plan_for(Then::Count, _dir.path()) };
            again.frames = 60;
            let second = run(&again).unwrap();
            let frames: Vec<String> = std::fs::read_dir(&again.out_dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("-frame"))
                .collect();
            assert_eq!(frames, ["count-mednafen-frame00060.png"], "{:?}", second.saved);
            for shot in &outcome.output.screenshots {
                let centre = ((shot.height / 2 * shot.width + shot.width / 2) * 3) as usize;
                let pixel = &shot.rgb[centre..centre + 3];
                assert!(pixel[0] >= 248 && pixel[1] == 0 && pixel[2] == 0, "a red screen at frame {}: {pixel:?}", shot.frame);
            }
            assert!(outcome.sheet.as_ref().is_some_and(|p| p.is_file()));

            match verdict(Emulator::Mednafen, Then::Stop).0 {
                Verdict::Hung { since, pc, .. } => {
                    assert!(since <= 3, "stopped from the start, judged from frame {since}");
                    assert!(pc.is_some_and(|pc| (0x8001_0000..0x8001_0100).contains(&pc)), "{pc:x?}");
                }
                other => panic!("{other:?}"),
            }

            let (crashed, outcome, _) = verdict(Emulator::Mednafen, Then::Break);
            match crashed {
                Verdict::Crashed(fault) => {
                    assert_eq!((fault.cause >> 2) & 31, 9, "break");
                    assert!((0x8001_0000..0x8001_0100).contains(&fault.epc), "{:#x}", fault.epc);
                    assert!(fault.frame <= 2);
                }
                other => panic!("{other:?}"),
            }
            assert!(outcome.frames_run < 150, "the run ends at the crash");

            // The boot ROM's TTY calls: printf's %s, %c and %% (another conversion shows as written,
            // taking its argument), putchar, puts, and write to stdout only.
            let (ran, outcome, _) = verdict(Emulator::Mednafen, Then::Print);
            assert_eq!(ran, Verdict::Ran);
            assert_eq!(outcome.output.tty.as_deref(), Some("str|x|%d%!\nPuts\nwr"));
        }

        #[test]
        fn pcsx_redux_watches_acknowledgements_and_the_bios_output() {
            if !installed(Emulator::PcsxRedux) {
                return;
            }
            // A program that waits for no vsync but counts in RAM is alive; one that does neither is not.
            assert_eq!(verdict(Emulator::PcsxRedux, Then::Count).0, Verdict::Ran);
            match verdict(Emulator::PcsxRedux, Then::Stop).0 {
                Verdict::Hung { how, pc, .. } => {
                    assert!(how.contains("vsync"), "{how}");
                    assert!(pc.is_some_and(|pc| (0x8001_0000..0x8001_0100).contains(&pc)), "{pc:x?}");
                }
                other => panic!("{other:?}"),
            }
            let (_, outcome, _) = verdict(Emulator::PcsxRedux, Then::Print);
            assert_eq!(outcome.output.tty.as_deref(), Some("str|x|5%!\nPuts\nwr"), "OpenBIOS formats %d itself");
        }

        #[test]
        fn pcsx_rearmed_tells_a_running_program_from_a_stopped_one() {
            if !installed(Emulator::PcsxRearmed) {
                return;
            }
            assert_eq!(verdict(Emulator::PcsxRearmed, Then::Count).0, Verdict::Ran);
            assert!(matches!(verdict(Emulator::PcsxRearmed, Then::Stop).0, Verdict::Hung { since, .. } if since <= 3));
        }
    }
}
