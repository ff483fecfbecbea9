//! Which loads gpucc-cache may touch: global-memory loads that are neither
//! volatile nor atomic.
//!
//! A load is global when its pointer is in address space 1, or is a generic
//! pointer whose every possible origin is global memory: a kernel's pointer
//! parameter (the NVPTX backend treats those as global), a global variable,
//! a cast from address space 1, or a device-function parameter that every
//! call site fills with such a pointer, or a pointer read from a kernel's
//! `byval` parameter (a struct of pointers passed by value, which the
//! backend marks global). Shared (3), constant (4), local (5), param (101)
//! and alloca-derived loads, `byval` parameters themselves (structs passed
//! by value), other pointers loaded from memory, parameters of functions that can
//! be called from elsewhere (external linkage, indirect calls), and anything
//! else not provably global are left alone, with the reason.
//!
//! `__ldg()` is a load too: clang 19's CUDA headers write it as a call to
//! `llvm.nvvm.ldg.global.{i,f,p}.*`, which the NVPTX backend always emits as
//! `ld.global.nc` (the read-only path). Its pointer is global by the
//! intrinsic's contract, so it is decided like any other global load.

use std::collections::HashSet;

use crate::llvm::ir::{Opcode, Value};

pub const GLOBAL: u32 = 1;

/// Why a load is not a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    Volatile,
    Atomic,
    Space(&'static str),
    NotProvablyGlobal,
    RuntimeLength,
    /// A copy the backend expands into a loop (see `COPY_LOOP_BYTES`).
    CopyLoop(u64),
    Unsized,
}

/// The longest copy the NVPTX backend expands into straight-line loads; a
/// longer one becomes a byte loop whose loads carry no key, so no decision
/// could reach them. Measured with clang 19.1 (Debian) on sm_52 for a
/// float-aligned struct copy: 64 B became 16 `ld.global.f32`, 68 B a loop of
/// `ld.global.u8`.
pub const COPY_LOOP_BYTES: u64 = 64;

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Volatile => f.write_str("volatile"),
            Skip::Atomic => f.write_str("atomic"),
            Skip::Space(s) => write!(f, "{s} memory"),
            Skip::NotProvablyGlobal => f.write_str("generic pointer not provably global"),
            Skip::RuntimeLength => f.write_str("copy of a runtime length"),
            Skip::CopyLoop(n) => write!(
                f,
                "copy of {n} B, which the backend turns into a byte loop (over {COPY_LOOP_BYTES} B)"
            ),
            Skip::Unsized => f.write_str("unsized type"),
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

/// The prefix of the read-only load intrinsics `__ldg()` becomes (LLVM 19
/// `IntrinsicsNVVM.td`: `int_nvvm_ldg_global_{i,f,p}`; signature `(ptr, i32
/// alignment)`). `llvm.nvvm.ldu.global.*` is another instruction (`ldu`).
const LDG_PREFIX: &str = "llvm.nvvm.ldg.global.";

/// Whether `inst` is an `__ldg()` read: a call of `llvm.nvvm.ldg.global.*`.
pub fn is_ldg(inst: Value) -> bool {
    inst.opcode() == Some(Opcode::LLVMCall)
        && inst
            .called_value()
            .intrinsic_name()
            .is_some_and(|n| n.starts_with(LDG_PREFIX))
}

/// The alignment an `__ldg()` call states (its second operand).
pub fn ldg_alignment(inst: Value) -> Option<u32> {
    inst.operand(1)
        .const_int()
        .and_then(|a| u32::try_from(a).ok())
}

/// Whether a load is one gpucc-cache decides; `kernels` are the module's
/// kernels; `whole_program`: no other translation unit calls this module's
/// functions. An `__ldg()` call is always one (`is_ldg`).
pub fn classify(load: Value, kernels: &[Value], whole_program: bool) -> Result<(), Skip> {
    if is_ldg(load) {
        return Ok(());
    }
    if load.is_volatile() {
        return Err(Skip::Volatile);
    }
    if load.is_atomic() {
        return Err(Skip::Atomic);
    }
    classify_pointer(load.operand(0), kernels, whole_program)
}

/// Whether memory read through `ptr` is provably global.
pub fn classify_pointer(ptr: Value, kernels: &[Value], whole_program: bool) -> Result<(), Skip> {
    let rdc = !whole_program;
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
pub fn origin_space(mut v: Value) -> Option<u32> {
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
/// (LLVM 19, NVPTXISelDAGToDAG `canLowerToLDG`), or an `__ldg()` call (always
/// `ld.global.nc`). A lowered load keeps `.nc`.
pub fn is_read_only(load: Value, kernels: &[Value], invariant_kind: u32) -> bool {
    is_ldg(load)
        || load.metadata(invariant_kind).is_some()
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
        (v.ty().is_pointer() && v.ty().address_space() == GLOBAL)
            || read_from_kernel_byval(v, kernels)
    })
}

/// Whether `v` is a pointer loaded from inside a kernel's `byval` parameter
/// (`struct Bodies { float *x, *y; }` passed by value): the host wrote it,
/// and the NVPTX backend treats it as global for CUDA kernels (LLVM 19
/// `NVPTXLowerArgs::runOnKernelFunction`: every pointer-typed load whose
/// address's underlying object, through GEPs and casts, is a byval argument
/// is marked global, so its uses become `ld.global`; checked on clang 19's
/// PTX: `ld.param.u64`, `cvta.to.global.u64`, `ld.global.f32`). Only where
/// the kernel never writes its parameter copy ([`only_read`]): one that
/// stores a shared address into a field (`v.data = tile`) and reads through
/// it again holds no host pointer there, and at -O0 the backend leaves that
/// read a generic `ld` that a cache operator would send to global memory
/// (an adversarial review, sixteenth session).
fn read_from_kernel_byval(v: Value, kernels: &[Value]) -> bool {
    // Only a generic pointer: the backend leaves one of another space (a
    // field declared `address_space(3)`) in its space (`markPointerAsGlobal`
    // returns at once), and it reads shared or constant memory.
    let generic = v.ty().is_pointer() && v.ty().address_space() == 0;
    if v.opcode() != Some(Opcode::LLVMLoad) || !generic || v.is_volatile() {
        return false;
    }
    let mut at = v.operand(0);
    // `getUnderlyingObject`'s walk: GEPs and casts, at most 6 steps (its
    // default `MaxLookup`).
    for _ in 0..=6 {
        if at.is_argument() {
            return at.arg_has_attribute("byval")
                && kernels.contains(&at.arg_function())
                && only_read(at);
        }
        match at.opcode() {
            Some(Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast) => {
                at = at.operand(0)
            }
            _ => return false,
        }
    }
    false
}

/// Whether the memory `arg` points to is only read: every use, through
/// GEPs and casts, is the address of a plain load or the source of a copy.
/// A store, a call, a `ptrtoint` or anything else there may write it (or
/// hand it to code that does): not only read. Gives up (not only read)
/// past 256 uses.
fn only_read(arg: Value) -> bool {
    let mut work = vec![arg];
    let mut seen = 0;
    while let Some(p) = work.pop() {
        for u in p.users() {
            seen += 1;
            if seen > 256 {
                return false;
            }
            match u.opcode() {
                Some(Opcode::LLVMLoad) if !u.is_volatile() => {}
                Some(
                    Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast,
                ) if u.operand(0) == p => work.push(u),
                Some(Opcode::LLVMCall) => {
                    let name = u.called_value().intrinsic_name().unwrap_or_default();
                    let copy =
                        name.starts_with("llvm.memcpy.") || name.starts_with("llvm.memmove.");
                    // The source (operand 1), and only the source.
                    if !(copy && u.operand(1) == p && u.operand(0) != p) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }
    true
}

/// Whether every origin of `ptr` is a constant global variable: a read-only
/// table shared by all threads (libdevice's `__cudart_sin_cos_coeffs`,
/// `__cudart_i2opi_d`, a user's `const __device__` array). clang reads these
/// with `ld.global.nc`; they stay cached.
pub fn reads_constant_table(ptr: Value) -> bool {
    all_origins(ptr, |v, _| v.is_global_variable() && v.is_global_constant())
}

/// An instruction that reads memory the backend may turn into `ld.global`:
/// a load, an `__ldg()` call, or an aggregate copy (`llvm.memcpy`/
/// `llvm.memmove`, which clang writes for `float4` and struct assignments and
/// the backend expands into loads after every IR pass has run).
#[derive(Clone, Copy, Debug)]
pub struct Read {
    pub inst: Value,
    /// The address read from.
    pub ptr: Value,
    /// Bytes each execution reads at `ptr` (`None`: a copy of runtime length).
    pub bytes: Option<u64>,
    pub is_copy: bool,
}

impl Read {
    /// The read `inst` performs, if it is a load or an aggregate copy.
    pub fn of(inst: Value, layout: &crate::llvm::ir::DataLayout) -> Option<Read> {
        match inst.opcode()? {
            Opcode::LLVMLoad => {
                let ty = inst.ty();
                Some(Read {
                    inst,
                    ptr: inst.operand(0),
                    bytes: ty.is_sized().then(|| layout.store_size(ty)),
                    is_copy: false,
                })
            }
            Opcode::LLVMCall if is_ldg(inst) => {
                let ty = inst.ty();
                Some(Read {
                    inst,
                    ptr: inst.operand(0),
                    bytes: ty.is_sized().then(|| layout.store_size(ty)),
                    is_copy: false,
                })
            }
            Opcode::LLVMCall => {
                let name = inst.called_value().intrinsic_name()?;
                let copy = ["llvm.memcpy.", "llvm.memmove.", "llvm.memcpy.inline."]
                    .iter()
                    .any(|p| name.starts_with(p));
                copy.then(|| Read {
                    inst,
                    ptr: inst.operand(1),
                    bytes: inst
                        .operand(2)
                        .const_int()
                        .and_then(|n| u64::try_from(n).ok()),
                    is_copy: true,
                })
            }
            _ => None,
        }
    }

    /// Whether gpucc-cache decides this read, or why not.
    pub fn classify(&self, kernels: &[Value], whole_program: bool) -> Result<(), Skip> {
        if !self.is_copy {
            return classify(self.inst, kernels, whole_program);
        }
        // The copy's last argument is its volatile flag.
        if self.inst.operand(3).const_int().unwrap_or(1) != 0 {
            return Err(Skip::Volatile);
        }
        let Some(bytes) = self.bytes else {
            return Err(Skip::RuntimeLength);
        };
        classify_pointer(self.ptr, kernels, whole_program)?;
        if bytes > COPY_LOOP_BYTES {
            return Err(Skip::CopyLoop(bytes));
        }
        Ok(())
    }
}
