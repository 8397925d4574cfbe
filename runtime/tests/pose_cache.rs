//! The pose cache on the host (GTE model): the packed matrix format, the bulk compose against the
//! per-register path, the cache's layout and errors, and rendering from it.

use psxanim_runtime::anim::FrameSample;
use psxanim_runtime::gte::{Gte, GteModel, PackedMatrix};
use psxanim_runtime::math::{Matrix, Vec3i16, Vec3i32};
use psxanim_runtime::render::camera::placement;
use psxanim_runtime::render::pose_cache::{blend, entries_for_blob, entries_needed};
use psxanim_runtime::render::{self, bones, DrawnTriangle, Outcome, PoseCache, RenderError, Scratch, TriangleSink};
use psxanim_runtime::tables::{TableError, Tables};

mod render_support;
use render_support::{blob, camera, two_squares_blob, BoneDef, RigidClip, SQUARE};

/// Two bones (the second a child of the first) and two clips of 3 and 2 frames with other poses.
fn rigid_blob() -> Vec<u8> {
    two_squares_blob(&[
        RigidClip { frames: 3, poses: vec![(30.0, [100, -200, 0]), (0.0, [1500, 0, 0])] },
        RigidClip { frames: 2, poses: vec![(90.0, [0, 0, 0]), (-45.0, [0, 2000, 300])] },
    ])
}

fn gte() -> Gte<GteModel> {
    Gte::with_backend(GteModel::default())
}

/// A deterministic spread of matrices: rotations up to +-2.0 in FP12 (scaled bones), translations
/// over the whole `i16` range.
fn matrices(n: usize) -> Vec<Matrix> {
    let mut x = 0x2545_F491u32;
    let mut next = |range: i32| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x % (2 * range as u32 + 1)) as i32 - range
    };
    (0..n)
        .map(|_| {
            let mut r = [[0i16; 3]; 3];
            for e in r.iter_mut().flatten() {
                *e = next(8192) as i16;
            }
            let t = Vec3i32::new(next(32767), next(32767), next(32767));
            Matrix::new(r, t)
        })
        .collect()
}

#[test]
fn packed_matrices_round_trip_and_refuse_translations_past_i16() {
    for m in matrices(200) {
        assert_eq!(PackedMatrix::pack(&m).unwrap().unpack(), m);
    }
    assert_eq!(PackedMatrix::IDENTITY.unpack(), Matrix::IDENTITY);
    let mut far = Matrix::IDENTITY;
    far.translation.y = 32768;
    assert_eq!(PackedMatrix::pack(&far), None);
    far.translation.y = -32769;
    assert_eq!(PackedMatrix::pack(&far), None);
    far.translation.y = -32768;
    assert!(PackedMatrix::pack(&far).is_some());
}

#[test]
fn lerp_goes_from_a_to_b_entry_by_entry() {
    let m = matrices(2);
    let (a, b) = (PackedMatrix::pack(&m[0]).unwrap(), PackedMatrix::pack(&m[1]).unwrap());
    assert_eq!(PackedMatrix::lerp(&a, &b, 0), a);
    assert_eq!(PackedMatrix::lerp(&a, &b, 4096), b);
    assert_eq!(PackedMatrix::lerp(&a, &b, 9999), b, "weights past 1.0 are clamped");
    let mid = PackedMatrix::lerp(&a, &b, 2048).unpack();
    let floor_mid = |p: i32, q: i32| p + (((q - p) * 2048) >> 12);
    for i in 0..3 {
        for j in 0..3 {
            let (p, q) = (m[0].rotation[i][j] as i32, m[1].rotation[i][j] as i32);
            assert_eq!(mid.rotation[i][j] as i32, floor_mid(p, q), "[{i}][{j}]");
        }
    }
    let (p, q) = (m[0].translation.to_array(), m[1].translation.to_array());
    assert_eq!(mid.translation.to_array(), [0, 1, 2].map(|i| floor_mid(p[i], q[i])));
}

/// Every half-word, at the extremes of `i16` and of the weight: `p + floor((q - p) * w / 4096)`.
#[test]
fn lerp_is_the_floored_step_of_every_half_word() {
    let values: [i16; 7] = [i16::MIN, -4097, -1, 0, 1, 4096, i16::MAX];
    let mut seed = 99u32;
    for k in 0..2000 {
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed >> 8
        };
        let mut half = || if k % 2 == 0 { values[next() as usize % values.len()] } else { next() as u16 as i16 };
        let a = [0u32; 6].map(|_| (half(), half()));
        let b = [0u32; 6].map(|_| (half(), half()));
        let word = |(lo, hi): (i16, i16)| lo as u16 as u32 | (hi as u16 as u32) << 16;
        let (pa, pb) = (PackedMatrix { words: a.map(word) }, PackedMatrix { words: b.map(word) });
        let weight = [0u16, 1, 2047, 2048, 4095, 4096][k % 6];
        let step = |p: i16, q: i16| (p as i32 + (((q as i32 - p as i32) * weight as i32) >> 12)) as i16;
        let want = PackedMatrix { words: [0, 1, 2, 3, 4, 5].map(|i| word((step(a[i].0, b[i].0), step(a[i].1, b[i].1)))) };
        assert_eq!(PackedMatrix::lerp(&pa, &pb, weight), want, "{pa:?} {pb:?} {weight}");
    }
}

#[test]
fn blend_lerps_entry_by_entry_as_far_as_every_slice_goes() {
    let packed: Vec<PackedMatrix> = matrices(7).iter().map(|m| PackedMatrix::pack(m).unwrap()).collect();
    let (a, b) = (&packed[..3], &packed[3..7]);
    let mut out = vec![PackedMatrix::IDENTITY; 5];
    blend(a, b, 1000, &mut out);
    for i in 0..3 {
        assert_eq!(out[i], PackedMatrix::lerp(&a[i], &b[i], 1000));
    }
    assert_eq!(out[3..], [PackedMatrix::IDENTITY; 2]);
}

#[test]
fn the_halfway_blend_equals_the_lerp_at_one_half() {
    let mut x = 0x1234_5678u32;
    let mut word = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let edges = [0u32, 0xFFFF_FFFF, 0x8000_8000, 0x7FFF_7FFF, 0x8000_7FFF, 0x7FFF_8000, 0x0001_FFFF, 0xFFFF_0001];
    let mut pairs: Vec<(u32, u32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
    pairs.extend((0..5000).map(|_| (word(), word())));
    let (a, b): (Vec<u32>, Vec<u32>) = pairs.into_iter().unzip();
    let pack = |w: &[u32]| w.chunks_exact(6).map(|c| PackedMatrix { words: c.try_into().unwrap() }).collect::<Vec<_>>();
    let (a, b) = (pack(&a), pack(&b));
    let mut out = vec![PackedMatrix::default(); a.len()];
    blend(&a, &b, 2048, &mut out);
    for i in 0..a.len() {
        assert_eq!(out[i], PackedMatrix::lerp(&a[i], &b[i], 2048), "{:x?} {:x?}", a[i], b[i]);
    }
}

#[test]
fn compose_packed_equals_the_per_register_compose_and_transform() {
    let objects = matrices(8);
    let poses = matrices(64);
    let packed: Vec<PackedMatrix> = poses.iter().map(|m| PackedMatrix::pack(m).unwrap()).collect();
    let mut g = gte();
    for object in &objects {
        let mut object = *object;
        object.translation = Vec3i32::new(object.translation.x * 3, -object.translation.y, 20_000 + object.translation.z);
        g.set_matrix(&object);
        let mut out = vec![Matrix::IDENTITY; poses.len()];
        g.compose_packed(&packed, &mut out);
        for (p, o) in poses.iter().zip(&out) {
            let t = Vec3i16::new(p.translation.x as i16, p.translation.y as i16, p.translation.z as i16);
            let mut reference = gte();
            assert_eq!(o.rotation, reference.compose(&object, p).rotation);
            assert_eq!(o.translation, object.transform(t));
        }
    }
    // Only as many as both slices hold.
    let mut short = vec![Matrix::IDENTITY; 2];
    g.compose_packed(&packed[..1], &mut short);
    assert_eq!(short[1], Matrix::IDENTITY);
}

#[test]
fn the_cache_holds_every_clip_frame_as_model_space_matrices() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    assert_eq!(entries_needed(&t), Ok((3 + 2) * 2));
    assert_eq!(entries_for_blob(&b), 10);
    assert_eq!(entries_for_blob(&b[..10]), 0);
    let mut buffer = vec![PackedMatrix::default(); 12];
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let mut frames = 0;
    let cache = PoseCache::build(&mut gte(), &t, &mut buffer, &mut scratch, &mut || frames += 1).unwrap();
    assert_eq!(frames, 5);
    assert_eq!(cache.bytes(), 10 * 24);
    assert!(cache.belongs_to(&t));
    for (clip, frame_count) in [(0usize, 3usize), (1, 2)] {
        for frame in 0..frame_count {
            let mut samples = [Default::default(); 2];
            t.decode_pose(clip, frame, &mut samples).unwrap();
            let mut model = [Matrix::IDENTITY; 2];
            bones::bone_matrices(&mut gte(), &t, &samples, &Matrix::IDENTITY, &mut model);
            let cached: Vec<Matrix> = cache.pose(clip, frame).unwrap().iter().map(|p| p.unpack()).collect();
            assert_eq!(cached, model, "clip {clip} frame {frame}");
        }
        assert_eq!(cache.pose(clip, frame_count), Err(TableError::FrameOutOfRange { clip, frame: frame_count, frames: frame_count }));
    }
    assert_eq!(cache.pose(2, 0), Err(TableError::ClipOutOfRange { clip: 2, clips: 2 }));
}

#[test]
fn a_short_buffer_or_a_baked_blob_is_refused() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let mut buffer = vec![PackedMatrix::default(); 9];
    let r = PoseCache::build(&mut gte(), &t, &mut buffer, &mut scratch, &mut || {});
    assert_eq!(r.err(), Some(RenderError::Table(TableError::OutputTooSmall { needed: 10, len: 9 })));
    let bones = [BoneDef { parent: None, vertices: SQUARE.to_vec() }];
    let baked = blob(&bones, &[[0, 2, 1, 0]], &[[1, 2, 3]], &[], &[(SQUARE.to_vec(), false)]);
    let baked = Tables::parse(&baked).unwrap();
    assert!(matches!(entries_needed(&baked), Err(TableError::WrongStorage { .. })));
}

#[derive(Default)]
struct Collect(Vec<DrawnTriangle>);
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push(*t);
        true
    }
}

/// SXY of every vertex after rendering `sample` with or without the cache.
fn render_sxy(t: &Tables, cache: Option<&PoseCache>, sample: FrameSample) -> Result<Vec<u32>, RenderError> {
    let mut g = gte();
    camera().load(&mut g);
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let world = placement(Vec3i32::new(300, 0, 0), 0x0400);
    let r = render::render_cached(&mut g, t, cache, &camera(), &world, Some(sample), &mut scratch, &mut Collect::default(), &mut |_| {})?;
    assert!(matches!(r, Outcome::Drawn(_)), "{r:?}");
    Ok(scratch.sxy[..t.vertex_count()].to_vec())
}

#[test]
fn rendering_from_the_cache_lands_within_a_pixel_of_the_compact_path() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut buffer = vec![PackedMatrix::default(); entries_for_blob(&b)];
    let cache = PoseCache::build(&mut gte(), &t, &mut buffer, &mut Box::<Scratch>::new(Scratch::new()), &mut || {}).unwrap();
    for (clip, frame) in [(0u16, 0u16), (0, 2), (1, 1)] {
        let sample = FrameSample { clip, frame, next: frame, weight: 0 };
        let cached = render_sxy(&t, Some(&cache), sample).unwrap();
        let compact = render_sxy(&t, None, sample).unwrap();
        for (c, d) in cached.iter().zip(&compact) {
            let (cx, cy, dx, dy) = (*c as i16, (*c >> 16) as i16, *d as i16, (*d >> 16) as i16);
            assert!((cx - dx).abs() <= 1 && (cy - dy).abs() <= 1, "clip {clip} frame {frame}: {c:#x} vs {d:#x}");
        }
    }
    // Blending two frames of a constant clip changes nothing.
    let still = FrameSample { clip: 0, frame: 1, next: 1, weight: 0 };
    let blended = FrameSample { clip: 0, frame: 1, next: 2, weight: 1500 };
    assert_eq!(render_sxy(&t, Some(&cache), blended), render_sxy(&t, Some(&cache), still));
    // A frame past the clip is an error, as on the compact path.
    let past = FrameSample { clip: 1, frame: 2, next: 2, weight: 0 };
    assert_eq!(render_sxy(&t, Some(&cache), past), Err(RenderError::Table(TableError::FrameOutOfRange { clip: 1, frame: 2, frames: 2 })));
}

#[test]
fn a_cache_built_from_another_blob_is_refused() {
    let b = rigid_blob();
    let copy = b.clone();
    let (t, other) = (Tables::parse(&b).unwrap(), Tables::parse(&copy).unwrap());
    let mut buffer = vec![PackedMatrix::default(); entries_for_blob(&b)];
    let cache = PoseCache::build(&mut gte(), &t, &mut buffer, &mut Box::<Scratch>::new(Scratch::new()), &mut || {}).unwrap();
    assert!(!cache.belongs_to(&other));
    let sample = FrameSample { clip: 0, frame: 0, next: 0, weight: 0 };
    assert_eq!(render_sxy(&other, Some(&cache), sample), Err(RenderError::PoseCacheMismatch));
}
