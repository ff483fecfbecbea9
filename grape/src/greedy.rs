//! The dense greedy: GRAPE's method for graphs in which every object is shared by many threads
//! (our reading of the paper's dense-graph greedy). Clusters are grown one after another, each to
//! exactly its balanced load. A cluster starts at the vertex with the most unassigned edges and then
//! repeatedly takes the unassigned edge of best priority: 2 when both endpoints already appear in the
//! cluster (the edge costs nothing), 1 when one does, and among priority-1 edges the one whose new
//! endpoint has the most unassigned edges. The cluster thus grows a vertex set S and takes the edges
//! inside S, which is what packs the most edges onto the fewest objects in a clique. When nothing
//! touches the cluster any more it restarts at the vertex with the most unassigned edges.
//!
//! The clusters with the smaller target (m/k, without the extra edge) are grown first. In a clique the
//! first cluster is packed tightly and the last takes what is left, so the smaller load should be the
//! packed one: K_7 split 11/10 costs 6 when the 11 are packed (C(5,2) = 10 edges plus one more needs a
//! sixth vertex) and 5 when the 10 are (a K_5). This ordering is ours, not the paper's.
//!
//! The greedy does not look ahead or refine; it is a single pass, O(Σ_c Σ_{v ∈ V_c} d'(v) log m) with
//! d' the unassigned degree when v joins cluster c.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Graph;
use crate::partition::{target_load, EdgePartition};

/// Unassigned edges per vertex, kept as a live prefix of each vertex's incidence slice so that a
/// vertex joining a cluster scans only edges still to place.
struct LiveEdges {
    offsets: Vec<usize>,
    slots: Vec<u32>,
    /// Where each edge sits in its two endpoints' slices (both in one slice for a self-loop).
    position: Vec<[usize; 2]>,
    /// Unassigned edges per vertex: the remaining degree (a self-loop counts twice).
    remaining: Vec<u32>,
}

/// Vertices by remaining degree, for the start of each cluster. Degrees only fall, so the top
/// pointer only falls; an entry found stale is moved down to its current degree when seen, which
/// costs O(m) over the whole run.
struct SeedBuckets {
    buckets: Vec<Vec<u32>>,
    top: usize,
}

/// The state of the cluster being grown.
struct Growth {
    /// `member[v] == stamp` when v appears in the current cluster.
    member: Vec<u32>,
    /// `queued[v] == stamp` when v is already in the frontier.
    queued: Vec<u32>,
    stamp: u32,
    /// Unassigned edges with both endpoints in the cluster.
    inside: Vec<u32>,
    /// Vertices outside the cluster joined to it by an unassigned edge, by remaining degree, lowest id
    /// first among equals. A vertex's remaining degree cannot change while it is outside: its edges
    /// are only assigned once it has joined.
    frontier: BinaryHeap<(u32, Reverse<u32>)>,
}

const UNASSIGNED: u32 = u32::MAX;

impl LiveEdges {
    fn new(graph: &Graph) -> LiveEdges {
        let incidence = graph.incidence();
        let mut position = vec![[usize::MAX; 2]; graph.edges.len()];
        for (slot, &e) in incidence.incident.iter().enumerate() {
            let side = usize::from(position[e as usize][0] != usize::MAX);
            position[e as usize][side] = slot;
        }
        let remaining = (0..graph.vertices as usize)
            .map(|v| (incidence.offsets[v + 1] - incidence.offsets[v]) as u32)
            .collect();
        LiveEdges {
            offsets: incidence.offsets,
            slots: incidence.incident,
            position,
            remaining,
        }
    }

    fn of(&self, v: u32) -> &[u32] {
        let start = self.offsets[v as usize];
        &self.slots[start..start + self.remaining[v as usize] as usize]
    }

    /// Removes edge e from the live prefix of both endpoints by swapping it with the last live entry.
    fn remove(&mut self, e: u32, (u, v): (u32, u32)) {
        for (side, x) in [(0, u), (1, v)] {
            let at = self.position[e as usize][side];
            let last = self.offsets[x as usize] + self.remaining[x as usize] as usize - 1;
            let moved = self.slots[last];
            self.slots[at] = moved;
            let moved_side = usize::from(self.position[moved as usize][0] != last);
            self.position[moved as usize][moved_side] = at;
            self.remaining[x as usize] -= 1;
        }
    }
}

impl SeedBuckets {
    fn new(remaining: &[u32]) -> SeedBuckets {
        let top = remaining.iter().copied().max().unwrap_or(0) as usize;
        let mut buckets = vec![Vec::new(); top + 1];
        for (v, &d) in remaining.iter().enumerate().rev() {
            if d > 0 {
                buckets[d as usize].push(v as u32);
            }
        }
        SeedBuckets { buckets, top }
    }

    /// The vertex with the most unassigned edges, left in place: it may start later clusters too.
    fn highest(&mut self, remaining: &[u32]) -> Option<u32> {
        while self.top > 0 {
            match self.buckets[self.top].last().copied() {
                Some(v) if remaining[v as usize] as usize == self.top => return Some(v),
                Some(v) => {
                    self.buckets[self.top].pop();
                    let d = remaining[v as usize] as usize;
                    if d > 0 {
                        self.buckets[d].push(v);
                    }
                }
                None => self.top -= 1,
            }
        }
        None
    }
}

impl Growth {
    fn join(&mut self, v: u32, graph: &Graph, live: &LiveEdges) {
        self.member[v as usize] = self.stamp;
        for &e in live.of(v) {
            let (a, b) = graph.edges[e as usize];
            let other = if a == v { b } else { a };
            if self.member[other as usize] == self.stamp {
                self.inside.push(e);
            } else if self.queued[other as usize] != self.stamp {
                self.queued[other as usize] = self.stamp;
                self.frontier
                    .push((live.remaining[other as usize], Reverse(other)));
            }
        }
    }
}

/// Partitions the edges into `parts` clusters of exactly `target_load` edges each (`parts` 0 is
/// taken as 1).
pub fn dense_greedy(graph: &Graph, parts: u32) -> EdgePartition {
    let parts = parts.max(1);
    let m = graph.edges.len();
    let mut cluster = vec![UNASSIGNED; m];
    let mut live = LiveEdges::new(graph);
    let mut seeds = SeedBuckets::new(&live.remaining);
    let n = graph.vertices as usize;
    let mut growth = Growth {
        member: vec![0; n],
        queued: vec![0; n],
        stamp: 0,
        inside: Vec::new(),
        frontier: BinaryHeap::new(),
    };
    let heavy = (m % parts as usize) as u32;
    let growth_order: Vec<u32> = (heavy..parts).chain(0..heavy).collect();
    let (last, grown) = growth_order.split_last().expect("parts is at least 1");

    for &c in grown {
        let target = target_load(m, parts, c);
        growth.stamp += 1;
        growth.inside.clear();
        growth.frontier.clear();
        let mut taken = 0usize;
        while taken < target {
            if let Some(e) = growth.inside.pop() {
                if cluster[e as usize] == UNASSIGNED {
                    cluster[e as usize] = c;
                    live.remove(e, graph.edges[e as usize]);
                    taken += 1;
                }
                continue;
            }
            // Priority 1: the frontier vertex with the most unassigned edges joins, and its edges
            // into the cluster (at least one) become priority 2.
            let next = match growth.frontier.pop() {
                Some((_, Reverse(w))) => Some(w),
                None => seeds.highest(&live.remaining),
            };
            match next {
                Some(v) if growth.member[v as usize] != growth.stamp => {
                    growth.join(v, graph, &live)
                }
                Some(_) => {}
                None => break,
            }
        }
    }
    for c in cluster.iter_mut().filter(|c| **c == UNASSIGNED) {
        *c = *last;
    }
    EdgePartition { parts, cluster }
}
