//! The data-affinity graph D = (V, E) in the form every method reads: an edge list in input order
//! (the order is the "original" thread order), with optional vertex coordinates (meshes) and,
//! for a sparse matrix, the split of vertices into y entries (rows) and x entries (columns).
//!
//! Self-loops are kept: a thread whose two objects are one object still does one unit of work.

/// The most vertices a graph may have: 2^27, so that the per-vertex arrays of
/// the methods (offsets, clone ranges, orders) stay within a few GiB, and the
/// signed 32-bit index files a kernel reads hold every vertex id.
pub const MAX_VERTICES: u32 = 1 << 27;

/// An undirected multigraph over vertices `0..vertices`, edges in input (thread) order.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub vertices: u32,
    pub edges: Vec<(u32, u32)>,
    /// Per-vertex coordinates, when the graph is a mesh (generators fill them; 2-D meshes use z = 0).
    pub coords: Option<Vec<[f64; 3]>>,
    /// For a sparse matrix A in y = Ax: vertices `0..rows` are the entries of y, vertices
    /// `rows..rows+cols` the entries of x; nonzero (r, c) is the edge (r, rows + c).
    pub matrix: Option<MatrixShape>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixShape {
    pub rows: u32,
    pub cols: u32,
}

/// Compressed adjacency: for vertex v, `incident[offsets[v]..offsets[v+1]]` are the indices of the
/// edges touching v (a self-loop appears twice).
#[derive(Clone, Debug)]
pub struct Incidence {
    pub offsets: Vec<usize>,
    pub incident: Vec<u32>,
}

impl Graph {
    pub fn new(vertices: u32, edges: Vec<(u32, u32)>) -> Graph {
        Graph {
            vertices,
            edges,
            coords: None,
            matrix: None,
        }
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Degree of every vertex (a self-loop counts twice, as in the clone graph: two clones).
    pub fn degrees(&self) -> Vec<u32> {
        let mut d = vec![0u32; self.vertices as usize];
        for &(u, v) in &self.edges {
            d[u as usize] += 1;
            d[v as usize] += 1;
        }
        d
    }

    pub fn incidence(&self) -> Incidence {
        Incidence::of(self.vertices as usize, &self.edges)
    }
}

impl Incidence {
    /// The incidence of `pairs` (edge t joins `pairs[t].0` and `pairs[t].1`) over `n` vertices:
    /// a counting sort of the endpoints.
    pub fn of(n: usize, pairs: &[(u32, u32)]) -> Incidence {
        let mut offsets = vec![0usize; n + 1];
        for &(u, v) in pairs {
            offsets[u as usize + 1] += 1;
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut incident = vec![0u32; offsets[n]];
        for (e, &(u, v)) in pairs.iter().enumerate() {
            incident[fill[u as usize]] = e as u32;
            fill[u as usize] += 1;
            incident[fill[v as usize]] = e as u32;
            fill[v as usize] += 1;
        }
        Incidence { offsets, incident }
    }

    pub fn edges_of(&self, v: u32) -> &[u32] {
        &self.incident[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }
}
