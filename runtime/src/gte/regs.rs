//! GTE register numbers (cop2 data and control registers) and command words, as named in psx-spx.

/// Data registers (`mtc2`/`mfc2`, `lwc2`/`swc2`).
pub mod data {
    pub const VXY0: u32 = 0;
    pub const VZ0: u32 = 1;
    pub const VXY1: u32 = 2;
    pub const VZ1: u32 = 3;
    pub const VXY2: u32 = 4;
    pub const VZ2: u32 = 5;
    pub const RGBC: u32 = 6;
    pub const OTZ: u32 = 7;
    pub const IR0: u32 = 8;
    pub const IR1: u32 = 9;
    pub const IR2: u32 = 10;
    pub const IR3: u32 = 11;
    pub const SXY0: u32 = 12;
    pub const SXY1: u32 = 13;
    pub const SXY2: u32 = 14;
    /// Writing pushes the screen-XY FIFO; reading returns SXY2.
    pub const SXYP: u32 = 15;
    pub const SZ0: u32 = 16;
    pub const SZ1: u32 = 17;
    pub const SZ2: u32 = 18;
    pub const SZ3: u32 = 19;
    pub const RGB0: u32 = 20;
    pub const RGB1: u32 = 21;
    pub const RGB2: u32 = 22;
    pub const RES1: u32 = 23;
    pub const MAC0: u32 = 24;
    pub const MAC1: u32 = 25;
    pub const MAC2: u32 = 26;
    pub const MAC3: u32 = 27;
    pub const IRGB: u32 = 28;
    pub const ORGB: u32 = 29;
    pub const LZCS: u32 = 30;
    pub const LZCR: u32 = 31;
}

/// Control registers (`ctc2`/`cfc2`).
pub mod ctrl {
    pub const RT11RT12: u32 = 0;
    pub const RT13RT21: u32 = 1;
    pub const RT22RT23: u32 = 2;
    pub const RT31RT32: u32 = 3;
    pub const RT33: u32 = 4;
    pub const TRX: u32 = 5;
    pub const TRY: u32 = 6;
    pub const TRZ: u32 = 7;
    pub const L11L12: u32 = 8;
    pub const L13L21: u32 = 9;
    pub const L22L23: u32 = 10;
    pub const L31L32: u32 = 11;
    pub const L33: u32 = 12;
    pub const RBK: u32 = 13;
    pub const GBK: u32 = 14;
    pub const BBK: u32 = 15;
    pub const LR1LR2: u32 = 16;
    pub const LR3LG1: u32 = 17;
    pub const LG2LG3: u32 = 18;
    pub const LB1LB2: u32 = 19;
    pub const LB3: u32 = 20;
    pub const RFC: u32 = 21;
    pub const GFC: u32 = 22;
    pub const BFC: u32 = 23;
    pub const OFX: u32 = 24;
    pub const OFY: u32 = 25;
    pub const H: u32 = 26;
    pub const DQA: u32 = 27;
    pub const DQB: u32 = 28;
    pub const ZSF3: u32 = 29;
    pub const ZSF4: u32 = 30;
    pub const FLAG: u32 = 31;
}

/// Command words: the imm25 operand of `cop2` (the instruction is `0x4A000000 | word`).
///
/// Bit 19 = sf (shift results right by 12), bit 10 = lm (clamp IR to 0 instead of -0x8000), and for
/// MVMVA bits 17-18 = matrix, 15-16 = vector, 13-14 = translation vector.
pub mod cmd {
    /// sf bit: results are shifted right by 12 (FP12 inputs).
    pub const SF: u32 = 1 << 19;
    /// lm bit: IR1..3 saturate to 0..0x7FFF instead of -0x8000..0x7FFF.
    pub const LM: u32 = 1 << 10;

    pub const RTPS: u32 = 0x0180001;
    pub const RTPT: u32 = 0x0280030;
    pub const NCLIP: u32 = 0x1400006;
    pub const AVSZ3: u32 = 0x158002D;
    pub const AVSZ4: u32 = 0x168002E;
    pub const SQR: u32 = 0x0A00428;
    pub const OP: u32 = 0x170000C;
    pub const GPF: u32 = 0x190003D;
    pub const GPL: u32 = 0x1A0003E;
    pub const NCS: u32 = 0x0C8041E;
    pub const NCT: u32 = 0x0D80420;
    pub const NCDS: u32 = 0x0E80413;
    pub const NCDT: u32 = 0x0F80416;
    pub const NCCS: u32 = 0x108041B;
    pub const NCCT: u32 = 0x118043F;
    pub const CC: u32 = 0x138041C;
    pub const CDP: u32 = 0x1280414;
    pub const DCPL: u32 = 0x0680029;
    pub const DPCS: u32 = 0x0780010;
    pub const DPCT: u32 = 0x0F8002A;
    pub const INTPL: u32 = 0x0980011;
    /// MVMVA with every field zero (sf=0, RT, V0, TR, lm=0); see [`mvmva`].
    pub const MVMVA: u32 = 0x0400012;

    /// MVMVA matrix field.
    pub const MX_RT: u32 = 0;
    pub const MX_LLM: u32 = 1;
    pub const MX_LCM: u32 = 2;
    /// The hardware's "garbage" matrix (built from RGBC.R, IR0, RT13 and RT22).
    pub const MX_GARBAGE: u32 = 3;
    /// MVMVA vector field.
    pub const V_V0: u32 = 0;
    pub const V_V1: u32 = 1;
    pub const V_V2: u32 = 2;
    pub const V_IR: u32 = 3;
    /// MVMVA translation field.
    pub const CV_TR: u32 = 0;
    pub const CV_BK: u32 = 1;
    /// Far color: buggy on hardware (only the flags of the first column survive).
    pub const CV_FC: u32 = 2;
    pub const CV_NONE: u32 = 3;

    /// The MVMVA command word for the given fields (`sf`, `lm` as 0/1; others as above, masked).
    pub const fn mvmva(sf: u32, mx: u32, v: u32, cv: u32, lm: u32) -> u32 {
        MVMVA | (sf & 1) << 19 | (mx & 3) << 17 | (v & 3) << 15 | (cv & 3) << 13 | (lm & 1) << 10
    }
}
