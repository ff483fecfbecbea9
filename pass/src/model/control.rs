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
use std::rc::Rc;

use crate::facts::address::{unknown, Cond, Folder, Why, E};
use crate::llvm::ir::{Block, Opcode, Value};
use crate::model::program::{Exit, MemOp, Node, PackedStart, PhiDef, Program, TestBound};
use crate::model::trace::Kind;
use crate::model::trip_bounds::{decided, test_bound, Dominators, Facts};
use crate::model::vector_loads::{
    roles, stops_merging, stores_to_shared, Mergeable, Merged, Piece, Role,
};

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

/// A program's calls into device functions (issue 19): which bodies the
/// trace follows, spliced in at each call site, and which calls it does not.
#[derive(Clone, Debug, Default)]
pub struct Calls {
    /// The device functions spliced in, each once, in the order first met.
    pub followed: Vec<Value>,
    /// Calls to a defined function spliced in at every place the program
    /// meets them.
    pub spliced: HashSet<Value>,
    /// Calls to a defined function left as calls somewhere (recursion,
    /// `MAX_CALL_DEPTH`, `MAX_SPLICED_NODES`): their callee's accesses are
    /// not in the trace there.
    pub not_followed: HashSet<Value>,
}

impl Calls {
    /// Whether the trace follows every execution of `call` into its callee.
    pub fn follows(&self, call: Value) -> bool {
        self.spliced.contains(&call) && !self.not_followed.contains(&call)
    }
}

/// How deep calls are followed: a call made at depth 6 (the kernel is 0)
/// is left as a call, a bound on the program's size whatever the call
/// graph; recursion (which the walk cannot unroll) never is followed.
const MAX_CALL_DEPTH: u32 = 6;

/// The most nodes a program may hold with its callees spliced in; a call
/// whose callee (with everything it calls, counted as if followed to
/// `MAX_CALL_DEPTH`) would pass it is left as a call. A node costs the walk
/// tables per op and phi, not per execution.
const MAX_SPLICED_NODES: usize = 4096;

/// The program of `function`; `memory` picks its memory instructions. Also
/// the loads the backend merges into another's vector access
/// (`vector_loads`): they have no op of their own; and the calls followed.
///
/// A call to a device function defined in the module (`__noinline__`, or
/// one the inliner kept) is followed (issue 19): the callee's blocks are
/// spliced in at the call site, its parameters standing for the call's
/// arguments (`Folder::enter_call`), its phis new variables of that call
/// site, its returns jumps back to the rest of the caller's block, which
/// reads the returned value as a variable those jumps set. Each call site
/// has its blocks of its own; an instruction keeps one entry in the
/// caller's instruction table (`memory` is asked once per instruction and
/// call site, and gives one index), since one PTX instruction takes one
/// cache operator whichever call site runs it.
pub fn program(
    function: Value,
    folder: &mut Folder,
    memory: &mut MemoryOf,
) -> (Program, Vec<Merged>, Calls) {
    let mut builder = Builder {
        folder,
        memory,
        nodes: Vec::new(),
        merged: Vec::new(),
        stack: vec![function],
        calls: Calls::default(),
        bounds: HashMap::new(),
        test_bounds: Vec::new(),
    };
    builder.instance(function);
    let Builder {
        folder,
        nodes,
        mut merged,
        calls,
        test_bounds,
        ..
    } = builder;
    merged.sort_unstable_by_key(|m| (m.member, m.leader));
    merged.dedup_by_key(|m| (m.member, m.leader));
    let packed_starts = packed_starts(function, folder);
    let vars = folder.variable_count();
    (
        Program {
            nodes,
            vars,
            packed_starts,
            test_bounds,
        },
        merged,
        calls,
    )
}

/// Builds a [`Program`] one function instance at a time: the kernel, then
/// each callee at each call site.
struct Builder<'b, 'f, 'm> {
    folder: &'b mut Folder<'f>,
    memory: &'b mut MemoryOf<'m>,
    nodes: Vec<Node>,
    merged: Vec<Merged>,
    /// The functions whose instances are being built, the kernel first.
    stack: Vec<Value>,
    calls: Calls,
    /// `bound` of (function, depth), memoized.
    bounds: HashMap<(Value, u32), usize>,
    test_bounds: Vec<TestBound>,
}

/// One function instance: its entry node, and its returns (node, value).
struct Instance {
    entry: u32,
    returns: Vec<(u32, Option<E>)>,
}

/// The callee a call would splice in: a function defined in the module.
fn defined_callee(call: Value) -> Option<Value> {
    if call.opcode() != Some(Opcode::LLVMCall) {
        return None;
    }
    let callee = call.called_value();
    (callee.is_function() && !callee.is_declaration()).then_some(callee)
}

impl Builder<'_, '_, '_> {
    /// At most how many nodes `f`'s instance at `depth` adds, with every
    /// call it may follow followed (recursion counted to `MAX_CALL_DEPTH`,
    /// so that this bounds what `instance` builds whatever the stack).
    fn bound(&mut self, f: Value, depth: u32) -> usize {
        if let Some(&n) = self.bounds.get(&(f, depth)) {
            return n;
        }
        let mut n = f.blocks().len();
        if depth < MAX_CALL_DEPTH {
            let callees: Vec<Value> = f.instructions().filter_map(defined_callee).collect();
            for c in callees {
                n = n.saturating_add(self.bound(c, depth + 1)).saturating_add(1);
            }
        }
        self.bounds.insert((f, depth), n);
        n
    }

    /// Which calls of `f` (the stack's last) this instance follows: those
    /// that recurse into no function being built, within the depth, while
    /// the nodes they may add fit in `MAX_SPLICED_NODES` (in order).
    fn plan(&mut self, f: Value) -> HashSet<Value> {
        let depth = self.stack.len() as u32 - 1;
        let mut used = self.nodes.len() + f.blocks().len();
        let mut plan = HashSet::new();
        for call in f.instructions() {
            let Some(callee) = defined_callee(call) else {
                continue;
            };
            let fits = depth < MAX_CALL_DEPTH && !self.stack.contains(&callee) && {
                let n = self.bound(callee, depth + 1) + 1;
                used + n <= MAX_SPLICED_NODES && {
                    used += n;
                    true
                }
            };
            if fits {
                plan.insert(call);
                self.calls.spliced.insert(call);
            } else {
                self.calls.not_followed.insert(call);
            }
        }
        plan
    }

    /// Builds the instance of the stack's last function: one node per
    /// block, more where a followed call splits a block.
    fn instance(&mut self, f: Value) -> Instance {
        let plan = self.plan(f);
        // A followed call's result is a variable of this frame, numbered
        // before anything reads it.
        for &call in &plan {
            if call.ty().is_int() || call.ty().is_pointer() {
                self.folder.phi_variable(call);
            }
        }
        let blocks = f.blocks();
        let dominators = Dominators::of(f);
        let base = self.nodes.len() as u32;
        let index: HashMap<Block, u32> = blocks.iter().copied().zip(base..).collect();
        self.nodes.extend(blocks.iter().map(|_| Node::empty()));
        let mut built = Built::default();
        let mut tails = HashMap::new();
        let mut returns = Vec::new();
        for &b in &blocks {
            let tail = self.block(b, &index, &plan, &dominators, &mut built);
            tails.insert(index[&b], tail);
            if self.stack.len() > 1 && matches!(self.nodes[tail as usize].exit, Exit::Return) {
                let value = b
                    .terminator()
                    .filter(|t| t.num_operands() == 1)
                    .map(|t| t.operand(0))
                    .filter(|v| v.ty().is_int() || v.ty().is_pointer())
                    .map(|v| self.folder.fold(v));
                returns.push((tail, value));
            }
        }
        // A phi's incoming edge comes from its predecessor block's last node.
        for &b in &blocks {
            for phi in &mut self.nodes[index[&b] as usize].phis {
                for (from, _) in &mut phi.incoming {
                    *from = tails.get(from).copied().unwrap_or(*from);
                }
            }
        }
        issue_points(f, &built, &mut self.nodes);
        Instance {
            entry: base,
            returns,
        }
    }

    /// Builds block `b` into its head node (`index`), splicing in the
    /// callees of the calls `plan` follows; returns its last node.
    fn block(
        &mut self,
        b: Block,
        index: &HashMap<Block, u32>,
        plan: &HashSet<Value>,
        dominators: &Dominators,
        built: &mut Built,
    ) -> u32 {
        let mut current = index[&b];
        let mut phis = Vec::new();
        let mut part = Part::default();
        for inst in b.instructions() {
            if inst.opcode() == Some(Opcode::LLVMPHI) {
                let t = inst.ty();
                if !(t.is_int() || t.is_pointer()) {
                    continue;
                }
                let Some(var) = self.folder.phi_variable(inst) else {
                    continue;
                };
                let incoming = inst
                    .incoming()
                    .into_iter()
                    .filter_map(|(v, from)| Some((*index.get(&from)?, self.folder.fold(v))))
                    .collect();
                phis.push(PhiDef { var, incoming });
                continue;
            }
            part.insts.push(inst);
            if let Some(access) = (self.memory)(inst) {
                part.pieces.push(Piece {
                    kind: access.kind,
                    address: self.folder.fold(access.ptr),
                    bytes: access.bytes,
                    segment: part.segment,
                    mergeable: access.merge,
                });
                part.found.push((inst, access));
            }
            if stops_merging(inst) && !stores_to_shared(inst) {
                part.segment += 1;
            }
            if !plan.contains(&inst) {
                continue;
            }
            // The caller's part ends at the call, which jumps into the
            // callee; its returns jump to a new node for the rest.
            let ops = self.ops(&mut part, built);
            self.nodes[current as usize] = Node {
                phis: std::mem::take(&mut phis),
                ops,
                barriers: Vec::new(),
                exit: Exit::Stop,
            };
            built.parts.push((current, std::mem::take(&mut part.insts)));
            part = Part::default();
            let callee = inst.called_value();
            let args = (0..inst.num_args())
                .map(|i| self.folder.fold(inst.operand(i)))
                .collect();
            let caller = self.folder.enter_call(args);
            self.stack.push(callee);
            if !self.calls.followed.contains(&callee) {
                self.calls.followed.push(callee);
            }
            let spliced = self.instance(callee);
            self.stack.pop();
            self.folder.leave_call(caller);
            self.nodes[current as usize].exit = Exit::Jump(spliced.entry);
            current = self.nodes.len() as u32;
            self.nodes.push(Node::empty());
            for (r, _) in &spliced.returns {
                self.nodes[*r as usize].exit = Exit::Jump(current);
            }
            if let Some(var) = self.folder.phi_variable_of(inst) {
                let unknown = || unknown(Why::Unsupported("return value".into()));
                phis.push(PhiDef {
                    var,
                    incoming: (spliced.returns.into_iter())
                        .map(|(r, v)| (r, v.unwrap_or_else(unknown)))
                        .collect(),
                });
            }
        }
        let ops = self.ops(&mut part, built);
        // Facts only where a test may read them (a conditional branch).
        let facts = match b.conditional_branch() {
            Some(_) => dominators.facts_at(b),
            None => Facts::default(),
        };
        self.nodes[current as usize] = Node {
            phis,
            ops,
            barriers: Vec::new(),
            exit: exit(b, index, self.folder, &facts),
        };
        let bound = (b.conditional_branch()).and_then(|(cond, ..)| test_bound(cond, &facts));
        if let Some(bound) = bound {
            if let Some(&header) = index.get(&bound.header) {
                self.test_bounds.push(TestBound {
                    node: current,
                    header,
                    holds: bound.holds,
                    count: bound.count,
                });
            }
        }
        built.parts.push((current, part.insts));
        current
    }

    /// The ops of a part's memory instructions, merged into vector accesses
    /// (`vector_loads`) where the backend merges them.
    fn ops(&mut self, part: &mut Part, built: &mut Built) -> Vec<MemOp> {
        let mut ops = Vec::new();
        for (k, role) in roles(&part.pieces).into_iter().enumerate() {
            let (inst, access) = part.found[k];
            let (address, bytes) = match role {
                Role::Alone => (part.pieces[k].address.clone(), access.bytes),
                Role::Leads {
                    bytes,
                    from,
                    second: None,
                } => (part.pieces[from].address.clone(), bytes),
                Role::Leads {
                    bytes,
                    from,
                    second: Some(second),
                } => {
                    ops.push(MemOp {
                        inst: access.inst,
                        address: part.pieces[from].address.clone(),
                        bytes: bytes / 2,
                        waits: false,
                    });
                    built.issued.ops.push(inst);
                    (part.pieces[second].address.clone(), bytes / 2)
                }
                Role::Joins { leader } => {
                    self.merged.push(Merged {
                        member: access.inst,
                        leader: part.found[leader].1.inst,
                    });
                    built.issued.leader.insert(inst, part.found[leader].0);
                    continue;
                }
            };
            ops.push(MemOp {
                inst: access.inst,
                address,
                bytes,
                waits: false,
            });
            built.issued.ops.push(inst);
        }
        ops
    }
}

/// What a block's part (up to a followed call, or its end) gathers.
#[derive(Default)]
struct Part {
    insts: Vec<Value>,
    found: Vec<(Value, Access)>,
    pieces: Vec<Piece>,
    segment: u32,
}

/// One instance's parts: each node with its instructions (phis aside), in
/// order, and the memory instructions they issue.
#[derive(Default)]
struct Built {
    parts: Vec<(u32, Vec<Value>)>,
    issued: Issued,
}

impl Node {
    fn empty() -> Node {
        Node {
            phis: Vec::new(),
            ops: Vec::new(),
            barriers: Vec::new(),
            exit: Exit::Stop,
        }
    }
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
/// the nodes, block by block; one instruction twice where the backend
/// splits its vector access), and each merged load's leader: its value
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
/// A use in another node (another block, or another part of a block that a
/// followed call splits; a phi, which reads the value on the edge out of the
/// load's block) is taken to come before the next memory instruction: the
/// node's last memory instruction waits when a load in flight at its end is
/// used anywhere else. So a call whose arguments, or a return whose value, a
/// load in flight gives waits for it; loads in flight across a call into a
/// followed callee stay in flight when nothing else reads them. Each
/// function instance is marked on its own (`f`, `built`). This is the common case (the
/// loop's exit test or the next iteration's address reads it) and it can
/// only end a burst early, never let one run past a real wait.
///
/// A block barrier ends the burst too; loads in flight at it are taken as
/// returned, since the warp waits there for its whole block.
///
/// A load merged into another's vector access (`Issued::leader`) is in
/// flight as that access: a use of its value waits for the access.
fn issue_points(f: Value, built: &Built, nodes: &mut [Node]) {
    let issued = &built.issued;
    // Ops per instruction: two for a vector access the backend splits.
    let mut position: HashMap<Value, usize> = HashMap::new();
    for &op in &issued.ops {
        *position.entry(op).or_default() += 1;
    }
    // A load's value: a trace instruction of non-void type, or one merged
    // into such an instruction's access; as the instruction that issues it.
    let is_load = |v: Value| position.contains_key(&issued.source(v)) && v.ty().is_sized();
    let part_of: HashMap<Value, usize> = (built.parts.iter().enumerate())
        .flat_map(|(k, (_, insts))| insts.iter().map(move |&i| (i, k)))
        .collect();
    let mut used_at_end: HashSet<Value> = HashSet::new();
    for inst in f.instructions() {
        if inst.opcode() == Some(Opcode::LLVMPHI) {
            used_at_end.extend(
                inst.incoming()
                    .into_iter()
                    .map(|(v, _)| v)
                    .filter(|&v| is_load(v))
                    .map(|v| issued.source(v)),
            );
        }
    }
    for (k, (_, insts)) in built.parts.iter().enumerate() {
        for &inst in insts {
            for i in 0..inst.num_operands() {
                let v = inst.operand(i);
                if is_load(v) && part_of.get(&v) != Some(&k) {
                    used_at_end.insert(issued.source(v));
                }
            }
        }
    }
    for (node, insts) in &built.parts {
        let node = &mut nodes[*node as usize];
        let mut in_flight: Vec<Value> = Vec::new();
        let mut ops = 0usize;
        for &inst in insts {
            let reads_in_flight = (0..inst.num_operands())
                .any(|i| in_flight.contains(&issued.source(inst.operand(i))));
            if reads_in_flight {
                wait(node, &mut in_flight, ops);
            }
            if let Some(&issues) = position.get(&inst) {
                ops += issues;
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

fn exit(b: Block, index: &HashMap<Block, u32>, folder: &mut Folder, facts: &Facts) -> Exit {
    let at = |x: Block| index.get(&x).copied();
    if let Some((cond, then, otherwise)) = b.conditional_branch() {
        if let (Some(then), Some(otherwise)) = (at(then), at(otherwise)) {
            // A test the clamps decide (`trip_bounds::decided`), though
            // its operands are unknown.
            let cond = match decided(cond, facts) {
                Some(holds) => Rc::new(Cond::Const(holds)),
                None => folder.cond(cond),
            };
            return Exit::Branch {
                cond,
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
