//! The renderer's stages on the host (GTE model), on small hand-built blobs whose every number is
//! known: projection against an independent f64 projection, back faces, culling before any decoding,
//! baked frames (deltas, escapes, raw), draw order, and corrupted blobs.

use psxanim_runtime::anim::FrameSample;
use psxanim_runtime::gte::{Gte, GteModel, ScreenXY};
use psxanim_runtime::math::{Matrix, Vec3i32};
use psxanim_runtime::render::camera::placement;
use psxanim_runtime::render::triangles::sort_draw_order;
use psxanim_runtime::render::{self, DrawnTriangle, Outcome, RenderError, Scratch, Stage, TriangleSink};
use psxanim_runtime::tables::{Tables, TableError};

mod render_support;
use render_support::{blob, camera, squares_blob, two_squares_blob, BoneDef, RigidClip, SQUARE};

// ---- the test character: two bones, a square facing the camera on each, one reversed triangle ----

fn rigid_blob() -> Vec<u8> {
    two_squares_blob(&[
        RigidClip { frames: 3, poses: vec![(0.0, [0, 0, 0]), (0.0, [1500, 0, 0])] },
        RigidClip { frames: 2, poses: vec![(90.0, [0, 0, 0]), (0.0, [0, 2000, 0])] },
    ])
}

#[derive(Default)]
struct Collect(Vec<DrawnTriangle>);
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push(*t);
        true
    }
}

fn gte() -> Gte<GteModel> {
    let mut g = Gte::with_backend(GteModel::default());
    camera().load(&mut g);
    g
}

fn sample(clip: u16, frame: u16) -> Option<FrameSample> {
    Some(FrameSample { clip, frame, next: frame, weight: 0 })
}

fn run(t: &Tables, world: &Matrix, s: Option<FrameSample>, scratch: &mut Scratch) -> (Result<Outcome, RenderError>, Vec<DrawnTriangle>, Vec<Stage>) {
    let mut sink = Collect::default();
    let mut stages = Vec::new();
    let r = render::render(&mut gte(), t, &camera(), world, s, scratch, &mut sink, &mut |st| stages.push(st));
    (r, sink.0, stages)
}

/// Independent projection: camera space = world (identity rotation) + (0, 0, 8000).
fn expected_screen(p: [f64; 3]) -> (f64, f64) {
    let z = p[2] + 8000.0;
    (160.0 + p[0] * 300.0 / z, 120.0 + p[1] * 300.0 / z)
}

#[test]
fn rigid_vertices_land_where_an_f64_projection_puts_them() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    // Clip 1: the root turned 90 degrees about Y (the square edge-on), bone 1 moved 2000 down in the
    // root's space and not turned back (its parent turned it).
    let (r, _, stages) = run(&t, &Matrix::IDENTITY, sample(1, 0), &mut scratch);
    assert!(matches!(r, Ok(Outcome::Drawn(_))), "{r:?}");
    assert_eq!(stages, [Stage::Bounds, Stage::Decode, Stage::Pose, Stage::Project, Stage::Triangles]);
    let turn = |v: [i16; 3]| [v[2] as f64, v[1] as f64, -(v[0] as f64)]; // 90 degrees about Y
    for (i, v) in SQUARE.iter().enumerate() {
        for (k, offset) in [(0usize, 0.0), (4, 2000.0)] {
            let p = turn(*v);
            let (ex, ey) = expected_screen([p[0], p[1] + offset, p[2]]);
            let got = ScreenXY::from_word(scratch.sxy[i + k]);
            assert!((got.x as f64 - ex).abs() <= 1.0 && (got.y as f64 - ey).abs() <= 1.0, "vertex {}: {got:?} vs ({ex}, {ey})", i + k);
        }
    }
}

#[test]
fn back_faces_are_culled_and_front_faces_carry_depth_and_colour() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let (r, drawn, _) = run(&t, &Matrix::IDENTITY, sample(0, 0), &mut scratch);
    let Ok(Outcome::Drawn(stats)) = r else { panic!("{r:?}") };
    assert_eq!((stats.drawn, stats.back_facing, stats.rejected), (3, 1, 0));
    assert_eq!(drawn.iter().map(|d| d.index).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(drawn[2].colour, [10, 200, 10]);
    // Flat squares at depth 8000: OTZ = 100 * (3 * 8000) >> 12.
    assert!(drawn.iter().all(|d| d.z == [8000; 3] && d.otz as u32 == (100 * 24000) >> 12), "{drawn:?}");
    // Bone 1 moved 1500 to the right in clip 0: its square projects 1500 * 300 / 8000 px further.
    let x = |w: u32| ScreenXY::from_word(w).x as i32;
    assert_eq!(x(scratch.sxy[4]) - x(scratch.sxy[0]), (1500 * 300) / 8000);
}

#[test]
fn an_off_screen_character_is_culled_before_decoding_anything() {
    // A frame past the clip's end: decoding must fail, and only an on-screen render decodes.
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let frames = t.clip(0).unwrap().frame_count;
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    for world in [placement(Vec3i32::new(0, 0, -20000), 0), placement(Vec3i32::new(90000, 0, 0), 0), placement(Vec3i32::new(0, -90000, 0), 0)] {
        let (r, drawn, stages) = run(&t, &world, sample(0, frames), &mut scratch);
        assert_eq!(r, Ok(Outcome::Culled));
        assert!(drawn.is_empty());
        assert_eq!(stages, [Stage::Bounds], "no pose stage for a culled character");
    }
    let (r, _, _) = run(&t, &Matrix::IDENTITY, sample(0, frames), &mut scratch);
    assert!(matches!(r, Err(RenderError::Table(TableError::FrameOutOfRange { .. }))), "{r:?}");
}

#[test]
fn a_box_straddling_the_screen_edge_is_kept() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    // The box spans +-4000 on every axis, so its far face is at depth 12000, where the right screen
    // edge is at camera x = 160 * 12000 / 300 = 6400.
    let (r, _, _) = run(&t, &placement(Vec3i32::new(6400 + 3000, 0, 0), 0), sample(0, 0), &mut scratch);
    assert!(matches!(r, Ok(Outcome::Drawn(_))), "{r:?}");
    // One pixel beyond the edge (40 units at that depth): the test reads the GTE's projection of the
    // corners, floor(x) up to its division's rounding, so its edge is exact to a pixel.
    let (r, _, _) = run(&t, &placement(Vec3i32::new(6400 + 4040, 0, 0), 0), sample(0, 0), &mut scratch);
    assert_eq!(r, Ok(Outcome::Culled));
}

#[test]
fn baked_frames_decode_deltas_escapes_and_raw_then_project_with_one_matrix() {
    let bind = SQUARE.to_vec();
    let moved: Vec<[i16; 3]> = bind.iter().map(|v| [v[0] + 160, v[1] - 32, v[2]]).collect(); // deltas
    let far: Vec<[i16; 3]> = bind.iter().map(|v| [v[0] + 3001, v[1], v[2] + 7]).collect(); // escapes
    let bones = [BoneDef { parent: None, vertices: bind.clone() }];
    let frames = vec![(moved.clone(), false), (far.clone(), false), (far.clone(), true)];
    let b = blob(&bones, &[[0, 2, 1, 0], [1, 2, 3, 0]], &[[1, 2, 3]], &[], &frames);
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    for (frame, expected) in [(0u16, &moved), (1, &far), (2, &far)] {
        let (r, drawn, stages) = run(&t, &Matrix::IDENTITY, sample(0, frame), &mut scratch);
        assert!(matches!(r, Ok(Outcome::Drawn(_))), "{r:?}");
        assert_eq!(stages, [Stage::Bounds, Stage::Decode, Stage::Project, Stage::Triangles]);
        assert_eq!(&scratch.positions[..4], &expected[..], "frame {frame}");
        assert_eq!(drawn.len(), 2);
        // The same positions through RTPS one by one give the same screen words.
        let mut g = gte();
        g.set_matrix(&camera().view);
        for (i, p) in expected.iter().enumerate() {
            let one = g.rtps(psxanim_runtime::math::Vec3i16::from_array(*p));
            assert_eq!(ScreenXY::from_word(scratch.sxy[i]), one.xy, "frame {frame} vertex {i}");
            assert_eq!(scratch.sz[i], u32::from(one.z));
        }
    }
    // The payload of frame 1 holds escapes: longer than 1 + 12 delta bytes.
    let table = t.clip(0).unwrap().data_offset as usize;
    let at = |k: usize| u32::from_le_bytes(b[table + 4 * k..table + 4 * k + 4].try_into().unwrap()) as usize;
    assert!(at(2) - at(1) > 1 + 12);
}

#[test]
fn draw_order_is_far_first_and_last_added_first_within_a_depth() {
    let mut list: Vec<(u32, u16)> = vec![(0, 5), (1, 9), (2, 5), (3, 1), (4, 9)];
    sort_draw_order(&mut list, |d| *d);
    assert_eq!(list.iter().map(|e| e.0).collect::<Vec<_>>(), [4, 1, 2, 0, 3]);
}

#[test]
fn too_many_vertices_for_the_scratch_is_an_error_not_a_panic() {
    let many: Vec<[i16; 3]> = (0..600).map(|i| [i as i16, 0, 0]).collect();
    let bones = [BoneDef { parent: None, vertices: many }];
    let clips = [RigidClip { frames: 1, poses: vec![(0.0, [0, 0, 0])] }];
    let b = blob(&bones, &[[0, 1, 2, 0]], &[[1, 1, 1]], &clips, &[]);
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let (r, _, _) = run(&t, &Matrix::IDENTITY, sample(0, 0), &mut scratch);
    assert_eq!(r, Err(RenderError::TooManyVertices { vertices: 600, max: 512 }));
}

/// Every single-byte corruption of both blobs either fails to parse or renders (or errors) without
/// panicking, for every clip and frame.
#[test]
fn corrupted_blobs_never_panic() {
    let bind = SQUARE.to_vec();
    let baked = blob(&[BoneDef { parent: None, vertices: bind.clone() }], &[[0, 1, 2, 0]], &[[1, 2, 3]], &[], &[(bind.clone(), false), (bind, true)]);
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    for original in [rigid_blob(), baked] {
        for at in 0..original.len() {
            for value in [0x00, 0xFF, 0x80, original[at] ^ 0x01] {
                let mut b = original.clone();
                b[at] = value;
                let Ok(t) = Tables::parse(&b) else { continue };
                for clip in 0..t.clip_count().min(4) {
                    let frames = t.clip(clip).map(|c| c.frame_count).unwrap_or(0).min(8);
                    for frame in 0..frames {
                        let _ = run(&t, &Matrix::IDENTITY, sample(clip as u16, frame), &mut scratch);
                    }
                }
            }
        }
    }
}

/// A blob that sits at an odd address is read byte by byte, with the same results.
#[test]
fn a_misaligned_blob_renders_the_same() {
    let b = rigid_blob();
    let mut shifted = vec![0u8; b.len() + 1];
    shifted[1..].copy_from_slice(&b);
    let (aligned, odd) = (Tables::parse(&b).unwrap(), Tables::parse(&shifted[1..]).unwrap());
    let (mut s1, mut s2) = (Box::<Scratch>::new(Scratch::new()), Box::<Scratch>::new(Scratch::new()));
    let (r1, d1, _) = run(&aligned, &Matrix::IDENTITY, sample(0, 1), &mut s1);
    let (r2, d2, _) = run(&odd, &Matrix::IDENTITY, sample(0, 1), &mut s2);
    assert!(matches!(r1, Ok(Outcome::Drawn(_))));
    assert_eq!((r1, d1), (r2, d2));
    assert_eq!(s1.sxy[..8], s2.sxy[..8]);
}

/// The console's fast path: packets written and linked by `Cop2::flat_packets` into an ordering
/// table of `DEPTHS` entries, each starting as an end marker.
struct Packets {
    arena: Vec<u32>,
    table: Vec<u32>,
    committed: usize,
}
const DEPTHS: usize = 64;
const END: u32 = 0x00FF_FFFF;
impl Packets {
    fn new(room: usize) -> Self {
        Packets { arena: vec![0; 5 * room], table: vec![END; DEPTHS], committed: 0 }
    }
    /// The packets as the DMA sends them: deepest entry first, each entry's chain in link order;
    /// the header word becomes the depth it was found at.
    fn walk(&self) -> Vec<Vec<u32>> {
        let base = self.arena.as_ptr() as usize as u32;
        let mut sent = Vec::new();
        for z in (0..DEPTHS).rev() {
            let mut link = self.table[z];
            while link != END {
                let at = (link.wrapping_sub(base) & END) as usize / 4;
                let len = 1 + (self.arena[at] >> 24) as usize;
                assert!(at + len <= self.committed, "link into a packet not committed");
                let p = &self.arena[at..at + len];
                sent.push([&[z as u32], &p[1..]].concat());
                link = p[0] & END;
            }
        }
        sent
    }
}
impl TriangleSink for Packets {
    fn add(&mut self, _: &DrawnTriangle) -> bool {
        panic!("a sink with a packet list takes no triangle through `add`")
    }
    fn flat_packet_list(&mut self) -> Option<psxanim_runtime::gte::PacketList<'_>> {
        Some(psxanim_runtime::gte::PacketList { arena: &mut self.arena, table: &mut self.table, max_depth: DEPTHS as u32 - 2 })
    }
    fn commit_flat_packets(&mut self, words: usize) {
        self.committed += words;
    }
}

/// `Collect` that refuses triangles past `room`, as a full draw list does.
struct Limited(Vec<DrawnTriangle>, usize);
impl TriangleSink for Limited {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        if self.0.len() == self.1 {
            return false;
        }
        self.0.push(*t);
        true
    }
}

/// The flat packets hold exactly the triangles `add` receives, in the same order, with the same
/// counts: near ones, oversized ones and the ones past a full arena rejected alike.
#[test]
fn flat_packets_carry_the_triangles_add_would_get() {
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let places = [
        Matrix::IDENTITY,
        placement(Vec3i32::new(300, -200, 0), 0x1800),
        // Close enough that the squares straddle the near plane or outgrow the GPU's limits.
        placement(Vec3i32::new(0, 0, -7850), 0),
        placement(Vec3i32::new(0, 0, -7400), 0x0400),
    ];
    let mut seen = [0u32; 3];
    for (p, world) in places.iter().enumerate() {
        for room in [usize::MAX, 1] {
            let mut slow = Limited(Vec::new(), room);
            let r1 = render::render(&mut gte(), &t, &camera(), world, sample(0, 1), &mut scratch, &mut slow, &mut |_| {});
            let mut fast = Packets::new(room.min(64));
            let r2 = render::render(&mut gte(), &t, &camera(), world, sample(0, 1), &mut scratch, &mut fast, &mut |_| {});
            assert_eq!(r1, r2, "placement {p}, room {room}");
            let depth = |d: &DrawnTriangle| d.otz.min(DEPTHS as u16 - 2);
            let mut order: Vec<(u32, DrawnTriangle)> = slow.0.iter().enumerate().map(|(i, d)| (i as u32, *d)).collect();
            sort_draw_order(&mut order, depth);
            let expected: Vec<Vec<u32>> = order
                .iter()
                .map(|(_, d)| {
                    let [r, g, b] = d.colour.map(u32::from);
                    vec![depth(d) as u32, 0x20 << 24 | r | g << 8 | b << 16, d.xy[0].to_word(), d.xy[1].to_word(), d.xy[2].to_word()]
                })
                .collect();
            assert_eq!(fast.walk(), expected, "placement {p}, room {room}");
            if let Ok(Outcome::Drawn(s)) = r1 {
                seen[0] += s.drawn;
                seen[1] += s.rejected;
                seen[2] += s.back_facing;
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "drawn, rejected and back-facing all covered: {seen:?}");
}

/// A character whose box the cull finds `Clear` skips the near and span tests; its triangles are
/// those the tested path keeps, through both the packet path and `add`. Where the box is not clear
/// (near the camera) the tests still run and reject.
#[test]
fn a_clear_box_skips_the_clip_tests_and_loses_nothing() {
    use psxanim_runtime::render::cull::{box_visibility, Visibility};
    use psxanim_runtime::render::triangles::emit;
    let b = rigid_blob();
    let t = Tables::parse(&b).unwrap();
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let cam = camera();
    let (mut kinds, mut rejected) = (Vec::new(), 0);
    let near = [placement(Vec3i32::new(0, 0, -7850), 0), placement(Vec3i32::new(0, 0, -7400), 0x0400)];
    // The test blob's box is +-4000: clear from about 8,000 units beyond the camera's 8,000.
    let far = [placement(Vec3i32::new(0, 0, 12_000), 0), placement(Vec3i32::new(300, -200, 9000), 0x1800)];
    for world in [far[0], far[1], near[0], near[1]] {
        let mut gte = gte();
        cam.load(&mut gte);
        let object = cam.view.mul(&world);
        gte.set_matrix(&object);
        let visibility = box_visibility(&mut gte, &cam, &t.bounds());
        kinds.push(visibility);
        let mut fast = Packets::new(64);
        let r = render::render(&mut gte, &t, &cam, &world, sample(0, 1), &mut scratch, &mut fast, &mut |_| {});
        let Ok(Outcome::Drawn(stats)) = r else { panic!("{r:?}") };
        // The same projected vertices through `add`, with and without the tests.
        let n = t.vertex_count();
        let (sxy, sz) = (scratch.sxy[..n].to_vec(), scratch.sz[..n].to_vec());
        let mut tested = Limited(Vec::new(), usize::MAX);
        let with_tests = emit(&mut gte, &t, &cam, true, &sxy, &sz, None, &mut tested);
        let mut untested = Limited(Vec::new(), usize::MAX);
        let without = emit(&mut gte, &t, &cam, false, &sxy, &sz, None, &mut untested);
        assert_eq!(without.rejected, 0, "nothing rejected without the tests");
        if visibility == Visibility::Clear {
            assert!(stats.drawn > 0);
            assert_eq!((with_tests, without, stats), (without, stats, stats));
            assert_eq!(tested.0, untested.0);
        } else {
            assert_eq!(stats, with_tests, "a box that is not clear keeps the tests");
            rejected += with_tests.rejected;
        }
    }
    assert_eq!(kinds, [Visibility::Clear, Visibility::Clear, Visibility::Visible, Visibility::Visible]);
    assert!(rejected > 0, "the near placements reject triangles");
}

/// A quad draws what its two triangles draw: both halves culled together, each with the quad's
/// AVSZ4 depth through `add` (points 0-1-2 and 1-2-3 of b, c, a, d), and one four-point packet
/// (points b, c, a, d) on the packet path, wherever the squares are (facing, turned away,
/// straddling the near plane).
#[test]
fn a_quad_draws_its_two_triangles() {
    let clips = [RigidClip { frames: 3, poses: vec![(0.0, [0, 0, 0]), (0.0, [1500, 0, 0])] }, RigidClip { frames: 2, poses: vec![(180.0, [0, 0, 0]), (0.0, [0, 2000, 0])] }];
    let (tb, qb) = (squares_blob(&clips, false), squares_blob(&clips, true));
    let (triangles, quads) = (Tables::parse(&tb).unwrap(), Tables::parse(&qb).unwrap());
    assert_eq!((triangles.quad_count(), quads.quad_count()), (0, 2));
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    let corners = |d: &DrawnTriangle| {
        let mut c = d.xy.map(|p| p.to_word());
        c.sort();
        c
    };
    let places = [Matrix::IDENTITY, placement(Vec3i32::new(300, -200, 0), 0x1800), placement(Vec3i32::new(0, 0, -7850), 0)];
    let mut drawn_quads = 0;
    for (p, world) in places.iter().enumerate() {
        for s in [sample(0, 1), sample(1, 0)] {
            let (mut by_triangle, mut by_quad) = (Collect::default(), Collect::default());
            let r1 = render::render(&mut gte(), &triangles, &camera(), world, s, &mut scratch, &mut by_triangle, &mut |_| {});
            let r2 = render::render(&mut gte(), &quads, &camera(), world, s, &mut scratch, &mut by_quad, &mut |_| {});
            let stats = |r: &Result<Outcome, RenderError>| match r {
                Ok(Outcome::Drawn(s)) => (s.drawn, s.rejected, s.back_facing),
                other => panic!("placement {p}: {other:?}"),
            };
            assert_eq!(stats(&r1), stats(&r2), "placement {p}: the same counts");
            let mut a: Vec<_> = by_triangle.0.iter().map(corners).collect();
            let mut b: Vec<_> = by_quad.0.iter().map(corners).collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "placement {p}: the same triangles");
            for pair in by_quad.0.chunks(2) {
                assert_eq!(pair[0].otz, pair[1].otz, "one depth for a quad's halves");
                let z = pair[0].z.iter().chain(&pair[1].z[2..]).map(|&z| z as u32).sum::<u32>();
                assert_eq!(pair[0].otz as u32, (z * (camera().zsf3 as u32 * 3 / 4)) >> 12, "AVSZ4 of the four corners");
            }
            let mut fast = Packets::new(64);
            let r3 = render::render(&mut gte(), &quads, &camera(), world, s, &mut scratch, &mut fast, &mut |_| {});
            assert_eq!(r2, r3);
            for (packet, pair) in fast.walk().iter().rev().zip(by_quad.0.chunks(2)) {
                let (t1, t2) = (pair[0].xy.map(|p| p.to_word()), pair[1].xy.map(|p| p.to_word()));
                let [r, g, b] = pair[0].colour.map(u32::from);
                assert_eq!(
                    packet[1..],
                    [
                        0x28 << 24 | r | g << 8 | b << 16,
                        t1[0],
                        t1[1],
                        t1[2],
                        t2[2]
                    ],
                    "placement {p}"
                );
                drawn_quads += 1;
            }
        }
    }
    assert!(drawn_quads > 0);
}

/// A strip of two quads over a 3 x 2 grid on the root bone (and the same quads as four triangles):
/// quad k = (t_k, b_k, b_k+1, t_k+1) with t the top row, b the bottom one.
fn strip_blobs() -> (Vec<u8>, Vec<u8>) {
    use psxanim_runtime::tables::primitives::{
        pack_pair, run_header, GP0_FLAT_QUAD, RUN_STRIP, STREAM_END,
    };
    let grid: Vec<[i16; 3]> = (0..3)
        .flat_map(|x| [[x * 500 - 500, -500, 0], [x * 500 - 500, 500, 0]])
        .collect();
    let bones = [BoneDef {
        parent: None,
        vertices: grid,
    }];
    let clips = [
        RigidClip {
            frames: 2,
            poses: vec![(0.0, [0, 0, 0])],
        },
        RigidClip {
            frames: 2,
            poses: vec![(180.0, [0, 0, 0])],
        },
    ];
    let materials = [[200, 10, 10]];
    // t_k = 2k (y -500, the top on screen), b_k = 2k + 1; each quad's triangles in winding order.
    let triangles = [[0, 1, 3, 0], [0, 3, 2, 0], [2, 3, 5, 0], [2, 5, 4, 0]];
    let stream = [
        run_header(RUN_STRIP, 2, 0),
        GP0_FLAT_QUAD | 200 | 10 << 8 | 10 << 16,
        pack_pair(0, 1),
        pack_pair(2, 3),
        pack_pair(4, 5),
        STREAM_END,
    ];
    (
        render_support::blob_with_stream(&bones, &stream, 4, &materials, &clips, &[]),
        blob(&bones, &triangles, &materials, &clips, &[]),
    )
}

/// A strip draws what its quads' triangles draw, through `add` and through packets (one six-word
/// packet per quad, points b_k, t_k, b_k+1, t_k+1), facing the camera or turned away.
#[test]
fn a_strip_draws_its_quads_triangles() {
    let (sb, tb) = strip_blobs();
    let (strip, triangles) = (Tables::parse(&sb).unwrap(), Tables::parse(&tb).unwrap());
    assert_eq!(
        (
            strip.triangle_count(),
            strip.quad_count(),
            strip.run_count()
        ),
        (4, 2, 1)
    );
    let mut scratch = Box::<Scratch>::new(Scratch::new());
    // The corners of each triangle, sorted (the halves of a quad are not wound like their sources).
    let covered = |ts: &[DrawnTriangle]| {
        let mut v: Vec<[u32; 3]> = ts
            .iter()
            .map(|d| {
                let mut c = d.xy.map(|p| p.to_word());
                c.sort();
                c
            })
            .collect();
        v.sort();
        v
    };
    for clip in [0, 1] {
        let (mut a, mut b) = (Collect::default(), Collect::default());
        let r1 = render::render(&mut gte(), &strip, &camera(), &Matrix::IDENTITY, sample(clip, 0), &mut scratch, &mut a, &mut |_| {});
        let r2 = render::render(&mut gte(), &triangles, &camera(), &Matrix::IDENTITY, sample(clip, 0), &mut scratch, &mut b, &mut |_| {});
        assert_eq!(r1, r2, "clip {clip}: the same counts");
        assert_eq!(covered(&a.0), covered(&b.0), "clip {clip}");
        assert_eq!(a.0.len(), if clip == 0 { 4 } else { 0 });
        let mut fast = Packets::new(8);
        let r3 = render::render(&mut gte(), &strip, &camera(), &Matrix::IDENTITY, sample(clip, 0), &mut scratch, &mut fast, &mut |_| {});
        assert_eq!(r1, r3);
        let packets = fast.walk();
        assert_eq!(packets.len(), a.0.len() / 2);
        let mut from_packets: Vec<[u32; 3]> = packets
            .iter()
            .flat_map(|p| {
                assert_eq!(p.len(), 6, "a quad's packet: depth, command, four points");
                let mut h = [[p[2], p[3], p[4]], [p[3], p[4], p[5]]];
                h.iter_mut().for_each(|t| t.sort());
                h
            })
            .collect();
        from_packets.sort();
        assert_eq!(from_packets, covered(&a.0), "clip {clip}: packets and add");
    }
}
