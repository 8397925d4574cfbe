//! Metroid Prime ANIM: hand-built version 0 and version 2 files from the wiki as corrected by the
//! specs README (W-sign bit, LSB-first bitstream, key bitmap), writer widths, drift, key reduction.

mod formats_support;
use formats_support::*;
use psxanim::formats::mp_anim::{self, bit_width};
use psxanim::formats::{Losses, Tolerance};
use psxanim::model::{Animation, Bone, Quat, RotationKey, TimeUnit, VectorKey};
use std::f64::consts::FRAC_PI_2;

/// Bone map of Retro's files: 100 slots, bone id -> rotation channel.
fn bone_slots(channels: &[(usize, u8)]) -> Vec<u8> {
    let mut map = vec![0xFFu8; 100];
    for &(bone, ch) in channels {
        map[bone] = ch;
    }
    map
}

/// A version 0 file in the layout retro-data-structures writes (six header words: duration and its
/// differential state, interval and its state, key count, root bone id), built byte by byte.
fn v0() -> Vec<u8> {
    let b = Bytes::new().u32be(0).f32be(0.1).u32be(0).f32be(0.05).u32be(0).u32be(2).u32be(3);
    let b = b.u32be(100).raw(&bone_slots(&[(1, 0), (2, 1)])).u32be(2).raw(&[0xFF, 0]).u32be(4);
    let b = b.f32be(1.0).f32be(0.0).f32be(0.0).f32be(0.0).f32be(0.5).f32be(0.5).f32be(0.5).f32be(0.5);
    let b = b.f32be(0.0).f32be(1.0).f32be(0.0).f32be(0.0).f32be(0.0).f32be(0.0).f32be(1.0).f32be(0.0);
    let b = b.u32be(2).f32be(1.0).f32be(2.0).f32be(3.0).f32be(-1.0).f32be(-2.0).f32be(-3.0);
    b.u32be(0xDEAD_BEEF).done()
}

#[test]
fn reads_version_0() {
    let anim = mp_anim::read(&v0()).unwrap();
    assert_eq!(anim.version, 0);
    let clip = &anim.clips[0];
    assert_eq!((clip.time_unit, clip.length), (TimeUnit::S, 0.1f32 as f64));
    assert_eq!(clip.frame_rate, Some(1.0 / 0.05f32 as f64));
    assert_eq!(clip.tracks.iter().map(|t| t.bone.clone()).collect::<Vec<_>>(), vec![Bone::Id(1), Bone::Id(2)]);
    assert_eq!(clip.tracks[0].rotation[1].value, Quat::new(0.5, 0.5, 0.5, 0.5));
    assert_eq!(clip.tracks[0].rotation[1].time, 0.05f32 as f64);
    assert!(clip.tracks[0].translation.is_empty());
    assert_eq!(clip.tracks[1].rotation[1].value, Quat::new(0.0, 0.0, 1.0, 0.0));
    assert_eq!(clip.tracks[1].translation[1].value, [-1.0, -2.0, -3.0]);
    assert_eq!(clip.extras.mp.as_ref().unwrap().evnt_id, 0xDEAD_BEEF);
}

#[test]
fn version_0_round_trip_is_exact() {
    let anim = mp_anim::read(&v0()).unwrap();
    let mut losses = Losses::default();
    let out = mp_anim::write_v0(&anim, &mut losses).unwrap();
    assert_eq!(out, v0());
    assert!(losses.is_empty(), "{:?}", losses.0);
}

/// Packs `(value, bits)` fields least-significant bit first into big-endian 32-bit words.
fn bitstream(fields: &[(i64, u32)]) -> Vec<u8> {
    let mut bits = Vec::new();
    for &(v, n) in fields {
        for i in 0..n {
            bits.push(((v >> i) & 1) as u32);
        }
    }
    bits.chunks(32).flat_map(|c| c.iter().enumerate().fold(0u32, |w, (i, b)| w | b << i).to_be_bytes()).collect()
}

fn v2() -> Vec<u8> {
    let b = Bytes::new().u32be(2).u32be(0x100).u32be(0xFFFF_FFFF).u32be(1).f32be(0.1).f32be(0.05);
    let b = b.u32be(3).u32be(1).u32be(0x7FFF).f32be(0.5).u32be(2).u32be(1).u32be(3);
    let b = b.u32be(0b101).u32be(2).u32be(2);
    // Channel 0: bone 3, rotation (100, 4) (-50, 4) (0, 3), translation (10, 5) (0, 2) (-4, 3).
    let b = b.u32be(3).u16be(2).i16be(100).u8(4).i16be(-50).u8(4).i16be(0).u8(3);
    let b = b.u16be(2).i16be(10).u8(5).i16be(0).u8(2).i16be(-4).u8(3);
    // Channel 1: bone 7, rotation only, 8 bits per component.
    let b = b.u32be(7).u16be(2).i16be(0).u8(8).i16be(0).u8(8).i16be(0).u8(8).u16be(0);
    // Frame 2 (frame 1 has no bit): 47 bits, channel 1's y straddles the first word.
    b.raw(&bitstream(&[(1, 1), (3, 4), (-2, 4), (3, 3), (-16, 5), (1, 2), (-4, 3), (0, 1), (127, 8), (-128, 8), (5, 8)])).done()
}

fn rotation(v: [i64; 3], negative_w: bool) -> Quat {
    let c = |v: i64| (v as f64 * FRAC_PI_2 / 32767.0).sin();
    let (x, y, z) = (c(v[0]), c(v[1]), c(v[2]));
    let w = (1.0 - x * x - y * y - z * z).sqrt();
    Quat::new(if negative_w { -w } else { w }, x, y, z)
}

#[test]
fn reads_version_2_bitstream() {
    let anim = mp_anim::read(&v2()).unwrap();
    assert_eq!(anim.version, 2);
    let clip = &anim.clips[0];
    assert!(clip.looping);
    let e = clip.extras.mp.as_ref().unwrap();
    assert_eq!((e.scratch_size, e.root_bone_id, e.rotation_divisor, e.frame_count), (0x100, 3, 0x7FFF, Some(3)));
    let (a, b) = (&clip.tracks[0], &clip.tracks[1]);
    assert_eq!((a.bone.clone(), b.bone.clone()), (Bone::Id(3), Bone::Id(7)));
    // Frame 0 from the initial values (W positive), frame 2 from the deltas; frame 1 is not a key.
    let times: Vec<f64> = a.rotation.iter().map(|k| k.time).collect();
    assert_eq!(times, vec![0.0, 2.0 * 0.05f32 as f64]);
    assert_eq!(a.rotation[0].value, rotation([100, -50, 0], false));
    assert_eq!(a.rotation[1].value, rotation([103, -52, 3], true), "the W-sign bit negates w");
    assert_eq!(a.translation[0].value, [5.0, 0.0, -2.0]);
    assert_eq!(a.translation[1].value, [-3.0, 0.5, -4.0]);
    assert_eq!(b.rotation[1].value, rotation([127, -128, 5], false));
    assert!(b.translation.is_empty());
}

#[test]
fn version_2_errors() {
    let good = v2();
    for cut in 0..good.len() {
        match mp_anim::read(&good[..cut]) {
            Err(e) => assert!(e.offset <= cut, "cut {cut}: {e}"),
            Ok(_) => panic!("cut {cut} of {} parsed", good.len()),
        }
    }
    // A rotation divisor of 0.
    let mut bad = good.clone();
    bad[0x20..0x24].copy_from_slice(&0u32.to_be_bytes());
    let e = mp_anim::read(&bad).unwrap_err();
    assert_eq!((e.offset, e.expected.as_str()), (0x20, "a non-zero rotation divisor"));
    // The second channel count disagrees.
    let mut bad = good.clone();
    bad[0x3C..0x40].copy_from_slice(&3u32.to_be_bytes());
    let e = mp_anim::read(&bad).unwrap_err();
    assert_eq!(e.offset, 0x3C);
    // A bit width over 32.
    let mut bad = good.clone();
    bad[0x40 + 8] = 33;
    let e = mp_anim::read(&bad).unwrap_err();
    assert!(e.expected.contains("at most 32"), "{e}");
    // A huge bitmap.
    let mut bad = good.clone();
    bad[0x30..0x34].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(mp_anim::read(&bad).unwrap_err().expected.contains("key bitmap words"));
    // Version 1.
    assert_eq!(mp_anim::read(&[0, 0, 0, 1]).unwrap_err().offset, 0);
}

#[test]
fn version_0_errors() {
    let good = v0();
    for cut in 0..good.len() {
        assert!(mp_anim::read(&good[..cut]).unwrap_err().offset <= cut);
    }
    // Bone map naming channel 5 of 2 (the map starts at 4 + 6 * 4 + 4 = 32).
    let mut bad = good.clone();
    bad[32 + 2] = 5;
    let e = mp_anim::read(&bad).unwrap_err();
    assert_eq!(e.offset, 34);
    assert!(e.expected.contains("rotation channel below 2"), "{e}");
    // Quaternion count not channels x keys (after the map, 4 + 2 translation indices).
    let mut bad = good.clone();
    let quat_at = 32 + 100 + 4 + 2;
    bad[quat_at..quat_at + 4].copy_from_slice(&3u32.to_be_bytes());
    let e = mp_anim::read(&bad).unwrap_err();
    assert!(e.expected.contains("2 channels x 2 keys"), "{e}");
    assert_eq!(e.offset, quat_at);
    // Fewer translation indices than animated bones.
    let mut bad = good.clone();
    bad[132..136].copy_from_slice(&1u32.to_be_bytes());
    assert!(mp_anim::read(&bad).unwrap_err().expected.contains("each of the 2 animated bones"));
    // After the EVNT id only 0xFF padding (pak alignment) is accepted.
    let mut padded = good.clone();
    padded.extend_from_slice(&[0xFF; 12]);
    assert_eq!(mp_anim::read(&padded).unwrap(), mp_anim::read(&good).unwrap());
    padded.push(0);
    assert_eq!(mp_anim::read(&padded).unwrap_err().offset, good.len() + 12);
}

#[test]
fn widths_include_positive_powers_of_two() {
    assert_eq!(bit_width([7].into_iter()), 4);
    assert_eq!(bit_width([8].into_iter()), 5, "+8 needs 5 bits in two's complement");
    assert_eq!(bit_width([-8].into_iter()), 4);
    assert_eq!(bit_width([-9].into_iter()), 5);
    assert_eq!(bit_width([0].into_iter()), 1);
    assert_eq!(bit_width([1].into_iter()), 2);
    assert_eq!(bit_width([-1].into_iter()), 1);
    assert_eq!(bit_width([1 << 15].into_iter()), 17);
    assert_eq!(bit_width([3, -4, 2].into_iter()), 3);
}

fn clip_of(rotations: Vec<Quat>, translations: Option<Vec<[f64; 3]>>) -> Animation {
    let mut anim = mp_anim::read(&v0()).unwrap();
    let clip = &mut anim.clips[0];
    clip.tracks.truncate(1);
    let n = rotations.len();
    clip.frame_rate = Some(30.0);
    clip.length = (n - 1) as f64 / 30.0;
    clip.tracks[0].rotation = rotations.into_iter().enumerate().map(|(i, value)| RotationKey { time: i as f64 / 30.0, value, stored: None }).collect();
    clip.tracks[0].translation = translations
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, value)| VectorKey { time: i as f64 / 30.0, value })
        .collect();
    anim
}

#[test]
fn version_2_writer_has_no_drift() {
    // 240 frames of irregular motion: every frame is a key, so only quantisation separates input and
    // output, and the error must not grow along the clip.
    let rotations: Vec<Quat> = (0..240).map(|i| axis_angle([1.0, (i as f64 * 0.1).sin(), 0.3], 0.02 * i as f64 + (i % 7) as f64 * 0.05)).collect();
    let translations: Vec<[f64; 3]> = (0..240).map(|i| [i as f64 * 0.37, -(i as f64).sqrt(), ((i * 13) % 11) as f64]).collect();
    let anim = clip_of(rotations.clone(), Some(translations.clone()));
    let tol = Tolerance { rotation: 0.0, translation: 0.0, ..Tolerance::default() };
    let out = mp_anim::read(&mp_anim::write_v2(&anim, tol, &mut Losses::default()).unwrap()).unwrap();
    let t = &out.clips[0].tracks[0];
    assert_eq!(t.rotation.len(), 240, "tolerance 0 keeps every key");
    let step = FRAC_PI_2 / 32767.0; // one quantisation step of a component angle
    let mult = out.clips[0].extras.mp.as_ref().unwrap().translation_multiplier as f64;
    for (i, (k, q)) in t.rotation.iter().zip(&rotations).enumerate() {
        // w is derived from x, y, z, so its error grows as 1 / |w| near a half turn.
        let bound = 4.0 * step / q.w.abs().max(0.01);
        assert!(k.value.angle_to(*q) < bound, "frame {i}: {} > {bound}", k.value.angle_to(*q));
        let d = (0..3).map(|a| (t.translation[i].value[a] - translations[i][a]).abs()).fold(0.0, f64::max);
        assert!(d <= mult / 2.0 + 1e-9, "frame {i}: translation error {d} > half the multiplier {mult}");
    }
}

#[test]
fn version_2_writer_keeps_only_needed_keys() {
    // Constant angular velocity: slerp between the ends reproduces every frame.
    let smooth: Vec<Quat> = (0..200).map(|i| axis_angle([0.0, 0.0, 1.0], 0.005 * i as f64)).collect();
    let mut losses = Losses::default();
    let out = mp_anim::read(&mp_anim::write_v2(&clip_of(smooth.clone(), None), Tolerance::default(), &mut losses).unwrap()).unwrap();
    let frames: Vec<f64> = out.clips[0].tracks[0].rotation.iter().map(|k| (k.time * 30.0).round()).collect();
    assert_eq!(frames, vec![0.0, 199.0]);
    // A spike at frame 100 cannot be interpolated: it is kept, with its neighbours.
    let mut spiky = smooth;
    spiky[100] = axis_angle([1.0, 0.0, 0.0], 0.5);
    let out = mp_anim::read(&mp_anim::write_v2(&clip_of(spiky.clone(), None), Tolerance::default(), &mut Losses::default()).unwrap()).unwrap();
    let track = &out.clips[0].tracks[0];
    let frames: Vec<f64> = track.rotation.iter().map(|k| (k.time * 30.0).round()).collect();
    assert!(frames.contains(&100.0) && frames.len() <= 6, "{frames:?}");
    // Every frame, interpolated where it has no key, is within the tolerance.
    for (i, q) in spiky.iter().enumerate() {
        let got = track.sample_rotation(i as f64 / 30.0).unwrap();
        assert!(got.angle_to(*q) <= Tolerance::default().rotation + 1e-3, "frame {i}");
    }
}

#[test]
fn version_2_writer_stores_the_w_sign() {
    // 170 then 190 degrees about X: the second has w < 0 and stays in the first's hemisphere.
    let qs = vec![axis_angle([1.0, 0.0, 0.0], 170f64.to_radians()), axis_angle([1.0, 0.0, 0.0], 190f64.to_radians())];
    assert!(qs[1].w < 0.0);
    let out = mp_anim::read(&mp_anim::write_v2(&clip_of(qs.clone(), None), Tolerance::default(), &mut Losses::default()).unwrap()).unwrap();
    let k = &out.clips[0].tracks[0].rotation;
    assert!(k[1].value.w < 0.0, "{:?}", k[1].value);
    assert!(k[1].value.angle_to(qs[1]) < 1e-3);
}

#[test]
fn version_0_channels_are_the_maps_not_the_bone_order() {
    // Bone 4 -> rotation channel 1, bone 7 -> rotation channel 0; the translation indices list, per
    // animated bone in bone order, its translation channel: bone 4 -> 0xFF, bone 7 -> 0.
    let b = Bytes::new().u32be(0).f32be(0.0).u32be(0).f32be(1.0 / 30.0).u32be(0).u32be(1).u32be(4);
    let b = b.u32be(100).raw(&bone_slots(&[(4, 1), (7, 0)])).u32be(2).raw(&[0xFF, 0]).u32be(2);
    let b = b.f32be(0.0).f32be(1.0).f32be(0.0).f32be(0.0); // channel 0: bone 7
    let b = b.f32be(0.0).f32be(0.0).f32be(1.0).f32be(0.0); // channel 1: bone 4
    let bytes = b.u32be(1).f32be(5.0).f32be(6.0).f32be(7.0).u32be(0xFFFF_FFFF).done();
    let anim = mp_anim::read(&bytes).unwrap();
    let clip = &anim.clips[0];
    assert_eq!(clip.tracks.iter().map(|t| t.bone.clone()).collect::<Vec<_>>(), vec![Bone::Id(4), Bone::Id(7)]);
    assert_eq!(clip.tracks[0].rotation[0].value, Quat::new(0.0, 0.0, 1.0, 0.0));
    assert!(clip.tracks[0].translation.is_empty());
    assert_eq!(clip.tracks[1].rotation[0].value, Quat::new(0.0, 1.0, 0.0, 0.0));
    assert_eq!(clip.tracks[1].translation[0].value, [5.0, 6.0, 7.0]);
    let e = clip.extras.mp.as_ref().unwrap();
    assert_eq!((e.root_bone_id, e.bone_entry_count, e.time_states), (4, Some(100), Some([0, 0])));
}

/// A bone id with its rotation keys and its translation keys (if any).
type BoneChannels = (usize, Vec<[f32; 4]>, Option<Vec<[f32; 3]>>);

/// PrimeWorldEditor's `ReadUncompressedANIM`, transcribed step by step (skip, read, skip, ...): the
/// rotation and translation channels of each bone id.
fn read_like_prime_world_editor(bytes: &[u8]) -> Vec<BoneChannels> {
    let mut at = 4;
    let mut word = || {
        let w = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        at += 4;
        w
    };
    let _duration = word();
    let _ = word();
    let _interval = word();
    let _ = word();
    let keys = word() as usize;
    let _ = word();
    let rot_n = word() as usize;
    let mut at2 = 4 * 8;
    let rot: Vec<u8> = bytes[at2..at2 + rot_n].to_vec();
    at2 += rot_n;
    let trans_n = u32::from_be_bytes(bytes[at2..at2 + 4].try_into().unwrap()) as usize;
    at2 += 4;
    let trans: Vec<u8> = bytes[at2..at2 + trans_n].to_vec();
    at2 += trans_n + 4; // the quaternion count is skipped
    let f = |at: usize| f32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let rot_channels = rot.iter().filter(|&&r| r != 0xFF).count();
    let quats: Vec<Vec<[f32; 4]>> = (0..rot_channels)
        .map(|c| (0..keys).map(|k| { let p = at2 + (c * keys + k) * 16; [f(p), f(p + 4), f(p + 8), f(p + 12)] }).collect())
        .collect();
    at2 += rot_channels * keys * 16 + 4; // the vector count is skipped
    let trans_channels = trans.iter().filter(|&&t| t != 0xFF).count();
    let vecs: Vec<Vec<[f32; 3]>> = (0..trans_channels)
        .map(|c| (0..keys).map(|k| { let p = at2 + (c * keys + k) * 12; [f(p), f(p + 4), f(p + 8)] }).collect())
        .collect();
    let mut out = Vec::new();
    let mut i_trans = 0;
    for (bone, &r) in rot.iter().enumerate() {
        if r == 0xFF {
            continue;
        }
        let t = trans[i_trans];
        i_trans += 1;
        out.push((bone, quats[r as usize].clone(), if t == 0xFF { None } else { Some(vecs[t as usize].clone()) }));
    }
    out
}

#[test]
fn version_0_output_reads_with_prime_world_editors_logic() {
    // Tracks given out of bone order, one translated: the writer lists channels in bone order.
    let mut anim = mp_anim::read(&v0()).unwrap();
    anim.clips[0].tracks.reverse();
    let out = mp_anim::write_v0(&anim, &mut Losses::default()).unwrap();
    let bones = read_like_prime_world_editor(&out);
    assert_eq!(bones.len(), 2);
    for (bone, quats, trans) in bones {
        let track = anim.clips[0].tracks.iter().find(|t| t.bone == Bone::Id(bone as u32)).unwrap();
        let want: Vec<[f32; 4]> = track.rotation.iter().map(|k| k.value.to_array().map(|v| v as f32)).collect();
        assert_eq!(quats, want, "bone {bone}");
        let want_t: Vec<[f32; 3]> = track.translation.iter().map(|k| k.value.map(|v| v as f32)).collect();
        assert_eq!(trans.unwrap_or_default(), want_t, "bone {bone}");
    }
    // Our reader agrees, and the rewrite of the file as read is the file.
    assert_eq!(mp_anim::write_v0(&mp_anim::read(&v0()).unwrap(), &mut Losses::default()).unwrap(), v0());
}

#[test]
fn same_format_rewrites_keep_the_version_and_the_stored_keys() {
    use psxanim::formats::{self, Target};
    use psxanim::model::Format;
    // Version 0 written as .anim (the extension's target) stays version 0.
    let target = Target::from_extension(std::path::Path::new("out.anim")).unwrap();
    let anim = mp_anim::read(&v0()).unwrap();
    let out = formats::write(&anim, target, Tolerance::default(), &mut Losses::default()).unwrap();
    assert_eq!(out, v0());
    // Version 2 with a key on each of 6 frames (written at tolerance 0): a rewrite with the default
    // tolerance stores keys at the same frames, with the same values, instead of reducing them again.
    let rotations: Vec<Quat> = (0..6).map(|i| axis_angle([1.0, 0.2 * i as f64, 0.3], [0.0, 0.004, 0.01, 0.012, 0.02, 0.021][i])).collect();
    let src = clip_of(rotations, None);
    let tol = Tolerance { rotation: 0.0, translation: 0.0, ..Tolerance::default() };
    let v2 = mp_anim::read(&mp_anim::write_v2(&src, tol, &mut Losses::default()).unwrap()).unwrap();
    let stored: Vec<(f64, Quat)> = v2.clips[0].tracks[0].rotation.iter().map(|k| (k.time, k.value)).collect();
    assert_eq!(stored.len(), 6);
    let mut losses = Losses::default();
    let again = formats::write(&v2, Target::MpAnim(None), Tolerance::default(), &mut losses).unwrap();
    let back = formats::read(Format::MpAnim, &again).unwrap();
    assert_eq!(back.version, 2);
    let kept: Vec<(f64, Quat)> = back.clips[0].tracks[0].rotation.iter().map(|k| (k.time, k.value)).collect();
    assert_eq!(kept, stored, "same key frames, same decoded values");
    assert!(losses.is_empty(), "{:?}", losses.0);
    // Asked to, it reduces again (the motion is within the default half degree of a straight slerp).
    let reduce = Tolerance { reduce_stored: true, ..Tolerance::default() };
    let reduced = mp_anim::read(&formats::write(&v2, Target::MpAnim(None), reduce, &mut Losses::default()).unwrap()).unwrap();
    assert!(reduced.clips[0].tracks[0].rotation.len() < 6);
}
