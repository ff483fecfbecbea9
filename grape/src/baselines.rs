//! The methods GRAPE is compared with, each exactly balanced like GRAPE itself: the original thread
//! order cut into consecutive chunks, a random order cut the same way, two ways of turning a METIS
//! vertex partition of D into an edge partition, and, for meshes with coordinates, edges ordered
//! along a Hilbert curve (the paper's CFD baseline: space-filling-curve ordering).
//!
//! `vertex` hands each edge to its lower endpoint's METIS part and rebalances without looking at C:
//! a weak reference point. `vertex_greedy` is the honest one, the standard way to get an edge
//! partition from a vertex partitioner: each uncut edge to its endpoints' common part, each cut edge
//! to the endpoint part that adds least to C given what is assigned so far, then a rebalance to exact
//! balance by best C-gain moves (`rebalance_exact`, also what the benchmark applies to partitions of
//! other tools that come back not exactly balanced). None of these searches for a low C beyond
//! that greedy step; they are what GRAPE must beat, not partitioners of their own.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Graph;
use crate::metis_kway::{self, InitialTries, MetisError};
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

/// METIS k-way partition of D's vertices (unit weights), the part of every vertex.
fn metis_vertex_parts(
    graph: &Graph,
    parts: u32,
    seed: u64,
    tries: InitialTries,
) -> Result<Vec<u32>, MetisError> {
    metis_kway::partition_with(
        graph.vertices as usize,
        || graph.edges.iter().map(|&(u, v)| (u, v, 1)),
        parts,
        VERTEX_UFACTOR,
        seed,
        tries,
    )
}

/// METIS k-way partition of D's vertices; each edge goes to the part of its lower-numbered endpoint,
/// then the clusters are rebalanced to exactly `target_load` edges. `parts` 0 is taken as 1.
pub fn vertex(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    let parts = parts.max(1);
    let part = metis_vertex_parts(graph, parts, seed, InitialTries::Metis)?;
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

/// METIS k-way partition of D's vertices turned into an edge partition the standard way
/// ([`assign_by_vertex_part`]), then rebalanced to exact balance by best C-gain moves
/// ([`rebalance_exact`]); the clusters are numbered so that cluster c holds `target_load(m, k, c)`
/// edges, like every other method's. `parts` 0 is taken as 1. METIS runs with its own effort: this
/// is the anchor.
pub fn vertex_greedy(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    vertex_greedy_with(graph, parts, seed, InitialTries::Metis)
}

/// [`vertex_greedy`] with METIS trying `tries` initial partitions of its coarsest graph.
pub fn vertex_greedy_with(
    graph: &Graph,
    parts: u32,
    seed: u64,
    tries: InitialTries,
) -> Result<EdgePartition, MetisError> {
    let parts = parts.max(1);
    let part = metis_vertex_parts(graph, parts, seed, tries)?;
    let mut partition = assign_by_vertex_part(graph, &part, parts);
    drop(part);
    let target = exact_targets(&partition.loads());
    rebalance_exact(graph, &mut partition, &target);
    number_by_load(&mut partition);
    Ok(partition)
}

/// The edge partition a vertex partition `part` (a part below `parts` for every vertex) implies:
/// every edge whose endpoints share a part goes there; then, in input order, every cut edge goes to
/// whichever of its endpoints' parts adds less to C given the edges placed so far (a vertex not yet
/// in that cluster adds 1), the lighter cluster on a tie, the first endpoint's part on a full tie.
/// Loads are whatever this gives: see [`rebalance_exact`].
pub fn assign_by_vertex_part(graph: &Graph, part: &[u32], parts: u32) -> EdgePartition {
    let parts = parts.max(1);
    let mut cluster = vec![NONE; graph.edges.len()];
    let mut load = vec![0u64; parts as usize];
    let mut seen = Appearances::new(graph, parts);
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        let c = part[u as usize];
        if c == part[v as usize] {
            cluster[e] = c;
            load[c as usize] += 1;
            seen.add(graph, e as u32, c);
        }
    }
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        if cluster[e] != NONE {
            continue;
        }
        let added = |c: u32| u32::from(seen.count(u, c) == 0) + u32::from(seen.count(v, c) == 0);
        let (a, b) = (part[u as usize], part[v as usize]);
        let c = if (added(b), load[b as usize]) < (added(a), load[a as usize]) {
            b
        } else {
            a
        };
        cluster[e] = c;
        load[c as usize] += 1;
        seen.add(graph, e as u32, c);
    }
    EdgePartition { parts, cluster }
}

/// Exactly balanced targets closest to `loads`: every cluster ⌊m/k⌋ edges, and the m mod k
/// fullest (lower index first among equals) one more, so that no edge moves only to put the extra
/// edges in particular clusters.
pub fn exact_targets(loads: &[u64]) -> Vec<usize> {
    let k = loads.len().max(1);
    let m: u64 = loads.iter().sum();
    let mut target = vec![m as usize / k; loads.len()];
    let mut fullest: Vec<usize> = (0..loads.len()).collect();
    fullest.sort_by_key(|&c| (Reverse(loads[c]), c));
    for &c in fullest.iter().take(m as usize % k) {
        target[c] += 1;
    }
    target
}

/// Renumbers clusters, heaviest first (stable among equals), so that an exactly balanced partition
/// has cluster c holding `target_load(m, k, c)` edges. C does not depend on the numbering.
pub fn number_by_load(partition: &mut EdgePartition) {
    let loads = partition.loads();
    let mut by_load: Vec<u32> = (0..partition.parts).collect();
    by_load.sort_by_key(|&c| Reverse(loads[c as usize]));
    let mut new_id = vec![0u32; partition.parts as usize];
    for (id, &c) in by_load.iter().enumerate() {
        new_id[c as usize] = id as u32;
    }
    for c in &mut partition.cluster {
        *c = new_id[*c as usize];
    }
}

/// Vertices of higher degree are not re-examined after each move (see [`rebalance_exact`]): their
/// gains change by at most one per move, and re-reading all their edges after every move near a hub
/// would cost degree × moves.
pub const RESCAN_DEGREE: usize = 1024;

/// Moves edges from clusters above `target` (one entry per cluster, summing to m) into clusters
/// below it until every cluster c holds exactly `target[c]` edges, best C-gain move first. Returns
/// the number of moves, which is the total excess Σ max(0, load − target): no edge moves twice.
///
/// The gain of moving edge e from A to B is Σ over its endpoints w of [e is w's only edge in A] −
/// [w has no edge in B]. An edge is offered to every under-full cluster one of its endpoints already
/// appears in; when there is none, to any under-full cluster (gain = what leaving A saves − 2),
/// filled one at a time so that such edges land together and the next ones find their neighbours.
/// Candidates sit in a max-heap by gain (lower edge index first among equals); a popped entry is
/// re-evaluated and pushed back if its gain dropped. After a move, the edges of each endpoint w
/// (degree at most [`RESCAN_DEGREE`]) are pushed again when w's last edge in A or first edge in B
/// changes their gains. Loads only fall in over-full clusters and only rise in under-full ones, so
/// a cluster never changes side, and the heap holds an entry for every edge of an over-full cluster
/// until the partition is balanced.
///
/// # Panics
/// If `target` does not have one entry per cluster or does not sum to the number of edges.
pub fn rebalance_exact(graph: &Graph, partition: &mut EdgePartition, target: &[usize]) -> usize {
    let parts = partition.parts as usize;
    assert_eq!(target.len(), parts, "one target per cluster");
    assert_eq!(
        target.iter().sum::<usize>(),
        graph.edges.len(),
        "targets must sum to the edge count"
    );
    let mut load: Vec<usize> = partition.loads().iter().map(|&l| l as usize).collect();
    if load == target {
        return 0;
    }
    let mut seen = Appearances::new(graph, partition.parts);
    for (e, &c) in partition.cluster.iter().enumerate() {
        seen.add(graph, e as u32, c);
    }
    let incidence = graph.incidence();
    let cluster = &mut partition.cluster;
    let mut mark = vec![NONE; parts];

    // Built in one go (linear) rather than pushed one by one: entries differ in their edge or are
    // equal, so the order of the pops, and so the moves, does not depend on how the heap was built.
    let mut heap: BinaryHeap<(i32, Reverse<u32>, u32)> = cluster
        .iter()
        .enumerate()
        .filter(|&(_, &c)| load[c as usize] > target[c as usize])
        .map(|(e, &c)| {
            let (gain, to) = best_move(graph, &seen, &load, target, c, e as u32, &mut mark);
            (gain, Reverse(e as u32), to)
        })
        .collect::<Vec<_>>()
        .into();
    // Every move takes one edge off the total excess; once it is 0 every entry left in the heap
    // would be skipped (its cluster no longer over-full), so the loop stops there instead of popping
    // them all (after a vertex partition, every edge of an over-full cluster has an entry; popping
    // the rest took 20–55 % of this function's time on 3-D Delaunay 100 k, k = 256 and 32).
    let mut excess: usize = load
        .iter()
        .zip(target)
        .map(|(&l, &t)| l.saturating_sub(t))
        .sum();
    let mut receiver: Option<u32> = None;
    let mut moves = 0;
    while excess > 0 {
        let Some((gain, Reverse(e), _)) = heap.pop() else {
            break;
        };
        let from = cluster[e as usize];
        if load[from as usize] <= target[from as usize] {
            continue;
        }
        let (now, to) = best_move(graph, &seen, &load, target, from, e, &mut mark);
        if now < gain {
            heap.push((now, Reverse(e), to));
            continue;
        }
        let to = if to != NONE {
            to
        } else {
            // Keep filling one under-full cluster; when it is full, take the most under-full.
            match receiver.filter(|&r| load[r as usize] < target[r as usize]) {
                Some(r) => r,
                None => {
                    let r = (0..parts)
                        .filter(|&c| load[c] < target[c])
                        .max_by_key(|&c| (target[c] - load[c], Reverse(c)))
                        .expect("an over-full cluster implies an under-full one")
                        as u32;
                    receiver = Some(r);
                    r
                }
            }
        };
        seen.remove(graph, e, from);
        seen.add(graph, e, to);
        cluster[e as usize] = to;
        load[from as usize] -= 1;
        load[to as usize] += 1;
        moves += 1;
        excess -= 1;
        for w in ends(graph, e).into_iter().flatten() {
            let changed = seen.count(w, from) == 1 || seen.count(w, to) == 1;
            let edges = incidence.edges_of(w);
            if !changed || edges.len() > RESCAN_DEGREE {
                continue;
            }
            for &f in edges {
                let c = cluster[f as usize];
                if load[c as usize] > target[c as usize] {
                    let (gain, to) = best_move(graph, &seen, &load, target, c, f, &mut mark);
                    heap.push((gain, Reverse(f), to));
                }
            }
        }
    }
    debug_assert_eq!(load, target);
    moves
}

/// The best move of edge e out of cluster `from` into an under-full cluster: (gain, cluster), the
/// cluster `NONE` when no endpoint appears in an under-full cluster (then any will do, at the same
/// gain). Among equal gains the lower cluster index wins. `mark` (one entry per cluster, all
/// `NONE` between calls) finds the clusters both endpoints appear in in O(p_u + p_v), not
/// O(p_u · p_v), which matters when both are hubs spread over hundreds of clusters.
fn best_move(
    graph: &Graph,
    seen: &Appearances,
    load: &[usize],
    target: &[usize],
    from: u32,
    e: u32,
    mark: &mut [u32],
) -> (i32, u32) {
    let [u, v] = ends(graph, e);
    let u = u.expect("an edge has a first endpoint");
    let endpoints = 1 + i32::from(v.is_some());
    let saved: i32 = [Some(u), v]
        .into_iter()
        .flatten()
        .map(|w| i32::from(seen.count(w, from) == 1))
        .sum();
    let open = |c: u32| c != from && load[c as usize] < target[c as usize];
    let mut best = (saved - endpoints, NONE);
    let mut consider = |gain: i32, c: u32| {
        if gain > best.0 || (gain == best.0 && c < best.1) {
            best = (gain, c);
        }
    };
    // Gain: saved − (endpoints absent from c).
    for &(c, _) in seen.of(u) {
        mark[c as usize] = u;
    }
    if let Some(v) = v {
        for &(c, _) in seen.of(v) {
            if open(c) {
                let both = mark[c as usize] == u;
                consider(saved - endpoints + 1 + i32::from(both), c);
            }
        }
    }
    // Clusters of u alone score + 1; one v also holds was scored + 2 above, and `consider` keeps
    // the higher.
    for &(c, _) in seen.of(u) {
        mark[c as usize] = NONE;
        if open(c) {
            consider(saved - endpoints + 1, c);
        }
    }
    best
}

/// The distinct endpoints of edge e: a self-loop has one.
fn ends(graph: &Graph, e: u32) -> [Option<u32>; 2] {
    let (u, v) = graph.edges[e as usize];
    [Some(u), (v != u).then_some(v)]
}

/// For every vertex, the clusters it appears in with how many of its edges each holds (a self-loop
/// counts once): a short unsorted list per vertex in one array, room for min(degree, k) entries,
/// since a vertex appears in at most that many clusters. At most 2m entries of 8 bytes, and lookups
/// scan p_v entries, which is small except at hubs.
struct Appearances {
    start: Vec<usize>,
    len: Vec<u32>,
    entry: Vec<(u32, u32)>,
}

impl Appearances {
    fn new(graph: &Graph, parts: u32) -> Appearances {
        let n = graph.vertices as usize;
        let mut start = vec![0usize; n + 1];
        for (v, d) in graph.degrees().into_iter().enumerate() {
            start[v + 1] = start[v] + d.min(parts) as usize;
        }
        let entry = vec![(NONE, 0); start[n]];
        Appearances {
            start,
            len: vec![0; n],
            entry,
        }
    }

    fn of(&self, v: u32) -> &[(u32, u32)] {
        let s = self.start[v as usize];
        &self.entry[s..s + self.len[v as usize] as usize]
    }

    fn count(&self, v: u32, c: u32) -> u32 {
        self.of(v)
            .iter()
            .find(|&&(d, _)| d == c)
            .map_or(0, |&(_, n)| n)
    }

    /// Records edge e in cluster c.
    fn add(&mut self, graph: &Graph, e: u32, c: u32) {
        for w in ends(graph, e).into_iter().flatten() {
            let (s, l) = (self.start[w as usize], self.len[w as usize] as usize);
            match self.entry[s..s + l].iter_mut().find(|(d, _)| *d == c) {
                Some((_, n)) => *n += 1,
                None => {
                    self.entry[s + l] = (c, 1);
                    self.len[w as usize] += 1;
                }
            }
        }
    }

    /// Forgets edge e in cluster c (it must have been recorded there).
    fn remove(&mut self, graph: &Graph, e: u32, c: u32) {
        for w in ends(graph, e).into_iter().flatten() {
            let (s, l) = (self.start[w as usize], self.len[w as usize] as usize);
            let i = self.entry[s..s + l]
                .iter()
                .position(|&(d, _)| d == c)
                .expect("a recorded edge's cluster is in its endpoints' lists");
            self.entry[s + i].1 -= 1;
            if self.entry[s + i].1 == 0 {
                self.entry.swap(s + i, s + l - 1);
                self.len[w as usize] -= 1;
            }
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
