//! Which of a block's global loads the NVPTX backend merges into one vector
//! access (`ld.global.v2`/`.v4`), so that the trace issues them as one
//! event (issue 19: `float4 q = pos[j]` is one 16-byte request per lane, not
//! four 4-byte ones; bypassed, the four would count four sector fetches
//! where the hardware makes one).
//!
//! The model sees the IR before code generation, where clang has split a
//! `float4` read into four scalar loads; LLVM's LoadStoreVectorizer, which
//! the NVPTX backend runs before instruction selection, merges them back
//! when their alignment allows. This file follows that pass's rules (LLVM
//! 19, `Transforms/Vectorize/LoadStoreVectorizer.cpp`) as far as they
//! decide what this project's kernels get, and no further:
//!
//! - the loads are in one basic block, with no instruction between them that
//!   may write memory or may not return (`splitChainByMayAliasInstrs`, the
//!   pseudo-blocks of `splitIntoPseudoBBs`); here any store, atomic, fence or
//!   call other than a few intrinsics known to do neither separates them,
//!   aliasing or not;
//! - they read one object at constant byte distances: their folded
//!   addresses differ by a constant (the same terms, other than constants,
//!   summed), or, when an address has an unknown part, their pointers are
//!   one IR value plus constant GEP offsets;
//! - they are plain scalar loads of one size, 1, 2, 4 or 8 bytes (`char`,
//!   `short`, `float`, `int`, `double`, pointers: the bytes of a `uchar4`
//!   are four `i8` loads in the IR), of the same trace kind (decided, or
//!   read-only);
//! - sorted by offset, a contiguous run is cut greedily from its lowest
//!   offset into the longest pieces of at most 16 bytes (NVPTX's 128-bit
//!   vector registers) whose size divides the IR alignment of the piece's
//!   first load (`splitChainByAlignment`: NVPTX allows no misaligned vector
//!   access). So a `float4` at align 16 is one 16-byte access, 12 bytes at
//!   align 16 are 8 + 4 (`ld.global.v2` and a scalar), and align 4 merges
//!   nothing; a `uchar4` at align 4 is one 4-byte access (`ld.global.u32`),
//!   its `x, y, z` alone 2 + 1 (`ld.global.v2.u8` and a `u8`);
//! - eight bytes in one piece (`<8 x i8>`, which NVPTX has no register
//!   for) are legalized into two 4-byte loads, both with the piece's debug
//!   location: one decision, two accesses. Sixteen bytes are one
//!   `ld.global.v4.u32`, and `i16` pieces of 2, 8 and 16 bytes one load
//!   each (checked on clang 19's PTX for sm_52, sm_70 and sm_90).
//!
//! The merged access reads from the lowest offset and issues where the
//! first of its loads (in program order) was: the pass hoists loads to
//! there, and the vector load takes that load's debug location, hence its
//! key (`emit::keys`) and its cache operator. That load *leads* the group;
//! the others *join* it and issue nothing of their own. When unsure, this
//! merges nothing, which was the model's behaviour before.
//!
//! Not modelled: stores (the pass merges them too; stores move no load
//! bytes), `half` elements, loads that are already vectors, chains
//! across blocks the pass would have split differently for aliasing
//! reasons it can prove away.

use llvm_sys::LLVMTypeKind;

use crate::facts::address::{BinOp, Expr, E};
use crate::llvm::ir::{DataLayout, Opcode, Value};
use crate::model::trace::Kind;

/// The widest access NVPTX vectorizes: 128 bits
/// (`NVPTXTTIImpl::getLoadStoreVecRegBitWidth`).
pub const MAX_VECTOR_BYTES: i64 = 16;

/// What a load offers to a merge, from the IR: the alignment it states and
/// its pointer as an IR value plus a constant offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mergeable {
    /// The load's IR alignment in bytes.
    pub align: u32,
    /// Its pointer less constant GEP offsets, and the offset (`None` in
    /// tests without IR).
    pub base: Option<(Value, i64)>,
}

/// One trace instruction of a block as the merge sees it, in program order.
#[derive(Clone, Debug)]
pub struct Piece {
    pub kind: Kind,
    pub address: E,
    pub bytes: u32,
    /// Instructions that stop a merge seen before it in the block: pieces
    /// of different segments never merge.
    pub segment: u32,
    /// `None`: not a load the backend merges (a store, an atomic, a vector
    /// or aggregate load, a volatile one, ...).
    pub mergeable: Option<Mergeable>,
}

/// What a piece does in the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Issues on its own, as before.
    Alone,
    /// Issues the merged access: `bytes` per lane, from the address of
    /// piece `from` (the lowest offset of the group). With `second`, the
    /// backend splits it: `bytes / 2` from `from`, and `bytes / 2` from
    /// piece `second`'s address.
    Leads {
        bytes: u32,
        from: usize,
        second: Option<usize>,
    },
    /// Issues nothing: its bytes are in the access of piece `leader`.
    Joins { leader: usize },
}

/// A load merged into another's access: trace instruction `member` issues
/// nothing, `leader` issues both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Merged {
    pub member: u32,
    pub leader: u32,
}

/// The role of each piece of one block (`pieces` in program order).
pub fn roles(pieces: &[Piece]) -> Vec<Role> {
    let mut roles = vec![Role::Alone; pieces.len()];
    let mut placed = vec![false; pieces.len()];
    for i in 0..pieces.len() {
        if placed[i] || !candidate(&pieces[i]) {
            continue;
        }
        // Everything at a constant distance from piece i: one chain.
        let mut chain: Vec<(i64, usize)> = vec![(0, i)];
        for j in i + 1..pieces.len() {
            if placed[j] {
                continue;
            }
            if let Some(d) = distance(&pieces[i], &pieces[j]) {
                chain.push((d, j));
                placed[j] = true;
            }
        }
        chain.sort();
        for run in contiguous(&chain, i64::from(pieces[i].bytes)) {
            for group in aligned(run, pieces) {
                let leader = group.iter().map(|c| c.1).min().expect("a group has pieces");
                let from = group[0].1;
                let last = group[group.len() - 1];
                let bytes = (last.0 - group[0].0) as u32 + pieces[i].bytes;
                // `<8 x i8>`: two `<4 x i8>` loads (the piece at offset 4).
                let second = (pieces[i].bytes == 1 && bytes == 8).then(|| group[4].1);
                for &(_, p) in group {
                    roles[p] = if p == leader {
                        Role::Leads {
                            bytes,
                            from,
                            second,
                        }
                    } else {
                        Role::Joins { leader }
                    };
                }
            }
        }
    }
    roles
}

/// Whether the backend may merge `p` with another load at all.
fn candidate(p: &Piece) -> bool {
    matches!(p.kind, Kind::Load | Kind::ReadOnly)
        && matches!(p.bytes, 1 | 2 | 4 | 8)
        && p.mergeable.is_some_and(|m| m.align > 0)
}

/// `b`'s byte offset from `a` when the backend may merge the two.
fn distance(a: &Piece, b: &Piece) -> Option<i64> {
    if !candidate(b) || a.kind != b.kind || a.bytes != b.bytes || a.segment != b.segment {
        return None;
    }
    if !a.address.has_unknown() && !b.address.has_unknown() {
        let (ta, ka) = terms(&a.address);
        let (tb, kb) = terms(&b.address);
        return same_terms(&ta, &tb).then(|| kb.wrapping_sub(ka));
    }
    let (ma, mb) = (a.mergeable?.base?, b.mergeable?.base?);
    (ma.0 == mb.0).then(|| mb.1.wrapping_sub(ma.1))
}

/// An address as its summands other than constants, and their constant sum.
fn terms(e: &E) -> (Vec<&E>, i64) {
    fn go<'e>(e: &'e E, out: &mut Vec<&'e E>, k: &mut i64) {
        match &**e {
            Expr::Const(c) => *k = k.wrapping_add(*c),
            Expr::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
                bits: 64,
            } => {
                go(lhs, out, k);
                go(rhs, out, k);
            }
            _ => out.push(e),
        }
    }
    let (mut out, mut k) = (Vec::new(), 0);
    go(e, &mut out, &mut k);
    (out, k)
}

/// Whether two lists hold the same expressions, in any order.
fn same_terms(a: &[&E], b: &[&E]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = (0..b.len()).find(|&j| !used[j] && b[j] == *x);
        found.map(|j| used[j] = true).is_some()
    })
}

/// The runs of `chain` (sorted by offset) whose loads of `bytes` each
/// follow one another without gap or overlap (`splitChainByContiguity`; a
/// repeated offset starts a new run); runs of one load are dropped.
fn contiguous(chain: &[(i64, usize)], bytes: i64) -> Vec<&[(i64, usize)]> {
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..=chain.len() {
        if k == chain.len() || chain[k].0 != chain[k - 1].0 + bytes {
            if k - start > 1 {
                out.push(&chain[start..k]);
            }
            start = k;
        }
    }
    out
}

/// `run` cut as `splitChainByAlignment` cuts it: from the lowest offset, the
/// longest prefix of at most [`MAX_VECTOR_BYTES`] whose size divides the
/// alignment of its first load, then on from the next load; a load that
/// starts no such prefix stays alone.
fn aligned<'r>(run: &'r [(i64, usize)], pieces: &[Piece]) -> Vec<&'r [(i64, usize)]> {
    let mut out = Vec::new();
    let mut begin = 0;
    while begin < run.len() {
        let bytes = i64::from(pieces[run[begin].1].bytes);
        let align = pieces[run[begin].1]
            .mergeable
            .map_or(0, |m| i64::from(m.align));
        let end = (begin + 1..run.len()).rev().find(|&end| {
            let size = run[end].0 + bytes - run[begin].0;
            size <= MAX_VECTOR_BYTES && align % size == 0
        });
        match end {
            Some(end) => {
                out.push(&run[begin..=end]);
                begin = end + 1;
            }
            None => begin += 1,
        }
    }
    out
}

/// What `inst`, a trace load of `kind`, offers to a merge: `None` unless it
/// is a plain (not volatile, not atomic) `load` of a scalar.
pub fn mergeable(inst: Value, kind: Kind, layout: &DataLayout) -> Option<Mergeable> {
    if !matches!(kind, Kind::Load | Kind::ReadOnly)
        || inst.opcode() != Some(Opcode::LLVMLoad)
        || inst.is_volatile()
        || inst.is_atomic()
    {
        return None;
    }
    use LLVMTypeKind::*;
    if !matches!(
        inst.ty().kind(),
        LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMPointerTypeKind
    ) {
        return None;
    }
    Some(Mergeable {
        align: inst.alignment(),
        base: Some(constant_offsets(inst.operand(0), layout)),
    })
}

/// `ptr` less its GEPs with constant indices and its pointer casts, and the
/// bytes those GEPs add.
fn constant_offsets(mut ptr: Value, layout: &DataLayout) -> (Value, i64) {
    let mut offset = 0i64;
    loop {
        match ptr.opcode() {
            Some(Opcode::LLVMGetElementPtr) => match gep_offset(ptr, layout) {
                Some(o) => offset = offset.wrapping_add(o),
                None => return (ptr, offset),
            },
            Some(Opcode::LLVMAddrSpaceCast | Opcode::LLVMBitCast) => {}
            _ => return (ptr, offset),
        }
        ptr = ptr.operand(0);
    }
}

/// The bytes a GEP adds when all its indices are constants.
fn gep_offset(gep: Value, layout: &DataLayout) -> Option<i64> {
    let mut ty = gep.gep_source_type();
    let mut offset = 0i64;
    for i in 1..gep.num_operands() {
        let idx = gep.operand(i);
        if !idx.ty().is_int() {
            return None;
        }
        let k = idx.const_int()?;
        if i == 1 {
            offset = offset.wrapping_add(k.wrapping_mul(layout.alloc_size(ty) as i64));
            continue;
        }
        use LLVMTypeKind::*;
        match ty.kind() {
            LLVMStructTypeKind => {
                let field = u32::try_from(k).ok().filter(|&f| f < ty.struct_fields())?;
                offset = offset.wrapping_add(layout.field_offset(ty, field) as i64);
                ty = ty.struct_field(field);
            }
            LLVMArrayTypeKind | LLVMVectorTypeKind => {
                ty = ty.element();
                offset = offset.wrapping_add(k.wrapping_mul(layout.alloc_size(ty) as i64));
            }
            _ => return None,
        }
    }
    Some(offset)
}

/// Intrinsics that neither write memory nor may stop a thread, by name
/// prefix: the pass moves loads across them (each checked on clang 19's PTX:
/// a `uchar4` or `float4` read around it is one load). Any other call stops
/// a merge: `__ldg` (`llvm.nvvm.ldg.global.*`) and `clock()` split a
/// `uchar4` into two `ld.global.v2.u8` there, as do the special registers
/// not listed (`clock`, `globaltimer`, ...).
const TRANSPARENT: &[&str] = &[
    "llvm.dbg.",
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.nvvm.read.ptx.sreg.tid.",
    "llvm.nvvm.read.ptx.sreg.ntid.",
    "llvm.nvvm.read.ptx.sreg.ctaid.",
    "llvm.nvvm.read.ptx.sreg.nctaid.",
    "llvm.nvvm.read.ptx.sreg.laneid",
    "llvm.nvvm.read.ptx.sreg.warpsize",
    "llvm.bitreverse.",
    "llvm.nvvm.f2i.",
    "llvm.nvvm.mulhi.",
    "llvm.nvvm.prmt",
    "llvm.nvvm.sad.",
    "llvm.nvvm.saturate.",
    "llvm.fma.",
    "llvm.fmuladd.",
    "llvm.sqrt.",
    "llvm.fabs.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.abs.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.nvvm.rsqrt.",
    "llvm.nvvm.sqrt.",
    "llvm.nvvm.rcp.",
    "llvm.nvvm.fma.",
    "llvm.nvvm.fabs.",
    "llvm.nvvm.ex2.",
    "llvm.nvvm.lg2.",
    "llvm.nvvm.sin.",
    "llvm.nvvm.cos.",
    "llvm.nvvm.div.",
    "llvm.nvvm.fmin.",
    "llvm.nvvm.fmax.",
];

/// Whether `inst` is a plain store into shared memory: the backend's alias
/// analysis tells it apart from the global loads around it (address spaces
/// 3 and 1 once inferred), so it stops no merge of theirs (a tile's
/// `s[t] = in[i].x; s[t + 256] = in[i].y; ...` reads `in[i]` as one
/// `ld.global.u32`, checked on clang 19's PTX). Only trace loads merge, and
/// they are all global.
pub fn stores_to_shared(inst: Value) -> bool {
    inst.opcode() == Some(Opcode::LLVMStore)
        && !inst.is_volatile()
        && !inst.is_atomic()
        && crate::facts::global_loads::origin_space(inst.operand(1)) == Some(SHARED)
}

/// The shared address space (NVPTX's 3).
const SHARED: u32 = 3;

/// Whether no load may move across `inst`: it may write memory (a store,
/// an atomic, a fence, a volatile or atomic load, a call other than
/// [`TRANSPARENT`] ones: barriers included) or may not return.
pub fn stops_merging(inst: Value) -> bool {
    match inst.opcode() {
        Some(
            Opcode::LLVMStore
            | Opcode::LLVMAtomicRMW
            | Opcode::LLVMAtomicCmpXchg
            | Opcode::LLVMFence
            | Opcode::LLVMInvoke
            | Opcode::LLVMCallBr
            | Opcode::LLVMVAArg,
        ) => true,
        Some(Opcode::LLVMLoad) => inst.is_volatile() || inst.is_atomic(),
        Some(Opcode::LLVMCall) => !inst
            .called_value()
            .intrinsic_name()
            .is_some_and(|n| TRANSPARENT.iter().any(|t| n.starts_with(t))),
        _ => false,
    }
}
