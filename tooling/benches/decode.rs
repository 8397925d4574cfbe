//! Decode throughput of each format reader on a ~10 MB synthetic file, in MB/s.
//!
//! `cargo bench -p psxanim --bench decode`. The files are built here from the layouts (random-looking
//! but valid values from a fixed linear congruential sequence), so the figure is the reader's cost
//! alone. Each reader runs until at least 2 s have passed; the best pass is reported.

use psxanim::formats::{ani, animbin, mp_anim, panim};
use std::time::{Duration, Instant};

const TARGET: usize = 10 << 20;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn animbin_file(r: &mut Lcg) -> Vec<u8> {
    let (clips, tracks, keys) = (40u16, 100u16, 236u16);
    let mut b = b"ANIMBIN".to_vec();
    b.extend_from_slice(&[1, clips as u8]);
    for c in 0..clips {
        let mut name = format!("clip{c}").into_bytes();
        name.resize(32, 0);
        b.extend_from_slice(&name);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&keys.to_le_bytes());
        b.extend_from_slice(&tracks.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        for t in 0..tracks {
            b.extend_from_slice(&[0, t as u8]);
            b.extend_from_slice(&keys.to_le_bytes());
            for f in 0..keys {
                b.extend_from_slice(&f.to_le_bytes());
                b.push(0);
                for _ in 0..4 {
                    b.extend_from_slice(&(r.next() as i16).to_le_bytes());
                }
            }
        }
    }
    b
}

fn ani_file(r: &mut Lcg) -> Vec<u8> {
    let (tracks, keys) = (200u32, 2185u32);
    let mut b = b"ANI\0".to_vec();
    b.extend_from_slice(&4002i32.to_le_bytes());
    b.extend_from_slice(&0i32.to_le_bytes());
    b.extend_from_slice(&(keys as i32 * 33).to_le_bytes());
    b.extend_from_slice(&(tracks as i32).to_le_bytes());
    for t in 0..tracks {
        let name = format!("Bip01_{t}");
        b.extend_from_slice(&(name.len() as u32).to_le_bytes());
        b.extend_from_slice(name.as_bytes());
        b.extend_from_slice(&1f32.to_le_bytes());
        b.extend_from_slice(&(keys as i32).to_le_bytes());
        for k in 0..keys {
            b.extend_from_slice(&r.next().to_le_bytes());
            b.extend_from_slice(&r.next().to_le_bytes());
            for _ in 0..3 {
                b.extend_from_slice(&((r.next() % 1000) as f32 * 0.01).to_le_bytes());
            }
            b.extend_from_slice(&(k as i32 * 33).to_le_bytes());
        }
    }
    b
}

fn mp_anim_v2_file(r: &mut Lcg) -> Vec<u8> {
    let (channels, frames) = (100u32, 33_600u32);
    let mut b = Vec::new();
    for v in [2u32, 0, u32::MAX, 1] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    b.extend_from_slice(&(frames as f32 / 30.0).to_be_bytes());
    b.extend_from_slice(&(1.0f32 / 30.0).to_be_bytes());
    for v in [3u32, 1, 0x7FFF] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    b.extend_from_slice(&0.01f32.to_be_bytes());
    for v in [channels, 1, frames] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    // Every frame keyed.
    for _ in 0..frames.div_ceil(32) {
        b.extend_from_slice(&u32::MAX.to_be_bytes());
    }
    b.extend_from_slice(&channels.to_be_bytes());
    b.extend_from_slice(&channels.to_be_bytes());
    for c in 0..channels {
        b.extend_from_slice(&c.to_be_bytes());
        b.extend_from_slice(&(frames as u16).to_be_bytes());
        for _ in 0..3 {
            b.extend_from_slice(&0i16.to_be_bytes());
            b.push(8);
        }
        b.extend_from_slice(&0u16.to_be_bytes());
    }
    // 100 channels x 25 bits x (frames - 1) keys of random deltas.
    let bits = channels as u64 * 25 * (frames as u64 - 1);
    for _ in 0..bits.div_ceil(32) {
        b.extend_from_slice(&r.next().to_be_bytes());
    }
    b
}

fn panim_file(r: &mut Lcg) -> Vec<u8> {
    let (nodes, frames) = (120usize, 65_535usize);
    let streams = (nodes + 1) * 3;
    let per = (TARGET / 2 / streams).min(frames);
    let mut b = Vec::new();
    let mut name = b"bench".to_vec();
    name.resize(64, 0);
    b.extend_from_slice(&name);
    b.extend_from_slice(&[0u8; 32]);
    b.push(0xA6);
    b.extend_from_slice(&(per as u16).to_be_bytes());
    b.push(nodes as u8);
    b.extend_from_slice(b"values");
    // One stream's worth of values shared by every axis at different offsets keeps offsets in u16.
    let values = per + streams;
    for _ in 0..values {
        b.extend_from_slice(&(r.next() as i16).to_be_bytes());
    }
    b.extend_from_slice(b"indices");
    for s in 0..streams {
        b.extend_from_slice(&(per as u16).to_be_bytes());
        b.extend_from_slice(&(s as u16).to_be_bytes());
    }
    // Pad to ~10 MB with a translations section for every non-root bone.
    let fc = ((TARGET - b.len()) / ((nodes - 1) * 6)).min(65_535);
    b.extend_from_slice(b"translations");
    b.extend_from_slice(&(fc as u16).to_be_bytes());
    b.extend_from_slice(&((nodes - 1) as u16).to_be_bytes());
    b.extend_from_slice(&vec![0xFF; (nodes - 1).div_ceil(8) - 1]);
    b.push(0xFF >> (8 - ((nodes - 1) % 8 + if (nodes - 1) % 8 == 0 { 8 } else { 0 })));
    for _ in 0..(nodes - 1) * fc * 3 {
        b.extend_from_slice(&(r.next() as i16).to_be_bytes());
    }
    b
}

fn measure(name: &str, bytes: &[u8], read: impl Fn(&[u8]) -> bool) {
    assert!(read(bytes), "{name}: the synthetic file must be valid");
    let mut best = Duration::MAX;
    let start = Instant::now();
    let mut passes = 0;
    while start.elapsed() < Duration::from_secs(2) || passes < 3 {
        let t = Instant::now();
        std::hint::black_box(read(std::hint::black_box(bytes)));
        best = best.min(t.elapsed());
        passes += 1;
    }
    let mb = bytes.len() as f64 / 1e6;
    println!("{name:<14} {mb:>6.2} MB  best {:>8.2} ms  {:>8.1} MB/s  ({passes} passes)", best.as_secs_f64() * 1e3, mb / best.as_secs_f64());
}

fn main() {
    // `cargo test --benches` passes --bench-less arguments; run quickly there.
    let mut r = Lcg(0x5EED);
    measure("animbin", &animbin_file(&mut r), |b| animbin::read(b).is_ok());
    measure("ani (4002)", &ani_file(&mut r), |b| ani::read(b).is_ok());
    measure("mp-anim v2", &mp_anim_v2_file(&mut r), |b| mp_anim::read(b).is_ok());
    measure("panim", &panim_file(&mut r), |b| panim::read(b).is_ok());
}
