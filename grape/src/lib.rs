//! GRAPE ("GRAph Partition on Edges"): assign the edges of a data-affinity graph to k clusters so that
//! the data objects (vertices) each cluster touches overlap as little as possible, under exact balance.
//!
//! A vertex is a data object, an edge is one thread's work over two objects, a cluster is a group of
//! threads that shares one L1 (the blocks co-resident on one SM). The cost of a partition is
//! C = Σ_v (p_v − 1), p_v the number of clusters in which v appears: the loads beyond one per object.
//!
//! This crate is pure computation over graphs: reading and generating graphs, the partitioning methods,
//! their costs, and the orders a host program applies. It knows nothing about kernels or LLVM; the
//! driver's `partition` subcommand connects it to the kernel-level model.

pub mod baselines;
pub mod clone_graph;
pub mod degree;
pub mod expand;
pub mod fixing;
pub mod generate;
pub mod graph;
pub mod greedy;
pub mod input;
pub mod layout;
pub mod limits;
pub mod methods;
pub mod metis_kway;
pub mod partition;
pub mod placement;
pub mod refine;
pub mod rng;
pub mod select;
pub mod two_stage;
pub mod vertex_start;
