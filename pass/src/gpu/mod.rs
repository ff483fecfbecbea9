//! The hardware: per-generation spelling and traffic model (`generation`),
//! the per-arch table of documented facts (`hardware`), machine descriptions
//! (`machine`) and occupancy (co-resident blocks, carveout, L1 per SM).

pub mod generation;
pub mod hardware;
pub mod machine;
pub mod occupancy;
