//! The five coprocessor operations every GTE backend provides, with compile-time register numbers
//! and command words (on the console they are encoded into the instruction words).

use super::model::GteModel;
use super::regs::{cmd, data};

/// Raw access to a GTE: register transfers and commands.
///
/// Register numbers are masked to 0..31; the command word is the `cop2` imm25 operand.
pub trait Cop2 {
    /// `mtc2`: write data register `R`.
    fn write_data<const R: u32>(&mut self, v: u32);
    /// `mfc2`: read data register `R`.
    fn read_data<const R: u32>(&mut self) -> u32;
    /// `ctc2`: write control register `R`.
    fn write_ctrl<const R: u32>(&mut self, v: u32);
    /// `cfc2`: read control register `R`.
    fn read_ctrl<const R: u32>(&mut self) -> u32;
    /// `cop2 CMD`: run one command.
    fn command<const CMD: u32>(&mut self);

    // ---- bulk operations: the default bodies are the register operations the console's versions
    // run (`hw.rs`), so the host model computes exactly what the console does ----

    /// RTPT over whole triples of vertices given as VXY, VZ word pairs (6 words a triple): SXY0..2 go
    /// to `sxy`, SZ1..3 to `sz`, for as many triples as all three slices hold. Returns the number of
    /// vertices projected (a multiple of three).
    fn rtpt_words(&mut self, vertices: &[u32], sxy: &mut [u32], sz: &mut [u32]) -> usize {
        let triples = (vertices.len() / 6).min(sxy.len() / 3).min(sz.len() / 3);
        for ((v, xy), z) in vertices.chunks_exact(6).zip(sxy.chunks_exact_mut(3)).zip(sz.chunks_exact_mut(3)).take(triples) {
            self.write_data::<{ data::VXY0 }>(v[0]);
            self.write_data::<{ data::VZ0 }>(v[1]);
            self.write_data::<{ data::VXY1 }>(v[2]);
            self.write_data::<{ data::VZ1 }>(v[3]);
            self.write_data::<{ data::VXY2 }>(v[4]);
            self.write_data::<{ data::VZ2 }>(v[5]);
            self.command::<{ cmd::RTPT }>();
            xy[0] = self.read_data::<{ data::SXY0 }>();
            xy[1] = self.read_data::<{ data::SXY1 }>();
            xy[2] = self.read_data::<{ data::SXY2 }>();
            z[0] = self.read_data::<{ data::SZ1 }>();
            z[1] = self.read_data::<{ data::SZ2 }>();
            z[2] = self.read_data::<{ data::SZ3 }>();
        }
        3 * triples
    }

    /// Loads SXY0..2 with `sxy[v[0]]`, `sxy[v[1]]`, `sxy[v[2]]` and starts NCLIP; read MAC0 after it
    /// (`read_data` waits for the command on the console, so other work can run in between).
    ///
    /// # Safety
    /// Every index in `v` is below `sxy.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn nclip_indexed(&mut self, sxy: &[u32], v: [usize; 3]) {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SXY0 }>(*sxy.get_unchecked(v[0]));
            self.write_data::<{ data::SXY1 }>(*sxy.get_unchecked(v[1]));
            self.write_data::<{ data::SXY2 }>(*sxy.get_unchecked(v[2]));
        }
        self.command::<{ cmd::NCLIP }>();
    }

    /// Loads SZ1..3 with `sz[v[0]]`, `sz[v[1]]`, `sz[v[2]]` and starts AVSZ3; read OTZ (and SZ1..3)
    /// after it.
    ///
    /// # Safety
    /// Every index in `v` is below `sz.len()` (the console loads without checking).
    #[inline(always)]
    unsafe fn avsz3_indexed(&mut self, sz: &[u32], v: [usize; 3]) {
        // SAFETY: the caller's contract.
        unsafe {
            self.write_data::<{ data::SZ1 }>(*sz.get_unchecked(v[0]));
            self.write_data::<{ data::SZ2 }>(*sz.get_unchecked(v[1]));
            self.write_data::<{ data::SZ3 }>(*sz.get_unchecked(v[2]));
        }
        self.command::<{ cmd::AVSZ3 }>();
    }
}

impl Cop2 for GteModel {
    #[inline]
    fn write_data<const R: u32>(&mut self, v: u32) {
        GteModel::write_data(self, R, v)
    }
    #[inline]
    fn read_data<const R: u32>(&mut self) -> u32 {
        GteModel::read_data(self, R)
    }
    #[inline]
    fn write_ctrl<const R: u32>(&mut self, v: u32) {
        GteModel::write_ctrl(self, R, v)
    }
    #[inline]
    fn read_ctrl<const R: u32>(&mut self) -> u32 {
        GteModel::read_ctrl(self, R)
    }
    #[inline]
    fn command<const CMD: u32>(&mut self) {
        self.execute(CMD)
    }
}
