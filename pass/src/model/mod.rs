//! The kernel-level model (design.md §6): the kernel's control flow as typed
//! facts (`program`, `control`, `kernel_trace`), the whole-SM access trace
//! (`trace`, `walk`), the L1 simulation (`l1sim`) and its configuration from
//! the hardware facts (`l1_config`), locality curves
//! (`locality`), the loads whose data is read once (`read_once`), the
//! gather scenario (`gathers`), the packed-starts scenario (`packed_starts`)
//! and the
//! per-kernel run that ties them together (`sm_model`), with its budgets
//! (`budget`), scenarios (`scenarios`) and launch estimate
//! (`launch_estimate`).

pub mod allocations;
pub mod budget;
pub mod control;
#[cfg(test)]
mod control_tests;
pub mod gathers;
pub mod kernel_trace;
pub mod l1_config;
pub mod l1sim;
pub mod launch_estimate;
pub mod locality;
pub mod packed_starts;
pub mod program;
pub mod read_once;
pub mod scenarios;
pub mod schedule;
pub mod sharing;
pub mod sm_model;
#[cfg(test)]
mod test_ir;
pub mod trace;
pub mod trip_bounds;
#[cfg(test)]
mod trip_bounds_tests;
pub mod unknowns;
pub mod vector_loads;
#[cfg(test)]
mod vector_loads_tests;
pub mod walk;
#[cfg(test)]
mod walk_tests;
