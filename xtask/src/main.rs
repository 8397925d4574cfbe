//! `cargo xtask`: build automation for psxanim (setup, build-exe, verify, test, demo).
mod backends;
mod bootrom;

fn main() {}
