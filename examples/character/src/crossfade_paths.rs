//! Every path of the crossfade in the GTE's form (`bones::crossfade_q14`; on the console its asm loop
//! and the Rust steps it hands bones to), on hand-built pose pairs: near rotations, equal ones,
//! opposite hemispheres, arcs past 30 and 60 degrees, differences and midpoints past 16 bits, lengths
//! outside the series' window or the halving's root table, results past +-1.0, equal and distant
//! translations. Per weight one hash of every result,
//! which the host's run of this file checks word for word.

use psxanim_runtime::render::bones::{crossfade_q14, PoseQ14};

/// `(from, to)` rotations (Q14 x, y, z, w) and translations, the pad of both set (the blend's is 0).
type Case = ([i16; 4], [i16; 3], [i16; 4], [i16; 3]);

/// Pairs the blend keeps in the GTE's form, then pairs it cannot take (each ends a run of bones).
pub const CASES: [Case; 16] = [
    // 10 and 25 degrees about nearby axes; the translation moved.
    ([1428, 0, 0, 16322], [10, -20, 30], [3397, 1019, 0, 15996], [40, -20, 25]),
    // Equal rotations: translations moved, then equal too.
    ([1428, 0, 0, 16322], [10, -20, 30], [1428, 0, 0, 16322], [12, 20, 30]),
    ([0, 0, 16322, 1428], [7, 8, 9], [0, 0, 16322, 1428], [7, 8, 9]),
    // The incoming rotation in the other hemisphere (the short way is through -to).
    ([1428, 0, 0, 16322], [0, 0, 0], [-3397, -1019, 0, -15996], [0, 0, 0]),
    ([0, 0, 16322, 1428], [0, 0, 0], [0, 1629, 16287, -715], [0, 0, 0]),
    // Arcs of 40 and 105 degrees (halved first), the second also across hemispheres.
    ([0, -715, 0, 16368], [0, 0, 0], [0, 4831, 966, 15626], [0, 0, 0]),
    ([0, -715, 0, 16368], [0, 0, 0], [-3606, -12022, 0, -10531], [0, 0, 0]),
    // A translation difference past i16.
    ([1428, 0, 0, 16322], [-30000, 100, 32767], [3397, 1019, 0, 15996], [30000, -100, -32768]),
    // Not unit: a component difference past i16 with the dot above 15 degrees' cosine, then a
    // length outside the series' window, then components of -1.0 and beyond.
    ([-20000, 32767, 0, 0], [0, 0, 0], [20000, 32767, 0, 0], [0, 0, 0]),
    ([0, 0, 1000, 16900], [0, 0, 0], [0, 0, 1200, 16900], [0, 0, 0]),
    ([-32768, 0, 0, 0], [0, 0, 0], [-32768, 1, 0, 0], [0, 0, 0]),
    // Past 30 degrees and not unit: a midpoint component past i16, a midpoint shorter than 1.0,
    // a midpoint of exactly 1.0 (its reciprocal 2^16).
    ([16384, 8000, 0, 0], [0, 0, 0], [16384, -12000, 0, 0], [0, 0, 0]),
    ([8000, 0, 0, 0], [0, 0, 0], [0, 8000, 0, 0], [0, 0, 0]),
    ([8192, 8192, 0, 0], [0, 0, 0], [8192, -8192, 0, 0], [0, 0, 0]),
    // Results of 16,385 (x, then w): past the form.
    ([16788, 0, 0, 0], [0, 0, 0], [16788, 2, 0, 0], [0, 0, 0]),
    ([0, 0, 0, 16788], [0, 0, 0], [2, 0, 0, 16788], [0, 0, 0]),
];

/// Weights blended (FP12; past 4096 the blend takes 4096).
pub const WEIGHTS: [u16; 7] = [0, 1, 1000, 2048, 4095, 4096, 6000];
pub const WORDS: usize = WEIGHTS.len();

fn pose(rotation: [i16; 4], translation: [i16; 3]) -> PoseQ14 {
    PoseQ14 { rotation, translation, pad: 0x5A5A }
}

/// Per weight: every case blended alone, then all of them as one run (which stops at the first
/// case the form cannot take), each result's words and whether the blend kept the form hashed.
pub fn words(push: &mut dyn FnMut(u32)) {
    for weight in WEIGHTS {
        let mut h = 0x811C_9DC5u32;
        let mut mix = |p: &PoseQ14, kept: bool| {
            let r = p.rotation.map(|c| c as u16 as u32);
            let t = p.translation.map(|c| c as u16 as u32);
            for w in [r[0] | r[1] << 16, r[2] | r[3] << 16, t[0] | t[1] << 16, t[2] | (p.pad as u16 as u32) << 16, kept as u32] {
                h = (h ^ w).wrapping_mul(0x0100_0193);
            }
        };
        let from = CASES.map(|(r, t, _, _)| pose(r, t));
        let mut to = CASES.map(|(_, _, r, t)| pose(r, t));
        for (f, t) in from.iter().zip(&mut to) {
            let mut one = [*t];
            let kept = crossfade_q14(core::slice::from_ref(f), &mut one, weight);
            mix(&one[0], kept);
        }
        let kept = crossfade_q14(&from, &mut to, weight);
        for t in &to {
            mix(t, kept);
        }
        push(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases reach every branch of the console's loop (the model's steps recomputed here).
    #[test]
    fn the_cases_take_every_path() {
        let cos15 = 259_288_740i64; // NLERP_MIN_COS_Q28
        let (mut equal, mut flipped, mut far, mut wide, mut window, mut moved, mut far_moved) = (0, 0, 0, 0, 0, 0, 0);
        for (ra, ta, rb, tb) in CASES {
            let (a, mut b) = (ra.map(i64::from), rb.map(i64::from));
            let dot: i64 = (0..4).map(|i| a[i] * b[i]).sum();
            if dot < 0 {
                flipped += 1;
                b = b.map(|c| -c);
            }
            if ra == rb {
                equal += 1;
            } else if dot.abs() < cos15 {
                far += 1;
            } else if (0..3).any(|i| !(-32768..=32767).contains(&(b[i] - a[i]))) {
                wide += 1;
            } else {
                let q = (0..4).map(|i| a[i] + (((b[i] - a[i]) * 2048) >> 12));
                window += (((1i64 << 28) - q.map(|c| c * c).sum::<i64>()) >> 12).abs().gt(&3277) as u32;
            }
            moved += (ta != tb) as u32;
            far_moved += (0..3).any(|i| (tb[i] as i32 - ta[i] as i32).abs() > 32767) as u32;
        }
        assert_eq!((equal, flipped, far, wide, window, moved, far_moved), (2, 2, 5, 1, 2, 3, 1));
        // Alone, each case but the last two keeps the form; as one run, the blend stops at the first
        // of those, every earlier bone blended as alone.
        for weight in WEIGHTS {
            let from = CASES.map(|(r, t, _, _)| pose(r, t));
            let mut run = CASES.map(|(_, _, r, t)| pose(r, t));
            let alone: Vec<(PoseQ14, bool)> = from
                .iter()
                .zip(run)
                .map(|(f, t)| {
                    let mut one = [t];
                    let kept = crossfade_q14(core::slice::from_ref(f), &mut one, weight);
                    (one[0], kept)
                })
                .collect();
            assert_eq!(alone.iter().map(|a| a.1).collect::<Vec<_>>(), (0..CASES.len()).map(|i| i < CASES.len() - 2).collect::<Vec<_>>());
            assert!(!crossfade_q14(&from, &mut run, weight));
            assert!(run[..CASES.len() - 2].iter().zip(&alone).all(|(r, a)| *r == a.0 && r.pad == 0), "{weight}");
        }
    }
}
