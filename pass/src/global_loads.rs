//! Which loads gpucc-cache may touch: global-memory loads that are neither
//! volatile nor atomic.
//!
//! A load is global when its pointer is in address space 1, or is a generic
//! pointer whose every possible origin is global memory: a kernel's pointer
//! parameter (the NVPTX backend treats those as global), a global variable,
//! a cast from address space 1, or a device-function parameter that every
//! call site fills with such a pointer. Shared (3), constant (4), local (5),
//! param (101) and alloca-derived loads, pointers loaded from memory, and
//! anything not provably global are left alone, with the reason.

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
pub fn classify(load: Value, kernels: &[Value]) -> Result<(), Skip> {
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
        0 if points_to_global(ptr, kernels, &mut HashSet::new()) => Ok(()),
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
        || read_only_origin(load.operand(0), kernels, &mut HashSet::new())
}

fn read_only_origin(v: Value, kernels: &[Value], seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(v) {
        return true;
    }
    if v.is_argument() {
        return kernels.contains(&v.arg_function())
            && v.arg_has_attribute("noalias")
            && (v.arg_has_attribute("readonly") || v.arg_has_attribute("readnone"));
    }
    if v.is_global_variable() {
        return v.is_global_constant();
    }
    match v.opcode() {
        Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => {
            read_only_origin(v.operand(0), kernels, seen)
        }
        Some(Opcode::LLVMSelect) => {
            read_only_origin(v.operand(1), kernels, seen)
                && read_only_origin(v.operand(2), kernels, seen)
        }
        Some(Opcode::LLVMPHI) => v
            .incoming()
            .into_iter()
            .all(|(x, _)| read_only_origin(x, kernels, seen)),
        _ => false,
    }
}

/// Every origin of a generic pointer is global memory.
fn points_to_global(v: Value, kernels: &[Value], seen: &mut HashSet<Value>) -> bool {
    if !seen.insert(v) {
        // A cycle through phis adds no new origin.
        return true;
    }
    if v.ty().is_pointer() && v.ty().address_space() == GLOBAL {
        return true;
    }
    if v.is_global_variable() {
        return v.ty().address_space() == GLOBAL;
    }
    if v.is_argument() {
        let f = v.arg_function();
        if kernels.contains(&f) {
            return true;
        }
        let index = v.arg_index();
        let calls: Vec<Value> = f
            .users()
            .into_iter()
            .filter(|u| u.opcode() == Some(Opcode::LLVMCall) && u.called_value() == f)
            .collect();
        return !calls.is_empty()
            && calls
                .iter()
                .all(|c| points_to_global(c.operand(index), kernels, seen));
    }
    match v.opcode() {
        Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => {
            points_to_global(v.operand(0), kernels, seen)
        }
        Some(Opcode::LLVMSelect) => {
            points_to_global(v.operand(1), kernels, seen)
                && points_to_global(v.operand(2), kernels, seen)
        }
        Some(Opcode::LLVMPHI) => v
            .incoming()
            .into_iter()
            .all(|(x, _)| points_to_global(x, kernels, seen)),
        _ => false,
    }
}
