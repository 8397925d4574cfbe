//! Unit tests of the high-level GTE API on the model (the register-level model itself is checked
//! against the ground-truth vectors in `tests/gte_vectors.rs`).

extern crate std;

use super::*;
use crate::math::{Matrix, Vec3i16, Vec3i32, IDENTITY_ROTATION};

fn camera(gte: &mut Gte<GteModel>) {
    gte.set_matrix(&Matrix::new(IDENTITY_ROTATION, Vec3i32::new(0, 0, 1000)));
    gte.set_screen(160, 120, 500);
    gte.set_depth_cue(-100, 0x0100_0000);
    gte.set_ot_scale(4096 / 3, 4096 / 4);
}

#[test]
fn rtps_projects_with_h_over_z() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let p = gte.rtps(Vec3i16::new(100, -50, 0));
    assert_eq!(p, Projected { xy: ScreenXY::new(210, 95), z: 1000 });
    assert_eq!(gte.flag(), 0);
    // Depth cue: IR0 = (DQB + DQA * H/SZ) >> 12 = (0x1000000 - 100 * 0x8000) >> 12 = 3296.
    assert_eq!(gte.ir0(), 3296);
    let p = gte.rtps(Vec3i16::new(-300, 200, 1000));
    assert_eq!(p, Projected { xy: ScreenXY::new(85, 170), z: 2000 });
}

#[test]
fn rtps_flags_a_vertex_behind_the_divide_limit() {
    let mut gte = Gte::new();
    camera(&mut gte);
    // SZ = 200 < H / 2: the divide overflows, the screen position saturates.
    let p = gte.rtps(Vec3i16::new(1000, 0, -800));
    assert_eq!(p.z, 200);
    assert_eq!(p.xy.x, 0x3FF);
    let flag = gte.flag();
    assert_ne!(flag & (1 << 17), 0, "divide overflow, FLAG {flag:#x}");
    assert_ne!(flag & (1 << 14), 0, "SX2 saturated, FLAG {flag:#x}");
    assert_ne!(flag & (1 << 31), 0, "error summary, FLAG {flag:#x}");
}

#[test]
fn rtpt_equals_three_rtps_and_feeds_nclip_and_avsz3() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let tri = [Vec3i16::new(0, 0, 0), Vec3i16::new(200, 0, 100), Vec3i16::new(0, 200, -100)];
    let three = tri.map(|v| gte.rtps(v));
    let p = gte.rtpt(&tri);
    assert_eq!(p, three);
    // Screen y grows downwards: (0,0) -> (+x) -> (+y) is clockwise on screen, NCLIP > 0.
    let area = gte.nclip();
    assert!(area > 0, "nclip {area}");
    let otz = gte.avsz3();
    let sum = three.iter().map(|p| p.z as i32).sum::<i32>();
    assert_eq!(otz as i32, ((4096 / 3) * sum) >> 12);

    // Reversed winding, loaded directly: the sign flips, the magnitude stays.
    gte.set_screen_xy(&[three[0].xy, three[2].xy, three[1].xy]);
    assert_eq!(gte.nclip(), -area);
    gte.set_screen_z(&[4000, 1000, 2000, 3000]);
    assert_eq!(gte.avsz4(), ((1024 * 10000) >> 12) as u16);
}

#[test]
fn unr_divide_stays_within_two_of_exact_division() {
    // The hardware's reciprocal is an approximation of (H * 0x20000 / SZ + 1) / 2 (psx-spx); over these
    // samples it is never more than 2 off, and often exact.
    let mut worst = 0i64;
    for sz in 1u16..=0xFFFF {
        for h in [1u16, 2, 100, 255, 256, 500, 1000, 4096, 0x7FFF, 0xFFFF] {
            let exact = (h as u64 * 0x20000 / sz as u64).div_ceil(2).min(0x1FFFF) as i64;
            match unr_divide(h, sz) {
                Some(q) => worst = worst.max((q as i64 - exact).abs()),
                None => assert!(h as u32 >= 2 * sz as u32, "h={h} sz={sz}"),
            }
        }
    }
    assert_eq!(worst, 2, "UNR divide is {worst} off exact division");
    assert_eq!(unr_divide(500, 1000), Some(0x8000));
    assert_eq!(unr_divide(1, 0), None);
    assert_eq!(unr_divide(100, 50), None);
}

#[test]
fn register_read_back_rules() {
    let mut gte = Gte::new();
    gte.write_data::<{ data::IRGB }>(0x7FFF); // IR1..3 = 31 << 7
    assert_eq!(gte.ir123(), Vec3i16::new(0xF80, 0xF80, 0xF80));
    assert_eq!(gte.read_data::<{ data::ORGB }>(), 0x7FFF);
    gte.write_data::<{ data::LZCS }>(0xFFF0_0000);
    assert_eq!(gte.read_data::<{ data::LZCR }>(), 12);
    gte.write_ctrl::<{ ctrl::H }>(0xFFFF);
    assert_eq!(gte.read_ctrl::<{ ctrl::H }>(), 0xFFFF_FFFF); // the sign-extension bug
    gte.write_ctrl::<{ ctrl::FLAG }>(0x0000_2FFF);
    assert_eq!(gte.flag(), 0x8000_2000);
    gte.write_data::<{ data::SXYP }>(0x0001_0002);
    assert_eq!(gte.read_data::<{ data::SXY2 }>(), 0x0001_0002);
    assert_eq!(gte.read_data::<{ data::SXYP }>(), 0x0001_0002);
}

#[test]
fn compose_leaves_the_parent_loaded_for_projection() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let parent = Matrix::new([[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]], Vec3i32::new(10, 20, 1000));
    let child = Matrix::new([[4096, 0, 0], [0, 0, -4096], [0, 4096, 0]], Vec3i32::new(100, 0, 0));
    let m = gte.compose(&parent, &child);
    assert_eq!(m, parent.mul(&child));
    assert_eq!(m.rotation, [[0, 0, 4096], [4096, 0, 0], [0, 4096, 0]]);
    assert_eq!(m.translation, Vec3i32::new(10, 120, 1000));
    assert_eq!(gte.backend().read_ctrl(ctrl::RT11RT12), 0xF000_0000);
}

#[test]
fn set_rotation_packs_rows_like_rt11_to_rt33() {
    let mut gte = Gte::new();
    gte.set_rotation(&[[1, 2, 3], [4, 5, 6], [7, 8, -9]]);
    let b = gte.backend();
    let regs = [0, 1, 2, 3, 4].map(|r| b.read_ctrl(r));
    assert_eq!(regs, [0x0002_0001, 0x0004_0003, 0x0006_0005, 0x0008_0007, 0xFFFF_FFF7]);
}

#[test]
fn light_commands_shade_by_normal_and_color() {
    let mut gte = Gte::new();
    // One light along +Z, white; no background; far color blue.
    gte.set_light_matrix(&[[0, 0, 4096], [0, 0, 0], [0, 0, 0]]);
    gte.set_color_matrix(&[[4096, 0, 0], [4096, 0, 0], [4096, 0, 0]]);
    gte.set_back_color(Vec3i32::ZERO);
    gte.set_far_color(Vec3i32::new(0, 0, 0xFF0));
    gte.set_rgbc(0x3C20_4080); // code 0x3C, B 0x20, G 0x40, R 0x80
    let facing = Vec3i16::new(0, 0, 4096);
    let half = Vec3i16::new(0, 2896, 2896); // 45 degrees off the light
    let away = Vec3i16::new(0, 0, -4096);
    assert_eq!(gte.ncs(facing), 0x3CFF_FFFF); // 1.0 light saturates every channel
    assert_eq!(gte.nccs(facing), 0x3C20_4080); // RGBC * 1.0
    assert_eq!(gte.nccs(half), 0x3C16_2D5A); // RGBC * 0.707, truncated
    assert_eq!(gte.nccs(away), 0x3C00_0000); // lm=1 clamps the negative light to 0
    gte.write_data::<{ data::IR0 }>(0x1000); // fully fogged
    assert_eq!(gte.ncds(facing), 0x3CFF_0000);
    gte.write_data::<{ data::IR0 }>(0);
    assert_eq!(gte.ncds(facing), 0x3C20_4080);
}

#[test]
fn any_register_contents_and_any_command_word_run_without_panicking() {
    // Debug builds check arithmetic overflow, so this covers every intermediate of the model.
    let mut x = 0x9E37_79B9u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let edges = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF];
    for k in 0..50_000 {
        let mut m = GteModel::new();
        for reg in 0..32 {
            let pick = |v: u32| if v.is_multiple_of(4) { edges[(v >> 2) as usize % edges.len()] } else { v };
            m.write_ctrl(reg, pick(next()));
            m.write_data(reg, pick(next()));
        }
        // Every opcode with random fields, and now and then a fully random word.
        let word = if k % 8 == 0 { next() } else { (next() & 0x01FF_FFC0) | (k as u32 & 0x3F) };
        m.execute(word);
        for reg in 0..32 {
            let _ = (m.read_data(reg), m.read_ctrl(reg));
        }
    }
}

/// Vertex words as the tables hold them (`x | y << 16`, `z | 0 << 16`), spread over a cube around the
/// camera's focus; `seed` varies them.
fn vertex_words(count: usize, seed: u32) -> std::vec::Vec<u32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state % 1601) as i32 - 800
    };
    (0..count).flat_map(|_| [pack(next() as i16, next() as i16), next() as i16 as u16 as u32]).collect()
}

#[test]
fn rtpt_words_equals_rtpt_vertex_by_vertex() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let words = vertex_words(10, 7);
    let (mut sxy, mut sz) = ([0u32; 10], [0u32; 10]);
    // Nine vertices go (three whole triples): the tenth is left to the caller.
    assert_eq!(gte.backend_mut().rtpt_words(&words, &mut sxy, &mut sz), 9);
    for t in 0..3 {
        let v = [0, 1, 2].map(|k| {
            let i = 3 * t + k;
            Vec3i16::new(words[2 * i] as i16, (words[2 * i] >> 16) as i16, words[2 * i + 1] as i16)
        });
        for (k, p) in gte.rtpt(&v).iter().enumerate() {
            assert_eq!((sxy[3 * t + k], sz[3 * t + k]), (p.xy.to_word(), u32::from(p.z)), "vertex {}", 3 * t + k);
        }
    }
    assert_eq!((sxy[9], sz[9]), (0, 0), "nothing written past the last triple");
    // The shortest slice bounds the count.
    assert_eq!(gte.backend_mut().rtpt_words(&words, &mut sxy[..5], &mut sz), 3);
    assert_eq!(gte.backend_mut().rtpt_words(&words[..5], &mut sxy, &mut sz), 0);
}

#[test]
fn indexed_nclip_and_avsz3_equal_the_register_path() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let words = vertex_words(12, 3);
    let (mut sxy, mut sz) = ([0u32; 12], [0u32; 12]);
    gte.backend_mut().rtpt_words(&words, &mut sxy, &mut sz);
    for v in [[0usize, 5, 11], [3, 2, 7], [9, 9, 1], [11, 0, 4]] {
        // SAFETY: every index is below 12.
        let area = unsafe { gte.backend_mut().nclip_indexed(&sxy, v) };
        let held = unsafe { gte.backend_mut().avsz3_indexed(&sz, v) };
        assert_eq!(held.sxy, v.map(|i| sxy[i]));
        assert_eq!(held.sz, v.map(|i| sz[i]));
        gte.set_screen_xy(&v.map(|i| ScreenXY::from_word(sxy[i])));
        assert_eq!(gte.nclip(), area, "triangle {v:?}");
        gte.set_screen_z(&[0, sz[v[0]] as u16, sz[v[1]] as u16, sz[v[2]] as u16]);
        assert_eq!(u32::from(gte.avsz3()), held.otz, "triangle {v:?}");
    }
}

#[test]
fn rtpt_positions_equals_rtpt_words_on_the_packed_positions() {
    let mut gte = Gte::new();
    camera(&mut gte);
    let words = vertex_words(7, 11);
    let positions: std::vec::Vec<[i16; 3]> =
        words.chunks_exact(2).map(|w| [w[0] as i16, (w[0] >> 16) as i16, w[1] as i16]).collect();
    let (mut a, mut b) = (([0u32; 7], [0u32; 7]), ([0u32; 7], [0u32; 7]));
    assert_eq!(gte.backend_mut().rtpt_positions(&positions, &mut a.0, &mut a.1), 6);
    assert_eq!(gte.backend_mut().rtpt_words(&words, &mut b.0, &mut b.1), 6);
    assert_eq!(a, b);
    assert_ne!(a.0[..6], [0; 6]);
}

#[test]
fn rtps_words_projects_like_rtps() {
    let mut gte = Gte::new();
    camera(&mut gte);
    gte.set_matrix(&Matrix::new([[4096, 0, 0], [0, 3000, -2000], [0, 2000, 3000]], Vec3i32::new(-300, 120, 4000)));
    for v in [Vec3i16::new(0, 0, 0), Vec3i16::new(-700, 350, 1200), Vec3i16::new(i16::MIN, i16::MAX, -1)] {
        let words = gte.rtps_words(v.x as u16 as u32 | (v.y as u16 as u32) << 16, v.z as u16 as u32);
        assert_eq!(words, gte.rtps(v), "{v:?}");
    }
}

/// `Cop2::rtpt_nct_range` over ranges of 3 to 10 vertices gives each vertex RTPS's SXY and SZ and,
/// without fog, NCS's colour of its normal (a range's one leftover vertex goes alone, two go with the
/// last three again: the same results); with fog NCDS's colour under the depth cue of its group's
/// last vertex, the groups threes from the range's start and its last three for a remainder.
#[test]
fn rtpt_nct_range_lights_every_vertex_as_one_at_a_time() {
    let mut gte = Gte::new();
    camera(&mut gte);
    gte.set_light_matrix(&[[-2365, -2365, -2365], [0, 4096, 0], [1000, -3000, 2000]]);
    gte.set_color_matrix(&[[1600, 800, 0], [2400, 0, 400], [3200, 1200, 800]]);
    gte.set_back_color(Vec3i32::new(640, 960, 1280));
    gte.set_far_color(Vec3i32::new(256, 384, 1024));
    for count in 3..=10usize {
        // Packed normals: x | y words, each z in the high half of its position's VZ word.
        let normals: std::vec::Vec<[i16; 3]> = (0..count).map(|i| [[2365, -2365, 2365], [0, 0, -4096], [-4096, 0, 0], [1448, 2896, -2508]][i % 4]).collect();
        let mut words = vertex_words(count, count as u32);
        for (v, n) in normals.iter().enumerate() {
            words[2 * v + 1] |= (n[2] as u16 as u32) << 16;
        }
        let xy: std::vec::Vec<u32> = normals.iter().map(|n| pack(n[0], n[1])).collect();
        for fog in [false, true] {
            gte.set_rgbc(if fog { 0x0080_8080 } else { 0 });
            let (mut sxy, mut sz, mut rgb) = ([0u32; 10], [0u32; 10], [0u32; 10]);
            assert_eq!(gte.backend_mut().rtpt_nct_range(&words, &xy, &mut sxy[..count], &mut sz[..count], &mut rgb[..count], fog), count);
            let position = |v: usize| Vec3i16::new(words[2 * v] as i16, (words[2 * v] >> 16) as i16, words[2 * v + 1] as i16);
            for v in 0..count {
                let p = gte.rtps(position(v));
                assert_eq!((sxy[v], sz[v]), (p.xy.to_word(), u32::from(p.z)), "{count} vertices, vertex {v}");
                let normal = Vec3i16::new(normals[v][0], normals[v][1], normals[v][2]);
                let colour = match fog {
                    false => gte.ncs(normal),
                    true => {
                        let last = if count % 3 != 0 && v + 3 >= count { count - 1 } else { v / 3 * 3 + 2 };
                        gte.rtps(position(last));
                        gte.ncds(normal)
                    }
                };
                assert_eq!(rgb[v], colour, "{count} vertices, vertex {v}, fog {fog}");
            }
        }
    }
}
