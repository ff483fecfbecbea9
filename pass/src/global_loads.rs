//! Which loads gpucc-cache may touch: global-memory loads that are neither
//! volatile nor atomic.
//!
//! A load is global when its pointer is in address space 1, or is a generic
//! pointer whose every possible origin is global memory: a kernel's pointer
//! parameter (the NVPTX backend treats those as global), a global variable,
//! a cast from address space 1, or a device-function parameter that every
//! call site fills with such a pointer. Shared (3), constant (4), local (5),
//! param (101) and alloca-derived loads, `byval` parameters (structs passed
//! by value), pointers loaded from memory, parameters of functions that can
//! be called from elsewhere (external linkage, indirect calls), and anything
//! else not provably global are left alone, with the reason.

use std::collections::HashSet;

use crate::ir::{Opcode, Value};

pub const GLOBAL: u32 = 1;

/// Why a load is not a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    Volatile,
    Atomic,
    Space(&'static str),
    NotProvablyGlobal,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Volatile => f.write_str("volatile"),
            Skip::Atomic => f.write_str("atomic"),
            Skip::Space(s) => write!(f, "{s} memory"),
            Skip::NotProvablyGlobal => f.write_str("generic pointer not provably global"),
        }
    }
}

fn space_name(addrspace: u32) -> &'static str {
    match addrspace {
        1 => "global",
        3 => "shared",
        4 => "constant",
        5 => "local",
        101 => "param",
        _ => "non-global",
    }
}

/// Whether a load is one gpucc-cache decides; `kernels` are the module's kernels.
pub fn classify(load: Value, kernels: &[Value], rdc: bool) -> Result<(), Skip> {
    if load.is_volatile() {
        return Err(Skip::Volatile);
    }
    if load.is_atomic() {
        return Err(Skip::Atomic);
    }
    let ptr = load.operand(0);
    let space = ptr.ty().address_space();
    match space {
        GLOBAL => Ok(()),
        0 if points_to_global(ptr, kernels, rdc) => Ok(()),
        0 => Err(match origin_space(ptr) {
            Some(s) if s != GLOBAL => Skip::Space(space_name(s)),
            _ => Skip::NotProvablyGlobal,
        }),
        other => Err(Skip::Space(space_name(other))),
    }
}

/// The address space a generic pointer was cast from, looking through GEPs
/// and casts (`addrspacecast (ptr addrspace(3) @tile to ptr)`); allocas are local.
fn origin_space(mut v: Value) -> Option<u32> {
    for _ in 0..64 {
        let space = v.ty().address_space();
        if space != 0 {
            return Some(space);
        }
        if v.is_argument() && v.arg_has_attribute("byval") {
            return Some(101);
        }
        match v.opcode() {
            Some(Opcode::LLVMAlloca) => return Some(5),
            Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => {
                v = v.operand(0)
            }
            _ => return None,
        }
    }
    None
}

/// Whether the NVPTX backend reads this load through the non-coherent path
/// (`ld.global.nc`): an `!invariant.load`, or every origin a `noalias
/// readonly` kernel parameter (`const T *__restrict__`) or a constant global
/// (LLVM 19, NVPTXISelDAGToDAG `canLowerToLDG`). A lowered load keeps `.nc`.
pub fn is_read_only(load: Value, kernels: &[Value], invariant_kind: u32) -> bool {
    load.metadata(invariant_kind).is_some()
        || all_origins(load.operand(0), |v, _| {
            if v.is_argument() {
                kernels.contains(&v.arg_function())
                    && !v.arg_has_attribute("byval")
                    && v.arg_has_attribute("noalias")
                    && (v.arg_has_attribute("readonly") || v.arg_has_attribute("readnone"))
            } else {
                v.is_global_variable() && v.is_global_constant()
            }
        })
}

/// Walks a pointer back through GEPs, casts, selects and phis (with a
/// worklist: chains can be thousands long) and asks `origin_ok` about each
/// value where the walk stops; `origin_ok` may add more values to visit.
fn all_origins(start: Value, mut origin_ok: impl FnMut(Value, &mut Vec<Value>) -> bool) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![start];
    while let Some(v) = work.pop() {
        // A cycle through phis adds no new origin.
        if !seen.insert(v) {
            continue;
        }
        match v.opcode() {
            Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => {
                work.push(v.operand(0))
            }
            Some(Opcode::LLVMSelect) => work.extend([v.operand(1), v.operand(2)]),
            Some(Opcode::LLVMPHI) => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            _ => {
                if !origin_ok(v, &mut work) {
                    return false;
                }
            }
        }
    }
    true
}

/// Every origin of a generic pointer is global memory.
fn points_to_global(start: Value, kernels: &[Value], rdc: bool) -> bool {
    all_origins(start, |v, work| {
        if v.is_argument() {
            // A struct passed by value (`byval`, also `__grid_constant__`)
            // lives in param or local memory, never in global memory.
            if v.arg_has_attribute("byval") {
                return false;
            }
            let f = v.arg_function();
            if kernels.contains(&f) {
                return true;
            }
            // A device function's parameter: global only if every caller is
            // known (every use a direct call, the function never passed
            // around; with relocatable device code, local linkage too, since
            // other translation units may call it) and every call passes a
            // global pointer.
            if rdc && !f.has_local_linkage() {
                return false;
            }
            let index = v.arg_index();
            let users = f.users();
            let direct = |u: &Value| {
                u.opcode() == Some(Opcode::LLVMCall)
                    && u.called_value() == f
                    && (0..u.num_args()).all(|i| u.operand(i) != f)
            };
            if users.is_empty() || !users.iter().all(direct) {
                return false;
            }
            work.extend(users.iter().map(|c| c.operand(index)));
            return true;
        }
        v.ty().is_pointer() && v.ty().address_space() == GLOBAL
    })
}
