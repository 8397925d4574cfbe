//! PCSX-Redux backend: the emulator users run, headless, driven by a Lua script generated per run.
//!
//! Redux is not in any package registry (building it needs ~35 git submodules), so nothing here
//! installs it: it is found as `--pcsx-redux PATH` (the caller passes it to [`locate`]), the
//! `PCSX_REDUX` environment variable, or `pcsx-redux` on `PATH`. It carries OpenBIOS, so it needs no
//! Sony BIOS. Nothing is pinned: the command line and the Lua API used are the ones documented in
//! /work/shared/notes/emulators.md, checked by hand on a build from source.
//!
//! The run: `pcsx-redux -no-ui -testmode -portable DIR -run -interpreter -exe GAME -dofile verify.lua`.
//! The script unthrottles the emulator, counts vsyncs from the moment the BIOS hands over to the EXE,
//! writes each asked-for screenshot as raw pixels plus a one-line header, writes main RAM, and quits
//! from a later tick. Rust decodes the raw pixels (15-bit PS1 colour or 24-bit RGB) into [`Screenshot`].
use super::{FrameProbe, RunError, RunOutput, RunRequest, Screenshot};
use crate::process::run_with_timeout;
use anyhow::{bail, ensure, Context};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the emulator binary.
pub const ENV_VAR: &str = "PCSX_REDUX";
/// The binary's name on `PATH`.
pub const BINARY_NAME: &str = "pcsx-redux";
/// Main RAM size; the script dumps exactly this much.
const MAIN_RAM_BYTES: usize = 2 * 1024 * 1024;
/// Vsyncs the BIOS may take to hand over to the EXE (OpenBIOS needs about 3) before the run is failed.
const BOOT_VSYNC_LIMIT: u32 = 600;
/// Emulation speed in percent of real time: Redux paces itself on the audio clock even headless.
const UNTHROTTLED_SCALER: u32 = 100_000;
/// The script's exit codes (`PCSX.quit`).
const EXIT_OK: i32 = 0;
const EXIT_SCRIPT_ERROR: i32 = 1;
const EXIT_NEVER_STARTED: i32 = 2;

/// How to get the emulator, for error messages.
fn not_found_message() -> String {
    format!(
        "PCSX-Redux not found: pass `--pcsx-redux PATH`, set {ENV_VAR}=PATH, or put `{BINARY_NAME}` on PATH \
         (it is not in any package registry; see https://github.com/grumpycoders/pcsx-redux)"
    )
}

/// The emulator binary: `explicit` if given, else `$PCSX_REDUX`, else `pcsx-redux` on `PATH`.
/// An explicit path or variable that names no file yields `None` rather than falling through,
/// so a typo is reported instead of silently running another binary.
pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
    locate_in(explicit, std::env::var_os(ENV_VAR).as_deref(), std::env::var_os("PATH").as_deref())
}

fn locate_in(explicit: Option<&Path>, env_value: Option<&OsStr>, path_var: Option<&OsStr>) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return path.is_file().then(|| path.to_path_buf());
    }
    if let Some(value) = env_value.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(path_var?).map(|dir| dir.join(BINARY_NAME)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Redux cannot be installed here: this only reports whether and where it was found.
pub fn ensure_installed(_workspace: &Path) -> anyhow::Result<()> {
    match locate(None) {
        Some(binary) => println!("PCSX-Redux: found {}", binary.display()),
        None => println!("PCSX-Redux (optional, not installable here): {}", not_found_message()),
    }
    Ok(())
}

/// OpenBIOS beside the binary (following a symlink to it), passed with `-bios`: Redux looks for it
/// through `readlink` on its own path without terminating the string, and about one run in thirty it
/// misses the file and waits forever at "No BIOS loaded".
pub fn openbios_beside(binary: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(binary).ok()?;
    let bios = real.parent()?.join("openbios.bin");
    bios.is_file().then_some(bios)
}

/// PCSX-Redux with its window, running `exe` (for a person to watch; nothing is captured).
pub fn window_command(binary: &Path, exe: &Path) -> Command {
    let mut command = Command::new(binary);
    if let Some(bios) = openbios_beside(binary) {
        command.arg("-bios").arg(bios);
    }
    command.args(["-run", "-exe"]).arg(exe);
    command
}

/// The headless command line (absolute paths are the caller's business).
pub fn command_line(binary: &Path, portable_dir: &Path, exe: &Path, script: &Path) -> Command {
    let mut command = Command::new(binary);
    if let Some(bios) = openbios_beside(binary) {
        command.arg("-bios").arg(bios);
    }
    command
        .args(["-no-ui", "-testmode", "-portable"])
        .arg(portable_dir)
        .args(["-run", "-interpreter", "-exe"])
        .arg(exe)
        .arg("-dofile")
        .arg(script);
    command
}

/// `text` as a Lua string literal: quotes, backslashes and control bytes escaped, the rest kept.
fn lua_string(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('"');
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\x7f' => literal.push_str(&format!("\\{:03}", c as u32)),
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

/// The Lua script for one run: `frames` vsyncs after the EXE starts, screenshots after the vsyncs
/// in `screenshot_frames`, outputs written to `out_dir` (which must exist).
pub fn lua_script(frames: u32, screenshot_frames: &[u32], out_dir: &Path, probe: bool) -> anyhow::Result<String> {
    let out_dir =
        out_dir.to_str().with_context(|| format!("{}: the Lua script needs a UTF-8 path", out_dir.display()))?;
    let shots = screenshot_frames.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    Ok(LUA_TEMPLATE
        .replace("@FRAMES@", &frames.to_string())
        .replace("@SCREENSHOT_FRAMES@", &shots)
        .replace("@MAIN_RAM_BYTES@", &MAIN_RAM_BYTES.to_string())
        .replace("@BOOT_VSYNC_LIMIT@", &BOOT_VSYNC_LIMIT.to_string())
        .replace("@SCALER@", &UNTHROTTLED_SCALER.to_string())
        .replace("@EXIT_OK@", &EXIT_OK.to_string())
        .replace("@EXIT_SCRIPT_ERROR@", &EXIT_SCRIPT_ERROR.to_string())
        .replace("@EXIT_NEVER_STARTED@", &EXIT_NEVER_STARTED.to_string())
        .replace("@PROBE@", if probe { "true" } else { "false" })
        // Last, so that placeholder-like text in the path is left alone.
        .replace("@OUT_DIR@", &lua_string(out_dir)))
}

const LUA_TEMPLATE: &str = r#"-- Generated by psxanim (emulator/src/redux.rs) for one run; edits are overwritten.
-- Counts vsyncs from the moment the BIOS hands over to the EXE, writes the asked-for screenshots
-- (raw pixels + a header line) and main RAM into OUT_DIR, then quits from a later tick. With PROBE,
-- also what the program printed through the BIOS (tty.txt) and, per frame, whether its own code
-- acknowledged a vblank in I_STAT and where the CPU was (probes.txt).
local ffi = require('ffi')

local FRAMES = @FRAMES@
local SCREENSHOT_FRAMES = { @SCREENSHOT_FRAMES@ }
local OUT_DIR = @OUT_DIR@
local MAIN_RAM_BYTES = @MAIN_RAM_BYTES@
local BOOT_VSYNC_LIMIT = @BOOT_VSYNC_LIMIT@
local EXIT_OK, EXIT_SCRIPT_ERROR, EXIT_NEVER_STARTED = @EXIT_OK@, @EXIT_SCRIPT_ERROR@, @EXIT_NEVER_STARTED@
local PROBE = @PROBE@

-- Redux paces itself on the audio clock even headless; this is percent of real time.
local unthrottled, why = pcall(function() PCSX.settings.emulator.Scaler = @SCALER@ end)
if not unthrottled then print('psxanim: could not unthrottle: ' .. tostring(why)) end

local wanted = {}
for _, frame in ipairs(SCREENSHOT_FRAMES) do wanted[frame] = true end

local started = false
local bootVsyncs = 0
local frame = 0
local finished = false

local function writeBytes(name, pointer, size)
  local file = Support.File.open(OUT_DIR .. '/' .. name, 'TRUNCATE')
  file:write(ffi.cast('const void*', pointer), size)
  file:close()
end

local function writeText(name, text)
  local file = Support.File.open(OUT_DIR .. '/' .. name, 'TRUNCATE')
  file:write(text)
  file:close()
end

-- Quitting (or removing a listener) inside an event callback crashes Redux: quit from a later tick.
local function finish(code)
  if finished then return end
  finished = true
  PCSX.nextTick(function() PCSX.quit(code) end)
end

-- Header line: width height bits-per-pixel byte-count (16 = PS1 15-bit colour, 24 = RGB).
local function saveScreenshot(n)
  local shot = PCSX.GPU.takeScreenShot()
  local bits = (tonumber(shot.bpp) == 1) and 24 or 16
  writeBytes(string.format('shot-%d.raw', n), shot.data.data, shot.data.size)
  writeText(string.format('shot-%d.txt', n),
    string.format('%d %d %d %d\n', tonumber(shot.width), tonumber(shot.height), bits, shot.data.size))
end

-- Probes. The vsync event comes after the vblank bit is set, so the bit itself tells nothing: a
-- write breakpoint on I_STAT sees the acknowledgement, counted when the program's own code (above
-- the kernel's 64 KiB) makes it. The BIOS's character output calls (A0/B0 putc, putchar, puts, write
-- to stdout) are read at their dispatch addresses, as Redux itself does for its console.
local probes = {}
local tty = {}
local ackedThisFrame = false
local function programAddress(address)
  local physical = bit.band(address, 0x1FFFFFFF)
  return physical >= 0x10000 and physical < 0x200000
end
local function readString(address, limit)
  local ram = PCSX.getMemPtr()
  local chars = {}
  for i = 0, limit - 1 do
    local c = ram[bit.band(address + i, 0x1FFFFF)]
    if c == 0 then break end
    chars[#chars + 1] = string.char(c)
  end
  return table.concat(chars)
end
local function onBiosCall(table_address)
  return function()
    if not started then return true end
    local r = PCSX.getRegisters().GPR.n
    local call, a0 = tonumber(r.t1), tonumber(r.a0)
    local isA = table_address == 0xA0
    if (isA and (call == 0x09 or call == 0x3C)) or (not isA and (call == 0x3B or call == 0x3D)) then
      tty[#tty + 1] = string.char(bit.band(a0, 0xFF))
    elseif (isA and call == 0x3E) or (not isA and call == 0x3F) then
      tty[#tty + 1] = readString(a0, 4096)
    elseif ((isA and call == 0x03) or (not isA and call == 0x35)) and a0 == 1 then
      local size = math.min(tonumber(r.a2), 4096)
      local ram = PCSX.getMemPtr()
      for i = 0, size - 1 do tty[#tty + 1] = string.char(ram[bit.band(tonumber(r.a1) + i, 0x1FFFFF)]) end
    end
    return true
  end
end
-- Activity: whether main RAM above the kernel's 64 KiB changed since the last frame (a copy compared
-- with memcmp), counted, so that a program that waits for no vsync but works is alive too.
local KERNEL_AREA_END = 0x10000
local shadow = nil
local activity = 0
pcall(ffi.cdef, 'int memcmp(const void*, const void*, size_t);')
pcall(ffi.cdef, 'void* memcpy(void*, const void*, size_t);')
local function noteActivity()
  local ram = ffi.cast('uint8_t*', PCSX.getMemPtr())
  local size = MAIN_RAM_BYTES - KERNEL_AREA_END
  if shadow == nil then
    shadow = ffi.new('uint8_t[?]', size)
  elseif ffi.C.memcmp(shadow, ram + KERNEL_AREA_END, size) == 0 then
    return
  end
  ffi.C.memcpy(shadow, ram + KERNEL_AREA_END, size)
  activity = activity + 1
end
if PROBE then
  local debugging, why = pcall(function() PCSX.settings.emulator.Debug.Debug = true end)
  if not debugging then print('psxanim: no debugger, no acknowledgement probes: ' .. tostring(why)) end
  PsxanimAckBreakpoint = PCSX.addBreakpoint(0x1F801070, 'Write', 4, 'psxanim I_STAT', function()
    if started and programAddress(tonumber(PCSX.getRegisters().pc)) then ackedThisFrame = true end
    return true
  end)
  PsxanimA0 = PCSX.addBreakpoint(0xA0, 'Exec', 4, 'psxanim A0', onBiosCall(0xA0))
  PsxanimB0 = PCSX.addBreakpoint(0xB0, 'Exec', 4, 'psxanim B0', onBiosCall(0xB0))
end

local function onFrame()
  if PROBE then
    noteActivity()
    probes[#probes + 1] = string.format('%d %d %d %d\n', frame, ackedThisFrame and 1 or 0, tonumber(PCSX.getRegisters().pc), activity)
    ackedThisFrame = false
  end
  if wanted[frame] then saveScreenshot(frame) end
  if frame >= FRAMES then
    writeBytes('ram.bin', PCSX.getMemPtr(), MAIN_RAM_BYTES)
    if PROBE then
      writeText('probes.txt', table.concat(probes))
      writeText('tty.txt', table.concat(tty))
    end
    writeText('done.txt', string.format('%d\n', frame))
  end
end

local function onVsync()
  if finished then return end
  if not started then
    bootVsyncs = bootVsyncs + 1
    if bootVsyncs > BOOT_VSYNC_LIMIT then
      pcall(writeText, 'failure.txt', 'the EXE did not start within ' .. BOOT_VSYNC_LIMIT .. ' vsyncs\n')
      finish(EXIT_NEVER_STARTED)
    end
    return
  end
  frame = frame + 1
  local ok, err = pcall(onFrame)
  if not ok then
    pcall(writeText, 'failure.txt', 'frame ' .. frame .. ': ' .. tostring(err) .. '\n')
    finish(EXIT_SCRIPT_ERROR)
  elseif frame >= FRAMES then
    finish(EXIT_OK)
  end
end

-- Globals on purpose: a listener that is only referenced locally is collected and stops firing.
-- They are never removed: removing one from inside its own callback crashes Redux at exit.
PsxanimShellReached = PCSX.Events.createEventListener('ExecutionFlow::ShellReached', function() started = true end)
PsxanimVsync = PCSX.Events.createEventListener('GPU::Vsync', onVsync)
"#;

/// Runs `req.exe` under the PCSX-Redux found by [`locate`] (`$PCSX_REDUX` or `PATH`).
pub fn run(req: &RunRequest) -> Result<RunOutput, RunError> {
    match locate(None) {
        Some(binary) => run_with(&binary, req),
        None => Err(RunError::NotInstalled(not_found_message())),
    }
}

/// Runs `req.exe` under the given PCSX-Redux binary.
pub fn run_with(binary: &Path, req: &RunRequest) -> Result<RunOutput, RunError> {
    ensure_request(req)?;
    let base = std::path::absolute(req.work_dir.join("redux"))?;
    if base.exists() {
        std::fs::remove_dir_all(&base).with_context(|| format!("clearing {}", base.display()))?;
    }
    let (portable, out_dir) = (base.join("portable"), base.join("out"));
    for dir in [&portable, &out_dir] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let script = base.join("verify.lua");
    std::fs::write(&script, lua_script(req.frames, &req.screenshot_frames, &out_dir, req.probe)?)?;
    let exe = std::path::absolute(&req.exe)?;

    let done = run_with_timeout(&mut command_line(binary, &portable, &exe, &script), req.timeout)
        .with_context(|| format!("starting {}", binary.display()))?;
    if done.timed_out() {
        return Err(RunError::TimedOut(req.timeout));
    }
    let failure = std::fs::read_to_string(out_dir.join("failure.txt")).unwrap_or_default();
    let output = done.output();
    match done.status.and_then(|s| s.code()) {
        Some(EXIT_OK) => Ok(read_outputs(&out_dir, req, output)?),
        Some(EXIT_NEVER_STARTED) => Err(RunError::Crashed(format!("{}{}", failure, tail(&output, 40)))),
        Some(EXIT_SCRIPT_ERROR) => {
            Err(RunError::Other(anyhow::anyhow!("the Lua script failed: {failure}{}", tail(&output, 40))))
        }
        _ => Err(RunError::Crashed(format!(
            "{} exited with {}:\n{}",
            binary.display(),
            done.status.map_or("no status".into(), |s| s.to_string()),
            tail(&output, 60)
        ))),
    }
}

fn ensure_request(req: &RunRequest) -> anyhow::Result<()> {
    ensure!(req.exe.is_file(), "{}: no such PS-EXE", req.exe.display());
    ensure!(req.frames > 0, "a run needs at least one frame");
    req.check_screenshot_frames()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Reads what the script left in `out_dir`.
fn read_outputs(out_dir: &Path, req: &RunRequest, log: String) -> anyhow::Result<RunOutput> {
    let done_file = out_dir.join("done.txt");
    let done = std::fs::read_to_string(&done_file)
        .with_context(|| format!("{}: missing, the script did not finish", done_file.display()))?;
    let frames_run: u32 =
        done.trim().parse().with_context(|| format!("{}: {done:?} is not a frame count", done_file.display()))?;
    ensure!(frames_run >= req.frames, "{}: stopped after {frames_run} of {} frames", done_file.display(), req.frames);
    let ram_file = out_dir.join("ram.bin");
    let ram = std::fs::read(&ram_file).with_context(|| format!("reading {}", ram_file.display()))?;
    ensure!(ram.len() == MAIN_RAM_BYTES, "{}: {} bytes, expected {MAIN_RAM_BYTES}", ram_file.display(), ram.len());
    let screenshots = req
        .screenshot_frames
        .iter()
        .map(|&frame| read_screenshot(out_dir, frame))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (probes, tty) = if req.probe { read_probes(out_dir)? } else { (Vec::new(), None) };
    let final_pc = probes.last().and_then(|p| p.pc);
    Ok(RunOutput { ram, screenshots, frames_run, log, tty, probes, fault: None, final_pc })
}

/// `probes.txt` (one `frame acked pc activity` line a frame) and `tty.txt`, written by the script with PROBE.
fn read_probes(out_dir: &Path) -> anyhow::Result<(Vec<FrameProbe>, Option<String>)> {
    let file = out_dir.join("probes.txt");
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let mut probes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<u64> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}:{}: {line:?} is not `frame acked pc activity`", file.display(), i + 1))?;
        let &[frame, acked, pc, activity] = fields.as_slice() else {
            bail!("{}:{}: {line:?} is not `frame acked pc activity`", file.display(), i + 1);
        };
        probes.push(FrameProbe {
            frame: frame as u32,
            vsync_acked: Some(acked != 0),
            activity,
            pc: Some(pc as u32),
        });
    }
    let tty = std::fs::read(out_dir.join("tty.txt")).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok((probes, tty))
}

/// Reads `shot-N.txt` (width height bits bytes) and `shot-N.raw` and decodes them to RGB.
fn read_screenshot(out_dir: &Path, frame: u32) -> anyhow::Result<Screenshot> {
    let header_file = out_dir.join(format!("shot-{frame}.txt"));
    let header = std::fs::read_to_string(&header_file).with_context(|| format!("reading {}", header_file.display()))?;
    let fields: Vec<u32> = header
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("{}: {header:?} is not `width height bits bytes`", header_file.display()))?;
    let &[width, height, bits, bytes] = fields.as_slice() else {
        bail!("{}: {header:?} is not `width height bits bytes`", header_file.display());
    };
    let raw_file = out_dir.join(format!("shot-{frame}.raw"));
    let raw = std::fs::read(&raw_file).with_context(|| format!("reading {}", raw_file.display()))?;
    ensure!(raw.len() == bytes as usize, "{}: {} bytes, its header says {bytes}", raw_file.display(), raw.len());
    let rgb = decode_raw_pixels(&raw, width, height, bits).with_context(|| format!("{}", raw_file.display()))?;
    Ok(Screenshot { frame, width, height, rgb })
}

/// Raw screenshot pixels to 8-bit RGB. 16 bits: little-endian PS1 colour (red in bits 0-4, green
/// 5-9, blue 10-14, bit 15 the mask bit), each 5-bit channel widened by repeating its top bits.
fn decode_raw_pixels(raw: &[u8], width: u32, height: u32, bits: u32) -> anyhow::Result<Vec<u8>> {
    ensure!((1..=1024).contains(&width) && (1..=512).contains(&height), "implausible size {width}x{height}");
    let pixels = (width * height) as usize;
    let widen = |v: u16| ((v << 3) | (v >> 2)) as u8;
    match bits {
        16 => {
            ensure!(raw.len() == pixels * 2, "{} bytes for {width}x{height} at 16 bits", raw.len());
            Ok(raw
                .chunks_exact(2)
                .flat_map(|p| {
                    let c = u16::from_le_bytes([p[0], p[1]]);
                    [widen(c & 31), widen(c >> 5 & 31), widen(c >> 10 & 31)]
                })
                .collect())
        }
        24 => {
            ensure!(raw.len() == pixels * 3, "{} bytes for {width}x{height} at 24 bits", raw.len());
            Ok(raw.to_vec())
        }
        other => bail!("{other} bits per pixel (expected 16 or 24)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, Scratch};
    use std::time::Duration;

    fn scratch(name: &str) -> Scratch {
        test_support::scratch("redux", name)
    }

    fn request(exe: PathBuf, frames: u32, screenshot_frames: Vec<u32>, work_dir: PathBuf) -> RunRequest {
        RunRequest { exe, frames, screenshot_frames, work_dir, timeout: Duration::from_secs(60), probe: false }
    }

    /// `luajit`, or `None` (after saying why) when tests needing it should be skipped; under `CI` a
    /// missing luajit is a failure.
    fn luajit() -> Option<&'static str> {
        if Command::new("luajit").arg("-v").output().is_ok_and(|o| o.status.success()) {
            return Some("luajit");
        }
        assert!(std::env::var_os("CI").is_none(), "CI is set but luajit is missing (Debian: apt-get install luajit)");
        eprintln!("skipping: luajit not found (Debian: apt-get install luajit)");
        None
    }

    fn make_executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn locates_explicit_then_env_then_path() {
        let dir = scratch("locate");
        let (bin_dir, other) = (dir.join("bin"), dir.join("custom-redux"));
        std::fs::create_dir_all(&bin_dir).unwrap();
        make_executable(&bin_dir.join(BINARY_NAME));
        make_executable(&other);
        let path_var = std::env::join_paths([dir.join("empty"), bin_dir.clone()]).unwrap();
        let on_path = bin_dir.join(BINARY_NAME);

        assert_eq!(locate_in(None, None, Some(&path_var)), Some(on_path.clone()));
        assert_eq!(locate_in(None, Some(other.as_os_str()), Some(&path_var)), Some(other.clone()));
        assert_eq!(locate_in(Some(&other), Some(OsStr::new("/nowhere")), Some(&path_var)), Some(other.clone()));
        // A wrong explicit path or variable is not silently replaced by the binary on PATH.
        assert_eq!(locate_in(Some(&dir.join("typo")), None, Some(&path_var)), None);
        assert_eq!(locate_in(None, Some(OsStr::new("/nowhere/pcsx-redux")), Some(&path_var)), None);
        assert_eq!(locate_in(None, Some(OsStr::new("")), Some(&path_var)), Some(on_path));
        // Not executable: not a candidate.
        let plain = dir.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(plain.join(BINARY_NAME), "").unwrap();
        assert_eq!(locate_in(None, None, Some(plain.as_os_str())), None);
    }

    #[test]
    fn command_line_is_the_documented_headless_one() {
        let command = command_line(
            Path::new("/opt/redux/pcsx-redux"),
            Path::new("/w/portable"),
            Path::new("/w/game.exe"),
            Path::new("/w/verify.lua"),
        );
        assert_eq!(command.get_program(), "/opt/redux/pcsx-redux");
        let args: Vec<_> = command.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "-no-ui",
                "-testmode",
                "-portable",
                "/w/portable",
                "-run",
                "-interpreter",
                "-exe",
                "/w/game.exe",
                "-dofile",
                "/w/verify.lua"
            ]
        );
    }

    #[test]
    fn run_without_redux_says_how_to_provide_it() {
        if locate(None).is_some() {
            eprintln!("skipping: a PCSX-Redux is installed here");
            return;
        }
        let dir = scratch("missing");
        match run(&request(dir.join("game.exe"), 10, vec![], dir.to_path_buf())) {
            Err(RunError::NotInstalled(message)) => {
                assert!(message.contains("--pcsx-redux PATH") && message.contains(ENV_VAR), "{message}")
            }
            other => panic!("expected NotInstalled, got {other:?}"),
        }
    }

    #[test]
    fn script_substitutes_every_value_and_keeps_the_safety_rules() {
        let script = lua_script(120, &[1, 60, 120], Path::new("/tmp/a \"quoted\"\\dir"), false).unwrap();
        assert!(!script.contains('@'), "a placeholder was left:\n{script}");
        assert!(script.contains("local FRAMES = 120\n"));
        assert!(script.contains("local SCREENSHOT_FRAMES = { 1, 60, 120 }\n"));
        assert!(script.contains(r#"local OUT_DIR = "/tmp/a \"quoted\"\\dir""#));
        assert!(script.contains("local MAIN_RAM_BYTES = 2097152\n"));
        assert!(script.contains("PCSX.settings.emulator.Scaler = 100000"));
        // Listeners held by globals, never removed; quitting only from a later tick.
        assert!(
            script.contains("\nPsxanimShellReached = PCSX.Events.createEventListener('ExecutionFlow::ShellReached'")
        );
        assert!(script.contains("\nPsxanimVsync = PCSX.Events.createEventListener('GPU::Vsync', onVsync)"));
        assert!(!script.contains(":remove("));
        assert_eq!(script.matches("PCSX.quit(").count(), 1);
        assert!(script.contains("PCSX.nextTick(function() PCSX.quit(code) end)"));
        assert_eq!(lua_string("a\nb\x01"), r#""a\010b\001""#);
        let odd = lua_script(5, &[], Path::new("/o/@FRAMES@"), true).unwrap();
        assert!(odd.contains(r#"local OUT_DIR = "/o/@FRAMES@""#));
        let empty = lua_script(5, &[], Path::new("/o"), false).unwrap();
        assert!(empty.contains("local SCREENSHOT_FRAMES = {  }\n"));
    }

    #[test]
    fn script_compiles_under_luajit() {
        let Some(luajit) = luajit() else { return };
        let dir = scratch("syntax");
        let file = dir.join("verify.lua");
        std::fs::write(&file, lua_script(120, &[1, 2, 120], Path::new("/tmp/x\"y\\z\nw"), true).unwrap()).unwrap();
        let listing = Command::new(luajit).arg("-bl").arg(&file).output().unwrap();
        assert!(listing.status.success(), "{}", String::from_utf8_lossy(&listing.stderr));
        // The check can fail: a broken script is rejected.
        std::fs::write(&file, "local x = = 1\n").unwrap();
        assert!(!Command::new(luajit).arg("-bl").arg(&file).output().unwrap().status.success());
    }

    /// Stand-ins for the parts of Redux's Lua API the script uses, as documented: event listeners,
    /// `GPU.takeScreenShot()` returning a slice (`.data` pointer, `.size`), `getMemPtr()`,
    /// `Support.File.open(name, 'TRUNCATE')` with `write(ptr, size)` / `write(string)`, `nextTick`,
    /// `quit`. The driver boots 3 vsyncs, reaches the shell, then fires vsyncs until `quit`, running
    /// the ticks queued after each one, and writes the exit code to `exit.txt`.
    const FAKE_REDUX: &str = r#"
local ffi = require('ffi')
local script, out, width, height, bits = arg[1], arg[2], tonumber(arg[3]), tonumber(arg[4]), tonumber(arg[5])
local shellAt = (arg[6] == 'noshell') and -1 or 3
local listeners, ticks, exitCode, vsyncs = {}, {}, nil, 0
local ram = ffi.new('uint8_t[?]', 8 * 1024 * 1024)
local vsyncCounter = ffi.cast('uint32_t*', ram + 0x100)
ffi.cast('uint32_t*', ram + 0x10)[0] = 0xC0DEF00D
local breakpoints = {}
local registers = { pc = 0, GPR = { n = { t1 = 0, a0 = 0, a1 = 0, a2 = 0 } } }
ffi.copy(ram + 0x3000, 'hi\n')
PCSX = {
  settings = { emulator = { Debug = {} } },
  addBreakpoint = function(address, kind, width, cause, invoker)
    breakpoints[address] = invoker
    return {}
  end,
  getRegisters = function() return registers end,
  Events = { createEventListener = function(name, fn)
    listeners[name] = listeners[name] or {}
    table.insert(listeners[name], fn)
    return { remove = function() error('listener removed') end }
  end },
  getMemPtr = function() return ram end,
  GPU = { takeScreenShot = function()
    local bytes = width * height * bits / 8
    local pixels = ffi.new('uint8_t[?]', bytes)
    for i = 0, bytes - 1 do pixels[i] = (i + vsyncs) % 256 end
    return { data = { data = pixels, size = bytes }, width = width, height = height, bpp = (bits == 24) and 1 or 0 }
  end },
  nextTick = function(fn) table.insert(ticks, fn) end,
  quit = function(code) exitCode = code end,
}
Support = { File = { open = function(name, mode)
  assert(mode == 'TRUNCATE', mode)
  local f = assert(io.open(name, 'wb'))
  return {
    write = function(self, data, size)
      if size == nil then f:write(data) else f:write(ffi.string(data, size)) end
    end,
    close = function(self) f:close() end,
  }
end } }
local function fire(name) for _, fn in ipairs(listeners[name] or {}) do fn() end end
dofile(script)
collectgarbage('collect')
-- With probes: the program acknowledges vblank in its first 5 frames, then stops; in frame 2 it
-- prints "A" with B0:3D (putchar) and "hi\n" with A0:3E (puts).
local function call(address, t1, a0)
  registers.GPR.n.t1, registers.GPR.n.a0 = t1, a0
  assert(breakpoints[address](address, 4, 'test') == true, 'an invoker must keep its breakpoint')
end
while exitCode == nil and vsyncs < 100000 do
  if vsyncs == shellAt then fire('ExecutionFlow::ShellReached') end
  if breakpoints[0x1F801070] and shellAt >= 0 and vsyncs >= shellAt and vsyncs < shellAt + 5 then
    registers.pc = 0x80010100
    call(0x1F801070, 0, 0)
    registers.pc = 0x80000500 -- the kernel's own acknowledgement does not count
    call(0x1F801070, 0, 0)
  end
  if breakpoints[0xB0] and vsyncs == shellAt + 1 then
    call(0xB0, 0x3D, 65)
    call(0xA0, 0x3E, 0x80003000)
    call(0xA0, 0x99, 0)
  end
  registers.pc = 0x80011000 + vsyncs * 4
  vsyncs = vsyncs + 1
  vsyncCounter[0] = vsyncs
  fire('GPU::Vsync')
  local queued = ticks
  ticks = {}
  for _, fn in ipairs(queued) do fn() end
end
local f = assert(io.open(out .. '/exit.txt', 'w'))
f:write(tostring(exitCode) .. ' ' .. vsyncs .. ' ' .. tostring(PCSX.settings.emulator.Scaler))
f:close()
os.exit(exitCode or 99)
"#;

    /// Runs the generated script against `FAKE_REDUX`; returns the scratch folder (kept alive), the
    /// output folder in it and the driver's exit line.
    fn run_fake(
        luajit: &str,
        name: &str,
        frames: u32,
        shots: &[u32],
        size: (u32, u32, u32),
        probe: bool,
    ) -> (Scratch, PathBuf, String) {
        let dir = scratch(name);
        let out = dir.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let (script, driver) = (dir.join("verify.lua"), dir.join("fake.lua"));
        std::fs::write(&script, lua_script(frames, shots, &out, probe).unwrap()).unwrap();
        std::fs::write(&driver, FAKE_REDUX).unwrap();
        let status = Command::new(luajit)
            .arg(&driver)
            .arg(&script)
            .arg(&out)
            .args([size.0, size.1, size.2].map(|v| v.to_string()))
            .output()
            .unwrap();
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        let exit = std::fs::read_to_string(out.join("exit.txt")).unwrap();
        (dir, out, exit)
    }

    #[test]
    fn probes_see_the_programs_own_acknowledgements_and_its_bios_output() {
        let Some(luajit) = luajit() else { return };
        let (_dir, out, exit) = run_fake(luajit, "fakeprobe", 10, &[10], (4, 2, 16), true);
        assert_eq!(exit, "0 13 100000");
        let mut req = request(PathBuf::from("game.exe"), 10, vec![10], out.clone());
        req.probe = true;
        let output = read_outputs(&out, &req, String::new()).unwrap();
        let acked: Vec<bool> = output.probes.iter().map(|p| p.vsync_acked.unwrap()).collect();
        assert_eq!(acked, [true, true, true, true, true, false, false, false, false, false]);
        assert_eq!(output.probes[9].frame, 10);
        assert_eq!(output.final_pc, Some(0x8001_1000 + 12 * 4));
        assert_eq!(output.tty.as_deref(), Some("Ahi\n"));
        // Five silent frames are a hang once the threshold is five frames.
        assert!(matches!(
            crate::session::judge(&output.probes, None, 5),
            crate::session::Verdict::Hung { since: 6, .. }
        ));
    }

    #[test]
    fn script_drives_a_fake_redux_to_ram_and_screenshots() {
        let Some(luajit) = luajit() else { return };
        let (_dir, out, exit) = run_fake(luajit, "fake16", 10, &[1, 10], (4, 2, 16), false);
        // Quit with 0 on the tick after the 10th vsync past the shell (3 boot vsyncs + 10).
        assert_eq!(exit, "0 13 100000");
        let req = request(PathBuf::from("game.exe"), 10, vec![1, 10], out.clone());
        let output = read_outputs(&out, &req, String::new()).unwrap();
        assert_eq!(output.frames_run, 10);
        assert_eq!(&output.ram[0x10..0x14], &0xC0DE_F00Du32.to_le_bytes());
        // RAM was dumped during the 13th vsync.
        assert_eq!(&output.ram[0x100..0x104], &13u32.to_le_bytes());
        assert_eq!(
            output.screenshots.iter().map(|s| (s.frame, s.width, s.height)).collect::<Vec<_>>(),
            [(1, 4, 2), (10, 4, 2)]
        );
        // First pixel of frame 1's shot (vsync 4): bytes 4, 5 -> 0x0504 -> 5-bit r=4, g=8, b=1,
        // widened to 8 bits by repeating the top bits.
        assert_eq!(&output.screenshots[0].rgb[..3], &[33, 66, 8]);
    }

    /// A stand-in `pcsx-redux` binary: a shell script that checks the documented flags and hands the
    /// `-dofile` script to `FAKE_REDUX` under luajit, exiting with the code the script quit with.
    fn fake_binary(luajit: &str, dir: &Path, driver_args: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let driver = dir.join("fake.lua");
        std::fs::write(&driver, FAKE_REDUX).unwrap();
        let binary = dir.join("pcsx-redux");
        let shell = format!(
            "#!/bin/sh\n[ \"$1 $2 $3\" = \"-no-ui -testmode -portable\" ] || exit 64\n\
             [ \"$5 $6 $7\" = \"-run -interpreter -exe\" ] && [ -f \"$8\" ] && [ \"$9\" = -dofile ] || exit 64\n\
             exec {luajit} '{}' \"${{10}}\" '{}' {driver_args}\n",
            driver.display(),
            dir.display()
        );
        std::fs::write(&binary, shell).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        binary
    }

    #[test]
    fn run_with_a_fake_redux_returns_ram_and_screenshots() {
        let Some(luajit) = luajit() else { return };
        let dir = scratch("fake-run");
        let exe = dir.join("game.exe");
        std::fs::write(&exe, b"PS-X EXE").unwrap();
        let binary = fake_binary(luajit, &dir, "8 4 16");
        let output = run_with(&binary, &request(exe, 30, vec![30], dir.join("work"))).unwrap();
        assert_eq!(output.frames_run, 30);
        assert_eq!(&output.ram[0x100..0x104], &33u32.to_le_bytes());
        assert_eq!((output.screenshots[0].width, output.screenshots[0].height), (8, 4));
    }

    #[test]
    fn run_with_a_fake_redux_that_never_starts_the_exe_is_a_crash() {
        let Some(luajit) = luajit() else { return };
        let dir = scratch("fake-noshell");
        let exe = dir.join("game.exe");
        std::fs::write(&exe, b"PS-X EXE").unwrap();
        let binary = fake_binary(luajit, &dir, "8 4 16 noshell");
        match run_with(&binary, &request(exe, 30, vec![], dir.join("work"))) {
            Err(RunError::Crashed(message)) => {
                assert!(message.contains("did not start within 600 vsyncs"), "{message}")
            }
            other => panic!("expected Crashed, got {other:?}"),
        }
    }

    #[test]
    fn script_writes_24_bit_screenshots_verbatim() {
        let Some(luajit) = luajit() else { return };
        let (_dir, out, _) = run_fake(luajit, "fake24", 2, &[2], (3, 1, 24), false);
        let req = request(PathBuf::from("game.exe"), 2, vec![2], out.clone());
        let output = read_outputs(&out, &req, String::new()).unwrap();
        assert_eq!(output.screenshots[0].rgb, [5, 6, 7, 8, 9, 10, 11, 12, 13]);
    }

    #[test]
    fn decodes_ps1_colour_and_rejects_bad_sizes() {
        // Pure red, pure green, pure blue with the mask bit set, black.
        let raw = [0x1F, 0x00, 0xE0, 0x03, 0x00, 0xFC, 0x00, 0x00];
        assert_eq!(decode_raw_pixels(&raw, 2, 2, 16).unwrap(), [255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]);
        assert!(decode_raw_pixels(&raw, 3, 2, 16).unwrap_err().to_string().contains("3x2"));
        assert!(decode_raw_pixels(&raw, 2, 2, 8).unwrap_err().to_string().contains("8 bits"));
        assert!(decode_raw_pixels(&[], 0, 0, 16).is_err());
    }

    #[test]
    fn missing_or_short_outputs_are_clear_errors() {
        let dir = scratch("outputs");
        let req = request(PathBuf::from("game.exe"), 5, vec![5], dir.to_path_buf());
        assert!(format!("{:#}", read_outputs(&dir, &req, String::new()).unwrap_err()).contains("did not finish"));
        std::fs::write(dir.join("done.txt"), "5\n").unwrap();
        std::fs::write(dir.join("ram.bin"), [0u8; 16]).unwrap();
        assert!(format!("{:#}", read_outputs(&dir, &req, String::new()).unwrap_err()).contains("16 bytes"));
        std::fs::write(dir.join("ram.bin"), vec![0u8; MAIN_RAM_BYTES]).unwrap();
        std::fs::write(dir.join("shot-5.txt"), "320 240 16\n").unwrap();
        assert!(
            format!("{:#}", read_outputs(&dir, &req, String::new()).unwrap_err()).contains("width height bits bytes")
        );
        std::fs::write(dir.join("shot-5.txt"), "2 1 16 4\n").unwrap();
        std::fs::write(dir.join("shot-5.raw"), [0u8; 3]).unwrap();
        assert!(format!("{:#}", read_outputs(&dir, &req, String::new()).unwrap_err()).contains("header says 4"));
    }
}
