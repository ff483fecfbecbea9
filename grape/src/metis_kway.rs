//! The one place METIS is called: a balanced k-way vertex partition (METIS_PartGraphKway) of an
//! undirected graph given as a symmetric edge list with integer weights. Vertex weights are 1.
//!
//! METIS wants no self-loops and each undirected edge listed from both ends; parallel edges are
//! merged here with their weights summed.

use metis::{option, Graph as MetisGraph, Idx};

#[derive(Debug)]
pub struct MetisError(pub String);

impl std::fmt::Display for MetisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "METIS failed: {}", self.0)
    }
}

impl std::error::Error for MetisError {}

/// Partitions vertices `0..vertices` into `parts` parts. `ufactor` is METIS's allowed imbalance in
/// thousandths (1 = 0.1 %). Returns the part of every vertex.
pub fn partition(
    vertices: usize,
    edges: &[(u32, u32, Idx)],
    parts: u32,
    ufactor: Idx,
    seed: u64,
) -> Result<Vec<u32>, MetisError> {
    if parts <= 1 || vertices == 0 {
        return Ok(vec![0; vertices]);
    }
    if (parts as usize) >= vertices {
        // METIS rejects more parts than vertices; one vertex a part is then the exact answer.
        return Ok((0..vertices as u32).map(|v| v % parts).collect());
    }
    let too_large = || MetisError(format!("{vertices} vertices exceed METIS's index type"));
    let mut degree = vec![0usize; vertices + 1];
    for &(u, v, _) in edges {
        if u != v {
            degree[u as usize + 1] += 1;
            degree[v as usize + 1] += 1;
        }
    }
    for i in 0..vertices {
        degree[i + 1] += degree[i];
    }
    let mut fill = degree.clone();
    let mut adj = vec![(0u32, 0 as Idx); degree[vertices]];
    for &(u, v, w) in edges {
        if u != v {
            adj[fill[u as usize]] = (v, w);
            fill[u as usize] += 1;
            adj[fill[v as usize]] = (u, w);
            fill[v as usize] += 1;
        }
    }
    let mut xadj: Vec<Idx> = Vec::with_capacity(vertices + 1);
    let mut adjncy: Vec<Idx> = Vec::with_capacity(adj.len());
    let mut adjwgt: Vec<Idx> = Vec::with_capacity(adj.len());
    xadj.push(0);
    for v in 0..vertices {
        let list = &mut adj[degree[v]..degree[v + 1]];
        list.sort_unstable_by_key(|&(n, _)| n);
        let mut last: Option<u32> = None;
        for &(n, w) in list.iter() {
            if last == Some(n) {
                *adjwgt.last_mut().expect("merged edge follows a pushed one") += w;
            } else {
                adjncy.push(Idx::try_from(n).map_err(|_| too_large())?);
                adjwgt.push(w);
                last = Some(n);
            }
        }
        xadj.push(Idx::try_from(adjncy.len()).map_err(|_| too_large())?);
    }
    let nparts = Idx::try_from(parts).map_err(|_| too_large())?;
    let mut part: Vec<Idx> = vec![0; vertices];
    let graph = MetisGraph::new(1, nparts, &xadj, &adjncy)
        .map_err(|e| MetisError(e.to_string()))?
        .set_adjwgt(&adjwgt)
        .set_option(option::UFactor(ufactor))
        .set_option(option::Seed((seed & 0x7fff_ffff) as Idx));
    graph
        .part_kway(&mut part)
        .map_err(|e| MetisError(e.to_string()))?;
    Ok(part.into_iter().map(|p| p as u32).collect())
}
