//! The clone graph D' of GRAPE's first stage (Li et al., "Improving Inter-thread Data Sharing with
//! GPU Caches", the two-stage edge partition): every vertex v of degree d becomes d clones, one per
//! incident edge, so that a vertex partition of D' with equal clone counts is an edge partition of D
//! in disguise (each edge owns exactly two clones).
//!
//! Edges of D':
//! - a real edge joins the two clones of one edge of D (paper weight 1);
//! - auxiliary edges join the clones of one vertex on a cycle (paper weight ½), so that cutting a
//!   vertex's clones apart costs something: a vertex split into p groups cuts at least p cycle edges.
//!
//! METIS takes integer weights, so both are doubled: real = 2, auxiliary = 1. A vertex marked free
//! (the scale-free variant) gets no auxiliary edges: its clones may scatter without cost.
//!
//! Degree-aware weights (`CloneWeights::Degree`, ours): the cut of D' should price what C prices.
//! - A vertex v whose clones lie in q parts as q arcs of its cycle cuts q cycle edges and costs
//!   q − 1 in C: at q = 2 a cycle weight of ½ prices the split at 1, the paper's choice.
//! - A cut real edge (u in A, w in B) costs at most 1 in C (fixing gives it to one side, whose
//!   endpoint then appears in one more part), but cut edges that share an endpoint and a far part
//!   cost that 1 only once: if u has r neighbours across in B, handing those r edges to B costs 1,
//!   not r. Across a boundary between two parts the cut edges form a bipartite graph between the
//!   two boundary layers, and the cost of handing them out is its smallest vertex cover, about
//!   cut / r for r the edges each boundary vertex sends across.
//! - So a real edge is worth 1/r of C and a split vertex 1: relative to real edges, a cycle must
//!   weigh r/2 per cycle edge (two cycle edges cut per split). Across a plane through a mesh
//!   neighbourhood of degree d, the vertices next to the plane send on average about d/4 edges
//!   across: r ≈ d/4, cycle : real = d/8. At d = 4 (a grid, one neighbour across) that is the
//!   paper's ½; at d = 12.7 (`copter2`) 1.6; at d = 15 (3-D Delaunay) 1.9.
//! - The ratio is kept to ½ at least (a degree-1 or -2 vertex has r ≤ 1) and `CYCLE_CAP` at most
//!   (a hub's r is bounded by the parts' sizes, and an unbounded cycle would pin its clones).
//!
//! Measured (k = 32 / 256, before refinement, `benches/families.rs`): `copter2` C 12,581 / 34,736
//! with the paper's weights, 11,783 / 32,426 with d/8 (−6 %, −7 %); `4elt` (d = 5.9) 1,201 / 4,531
//! against 1,131 / 4,296. After C-gain refinement the difference shrinks to 0–2 % (8,534 / 23,038
//! against 8,518 / 22,725 on `copter2`), a single METIS seed's noise being of the same order;
//! divisors 4 and 16 were no better.
//!
//! This module only builds D'; it does not call METIS nor turn a clone partition into an edge
//! partition (that is `fixing`).

use crate::graph::Graph;
use metis::Idx;

/// Weight of the edge joining an edge's two clones (paper: 1, doubled for integers).
pub const REAL_WEIGHT: Idx = 2;
/// Weight of an edge on a vertex's cycle of clones (paper: ½, doubled for integers).
pub const AUXILIARY_WEIGHT: Idx = 1;

/// How the clone graph weighs its edges: the paper's fixed 1 : ½, or cycle weights that grow with
/// the vertex's degree (see the module note for the derivation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CloneWeights {
    /// Real edges 2, cycle edges 1 (the paper's 1 : ½ doubled).
    Paper,
    /// Real edges `DEGREE_REAL_WEIGHT`; the cycle of a vertex of degree d weighs
    /// `cycle_weight(d, per_degree)` per edge, i.e. real : cycle = 1 : max(½, d / per_degree).
    Degree { per_degree: f64 },
}

/// The real-edge weight under `CloneWeights::Degree`: large enough that d / per_degree is
/// represented to a quarter of a real edge.
pub const DEGREE_REAL_WEIGHT: Idx = 4;

/// The degree divisor the derivation gives: real : cycle = 1 : d/8 (module note).
pub const PER_DEGREE: f64 = 8.0;

/// The cycle-edge weight of a vertex of degree d under `CloneWeights::Degree`: the real weight
/// times max(½, min(d / per_degree, CYCLE_CAP)).
pub fn cycle_weight(degree: usize, per_degree: f64) -> Idx {
    let ratio = (degree as f64 / per_degree).clamp(0.5, CYCLE_CAP);
    (ratio * f64::from(DEGREE_REAL_WEIGHT)).round() as Idx
}

/// The largest cycle : real ratio: beyond it a vertex is a hub whose cycle would make METIS keep
/// all its clones in one part at any price.
pub const CYCLE_CAP: f64 = 4.0;

/// D' with its correspondence to D. Clone ids are contiguous per vertex: the clones of v are
/// `first[v]..first[v + 1]`, the j-th one standing for the j-th entry of `graph.incidence()` at v.
#[derive(Clone, Debug)]
pub struct CloneGraph {
    /// `vertices + 1` offsets; vertex v owns clones `first[v]..first[v + 1]` (as many as its degree).
    pub first: Vec<usize>,
    /// The edge of D each clone stands for.
    pub clone_edge: Vec<u32>,
    /// The two clones of each edge of D: the one at its first endpoint, then the one at its second.
    pub edge_clones: Vec<[u32; 2]>,
    /// Whether the vertex's clones were left without auxiliary edges.
    pub free: Vec<bool>,
    /// The edges of D' with METIS weights (each undirected edge listed once).
    pub weighted_edges: Vec<(u32, u32, Idx)>,
}

/// D' would have more clones than a 32-bit clone id can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloneGraphTooLarge {
    pub edges: usize,
}

impl std::fmt::Display for CloneGraphTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} edges make {} clones, more than the clone graph can index (at most {}): \
             partition a smaller graph",
            self.edges,
            2 * self.edges as u128,
            MAX_CLONES
        )
    }
}

impl std::error::Error for CloneGraphTooLarge {}

/// Clone ids are u32 and METIS indexes them with a signed 32-bit integer.
const MAX_CLONES: usize = i32::MAX as usize;

impl CloneGraph {
    pub fn clone_count(&self) -> usize {
        self.clone_edge.len()
    }

    /// The vertex of D a clone belongs to.
    pub fn vertex_of(&self, graph: &Graph, clone: u32) -> u32 {
        let e = self.clone_edge[clone as usize] as usize;
        let (u, v) = graph.edges[e];
        if self.edge_clones[e][0] == clone {
            u
        } else {
            v
        }
    }

    /// The other clone of the same edge of D (the real edge's far end).
    pub fn partner(&self, clone: u32) -> u32 {
        let [a, b] = self.edge_clones[self.clone_edge[clone as usize] as usize];
        if a == clone {
            b
        } else {
            a
        }
    }

    /// The clones adjacent to `clone` on its vertex's cycle: none for a free vertex or degree 1,
    /// one for degree 2, two otherwise. Returned as a fixed pair with `None` for absent entries.
    pub fn cycle_neighbours(&self, vertex: u32, clone: u32) -> [Option<u32>; 2] {
        let v = vertex as usize;
        let (lo, hi) = (self.first[v], self.first[v + 1]);
        let d = hi - lo;
        if self.free[v] || d < 2 {
            return [None, None];
        }
        let j = clone as usize - lo;
        if d == 2 {
            return [Some((lo + (1 - j)) as u32), None];
        }
        let prev = lo + (j + d - 1) % d;
        let next = lo + (j + 1) % d;
        [Some(prev as u32), Some(next as u32)]
    }
}

/// Builds D' for `graph`. `free[v]` marks vertices whose clones get no auxiliary edges; entries
/// missing from a short slice count as not free. Memory and time are linear in the edge count.
pub fn build(graph: &Graph, free: &[bool]) -> Result<CloneGraph, CloneGraphTooLarge> {
    build_weighted(graph, free, CloneWeights::Paper)
}

/// As `build`, with the edge weights `weights`.
pub fn build_weighted(
    graph: &Graph,
    free: &[bool],
    weights: CloneWeights,
) -> Result<CloneGraph, CloneGraphTooLarge> {
    let m = graph.edges.len();
    if m > MAX_CLONES / 2 {
        return Err(CloneGraphTooLarge { edges: m });
    }
    let n = graph.vertices as usize;
    let incidence = graph.incidence();
    let first = incidence.offsets;
    let clone_edge = incidence.incident;
    let free: Vec<bool> = (0..n)
        .map(|v| free.get(v).copied().unwrap_or(false))
        .collect();

    // The j-th incidence of v is clone first[v] + j. A self-loop's two incidences are consecutive,
    // and its first clone is recorded first, so the [first endpoint, second endpoint] order holds.
    const UNSET: u32 = u32::MAX;
    let mut edge_clones = vec![[UNSET, UNSET]; m];
    for (clone, &e) in clone_edge.iter().enumerate() {
        let slot = &mut edge_clones[e as usize];
        if slot[0] == UNSET {
            slot[0] = clone as u32;
        } else {
            slot[1] = clone as u32;
        }
    }
    // For a non-loop edge (u, v) the clone found first is the one at the lower-numbered vertex;
    // put the clone at the first endpoint u in slot 0 as documented.
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        if u > v {
            edge_clones[e].swap(0, 1);
        }
    }

    let auxiliary: usize = (0..n)
        .filter(|&v| !free[v])
        .map(|v| match first[v + 1] - first[v] {
            0 | 1 => 0,
            2 => 1,
            d => d,
        })
        .sum();
    let mut weighted_edges = Vec::with_capacity(m + auxiliary);
    let (real, cycle): (Idx, Box<dyn Fn(usize) -> Idx>) = match weights {
        CloneWeights::Paper => (REAL_WEIGHT, Box::new(|_| AUXILIARY_WEIGHT)),
        CloneWeights::Degree { per_degree } => (
            DEGREE_REAL_WEIGHT,
            Box::new(move |d| cycle_weight(d, per_degree)),
        ),
    };
    for clones in &edge_clones {
        weighted_edges.push((clones[0], clones[1], real));
    }
    for v in 0..n {
        if free[v] {
            continue;
        }
        let (lo, hi) = (first[v] as u32, first[v + 1] as u32);
        let w = cycle((hi - lo) as usize);
        match hi - lo {
            0 | 1 => {}
            2 => weighted_edges.push((lo, lo + 1, w)),
            _ => {
                for c in lo..hi - 1 {
                    weighted_edges.push((c, c + 1, w));
                }
                weighted_edges.push((hi - 1, lo, w));
            }
        }
    }
    Ok(CloneGraph {
        first,
        clone_edge,
        edge_clones,
        free,
        weighted_edges,
    })
}
