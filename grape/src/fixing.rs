//! GRAPE's second stage (Li et al., "Improving Inter-thread Data Sharing with GPU Caches"): turn a
//! partition of the clone graph D' into an edge partition of D with EXACT balance, every cluster c
//! holding `target_load(m, k, c)` edges, while keeping as many edges as possible where the clone
//! partition put them.
//!
//! The steps:
//! 1. clone rebalancing: METIS's parts are only nearly equal; move the fewest clones, each with the
//!    best gain in D' weight, until part c holds exactly `2 · target_load(m, k, c)` clones;
//! 2. internal edges: an edge whose two clones share a part goes to that part;
//! 3. pairwise fixing: the cut edges between parts i and j are shared out half to i, half to j by
//!    priority numbers, one edge at most left over per pair;
//! 4. Euler-tour fixing: the left-over edges form a multigraph on the parts with every degree even;
//!    orienting each edge along an Euler circuit gives every part exactly its share.
//!
//! This module does not build D' nor call METIS (see `clone_graph`, `two_stage`), nor refine what
//! fixing leaves (`refine`, run by `two_stage` after `fix`).

use crate::clone_graph::CloneGraph;
use crate::graph::{Graph, Incidence};
use crate::partition::{target_load, EdgePartition};
use std::collections::{BinaryHeap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Why a clone partition cannot be fixed into an exactly balanced edge partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FixingError {
    /// k = 0 clusters.
    NoClusters,
    /// More clusters than edges: some cluster would be empty.
    TooManyClusters { edges: usize, parts: u32 },
    /// The clone partition does not have one entry per clone.
    WrongLength { clones: usize, entries: usize },
    /// A clone was put in a part that does not exist.
    PartOutOfRange { clone: usize, part: u32, parts: u32 },
}

impl std::fmt::Display for FixingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            FixingError::NoClusters => {
                write!(
                    f,
                    "cannot split edges into 0 clusters: use --parts 1 or more"
                )
            }
            FixingError::TooManyClusters { edges: 0, .. } => {
                write!(f, "the graph has no edges: there is nothing to partition")
            }
            FixingError::TooManyClusters { edges, parts } => write!(
                f,
                "cannot split {edges} edges into {parts} clusters: use --parts at most {edges}"
            ),
            FixingError::WrongLength { clones, entries } => write!(
                f,
                "the clone partition has {entries} entries for {clones} clones: \
                 pass one part per clone"
            ),
            FixingError::PartOutOfRange { clone, part, parts } => write!(
                f,
                "clone {clone} is in part {part}, but there are only {parts} parts: \
                 pass parts below {parts}"
            ),
        }
    }
}

impl std::error::Error for FixingError {}

/// Checks that `parts` clusters can each hold at least one of `edges` edges.
pub fn check_cluster_count(edges: usize, parts: u32) -> Result<(), FixingError> {
    if parts == 0 {
        return Err(FixingError::NoClusters);
    }
    if parts as usize > edges {
        return Err(FixingError::TooManyClusters { edges, parts });
    }
    Ok(())
}

/// Turns `clone_part` (a part in `0..parts` for every clone of `clones`) into an edge partition in
/// which cluster c holds exactly `target_load(m, parts, c)` edges: steps 1 to 4. Every edge lands
/// in a part that holds one of its clones after rebalancing; `refine` (step 5) is separate so that
/// this property can be checked on its own.
pub fn fix(
    graph: &Graph,
    clones: &CloneGraph,
    clone_part: &[u32],
    parts: u32,
) -> Result<EdgePartition, FixingError> {
    let m = graph.edges.len();
    check_cluster_count(m, parts)?;
    if clone_part.len() != clones.clone_count() {
        return Err(FixingError::WrongLength {
            clones: clones.clone_count(),
            entries: clone_part.len(),
        });
    }
    if let Some((clone, &part)) = clone_part.iter().enumerate().find(|&(_, &p)| p >= parts) {
        return Err(FixingError::PartOutOfRange { clone, part, parts });
    }
    let mut part = clone_part.to_vec();
    rebalance_clones(graph, clones, &mut part, parts);

    let mut cluster = vec![UNASSIGNED; m];
    let mut presence = Presence::default();
    let mut cut: Vec<(u64, u32)> = Vec::new();
    for (e, &[a, b]) in clones.edge_clones.iter().enumerate() {
        let (pa, pb) = (part[a as usize], part[b as usize]);
        if pa == pb {
            cluster[e] = pa;
            let (u, v) = graph.edges[e];
            presence.insert(u, pa);
            presence.insert(v, pa);
        } else {
            let (i, j) = (pa.min(pb), pa.max(pb));
            cut.push((u64::from(i) << 32 | u64::from(j), e as u32));
        }
    }
    drop(part);

    // Each pair's cut edges are contiguous after sorting by (i, j); edge ids break ties so the
    // result does not depend on the sort's stability.
    cut.sort_unstable();
    let mut pair = PairFixing::default();
    let mut leftover: Vec<(u32, u32, u32)> = Vec::new();
    let mut start = 0;
    while start < cut.len() {
        let key = cut[start].0;
        let mut end = start;
        while end < cut.len() && cut[end].0 == key {
            end += 1;
        }
        let (i, j) = ((key >> 32) as u32, key as u32);
        let edges: Vec<u32> = cut[start..end].iter().map(|&(_, e)| e).collect();
        if let Some(e) = pair.share_out(graph, i, j, &edges, &mut cluster, &mut presence) {
            leftover.push((i, j, e));
        }
        start = end;
    }
    drop(cut);

    orient_leftovers(parts, &leftover, &mut cluster);

    let result = EdgePartition { parts, cluster };
    debug_assert!(result
        .loads()
        .iter()
        .enumerate()
        .all(|(c, &l)| l as usize == target_load(m, parts, c as u32)));
    Ok(result)
}

const UNASSIGNED: u32 = u32::MAX;

/// Moves clones until part c holds exactly `2 · target_load(m, k, c)` clones (an even number, so
/// that step 2 leaves an even number of cut-edge clones in every part).
///
/// Clones of over-full parts sit in a max-heap keyed by the gain of their best move: the D' weight
/// they would gain in an under-full destination (partner clone 2, cycle neighbour 1 each) minus
/// what they lose at home. Entries go stale as neighbours move; a popped entry is re-evaluated and
/// pushed back if its gain dropped, and the neighbours of a moved clone are pushed again with their
/// new gains. Gains lie in -4..=4, so each entry drops a bounded number of times: the work is
/// O(m log m) plus a constant per move, never a scan over all parts.
pub fn rebalance_clones(graph: &Graph, clones: &CloneGraph, part: &mut [u32], parts: u32) {
    let m = graph.edges.len();
    let mut excess: Vec<i64> = (0..parts)
        .map(|c| -2 * target_load(m, parts, c) as i64)
        .collect();
    for &p in part.iter() {
        excess[p as usize] += 1;
    }
    if excess.iter().all(|&x| x == 0) {
        return;
    }
    let mut under: Vec<u32> = (0..parts).filter(|&c| excess[c as usize] < 0).collect();
    under.reverse();

    let neighbours = |x: u32| -> [Option<(u32, i32)>; 3] {
        let v = clones.vertex_of(graph, x);
        let [a, b] = clones.cycle_neighbours(v, x);
        [
            Some((clones.partner(x), 2)),
            a.map(|c| (c, 1)),
            b.map(|c| (c, 1)),
        ]
    };
    // Best move of clone x out of its part: (gain, destination), None meaning "any under-full part".
    let best_move = |x: u32, part: &[u32], excess: &[i64]| -> (i32, Option<u32>) {
        let home = part[x as usize];
        let near = neighbours(x);
        let at_home: i32 = near
            .iter()
            .flatten()
            .filter(|&&(c, _)| part[c as usize] == home)
            .map(|&(_, w)| w)
            .sum();
        let mut best = (-at_home, None);
        for &(c, _) in near.iter().flatten() {
            let q = part[c as usize];
            if q == home || excess[q as usize] >= 0 {
                continue;
            }
            let there: i32 = near
                .iter()
                .flatten()
                .filter(|&&(d, _)| part[d as usize] == q)
                .map(|&(_, w)| w)
                .sum();
            if there - at_home > best.0 || best.1.is_none() {
                best = (there - at_home, Some(q));
            }
        }
        best
    };

    let mut heap: BinaryHeap<(i32, u32)> = (0..part.len() as u32)
        .filter(|&x| excess[part[x as usize] as usize] > 0)
        .map(|x| (best_move(x, part, &excess).0, x))
        .collect();
    while let Some((gain, x)) = heap.pop() {
        let home = part[x as usize];
        if excess[home as usize] <= 0 {
            continue;
        }
        let (now, dest) = best_move(x, part, &excess);
        if now < gain {
            heap.push((now, x));
            continue;
        }
        let dest = match dest {
            Some(q) => q,
            None => {
                while under.last().is_some_and(|&q| excess[q as usize] >= 0) {
                    under.pop();
                }
                // Over-full parts exist only while under-full ones do (the excesses sum to 0).
                match under.last() {
                    Some(&q) => q,
                    None => break,
                }
            }
        };
        part[x as usize] = dest;
        excess[home as usize] -= 1;
        excess[dest as usize] += 1;
        for &(y, _) in neighbours(x).iter().flatten() {
            if excess[part[y as usize] as usize] > 0 {
                heap.push((best_move(y, part, &excess).0, y));
            }
        }
    }
}

/// Which (vertex, cluster) pairs are already present: a vertex appears in a cluster once an edge of
/// it is assigned there. Hashed, so that the memory follows the assigned edges, not n·k.
#[derive(Default)]
struct Presence(HashSet<u64, BuildHasherDefault<KeyHasher>>);

impl Presence {
    fn key(v: u32, c: u32) -> u64 {
        u64::from(v) << 32 | u64::from(c)
    }
    /// Records v in c; true when v was not there before.
    fn insert(&mut self, v: u32, c: u32) -> bool {
        self.0.insert(Self::key(v, c))
    }
    fn contains(&self, v: u32, c: u32) -> bool {
        self.0.contains(&Self::key(v, c))
    }
}

/// A multiplicative hash for u64 keys (Fibonacci hashing, Knuth TAOCP vol. 3, 6.4): the default
/// SipHash is several times slower and its DoS resistance buys nothing here.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, key: u64) {
        let h = (self.0 ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

/// Scratch space for sharing out the cut edges of one pair of parts, reused across pairs.
#[derive(Default)]
struct PairFixing {
    priority: Vec<i8>,
    done: Vec<bool>,
    /// (vertex, local edge) for the endpoints of the pair's edges, sorted by vertex.
    endpoints: Vec<(u32, u32)>,
    /// Local edges by priority toward i, -2..=2 stored at index priority + 2. Entries go stale when
    /// an edge's priority changes; a stale entry's stored bucket no longer matches `priority`.
    buckets: [Vec<u32>; 5],
}

impl PairFixing {
    /// Shares the cut edges between parts i and j: ⌊n/2⌋ to i, ⌊n/2⌋ to j, returning the one left
    /// over when n is odd.
    ///
    /// Our reading of the paper's priority numbers: the priority of edge (u, v) toward i is the
    /// number of its distinct endpoints already present in i (through internal edges or edges
    /// assigned earlier) minus the number present in j; toward j it is the negation. i and j take
    /// turns picking their highest-priority edge, and priorities are updated as each pick makes
    /// its endpoints present: an edge sharing a vertex with the previous pick then follows it
    /// for free, which a one-time sort by the initial numbers would miss.
    fn share_out(
        &mut self,
        graph: &Graph,
        i: u32,
        j: u32,
        edges: &[u32],
        cluster: &mut [u32],
        presence: &mut Presence,
    ) -> Option<u32> {
        let n = edges.len();
        if n == 1 {
            return Some(edges[0]);
        }
        let ends = |local: u32| -> (u32, Option<u32>) {
            let (u, v) = graph.edges[edges[local as usize] as usize];
            (u, (v != u).then_some(v))
        };
        let toward_i = |local: u32, presence: &Presence| -> i8 {
            let (u, v) = ends(local);
            [Some(u), v]
                .into_iter()
                .flatten()
                .map(|w| i8::from(presence.contains(w, i)) - i8::from(presence.contains(w, j)))
                .sum()
        };
        self.endpoints.clear();
        self.priority.clear();
        self.done.clear();
        self.done.resize(n, false);
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        for local in 0..n as u32 {
            let (u, v) = ends(local);
            self.endpoints.push((u, local));
            if let Some(v) = v {
                self.endpoints.push((v, local));
            }
            let p = toward_i(local, presence);
            self.priority.push(p);
        }
        self.endpoints.sort_unstable();
        // Pushed in reverse so that, among equals, the lower edge id (earlier thread) pops first.
        for local in (0..n as u32).rev() {
            self.buckets[(self.priority[local as usize] + 2) as usize].push(local);
        }

        let half = n / 2;
        let (mut to_i, mut to_j) = (0, 0);
        while to_i < half || to_j < half {
            for (side, taken) in [(i, &mut to_i), (j, &mut to_j)] {
                if *taken == half {
                    continue;
                }
                // While a side still needs edges, at least one edge is open (2·half ≤ n).
                let local = self.pick(side == i)?;
                *taken += 1;
                self.done[local as usize] = true;
                cluster[edges[local as usize] as usize] = side;
                let (u, v) = ends(local);
                for w in [Some(u), v].into_iter().flatten() {
                    if !presence.insert(w, side) {
                        continue;
                    }
                    let from = self.endpoints.partition_point(|&(x, _)| x < w);
                    for k in from..self.endpoints.len() {
                        let (x, other) = self.endpoints[k];
                        if x != w {
                            break;
                        }
                        if !self.done[other as usize] {
                            let p = toward_i(other, presence);
                            self.priority[other as usize] = p;
                            self.buckets[(p + 2) as usize].push(other);
                        }
                    }
                }
            }
        }
        (0..n)
            .find(|&local| !self.done[local])
            .map(|local| edges[local])
    }

    /// The open edge with the highest priority toward i (`for_i`) or toward j (lowest toward i).
    fn pick(&mut self, for_i: bool) -> Option<u32> {
        for step in 0..5 {
            let b = if for_i { 4 - step } else { step };
            while let Some(local) = self.buckets[b].pop() {
                let l = local as usize;
                if !self.done[l] && (self.priority[l] + 2) as usize == b {
                    return Some(local);
                }
            }
        }
        None
    }
}

/// Assigns the left-over edges (i, j, edge) so that every part receives exactly half its left-over
/// degree.
///
/// Why the degrees are even: after rebalancing, part c holds 2·t_c clones (t_c its target load).
/// With a_c internal edges it holds c_c = 2·t_c − 2·a_c cut-edge clones, an even number, and needs
/// c_c / 2 of its cut edges. c_c = Σ_j n_cj over the other parts j, and pairwise fixing gave c
/// Σ_j ⌊n_cj / 2⌋ of them, leaving one edge for every j with n_cj odd. So c's left-over degree
/// L_c = Σ_j (n_cj mod 2) ≡ Σ_j n_cj = c_c ≡ 0 (mod 2), and c still needs
/// (c_c − Σ_j 2⌊n_cj / 2⌋) / 2 = L_c / 2 edges.
///
/// With every degree even each connected component has an Euler circuit (Euler, Hierholzer). Give
/// each edge to the part the circuit enters through it: a circuit enters a part as often as it
/// leaves it, so each part receives exactly L_c / 2. Hierholzer's walk is done with an explicit
/// stack; the edges it crosses, each in the direction crossed, form the circuit.
fn orient_leftovers(parts: u32, leftover: &[(u32, u32, u32)], cluster: &mut [u32]) {
    let pairs: Vec<(u32, u32)> = leftover.iter().map(|&(i, j, _)| (i, j)).collect();
    let Incidence {
        offsets,
        incident: adjacent,
    } = Incidence::of(parts as usize, &pairs);
    let mut next = offsets.clone();
    let mut used = vec![false; leftover.len()];
    let mut stack: Vec<u32> = Vec::new();
    for start in 0..parts {
        stack.push(start);
        while let Some(&c) = stack.last() {
            let cu = c as usize;
            while next[cu] < offsets[cu + 1] && used[adjacent[next[cu]] as usize] {
                next[cu] += 1;
            }
            if next[cu] == offsets[cu + 1] {
                stack.pop();
                continue;
            }
            let t = adjacent[next[cu]] as usize;
            used[t] = true;
            let (i, j, e) = leftover[t];
            let enter = if i == c { j } else { i };
            cluster[e as usize] = enter;
            stack.push(enter);
        }
    }
}
