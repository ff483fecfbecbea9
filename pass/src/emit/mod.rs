//! Emission: metadata (`annotate`), inline-PTX lowering (`lower`), the
//! debug-location keys that carry decisions through code generation (`keys`),
//! and applying them to PTX text (`ptx`, `transplant`).

pub mod annotate;
pub mod keys;
pub mod lower;
pub mod ptx;
pub mod transplant;
