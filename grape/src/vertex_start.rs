//! A start for the C-gain refinement from a vertex partition of D itself: METIS k-way on the
//! vertices (n of them, against the clone graph's 2m), every edge inside a part to that part, and
//! each cut edge (u, v), u in A and v in B, to the side where it adds no object: to A when v
//! already appears in A, to B when u already appears in B, else to the less loaded side. The loads
//! are then only near balance; `refine::refine` makes them exact.
//!
//! This is the "METIS vertex partition + greedy cut-edge assignment" the issue names as the anchor
//! for meshes, used here as a start, not as a result.

use crate::graph::Graph;
use crate::metis_kway::{self, MetisError};
use crate::partition::EdgePartition;
use crate::refine::ClusterCounts;

/// METIS's vertex imbalance (thousandths): loose enough to cut well, since the refinement repairs
/// the loads at a small cost.
pub const UFACTOR: metis::Idx = 30;

pub fn vertex_start(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    let weighted: Vec<(u32, u32, metis::Idx)> =
        graph.edges.iter().map(|&(u, v)| (u, v, 1)).collect();
    let part = metis_kway::partition(graph.vertices as usize, &weighted, parts, UFACTOR, seed)?;
    drop(weighted);
    let mut cluster = vec![u32::MAX; graph.edges.len()];
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        if part[u as usize] == part[v as usize] {
            cluster[e] = part[u as usize];
        }
    }
    // The counts of the internal edges: cut edges join one by one below.
    let mut load = vec![0i64; parts as usize];
    let inside: Vec<u32> = cluster
        .iter()
        .map(|&c| if c == u32::MAX { 0 } else { c })
        .collect();
    let mut counts = ClusterCounts::new(
        graph,
        &EdgePartition {
            parts,
            cluster: inside,
        },
    );
    for (e, &c) in cluster.iter().enumerate() {
        if c == u32::MAX {
            // Counted in cluster 0 above: take it out again.
            counts.shift_out(graph, e as u32, 0);
        } else {
            load[c as usize] += 1;
        }
    }
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        if cluster[e] != u32::MAX {
            continue;
        }
        let (a, b) = (part[u as usize], part[v as usize]);
        let to = if counts.count(v, a) > 0 {
            a
        } else if counts.count(u, b) > 0 {
            b
        } else if load[a as usize] <= load[b as usize] {
            a
        } else {
            b
        };
        cluster[e] = to;
        load[to as usize] += 1;
        counts.shift_in(graph, e as u32, to);
    }
    Ok(EdgePartition { parts, cluster })
}
