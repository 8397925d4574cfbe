//! Projection: vertices through the GTE, three at a time (RTPT), into the scratch's SXY / SZ arrays.
//!
//! Vertices go to the GTE as the words the tables already hold (a vertex entry is `x | y << 16`, then
//! `z`: the VXY/VZ register format), and results come back as raw SXY and SZ words, so nothing is
//! converted on the way: whole triples go through [`Cop2::rtpt_words`] (one loop of lwc2, RTPT, swc2
//! on the console). A range whose length is not a multiple of three ends by projecting its last three
//! vertices again; a range of one or two vertices takes one RTPT whose surplus slots repeat its last
//! vertex (their results are not stored).

use crate::gte::regs::{cmd, data};
use crate::gte::{Cop2, Gte};
use crate::math::Matrix;
use crate::tables::{Tables, VERTEX_SIZE};

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Projects three vertices given as (VXY, VZ) words; writes as many results as `sxy` / `sz` hold.
#[inline(always)]
fn rtpt<B: Cop2>(gte: &mut Gte<B>, v: [(u32, u32); 3], sxy: &mut [u32], sz: &mut [u32]) {
    gte.write_data::<{ data::VXY0 }>(v[0].0);
    gte.write_data::<{ data::VZ0 }>(v[0].1);
    gte.write_data::<{ data::VXY1 }>(v[1].0);
    gte.write_data::<{ data::VZ1 }>(v[1].1);
    gte.write_data::<{ data::VXY2 }>(v[2].0);
    gte.write_data::<{ data::VZ2 }>(v[2].1);
    gte.command::<{ cmd::RTPT }>();
    let xy = [gte.read_data::<{ data::SXY0 }>(), gte.read_data::<{ data::SXY1 }>(), gte.read_data::<{ data::SXY2 }>()];
    let z = [gte.read_data::<{ data::SZ1 }>(), gte.read_data::<{ data::SZ2 }>(), gte.read_data::<{ data::SZ3 }>()];
    for (i, (o, oz)) in sxy.iter_mut().zip(sz.iter_mut()).enumerate() {
        *o = xy[i];
        *oz = z[i];
    }
}

/// Projects `count` vertices read by `vertex(i)` with the loaded matrix into `sxy[..count]`, `sz[..count]`.
#[inline(always)]
fn project_run<B: Cop2>(gte: &mut Gte<B>, count: usize, vertex: impl Fn(usize) -> (u32, u32), sxy: &mut [u32], sz: &mut [u32]) {
    let count = count.min(sxy.len()).min(sz.len());
    let mut i = 0;
    while i < count {
        let last = count - 1;
        let v = [vertex(i), vertex((i + 1).min(last)), vertex((i + 2).min(last))];
        let end = (i + 3).min(count);
        rtpt(gte, v, &mut sxy[i..end], &mut sz[i..end]);
        i = end;
    }
}

/// Bones whose matrices fit the console's matrix stage ([`matrix_stage`]): 32 bytes each, the
/// scratchpad's first 960 bytes (the blend stage's work area follows, `gte::blend::WORK_AT`).
pub const STAGED_BONES: usize = 30;
const _: () = assert!(0x1F80_0000 + STAGED_BONES * core::mem::size_of::<Matrix>() <= crate::gte::blend::WORK_AT);

/// The matrix stage for `bones` bones: on the console the scratchpad (0x1F800000), where a load takes
/// one cycle against 5 to 7 from main RAM; None on the host or beyond [`STAGED_BONES`].
///
/// [`project_rigid`] fills it as it loads each bone's matrix into the GTE (the same eight loads, and
/// eight stores), so that the blend stage reads each pair's two matrices from it instead of main RAM.
/// The flat triangles later overwrite its first words with their material colours.
///
/// # Safety
/// No other reference to the scratchpad's first `32 * bones` bytes may be used while the returned one
/// lives (the renderer takes it only between its own stages).
pub unsafe fn matrix_stage(bones: usize) -> Option<&'static mut [Matrix]> {
    #[cfg(target_arch = "mips")]
    if bones <= STAGED_BONES {
        // SAFETY: the scratchpad is 1 KiB of always-mapped RAM at 0x1F800000, 4-aligned, holding at
        // least `STAGED_BONES` matrices; every bit pattern is a `Matrix`; the caller's contract rules
        // out other references.
        return Some(unsafe { core::slice::from_raw_parts_mut(0x1F80_0000 as *mut Matrix, bones) });
    }
    let _ = bones;
    None
}

/// Rigid: each bone's vertex range with that bone's model-view matrix (`matrices[bone]`). Bones with an
/// empty range load no matrix. With a `stage` (room for every bone, [`matrix_stage`]), every bone's
/// matrix is written there too, each as it is loaded into the GTE: the blend stage's operands.
pub fn project_rigid<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32], stage: Option<&mut [Matrix]>) {
    let bytes = tables.bytes();
    let bone_count = tables.bone_count().min(matrices.len());
    let stage = stage.filter(|s| s.len() >= bone_count);
    let bones = crate::bytes::aligned_words(bytes, tables.bones_offset(), 2 * bone_count);
    let vertices = crate::bytes::aligned_words(bytes, tables.vertices_offset(), 2 * tables.vertex_count());
    let (Some(bones), Some(vertices)) = (bones, vertices) else {
        return project_rigid_bytes(gte, tables, &matrices[..bone_count], sxy, sz, stage);
    };
    let capacity = sxy.len().min(sz.len());
    match stage {
        None => {
            for (m, bone) in matrices.iter().zip(bones.chunks_exact(2)) {
                if let Some((first, words)) = range_words(bone, vertices, capacity) {
                    gte.set_matrix(m);
                    project_loaded_words(gte, words, &mut sxy[first..], &mut sz[first..]);
                }
            }
        }
        Some(stage) => {
            for ((m, copy), bone) in matrices.iter().zip(stage.iter_mut()).zip(bones.chunks_exact(2)) {
                match range_words(bone, vertices, capacity) {
                    Some((first, words)) => {
                        gte.backend_mut().load_matrix_copying(m, copy);
                        project_loaded_words(gte, words, &mut sxy[first..], &mut sz[first..]);
                    }
                    None => *copy = *m,
                }
            }
        }
    }
}

/// A bone's first vertex and its vertex words (two a vertex), from its entry (`parent | first << 16`,
/// `count | name << 16`), clipped to `capacity` results; None for an empty range.
#[inline(always)]
fn range_words<'v>(bone: &[u32], vertices: &'v [u32], capacity: usize) -> Option<(usize, &'v [u32])> {
    let first = (bone[0] >> 16) as usize;
    let count = ((bone[1] & 0xFFFF) as usize).min(capacity.saturating_sub(first));
    vertices.get(2 * first..2 * (first + count)).filter(|_| count != 0).map(|w| (first, w))
}

/// `project_rigid` for a blob that does not sit 4-aligned in memory: the same results, read byte by byte.
#[cold]
#[inline(never)]
fn project_rigid_bytes<B: Cop2>(gte: &mut Gte<B>, tables: &Tables, matrices: &[Matrix], sxy: &mut [u32], sz: &mut [u32], mut stage: Option<&mut [Matrix]>) {
    let bytes = tables.bytes();
    let base = tables.vertices_offset();
    let capacity = sxy.len().min(sz.len());
    for (bone, m) in matrices.iter().enumerate() {
        let range = tables.bone(bone);
        let first = range.first_vertex as usize;
        let count = (range.vertex_count as usize).min(capacity.saturating_sub(first));
        match stage.as_deref_mut() {
            Some(stage) => gte.backend_mut().load_matrix_copying(m, &mut stage[bone]),
            None => gte.set_matrix(m),
        }
        project_loaded_bytes(gte, bytes, base + first * VERTEX_SIZE, count, &mut sxy[first..], &mut sz[first..]);
    }
}

/// One range of vertex words (`x | y << 16`, `z`: two words a vertex) with the matrix already in RT /
/// TR into `sxy` and `sz` (as many vertices as both hold): whole triples by [`Cop2::rtpt_words`], then
/// the last one or two vertices.
#[inline(always)]
pub(super) fn project_loaded_words<B: Cop2>(gte: &mut Gte<B>, words: &[u32], sxy: &mut [u32], sz: &mut [u32]) {
    let count = (words.len() / 2).min(sxy.len()).min(sz.len());
    if count == 0 {
        return;
    }
    let (sxy, sz) = (&mut sxy[..count], &mut sz[..count]);
    let done = gte.backend_mut().rtpt_words(&words[..2 * count], sxy, sz);
    if done < count && count >= 3 {
        // The last one or two vertices: project the range's last three again (the same matrix
        // gives the same results) rather than a padded RTPT.
        let last = count - 3;
        gte.backend_mut().rtpt_words(&words[2 * last..2 * count], &mut sxy[last..], &mut sz[last..]);
    } else if done < count {
        project_run(gte, count - done, |i| (words[2 * (done + i)], words[2 * (done + i) + 1]), &mut sxy[done..], &mut sz[done..]);
    }
}

/// [`project_loaded_words`] for a blob that does not sit 4-aligned: the vertices read byte by byte
/// from `bytes[start..]`.
pub(super) fn project_loaded_bytes<B: Cop2>(gte: &mut Gte<B>, bytes: &[u8], start: usize, count: usize, sxy: &mut [u32], sz: &mut [u32]) {
    let count = count.min(sxy.len()).min(sz.len());
    if count == 0 {
        return;
    }
    let at = |i: usize| (word(bytes, start + i * VERTEX_SIZE), word(bytes, start + i * VERTEX_SIZE + 4));
    project_run(gte, count, at, &mut sxy[..count], &mut sz[..count])
}

/// Baked: decoded model-space positions with one object matrix (view * world), whole triples through
/// [`Cop2::rtpt_positions`], the last one or two vertices as in `project_rigid`.
pub fn project_positions<B: Cop2>(gte: &mut Gte<B>, object: &Matrix, positions: &[[i16; 3]], sxy: &mut [u32], sz: &mut [u32]) {
    gte.set_matrix(object);
    let count = positions.len().min(sxy.len()).min(sz.len());
    let (positions, sxy, sz) = (&positions[..count], &mut sxy[..count], &mut sz[..count]);
    let done = gte.backend_mut().rtpt_positions(positions, sxy, sz);
    if done < count && count >= 3 {
        let last = count - 3;
        gte.backend_mut().rtpt_positions(&positions[last..], &mut sxy[last..], &mut sz[last..]);
    } else if done < count {
        let pack = |p: &[i16; 3]| (p[0] as u16 as u32 | (p[1] as u16 as u32) << 16, p[2] as u16 as u32);
        let rest = &positions[done..];
        project_run(gte, count - done, |i| pack(&rest[i]), &mut sxy[done..], &mut sz[done..]);
    }
}
