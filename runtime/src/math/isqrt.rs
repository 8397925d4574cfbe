//! Integer square roots (bit by bit: exact, deterministic, no division).

/// `floor(sqrt(n))`.
pub const fn isqrt_u64(n: u64) -> u64 {
    // Start at the highest power of four not above n, then decide one result bit per step.
    let mut bit: u64 = if n == 0 { 0 } else { 1 << ((63 - n.leading_zeros()) & !1) };
    let mut rem = n;
    let mut root: u64 = 0;
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}

/// `floor(sqrt(n))` in 32-bit arithmetic (cheaper on the R3000).
pub const fn isqrt_u32(n: u32) -> u32 {
    let mut bit: u32 = if n == 0 { 0 } else { 1 << ((31 - n.leading_zeros()) & !1) };
    let mut rem = n;
    let mut root: u32 = 0;
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}
