//! Compiles the one C file of the emulator crate: the mednafen backend's log shim (libretro's log callback is
//! C-variadic, which stable Rust cannot define).
fn main() {
    println!("cargo:rerun-if-changed=src/mednafen/log_shim.c");
    cc::Build::new().file("src/mednafen/log_shim.c").compile("psxanim_libretro_log");
}
