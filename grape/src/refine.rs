//! C-gain refinement of an edge partition under exact balance: local moves of edges chosen by how
//! much they lower C = Σ_v (p_v − 1) itself, whatever produced the partition (the clone graph and
//! METIS, which optimise a proxy of C; the expansion of `expand`; a vertex partition).
//!
//! A pass has two halves, in the manner of Fiduccia and Mattheyses ("A linear-time heuristic for
//! improving network partitions", DAC 1982: moves by gain under a balance bound):
//! 1. group moves: for every vertex v and every cluster A in which v has edges, try moving all of
//!    v's edges in A to one of v's other clusters B. v leaves A (C − 1) and each far endpoint w may
//!    leave A or join B; the exact change is counted on per-vertex cluster counts before the move
//!    (who leaves A: whose edges there the group holds all of; who joins B: who has none there),
//!    and the move is made only when C drops (or stays level while the move brings both loads
//!    closer to their targets). Loads may stray `slack` edges from their targets meanwhile: a single
//!    edge move is rarely possible under exact balance, and a vertex's stray edges are mostly few
//!    (one to three edges that METIS or fixing put beside the bulk);
//! 2. rebalancing: edges leave the clusters above their target for clusters below it, the moves
//!    that cost least in C first (an edge whose endpoints already appear in the destination costs
//!    nothing), until every cluster holds exactly `target_load(m, k, c)` edges again.
//!
//! A pass whose two halves together do not lower C is undone and ends the refinement, so C never
//! rises. Each pass is linear in m: one visit of each vertex's incidence, sorted by cluster, with
//! the destinations per group capped at `DESTINATIONS` and the counts of a vertex kept sorted.
//!
//! This module does not build a partition from nothing; it only improves one.

use crate::graph::{Graph, Incidence};
use crate::partition::{target_load, EdgePartition};

/// How many of a vertex's clusters (those holding most of its edges) a group is tried against.
pub const DESTINATIONS: usize = 8;

/// The passes `refine` runs at most; later passes gain little once these have run.
pub const PASSES: usize = 4;

/// Loads may stray from their targets by this fraction of m/k (at least one edge) during group
/// moves.
pub const SLACK: f64 = 0.01;

/// The number of edges of each vertex in each cluster (a self-loop counts once), for the pairs
/// that occur: per vertex a list sorted by cluster, with room for min(degree, k) entries.
pub struct ClusterCounts {
    start: Vec<usize>,
    len: Vec<u32>,
    cluster: Vec<u32>,
    count: Vec<u32>,
}

impl ClusterCounts {
    pub fn new(graph: &Graph, partition: &EdgePartition) -> ClusterCounts {
        ClusterCounts::with_incidence(graph, &graph.incidence(), partition)
    }

    /// `new` from the incidence the caller has: each vertex's list is written in one go from its
    /// edges' clusters, sorted (edge by edge, every endpoint's list was searched and shifted at
    /// random).
    fn with_incidence(
        graph: &Graph,
        incidence: &Incidence,
        partition: &EdgePartition,
    ) -> ClusterCounts {
        let n = graph.vertices as usize;
        let k = partition.parts as usize;
        let mut start = Vec::with_capacity(n + 1);
        start.push(0usize);
        for v in 0..graph.vertices {
            let room = incidence.edges_of(v).len().min(k);
            start.push(start.last().copied().unwrap_or(0) + room);
        }
        let slots = start[n];
        let mut counts = ClusterCounts {
            start,
            len: vec![0; n],
            cluster: vec![0; slots],
            count: vec![0; slots],
        };
        let mut clusters: Vec<u32> = Vec::new();
        for v in 0..graph.vertices {
            clusters.clear();
            let mut last = None;
            for &e in incidence.edges_of(v) {
                // A self-loop sits twice in a row in its vertex's incidence and counts once.
                if last != Some(e) {
                    clusters.push(partition.cluster[e as usize]);
                }
                last = Some(e);
            }
            clusters.sort_unstable();
            let first = counts.start[v as usize];
            let mut len = 0usize;
            for &c in &clusters {
                if len > 0 && counts.cluster[first + len - 1] == c {
                    counts.count[first + len - 1] += 1;
                } else {
                    counts.cluster[first + len] = c;
                    counts.count[first + len] = 1;
                    len += 1;
                }
            }
            counts.len[v as usize] = len as u32;
        }
        counts
    }

    fn slice(&self, v: u32) -> std::ops::Range<usize> {
        let s = self.start[v as usize];
        s..s + self.len[v as usize] as usize
    }

    /// Where c sits in v's list, or where it would go.
    fn find(&self, v: u32, c: u32) -> Result<usize, usize> {
        let r = self.slice(v);
        self.cluster[r.clone()]
            .binary_search(&c)
            .map(|i| r.start + i)
            .map_err(|i| r.start + i)
    }

    pub fn count(&self, v: u32, c: u32) -> u32 {
        self.find(v, c).map_or(0, |i| self.count[i])
    }

    /// The number of clusters v appears in.
    pub fn spread(&self, v: u32) -> u32 {
        self.len[v as usize]
    }

    /// One more edge of v in c; true when v was not in c before.
    fn add(&mut self, v: u32, c: u32) -> bool {
        match self.find(v, c) {
            Ok(i) => {
                self.count[i] += 1;
                false
            }
            Err(i) => {
                let end = self.slice(v).end;
                // Room exists: v has at most min(degree, k) distinct clusters.
                self.cluster.copy_within(i..end, i + 1);
                self.count.copy_within(i..end, i + 1);
                self.cluster[i] = c;
                self.count[i] = 1;
                self.len[v as usize] += 1;
                true
            }
        }
    }

    /// One edge of v fewer in c (which must hold one); true when v left c.
    fn remove(&mut self, v: u32, c: u32) -> bool {
        let Ok(i) = self.find(v, c) else {
            debug_assert!(false, "vertex {v} has no edge in cluster {c}");
            return false;
        };
        self.count[i] -= 1;
        if self.count[i] > 0 {
            return false;
        }
        let end = self.slice(v).end;
        self.cluster.copy_within(i + 1..end, i);
        self.count.copy_within(i + 1..end, i);
        self.len[v as usize] -= 1;
        true
    }

    /// Moves edge e from `from` to `to` in the counts; returns the change in C.
    pub fn shift(&mut self, graph: &Graph, e: u32, from: u32, to: u32) -> i64 {
        let mut delta = 0i64;
        for w in ends(graph, e).into_iter().flatten() {
            delta -= i64::from(self.remove(w, from));
            delta += i64::from(self.add(w, to));
        }
        delta
    }

    /// Takes edge e out of cluster c in the counts (as if unassigned).
    pub fn shift_out(&mut self, graph: &Graph, e: u32, c: u32) {
        for w in ends(graph, e).into_iter().flatten() {
            self.remove(w, c);
        }
    }

    /// Puts an unassigned edge e into cluster c in the counts.
    pub fn shift_in(&mut self, graph: &Graph, e: u32, c: u32) {
        for w in ends(graph, e).into_iter().flatten() {
            self.add(w, c);
        }
    }

    /// The change in C if edge e moved from `from` to `to`, without moving it.
    pub fn move_delta(&self, graph: &Graph, e: u32, from: u32, to: u32) -> i64 {
        if from == to {
            return 0;
        }
        ends(graph, e)
            .into_iter()
            .flatten()
            .map(|w| i64::from(self.count(w, to) == 0) - i64::from(self.count(w, from) == 1))
            .sum()
    }

    /// The clusters v appears in, ascending.
    pub fn clusters_of(&self, v: u32) -> &[u32] {
        &self.cluster[self.slice(v)]
    }

    fn counts_of(&self, v: u32) -> &[u32] {
        &self.count[self.slice(v)]
    }
}

/// The distinct endpoints of edge e: a self-loop has one.
pub fn ends(graph: &Graph, e: u32) -> [Option<u32>; 2] {
    let (u, v) = graph.edges[e as usize];
    [Some(u), (v != u).then_some(v)]
}

/// Refines `partition` for at most `passes` passes; returns how much C went down from the
/// partition brought to exact balance. An unbalanced partition (a vertex partition's edges, say) is
/// first brought to exact balance by the rebalancing half alone, so it is exactly balanced on exit.
pub fn refine(graph: &Graph, partition: &mut EdgePartition, passes: usize) -> u64 {
    let m = graph.edges.len();
    let k = partition.parts;
    if k <= 1 || m == 0 {
        return 0;
    }
    let incidence = graph.incidence();
    let mut state = State {
        graph,
        incidence: &incidence,
        counts: ClusterCounts::with_incidence(graph, &incidence, partition),
        load: partition.loads().into_iter().map(|l| l as i64).collect(),
        target: (0..k).map(|c| target_load(m, k, c) as i64).collect(),
        slack: ((SLACK * m as f64 / f64::from(k)) as i64).max(1),
        cluster: &mut partition.cluster,
    };
    state.rebalance();
    let mut total = 0i64;
    for _ in 0..passes {
        let snapshot = state.cluster.to_vec();
        let gained = -(state.group_moves() + state.rebalance());
        if gained <= 0 {
            state.cluster.copy_from_slice(&snapshot);
            break;
        }
        total += gained;
    }
    total as u64
}

struct State<'a> {
    graph: &'a Graph,
    incidence: &'a Incidence,
    counts: ClusterCounts,
    cluster: &'a mut [u32],
    load: Vec<i64>,
    target: Vec<i64>,
    slack: i64,
}

impl State<'_> {
    /// Moves edge e to cluster `to`, keeping counts and loads; returns the change in C.
    fn relocate(&mut self, e: u32, to: u32) -> i64 {
        let from = self.cluster[e as usize];
        self.cluster[e as usize] = to;
        self.load[from as usize] -= 1;
        self.load[to as usize] += 1;
        self.counts.shift(self.graph, e, from, to)
    }

    /// Half 1 of a pass; returns the change in C.
    fn group_moves(&mut self) -> i64 {
        let mut delta = 0i64;
        let mut groups: Vec<(u32, u32)> = Vec::new();
        let mut destinations: Vec<(u32, u32)> = Vec::new();
        let mut far: Vec<(u32, u32)> = Vec::new();
        for v in 0..self.graph.vertices {
            if self.counts.spread(v) < 2 {
                continue;
            }
            destinations.clear();
            destinations.extend(
                self.counts
                    .clusters_of(v)
                    .iter()
                    .zip(self.counts.counts_of(v))
                    .map(|(&c, &n)| (n, c)),
            );
            destinations.sort_unstable_by(|a, b| b.cmp(a));
            destinations.truncate(DESTINATIONS);
            // v's group in cluster a holds its count there, so whether any group could leave its
            // cluster for a destination with room is known from the counts and the loads alone,
            // before v's edges are read: where none could, the loop below would try nothing.
            if !self.movable(v, &destinations) {
                continue;
            }
            groups.clear();
            groups.extend(
                self.incidence
                    .edges_of(v)
                    .iter()
                    .map(|&e| (self.cluster[e as usize], e)),
            );
            groups.sort_unstable();
            groups.dedup();
            let mut at = 0;
            while at < groups.len() {
                let a = groups[at].0;
                let end = at + groups[at..].partition_point(|&(c, _)| c == a);
                let size = (end - at) as i64;
                if self.load[a as usize] - size < self.target[a as usize] - self.slack {
                    // A cannot give the group up, whatever B.
                    at = end;
                    continue;
                }
                // The change in C of moving the group out of A is known before the move, and so
                // is what joining each B adds: trials are counted, only the kept move is made.
                // Leaving A is counted once a B has room for the group.
                let mut leave_a = None;
                for &(_, b) in &destinations {
                    if b == a || self.load[b as usize] + size > self.target[b as usize] + self.slack
                    {
                        continue;
                    }
                    // Level moves are kept only when both loads end nearer their targets.
                    let levels = self.load[a as usize] - size >= self.target[a as usize]
                        && self.load[b as usize] + size <= self.target[b as usize];
                    let leave_a = *leave_a
                        .get_or_insert_with(|| self.leaves(v, a, &groups[at..end], &mut far));
                    let change = leave_a + self.joins(v, &far, b);
                    if change < 0 || (change == 0 && levels) {
                        let mut moved = 0;
                        for &(_, e) in &groups[at..end] {
                            moved += self.relocate(e, b);
                        }
                        debug_assert_eq!(moved, change, "counted and made moves differ");
                        delta += moved;
                        break;
                    }
                }
                at = end;
            }
        }
        delta
    }

    /// Whether some group of v (its edges in one cluster a) may leave a and join one of
    /// `destinations` under the loads' slack: the two load tests of `group_moves`, with the group's
    /// size read from the counts.
    fn movable(&self, v: u32, destinations: &[(u32, u32)]) -> bool {
        let clusters = self.counts.clusters_of(v).iter();
        clusters.zip(self.counts.counts_of(v)).any(|(&a, &n)| {
            let size = i64::from(n);
            self.load[a as usize] - size >= self.target[a as usize] - self.slack
                && destinations.iter().any(|&(_, b)| {
                    b != a && self.load[b as usize] + size <= self.target[b as usize] + self.slack
                })
        })
    }

    /// The change in C when v's edges `group` (all of v's edges in cluster a, as (a, e) pairs)
    /// leave a: v leaves a when no other edge of v has come into a meanwhile, and each far endpoint
    /// w leaves a when the group holds all of w's edges there. Fills `far` with the far endpoints
    /// and the group's edges at each, for `joins`. The change of a move is a function of the state
    /// before and after it, so this is what relocating the edges one by one would sum to.
    fn leaves(&self, v: u32, a: u32, group: &[(u32, u32)], far: &mut Vec<(u32, u32)>) -> i64 {
        far.clear();
        for &(_, e) in group {
            let (x, y) = self.graph.edges[e as usize];
            let w = if x == v { y } else { x };
            if w != v {
                far.push((w, 1));
            }
        }
        far.sort_unstable();
        far.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += 1;
            }
            same
        });
        let mut change = -i64::from(self.counts.count(v, a) == group.len() as u32);
        for &(w, n) in far.iter() {
            change -= i64::from(self.counts.count(w, a) == n);
        }
        change
    }

    /// What the group whose far endpoints `leaves` listed adds to C by joining cluster b: one for
    /// v and for each far endpoint not yet in b.
    fn joins(&self, v: u32, far: &[(u32, u32)], b: u32) -> i64 {
        let mut change = i64::from(self.counts.count(v, b) == 0);
        for &(w, _) in far {
            change += i64::from(self.counts.count(w, b) == 0);
        }
        change
    }

    /// Half 2 of a pass: back to exact balance, cheapest moves first; returns the change in C.
    fn rebalance(&mut self) -> i64 {
        let k = self.load.len();
        let over = |s: &Self, c: u32| s.load[c as usize] > s.target[c as usize];
        let under = |s: &Self, c: u32| s.load[c as usize] < s.target[c as usize];
        if (0..k as u32).all(|c| !over(self, c)) {
            return 0;
        }
        // The cheapest move of e into a cluster below target among its endpoints' clusters.
        let best = |s: &Self, e: u32| -> Option<(i64, u32)> {
            let from = s.cluster[e as usize];
            let mut best: Option<(i64, u32)> = None;
            for w in ends(s.graph, e).into_iter().flatten() {
                for &c in s.counts.clusters_of(w).iter().take(CANDIDATES) {
                    if c != from && under(s, c) {
                        let d = s.counts.move_delta(s.graph, e, from, c);
                        if best.is_none_or(|(b, _)| d < b) {
                            best = Some((d, c));
                        }
                    }
                }
            }
            best
        };
        // Single moves change C by −2..=2: bucket index delta + 2. `best` finds a move for e only
        // through an endpoint that appears in a cluster below target (among the clusters it
        // looks at): the vertices that do are marked first, in one pass over the counts in vertex
        // order, so that the edges of over-full clusters with neither endpoint marked (a
        // cluster's interior) cost a look at two marks instead of their endpoints' counts, read at
        // random.
        let leads: Vec<bool> = (0..self.graph.vertices)
            .map(|w| {
                self.counts
                    .clusters_of(w)
                    .iter()
                    .take(CANDIDATES)
                    .any(|&c| under(self, c))
            })
            .collect();
        let mut buckets: [Vec<(u32, u32)>; 5] = Default::default();
        for e in 0..self.cluster.len() as u32 {
            let (u, v) = self.graph.edges[e as usize];
            if !leads[u as usize] && !leads[v as usize] {
                continue;
            }
            if over(self, self.cluster[e as usize]) {
                if let Some((d, c)) = best(self, e) {
                    buckets[(d + 2) as usize].push((e, c));
                }
            }
        }
        let mut delta = 0i64;
        let mut level = 0;
        while level < buckets.len() {
            let Some((e, c)) = buckets[level].pop() else {
                level += 1;
                continue;
            };
            let from = self.cluster[e as usize];
            if !over(self, from) {
                continue;
            }
            let fresh = if under(self, c) {
                Some((self.counts.move_delta(self.graph, e, from, c), c))
            } else {
                best(self, e)
            };
            match fresh {
                Some((d, c)) if d + 2 <= level as i64 => delta += self.relocate(e, c),
                Some((d, c)) => buckets[(d + 2) as usize].push((e, c)),
                None => {}
            }
        }
        // What no endpoint led anywhere: any edge of an over-full cluster to any under-full one.
        let mut receivers = (0..k as u32)
            .filter(|&c| under(self, c))
            .collect::<Vec<_>>();
        for e in 0..self.cluster.len() as u32 {
            let from = self.cluster[e as usize];
            if !over(self, from) {
                continue;
            }
            while receivers.last().is_some_and(|&c| !under(self, c)) {
                receivers.pop();
            }
            let Some(&to) = receivers.last() else { break };
            delta += self.relocate(e, to);
        }
        delta
    }
}

/// The most clusters of one endpoint a rebalancing move is tried against (hubs appear in hundreds).
const CANDIDATES: usize = 64;
