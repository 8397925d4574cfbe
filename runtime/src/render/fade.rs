//! Baked crossfades: two decoded frames' positions blended in the shared scratch.

/// `to[v] = from[v] + (to[v] - from[v]) * weight >> 12` per coordinate (FP12 `weight`, the incoming
/// clip's share; rounded toward minus infinity). Both frames are model-space positions within the
/// import profile's bounds, so the difference and the product fit `i32`.
pub fn blend_positions(from: &[[i16; 3]], to: &mut [[i16; 3]], weight: u16) {
    let w = weight.min(1 << 12) as i32;
    for (t, f) in to.iter_mut().zip(from) {
        for (tc, fc) in t.iter_mut().zip(f) {
            let (a, b) = (*fc as i32, *tc as i32);
            *tc = (a + (((b - a) * w) >> 12)) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_exact_and_the_middle_is_the_floor_of_the_mean() {
        let from = [[0i16, -100, 32767], [-32768, 7, 3]];
        let to = [[1000i16, 100, -32768], [32767, 8, 3]];
        for (w, want) in [(0u16, from), (4096, to), (2048, [[500, 0, -1], [-1, 7, 3]])] {
            let mut out = to;
            blend_positions(&from, &mut out, w);
            assert_eq!(out, want, "weight {w}");
        }
    }
}
