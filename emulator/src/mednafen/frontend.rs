//! A minimal libretro frontend: loads the core with `libloading`, answers its environment queries (system
//! and save folders, core options, log interface, pixel format), keeps the last video frame, and exposes
//! `run_frame` and `serialize`. Libretro callbacks carry no user pointer, so the frontend's state is
//! thread-local; one running core per process (the backend loads the library once, then runs each game
//! in a forked child process, which gets a pristine copy of the core's globals).
use std::cell::RefCell;
use std::ffi::{c_char, c_uint, c_void, CStr, CString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, ensure, Context, Result};
use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_LOCAL, RTLD_NOW};
use libloading::{Library, Symbol};

const ENV_EXPERIMENTAL: c_uint = 0x10000;
const ENV_GET_OVERSCAN: c_uint = 2;
const ENV_GET_CAN_DUPE: c_uint = 3;
const ENV_GET_SYSTEM_DIRECTORY: c_uint = 9;
const ENV_SET_PIXEL_FORMAT: c_uint = 10;
const ENV_GET_VARIABLE: c_uint = 15;
const ENV_GET_VARIABLE_UPDATE: c_uint = 17;
const ENV_GET_LOG_INTERFACE: c_uint = 27;
const ENV_GET_SAVE_DIRECTORY: c_uint = 31;
const PIXEL_FORMAT_XRGB8888: c_uint = 1;
const RETRO_API_VERSION: c_uint = 1;

#[repr(C)]
struct GameInfo {
    path: *const c_char,
    data: *const c_void,
    size: usize,
    meta: *const c_char,
}

#[repr(C)]
struct Variable {
    key: *const c_char,
    value: *const c_char,
}

#[repr(C)]
struct LogCallback {
    log: *const c_void,
}

extern "C" {
    /// `log_shim.c`: formats a log line and calls `psxanim_mednafen_log_line`.
    fn psxanim_libretro_log(level: c_uint, fmt: *const c_char, ...);
}

/// One video frame as the core gave it: `0x00RRGGBB` pixels, row-major.
#[derive(Debug, Clone)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub xrgb: Vec<u32>,
}

impl Frame {
    /// 8-bit RGB, row-major.
    pub fn to_rgb8(&self) -> Vec<u8> {
        self.xrgb
            .iter()
            .flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8])
            .collect()
    }
}

struct FrontendState {
    system_dir: CString,
    save_dir: CString,
    options: Vec<(CString, CString)>,
    last_frame: Option<Frame>,
    log: Option<std::fs::File>,
    unsupported_pixel_format: Option<c_uint>,
}

thread_local! {
    static STATE: RefCell<Option<FrontendState>> = const { RefCell::new(None) };
}

fn with_state<R>(f: impl FnOnce(&mut FrontendState) -> R) -> Option<R> {
    STATE.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.as_mut().map(f)))
}

fn log_line(line: &str) {
    with_state(|s| {
        if let Some(log) = s.log.as_mut() {
            let _ = writeln!(log, "{}", line.trim_end());
        }
    });
}

#[no_mangle]
extern "C" fn psxanim_mednafen_log_line(level: c_uint, line: *const c_char) {
    if line.is_null() {
        return;
    }
    // SAFETY: the shim passes a NUL-terminated buffer that outlives this call.
    let text = unsafe { CStr::from_ptr(line) }.to_string_lossy();
    let tag = ["debug", "info", "warn", "error"]
        .get(level as usize)
        .copied()
        .unwrap_or("log");
    log_line(&format!("[core {tag}] {text}"));
}

extern "C" fn environment(cmd: c_uint, data: *mut c_void) -> bool {
    let cmd = cmd & !ENV_EXPERIMENTAL;
    if data.is_null() {
        return false;
    }
    with_state(|s| {
        // SAFETY: each command's `data` has the type the libretro API gives for it.
        unsafe {
            match cmd {
                ENV_GET_OVERSCAN => *(data as *mut bool) = false,
                ENV_GET_CAN_DUPE => *(data as *mut bool) = true,
                ENV_GET_SYSTEM_DIRECTORY => *(data as *mut *const c_char) = s.system_dir.as_ptr(),
                ENV_GET_SAVE_DIRECTORY => *(data as *mut *const c_char) = s.save_dir.as_ptr(),
                ENV_SET_PIXEL_FORMAT => {
                    let format = *(data as *const c_uint);
                    if format != PIXEL_FORMAT_XRGB8888 {
                        s.unsupported_pixel_format = Some(format);
                        return false;
                    }
                }
                ENV_GET_VARIABLE => {
                    let var = &mut *(data as *mut Variable);
                    if var.key.is_null() {
                        return false;
                    }
                    let key = CStr::from_ptr(var.key);
                    match s.options.iter().find(|(k, _)| k.as_c_str() == key) {
                        Some((_, value)) => var.value = value.as_ptr(),
                        None => return false,
                    }
                }
                ENV_GET_VARIABLE_UPDATE => *(data as *mut bool) = false,
                ENV_GET_LOG_INTERFACE => {
                    (*(data as *mut LogCallback)).log = psxanim_libretro_log as *const c_void;
                }
                _ => return false,
            }
        }
        true
    })
    .unwrap_or(false)
}

extern "C" fn video_refresh(data: *const c_void, width: c_uint, height: c_uint, pitch: usize) {
    // NULL means "same frame as before" (we said we can dupe).
    if data.is_null() || width == 0 || height == 0 || pitch < 4 * width as usize {
        return;
    }
    let mut xrgb = Vec::with_capacity(width as usize * height as usize);
    for row in 0..height as usize {
        // SAFETY: the core hands `height` rows of `pitch` bytes, each holding `width` XRGB8888 pixels.
        let line = unsafe {
            std::slice::from_raw_parts(
                (data as *const u8).add(row * pitch) as *const u32,
                width as usize,
            )
        };
        xrgb.extend(line.iter().map(|p| p & 0x00FF_FFFF));
    }
    with_state(|s| {
        s.last_frame = Some(Frame {
            width,
            height,
            xrgb,
        })
    });
}

extern "C" fn audio_sample(_left: i16, _right: i16) {}
extern "C" fn audio_sample_batch(_data: *const i16, frames: usize) -> usize {
    frames
}
extern "C" fn input_poll() {}
extern "C" fn input_state(_port: c_uint, _device: c_uint, _index: c_uint, _id: c_uint) -> i16 {
    0
}

/// Where the core reads its BIOS and writes its memory cards, its options, and where log lines go.
pub struct Setup<'a> {
    pub system_dir: &'a Path,
    pub save_dir: &'a Path,
    pub options: &'a [(&'a str, &'a str)],
    pub log: std::fs::File,
}

type SetEnvironment = unsafe extern "C" fn(extern "C" fn(c_uint, *mut c_void) -> bool);
type SetVideo = unsafe extern "C" fn(extern "C" fn(*const c_void, c_uint, c_uint, usize));
type SetAudio = unsafe extern "C" fn(extern "C" fn(i16, i16));
type SetAudioBatch = unsafe extern "C" fn(extern "C" fn(*const i16, usize) -> usize);
type SetInputPoll = unsafe extern "C" fn(extern "C" fn());
type SetInputState = unsafe extern "C" fn(extern "C" fn(c_uint, c_uint, c_uint, c_uint) -> i16);
type NoArgs = unsafe extern "C" fn();
type ApiVersion = unsafe extern "C" fn() -> c_uint;
type LoadGame = unsafe extern "C" fn(*const GameInfo) -> bool;
type SerializeSize = unsafe extern "C" fn() -> usize;
type Serialize = unsafe extern "C" fn(*mut c_void, usize) -> bool;

/// The core's entry points. Loaded once per process, before any fork: a forked child then needs neither
/// `dlopen` nor `dlsym`, whose loader lock another thread of the parent may have held at the fork.
pub struct CoreLibrary {
    api_version: ApiVersion,
    set_environment: SetEnvironment,
    set_video_refresh: SetVideo,
    set_audio_sample: SetAudio,
    set_audio_sample_batch: SetAudioBatch,
    set_input_poll: SetInputPoll,
    set_input_state: SetInputState,
    init: NoArgs,
    load_game: LoadGame,
    run: NoArgs,
    serialize_size: SerializeSize,
    serialize: Serialize,
}

static LOADED: Mutex<Option<(PathBuf, &'static CoreLibrary)>> = Mutex::new(None);

impl CoreLibrary {
    /// Loads `core_path` (after `preload`: libraries it needs that are not on the loader's path, each a
    /// path or a soname) without initialising it. Later calls with the same path return the same library.
    pub fn load(core_path: &Path, preload: &[&Path]) -> Result<&'static CoreLibrary> {
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((path, library)) = loaded.as_ref() {
            ensure!(
                path == core_path,
                "core {} already loaded; cannot also load {}",
                path.display(),
                core_path.display()
            );
            return Ok(library);
        }
        for lib in preload {
            // RTLD_GLOBAL so that the core's DT_NEEDED entry (matched by soname) and libtrio's undefined
            // symbols resolve to these copies.
            // SAFETY: loading a shared library runs its initialisers; these are plain C libraries.
            let handle = unsafe { UnixLibrary::open(Some(lib), RTLD_NOW | RTLD_GLOBAL) }
                .with_context(|| format!("loading {}", lib.display()))?;
            std::mem::forget(handle); // stays loaded for the life of the process, as the core needs it
        }
        // SAFETY: as above; the entry points are then used as the libretro API defines them.
        let library: &'static Library = Box::leak(Box::new(
            unsafe { UnixLibrary::open(Some(core_path), RTLD_NOW | RTLD_LOCAL) }
                .map(Library::from)
                .with_context(|| format!("loading the core {}", core_path.display()))?,
        ));
        // SAFETY: each type is the C signature of the libretro entry point of that name.
        let core = unsafe {
            CoreLibrary {
                api_version: sym(library, "retro_api_version")?,
                set_environment: sym(library, "retro_set_environment")?,
                set_video_refresh: sym(library, "retro_set_video_refresh")?,
                set_audio_sample: sym(library, "retro_set_audio_sample")?,
                set_audio_sample_batch: sym(library, "retro_set_audio_sample_batch")?,
                set_input_poll: sym(library, "retro_set_input_poll")?,
                set_input_state: sym(library, "retro_set_input_state")?,
                init: sym(library, "retro_init")?,
                load_game: sym(library, "retro_load_game")?,
                run: sym(library, "retro_run")?,
                serialize_size: sym(library, "retro_serialize_size")?,
                serialize: sym(library, "retro_serialize")?,
            }
        };
        // SAFETY: retro_api_version may be called at any time.
        let version = unsafe { (core.api_version)() };
        ensure!(
            version == RETRO_API_VERSION,
            "the core speaks libretro API {version}, expected {RETRO_API_VERSION}"
        );
        let core: &'static CoreLibrary = Box::leak(Box::new(core));
        *loaded = Some((core_path.to_path_buf(), core));
        Ok(core)
    }
}

/// # Safety
/// `T` must be the function type of the entry point `name`.
unsafe fn sym<T: Copy + 'static>(library: &'static Library, name: &str) -> Result<T> {
    let symbol: Symbol<'static, T> = library
        .get(name.as_bytes())
        .with_context(|| format!("the core has no {name}"))?;
    Ok(*symbol)
}

/// An initialised core with a game running. One per process: the core keeps its state in globals.
pub struct Core {
    library: &'static CoreLibrary,
}

impl Core {
    /// Initialises the core and loads `content`.
    pub fn start(library: &'static CoreLibrary, content: &Path, setup: Setup) -> Result<Core> {
        let cstring =
            |p: &Path| CString::new(p.as_os_str().as_encoded_bytes()).context("path contains NUL");
        let options = setup
            .options
            .iter()
            .map(|(k, v)| Ok((CString::new(*k)?, CString::new(*v)?)))
            .collect::<Result<Vec<_>>>()?;
        STATE.with(|s| {
            *s.borrow_mut() = Some(FrontendState {
                system_dir: cstring(setup.system_dir)?,
                save_dir: cstring(setup.save_dir)?,
                options,
                last_frame: None,
                log: Some(setup.log),
                unsupported_pixel_format: None,
            });
            anyhow::Ok(())
        })?;
        let core = library;
        let path = cstring(content)?;
        let info = GameInfo {
            path: path.as_ptr(),
            data: std::ptr::null(),
            size: 0,
            meta: std::ptr::null(),
        };
        // SAFETY: the libretro start-up sequence, with callbacks of the types the API defines; the
        // frontend state they use is in place.
        let loaded = unsafe {
            (core.set_environment)(environment);
            (core.set_video_refresh)(video_refresh);
            (core.set_audio_sample)(audio_sample);
            (core.set_audio_sample_batch)(audio_sample_batch);
            (core.set_input_poll)(input_poll);
            (core.set_input_state)(input_state);
            (core.init)();
            (core.load_game)(&info)
        };
        if let Some(format) = with_state(|s| s.unsupported_pixel_format).flatten() {
            bail!("the core asked for pixel format {format}; only XRGB8888 is supported");
        }
        ensure!(
            loaded,
            "the core refused the content {} (see the core log)",
            content.display()
        );
        Ok(Core { library })
    }

    /// Emulates one video frame.
    pub fn run_frame(&self) {
        // SAFETY: retro_run takes no arguments; the game is loaded.
        unsafe { (self.library.run)() };
    }

    /// The last frame the core presented, if any.
    pub fn last_frame(&self) -> Option<Frame> {
        with_state(|s| s.last_frame.clone()).flatten()
    }

    /// A save state of the whole machine.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        // SAFETY: both entry points follow the libretro API; the buffer has the size the core asked for.
        unsafe {
            let size = (self.library.serialize_size)();
            ensure!(size > 0, "the core reports a save-state size of 0");
            let mut buffer = vec![0u8; size];
            let ok = (self.library.serialize)(buffer.as_mut_ptr() as *mut c_void, size);
            ensure!(ok, "retro_serialize failed");
            Ok(buffer)
        }
    }
}

/// Appends a line of our own to the core log.
pub fn note(line: &str) {
    log_line(&format!("[frontend] {line}"));
}
