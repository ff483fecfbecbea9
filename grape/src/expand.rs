//! Neighbourhood expansion with hubs streamed apart: GRAPE's partitioner for power-law graphs,
//! written from the ideas of two papers:
//! - NE (Zhang, Wu, Zhu, Xu, Huang: "Graph Edge Partitioning via Neighborhood Heuristic", KDD 2017):
//!   clusters are grown one after another. A cluster keeps a boundary S (vertices it touches) and a
//!   core (vertices whose edges it has taken). It repeatedly moves to the core the boundary vertex
//!   with the fewest edges leading out of S, takes its unassigned edges, and each far endpoint y
//!   that joins S brings its unassigned edges into S along with it (edges with both ends in S cost
//!   nothing). A cluster stops at its load, and starts a new seed when its boundary runs dry;
//! - HEP (Mayer, Jacobsen: "Hybrid Edge Partitioner", SIGMOD 2021): vertices of degree above τ times
//!   the average are hubs. They join boundaries but never a core, and their adjacency is never
//!   scanned, so the expansion costs O(m) whatever the hubs' degrees; the edges between two hubs are
//!   left to a streaming pass afterwards, HDRF (Petroni, Querzoni, Daudjee, Kamali, Iacoboni:
//!   "HDRF: Stream-Based Partitioning for Power-Law Graphs", CIKM 2015), which puts an edge where
//!   its endpoints already are, the endpoint of lower degree weighing more, within the loads left.
//!
//! Ours, not the papers': the clusters' loads are exact (`target_load`), the expansion stopping
//! mid-vertex when a cluster is full, and the hub-to-hub edges' share reserved in every cluster
//! beforehand; seeds are taken in vertex order, a shuffled one or where the previous cluster stopped
//! (`Seeds`), by NE's rule or any (`SeedRule`); `refine` runs afterwards (by the caller).

use crate::graph::Graph;
use crate::partition::{target_load, EdgePartition};
use crate::rng::SplitMix64;

/// The hub threshold: degree above τ · d_avg. HEP evaluates τ from 1 to 100; at τ = 10 (HEP's
/// anchor in our benchmark) our hybrid lost to expansion without hubs by 0.5–8 % on Barabási–Albert
/// and R-MAT graphs of 0.5 M edges (k = 32, 256), at τ = 100 it was within 0.1 % of it either way
/// (`benches/families.rs`): few hubs apart keep the streaming's poorer placement to few edges.
pub const TAU: f64 = 100.0;

/// HDRF's balance weight λ (the paper's default 1) and ε in its denominator.
const HDRF_LAMBDA: f64 = 1.0;
const HDRF_EPSILON: f64 = 1.0;

const UNASSIGNED: u32 = u32::MAX;

/// The hubs of `graph` for threshold τ: degree > τ · d_avg (average over vertices with edges).
pub fn hubs(graph: &Graph, tau: f64) -> Vec<bool> {
    let degrees = graph.degrees();
    let used = degrees.iter().filter(|&&d| d > 0).count().max(1);
    let avg = 2.0 * graph.edges.len() as f64 / used as f64;
    degrees.iter().map(|&d| f64::from(d) > tau * avg).collect()
}

/// Where a cluster whose boundary ran dry finds its next seed: the first vertex, not a hub, with
/// unassigned edges, in vertex order or in an order shuffled from a seed (NE draws seeds at random;
/// a shuffled order is the same idea, reproducible).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seeds {
    InOrder,
    Shuffled(u64),
    /// Each cluster after the first starts where the previous one stopped: at the vertex of the
    /// previous cluster's boundary with the fewest unassigned edges (the top of its queue), vertex
    /// order when that boundary is empty or a boundary runs dry. Seeds at random places leave the
    /// unassigned rest of a mesh in fragments that the last clusters collect, each fragment costing
    /// its border; grown side by side, the clusters leave the rest in one piece. Measured against
    /// `InOrder`, refined, C at k = 32 / 256 (`bench/partition` graphs): `copter2` 8,837 / 22,185
    /// against 9,123 / 22,030, grid 1 M 6,161 / 19,464 against 6,478 / 20,046, 3-D Delaunay 1 M
    /// 22,349 / 48,360 against 22,197 / 49,580, 3-D Delaunay 100 k 4,562 / 10,955 against
    /// 4,745 / 10,903: better on most, not on all, hence both in sparse mode (`select`).
    Frontier,
}

/// Which vertices may seed a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedRule {
    /// Any vertex with unassigned edges.
    Any,
    /// NE's rule (`get_free_vertex` in NE's code, `../shared/third_party/hybrid_edge_partitioner`):
    /// first the vertices with at most twice the average degree of unassigned edges, the others
    /// once those run out. A seed of high degree starts its cluster in all its neighbourhoods at
    /// once. On Barabási–Albert graphs it moved our expansion's C to NE's (100 k, k = 256: six runs
    /// 59,217–59,376 against 59,286–59,397 without it; NE's nine runs 59,103–59,324); on R-MAT it
    /// changed the runs by −1.3 % to +0.5 % with no trend (`bench/partition` graphs, 100 k and 1 M).
    /// On `copter2` it cost the expansion 0.4–1.7 %, hence not in sparse mode.
    LowDegreeFirst,
}

/// Plain NE when `hub` is `None` (no vertex is a hub), HEP's hybrid otherwise, seeds in vertex
/// order. Every cluster c holds exactly `target_load(m, parts, c)` edges; `parts` 0 is taken as 1.
pub fn expand(graph: &Graph, parts: u32, hub: Option<&[bool]>) -> EdgePartition {
    expand_with(graph, parts, hub, Seeds::InOrder, SeedRule::Any)
}

/// `expand` with the seeds taken in the order `seeds` gives, under `rule`.
pub fn expand_with(
    graph: &Graph,
    parts: u32,
    hub: Option<&[bool]>,
    seeds: Seeds,
    rule: SeedRule,
) -> EdgePartition {
    let parts = parts.max(1);
    let m = graph.edges.len();
    let n = graph.vertices as usize;
    let no_hubs = vec![false; n];
    let hub = hub.filter(|h| h.len() == n).unwrap_or(&no_hubs);
    let between_hubs: Vec<u32> = (0..m as u32)
        .filter(|&e| {
            let (u, v) = graph.edges[e as usize];
            hub[u as usize] && hub[v as usize]
        })
        .collect();
    let (offsets, slots) = far_ends(graph);
    let span = offsets
        .windows(2)
        .map(|w| {
            let degree = (w[1] - w[0]) as u32;
            Span {
                start: w[0],
                live: degree,
                remaining: degree,
            }
        })
        .collect();
    drop(offsets);
    let mut x = Expansion {
        span,
        slots,
        hub,
        cluster: vec![UNASSIGNED; m],
        taken: vec![0; m.div_ceil(64)],
        stamp: vec![0; n],
        boundary: Boundary::new(n),
        mark: 0,
        load: 0,
        goal: 0,
    };
    let order: Option<Vec<u32>> = match seeds {
        Seeds::InOrder | Seeds::Frontier => None,
        Seeds::Shuffled(seed) => {
            let mut order: Vec<u32> = (0..n as u32).collect();
            SplitMix64::new(seed).shuffle(&mut order);
            Some(order)
        }
    };
    let cap = match rule {
        SeedRule::Any => u32::MAX,
        SeedRule::LowDegreeFirst => {
            let used = x.span.iter().filter(|s| s.remaining > 0).count().max(1);
            (2.0 * 2.0 * m as f64 / used as f64) as u32
        }
    };
    let mut next_seed = SeedOrder {
        order,
        low: 0,
        any: 0,
        cap,
    };
    for c in 0..parts {
        // The hub-to-hub edges' share of this cluster is left for the streaming pass.
        x.mark = c + 1;
        x.goal = target_load(m, parts, c) - target_load(between_hubs.len(), parts, c);
        x.load = 0;
        let carried = match seeds {
            Seeds::Frontier => x.boundary.pop(),
            Seeds::InOrder | Seeds::Shuffled(_) => None,
        };
        x.boundary.clear();
        if let Some(s) = carried.filter(|&s| x.load < x.goal && x.span[s as usize].remaining > 0) {
            x.join(s);
            x.absorb(s);
        }
        while x.load < x.goal {
            let core = match x.boundary.pop() {
                Some(v) => v,
                None => {
                    // While load < goal an unassigned edge outside the hub-to-hub ones exists.
                    let Some(s) = next_seed.next(&x.span, hub) else {
                        break;
                    };
                    if x.stamp[s as usize] != x.mark {
                        x.join(s);
                    }
                    s
                }
            };
            x.absorb(core);
        }
    }
    let mut cluster = x.cluster;
    drop((x.span, x.slots, x.taken));
    stream_between_hubs(graph, parts, &between_hubs, &mut cluster);
    // Nothing is left unless the seeds ran out early, which the goals rule out; should it happen,
    // the edges go wherever a load is short, so the balance stays exact.
    let mut load = vec![0usize; parts as usize];
    for &c in &cluster {
        if c != UNASSIGNED {
            load[c as usize] += 1;
        }
    }
    let mut short = 0u32;
    for c in cluster.iter_mut().filter(|c| **c == UNASSIGNED) {
        while load[short as usize] >= target_load(m, parts, short) {
            short += 1;
        }
        *c = short;
        load[short as usize] += 1;
    }
    EdgePartition { parts, cluster }
}

/// One entry of a vertex's incidence: the edge and its far endpoint, the far endpoint's top bit
/// (`SECOND`) set when the vertex is the edge's second endpoint. The expansion needs both
/// endpoints of every edge it scans or takes, in input order (`take` updates them in that
/// order); beside the edge they cost no read of `graph.edges` at random (a read per scanned edge:
/// 14 % of the expansion's time on Barabási–Albert 1 M, and per taken edge 12 % more, `perf
/// annotate`).
#[derive(Clone, Copy)]
struct Slot {
    edge: u32,
    far: u32,
}

/// The tag bit in `Slot::far`; vertex ids stay below it.
const SECOND: u32 = 1 << 31;
const _: () = assert!(crate::graph::MAX_VERTICES <= SECOND);

impl Slot {
    fn far(self) -> u32 {
        self.far & !SECOND
    }

    /// The edge's endpoints in input order, `v` being the vertex whose incidence holds the slot.
    fn ends(self, v: u32) -> (u32, u32) {
        if self.far & SECOND == 0 {
            (v, self.far())
        } else {
            (self.far(), v)
        }
    }
}

/// The incidence of every vertex as slots (a self-loop twice, its far endpoint itself), in edge
/// order: `slots[offsets[v]..offsets[v + 1]]` are v's.
fn far_ends(graph: &Graph) -> (Vec<usize>, Vec<Slot>) {
    let n = graph.vertices as usize;
    let mut offsets = vec![0usize; n + 1];
    for &(u, v) in &graph.edges {
        offsets[u as usize + 1] += 1;
        offsets[v as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut slots = vec![Slot { edge: 0, far: 0 }; offsets[n]];
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        let edge = e as u32;
        slots[fill[u as usize]] = Slot { edge, far: v };
        fill[u as usize] += 1;
        slots[fill[v as usize]] = Slot {
            edge,
            far: u | SECOND,
        };
        fill[v as usize] += 1;
    }
    (offsets, slots)
}

/// A vertex's place in the expansion, in one record so that a vertex met at random costs one
/// cache miss, not one per array (`join` and `take` meet every vertex so).
#[derive(Clone, Copy)]
struct Span {
    /// Where its slots begin in `Expansion::slots`.
    start: usize,
    /// `slots[start..start + live]` holds every unassigned edge of the vertex, in incidence order,
    /// and some assigned ones not yet dropped.
    live: u32,
    /// Unassigned edges (a self-loop counts twice): for a boundary vertex, its edges leading out of
    /// S, since edges inside S are taken as soon as both ends are in S.
    remaining: u32,
}

/// Where the expansion's seeds come from: the next vertex, not a hub, with unassigned edges, at most
/// `cap` of them while there is one (`SeedRule`), in vertex order or in `order`. Both scans only
/// move forward, so all seeds together cost O(n): a count only falls, so a vertex passed over for
/// having none never gains one, and one passed over for having too many is still found by the
/// second scan.
struct SeedOrder {
    order: Option<Vec<u32>>,
    low: usize,
    any: usize,
    cap: u32,
}

impl SeedOrder {
    fn next(&mut self, span: &[Span], hub: &[bool]) -> Option<u32> {
        let n = span.len();
        let remaining = |v: usize| span[v].remaining;
        let at = |i: usize| self.order.as_ref().map_or(i, |o| o[i] as usize);
        while self.low < n {
            let v = at(self.low);
            if remaining(v) > 0 && remaining(v) <= self.cap && !hub[v] {
                return Some(v as u32);
            }
            self.low += 1;
        }
        while self.any < n {
            let v = at(self.any);
            if remaining(v) > 0 && !hub[v] {
                return Some(v as u32);
            }
            self.any += 1;
        }
        None
    }
}

/// The state of the expansion: the cluster being grown is `mark − 1`; `stamp[v] == mark` when v is
/// in its boundary S.
struct Expansion<'a> {
    /// Per vertex: where its slots start and how many of them are live, and its unassigned edges.
    span: Vec<Span>,
    /// `far_ends`: the incidence, v's live slots at `slots[span[v].start..][..span[v].live]`.
    slots: Vec<Slot>,
    hub: &'a [bool],
    cluster: Vec<u32>,
    /// One bit per edge, set once the edge is assigned: what a scan asks of every edge it meets,
    /// m/8 bytes that stay in cache where `cluster` (4m bytes, read at random) did not.
    taken: Vec<u64>,
    stamp: Vec<u32>,
    /// Boundary vertices (not hubs) with unassigned edges, by `remaining`, lowest first.
    boundary: Boundary,
    mark: u32,
    load: usize,
    goal: usize,
}

impl Expansion<'_> {
    fn is_taken(&self, e: u32) -> bool {
        self.taken[e as usize / 64] >> (e % 64) & 1 == 1
    }

    /// Assigns edge e, whose endpoints in input order are u and v, to the cluster being grown.
    fn take(&mut self, e: u32, (u, v): (u32, u32)) {
        self.cluster[e as usize] = self.mark - 1;
        self.taken[e as usize / 64] |= 1 << (e % 64);
        self.load += 1;
        self.span[u as usize].remaining -= 1;
        self.span[v as usize].remaining -= 1;
        let ends = if u == v {
            [Some(u), None]
        } else {
            [Some(u), Some(v)]
        };
        // Both endpoints' keys fall before either is sifted: the queue once read the counts
        // themselves, so the first endpoint's sift saw the second's new count, and the order it
        // left (ties between a stale and a fresh key included) is the one `bench/partition`
        // measured. Sifting each with the other's old key changed C on Barabási–Albert 1 M,
        // k = 32, from 384,040 to 384,129.
        for w in ends.into_iter().flatten() {
            self.boundary.lower(w, self.span[w as usize].remaining);
        }
        for w in ends.into_iter().flatten() {
            let w = w as usize;
            if self.stamp[w] == self.mark && !self.hub[w] {
                self.boundary.update(w as u32, self.span[w].remaining);
            }
        }
    }

    /// y joins S, bringing its unassigned edges into S with it. Hubs are not scanned (HEP): their
    /// edges come with their other endpoints.
    fn join(&mut self, y: u32) {
        self.stamp[y as usize] = self.mark;
        if self.hub[y as usize] {
            return;
        }
        self.scan(y, |x, e, other, ends| {
            let inside = x.stamp[other as usize] == x.mark;
            if inside {
                x.take(e, ends);
            }
            !inside
        });
        self.boundary.update(y, self.span[y as usize].remaining);
    }

    /// v moves to the core: its unassigned edges are taken, far endpoints joining S first.
    fn absorb(&mut self, v: u32) {
        self.scan(v, |x, e, y, ends| {
            if x.stamp[y as usize] != x.mark {
                x.join(y);
            }
            // Joining may have taken e already.
            if x.is_taken(e) {
                return false;
            }
            if x.load < x.goal {
                x.take(e, ends);
                return false;
            }
            true
        });
    }

    /// Visits v's unassigned edges in incidence order while the cluster has room, calling
    /// `visit(self, e, far endpoint, e's endpoints in input order)`, which says whether e is still
    /// unassigned afterwards; what stays unassigned is kept live, the rest dropped (`keep_live`).
    fn scan(&mut self, v: u32, mut visit: impl FnMut(&mut Self, u32, u32, (u32, u32)) -> bool) {
        let (start, end) = self.live_range(v);
        let (mut i, mut kept) = (start, start);
        while i < end && self.load < self.goal {
            let slot = self.slots[i];
            i += 1;
            if self.is_taken(slot.edge) {
                continue;
            }
            if visit(self, slot.edge, slot.far(), slot.ends(v)) {
                self.slots[kept] = slot;
                kept += 1;
            }
        }
        self.keep_live(v, i, end, kept);
    }

    /// The part of v's incidence that may still hold unassigned edges.
    fn live_range(&self, v: u32) -> (usize, usize) {
        let span = self.span[v as usize];
        (span.start, span.start + span.live as usize)
    }

    /// After a scan of v's live incidence that kept its unassigned edges at `start..kept` and
    /// stopped at `scanned`: the unscanned rest moves down behind them, order kept, and the live
    /// part shrinks to what is left. (NE drops assigned edges from its adjacency lists too; without
    /// it, every cluster whose boundary a vertex of degree d joins rescans all d edges.)
    fn keep_live(&mut self, v: u32, scanned: usize, end: usize, kept: usize) {
        self.slots.copy_within(scanned..end, kept);
        let span = &mut self.span[v as usize];
        span.live = (kept + (end - scanned) - span.start) as u32;
    }
}

/// NE's priority queue over the boundary: the vertices by (unassigned edges, vertex id), lowest
/// first, as a binary heap indexed by vertex, so that a vertex whose count falls moves up in place
/// instead of being pushed again. (A heap of pushed copies, stale ones skipped on pop, grew to
/// O(m) entries and held half of the expansion's memory on 1 M-edge meshes.) Counts only fall
/// while a vertex is in the queue; a vertex at 0 leaves it. Each entry carries its key, the count
/// in the high half and the vertex in the low half, so that sifting compares entries without
/// looking counts up at random (a fifth of the expansion's time on Barabási–Albert 1 M did).
struct Boundary {
    heap: Vec<u64>,
    /// `at[v]`: v's index in `heap`, `ABSENT` when not in it.
    at: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl Boundary {
    fn new(n: usize) -> Boundary {
        Boundary {
            heap: Vec::new(),
            at: vec![ABSENT; n],
        }
    }

    fn clear(&mut self) {
        for &key in &self.heap {
            self.at[Self::vertex(key) as usize] = ABSENT;
        }
        self.heap.clear();
    }

    fn key(v: u32, count: u32) -> u64 {
        u64::from(count) << 32 | u64::from(v)
    }

    fn vertex(key: u64) -> u32 {
        key as u32
    }

    /// Sets v's key to `count` where v is queued, without moving it (see `Expansion::take`).
    fn lower(&mut self, v: u32, count: u32) {
        let i = self.at[v as usize];
        if i != ABSENT {
            self.heap[i as usize] = Self::key(v, count);
        }
    }

    /// Puts v in the queue at `count`, its unassigned edges, or moves it up after its count fell;
    /// removes it when the count is 0.
    fn update(&mut self, v: u32, count: u32) {
        let i = self.at[v as usize];
        if count == 0 {
            if i != ABSENT {
                self.remove_at(i as usize);
            }
            return;
        }
        let i = if i == ABSENT {
            self.heap.push(Self::key(v, count));
            self.at[v as usize] = (self.heap.len() - 1) as u32;
            self.heap.len() - 1
        } else {
            self.heap[i as usize] = Self::key(v, count);
            i as usize
        };
        self.sift_up(i);
    }

    fn pop(&mut self) -> Option<u32> {
        let v = Self::vertex(*self.heap.first()?);
        self.remove_at(0);
        Some(v)
    }

    fn remove_at(&mut self, i: usize) {
        let v = Self::vertex(self.heap[i]);
        self.at[v as usize] = ABSENT;
        let last = self.heap.pop().expect("remove_at of a present vertex");
        if i < self.heap.len() {
            self.heap[i] = last;
            let last = Self::vertex(last);
            self.at[last as usize] = i as u32;
            // The moved vertex may belong above or below i.
            self.sift_up(i);
            self.sift_down(self.at[last as usize] as usize);
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent] <= self.heap[i] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        loop {
            let mut least = i;
            for child in [2 * i + 1, 2 * i + 2] {
                if child < self.heap.len() && self.heap[child] < self.heap[least] {
                    least = child;
                }
            }
            if least == i {
                return;
            }
            self.swap(i, least);
            i = least;
        }
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.at[Self::vertex(self.heap[i]) as usize] = i as u32;
        self.at[Self::vertex(self.heap[j]) as usize] = j as u32;
    }
}

/// HDRF over the hub-to-hub edges, in input order, into the room each cluster has left.
fn stream_between_hubs(graph: &Graph, parts: u32, edges: &[u32], cluster: &mut [u32]) {
    if edges.is_empty() {
        return;
    }
    let m = graph.edges.len();
    let k = parts as usize;
    let degrees = graph.degrees();
    let mut load = vec![0usize; k];
    for &c in cluster.iter().filter(|&&c| c != UNASSIGNED) {
        load[c as usize] += 1;
    }
    // Which clusters each hub appears in, as bitsets, from what the expansion gave it.
    let mut hub_index = vec![u32::MAX; graph.vertices as usize];
    let mut hubs = 0u32;
    for &e in edges {
        let (u, v) = graph.edges[e as usize];
        for w in [u, v] {
            if hub_index[w as usize] == u32::MAX {
                hub_index[w as usize] = hubs;
                hubs += 1;
            }
        }
    }
    let words = k.div_ceil(64);
    let mut present = vec![0u64; hubs as usize * words];
    let mark = |present: &mut [u64], w: u32, c: u32| {
        let i = hub_index[w as usize];
        if i != u32::MAX {
            present[i as usize * words + c as usize / 64] |= 1 << (c % 64);
        }
    };
    for (e, &c) in cluster.iter().enumerate() {
        if c != UNASSIGNED {
            let (u, v) = graph.edges[e];
            mark(&mut present, u, c);
            mark(&mut present, v, c);
        }
    }
    let has = |present: &[u64], w: u32, c: usize| {
        let i = hub_index[w as usize] as usize;
        present[i * words + c / 64] >> (c % 64) & 1 == 1
    };
    for &e in edges {
        let (u, v) = graph.edges[e as usize];
        let (du, dv) = (
            f64::from(degrees[u as usize]),
            f64::from(degrees[v as usize]),
        );
        let (theta_u, theta_v) = (du / (du + dv), dv / (du + dv));
        let open = |c: usize| load[c] < target_load(m, parts, c as u32);
        let (max, min) = (0..k)
            .filter(|&c| open(c))
            .fold((0usize, usize::MAX), |(a, b), c| {
                (a.max(load[c]), b.min(load[c]))
            });
        let mut best = (f64::NEG_INFINITY, 0usize);
        for c in (0..k).filter(|&c| open(c)) {
            let g = |w: u32, theta: f64| {
                if has(&present, w, c) {
                    2.0 - theta
                } else {
                    0.0
                }
            };
            let balance =
                HDRF_LAMBDA * (max - load[c]) as f64 / (HDRF_EPSILON + (max - min) as f64);
            let score = g(u, theta_u) + g(v, theta_v) + balance;
            if score > best.0 {
                best = (score, c);
            }
        }
        let c = best.1;
        cluster[e as usize] = c as u32;
        load[c] += 1;
        mark(&mut present, u, c as u32);
        mark(&mut present, v, c as u32);
    }
}
