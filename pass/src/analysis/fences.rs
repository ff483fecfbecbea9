//! Which functions may run after a fence beyond their block, so that on
//! parts whose plain global loads skip L1 (sm_5x, sm_61/62) their loads
//! must not be cached (`Setting::keep_fenced_loads_plain`): they may read
//! what other blocks wrote before the fence, and L1 is not coherent for
//! global data (PTX ISA, cache operators).
//!
//! A function is fenced when it lies in the call tree of a kernel whose
//! tree may fence: an IR fence, a `membar.gl`/`.sys` or a `fence` above CTA
//! scope (intrinsic or inline asm). Calls through a pointer may reach any
//! function whose address is taken, so those join the tree. Under separate
//! compilation (no `whole-program`) a call to a function of another unit
//! may fence, and another unit's kernel may call any function this one
//! exports, after a fence of its own: every exported function and all it
//! calls are fenced.
//!
//! Not done: telling a load before the fence from one after it; every load
//! of a fenced function is treated alike (the worst case).

use std::collections::{HashMap, HashSet};

use super::kernel_model::reachable;
use crate::llvm::ir::{Module, Opcode, Value};

/// Why a function is fenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// A kernel whose call tree fences.
    Kernel,
    /// A function such a kernel calls, directly or through a pointer.
    Callee,
    /// Separate compilation: another unit may call it after a fence.
    Exported,
}

impl Why {
    pub(super) fn says(self) -> &'static str {
        match self {
            Why::Kernel => "the kernel fences beyond its block (__threadfence, membar.gl/.sys, a fence), itself, in what it calls, or possibly in a call it cannot see",
            Why::Callee => "a kernel that calls this function fences beyond its block (__threadfence, membar.gl/.sys, a fence)",
            Why::Exported => "under separate compilation a kernel of another translation unit may call this function after a fence",
        }
    }
}

/// Every fenced function of `module`, with why.
pub(super) fn fenced(
    module: Module,
    kernels: &[Value],
    whole_program: bool,
) -> HashMap<Value, Why> {
    let defined: Vec<Value> = (module.functions().into_iter())
        .filter(|f| !f.is_declaration())
        .collect();
    let address_taken: Vec<Value> = (defined.iter().copied())
        .filter(|&f| f.users().iter().any(|u| !is_direct_call_of(*u, f)))
        .collect();
    let mut out = HashMap::new();
    for &k in kernels {
        let mut tree: HashSet<Value> = reachable(k);
        tree.insert(k);
        if tree.iter().any(calls_through_pointer) {
            for &g in &address_taken {
                tree.insert(g);
                tree.extend(reachable(g));
            }
        }
        if tree.iter().any(|f| may_fence(f, whole_program)) {
            for f in tree {
                let why = if f == k { Why::Kernel } else { Why::Callee };
                out.entry(f).or_insert(why);
            }
        }
    }
    if !whole_program {
        for &g in defined
            .iter()
            .filter(|g| !kernels.contains(g) && !g.has_local_linkage())
        {
            for f in std::iter::once(g).chain(reachable(g)) {
                out.entry(f).or_insert(Why::Exported);
            }
        }
    }
    out
}

fn is_direct_call_of(user: Value, f: Value) -> bool {
    user.opcode() == Some(Opcode::LLVMCall) && user.called_value() == f
}

fn calls_through_pointer(f: &Value) -> bool {
    f.instructions().any(|i| {
        i.opcode() == Some(Opcode::LLVMCall) && {
            let callee = i.called_value();
            !callee.is_function() && !callee.is_inline_asm()
        }
    })
}

/// Whether `f` itself may order memory beyond its block: it fences, or
/// (separate compilation) it calls what this module cannot see.
fn may_fence(f: &Value, whole_program: bool) -> bool {
    fences_beyond_block(f) || (!whole_program && calls_unseen(f))
}

/// A call to another unit's function, or through a pointer that may lead
/// there. LLVM's intrinsics, libdevice (`__nv_*`) and the CUDA runtime's
/// device calls (`printf`, `malloc`, `free`, `assert`) do not fence.
fn calls_unseen(f: &Value) -> bool {
    f.instructions().any(|i| {
        if i.opcode() != Some(Opcode::LLVMCall) {
            return false;
        }
        let callee = i.called_value();
        if callee.is_inline_asm() {
            return false;
        }
        if !callee.is_function() {
            return true;
        }
        let name = callee.name();
        callee.is_declaration()
            && !name.starts_with("llvm.")
            && !name.starts_with("__nv_")
            && !matches!(
                name.as_str(),
                "vprintf" | "malloc" | "free" | "__assertfail"
            )
    })
}

/// Whether `f` itself orders memory beyond its block: an IR fence (scopes
/// not told apart: the worst case), `membar.gl`/`.sys`, a `fence` intrinsic
/// or inline asm above CTA scope. Not an atomic's own ordering: clang
/// writes CUDA's relaxed `atomicAdd` as a `seq_cst` read-modify-write,
/// which the backend emits without a fence.
fn fences_beyond_block(f: &Value) -> bool {
    f.instructions().any(|inst| match inst.opcode() {
        Some(Opcode::LLVMFence) => true,
        Some(Opcode::LLVMCall) => {
            let callee = inst.called_value();
            if callee.is_inline_asm() {
                // libcu++'s scoped atomics and fences, and users' own:
                // `membar.gl`, `fence.acq_rel.gpu`, ...
                return asm_fences_beyond_block(&callee.asm_text());
            }
            let name = if callee.is_function() {
                callee.name()
            } else {
                String::new()
            };
            name.starts_with("llvm.nvvm.membar.gl")
                || name.starts_with("llvm.nvvm.membar.sys")
                || (name.starts_with("llvm.nvvm.fence.") && !name.contains(".cta"))
        }
        _ => false,
    })
}

fn asm_fences_beyond_block(text: &str) -> bool {
    text.split([';', '\n']).any(|stmt| {
        // The opcode, after an optional predicate guard (`@p`) or label.
        let op = (stmt.split_whitespace())
            .find(|w| !w.starts_with('@') && !w.ends_with(':'))
            .unwrap_or("");
        (op.starts_with("membar.") && !op.starts_with("membar.cta"))
            || (op.starts_with("fence.") && !op.contains(".cta"))
    })
}
