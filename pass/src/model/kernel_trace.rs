//! The IR side of the whole-kernel trace (issue 7): which instructions of a
//! kernel are global memory instructions of the trace, and of which kind,
//! read into a [`Program`] with its instruction table; and which blocks
//! share one SM. The walk and the cache simulation that follow are pure.
//!
//! In the trace: the loads the analysis decided (`Kind::Load`, one entry per
//! report row), global loads it leaves as they are (`ReadOnly`: read through
//! `ld.global.nc`, which allocates in L1/TEX on every modelled part;
//! `FixedLoad`: the rest, at the target's default), and stores and atomics
//! to provably global memory. Not in it: shared, local, constant and param
//! accesses (they do not pass through L1's global path), and volatile or
//! atomic loads (left alone, and rare in the simulated part).
//!
//! Loads the backend merges into one vector access (`vector_loads`) are
//! one event, at the first of them; the others follow its decision
//! ([`KernelProgram::follow_leaders`]).

use std::collections::HashMap;

use crate::decide::policy::Decision;
use crate::facts::address::{Context, Folder};
use crate::facts::geometry::Dim3;
use crate::facts::global_loads::{classify_pointer, is_read_only, Read, Skip};
use crate::llvm::ir::{DataLayout, Opcode, Value};
use crate::model::control::{program, Access, Calls};
use crate::model::program::Program;
use crate::model::trace::{Instruction, Kind, Trace};
use crate::model::vector_loads::{mergeable, Merged};
use crate::report::LoadModel;

/// A load the analysis evaluated: its report entry, if decided.
#[derive(Clone, Copy, Debug)]
pub struct TracedLoad {
    pub load: Value,
    /// Its index in the kernel report's `loads`.
    pub entry: usize,
}

/// A kernel's program and instruction table; `entries[i]` is the report
/// entry of instruction `i` when it is a decided load.
pub struct KernelProgram {
    pub program: Program,
    pub instructions: Vec<Instruction>,
    pub entries: Vec<Option<usize>>,
    /// Instructions the backend merges into another's vector access: they
    /// issue no event of their own (`vector_loads`).
    pub merged: Vec<Merged>,
    /// Every instruction of the kernel that may read or write global
    /// memory is in the trace ([`unseen_global_access`] found none): what
    /// the trace shows of which lines are shared is all there is to see.
    pub complete: bool,
    /// The device functions whose bodies the trace follows at their call
    /// sites (`control::program`).
    pub followed: Vec<Value>,
    /// The defined functions some call of the program leaves a call
    /// (recursion, depth, node limit): their accesses there are unseen.
    pub unfollowed: Vec<Value>,
}

/// What deciding which accesses are global needs.
pub struct Scope<'a> {
    pub layout: &'a DataLayout,
    pub globals: &'a HashMap<Value, u32>,
    pub kernels: &'a [Value],
    pub whole_program: bool,
}

/// `bound`: the kernel parameters with bound data (`memory::Memory`).
pub fn kernel_program(
    function: Value,
    loads: &[TracedLoad],
    scope: &Scope,
    bound: Vec<u32>,
) -> KernelProgram {
    let decided: HashMap<Value, usize> = loads.iter().map(|l| (l.load, l.entry)).collect();
    let mut instructions = Vec::new();
    let mut entries = Vec::new();
    let mut folder = Folder::with_phi_variables(Context {
        layout: scope.layout,
        is_kernel: true,
        globals: scope.globals,
        bound,
    });
    // The analysis asks the same of its loads (`analysis::operator_for`).
    let invariant_kind = function.module().md_kind("invariant.load");
    // A callee's instruction spliced in at several call sites keeps one
    // index: one PTX instruction, one cache operator (`control::program`).
    let mut seen: HashMap<Value, Option<Access>> = HashMap::new();
    let mut memory = |inst: Value| {
        if let Some(&a) = seen.get(&inst) {
            return a;
        }
        let a = access(inst, &decided, scope, invariant_kind)
            .map(|(kind, ptr, bytes)| (kind, ptr, bytes, instructions.len() as u32));
        let Some((kind, ptr, bytes, index)) = a else {
            seen.insert(inst, None);
            return None;
        };
        let (line, column) = inst.debug_line_col();
        instructions.push(Instruction {
            kind,
            site: format!("{line}:{column}"),
        });
        entries.push(decided.get(&inst).copied());
        let a = Some(Access {
            inst: index,
            kind,
            ptr,
            bytes,
            merge: mergeable(inst, kind, scope.layout),
        });
        seen.insert(inst, a);
        a
    };
    let (program, merged, calls) = program(function, &mut folder, &mut memory);
    let complete = !std::iter::once(function)
        .chain(calls.followed.iter().copied())
        .any(|f| unseen_global_access(f, &decided, scope, invariant_kind, &calls));
    let mut unfollowed: Vec<Value> = (calls.not_followed.iter())
        .map(|c| c.called_value())
        .collect();
    unfollowed.sort_unstable();
    unfollowed.dedup();
    KernelProgram {
        program,
        instructions,
        entries,
        merged,
        complete,
        followed: calls.followed,
        unfollowed,
    }
}

/// Whether some instruction of `function` (the kernel, or a device
/// function the trace follows) may read or write global memory without
/// being in the trace: a volatile or atomic load, an access through a
/// pointer not provably global nor provably of another space, a copy's
/// write, a call the trace does not follow into its callee (`calls`: a
/// declaration such as `printf`, recursion, a call past the depth or node
/// limit), inline asm, an intrinsic that may touch memory its arguments do
/// not confine to shared, local, constant or param space. Block barriers
/// and fences order memory but read none.
fn unseen_global_access(
    function: Value,
    decided: &HashMap<Value, usize>,
    scope: &Scope,
    invariant_kind: u32,
    calls: &Calls,
) -> bool {
    // Provably of a space other than global (`Skip::Space` never names it).
    let elsewhere = |ptr: Value| {
        matches!(
            classify_pointer(ptr, scope.kernels, scope.whole_program),
            Err(Skip::Space(_))
        )
    };
    function.instructions().any(|inst| {
        let traced = access(inst, decided, scope, invariant_kind).is_some();
        if let Some(read) = Read::of(inst, scope.layout) {
            // A copy also writes, at its first argument.
            return (!traced && !elsewhere(read.ptr))
                || (read.is_copy && !elsewhere(inst.operand(0)));
        }
        match inst.opcode() {
            Some(Opcode::LLVMStore) => !traced && !elsewhere(inst.operand(1)),
            Some(Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => {
                !traced && !elsewhere(inst.operand(0))
            }
            Some(Opcode::LLVMCall) => {
                !calls.follows(inst) && call_may_touch_global(inst, &elsewhere)
            }
            _ => false,
        }
    })
}

/// See [`unseen_global_access`]: a call, judged by its callee's `memory`
/// attribute (`Value::memory_effects`; inaccessible memory is the
/// compiler's model of state no pointer reaches).
fn call_may_touch_global(call: Value, elsewhere: &dyn Fn(Value) -> bool) -> bool {
    let callee = call.called_value();
    if !callee.is_function() {
        return true; // inline asm, or a call through a pointer
    }
    let name = callee.name();
    let orders_only = [
        "llvm.nvvm.barrier",
        "llvm.nvvm.bar.",
        "llvm.nvvm.membar.",
        "llvm.nvvm.fence.",
    ];
    if orders_only.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    let Some(effects) = callee.memory_effects() else {
        return true;
    };
    const ARGUMENT: u64 = 0b11;
    const OTHER: u64 = 0b11 << 4;
    if effects & OTHER != 0 {
        return true;
    }
    effects & ARGUMENT != 0
        && (0..call.num_args())
            .map(|i| call.operand(i))
            .any(|a| a.ty().is_pointer() && !elsewhere(a))
}

impl KernelProgram {
    /// Gives each load merged into another's access (`merged`) its
    /// leader's decision and scenarios in `loads` (per report entry, as
    /// `sm_model` builds them from `trace`), with figures of its own of zero,
    /// its own paper verdicts (`paper`, per report entry) and the leader's site:
    /// one PTX instruction takes one cache operator, and its traffic is counted
    /// once, at the leader.
    pub fn follow_leaders(
        &self,
        trace: &Trace,
        paper: &[(TracedLoad, [Decision; 2])],
        loads: &mut HashMap<usize, (LoadModel, bool)>,
    ) {
        let entry = |i: u32| self.entries.get(i as usize).copied().flatten();
        for m in &self.merged {
            let (Some(member), Some(leader)) = (entry(m.member), entry(m.leader)) else {
                continue;
            };
            let Some((lead, cache)) = loads.get(&leader).cloned() else {
                continue;
            };
            let verdicts = (paper.iter())
                .find(|(l, _)| l.entry == member)
                .map_or([Decision::Default; 2], |p| p.1);
            let site = (trace.instructions.get(m.leader as usize)).map_or("?", |i| i.site.as_str());
            loads.insert(
                member,
                (
                    LoadModel {
                        paper: verdicts.map(|d| d.name().to_string()),
                        sectors: 0,
                        hits: 0,
                        l2_bytes: 0,
                        hits_from: Vec::new(),
                        unknown_within: None,
                        in_allocation: false,
                        merged_into: Some(site.to_string()),
                        ..lead
                    },
                    cache,
                ),
            );
        }
    }
}

/// The trace kind, pointer and bytes of a global access, if `inst` is one.
fn access(
    inst: Value,
    decided: &HashMap<Value, usize>,
    scope: &Scope,
    invariant_kind: u32,
) -> Option<(Kind, Value, u32)> {
    let global = |ptr: Value| classify_pointer(ptr, scope.kernels, scope.whole_program).is_ok();
    if let Some(read) = Read::of(inst, scope.layout) {
        let bytes = u32::try_from(read.bytes?).ok()?;
        if decided.contains_key(&inst) {
            return Some((Kind::Load, read.ptr, bytes));
        }
        // A copy expanded into a byte loop still reads global memory (its
        // pointer was classified global first), at the default operator.
        let plain = matches!(
            read.classify(scope.kernels, scope.whole_program),
            Ok(()) | Err(Skip::CopyLoop(_))
        );
        // A load the backend writes as `ld.global.nc` (the analysis' own
        // test: never a copy) takes the read-only path whatever the target's
        // default for plain loads.
        let read_only = !read.is_copy && is_read_only(inst, scope.kernels, invariant_kind);
        let kind = if read_only {
            Kind::ReadOnly
        } else {
            Kind::FixedLoad
        };
        return plain.then_some((kind, read.ptr, bytes));
    }
    match inst.opcode()? {
        Opcode::LLVMStore => {
            let ptr = inst.operand(1);
            let bytes = scope.layout.store_size(inst.operand(0).ty());
            global(ptr).then_some((Kind::Store, ptr, u32::try_from(bytes).ok()?))
        }
        Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => {
            let ptr = inst.operand(0);
            let value = if inst.opcode() == Some(Opcode::LLVMAtomicRMW) {
                inst.operand(1)
            } else {
                inst.operand(2)
            };
            let bytes = scope.layout.store_size(value.ty());
            global(ptr).then_some((Kind::Atomic, ptr, u32::try_from(bytes).ok()?))
        }
        _ => None,
    }
}

/// The ids of the blocks that share one SM: the block scheduler deals the
/// first wave out to the SMs in turn, so SM 0 runs blocks 0, S, 2S, ...
/// for S SMs; `count` of them (fewer when the grid is smaller). Without a
/// grid, blocks are numbered along x.
pub fn resident_blocks(count: u32, sms: u32, grid: Option<Dim3>) -> Vec<[i64; 3]> {
    resident_blocks_on(0, count, sms, grid)
}

/// [`resident_blocks`] of SM `sm`: blocks `sm`, `sm + S`, `sm + 2S`, ...
pub fn resident_blocks_on(sm: u32, count: u32, sms: u32, grid: Option<Dim3>) -> Vec<[i64; 3]> {
    let total = grid.map_or(u64::MAX, Dim3::count);
    (0..u64::from(count))
        .map(|j| u64::from(sm) + j * u64::from(sms.max(1)))
        .take_while(|&id| id < total)
        .map(|id| match grid {
            Some(g) => {
                let (gx, gy) = (u64::from(g.x), u64::from(g.y));
                [
                    (id % gx) as i64,
                    ((id / gx) % gy) as i64,
                    (id / (gx * gy)) as i64,
                ]
            }
            None => [id as i64, 0, 0],
        })
        .collect()
}
