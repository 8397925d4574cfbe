//! A PS-EXE built from an example (by `build`, `c_build` or `sdk_build`), and the target they build for.
use crate::psexe::{Header, Sizes};
use std::path::PathBuf;

pub const TARGET: &str = "mipsel-sony-psx";

/// A converted example.
pub struct Built {
    pub example: String,
    pub exe: PathBuf,
    pub header: Header,
    pub sizes: Sizes,
}

impl Built {
    pub fn print(&self) {
        let s = self.sizes;
        println!(
            "{}: text {} B, data {} B, bss {} B; entry {:#010x}, load {:#010x}; wrote {} ({} B)",
            self.example,
            s.text,
            s.data,
            s.bss,
            self.header.pc0,
            self.header.t_addr,
            self.exe.display(),
            s.file
        );
    }
}

