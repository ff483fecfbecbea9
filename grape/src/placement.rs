//! Data placement after an edge partition (GRAPE's layout step): the order in which the data objects
//! should sit in memory so that each cluster's objects are contiguous and neighbouring clusters'
//! shared objects sit between them. Clusters are visited in a chain: start at cluster 0, lay out its
//! internal objects (appearing in no other cluster), then its boundary objects not yet placed, then
//! move to the unvisited cluster sharing the most objects with the current one (lowest id on ties,
//! and the lowest unvisited id when none shares any). Objects no edge touches go last, in id order.
//!
//! Inside a cluster, objects keep the order in which the cluster's edges (in input order, which is
//! also the order `EdgePartition::edge_order` gives the cluster's threads) first touch them.
//!
//! This module only computes orders; it moves no data.

use crate::graph::Graph;
use crate::partition::EdgePartition;

/// The new data order: `order[i]` is the vertex placed at position i, a permutation of
/// `0..graph.vertices`. Edges beyond the partition's length are ignored, and clusters are counted up to
/// the largest id used, so an inconsistent partition yields an order, not a panic.
pub fn data_order(graph: &Graph, partition: &EdgePartition) -> Vec<u32> {
    let n = graph.vertices as usize;
    let assigned = || graph.edges.iter().zip(&partition.cluster);
    let parts = assigned()
        .map(|(_, &c)| c as usize + 1)
        .max()
        .unwrap_or(0)
        .max(partition.parts as usize);

    // Edges grouped by cluster (counting sort, input order kept within a cluster).
    let mut edge_start = vec![0usize; parts + 1];
    for (_, &c) in assigned() {
        edge_start[c as usize + 1] += 1;
    }
    for c in 0..parts {
        edge_start[c + 1] += edge_start[c];
    }
    let mut fill = edge_start.clone();
    let mut by_cluster = vec![(0u32, 0u32); edge_start[parts]];
    for (&edge, &c) in assigned() {
        by_cluster[fill[c as usize]] = edge;
        fill[c as usize] += 1;
    }

    // The objects of each cluster, first touch first, and how many clusters each object appears in.
    let mut seen = vec![u32::MAX; n];
    let mut appearances = vec![0u32; n];
    let mut object_start = Vec::with_capacity(parts + 1);
    let mut objects: Vec<u32> = Vec::new();
    for c in 0..parts {
        object_start.push(objects.len());
        for &(u, v) in &by_cluster[edge_start[c]..edge_start[c + 1]] {
            for x in [u, v] {
                if seen[x as usize] != c as u32 {
                    seen[x as usize] = c as u32;
                    appearances[x as usize] += 1;
                    objects.push(x);
                }
            }
        }
    }
    object_start.push(objects.len());
    let objects_of = |c: usize| &objects[object_start[c]..object_start[c + 1]];

    // Clusters of each object (CSR), to count what the current cluster shares with the others.
    let mut cluster_start = vec![0usize; n + 1];
    for &x in &objects {
        cluster_start[x as usize + 1] += 1;
    }
    for v in 0..n {
        cluster_start[v + 1] += cluster_start[v];
    }
    let mut fill = cluster_start.clone();
    let mut clusters_of = vec![0u32; objects.len()];
    for c in 0..parts {
        for &x in objects_of(c) {
            clusters_of[fill[x as usize]] = c as u32;
            fill[x as usize] += 1;
        }
    }

    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    let mut visited = vec![false; parts];
    let mut shared = vec![0u32; parts];
    let mut touched: Vec<u32> = Vec::new();
    let mut lowest_unvisited = 0usize;
    let mut current = if parts > 0 { Some(0usize) } else { None };
    while let Some(c) = current {
        visited[c] = true;
        let internal = objects_of(c)
            .iter()
            .filter(|&&x| appearances[x as usize] == 1);
        let boundary = objects_of(c)
            .iter()
            .filter(|&&x| appearances[x as usize] > 1);
        for &x in internal.chain(boundary) {
            if !placed[x as usize] {
                placed[x as usize] = true;
                order.push(x);
            }
        }

        // Shared counts with the unvisited clusters; cost Σ_{x ∈ c} p_x, so Σ_x p_x² over the walk.
        for &x in objects_of(c) {
            for &d in &clusters_of[cluster_start[x as usize]..cluster_start[x as usize + 1]] {
                if !visited[d as usize] {
                    if shared[d as usize] == 0 {
                        touched.push(d);
                    }
                    shared[d as usize] += 1;
                }
            }
        }
        let best = touched
            .iter()
            .copied()
            .max_by_key(|&d| (shared[d as usize], std::cmp::Reverse(d)));
        for &d in &touched {
            shared[d as usize] = 0;
        }
        touched.clear();
        current = match best {
            Some(d) => Some(d as usize),
            None => {
                while lowest_unvisited < parts && visited[lowest_unvisited] {
                    lowest_unvisited += 1;
                }
                (lowest_unvisited < parts).then_some(lowest_unvisited)
            }
        };
    }
    order.extend((0..graph.vertices).filter(|&v| !placed[v as usize]));
    order
}

/// The new position of every vertex: `inverse(order)[order[i]] == i`. A vertex missing from `order`
/// maps to `u32::MAX`; entries out of range are ignored.
pub fn inverse(order: &[u32]) -> Vec<u32> {
    let mut position = vec![u32::MAX; order.len()];
    for (i, &v) in order.iter().enumerate() {
        if let Some(slot) = position.get_mut(v as usize) {
            *slot = i as u32;
        }
    }
    position
}
