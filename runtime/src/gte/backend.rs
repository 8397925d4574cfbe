//! The five coprocessor operations every GTE backend provides, with compile-time register numbers
//! and command words (on the console they are encoded into the instruction words).

use super::model::GteModel;
use super::regs::data;
use super::{PackedMatrix, MVMVA_RT_V0, MVMVA_RT_V0_TR, MVMVA_RT_V1, MVMVA_RT_V2};
use crate::math::{Matrix, Vec3i32};

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

    /// [`super::Gte::compose_packed`]: `out[i] = (RT, TR) * poses[i]`. This body is the definition
    /// (the host model runs it); a backend may override it only with the same register operations.
    fn compose_packed(&mut self, poses: &[PackedMatrix], out: &mut [Matrix]) {
        for (p, o) in poses.iter().zip(out.iter_mut()) {
            let [col0, col1, col2, txy, z01, z2tz] = p.words;
            self.write_data::<{ data::VXY0 }>(col0);
            self.write_data::<{ data::VZ0 }>(z01);
            self.write_data::<{ data::VXY1 }>(col1);
            self.write_data::<{ data::VZ1 }>(z01 >> 16);
            self.write_data::<{ data::VXY2 }>(col2);
            self.write_data::<{ data::VZ2 }>(z2tz);
            let mut column = |b: &mut Self, j: usize| {
                o.rotation[0][j] = b.read_data::<{ data::IR1 }>() as i16;
                o.rotation[1][j] = b.read_data::<{ data::IR2 }>() as i16;
                o.rotation[2][j] = b.read_data::<{ data::IR3 }>() as i16;
            };
            self.command::<{ MVMVA_RT_V0 }>();
            column(self, 0);
            self.command::<{ MVMVA_RT_V1 }>();
            column(self, 1);
            self.command::<{ MVMVA_RT_V2 }>();
            column(self, 2);
            self.write_data::<{ data::VXY0 }>(txy);
            self.write_data::<{ data::VZ0 }>(z2tz >> 16);
            self.command::<{ MVMVA_RT_V0_TR }>();
            o.translation = Vec3i32::new(
                self.read_data::<{ data::MAC1 }>() as i32,
                self.read_data::<{ data::MAC2 }>() as i32,
                self.read_data::<{ data::MAC3 }>() as i32,
            );
        }
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
