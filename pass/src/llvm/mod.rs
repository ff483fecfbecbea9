//! The LLVM boundary: safe handles over the C API (`ir`) and the pass-plugin
//! registration (`plugin`). The only place with `unsafe` and C++ glue.

pub mod ir;
pub mod plugin;
