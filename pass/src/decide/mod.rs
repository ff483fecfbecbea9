//! Decisions: the paper's per-load rules (`policy`), the kernel-level `auto`
//! search (`kernel_model`), forced decisions from a file (`forced`) and the
//! verdicts on device functions that kernels' models follow into (`callees`).

pub mod callees;
pub mod forced;
pub mod kernel_model;
pub mod policy;
pub mod robust;
