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
//! A vertex with more than `SCAN_CHUNK` unassigned edges is scanned in chunks, the next chunk only
//! when nothing else touches the cluster: a hub that starts every cluster would otherwise cost its
//! whole degree per cluster (a 10^6-leaf star split 1024 ways: 13 s instead of well under one).
//! For such a vertex the priority-1 choice is the best among the neighbours scanned so far, and an
//! edge between two such vertices becomes priority 2 only once one of their scans reaches it. Below
//! the chunk (every vertex of a dense graph of up to about 8 million edges) the greedy is exactly the
//! rule above.
//!
//! The greedy does not look ahead or refine; it is a single pass.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::graph::Graph;
use crate::partition::{target_load, EdgePartition};

/// Unassigned edges per vertex, kept as a live suffix of each vertex's incidence slice. Removing an
/// edge moves the first live entry into its place, so the entries a chunked scan has not reached yet
/// never move: a scan can resume where it stopped.
struct LiveEdges {
    offsets: Vec<usize>,
    slots: Vec<u32>,
    /// Where each edge sits in its two endpoints' slices (both in one slice for a self-loop).
    position: Vec<[usize; 2]>,
    /// Start of each vertex's live suffix.
    front: Vec<usize>,
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
    /// How far each member's live slice has been scanned for this cluster.
    scanned: Vec<usize>,
    /// Members whose scan stopped at a chunk boundary.
    unfinished: Vec<u32>,
    /// Unassigned edges with both endpoints in the cluster (possibly listed twice, or already taken).
    inside: Vec<u32>,
    /// Vertices outside the cluster joined to it by an unassigned edge, by remaining degree, lowest id
    /// first among equals. A vertex's remaining degree cannot change while it is outside: its edges
    /// are only assigned once it has joined.
    frontier: BinaryHeap<(u32, Reverse<u32>)>,
    /// For outside vertices that will be scanned in chunks: their edges into the cluster seen so far,
    /// which become priority 2 when they join (their own first chunk may not reach them).
    toward_large: HashMap<u32, Vec<u32>>,
}

/// Unassigned edges scanned at a time from one vertex (see the module note).
pub const SCAN_CHUNK: usize = 4096;

const UNASSIGNED: u32 = u32::MAX;

impl LiveEdges {
    fn new(graph: &Graph) -> LiveEdges {
        let incidence = graph.incidence();
        let mut position = vec![[usize::MAX; 2]; graph.edges.len()];
        // Side 0 is the slot in the first endpoint's slice, side 1 in the second's.
        for x in 0..graph.vertices {
            for slot in incidence.offsets[x as usize]..incidence.offsets[x as usize + 1] {
                let e = incidence.incident[slot] as usize;
                let first = graph.edges[e].0 == x && position[e][0] == usize::MAX;
                position[e][usize::from(!first)] = slot;
            }
        }
        let front = incidence.offsets[..graph.vertices as usize].to_vec();
        LiveEdges {
            offsets: incidence.offsets,
            slots: incidence.incident,
            position,
            front,
        }
    }

    /// The remaining degree: unassigned edges at v (a self-loop counts twice).
    fn remaining(&self, v: u32) -> u32 {
        (self.offsets[v as usize + 1] - self.front[v as usize]) as u32
    }

    fn end(&self, v: u32) -> usize {
        self.offsets[v as usize + 1]
    }

    /// Removes edge e from the live suffix of both endpoints.
    fn remove(&mut self, e: u32, (u, v): (u32, u32)) {
        for (side, x) in [(0, u), (1, v)] {
            let at = self.position[e as usize][side];
            let first = self.front[x as usize];
            let moved = self.slots[first];
            self.slots[at] = moved;
            let moved_side = usize::from(self.position[moved as usize][0] != first);
            self.position[moved as usize][moved_side] = at;
            self.front[x as usize] += 1;
        }
    }
}

impl SeedBuckets {
    fn new(live: &LiveEdges, vertices: u32) -> SeedBuckets {
        let top = (0..vertices).map(|v| live.remaining(v)).max().unwrap_or(0) as usize;
        let mut buckets = vec![Vec::new(); top + 1];
        for v in (0..vertices).rev() {
            let d = live.remaining(v) as usize;
            if d > 0 {
                buckets[d].push(v);
            }
        }
        SeedBuckets { buckets, top }
    }

    /// The vertex with the most unassigned edges, left in place: it may start later clusters too.
    fn highest(&mut self, live: &LiveEdges) -> Option<u32> {
        while self.top > 0 {
            match self.buckets[self.top].last().copied() {
                Some(v) if live.remaining(v) as usize == self.top => return Some(v),
                Some(v) => {
                    self.buckets[self.top].pop();
                    let d = live.remaining(v) as usize;
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
    fn start(&mut self) {
        self.stamp += 1;
        self.unfinished.clear();
        self.inside.clear();
        self.frontier.clear();
        self.toward_large.clear();
    }

    fn join(&mut self, v: u32, graph: &Graph, live: &LiveEdges) {
        self.member[v as usize] = self.stamp;
        self.scanned[v as usize] = live.front[v as usize];
        if let Some(edges) = self.toward_large.remove(&v) {
            self.inside.extend(edges);
        }
        self.scan(v, graph, live);
    }

    /// Scans the next chunk of v's unassigned edges: edges to members are priority 2, other
    /// endpoints enter the frontier.
    fn scan(&mut self, v: u32, graph: &Graph, live: &LiveEdges) {
        // Entries before the live front were taken since the last chunk; the front entry that filled
        // a hole may be seen twice, which the frontier's and `inside`'s checks absorb.
        let from = self.scanned[v as usize].max(live.front[v as usize]);
        let to = live.end(v).min(from + SCAN_CHUNK);
        for &e in &live.slots[from..to] {
            let (a, b) = graph.edges[e as usize];
            let other = if a == v { b } else { a };
            if self.member[other as usize] == self.stamp {
                self.inside.push(e);
            } else {
                if self.queued[other as usize] != self.stamp {
                    self.queued[other as usize] = self.stamp;
                    self.frontier.push((live.remaining(other), Reverse(other)));
                }
                if live.remaining(other) as usize > SCAN_CHUNK {
                    self.toward_large.entry(other).or_default().push(e);
                }
            }
        }
        self.scanned[v as usize] = to;
        if to < live.end(v) {
            self.unfinished.push(v);
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
    let mut seeds = SeedBuckets::new(&live, graph.vertices);
    let n = graph.vertices as usize;
    let mut growth = Growth {
        member: vec![0; n],
        queued: vec![0; n],
        stamp: 0,
        scanned: vec![0; n],
        unfinished: Vec::new(),
        inside: Vec::new(),
        frontier: BinaryHeap::new(),
        toward_large: HashMap::new(),
    };
    let heavy = (m % parts as usize) as u32;
    let growth_order: Vec<u32> = (heavy..parts).chain(0..heavy).collect();
    let (last, grown) = growth_order.split_last().expect("parts is at least 1");

    for &c in grown {
        let target = target_load(m, parts, c);
        growth.start();
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
            if let Some((_, Reverse(w))) = growth.frontier.pop() {
                if growth.member[w as usize] != growth.stamp {
                    growth.join(w, graph, &live);
                }
                continue;
            }
            if let Some(v) = growth.unfinished.pop() {
                growth.scan(v, graph, &live);
                continue;
            }
            // Nothing touches the cluster: every member's edges are assigned, so the seed is never a
            // member; should it be, stop rather than loop (the last cluster takes the rest).
            match seeds.highest(&live) {
                Some(v) if growth.member[v as usize] != growth.stamp => {
                    growth.join(v, graph, &live)
                }
                _ => break,
            }
        }
    }
    for c in cluster.iter_mut().filter(|c| **c == UNASSIGNED) {
        *c = *last;
    }
    EdgePartition { parts, cluster }
}
