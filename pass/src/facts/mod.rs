//! Per-load facts (design.md §3–4): which functions are kernels, which loads
//! are global, each load's address expression, its guards, its per-thread
//! evaluation and the paper's per-load traffic estimate. Pure over IR facts;
//! nothing here decides or changes the module.

pub mod accesses;
pub mod address;
pub mod bounds;
pub mod evaluate;
pub mod geometry;
pub mod global_loads;
pub mod guards;
pub mod int;
pub mod kernels;
pub mod memory;
pub mod names;
pub mod specialise;
pub mod tape;
pub mod traffic;
