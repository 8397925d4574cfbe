// Runs one PS-EXE on pcsx_rearmed (the EmulatorJS WebAssembly build of RetroArch + the core) under
// plain Node, frame by frame, and leaves main RAM, screenshots and a manifest in an output folder.
//
//   node run.mjs REQUEST.json
//
// REQUEST.json: { "core_dir": folder holding pcsx_rearmed_libretro.{js,wasm}, "exe": path,
//                 "frames": N, "screenshot_frames": [ascending frame numbers], "out_dir": folder }
// Output in out_dir: ram.bin (2 MiB), shot-<frame>.png, manifest.json. Exit code 0 on success; on
// failure a line "run.mjs: error: ..." on stderr and exit code 1. xtask/src/backends/rearmed.rs drives
// this; the facts it relies on are in /work/shared/notes/emulators.md.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";

const MAIN_RAM_BYTES = 2 * 1024 * 1024;
// Save state layout of this exact build (pinned by SHA-256 on the Rust side): a 16-byte RetroArch
// "RASTATE" wrapper, then the core's own state ("STv4" at offset 16), main RAM at this byte offset.
const RASTATE_MAGIC = "RASTATE";
const CORE_STATE_OFFSET = 16;
const CORE_STATE_MAGIC = "STv4";
const MAIN_RAM_OFFSET_IN_STATE = 36917;
// A screenshot file appears during the frame after it was asked for; allow a few more before giving up.
const MAX_SETTLE_FRAMES = 8;
// Log lines kept (the start-up lines matter most; a chatty core must not grow memory without bound).
const MAX_LOG_LINES = 5000;

function fail(message) {
  process.stderr.write(`run.mjs: error: ${message}\n`);
  process.exit(1);
}

const request = JSON.parse(fs.readFileSync(process.argv[2] ?? fail("usage: node run.mjs REQUEST.json"), "utf8"));
fs.mkdirSync(request.out_dir, { recursive: true });
const log = [];
let droppedLogLines = 0;
const note = (line) => (log.length < MAX_LOG_LINES ? log.push(line) : droppedLogLines++);

// --- Browser stand-ins: just enough for RetroArch's emscripten platform code to start with null drivers.
// The main loop asks for one animation-frame callback per frame; we keep it and call it ourselves.
let frameCallback = null;
const noop = () => {};
const fakeElement = () => ({
  style: { setProperty: noop, removeProperty: noop },
  addEventListener: noop, removeEventListener: noop, appendChild: noop, setAttribute: noop,
  getBoundingClientRect: () => ({ left: 0, top: 0, width: 640, height: 480 }),
  width: 640, height: 480, clientWidth: 640, clientHeight: 480,
  getContext: () => null,
});
globalThis.window = globalThis;
window.addEventListener = noop;
window.removeEventListener = noop;
window.devicePixelRatio = 1;
globalThis.document = {
  addEventListener: noop, removeEventListener: noop,
  createElement: fakeElement, getElementById: () => null, querySelector: () => null,
  body: fakeElement(), documentElement: fakeElement(), visibilityState: "visible",
};
Object.defineProperty(globalThis, "navigator", { value: { userAgent: "node", languages: ["en-US"] }, configurable: true });
globalThis.ResizeObserver = class { observe() {} unobserve() {} disconnect() {} };
globalThis.requestAnimationFrame = (callback) => { frameCallback = callback; };

// --- Load the module, with the wasm bytes given directly (nothing to fetch). The script is evaluated
// as a classic script: it defines the global factory `EJS_Runtime`.
const scriptFile = path.join(request.core_dir, "pcsx_rearmed_libretro.js");
vm.runInThisContext(fs.readFileSync(scriptFile, "utf8"), { filename: scriptFile });
const Module = await globalThis.EJS_Runtime({
  noInitialRun: true,
  wasmBinary: fs.readFileSync(path.join(request.core_dir, "pcsx_rearmed_libretro.wasm")),
  canvas: fakeElement(),
  print: (line) => note(line),
  printErr: (line) => note(line),
});
const FS = Module.FS;

// --- Files RetroArch reads at start-up: null drivers everywhere, and the core's HLE BIOS.
function writeFile(file, contents) {
  FS.mkdirTree(path.posix.dirname(file));
  FS.writeFile(file, contents);
}
writeFile("/home/web_user/.config/retroarch/retroarch.cfg", [
  'video_driver = "null"', 'audio_driver = "null"', 'input_driver = "null"',
  'input_joypad_driver = "null"', 'menu_driver = "null"', 'audio_enable = "false"',
  'screenshot_directory = "/"', 'auto_screenshot_filename = "false"', "",
].join("\n"));
writeFile("/home/web_user/retroarch/userdata/config/PCSX-ReARMed/PCSX-ReARMed.opt", 'pcsx_rearmed_bios = "HLE"\n');
writeFile("/game.exe", fs.readFileSync(request.exe));

Module.callMain(["-v", "/game.exe"]);
if (log.some((line) => line.includes("Failed to load content"))) {
  const why = log.filter((line) => line.startsWith("[libretro") && !line.includes("INFO] port:")).slice(-4);
  fail(`the core could not load ${request.exe}:\n${why.join("\n")}`);
}
if (!frameCallback) fail(`the core did not start its main loop; its log:\n${log.join("\n")}`);

const frameCount = Module.cwrap("get_current_frame_count", "number", []);
const startFrame = frameCount();
let frame = 0;
function stepFrame() {
  const callback = frameCallback;
  frameCallback = null;
  callback(performance.now());
  frame += 1;
  if (!frameCallback) fail(`the main loop stopped at frame ${frame}; its log:\n${log.slice(-20).join("\n")}`);
  if (frameCount() - startFrame !== frame) fail(`the core counts ${frameCount() - startFrame} frames where ${frame} were stepped`);
}

// A screenshot is a queued command, carried out at the start of the next frame: the image is the last
// frame already output (frame `shotFrame`; the painter test in rearmed.rs checks this), the file
// appears once that next frame has run.
function takeScreenshot(shotFrame) {
  try { FS.unlink("/screenshot.png"); } catch { /* none yet */ }
  Module._cmd_take_screenshot();
  for (let extra = 1; extra <= MAX_SETTLE_FRAMES; extra++) {
    stepFrame();
    try {
      const png = FS.readFile("/screenshot.png");
      const file = `shot-${shotFrame}.png`;
      fs.writeFileSync(path.join(request.out_dir, file), png);
      return { frame: shotFrame, file };
    } catch { /* not written yet */ }
  }
  fail(`no /screenshot.png ${MAX_SETTLE_FRAMES} frames after asking for the screenshot of frame ${shotFrame}`);
}

// Main RAM from a save state; the offsets hold only if both magics are where this build puts them.
function mainRamFromSaveState() {
  const info = Module.cwrap("save_state_info", "string", [])();
  const [size, pointer, ok] = info.split("|").map(Number);
  if (ok !== 1 || !(size > 0)) fail(`save_state_info answered "${info}" (expected "size|pointer|1")`);
  const state = Module.HEAPU8.subarray(pointer, pointer + size);
  const ascii = (from, length) => String.fromCharCode(...state.subarray(from, from + length));
  if (ascii(0, RASTATE_MAGIC.length) !== RASTATE_MAGIC)
    fail(`save state starts with ${JSON.stringify(ascii(0, 8))}, expected "${RASTATE_MAGIC}" (not the pinned build?)`);
  if (ascii(CORE_STATE_OFFSET, 4) !== CORE_STATE_MAGIC)
    fail(`save state byte ${CORE_STATE_OFFSET} holds ${JSON.stringify(ascii(CORE_STATE_OFFSET, 4))}, expected "${CORE_STATE_MAGIC}" (not the pinned build?)`);
  if (size < MAIN_RAM_OFFSET_IN_STATE + MAIN_RAM_BYTES) fail(`save state is only ${size} bytes, too short to hold main RAM`);
  return Buffer.from(state.subarray(MAIN_RAM_OFFSET_IN_STATE, MAIN_RAM_OFFSET_IN_STATE + MAIN_RAM_BYTES));
}

// Where the core mapped emulated main RAM in the wasm heap, from its log line (it moves between runs).
function mainRamPointerFromLog() {
  for (const line of log) {
    const found = /psxMap: tried to map @80000000, got 0x([0-9a-f]+)/.exec(line);
    if (found) return parseInt(found[1], 16);
  }
  return null;
}

// The save state is the documented source; the live heap copy checks that its offset still holds.
function mainRam() {
  const ram = mainRamFromSaveState();
  const pointer = mainRamPointerFromLog();
  if (pointer !== null && !ram.equals(Module.HEAPU8.subarray(pointer, pointer + MAIN_RAM_BYTES)))
    fail(`main RAM in the save state (byte ${MAIN_RAM_OFFSET_IN_STATE}) differs from the live RAM at heap 0x${pointer.toString(16)}`);
  return ram;
}

const started = performance.now();
const wanted = [...request.screenshot_frames];
const screenshots = [];
const skipped = [];
// Screenshots due now. Those whose frame went by while an earlier one settled are reported as skipped.
function screenshotsDue() {
  while (wanted.length > 0 && wanted[0] <= frame && frame < request.frames) {
    const due = wanted.shift();
    if (due === frame) screenshots.push(takeScreenshot(due));
    else skipped.push(due);
  }
}
// With "probe": after each frame, a fingerprint of live main RAM above the kernel area (64 KiB):
// a program that changes nothing there for a second has stopped. (I_STAT cannot tell: this core
// ends a frame at the vblank that sets it.)
const KERNEL_AREA_END = 0x10000;
const probes = [];
const ramPointer = request.probe ? mainRamPointerFromLog() : null;
if (request.probe && ramPointer === null) note("run.mjs: no psxMap line for main RAM: no activity probes");
function probe() {
  if (ramPointer === null) return;
  const live = Module.HEAPU8.subarray(ramPointer + KERNEL_AREA_END, ramPointer + MAIN_RAM_BYTES);
  probes.push([frame, crypto.createHash("sha1").update(live).digest("hex").slice(0, 16)]);
}
screenshotsDue();
while (frame < request.frames) {
  stepFrame();
  probe();
  screenshotsDue();
}
// RAM first, so that it is the state after exactly `frames` frames; then the last frame's screenshot.
fs.writeFileSync(path.join(request.out_dir, "ram.bin"), mainRam());
const framesRun = frame;
if (wanted[0] === frame) screenshots.push(takeScreenshot(wanted.shift()));
skipped.push(...wanted);
const seconds = (performance.now() - started) / 1000;

fs.writeFileSync(path.join(request.out_dir, "manifest.json"), JSON.stringify({
  frames_run: framesRun,
  ram: "ram.bin",
  screenshots,
  skipped_screenshots: skipped,
  probes,
  seconds,
  log: droppedLogLines > 0 ? [...log, `(${droppedLogLines} more log lines dropped)`] : log,
}, null, 1));
process.exit(0);
