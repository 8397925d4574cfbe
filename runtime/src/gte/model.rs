//! A register-level software model of the GTE, bit-exact against the emulators' ground truth
//! (`gte-vectors.bin`, which PCSX-Redux and mednafen agree on) and psx-spx.
//!
//! The model holds the 32 data and 32 control registers in the form the hardware keeps them
//! (16-bit registers already sign- or zero-extended), applies the write side effects (SXYP pushes the
//! screen FIFO, IRGB expands into IR1..3, ORGB and LZCR ignore writes) and computes the read-only
//! views (SXYP, IRGB, ORGB, LZCR, FLAG bit 31) on read.

use super::regs::{ctrl, data};

/// FLAG bits that set the error summary bit 31.
const FLAG_ERROR_MASK: u32 = 0x7F87_E000;
/// FLAG bits a `ctc2` can set (bits 0-11 always read 0, bit 31 is computed).
const FLAG_WRITABLE: u32 = 0x7FFF_F000;

/// FLAG bit numbers (psx-spx "GTE Saturation / Flag register").
mod flag {
    /// MAC1..3 result larger than 43 bits, positive: bit 30 - i.
    pub const MAC_POS: u32 = 30;
    /// MAC1..3 result larger than 43 bits, negative: bit 27 - i.
    pub const MAC_NEG: u32 = 27;
    /// IR1..3 saturated: bit 24 - i.
    pub const IR: u32 = 24;
    /// Color FIFO R/G/B saturated: bit 21 - i.
    pub const COLOR: u32 = 21;
    pub const SZ_OTZ: u32 = 18;
    pub const DIVIDE: u32 = 17;
    pub const MAC0_POS: u32 = 16;
    pub const MAC0_NEG: u32 = 15;
    /// SX2 / SY2 saturated: bit 14 - i.
    pub const SXY: u32 = 14;
    pub const IR0: u32 = 12;
}

/// The GTE's register file plus the command engine. Starts with every register 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GteModel {
    data: [u32; 32],
    ctrl: [u32; 32],
    /// pcsx_rearmed's rounding of NCDS/NCDT's depth-cue step (see [`GteModel::pcsx_rearmed`]).
    rearmed_depth_cue: bool,
}

impl Default for GteModel {
    fn default() -> Self {
        Self::new()
    }
}

const fn sext16(v: u32) -> u32 {
    v as u16 as i16 as i32 as u32
}
const fn lo(v: u32) -> i64 {
    v as u16 as i16 as i64
}
const fn hi(v: u32) -> i64 {
    (v >> 16) as u16 as i16 as i64
}

/// The 257-entry reciprocal seed table of the GTE divider (psx-spx "GTE Division Inaccuracy").
const UNR_TABLE: [u8; 257] = {
    let mut t = [0u8; 257];
    let mut i = 0;
    while i < 257 {
        let v = (0x40000 / (i as i32 + 0x100) + 1) / 2 - 0x101;
        t[i] = if v > 0 { v as u8 } else { 0 };
        i += 1;
    }
    t
};

/// `H / SZ` as the hardware computes it (unsigned 1.16 result, saturated to 0x1FFFF), or `None` on
/// overflow (`H >= 2 * SZ`), for which the hardware uses 0x1FFFF and sets FLAG bit 17.
pub fn unr_divide(h: u16, sz: u16) -> Option<u32> {
    let (h, sz) = (h as u64, sz as u64);
    if h >= sz * 2 {
        return None; // also covers sz == 0
    }
    let shift = (sz as u16).leading_zeros();
    let n = h << shift;
    let d = sz << shift; // 0x8000..=0xFFFF
    let u = UNR_TABLE[((d - 0x7FC0) >> 7) as usize] as u64 + 0x101;
    let d = (0x0200_0080 - d * u) >> 8;
    let d = (0x0000_0080 + d * u) >> 8;
    Some(((n * d + 0x8000) >> 16).min(0x1FFFF) as u32)
}

impl GteModel {
    pub const fn new() -> Self {
        Self { data: [0; 32], ctrl: [0; 32], rearmed_depth_cue: false }
    }

    /// The model with pcsx_rearmed's documented deviation in NCDS/NCDT (a known emulator deviation,
    /// for telling it from a wrong result): its depth-cue step is `FC - ((RGBC * IR) >> 8)`, the
    /// hardware's `(FC << 12 - (RGBC << 4) * IR) >> 12`, one more wherever `RGBC * IR` is no
    /// multiple of 256. Only xtask's expectations use it.
    pub const fn pcsx_rearmed() -> Self {
        Self { data: [0; 32], ctrl: [0; 32], rearmed_depth_cue: true }
    }

    /// `mtc2`: writes data register `reg & 31` with the hardware's side effects.
    pub fn write_data(&mut self, reg: u32, v: u32) {
        let reg = (reg & 31) as usize;
        match reg as u32 {
            data::VZ0 | data::VZ1 | data::VZ2 | data::IR0 | data::IR1 | data::IR2 | data::IR3 => {
                self.data[reg] = sext16(v)
            }
            data::OTZ | data::SZ0 | data::SZ1 | data::SZ2 | data::SZ3 => self.data[reg] = v & 0xFFFF,
            data::SXYP => self.push_sxy(v),
            data::IRGB => {
                for i in 0..3 {
                    self.data[data::IR1 as usize + i] = ((v >> (5 * i)) & 0x1F) << 7;
                }
            }
            data::ORGB | data::LZCR => {}
            _ => self.data[reg] = v,
        }
    }

    /// `mfc2`: reads data register `reg & 31`.
    pub fn read_data(&self, reg: u32) -> u32 {
        let reg = reg & 31;
        match reg {
            data::SXYP => self.data[data::SXY2 as usize],
            data::IRGB | data::ORGB => {
                let c = |i: u32| (self.ir(i as usize) >> 7).clamp(0, 0x1F) as u32;
                c(0) | c(1) << 5 | c(2) << 10
            }
            data::LZCR => {
                let v = self.data[data::LZCS as usize];
                if (v as i32) < 0 { (!v).leading_zeros() } else { v.leading_zeros() }
            }
            _ => self.data[reg as usize],
        }
    }

    /// `ctc2`: writes control register `reg & 31`.
    pub fn write_ctrl(&mut self, reg: u32, v: u32) {
        let reg = reg & 31;
        self.ctrl[reg as usize] = match reg {
            ctrl::RT33 | ctrl::L33 | ctrl::LB3 | ctrl::H | ctrl::DQA | ctrl::ZSF3 | ctrl::ZSF4 => sext16(v),
            ctrl::FLAG => v & FLAG_WRITABLE,
            _ => v,
        };
    }

    /// `cfc2`: reads control register `reg & 31`.
    pub fn read_ctrl(&self, reg: u32) -> u32 {
        let reg = reg & 31;
        let v = self.ctrl[reg as usize];
        if reg == ctrl::FLAG && v & FLAG_ERROR_MASK != 0 {
            v | 1 << 31
        } else {
            v
        }
    }

    /// Runs one command word (the `cop2` imm25 operand). FLAG is cleared first, as on hardware.
    /// Opcodes without a defined function only clear FLAG (the hardware's behaviour for those is not
    /// modelled).
    pub fn execute(&mut self, command: u32) {
        let mut e = Exec { g: self, flag: 0, sf: if command & (1 << 19) != 0 { 12 } else { 0 }, lm: command & (1 << 10) != 0 };
        e.run(command);
        let flag = e.flag;
        self.ctrl[ctrl::FLAG as usize] = flag & FLAG_WRITABLE;
    }

    fn push_sxy(&mut self, v: u32) {
        self.data[data::SXY0 as usize] = self.data[data::SXY1 as usize];
        self.data[data::SXY1 as usize] = self.data[data::SXY2 as usize];
        self.data[data::SXY2 as usize] = v;
    }

    fn ir(&self, i: usize) -> i32 {
        self.data[data::IR1 as usize + i] as i32
    }
}

/// One command in flight: the model, the FLAG being accumulated and the sf/lm fields.
struct Exec<'a> {
    g: &'a mut GteModel,
    flag: u32,
    /// Right shift of MAC results: 0 or 12.
    sf: u32,
    lm: bool,
}

type Mat = [[i64; 3]; 3];
type Vec = [i64; 3];

impl Exec<'_> {
    fn run(&mut self, command: u32) {
        match command & 0x3F {
            0x01 => self.rtp(0, true),
            0x30 => {
                self.rtp(0, false);
                self.rtp(1, false);
                self.rtp(2, true);
            }
            0x06 => self.nclip(),
            0x2D => self.avsz(self.zsf3(), &[1, 2, 3]),
            0x2E => self.avsz(self.zsf4(), &[0, 1, 2, 3]),
            0x28 => self.sqr(),
            0x0C => self.op(),
            0x3D => self.gpf(),
            0x3E => self.gpl(),
            0x12 => self.mvmva(command),
            0x1E => self.ncs(0),
            0x20 => (0..3).for_each(|v| self.ncs(v)),
            0x13 => self.ncds(0),
            0x16 => (0..3).for_each(|v| self.ncds(v)),
            0x1B => self.nccs(0),
            0x3F => (0..3).for_each(|v| self.nccs(v)),
            0x1C => self.cc(),
            0x14 => self.cdp(),
            0x29 => self.depth_cue(DepthCueBase::ColorTimesIr),
            0x10 => self.depth_cue(DepthCueBase::Color),
            0x2A => (0..3).for_each(|_| self.depth_cue(DepthCueBase::FifoColor)),
            0x11 => self.depth_cue(DepthCueBase::Ir),
            _ => {}
        }
    }

    // ---- register views ----

    fn d(&self, r: u32) -> u32 {
        self.g.data[r as usize]
    }
    fn c(&self, r: u32) -> u32 {
        self.g.ctrl[r as usize]
    }
    fn set_d(&mut self, r: u32, v: u32) {
        self.g.data[r as usize] = v;
    }

    /// A matrix stored as five control registers from `base` (RT, LLM or LCM).
    fn matrix(&self, base: u32) -> Mat {
        let c = |k: u32| self.c(base + k);
        [
            [lo(c(0)), hi(c(0)), lo(c(1))],
            [hi(c(1)), lo(c(2)), hi(c(2))],
            [lo(c(3)), hi(c(3)), lo(c(4))],
        ]
    }
    fn ctrl_vec(&self, base: u32) -> Vec {
        [0, 1, 2].map(|k| self.c(base + k) as i32 as i64)
    }
    fn vertex(&self, n: u32) -> Vec {
        let xy = self.d(data::VXY0 + 2 * n);
        [lo(xy), hi(xy), self.d(data::VZ0 + 2 * n) as i32 as i64]
    }
    fn ir(&self, i: usize) -> i64 {
        self.g.ir(i) as i64
    }
    fn irs(&self) -> Vec {
        [self.ir(0), self.ir(1), self.ir(2)]
    }
    fn ir0(&self) -> i64 {
        self.d(data::IR0) as i32 as i64
    }
    fn mac(&self, i: usize) -> i64 {
        self.d(data::MAC1 + i as u32) as i32 as i64
    }
    fn zsf3(&self) -> i64 {
        self.c(ctrl::ZSF3) as i32 as i64
    }
    fn zsf4(&self) -> i64 {
        self.c(ctrl::ZSF4) as i32 as i64
    }
    /// RGBC's R, G, B bytes.
    fn rgbc(&self) -> Vec {
        let v = self.d(data::RGBC);
        [0, 1, 2].map(|i| ((v >> (8 * i)) & 0xFF) as i64)
    }

    // ---- saturation and flags ----

    fn set_flag(&mut self, bit: u32) {
        self.flag |= 1 << bit;
    }

    /// Checks a MAC1..3 intermediate against 44 bits and wraps it to 44 bits, as the hardware does.
    fn mac_check(&mut self, i: usize, v: i64) -> i64 {
        if v >= 1 << 43 {
            self.set_flag(flag::MAC_POS - i as u32);
        } else if v < -(1 << 43) {
            self.set_flag(flag::MAC_NEG - i as u32);
        }
        (v << 20) >> 20
    }

    fn mac0_check(&mut self, v: i64) -> i64 {
        if v > i32::MAX as i64 {
            self.set_flag(flag::MAC0_POS);
        } else if v < i32::MIN as i64 {
            self.set_flag(flag::MAC0_NEG);
        }
        v
    }

    /// Saturates to IR1..3's range (-0x8000 or 0 with lm, up to 0x7FFF) and flags it.
    fn sat_ir(&mut self, i: usize, v: i64, lm: bool) -> i64 {
        let low = if lm { 0 } else { -0x8000 };
        if v < low || v > 0x7FFF {
            self.set_flag(flag::IR - i as u32);
        }
        v.clamp(low, 0x7FFF)
    }

    fn set_mac(&mut self, i: usize, v: i64) {
        self.set_d(data::MAC1 + i as u32, v as u32);
    }
    fn set_ir(&mut self, i: usize, v: i64) {
        self.set_d(data::IR1 + i as u32, v as i32 as u32);
    }

    /// Stores the 44-bit accumulator `acc` of lane `i` into MAC (shifted by sf, truncated to 32 bits).
    fn store_mac(&mut self, i: usize, acc: i64) {
        self.set_mac(i, acc >> self.sf);
    }

    /// IR1..3 = saturated MAC1..3 with the command's lm.
    fn mac_to_ir(&mut self) {
        for i in 0..3 {
            let v = self.sat_ir(i, self.mac(i), self.lm);
            self.set_ir(i, v);
        }
    }

    fn sat_sz(&mut self, v: i64) -> u32 {
        if !(0..=0xFFFF).contains(&v) {
            self.set_flag(flag::SZ_OTZ);
        }
        v.clamp(0, 0xFFFF) as u32
    }

    /// Pushes MAC1..3 / 16 (saturated to 0..255) and RGBC's code byte onto the color FIFO.
    fn push_color(&mut self) {
        let mut rgb = self.d(data::RGBC) & 0xFF00_0000;
        for i in 0..3 {
            let v = self.mac(i) >> 4;
            if !(0..=0xFF).contains(&v) {
                self.set_flag(flag::COLOR - i as u32);
            }
            rgb |= (v.clamp(0, 0xFF) as u32) << (8 * i);
        }
        self.set_d(data::RGB0, self.d(data::RGB1));
        self.set_d(data::RGB1, self.d(data::RGB2));
        self.set_d(data::RGB2, rgb);
    }

    // ---- matrix-vector core ----

    /// MAC = (cv << 12 + m * v) >> sf, IR = saturate(MAC). `fc_bug` reproduces MVMVA with cv=FC:
    /// the first column's sum (with FC) only sets IR flags and is then dropped.
    fn mat_vec(&mut self, m: &Mat, v: &Vec, cv: &Vec, fc_bug: bool) {
        for i in 0..3 {
            let mut acc = self.mac_check(i, (cv[i] << 12) + m[i][0] * v[0]);
            if fc_bug {
                let _ = self.sat_ir(i, (acc >> self.sf) as i32 as i64, false);
                acc = 0;
            }
            acc = self.mac_check(i, acc + m[i][1] * v[1]);
            acc = self.mac_check(i, acc + m[i][2] * v[2]);
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
    }

    fn mvmva(&mut self, command: u32) {
        let m = match (command >> 17) & 3 {
            0 => self.matrix(ctrl::RT11RT12),
            1 => self.matrix(ctrl::L11L12),
            2 => self.matrix(ctrl::LR1LR2),
            _ => {
                // The "garbage" matrix of mx=3 (psx-spx).
                let r = self.rgbc()[0] << 4;
                let rt13 = lo(self.c(ctrl::RT13RT21));
                let rt22 = lo(self.c(ctrl::RT22RT23));
                [[-r, r, self.ir0()], [rt13; 3], [rt22; 3]]
            }
        };
        let v = match (command >> 15) & 3 {
            3 => self.irs(),
            n => self.vertex(n),
        };
        let cv_field = (command >> 13) & 3;
        let cv = match cv_field {
            0 => self.ctrl_vec(ctrl::TRX),
            1 => self.ctrl_vec(ctrl::RBK),
            2 => self.ctrl_vec(ctrl::RFC),
            _ => [0; 3],
        };
        self.mat_vec(&m, &v, &cv, cv_field == 2);
    }

    // ---- perspective ----

    /// RTPS for vertex `n`; the depth cue (MAC0, IR0) only for the last vertex of the command.
    fn rtp(&mut self, n: u32, last: bool) {
        let rt = self.matrix(ctrl::RT11RT12);
        let tr = self.ctrl_vec(ctrl::TRX);
        let v = self.vertex(n);
        let mut acc = [0i64; 3];
        for i in 0..3 {
            let mut a = self.mac_check(i, (tr[i] << 12) + rt[i][0] * v[0]);
            a = self.mac_check(i, a + rt[i][1] * v[1]);
            acc[i] = self.mac_check(i, a + rt[i][2] * v[2]);
            self.store_mac(i, acc[i]);
        }
        for i in 0..2 {
            let v = self.sat_ir(i, self.mac(i), self.lm);
            self.set_ir(i, v);
        }
        // IR3: the value saturates from MAC3, but the flag is raised from MAC3 >> 12 whatever sf is.
        let z = acc[2] >> 12;
        if !(-0x8000..=0x7FFF).contains(&z) {
            self.set_flag(flag::IR - 2);
        }
        let low = if self.lm { 0 } else { -0x8000 };
        let ir3 = self.mac(2).clamp(low, 0x7FFF);
        self.set_ir(2, ir3);

        let sz3 = self.sat_sz(z);
        for k in 0..3 {
            self.set_d(data::SZ0 + k, self.d(data::SZ1 + k));
        }
        self.set_d(data::SZ3, sz3);

        let h = self.c(ctrl::H) as u16;
        let h_div_sz = match unr_divide(h, sz3 as u16) {
            Some(q) => q,
            None => {
                self.set_flag(flag::DIVIDE);
                0x1FFFF
            }
        } as i64;

        let mut sxy = 0u32;
        for (i, of) in [ctrl::OFX, ctrl::OFY].into_iter().enumerate() {
            let p = self.mac0_check(self.c(of) as i32 as i64 + self.ir(i) * h_div_sz);
            self.set_d(data::MAC0, p as u32);
            let s = p >> 16;
            if !(-0x400..=0x3FF).contains(&s) {
                self.set_flag(flag::SXY - i as u32);
            }
            sxy |= (s.clamp(-0x400, 0x3FF) as u32 & 0xFFFF) << (16 * i);
        }
        self.g.push_sxy(sxy);

        if last {
            let dqa = self.c(ctrl::DQA) as i32 as i64;
            let dqb = self.c(ctrl::DQB) as i32 as i64;
            let p = self.mac0_check(dqb + dqa * h_div_sz);
            self.set_d(data::MAC0, p as u32);
            let ir0 = p >> 12;
            if !(0..=0x1000).contains(&ir0) {
                self.set_flag(flag::IR0);
            }
            self.set_d(data::IR0, ir0.clamp(0, 0x1000) as u32);
        }
    }

    fn nclip(&mut self) {
        let s = [data::SXY0, data::SXY1, data::SXY2].map(|r| self.d(r));
        let (x, y) = (s.map(lo), s.map(hi));
        let p = x[0] * y[1] + x[1] * y[2] + x[2] * y[0] - x[0] * y[2] - x[1] * y[0] - x[2] * y[1];
        let p = self.mac0_check(p);
        self.set_d(data::MAC0, p as u32);
    }

    /// AVSZ3/AVSZ4: MAC0 = zsf * sum(SZ), OTZ = saturate(MAC0 >> 12) (from the untruncated sum).
    fn avsz(&mut self, zsf: i64, regs: &[u32]) {
        let sum: i64 = regs.iter().map(|&k| self.d(data::SZ0 + k) as i64).sum();
        let p = self.mac0_check(zsf * sum);
        self.set_d(data::MAC0, p as u32);
        let otz = self.sat_sz(p >> 12);
        self.set_d(data::OTZ, otz);
    }

    // ---- arithmetic ----

    fn sqr(&mut self) {
        for i in 0..3 {
            let acc = self.mac_check(i, self.ir(i) * self.ir(i));
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
    }

    /// Outer product of IR with the RT diagonal.
    fn op(&mut self) {
        let rt = self.matrix(ctrl::RT11RT12);
        let d = [rt[0][0], rt[1][1], rt[2][2]];
        let ir = self.irs();
        let prods = [(ir[2] * d[1], ir[1] * d[2]), (ir[0] * d[2], ir[2] * d[0]), (ir[1] * d[0], ir[0] * d[1])];
        for (i, (a, b)) in prods.into_iter().enumerate() {
            let acc = self.mac_check(i, a - b);
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
    }

    fn gpf(&mut self) {
        let ir0 = self.ir0();
        for i in 0..3 {
            let acc = self.mac_check(i, ir0 * self.ir(i));
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
        self.push_color();
    }

    fn gpl(&mut self) {
        let ir0 = self.ir0();
        for i in 0..3 {
            let acc = self.mac_check(i, (self.mac(i) << self.sf) + ir0 * self.ir(i));
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
        self.push_color();
    }

    // ---- lighting ----

    /// IR = LLM * V(n) (no translation).
    fn light(&mut self, n: u32) {
        let m = self.matrix(ctrl::L11L12);
        let v = self.vertex(n);
        self.mat_vec(&m, &v, &[0; 3], false);
    }

    /// IR = BK + LCM * IR.
    fn color(&mut self) {
        let m = self.matrix(ctrl::LR1LR2);
        let v = self.irs();
        let bk = self.ctrl_vec(ctrl::RBK);
        self.mat_vec(&m, &v, &bk, false);
    }

    /// MAC = (RGBC << 4) * IR >> sf, IR = saturate(MAC).
    fn color_times_ir(&mut self) {
        for (i, c) in self.rgbc().into_iter().enumerate() {
            let acc = self.mac_check(i, (c << 4) * self.ir(i));
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
    }

    fn ncs(&mut self, n: u32) {
        self.light(n);
        self.color();
        self.push_color();
    }

    fn nccs(&mut self, n: u32) {
        self.light(n);
        self.color();
        self.color_times_ir();
        self.push_color();
    }

    fn ncds(&mut self, n: u32) {
        self.light(n);
        self.color();
        self.depth_cue(DepthCueBase::ColorTimesIr);
    }

    fn cc(&mut self) {
        self.color();
        self.color_times_ir();
        self.push_color();
    }

    fn cdp(&mut self) {
        self.color();
        self.depth_cue(DepthCueBase::ColorTimesIr);
    }

    /// MAC = base + (FC - base) * IR0, where `(FC - base)` saturates like IR with lm=0; then IR and
    /// the color FIFO. (psx-spx: "MAC+(FC-MAC)*IR0".)
    fn depth_cue(&mut self, base: DepthCueBase) {
        let ir = self.irs();
        let ir0 = self.ir0();
        let fc = self.ctrl_vec(ctrl::RFC);
        let rgb = match base {
            DepthCueBase::FifoColor => {
                let v = self.d(data::RGB0);
                [0, 1, 2].map(|i| ((v >> (8 * i)) & 0xFF) as i64)
            }
            _ => self.rgbc(),
        };
        for i in 0..3 {
            let b = match base {
                DepthCueBase::ColorTimesIr => (rgb[i] << 4) * ir[i],
                DepthCueBase::Color | DepthCueBase::FifoColor => rgb[i] << 16,
                DepthCueBase::Ir => ir[i] << 12,
            };
            let from = if self.g.rearmed_depth_cue && matches!(base, DepthCueBase::ColorTimesIr) { (b >> 12) << 12 } else { b };
            let acc = self.mac_check(i, (fc[i] << 12) - from);
            self.store_mac(i, acc);
            let diff = self.sat_ir(i, self.mac(i), false);
            let acc = self.mac_check(i, b + ir0 * diff);
            self.store_mac(i, acc);
        }
        self.mac_to_ir();
        self.push_color();
    }
}

/// What the depth cue interpolates from.
#[derive(Clone, Copy)]
enum DepthCueBase {
    /// (RGBC << 4) * IR: NCDS, NCDT, CDP, DCPL.
    ColorTimesIr,
    /// RGBC << 16: DPCS.
    Color,
    /// RGB0 << 16, popping the FIFO each time: DPCT.
    FifoColor,
    /// IR << 12: INTPL.
    Ir,
}
