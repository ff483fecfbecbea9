//! The methods GRAPE is compared with, each exactly balanced like GRAPE itself: the original thread
//! order cut into consecutive chunks, a random order cut the same way, a METIS vertex partition of D
//! with its edges handed to clusters and then rebalanced, and, for meshes with coordinates, edges
//! ordered along a Hilbert curve (the paper's CFD baseline: space-filling-curve ordering).
//!
//! These are reference points, not contenders: none of them looks at the cost C while deciding.

use crate::graph::Graph;
use crate::metis_kway::{self, MetisError};
use crate::partition::{target_load, EdgePartition};
use crate::rng::SplitMix64;

/// METIS's allowed vertex imbalance for the vertex baseline, in thousandths: loose enough to let METIS
/// cut well, tight enough that the exact rebalancing afterwards moves few edges.
pub const VERTEX_UFACTOR: metis::Idx = 30;

/// Bits per axis of the Hilbert grid: 2 × 16 and 3 × 10 bits both fit a u64 index, and 2^10 cells
/// per axis already separate the vertices of any mesh this crate handles.
pub const HILBERT_BITS_2D: u32 = 16;
pub const HILBERT_BITS_3D: u32 = 10;

const NONE: u32 = u32::MAX;

/// Cuts an edge order into consecutive clusters of exactly `target_load` edges: `order[t]` is the
/// edge at position t, a permutation of `0..order.len()`. `parts` 0 is taken as 1.
pub fn from_order(order: &[u32], parts: u32) -> EdgePartition {
    let parts = parts.max(1);
    let m = order.len();
    let mut cluster = vec![0u32; m];
    let mut position = 0usize;
    for c in 0..parts {
        for &e in &order[position..position + target_load(m, parts, c)] {
            cluster[e as usize] = c;
        }
        position += target_load(m, parts, c);
    }
    EdgePartition { parts, cluster }
}

/// The threads in the order the input gave them.
pub fn original(graph: &Graph, parts: u32) -> EdgePartition {
    let order: Vec<u32> = (0..graph.edges.len() as u32).collect();
    from_order(&order, parts)
}

/// A seeded random thread order.
pub fn random(graph: &Graph, parts: u32, seed: u64) -> EdgePartition {
    let mut order: Vec<u32> = (0..graph.edges.len() as u32).collect();
    SplitMix64::new(seed).shuffle(&mut order);
    from_order(&order, parts)
}

/// METIS k-way partition of D's vertices; each edge goes to the part of its lower-numbered endpoint,
/// then the clusters are rebalanced to exactly `target_load` edges. `parts` 0 is taken as 1.
pub fn vertex(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    let parts = parts.max(1);
    let weighted: Vec<(u32, u32, metis::Idx)> =
        graph.edges.iter().map(|&(u, v)| (u, v, 1)).collect();
    let part = metis_kway::partition(
        graph.vertices as usize,
        &weighted,
        parts,
        VERTEX_UFACTOR,
        seed,
    )?;
    let mut cluster: Vec<u32> = graph
        .edges
        .iter()
        .map(|&(u, v)| part[u.min(v) as usize])
        .collect();
    rebalance(graph, &part, parts, &mut cluster);
    Ok(EdgePartition { parts, cluster })
}

/// Moves edges out of over-full clusters into under-full ones until every cluster holds exactly its
/// target. Three passes over the edges, each preferring less harm: first an edge whose other
/// endpoint's METIS part is the receiving cluster (it joins its own side), then an edge touching a
/// vertex already seen in an under-full cluster (that vertex gains no load), then any edge.
/// Loads only fall in over-full clusters and only rise in under-full ones, so a cluster never changes
/// side and the last pass ends balanced.
fn rebalance(graph: &Graph, part: &[u32], parts: u32, cluster: &mut [u32]) {
    let m = graph.edges.len();
    let target: Vec<usize> = (0..parts).map(|c| target_load(m, parts, c)).collect();
    let mut load = vec![0usize; parts as usize];
    for &c in cluster.iter() {
        load[c as usize] += 1;
    }
    let over = |load: &[usize], c: u32| load[c as usize] > target[c as usize];
    let under = |load: &[usize], c: u32| load[c as usize] < target[c as usize];

    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        let from = cluster[e];
        let to = part[u.max(v) as usize];
        if over(&load, from) && under(&load, to) {
            cluster[e] = to;
            load[from as usize] -= 1;
            load[to as usize] += 1;
        }
    }

    // An under-full cluster each vertex is known to appear in; refreshed as edges move in.
    let mut seen_in = vec![NONE; graph.vertices as usize];
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        if under(&load, cluster[e]) {
            seen_in[u as usize] = cluster[e];
            seen_in[v as usize] = cluster[e];
        }
    }
    let mut receiver = 0u32;
    for any_edge in [false, true] {
        for (e, &(u, v)) in graph.edges.iter().enumerate() {
            let from = cluster[e];
            if !over(&load, from) {
                continue;
            }
            let known = [seen_in[u as usize], seen_in[v as usize]]
                .into_iter()
                .find(|&c| c != NONE && under(&load, c));
            let to = match known {
                Some(c) => c,
                None if any_edge => {
                    while !under(&load, receiver) {
                        receiver += 1;
                    }
                    receiver
                }
                None => continue,
            };
            cluster[e] = to;
            load[from as usize] -= 1;
            load[to as usize] += 1;
            seen_in[u as usize] = to;
            seen_in[v as usize] = to;
        }
    }
}

/// Edges ordered by the Hilbert index of their midpoints, cut into consecutive clusters. `None`
/// when the graph has no coordinates (or not one per vertex). The curve is 2-D when every z is equal,
/// else 3-D, over the bounding box of the midpoints.
pub fn hilbert(graph: &Graph, parts: u32) -> Option<EdgePartition> {
    let coords = graph.coords.as_ref()?;
    if coords.len() != graph.vertices as usize {
        return None;
    }
    let midpoints: Vec<[f64; 3]> = graph
        .edges
        .iter()
        .map(|&(u, v)| {
            let (a, b) = (coords[u as usize], coords[v as usize]);
            [
                (a[0] + b[0]) / 2.0,
                (a[1] + b[1]) / 2.0,
                (a[2] + b[2]) / 2.0,
            ]
        })
        .collect();
    let flat = coords
        .iter()
        .all(|p| p[2] == coords.first().map_or(0.0, |q| q[2]));
    let (dims, bits) = if flat {
        (2, HILBERT_BITS_2D)
    } else {
        (3, HILBERT_BITS_3D)
    };
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for p in &midpoints {
        for a in 0..3 {
            low[a] = low[a].min(p[a]);
            high[a] = high[a].max(p[a]);
        }
    }
    let cells = f64::from((1u32 << bits) - 1);
    let keys: Vec<u64> = midpoints
        .iter()
        .map(|p| {
            let mut axes = [0u32; 3];
            for a in 0..dims {
                let span = high[a] - low[a];
                // Non-finite coordinates and flat axes land in cell 0 (`as` saturates NaN to 0).
                let t = if span > 0.0 {
                    (p[a] - low[a]) / span
                } else {
                    0.0
                };
                axes[a] = (t * cells).round() as u32;
            }
            hilbert_index(&axes[..dims], bits)
        })
        .collect();
    let mut order: Vec<u32> = (0..graph.edges.len() as u32).collect();
    order.sort_by_key(|&e| keys[e as usize]);
    Some(from_order(&order, parts))
}

/// Position along the Hilbert curve of a point on a 2^bits grid in `axes.len()` dimensions
/// (dims × bits ≤ 64). Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707,
/// 2004): axes to the "transposed" index with Gray-code undo and per-level rotations/reflections, then
/// the transposed bits interleaved, most significant level first. Bits above `bits` are ignored.
pub fn hilbert_index(axes: &[u32], bits: u32) -> u64 {
    let dims = axes.len();
    if dims == 0 || bits == 0 {
        return 0;
    }
    let mask = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let mut x: Vec<u32> = axes.iter().map(|&a| a & mask).collect();
    let top = 1u32 << (bits - 1);

    // Inverse undo: walk the levels from the coarsest, reflecting or exchanging low bits.
    let mut q = top;
    while q > 1 {
        let p = q - 1;
        for i in 0..dims {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q >>= 1;
    }
    // Gray encode.
    for i in 1..dims {
        x[i] ^= x[i - 1];
    }
    let mut t = 0u32;
    let mut q = top;
    while q > 1 {
        if x[dims - 1] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    for xi in x.iter_mut() {
        *xi ^= t;
    }
    // Interleave: level b of axis 0 is the most significant of that level's dims bits.
    let mut index = 0u64;
    for b in (0..bits).rev() {
        for xi in &x {
            index = (index << 1) | u64::from((xi >> b) & 1);
        }
    }
    index
}
