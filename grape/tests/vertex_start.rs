//! The quick vertex start: where METIS cannot coarsen much (at most 60 vertices a part), GRAPE runs
//! the vertex start with one METIS initial partition, and the anchor's own start (four) only when
//! the quick one wins. Checked here: where the rule applies (METIS's coarsening target worked out by
//! hand), that the anchor follows a winning quick start, and that GRAPE stays at or below the anchor.

mod common;

use common::assert_exactly_balanced;

use grape::baselines;
use grape::degree::Mode;
use grape::generate;
use grape::graph::Graph;
use grape::metis_kway::coarsest_target;
use grape::select::{grape, Candidate};
use grape::vertex_start::one_try_first;

/// A w × w comb: every row a path, a rung down from every `every`-th column. Road-like (degree
/// about 2.4, long chains), where the vertex start beats the expansions.
fn comb(w: u32, every: u32) -> Graph {
    let id = |x: u32, y: u32| y * w + x;
    let mut edges = Vec::new();
    for y in 0..w {
        for x in 0..w {
            if x + 1 < w {
                edges.push((id(x, y), id(x + 1, y)));
            }
            if y + 1 < w && x % every == 0 {
                edges.push((id(x, y), id(x, y + 1)));
            }
        }
    }
    Graph::new(w * w, edges)
}

#[test]
fn metis_coarsens_to_thirty_vertices_a_part_or_n_over_forty_log_k() {
    // 3-D Delaunay 100 k: 12,987 vertices at k = 256: max(12,987 / (40 · 8) = 40, 30 · 256 = 7,680).
    assert_eq!(coarsest_target(12_987, 256), 7_680);
    // 10 M vertices at k = 32: 10,000,000 / (40 · 5) = 50,000 beats 30 · 32 = 960.
    assert_eq!(coarsest_target(10_000_000, 32), 50_000);
    // k = 3: ⌊log2 3⌋ = 1, so 4,000 / 40 = 100 beats 90.
    assert_eq!(coarsest_target(4_000, 3), 100);
}

#[test]
fn the_quick_start_runs_where_the_coarsest_graph_keeps_half_the_vertices() {
    // 7,680 · 2 = 15,360 ≥ 12,987: 3-D Delaunay 100 k at k = 256.
    assert!(one_try_first(12_987, 256));
    // 4elt, 15,606 vertices, at k = 256: 15,360 < 15,606, METIS's own effort.
    assert!(!one_try_first(15_606, 256));
    assert!(one_try_first(15_360, 256));
    // The same 3-D Delaunay mesh at k = 32: 2 · 960 = 1,920 < 12,987.
    assert!(!one_try_first(12_987, 32));
    // One part: nothing to partition.
    assert!(!one_try_first(10, 1));
}

/// The runs below are one test, not three: METIS draws from the C library's process-wide `rand()`
/// (GKlib's `gk_randint32` without `USE_GKRAND`, reseeded by every METIS call), so METIS calls on
/// two test threads at once interleave their draws and neither gets its seed's partition.
#[test]
fn the_anchors_start_follows_a_winning_quick_start_only() {
    // 3,600 vertices at k = 64 (≤ 60 · 64 = 3,840); m = 60 · 59 row edges + 12 rung columns · 59.
    let g = comb(60, 5);
    assert_eq!(g.edge_count(), 4_248);
    let k = 64;
    let (p, choice) = grape(&g, k, Mode::Sparse, 1).unwrap();
    assert_exactly_balanced("grape", &g, &p, k);
    let cost = |c: Candidate| choice.costs.iter().find(|(x, _)| *x == c).map(|&(_, v)| v);
    let quick = cost(Candidate::QuickVertexStart).expect("the quick start runs");
    assert!(quick < cost(Candidate::Expansion).unwrap(), "{choice}");
    assert!(quick < cost(Candidate::Frontier).unwrap(), "{choice}");
    // The quick start won the first round, so the anchor's start ran (here lower: 388 against 398).
    let full = cost(Candidate::VertexStart).expect("the vertex start follows");
    assert!(full < quick, "{choice}");
    assert_eq!(choice.winner, Candidate::VertexStart, "{choice}");
    let anchor = baselines::vertex_greedy(&g, k, 1).unwrap().cost(&g);
    assert!(p.cost(&g) <= anchor, "{choice}; anchor {anchor}");

    // 1,728 vertices at k = 64 (≤ 3,840): the expansions win on the 3-D mesh, the anchor's METIS
    // run is skipped, and GRAPE is still below the anchor (1,132 against 1,305).
    let g = generate::mesh3d(12, 12, 12, 1);
    let (p, choice) = grape(&g, k, Mode::Sparse, 1).unwrap();
    assert_exactly_balanced("grape", &g, &p, k);
    assert_eq!(choice.costs[0].0, Candidate::QuickVertexStart, "{choice}");
    assert!(
        matches!(choice.winner, Candidate::Expansion | Candidate::Frontier),
        "{choice}"
    );
    assert!(
        choice
            .costs
            .iter()
            .all(|(c, _)| *c != Candidate::VertexStart),
        "{choice}"
    );
    let anchor = baselines::vertex_greedy(&g, k, 1).unwrap().cost(&g);
    assert!(p.cost(&g) < anchor, "{choice}; anchor {anchor}");

    // The comb at k = 32: 3,600 > 2 · 960 vertices, no quick start; GRAPE ≤ anchor by construction.
    let g = comb(60, 5);
    let (p, choice) = grape(&g, 32, Mode::Sparse, 1).unwrap();
    assert_eq!(choice.costs[0].0, Candidate::VertexStart, "{choice}");
    assert!(choice
        .costs
        .iter()
        .all(|(c, _)| *c != Candidate::QuickVertexStart));
    assert!(p.cost(&g) <= baselines::vertex_greedy(&g, 32, 1).unwrap().cost(&g));
}
