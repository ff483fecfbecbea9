//! Reads one kernel's control flow and global memory instructions from the
//! IR into a [`Program`] (issue 7's whole-kernel trace walks it). Phis
//! become per-thread variables (`Folder::with_phi_variables`), so that the
//! walk can run loops iteration by iteration instead of at the first one.
//!
//! Which instructions are memory instructions of the trace, and of which
//! kind, is the caller's (the analysis knows what it decided); this file
//! only follows the CFG, folds addresses and conditions, and marks where a
//! warp's burst of memory instructions ends (`issue_points`: scoreboard
//! waits and block barriers, issue 19). Loads the backend merges into one
//! vector access (`vector_loads`) become one op.

use std::collections::{HashMap, HashSet};

use crate::facts::address::Folder;
use crate::llvm::ir::{Block, Opcode, Value};
use crate::model::program::{Exit, MemOp, Node, PackedStart, PhiDef, Program};
use crate::model::trace::Kind;
use crate::model::vector_loads::{roles, stops_merging, Mergeable, Merged, Piece, Role};

/// What the caller says of one memory instruction of the trace.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    /// Its index in the trace's instruction table.
    pub inst: u32,
    pub kind: Kind,
    /// The pointer it accesses and the bytes per thread.
    pub ptr: Value,
    pub bytes: u32,
    /// What it offers to a vector merge (`vector_loads`); `None`: nothing.
    pub merge: Option<Mergeable>,
}

/// What the caller says of one instruction; `None`: not in the trace.
pub type MemoryOf<'a> = dyn FnMut(Value) -> Option<Access> + 'a;

/// The program of `function`; `memory` picks its memory instructions. Also
/// the loads the backend merges into another's vector access
/// (`vector_loads`): they have no op of their own.
pub fn program(
    function: Value,
    folder: &mut Folder,
    memory: &mut MemoryOf,
) -> (Program, Vec<Merged>) {
    let blocks = function.blocks();
    let index: HashMap<Block, u32> = blocks.iter().copied().zip(0..).collect();
    let mut issued = Issued::default();
    let mut merged = Vec::new();
    let mut nodes: Vec<Node> = blocks
        .iter()
        .map(|&b| node(b, &index, folder, memory, &mut issued, &mut merged))
        .collect();
    issue_points(&blocks, &issued, &mut nodes);
    let packed_starts = packed_starts(function, folder);
    let vars = folder.variable_count();
    (
        Program {
            nodes,
            vars,
            packed_starts,
        },
        merged,
    )
}

/// The phi variables whose loaded starts begin runs stored one after
/// another (issue 19 fact 12): a start loaded from `p[i]` (through integer
/// casts; a plain load or `__ldg`) in a kernel that also loads `p[i + 1]`
/// and compares it with something (`bounds_a_test`),
/// where `i` moves by one between neighbouring threads along some thread
/// dimension: the compressed-row form (`for (j = row_ptr[r]; j <
/// row_ptr[r + 1]; ++j)`), whose rows follow each other in memory when the
/// offsets grow (CSR's invariant). Each comes with its start's address, so
/// that the walk can place a lane's run by its row (`p[i]`'s index), not by
/// the order lanes run in. Checked on sample threads with sample argument
/// and loop-variable values: the relation `p[i + 1]` = `p[i]` + one element
/// holds whatever they are.
fn packed_starts(function: Value, folder: &mut Folder) -> Vec<PackedStart> {
    use crate::facts::evaluate::{eval, Env, Standin};
    use crate::options::Dim3;
    let loads: Vec<(Value, Value)> = (function.instructions())
        .filter(|i| i.ty().is_int())
        .filter_map(|i| Some((i, loaded_from(i)?)))
        .collect();
    if loads.len() < 2 {
        return Vec::new();
    }
    let vars = folder.variable_count() as usize;
    let env = |tid: [i64; 3], ctaid: i64| {
        let mut env = Env::new(Dim3 { x: 32, y: 8, z: 4 }, None, Default::default());
        env.tid = tid;
        env.ctaid[0] = ctaid;
        env.args = (0..64).map(|a| (a, 1000 + 37 * i64::from(a))).collect();
        env.vars = (0..vars).map(|v| Some(3 + 5 * v as i64)).collect();
        env.standin = Standin::Low;
        env
    };
    // Sample threads, and each one's neighbours along x, y and z.
    let samples: Vec<[Env; 4]> = [([1, 2, 1], 0), ([6, 3, 2], 1)]
        .iter()
        .map(|&(t, b)| {
            let step = |d: usize| {
                let mut u = t;
                u[d] += 1;
                env(u, b)
            };
            [env(t, b), step(0), step(1), step(2)]
        })
        .collect();
    let mut out: Vec<PackedStart> = Vec::new();
    for phi in function.instructions() {
        if phi.opcode() != Some(Opcode::LLVMPHI) || !phi.ty().is_int() {
            continue;
        }
        let Some(var) = folder.phi_variable(phi) else {
            continue;
        };
        for (v, _) in phi.incoming() {
            let mut v = v;
            while matches!(
                v.opcode(),
                Some(Opcode::LLVMSExt | Opcode::LLVMZExt | Opcode::LLVMTrunc)
            ) {
                v = v.operand(0);
            }
            let Some(&(start, from)) = loads.iter().find(|l| l.0 == v) else {
                continue;
            };
            let size = i64::from(start.ty().int_width() / 8);
            let address = folder.fold(from);
            let at = |e: &Env| eval(&address, e);
            // Along some thread dimension, the next thread's row is the next.
            let rows_step = (0..3).any(|d| {
                samples.iter().all(|s| {
                    at(&s[0])
                        .zip(at(&s[d + 1]))
                        .is_some_and(|(a, b)| (b - a).abs() == size)
                })
            });
            let ends = rows_step
                && loads.iter().any(|&(end, end_from)| {
                    let e = folder.fold(end_from);
                    end.ty() == start.ty()
                        && bounds_a_test(end)
                        && samples
                            .iter()
                            .flatten()
                            .all(|s| eval(&e, s).zip(at(s)).is_some_and(|(e, a)| e - a == size))
                });
            if ends && !out.iter().any(|p| p.var == var) {
                out.push(PackedStart {
                    var,
                    start: address,
                    size,
                });
            }
        }
    }
    out.sort_unstable_by_key(|p| p.var);
    out
}

/// Whether `end` reaches an integer comparison through at most four casts
/// or arithmetic steps (`j < end`, `end - start > 0`, a trip count from
/// `end - start`): a bound, not a value used otherwise (a weight).
fn bounds_a_test(end: Value) -> bool {
    let mut frontier = vec![end];
    for _ in 0..4 {
        let mut next = Vec::new();
        for v in frontier {
            for u in v.users() {
                match u.opcode() {
                    Some(Opcode::LLVMICmp) => return true,
                    Some(
                        Opcode::LLVMSExt
                        | Opcode::LLVMZExt
                        | Opcode::LLVMTrunc
                        | Opcode::LLVMAdd
                        | Opcode::LLVMSub
                        | Opcode::LLVMAnd
                        | Opcode::LLVMLShr
                        | Opcode::LLVMAShr,
                    ) => next.push(u),
                    _ => {}
                }
            }
        }
        frontier = next;
    }
    false
}

/// The pointer an integer value is loaded from: a load's, or `__ldg`'s
/// (`llvm.nvvm.ldg.global.*`).
fn loaded_from(v: Value) -> Option<Value> {
    match v.opcode()? {
        Opcode::LLVMLoad => Some(v.operand(0)),
        Opcode::LLVMCall => {
            let name = v.called_value().intrinsic_name()?;
            name.starts_with("llvm.nvvm.ldg.global.")
                .then(|| v.operand(0))
        }
        _ => None,
    }
}

/// The trace's memory instructions that issue, in program order (the ops of
/// the nodes, block by block), and each merged load's leader: its value
/// comes from the leader's access.
#[derive(Default)]
struct Issued {
    ops: Vec<Value>,
    leader: HashMap<Value, Value>,
}

impl Issued {
    /// The instruction whose access produces `v`.
    fn source(&self, v: Value) -> Value {
        self.leader.get(&v).copied().unwrap_or(v)
    }
}

fn node(
    b: Block,
    index: &HashMap<Block, u32>,
    folder: &mut Folder,
    memory: &mut MemoryOf,
    issued: &mut Issued,
    merged: &mut Vec<Merged>,
) -> Node {
    let mut phis = Vec::new();
    let mut found: Vec<(Value, Access)> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut segment = 0;
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
            continue;
        }
        if let Some(access) = memory(inst) {
            pieces.push(Piece {
                kind: access.kind,
                address: folder.fold(access.ptr),
                bytes: access.bytes,
                segment,
                mergeable: access.merge,
            });
            found.push((inst, access));
        }
        if stops_merging(inst) {
            segment += 1;
        }
    }
    let mut ops = Vec::new();
    for (k, role) in roles(&pieces).into_iter().enumerate() {
        let (inst, access) = found[k];
        let (address, bytes) = match role {
            Role::Alone => (pieces[k].address.clone(), access.bytes),
            Role::Leads { bytes, from } => (pieces[from].address.clone(), bytes),
            Role::Joins { leader } => {
                merged.push(Merged {
                    member: access.inst,
                    leader: found[leader].1.inst,
                });
                issued.leader.insert(inst, found[leader].0);
                continue;
            }
        };
        ops.push(MemOp {
            inst: access.inst,
            address,
            bytes,
            waits: false,
        });
        issued.ops.push(inst);
    }
    Node {
        phis,
        ops,
        barriers: Vec::new(),
        exit: exit(b, index, folder),
    }
}

/// Marks where each warp's burst of memory instructions ends (issue 19):
/// `MemOp::waits` and `Node::barriers`, from `issued`.
///
/// A GPU issues a warp's instructions in order and stalls an instruction
/// whose operand a load still in flight will write (the scoreboard: Lindholm
/// et al., IEEE Micro 2008; Accel-Sim's Volta model). So within a block,
/// after a load the warp keeps issuing until an instruction reads a load
/// issued since the last wait; the memory instruction issued last before
/// that instruction `waits`. Every load in flight is then taken as
/// returned (they were issued close together), and the count starts over.
/// Only loads of the trace count (global loads and value-returning
/// atomics); shared-memory loads return within tens of cycles.
///
/// A use in another block (including a phi, which reads the value on the
/// edge out of the load's block) is taken to come before the next memory
/// instruction: the block's last memory instruction waits when a load in
/// flight at its end is used anywhere else. This is the common case (the
/// loop's exit test or the next iteration's address reads it) and it can
/// only end a burst early, never let one run past a real wait.
///
/// A block barrier ends the burst too; loads in flight at it are taken as
/// returned, since the warp waits there for its whole block.
///
/// A load merged into another's vector access (`Issued::leader`) is in
/// flight as that access: a use of its value waits for the access.
fn issue_points(blocks: &[Block], issued: &Issued, nodes: &mut [Node]) {
    let position: HashMap<Value, usize> = issued.ops.iter().copied().zip(0..).collect();
    // A load's value: a trace instruction of non-void type, or one merged
    // into such an instruction's access; as the instruction that issues it.
    let is_load = |v: Value| position.contains_key(&issued.source(v)) && v.ty().is_sized();
    let mut used_at_end: HashSet<Value> = HashSet::new();
    for &b in blocks {
        for inst in b.instructions() {
            if inst.opcode() == Some(Opcode::LLVMPHI) {
                used_at_end.extend(
                    inst.incoming()
                        .into_iter()
                        .map(|(v, _)| v)
                        .filter(|&v| is_load(v))
                        .map(|v| issued.source(v)),
                );
                continue;
            }
            for i in 0..inst.num_operands() {
                let v = inst.operand(i);
                if is_load(v) && v.parent_block() != b {
                    used_at_end.insert(issued.source(v));
                }
            }
        }
    }
    for (node, &b) in nodes.iter_mut().zip(blocks) {
        let mut in_flight: Vec<Value> = Vec::new();
        let mut ops = 0usize;
        for inst in b.instructions() {
            if inst.opcode() == Some(Opcode::LLVMPHI) {
                continue;
            }
            let reads_in_flight = (0..inst.num_operands())
                .any(|i| in_flight.contains(&issued.source(inst.operand(i))));
            if reads_in_flight {
                wait(node, &mut in_flight, ops);
            }
            if position.contains_key(&inst) {
                ops += 1;
                if is_load(inst) {
                    in_flight.push(inst);
                }
            } else if is_block_barrier(inst) {
                node.barriers.push(ops as u32);
                in_flight.clear();
            }
        }
        if in_flight.iter().any(|v| used_at_end.contains(v)) {
            wait(node, &mut in_flight, ops);
        }
    }
}

/// The op issued last (the `ops`-th of `node`) waits; loads in flight
/// are then taken as returned.
fn wait(node: &mut Node, in_flight: &mut Vec<Value>, ops: usize) {
    if let Some(op) = ops.checked_sub(1) {
        node.ops[op].waits = true;
    }
    in_flight.clear();
}

/// Whether `inst` is a barrier of the whole block: `__syncthreads()` and
/// its `_count`/`_and`/`_or` forms (`llvm.nvvm.barrier0*`), `bar.sync`/
/// `barrier.sync` with or without a thread count, LLVM 19's names (the
/// intrinsic table of libLLVM 19). Not `__syncwarp` (`bar.warp.sync`, one
/// warp) nor the cluster barriers (`barrier.cluster.*`, across blocks).
fn is_block_barrier(inst: Value) -> bool {
    if inst.opcode() != Some(Opcode::LLVMCall) {
        return false;
    }
    let Some(name) = inst.called_value().intrinsic_name() else {
        return false;
    };
    matches!(
        name.as_str(),
        "llvm.nvvm.barrier0"
            | "llvm.nvvm.barrier0.popc"
            | "llvm.nvvm.barrier0.and"
            | "llvm.nvvm.barrier0.or"
            | "llvm.nvvm.barrier"
            | "llvm.nvvm.barrier.n"
            | "llvm.nvvm.bar.sync"
            | "llvm.nvvm.barrier.sync"
            | "llvm.nvvm.barrier.sync.cnt"
    )
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
