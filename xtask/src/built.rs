//! A PS-EXE built from an example (by `build`, `c_build` or `sdk_build`), where it is written
//! (`target/psx/EXAMPLE.exe`, which every command then finds), and the target they build for.
use crate::psexe::{self, Converted, Header, Region, Sizes};
use crate::{elf, Exit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

pub const TARGET: &str = "mipsel-sony-psx";

/// A converted example.
pub struct Built {
    pub example: String,
    pub exe: PathBuf,
    pub header: Header,
    pub sizes: Sizes,
}

/// How an ELF is checked for load-delay and GTE hazards before it is converted.
pub enum Hazards {
    /// Every instruction (our own code).
    Checked,
    /// Not checked (an SDK's link script gives no text bounds; its code is the SDK's).
    Unchecked,
}

impl Built {
    /// Writes `file`, a PS-EXE with `header` and `sizes`, as `target/psx/EXAMPLE.exe`.
    pub fn write(ws: &Path, example: &str, file: &[u8], header: Header, sizes: Sizes) -> Result<Built> {
        let out_dir = ws.join("target").join("psx");
        std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
        let exe = out_dir.join(format!("{example}.exe"));
        std::fs::write(&exe, file).with_context(|| format!("writing {}", exe.display()))?;
        Ok(Built { example: example.to_string(), exe, header, sizes })
    }

    /// Checks the PS-EXE another tool wrote at `path` and writes it as `target/psx/EXAMPLE.exe`.
    pub fn copy(ws: &Path, example: &str, path: &Path) -> Result<Built> {
        let file = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let header = psexe::validate(&file).map_err(|e| Exit::error(Exit::FAILED, format!("{}: {e}", path.display())))?;
        let sizes = Sizes { text: header.t_size, data: 0, bss: header.b_size, file: file.len() as u32 };
        Built::write(ws, example, &file, header, sizes)
    }

    /// Parses the ELF at `path`, checks its `hazards`, converts it for `region` and writes it as
    /// `target/psx/EXAMPLE.exe`.
    pub fn from_elf(ws: &Path, example: &str, path: &Path, region: Region, hazards: Hazards) -> Result<Built> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let parsed = elf::parse(&bytes).with_context(|| format!("{}", path.display()))?;
        match hazards {
            Hazards::Checked => crate::hazards::check(&parsed),
            Hazards::Unchecked => Ok(()),
        }
        .with_context(|| format!("{}", path.display()))?;
        let Converted { file, header, sizes } =
            psexe::from_elf(&parsed, region).with_context(|| format!("converting {}", path.display()))?;
        Built::write(ws, example, &file, header, sizes)
    }

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

