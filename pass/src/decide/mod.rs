//! Decisions: the paper's per-load rules (`policy`), the kernel-level `auto`
//! search (`kernel_model`) and forced decisions from a file (`forced`).

pub mod forced;
pub mod kernel_model;
pub mod policy;
pub mod robust;
