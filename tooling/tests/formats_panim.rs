//! `.panim`: hand-built files from pluto-panim.txt as corrected by the specs README (100-byte header,
//! `(count, offset)` pairs, LSB-first bitmasks), parsing by structure, byte-identical rewrites, the
//! writer's trimming and sharing, and errors; the layout of the public files (Llennpie/Pluto,
//! `dynos/anims/`): node byte 95 for a 20-bone index table, `length + 1` values per axis, 30 Hz.

mod formats_support;
use formats_support::*;
use psxanim::formats::{panim, Losses};
use psxanim::model::{Animation, Bone, Quat, StoredRotation, TimeUnit};

const PAIRS: [(u16, u16); 9] = [
    (1, 0), // root tx: 0
    (4, 1), // root ty: 10 20 30 40
    (1, 0), // root tz: 0
    (1, 0), // node 0 rx: 0
    (2, 5), // node 0 ry: 0x4000 0x2000
    (1, 0), // node 0 rz: 0
    (3, 1), // node 1 rx: 10 20 30 (shares the root ty run)
    (1, 0), // node 1 ry: 0
    (1, 7), // node 1 rz: -0x4000
];
const VALUES: [i16; 8] = [0, 10, 20, 30, 40, 0x4000, 0x2000, -0x4000];

fn header(nodes: u8) -> Bytes {
    header_of_length(nodes, 4)
}

fn header_of_length(nodes: u8, length: u16) -> Bytes {
    Bytes::new().fixed("Idle", 64).fixed("pluto", 32).u8(0xA6).u16be(length).u8(nodes)
}

fn tables(b: Bytes, values: &[i16], pairs: &[(u16, u16)]) -> Bytes {
    let mut b = b.raw(b"values");
    for v in values {
        b = b.i16be(*v);
    }
    b = b.raw(b"indices");
    for (count, offset) in pairs {
        b = b.u16be(*count).u16be(*offset);
    }
    b
}

fn section(b: Bytes, tag: &[u8], frames: u16, bones: u16, mask: &[u8], data: &[[i16; 3]]) -> Bytes {
    let mut b = b.raw(tag).u16be(frames).u16be(bones).raw(mask);
    for v in data {
        b = b.i16be(v[0]).i16be(v[1]).i16be(v[2]);
    }
    b
}

fn idle() -> Vec<u8> {
    let b = tables(header(2), &VALUES, &PAIRS);
    let b = section(b, b"translations", 4, 1, &[1], &[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]);
    section(b, b"scales", 2, 1, &[1], &[[1024, 2048, 512], [1024, 1024, 1024]]).done()
}

fn euler(anim: &Animation, bone: usize) -> Vec<(f64, [i16; 3])> {
    anim.clips[0].tracks[bone]
        .rotation
        .iter()
        .map(|k| match k.stored {
            Some(StoredRotation::PanimEuler(e)) => (k.time, e),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn reads_header_tables_and_sections() {
    let anim = panim::read(&idle()).unwrap();
    assert_eq!(anim.version, 0);
    let clip = &anim.clips[0];
    assert_eq!((clip.name.as_str(), clip.looping, clip.length, clip.time_unit), ("Idle", true, 4.0, TimeUnit::Frame));
    assert_eq!(clip.extras.panim.as_ref().unwrap().author, "pluto");
    assert_eq!(clip.tracks.len(), 2);
    let root = &clip.tracks[0];
    assert_eq!(root.bone, Bone::Id(0));
    let ty: Vec<f64> = root.translation.iter().map(|k| k.value[1]).collect();
    assert_eq!(ty, vec![10.0, 20.0, 30.0, 40.0]);
    assert_eq!(euler(&anim, 0), vec![(0.0, [0, 0x4000, 0]), (1.0, [0, 0x2000, 0])]);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let q = root.rotation[0].value;
    assert!(q.angle_to(Quat::new(h, 0.0, h, 0.0)) < 1e-12, "90 degrees about Y: {q:?}");
    // Node 1: rx has three stored frames; ry and rz hold their single value.
    assert_eq!(euler(&anim, 1), vec![(0.0, [10, 0, -0x4000]), (1.0, [20, 0, -0x4000]), (2.0, [30, 0, -0x4000])]);
    let t1 = &clip.tracks[1];
    assert_eq!(t1.translation.len(), 4);
    assert_eq!(t1.translation[3].value, [10.0, 11.0, 12.0]);
    assert_eq!(t1.scale.len(), 2);
    assert_eq!(t1.scale[0].value, [1.0, 2.0, 0.5]);
}

#[test]
fn sm64_rotation_order_is_x_then_y_then_z() {
    // Rx(90) then Rz(90): takes +Y to +Z (Rx) and keeps it there (Rz), and +X to +Y.
    let q = panim::euler_to_quat([0x4000, 0, 0x4000]);
    let rot = |v: [f64; 3]| {
        let p = Quat::new(0.0, v[0], v[1], v[2]);
        let r = q.mul(p).mul(Quat::new(q.w, -q.x, -q.y, -q.z));
        [r.x, r.y, r.z]
    };
    let y = rot([0.0, 1.0, 0.0]);
    let x = rot([1.0, 0.0, 0.0]);
    assert!((y[2] - 1.0).abs() < 1e-12, "{y:?}");
    assert!((x[1] - 1.0).abs() < 1e-12, "{x:?}");
}

#[test]
fn unedited_rewrite_is_byte_identical() {
    let bytes = idle();
    let anim = panim::read(&bytes).unwrap();
    let mut losses = Losses::default();
    assert_eq!(panim::write(&anim, &mut losses).unwrap(), bytes);
    assert!(losses.is_empty(), "{:?}", losses.0);
}

#[test]
fn values_that_spell_a_tag_are_read_by_structure() {
    // Four values spelling "indices\0" before the real table: a scanner stops there.
    let mut values = vec![0x696E, 0x6469, 0x6365, 0x7300u16 as i16];
    values.extend_from_slice(&VALUES);
    let pairs: Vec<(u16, u16)> = PAIRS.iter().map(|&(c, o)| (c, o + 4)).collect();
    let bytes = tables(header(2), &values, &pairs).done();
    let anim = panim::read(&bytes).unwrap();
    assert_eq!(anim.clips[0].extras.panim.as_ref().unwrap().values.len(), 12);
    assert_eq!(euler(&anim, 0)[0].1, [0, 0x4000, 0]);
    assert_eq!(panim::write(&anim, &mut Losses::default()).unwrap(), bytes);
}

#[test]
fn scales_without_translations_keep_the_bone_count() {
    let b = tables(header(2), &VALUES, &PAIRS);
    let bytes = section(b, b"scales", 1, 1, &[1], &[[2048, 1024, 1024]]).done();
    let anim = panim::read(&bytes).unwrap();
    let clip = &anim.clips[0];
    assert_eq!(clip.tracks.len(), 2);
    assert!(clip.tracks[1].translation.is_empty());
    assert_eq!(clip.tracks[1].scale[0].value, [2.0, 1.0, 1.0]);
    assert_eq!(panim::write(&anim, &mut Losses::default()).unwrap(), bytes);
}

#[test]
fn bitmask_is_lsb_first() {
    // Ten nodes, nine non-root bones; bits 1 and 8 set: bones 2 and 9 carry translations.
    let mut pairs = vec![(1u16, 0u16); 33];
    pairs[4] = (1, 1);
    let b = tables(Bytes::new().fixed("m", 64).fixed("", 32).u8(0).u16be(1).u8(10), &[0, 5], &pairs);
    let bytes = section(b, b"translations", 1, 9, &[0b0000_0010, 0b0000_0001], &[[1, 1, 1], [9, 9, 9]]).done();
    let anim = panim::read(&bytes).unwrap();
    let with: Vec<usize> = anim.clips[0].tracks.iter().enumerate().filter(|(_, t)| !t.translation.is_empty()).map(|(i, _)| i).collect();
    assert_eq!(with, vec![0, 2, 9]);
    assert_eq!(anim.clips[0].tracks[9].translation[0].value, [9.0, 9.0, 9.0]);
}

#[test]
fn writer_trims_trailing_repeats_and_shares_runs() {
    let mut anim = panim::read(&idle()).unwrap();
    let clip = &mut anim.clips[0];
    clip.extras.panim = None;
    // Give node 1's rotation keys held values: rx 10 20 30 30 -> trimmed to 10 20 30.
    let mut losses = Losses::default();
    let out = panim::write(&anim, &mut losses).unwrap();
    let back = panim::read(&out).unwrap();
    let e = back.clips[0].extras.panim.as_ref().unwrap();
    // Every axis stream is trimmed: constant ones have one value.
    assert_eq!(e.indices[0].0, 1, "root tx constant");
    assert_eq!(e.indices[1].0, 4, "root ty 10 20 30 40");
    assert_eq!(e.indices[6].0, 3, "node 1 rx 10 20 30 (30 held)");
    // Runs are shared: node 1 rx (10 20 30) lies inside root ty (10 20 30 40); zeros share one value.
    assert_eq!(e.indices[6].1, e.indices[1].1);
    assert_eq!(e.indices[0].1, e.indices[2].1);
    let distinct: std::collections::BTreeSet<i16> = VALUES.iter().copied().collect();
    assert_eq!(e.values.len(), distinct.len());
    // Same document.
    assert_eq!(euler(&back, 1), euler(&panim::read(&idle()).unwrap(), 1));
}

fn err(bytes: &[u8]) -> psxanim::formats::ParseError {
    panim::read(bytes).expect_err("malformed input must be rejected")
}

#[test]
fn errors_name_offset_and_expectation() {
    // Frame count 0 for node 0 rx.
    let mut pairs = PAIRS;
    pairs[3] = (0, 0);
    let e = err(&tables(header(2), &VALUES, &pairs).done());
    assert!(e.expected.contains("frame count of at least 1 for node 0 rotation axis 0"), "{e}");
    assert_eq!(e.offset, 100 + 6 + 16 + 7 + 12);

    // An offset past the value table.
    let mut pairs = PAIRS;
    pairs[8] = (2, 7);
    let e = err(&tables(header(2), &VALUES, &pairs).done());
    assert!(e.expected.contains("inside the 8-entry value table"), "{e}");

    // More section bones than non-root nodes.
    let b = tables(header(2), &VALUES, &PAIRS);
    let e = err(&section(b, b"translations", 1, 2, &[1], &[[0, 0, 0]]).done());
    assert!(e.expected.contains("at most 1"), "{e}");

    // A mask bit beyond the bone count.
    let b = tables(header(2), &VALUES, &PAIRS);
    let e = err(&section(b, b"translations", 1, 1, &[0b11], &[[0, 0, 0]]).done());
    assert!(e.expected.contains("bitmask"), "{e}");

    // Trailing bytes, and a missing values tag.
    let mut long = idle();
    long.extend_from_slice(b"xx");
    assert!(err(&long).expected.contains("end of the file"));
    let mut bad = idle();
    bad[100] = b'V';
    assert_eq!(err(&bad).offset, 100);

    // Every cut is an error at or before it, except the two section boundaries and the ends of whole
    // bones of the index table (the bone count is the index table's), which are valid files.
    let tables_end = tables(header(2), &VALUES, &PAIRS).len();
    let translations_end = tables_end + 12 + 4 + 1 + 4 * 6;
    for cut in 0..idle().len() {
        match panim::read(&idle()[..cut]) {
            Err(e) => assert!(e.offset <= cut, "cut {cut}: {e}"),
            Ok(_) => assert!(
                cut == tables_end || cut == translations_end || cut == tables_end - 12 || cut == tables_end - 24,
                "cut {cut} parsed"
            ),
        }
    }
}

#[test]
fn decoded_size_is_bounded_by_the_file_size() {
    // 255 nodes whose 765 axes all share one 65535-value run: 134 kB that would decode to 16.7 M keys
    // (frames shown: the length, 65535).
    let values = vec![1i16; 65535];
    let pairs = vec![(65535u16, 0u16); 256 * 3];
    let bytes = tables(header_of_length(255, 65535), &values, &pairs).done();
    let e = err(&bytes);
    assert!(e.expected.contains("keys for a"), "{e}");
    assert_eq!(e.offset, 100 + 6 + 65535 * 2 + 7);
    // A realistic amount of sharing is fine: 20 nodes on one 1000-value run.
    let values = vec![3i16; 1000];
    let pairs = vec![(1000u16, 0u16); 21 * 3];
    assert!(panim::read(&tables(header_of_length(20, 1000), &values, &pairs).done()).is_ok());
}

/// The shape of the public Pluto files: the node byte says 95 (copied unchecked by `json2panim`), the
/// index table holds 20 bones, every axis stores `length + 1` values.
fn pluto_like() -> Vec<u8> {
    const LENGTH: u16 = 3;
    let mut values = Vec::new();
    let mut pairs = Vec::new();
    for axis in 0..21 * 3 {
        pairs.push((LENGTH + 1, values.len() as u16));
        for f in 0..=LENGTH as i16 {
            values.push(axis as i16 * 100 + f);
        }
    }
    let b = Bytes::new().fixed("(M) Walk", 64).fixed("someone", 32).u8(0xA6).u16be(LENGTH).u8(95);
    tables(b, &values, &pairs).done()
}

#[test]
fn bone_count_is_the_index_tables_and_the_node_byte_a_warning() {
    let bytes = pluto_like();
    let anim = panim::read(&bytes).unwrap();
    let clip = &anim.clips[0];
    assert_eq!(clip.tracks.len(), 20);
    assert_eq!(anim.warnings.len(), 1, "{:?}", anim.warnings);
    assert!(anim.warnings[0].contains("offset 99") && anim.warnings[0].contains("95") && anim.warnings[0].contains("20 bones"));
    assert_eq!(clip.extras.panim.as_ref().unwrap().node_count, 95);
    // The rewrite keeps the byte, the value at frame `length` and everything else.
    let mut losses = Losses::default();
    assert_eq!(panim::write(&anim, &mut losses).unwrap(), bytes);
    assert!(losses.is_empty(), "{:?}", losses.0);
}

#[test]
fn a_value_at_frame_length_is_not_a_key_and_frames_are_30_hz() {
    let anim = panim::read(&pluto_like()).unwrap();
    let clip = &anim.clips[0];
    assert_eq!((clip.length, clip.frame_rate), (3.0, Some(30.0)));
    // Bone 19's rz is axis 62: values 6200 6201 6202 (6203 is stored for frame 3 = length: not a key).
    assert_eq!(euler(&anim, 19).iter().map(|k| (k.0, k.1[2])).collect::<Vec<_>>(), vec![(0.0, 6200), (1.0, 6201), (2.0, 6202)]);
    assert_eq!(clip.tracks[0].translation.len(), 3);
    // To ANIMBIN: 60 Hz vsync frames, twice the ticks, no key at or past the length.
    let mut losses = Losses::default();
    let bytes = psxanim::formats::animbin::write(&anim, psxanim::formats::AnimbinMode::Correct, &mut losses).unwrap();
    let back = psxanim::formats::animbin::read(&bytes).unwrap();
    assert_eq!(back.clips[0].length, 6.0);
    let times: Vec<f64> = back.clips[0].tracks[3].rotation.iter().map(|k| k.time).collect();
    assert_eq!(times, vec![0.0, 2.0, 4.0]);
    let profile = psxanim::formats::profile::by_name("large").unwrap();
    assert_eq!(psxanim::formats::profile::check(&back, profile), Vec::<String>::new());
}

#[test]
fn section_values_past_the_length_are_kept_but_not_keys() {
    // Length 4; the translations section stores 5 frames: the fifth is never shown.
    let b = tables(header(2), &VALUES, &PAIRS);
    let bytes = section(b, b"translations", 5, 1, &[1], &[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12], [99, 99, 99]]).done();
    let anim = panim::read(&bytes).unwrap();
    assert_eq!(anim.clips[0].tracks[1].translation.len(), 4);
    assert_eq!(panim::write(&anim, &mut Losses::default()).unwrap(), bytes);
}

#[test]
fn files_spelling_many_tags_are_rejected_quickly() {
    // 20,000 "indices" tags followed by 20,000 "scales" tags: every pair is a placement to try.
    let mut b = header(2).raw(b"values");
    for _ in 0..20_000 {
        b = b.raw(b"indices\0");
    }
    for _ in 0..20_000 {
        b = b.raw(b"scales");
    }
    let start = std::time::Instant::now();
    let e = err(&b.done());
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    assert!(e.offset >= 100, "{e}");
}
