//! Integer square roots (bit by bit: exact, deterministic, no division).

/// `$name(n: $t) -> $t`: `floor(sqrt(n))`, one algorithm at each width.
macro_rules! bitwise_isqrt {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        pub const fn $name(n: $t) -> $t {
            // Start at the highest power of four not above n, then decide one result bit per step.
            let mut bit: $t = if n == 0 { 0 } else { 1 << ((<$t>::BITS - 1 - n.leading_zeros()) & !1) };
            let mut rem = n;
            let mut root: $t = 0;
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
    };
}

bitwise_isqrt!(
    /// `floor(sqrt(n))`.
    isqrt_u64,
    u64
);
bitwise_isqrt!(
    /// `floor(sqrt(n))` in 32-bit arithmetic (cheaper on the R3000).
    isqrt_u32,
    u32
);
