//! Reads one kernel's control flow and global memory instructions from the
//! IR into a [`Program`] (issue 7's whole-kernel trace walks it). Phis
//! become per-thread variables (`Folder::with_phi_variables`), so that the
//! walk can run loops iteration by iteration instead of at the first one.
//!
//! Which instructions are memory instructions of the trace, and of which
//! kind, is the caller's (the analysis knows what it decided); this file
//! only follows the CFG and folds addresses and conditions.

use std::collections::HashMap;

use crate::facts::address::Folder;
use crate::llvm::ir::{Block, Opcode, Value};
use crate::model::program::{Exit, MemOp, Node, PhiDef, Program};

/// What the caller says of one instruction: its trace instruction index,
/// the pointer it accesses and the bytes per thread; `None`: not in the trace.
pub type MemoryOf<'a> = dyn FnMut(Value) -> Option<(u32, Value, u32)> + 'a;

/// The program of `function`; `memory` picks its memory instructions.
pub fn program(function: Value, folder: &mut Folder, memory: &mut MemoryOf) -> Program {
    let blocks = function.blocks();
    let index: HashMap<Block, u32> = blocks.iter().copied().zip(0..).collect();
    let nodes = blocks
        .iter()
        .map(|&b| node(b, &index, folder, memory))
        .collect();
    let vars = folder.variable_count();
    Program { nodes, vars }
}

fn node(b: Block, index: &HashMap<Block, u32>, folder: &mut Folder, memory: &mut MemoryOf) -> Node {
    let mut phis = Vec::new();
    let mut ops = Vec::new();
    for inst in b.instructions() {
        if inst.opcode() == Some(Opcode::LLVMPHI) {
            let t = inst.ty();
            if !(t.is_int() || t.is_pointer()) {
                continue;
            }
            let Some(var) = folder.phi_variable(inst) else {
                continue;
            };
            let incoming = inst
                .incoming()
                .into_iter()
                .filter_map(|(v, from)| Some((*index.get(&from)?, folder.fold(v))))
                .collect();
            phis.push(PhiDef { var, incoming });
        } else if let Some((inst_index, ptr, bytes)) = memory(inst) {
            ops.push(MemOp {
                inst: inst_index,
                address: folder.fold(ptr),
                bytes,
            });
        }
    }
    Node {
        phis,
        ops,
        exit: exit(b, index, folder),
    }
}

fn exit(b: Block, index: &HashMap<Block, u32>, folder: &mut Folder) -> Exit {
    let at = |x: Block| index.get(&x).copied();
    if let Some((cond, then, otherwise)) = b.conditional_branch() {
        if let (Some(then), Some(otherwise)) = (at(then), at(otherwise)) {
            return Exit::Branch {
                cond: folder.cond(cond),
                then,
                otherwise,
            };
        }
        return Exit::Stop;
    }
    if let Some((on, default, cases)) = b.switch() {
        let Some(default) = at(default) else {
            return Exit::Stop;
        };
        let cases = cases
            .into_iter()
            .filter_map(|(v, to)| Some((v.const_int()?, at(to)?)))
            .collect();
        return Exit::Switch {
            on: folder.fold(on),
            cases,
            default,
        };
    }
    let succ = b.successors();
    match (succ.as_slice(), b.terminator().and_then(|t| t.opcode())) {
        ([one], _) => at(*one).map_or(Exit::Stop, Exit::Jump),
        ([], Some(Opcode::LLVMRet)) => Exit::Return,
        _ => Exit::Stop,
    }
}
