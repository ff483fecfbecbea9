//! Hand-written NVPTX IR for the model's unit tests: parsed in-process
//! (inkwell), no clang.

use inkwell::context::Context as Llvm;
use inkwell::memory_buffer::MemoryBuffer;

use crate::llvm::ir;

/// `each` of the module `text` parses to (`name` names the buffer); what
/// it returns must hold no handle into the module.
pub fn with_module<R>(text: &str, name: &str, each: impl FnOnce(ir::Module) -> R) -> R {
    let llvm = Llvm::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), name);
    let module = llvm
        .create_module_from_ir(buffer)
        .expect("the test IR parses");
    // SAFETY: `module` outlives `each`, the only user of the handle.
    each(unsafe { ir::Module::from_raw(module.as_mut_ptr()) })
}
