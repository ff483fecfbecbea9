//! Lowering: rewrites each load whose `!gpucc.cache` operator differs from
//! the target's plain `ld.global` into inline PTX `ld.global.<op>.<type>`,
//! the way CUDA's own `__ldcg()` family does, because LLVM 19's NVPTX
//! backend has no other way to pick a cache operator for a plain load.
//!
//! Shapes: 8/16/32/64-bit integers, half, bfloat, float, double, pointers,
//! and vectors as `.v2`/`.v4` (or, for other vectors of 16 to 128 bits, the
//! same bits read as `.b16`/`.b32`/`.b64`/`.v2.b64`... words and bitcast
//! back). A load that is under-aligned for its PTX form, or of a type PTX
//! cannot load in one instruction, stays a plain load, is reported, and
//! carries `!gpucc.cache.unlowered` with the reason.
//!
//! The inline asm carries side effects so that no later LLVM pass moves it
//! across a store; ptxas schedules the final code anyway. The address is cast
//! to the global address space (`cvta.to.global`), as `ld.global` requires.

use std::collections::HashMap;

use llvm_sys::LLVMTypeKind;

use crate::emit::annotate::LOAD_KIND;
use crate::emit::keys::{self, Key, NEUTRAL_LINE};
use crate::error::Error;
use crate::facts::global_loads::{is_ldg, ldg_alignment};
use crate::gpu::generation::AsmOp;

/// Metadata on a decided load the lowering had to leave plain, with the reason.
pub const UNLOWERED_KIND: &str = "gpucc.cache.unlowered";
use crate::llvm::ir::{
    replace_instruction, take_name, Builder, DataLayout, Module, Opcode, Type, Value,
};

/// One PTX register class: type suffix, inline-asm constraint, register width.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Reg {
    ptx: &'static str,
    constraint: char,
    bits: u32,
}

/// How the PTX result becomes the IR value the load produced.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Finish {
    /// The register already has the load's type.
    Same,
    /// Truncate a 16-bit register to i8.
    TruncToI8,
    /// Bitcast the integer register to the load's (half/bfloat) type.
    Bitcast,
    IntToPtr,
}

#[derive(Clone, Debug, PartialEq)]
struct Shape {
    reg: Reg,
    /// 1 (scalar), 2 or 4 (`.v2`, `.v4`).
    lanes: u32,
    /// Per-lane conversion to the element type.
    finish: Finish,
    /// The lanes are words of a differently typed value: bitcast at the end.
    reinterpret: bool,
}

const U8: Reg = Reg {
    ptx: "u8",
    constraint: 'h',
    bits: 16,
};
const U16: Reg = Reg {
    ptx: "u16",
    constraint: 'h',
    bits: 16,
};
const U32: Reg = Reg {
    ptx: "u32",
    constraint: 'r',
    bits: 32,
};
const U64: Reg = Reg {
    ptx: "u64",
    constraint: 'l',
    bits: 64,
};
const B16: Reg = Reg {
    ptx: "b16",
    constraint: 'h',
    bits: 16,
};
const B32: Reg = Reg {
    ptx: "b32",
    constraint: 'r',
    bits: 32,
};
const B64: Reg = Reg {
    ptx: "b64",
    constraint: 'l',
    bits: 64,
};
const F32: Reg = Reg {
    ptx: "f32",
    constraint: 'f',
    bits: 32,
};
const F64: Reg = Reg {
    ptx: "f64",
    constraint: 'd',
    bits: 64,
};

fn scalar(ty: Type, bytes: u64) -> Option<(Reg, Finish)> {
    use LLVMTypeKind::*;
    Some(match ty.kind() {
        LLVMIntegerTypeKind => match ty.int_width() {
            8 => (U8, Finish::TruncToI8),
            16 => (U16, Finish::Same),
            32 => (U32, Finish::Same),
            64 => (U64, Finish::Same),
            _ => return None,
        },
        LLVMHalfTypeKind | LLVMBFloatTypeKind => (B16, Finish::Bitcast),
        LLVMFloatTypeKind => (F32, Finish::Same),
        LLVMDoubleTypeKind => (F64, Finish::Same),
        // Pointers are as wide as the data layout says (shared and local
        // pointers may be 32-bit).
        LLVMPointerTypeKind => match bytes {
            8 => (U64, Finish::IntToPtr),
            4 => (U32, Finish::IntToPtr),
            _ => return None,
        },
        _ => return None,
    })
}

/// The PTX form of a load of `ty` (`bytes` wide), or why there is none.
fn shape(ty: Type, bytes: u64, layout: &DataLayout) -> Result<Shape, String> {
    if let Some((reg, finish)) = scalar(ty, bytes) {
        return Ok(Shape {
            reg,
            lanes: 1,
            finish,
            reinterpret: false,
        });
    }
    if ty.kind() == LLVMTypeKind::LLVMVectorTypeKind && !ty.element().is_pointer() {
        let n = ty.vector_len();
        let elem = ty.element();
        if let Some((reg, finish)) = scalar(elem, layout.store_size(elem)) {
            if (n == 2 || n == 4) && bytes <= 16 {
                return Ok(Shape {
                    reg,
                    lanes: n,
                    finish,
                    reinterpret: false,
                });
            }
        }
        // Same bits, read as words (never for pointers: they cannot be bitcast).
        let words = match bytes {
            2 => Some((B16, 1)),
            4 => Some((B32, 1)),
            8 => Some((B64, 1)),
            16 => Some((B32, 4)),
            _ => None,
        };
        if let Some((reg, lanes)) = words {
            return Ok(Shape {
                reg,
                lanes,
                finish: Finish::Same,
                reinterpret: true,
            });
        }
    }
    Err(format!("no single PTX load for type {}", ty.print()))
}

fn asm_text(op: &str, s: &Shape) -> (String, String) {
    let vec = match s.lanes {
        1 => String::new(),
        n => format!(".v{n}"),
    };
    let dests: Vec<String> = (0..s.lanes).map(|i| format!("${i}")).collect();
    let dest = if s.lanes == 1 {
        dests[0].clone()
    } else {
        format!("{{{}}}", dests.join(", "))
    };
    let asm = format!("ld.global.{op}{vec}.{} {dest}, [${}];", s.reg.ptx, s.lanes);
    let mut cons: Vec<String> = (0..s.lanes)
        .map(|_| format!("={}", s.reg.constraint))
        .collect();
    cons.push("l".into());
    (asm, cons.join(","))
}

/// The operator recorded in a load's `!gpucc.cache` node, if it is one
/// gpucc-cache writes (`gpucc-cache-lower` on a module annotated earlier).
fn recorded_operator(load: Value, kind: u32) -> Option<AsmOp> {
    let node = load.metadata(kind)?;
    let ops = node.md_operands();
    let i = ops
        .iter()
        .position(|o| o.md_string().as_deref() == Some("operator"))?;
    AsmOp::parse(&ops.get(i + 1)?.md_string()?)
}

/// What happened to each annotated load: `Ok(())` lowered, `Err(why)` left plain.
pub type Outcomes = HashMap<Value, Result<(), String>>;

fn lower_one(
    module: Module,
    layout: &DataLayout,
    load: Value,
    op: AsmOp,
    kind: u32,
) -> Result<(), String> {
    let ty = load.ty();
    let bytes = layout.store_size(ty);
    let s = shape(ty, bytes, layout)?;
    // An `__ldg()` call states its alignment as an operand.
    let align = if is_ldg(load) {
        ldg_alignment(load).unwrap_or(0)
    } else {
        load.alignment()
    };
    // PTX wants the address aligned to the whole access (vector included).
    if (align as u64) < bytes {
        return Err(format!(
            "alignment {align} is below the {bytes} bytes ld.global needs"
        ));
    }
    let b = Builder::before(module, load);
    let mut ptr = load.operand(0);
    if ptr.ty().address_space() != crate::facts::global_loads::GLOBAL {
        ptr = b.cast(
            Opcode::LLVMAddrSpaceCast,
            ptr,
            b.ptr_type(crate::facts::global_loads::GLOBAL),
        );
    }
    let reg_ty = match s.reg.constraint {
        'f' => crate::llvm::ir::float_type(module),
        'd' => crate::llvm::ir::double_type(module),
        _ => b.int_type(s.reg.bits),
    };
    let (asm, constraints) = asm_text(&op.suffix(), &s);
    let ret = if s.lanes == 1 {
        reg_ty
    } else {
        b.struct_type(&vec![reg_ty; s.lanes as usize])
    };
    let call = b.inline_asm(ret, &asm, &constraints, &[ptr]);
    if let Some(md) = load.metadata(kind) {
        call.set_raw_metadata(kind, md);
    }
    let finish = |v: Value, to: Type| -> Value {
        match s.finish {
            Finish::Same => v,
            Finish::TruncToI8 => b.cast(Opcode::LLVMTrunc, v, to),
            Finish::Bitcast => b.cast(Opcode::LLVMBitCast, v, to),
            Finish::IntToPtr => b.cast(Opcode::LLVMIntToPtr, v, to),
        }
    };
    let value = if s.reinterpret {
        let words = if s.lanes == 1 {
            call
        } else {
            let vty = crate::llvm::ir::vector_type(reg_ty, s.lanes);
            let mut v = b.poison(vty);
            for i in 0..s.lanes {
                v = b.insert_element(v, b.extract_value(call, i), i);
            }
            v
        };
        b.cast(Opcode::LLVMBitCast, words, ty)
    } else if s.lanes == 1 {
        finish(call, ty)
    } else {
        let elem = ty.element();
        let mut v = b.poison(ty);
        for i in 0..s.lanes {
            v = b.insert_element(v, finish(b.extract_value(call, i), elem), i);
        }
        v
    };
    take_name(load, value);
    replace_instruction(load, value);
    Ok(())
}

/// A load the lowering may rewrite: a plain load that is neither volatile
/// nor atomic, or an `__ldg()` call (its operator keeps `.nc`).
fn is_lowerable(load: Value) -> bool {
    match load.opcode() {
        Some(Opcode::LLVMLoad) => !load.is_volatile() && !load.is_atomic(),
        Some(Opcode::LLVMCall) => is_ldg(load),
        _ => false,
    }
}

/// Lowers each load of `plan` (this run's decisions, typed) to inline asm.
pub fn lower(module: Module, plan: &[(Value, AsmOp)]) -> Outcomes {
    let kind = module.md_kind(LOAD_KIND);
    let layout = module.data_layout();
    let mut out = HashMap::new();
    for &(load, op) in plan {
        if !is_lowerable(load) {
            continue;
        }
        let result = lower_one(module, &layout, load, op, kind);
        if let Err(why) = &result {
            // Say so in the IR too: the operator in `!gpucc.cache` is not what runs.
            load.set_metadata(
                module.md_kind(UNLOWERED_KIND),
                module.md_node(&[module.md_string(why)]),
            );
        }
        out.insert(load, result);
    }
    out
}

/// `gpucc-cache-lower` on its own: the loads annotated by an earlier
/// `gpucc-cache-annotate`. Metadata is not trusted: a load is lowered only
/// when it is still provably global (`kernels`, `whole_program` as for the
/// analysis) and its operator is one gpucc-cache writes.
pub fn annotated_plan(
    module: Module,
    kernels: &[Value],
    whole_program: bool,
) -> Vec<(Value, AsmOp)> {
    let kind = module.md_kind(LOAD_KIND);
    let mut plan = Vec::new();
    for f in module.functions() {
        for load in f.instructions().filter(|&i| is_lowerable(i)) {
            let Some(op) = recorded_operator(load, kind) else {
                continue;
            };
            if crate::facts::global_loads::classify(load, kernels, whole_program).is_ok() {
                plan.push((load, op));
            }
        }
    }
    plan
}

/// Moves the debug location of every keyed read to its key line in the
/// key file (`keys`), and gives loads and calls that have no location the
/// neutral line there, so that no `ld.global` inherits another load's key.
/// Changes debug locations only, never code. Refuses a module whose own
/// debug info already names the key file: its lines would read as keys.
pub fn write_keys(module: Module, keyed: &[(Value, Key)]) -> Result<(), Error> {
    if let Some(file) = module
        .debug_file_names()
        .into_iter()
        .find(|f| keys::is_key_file(f))
    {
        return Err(Error::ReservedDebugFile { file });
    }
    let mut functions: Vec<Value> = keyed.iter().map(|(i, _)| i.parent_function()).collect();
    functions.sort();
    functions.dedup();
    module.ensure_subprograms(&functions, keys::KEY_FILE);
    let mut locations = module.key_locations(keys::KEY_FILE);
    for (inst, key) in keyed {
        inst.set_key_line(&mut locations, key.line());
    }
    for f in module.functions() {
        if f.is_declaration() || f.subprogram().is_null() {
            continue;
        }
        for i in f.instructions() {
            let reads = matches!(i.opcode(), Some(Opcode::LLVMLoad | Opcode::LLVMCall));
            if reads && !i.has_debug_loc() {
                i.set_key_line(&mut locations, NEUTRAL_LINE);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asm_for_scalar_and_vector() {
        let s = Shape {
            reg: F32,
            lanes: 4,
            finish: Finish::Same,
            reinterpret: false,
        };
        assert_eq!(
            asm_text("L1::no_allocate", &s),
            (
                "ld.global.L1::no_allocate.v4.f32 {$0, $1, $2, $3}, [$4];".into(),
                "=f,=f,=f,=f,l".into()
            )
        );
        let s = Shape {
            reg: U8,
            lanes: 1,
            finish: Finish::TruncToI8,
            reinterpret: false,
        };
        assert_eq!(
            asm_text("cg", &s),
            ("ld.global.cg.u8 $0, [$1];".into(), "=h,l".into())
        );
    }
}
