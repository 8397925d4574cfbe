//! The five coprocessor operations every GTE backend provides, with compile-time register numbers
//! and command words (on the console they are encoded into the instruction words).

use super::model::GteModel;

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
