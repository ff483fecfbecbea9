//! An edge partition and what it costs: C = Σ_v (p_v − 1) over the vertices that appear at all,
//! and the cluster loads (edges per cluster). Every method returns an `EdgePartition`; the cost is
//! computed here, once, from the assignment alone.

use crate::graph::Graph;

/// `cluster[e]` is the cluster (0..parts) of edge e.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgePartition {
    pub parts: u32,
    pub cluster: Vec<u32>,
}

/// The figures every method reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quality {
    pub cost: u64,
    pub max_load: u64,
    pub min_load: u64,
}

/// The balanced load of cluster c: m/k, the first m mod k clusters one more.
pub fn target_load(edges: usize, parts: u32, c: u32) -> usize {
    let k = parts as usize;
    edges / k + usize::from((c as usize) < edges % k)
}

impl EdgePartition {
    pub fn loads(&self) -> Vec<u64> {
        let mut l = vec![0u64; self.parts as usize];
        for &c in &self.cluster {
            l[c as usize] += 1;
        }
        l
    }

    /// C = Σ_v (p_v − 1), p_v the number of distinct clusters among v's edges; vertices without
    /// edges appear nowhere and add nothing. Counted as the distinct (vertex, cluster) pairs less
    /// the vertices that have edges: the edges are visited cluster by cluster (a counting sort),
    /// and a vertex counts once per cluster, when it is first met there. Linear in m + n + k, with
    /// no sorting per vertex (GRAPE counts C once per candidate).
    pub fn cost(&self, graph: &Graph) -> u64 {
        let clusters = self.cluster.iter().max().map_or(0, |&c| c as usize + 1);
        let mut start = vec![0usize; clusters + 1];
        for &c in &self.cluster {
            start[c as usize + 1] += 1;
        }
        for c in 0..clusters {
            start[c + 1] += start[c];
        }
        let mut by_cluster = vec![0u32; self.cluster.len()];
        let mut fill = start.clone();
        for (e, &c) in self.cluster.iter().enumerate() {
            by_cluster[fill[c as usize]] = e as u32;
            fill[c as usize] += 1;
        }
        const NOWHERE: u32 = u32::MAX;
        let mut last = vec![NOWHERE; graph.vertices as usize];
        let (mut pairs, mut used) = (0u64, 0u64);
        for c in 0..clusters {
            for &e in &by_cluster[start[c]..start[c + 1]] {
                let (u, v) = graph.edges[e as usize];
                for w in [u, v] {
                    let seen = &mut last[w as usize];
                    if *seen != c as u32 {
                        used += u64::from(*seen == NOWHERE);
                        pairs += 1;
                        *seen = c as u32;
                    }
                }
            }
        }
        pairs - used
    }

    pub fn quality(&self, graph: &Graph) -> Quality {
        let loads = self.loads();
        Quality {
            cost: self.cost(graph),
            max_load: loads.iter().copied().max().unwrap_or(0),
            min_load: loads.iter().copied().min().unwrap_or(0),
        }
    }

    /// Edges grouped by cluster, clusters in order, input order kept inside a cluster: the new thread
    /// order (`order[t]` is the edge thread t works on).
    pub fn edge_order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.cluster.len() as u32).collect();
        order.sort_by_key(|&e| self.cluster[e as usize]);
        order
    }
}
