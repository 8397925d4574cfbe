//! The order of a rigid character's vertices in the blob: one contiguous range per bone (the GTE
//! projects a range with its bone's matrix), the ranges and the vertices inside each placed so that
//! every triangle's vertices lie close together.
//!
//! Why: the primitive stream names a vertex by 10 bits from its run's base (`tables::primitives`), so
//! a triangle's vertices must lie within one window of 1,024 from a base that is a multiple of 16
//! (1,009 apart at most, wherever they start). A character of up to 1,024 vertices always fits, and
//! keeps the plain order: bones in table order, each bone's vertices in the file's order. A larger one
//! whose triangles join bones far apart in that order (the hips and a thigh, with the spine and arms
//! in between) is laid out again:
//!
//! - **Bones** ([`centred_bones`]): each root sits in the middle of its subtree, its children's
//!   subtrees alternating left and right of it, the smallest nearest; below, every bone is the end of
//!   its own subtree nearest its parent, its children's subtrees beyond it, the smallest nearest. A
//!   triangle across a joint then spans at most the smaller subtrees between parent and child.
//! - **Vertices inside a range** ([`range_order`]): breadth first over the range's own edges, from
//!   the vertices that share a triangle with a bone placed before it (Cuthill-McKee), so those come
//!   first and the vertices joined to bones after it come last; a range joined only to later bones is
//!   walked from them and reversed.
//! - **Blended vertices** (two bones, `tables::blend`): in their strongest bone's stretch, each blend
//!   group together, beside that bone's rigid range on the side of the pair's other bone.

use std::collections::VecDeque;

use psxanim_runtime::tables::primitives::{MAX_INDEXED_VERTICES, MAX_RUN_BASE, RUN_BASE_UNIT};

use super::rigid_layout::{BlendPair, Slot};
use crate::fbx::Character;

/// The vertex indices of `c` in blob order (grouped by slot: `slots[v]`, a bone's rigid range or a
/// blend group of a pair and a weight), or why no order lets the primitive stream name every triangle.
///
/// The plain order: the rigid ranges in bone order, then the blend groups by pair and weight. A larger
/// character is laid out bone by bone ([`centred_bones`]); a blended vertex belongs to its strongest
/// bone `a`'s stretch, its groups beside `a`'s rigid range on the side of the pair's other bone (where
/// the joint is), so a triangle across the joint stays within a window.
pub fn rigid_order(c: &Character, slots: &[Slot], pairs: &[BlendPair]) -> Result<Vec<usize>, String> {
    let mut plain: Vec<usize> = (0..c.vertices.len()).collect();
    plain.sort_by_key(|&v| slots[v]); // stable: keeps the file's order within a slot
    if c.vertices.len() <= MAX_INDEXED_VERTICES || farthest_triangle(c, &plain).is_none() {
        return Ok(plain);
    }
    let bones = centred_bones(c);
    let mut place = vec![0; c.bones.len()];
    for (i, &b) in bones.iter().enumerate() {
        place[b] = i;
    }
    let neighbours = neighbours(c);
    let mut order = Vec::with_capacity(c.vertices.len());
    let mut by_bone: Vec<Vec<usize>> = vec![Vec::new(); c.bones.len()];
    for (i, v) in c.vertices.iter().enumerate() {
        by_bone[v.bone].push(i);
    }
    for &b in &bones {
        let walked = range_order(c, &by_bone[b], &neighbours, &place);
        // The groups toward bones placed before `a` first, then the rigid range, then the others.
        let side = |v: usize| match slots[v] {
            Slot::Rigid(_) => 1,
            Slot::Blend(p, _) if place[pairs[p].b] < place[b] => 0,
            Slot::Blend(..) => 2,
        };
        let mut keyed: Vec<(usize, Slot, usize)> = walked.iter().map(|&v| (side(v), slots[v], v)).collect();
        keyed.sort_by_key(|k| (k.0, if k.0 == 1 { Slot::Rigid(0) } else { k.1 })); // stable: the walk's order inside
        order.extend(keyed.into_iter().map(|k| k.2));
    }
    match farthest_triangle(c, &order) {
        None => Ok(order),
        Some((t, span)) => {
            let tri = &c.triangles[t];
            let v = &c.vertices[tri.vertices[0]];
            let mut names: Vec<&str> = tri.vertices.iter().map(|&v| c.bones[c.vertices[v].bone].name.as_str()).collect();
            names.dedup();
            Err(format!(
                "mesh '{}': a triangle of vertices {} (bones '{}') lies {span} vertices apart in any order of the \
                 {} vertices that keeps each bone's together; the primitive stream names a triangle's vertices \
                 within {} of each other",
                v.mesh,
                tri.vertices.map(|v| c.vertices[v].source_index).map(|i| i.to_string()).join(", "),
                names.join("', '"),
                c.vertices.len(),
                MAX_INDEXED_VERTICES - RUN_BASE_UNIT + 1
            ))
        }
    }
}

/// The first triangle no run window holds in `order` (blob order: `order[new] = old`), with its span.
fn farthest_triangle(c: &Character, order: &[usize]) -> Option<(usize, usize)> {
    let mut at = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    c.triangles.iter().enumerate().find_map(|(t, tri)| {
        let v = tri.vertices.map(|v| at[v]);
        let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        let base = lo / RUN_BASE_UNIT * RUN_BASE_UNIT;
        (hi - base >= MAX_INDEXED_VERTICES || base > MAX_RUN_BASE).then_some((t, hi - lo))
    })
}

/// Each vertex's neighbours: the other corners of its triangles.
fn neighbours(c: &Character) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); c.vertices.len()];
    for t in &c.triangles {
        for (i, &v) in t.vertices.iter().enumerate() {
            for (j, &w) in t.vertices.iter().enumerate() {
                if i != j && !out[v].contains(&w) {
                    out[v].push(w);
                }
            }
        }
    }
    out
}

/// The bones in range order (see the module's documentation).
pub fn centred_bones(c: &Character) -> Vec<usize> {
    let n = c.bones.len();
    let mut children = vec![Vec::new(); n];
    let mut size = vec![0usize; n];
    for v in &c.vertices {
        size[v.bone] += 1;
    }
    // Parent-first: children's subtree sizes are complete before their parent's is read.
    for b in (0..n).rev() {
        if let Some(p) = c.bones[b].parent {
            size[p] += size[b];
            children[p].push(b);
        }
    }
    for kids in &mut children {
        kids.sort_by_key(|&k| size[k]); // stable: table order among equals
    }
    // `b`'s subtree ending with `b`: its children's subtrees before it, the largest farthest.
    fn toward_parent(b: usize, children: &[Vec<usize>], out: &mut Vec<usize>) {
        for &k in children[b].iter().rev() {
            toward_parent(k, children, out);
        }
        out.push(b);
    }
    let mut out = Vec::with_capacity(n);
    for root in (0..n).filter(|&b| c.bones[b].parent.is_none()) {
        let kids = &children[root];
        // The smallest children nearest the root, alternating left (even) and right (odd).
        let left: Vec<usize> = kids.iter().copied().step_by(2).collect();
        let right: Vec<usize> = kids.iter().copied().skip(1).step_by(2).collect();
        for &k in left.iter().rev() {
            toward_parent(k, &children, &mut out);
        }
        out.push(root);
        for &k in &right {
            let mut sub = Vec::new();
            toward_parent(k, &children, &mut sub);
            out.extend(sub.into_iter().rev());
        }
    }
    out
}

/// The vertices of one bone's range (`members`, in file order) in blob order (see the module's
/// documentation); `place[b]` is bone b's position in range order.
fn range_order(c: &Character, members: &[usize], neighbours: &[Vec<usize>], place: &[usize]) -> Vec<usize> {
    let Some(&first) = members.first() else {
        return Vec::new();
    };
    let here = place[c.vertices[first].bone];
    let joined = |v: usize, before: bool| {
        neighbours[v].iter().any(|&w| {
            let p = place[c.vertices[w].bone];
            if before {
                p < here
            } else {
                p > here
            }
        })
    };
    let from_before: Vec<usize> = members.iter().copied().filter(|&v| joined(v, true)).collect();
    let (seeds, reverse) = if from_before.is_empty() {
        (members.iter().copied().filter(|&v| joined(v, false)).collect(), true)
    } else {
        (from_before, false)
    };
    let bone = c.vertices[first].bone;
    let mut seen = vec![false; c.vertices.len()];
    let mut out = Vec::with_capacity(members.len());
    let mut queue = VecDeque::new();
    // Breadth first from what the queue holds, over edges inside the range.
    let drain = |queue: &mut VecDeque<usize>, seen: &mut [bool], out: &mut Vec<usize>| {
        while let Some(v) = queue.pop_front() {
            out.push(v);
            for &w in &neighbours[v] {
                if !seen[w] && c.vertices[w].bone == bone {
                    seen[w] = true;
                    queue.push_back(w);
                }
            }
        }
    };
    // Every seed starts the first level; then the rest of the range, component by component.
    for &v in &seeds {
        if !seen[v] {
            seen[v] = true;
            queue.push_back(v);
        }
    }
    drain(&mut queue, &mut seen, &mut out);
    for &v in members {
        if !seen[v] {
            seen[v] = true;
            queue.push_back(v);
            drain(&mut queue, &mut seen, &mut out);
        }
    }
    if reverse {
        out.reverse();
    }
    out
}
