//! Address expressions: what a global load's address is, as a function of
//! thread ids, block ids, launch dimensions, kernel arguments and constants
//! (Jia et al., ICS'12, Algorithm 1, generalized in the style of LLVM's
//! scalar evolution).
//!
//! `fold` walks the def-use chain of an address backwards and builds an
//! `Expr`. Integer arithmetic keeps its bit width so that evaluation wraps
//! exactly as the IR does. A loop-header phi whose latch value is the phi
//! plus a loop-invariant step becomes an add-recurrence `{start,+,step}`;
//! evaluation takes the first iteration (as the paper does) while the
//! recurrence stays in the expression for reuse reasoning later. A value
//! read from memory, or anything else the analysis cannot see through, is
//! `Unknown` (the paper's ∞) and says why.
//!
//! This file builds and prints expressions; evaluating them per thread is
//! `evaluate.rs`'s job.

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use crate::ir::{Block, DataLayout, IntPredicate, Opcode, Value};

/// Special registers the address may depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sreg {
    Tid(u8),
    Ctaid(u8),
    Ntid(u8),
    Nctaid(u8),
    LaneId,
    WarpSize,
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl Sreg {
    fn from_intrinsic(name: &str) -> Option<Sreg> {
        let rest = name.strip_prefix("llvm.nvvm.read.ptx.sreg.")?;
        let axis = |s: &str| AXES.iter().position(|a| *a == s).map(|i| i as u8);
        match rest.split_once('.') {
            Some(("tid", a)) => axis(a).map(Sreg::Tid),
            Some(("ctaid", a)) => axis(a).map(Sreg::Ctaid),
            Some(("ntid", a)) => axis(a).map(Sreg::Ntid),
            Some(("nctaid", a)) => axis(a).map(Sreg::Nctaid),
            None if rest == "laneid" => Some(Sreg::LaneId),
            None if rest == "warpsize" => Some(Sreg::WarpSize),
            _ => None,
        }
    }
}

impl fmt::Display for Sreg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sreg::Tid(a) => write!(f, "tid.{}", AXES[*a as usize]),
            Sreg::Ctaid(a) => write!(f, "ctaid.{}", AXES[*a as usize]),
            Sreg::Ntid(a) => write!(f, "ntid.{}", AXES[*a as usize]),
            Sreg::Nctaid(a) => write!(f, "nctaid.{}", AXES[*a as usize]),
            Sreg::LaneId => f.write_str("laneid"),
            Sreg::WarpSize => f.write_str("warpsize"),
        }
    }
}

/// Where a pointer starts: a distinct, 256-byte aligned allocation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// A kernel pointer parameter (cudaMalloc returns 256-byte aligned memory).
    Param { index: u32, name: String },
    /// A `__device__` global variable, aligned to `align` bytes (its IR
    /// alignment; 0 when the IR gives none).
    Global {
        ordinal: u32,
        name: String,
        align: u32,
    },
    /// A pointer parameter of a device function that was not inlined.
    CalleeParam { index: u32, name: String },
}

impl Base {
    /// A stand-in address: distinct bases far apart. Pointer parameters
    /// are 256-byte aligned (cudaMalloc's alignment, CUDA C++ Programming
    /// Guide, "Device Memory Accesses"); a global variable is aligned to its
    /// own alignment and no more, since the linker may place it at any
    /// multiple of it.
    pub fn address(&self) -> i64 {
        let (slot, offset) = match self {
            Base::Param { index, .. } => (1 + *index as i64, 0),
            Base::CalleeParam { index, .. } => (0x400 + *index as i64, 0),
            Base::Global { ordinal, align, .. } => (
                0x800 + *ordinal as i64,
                if *align < 256 { i64::from(*align) } else { 0 },
            ),
        };
        (slot << 36) + offset
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Base::Param { index, name } | Base::CalleeParam { index, name } => {
                if name.is_empty() {
                    write!(f, "arg{index}")
                } else {
                    f.write_str(name)
                }
            }
            Base::Global { name, .. } => write!(f, "@{name}"),
        }
    }
}

/// Why part of an address is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// Read from memory (an indirect index, a pointer loaded from memory).
    Memory,
    /// A call the analysis cannot see into.
    Call(String),
    /// An argument of a device function that was not inlined.
    CalleeArg(u32),
    /// A phi merging different values (not a recurrence).
    Merge,
    /// An instruction the folder does not model.
    Unsupported(String),
    /// A def-use chain longer, or an expression larger, than the folder follows.
    TooBig,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Memory => f.write_str("value loaded from memory"),
            Why::Call(c) => write!(f, "result of call to {c}"),
            Why::CalleeArg(i) => write!(f, "argument {i} of a non-inlined device function"),
            Why::Merge => f.write_str("phi of different values"),
            Why::Unsupported(op) => write!(f, "unsupported operation {op}"),
            Why::TooBig => write!(
                f,
                "expression deeper than {MAX_DEPTH} or larger than {MAX_NODES} nodes"
            ),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
}

pub type E = Rc<Expr>;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(i64),
    Sreg(Sreg),
    /// An integer kernel argument; its value comes from the user.
    Arg {
        index: u32,
        name: String,
    },
    Base(Base),
    Bin {
        op: BinOp,
        lhs: E,
        rhs: E,
        bits: u32,
    },
    Cast {
        op: CastOp,
        value: E,
        from: u32,
        to: u32,
    },
    Select {
        cond: Rc<Cond>,
        then: E,
        otherwise: E,
    },
    /// `{start,+,step}` over the loop headed by `block`, labelled `header`.
    AddRec {
        start: E,
        step: E,
        header: String,
        block: Block,
    },
    /// A loop-header phi while its loop is being folded (never escapes `fold`).
    Rec(u32),
    /// A value read from memory at a block-uniform address (`from`):
    /// `offsets[blockIdx.x]`, a `__constant__` scalar, a pointer field of a
    /// parameter struct. Its value is unknown but the same for every thread
    /// of a block, so it is a symbolic base, not the paper's ∞ (issue 6 §4).
    Uniform {
        id: u32,
        from: E,
        pointer: bool,
    },
    Unknown(Why),
}

/// An `i1` value: a branch or select condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Const(bool),
    Cmp {
        pred: IntPredicate,
        lhs: E,
        rhs: E,
        bits: u32,
    },
    And(Rc<Cond>, Rc<Cond>),
    Or(Rc<Cond>, Rc<Cond>),
    Not(Rc<Cond>),
    Unknown(Why),
}

impl Expr {
    fn any(&self, p: &dyn Fn(&Expr) -> bool) -> bool {
        if p(self) {
            return true;
        }
        match self {
            Expr::Bin { lhs, rhs, .. } => lhs.any(p) || rhs.any(p),
            Expr::Cast { value, .. } => value.any(p),
            Expr::Select {
                cond,
                then,
                otherwise,
            } => cond.any(p) || then.any(p) || otherwise.any(p),
            Expr::AddRec { start, step, .. } => start.any(p) || step.any(p),
            _ => false,
        }
    }

    fn has_rec(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Rec(_)))
    }

    /// True when part of the expression is ∞ whatever the user supplies.
    pub fn has_unknown(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Unknown(_)))
    }

    /// The first reason the expression is unknown, if any.
    pub fn unknown_reason(&self) -> Option<Why> {
        let mut found = None;
        self.visit(&mut |e| {
            if let (None, Expr::Unknown(w)) = (&found, e) {
                found = Some(w.clone());
            }
        });
        found
    }

    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Bin { lhs, rhs, .. } => {
                lhs.visit(f);
                rhs.visit(f);
            }
            Expr::Cast { value, .. } => value.visit(f),
            Expr::Select {
                cond,
                then,
                otherwise,
            } => {
                cond.visit(f);
                then.visit(f);
                otherwise.visit(f);
            }
            Expr::AddRec { start, step, .. } => {
                start.visit(f);
                step.visit(f);
            }
            _ => {}
        }
    }

    /// Integer kernel arguments the expression reads, as (index, name).
    pub fn args(&self) -> Vec<(u32, String)> {
        args_of(|f| self.visit(f))
    }

    /// Whether every thread of a block gets the same value: no thread id,
    /// lane id or unknown anywhere in it (a select's condition included).
    pub fn is_block_uniform(&self) -> bool {
        match self {
            Expr::Sreg(Sreg::Tid(_) | Sreg::LaneId) | Expr::Unknown(_) | Expr::Rec(_) => false,
            Expr::Const(_) | Expr::Sreg(_) | Expr::Arg { .. } | Expr::Base(_) => true,
            Expr::Uniform { .. } => true,
            Expr::Bin { lhs, rhs, .. } => lhs.is_block_uniform() && rhs.is_block_uniform(),
            Expr::Cast { value, .. } => value.is_block_uniform(),
            Expr::Select {
                cond,
                then,
                otherwise,
            } => cond.is_block_uniform() && then.is_block_uniform() && otherwise.is_block_uniform(),
            Expr::AddRec { start, step, .. } => start.is_block_uniform() && step.is_block_uniform(),
        }
    }

    /// The block-uniform unknowns of the expression, as they read in a
    /// pattern: integer arguments not in `given`, and values loaded from
    /// block-uniform addresses.
    pub fn uniform_unknowns(&self, given: &HashMap<u32, i64>, known: &Known) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        self.visit(&mut |e| {
            let name = match e {
                Expr::Arg { index, name } if !given.contains_key(index) => arg_name(*index, name),
                Expr::Uniform { from, .. } => format!("[{}]", render(from, known)),
                _ => return,
            };
            if !out.contains(&name) {
                out.push(name);
            }
        });
        out
    }
}

fn arg_name(index: u32, name: &str) -> String {
    if name.is_empty() {
        format!("arg{index}")
    } else {
        name.to_string()
    }
}

impl Cond {
    fn is_block_uniform(&self) -> bool {
        match self {
            Cond::Const(_) => true,
            Cond::Cmp { lhs, rhs, .. } => lhs.is_block_uniform() && rhs.is_block_uniform(),
            Cond::And(a, b) | Cond::Or(a, b) => a.is_block_uniform() && b.is_block_uniform(),
            Cond::Not(a) => a.is_block_uniform(),
            Cond::Unknown(_) => false,
        }
    }

    fn any(&self, p: &dyn Fn(&Expr) -> bool) -> bool {
        match self {
            Cond::Cmp { lhs, rhs, .. } => lhs.any(p) || rhs.any(p),
            Cond::And(a, b) | Cond::Or(a, b) => a.any(p) || b.any(p),
            Cond::Not(a) => a.any(p),
            Cond::Const(_) | Cond::Unknown(_) => false,
        }
    }

    fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Cond::Cmp { lhs, rhs, .. } => {
                lhs.visit(f);
                rhs.visit(f);
            }
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Cond::Not(a) => a.visit(f),
            Cond::Const(_) | Cond::Unknown(_) => {}
        }
    }

    pub fn args(&self) -> Vec<(u32, String)> {
        args_of(|f| self.visit(f))
    }

    /// Header blocks of the loops whose recurrences the condition reads.
    pub fn loop_headers(&self) -> Vec<Block> {
        let mut out = Vec::new();
        self.visit(&mut |e| {
            if let Expr::AddRec { block, .. } = e {
                if !out.contains(block) {
                    out.push(*block);
                }
            }
        });
        out
    }
}

/// The distinct integer kernel arguments met by a walk, as (index, name).
fn args_of(walk: impl FnOnce(&mut dyn FnMut(&Expr))) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = Vec::new();
    walk(&mut |e| {
        if let Expr::Arg { index, name } = e {
            if !out.iter().any(|(i, _)| i == index) {
                out.push((*index, name.clone()));
            }
        }
    });
    out
}

fn konst(v: i64) -> E {
    Rc::new(Expr::Const(v))
}

fn unknown(w: Why) -> E {
    Rc::new(Expr::Unknown(w))
}

/// Builds a binary node, folding constants and identities so that printed
/// patterns stay short.
pub fn bin(op: BinOp, lhs: E, rhs: E, bits: u32) -> E {
    if let (Expr::Const(a), Expr::Const(b)) = (&*lhs, &*rhs) {
        if let Some(v) = crate::evaluate::apply_bin(op, *a, *b, bits) {
            return konst(v);
        }
    }
    match (op, &*lhs, &*rhs) {
        (
            BinOp::Add
            | BinOp::Sub
            | BinOp::Or
            | BinOp::Xor
            | BinOp::Shl
            | BinOp::LShr
            | BinOp::AShr,
            _,
            Expr::Const(0),
        ) => return lhs,
        (BinOp::Add | BinOp::Or | BinOp::Xor, Expr::Const(0), _) => return rhs,
        (BinOp::Mul | BinOp::UDiv | BinOp::SDiv, _, Expr::Const(1)) => return lhs,
        (BinOp::Mul, Expr::Const(1), _) => return rhs,
        (BinOp::Mul, Expr::Const(0), _) | (BinOp::Mul, _, Expr::Const(0)) => return konst(0),
        _ => {}
    }
    Rc::new(Expr::Bin { op, lhs, rhs, bits })
}

fn cast(op: CastOp, value: E, from: u32, to: u32) -> E {
    if let Expr::Const(v) = &*value {
        return konst(crate::evaluate::apply_cast(op, *v, from, to));
    }
    if from == to {
        return value;
    }
    Rc::new(Expr::Cast {
        op,
        value,
        from,
        to,
    })
}

/// What the folder needs to know about the function it works in.
pub struct Context<'a> {
    pub layout: &'a DataLayout,
    /// Whether the function is a kernel: its parameters are launch inputs.
    pub is_kernel: bool,
    /// Ordinals of global variables, for distinct stand-in addresses.
    pub globals: &'a HashMap<Value, u32>,
}

/// Folds IR values into expressions, memoizing across the loads of one function.
pub struct Folder<'a> {
    cx: Context<'a>,
    memo: HashMap<Value, E>,
    cond_memo: HashMap<Value, Rc<Cond>>,
    /// Phis being folded (their loop is open), with their placeholder ids.
    open: HashMap<Value, u32>,
    /// Values memoized while a phi is open; forgotten when it closes, since
    /// they may hold its placeholder.
    log: Vec<Value>,
    next_rec: u32,
    next_uniform: u32,
    /// Current recursion depth; past `MAX_DEPTH` a value is unknown, so that
    /// a 4000-step unrolled chain cannot overflow the stack of clang or opt.
    depth: u32,
    /// Tree size of each expression built, keyed by node (the `E` keeps the
    /// node alive so the key is never reused).
    sizes: HashMap<*const Expr, (E, u64)>,
}

/// Deepest def-use chain folded (and so the deepest expression evaluated).
const MAX_DEPTH: u32 = 256;

/// Largest expression kept, counting a shared subexpression once per use:
/// evaluation and printing walk it as a tree, once per thread.
const MAX_NODES: u64 = 4096;

fn bin_op(op: Opcode) -> Option<BinOp> {
    Some(match op {
        Opcode::LLVMAdd => BinOp::Add,
        Opcode::LLVMSub => BinOp::Sub,
        Opcode::LLVMMul => BinOp::Mul,
        Opcode::LLVMUDiv => BinOp::UDiv,
        Opcode::LLVMSDiv => BinOp::SDiv,
        Opcode::LLVMURem => BinOp::URem,
        Opcode::LLVMSRem => BinOp::SRem,
        Opcode::LLVMShl => BinOp::Shl,
        Opcode::LLVMLShr => BinOp::LShr,
        Opcode::LLVMAShr => BinOp::AShr,
        Opcode::LLVMAnd => BinOp::And,
        Opcode::LLVMOr => BinOp::Or,
        Opcode::LLVMXor => BinOp::Xor,
        _ => return None,
    })
}

/// Width in bits of an integer or pointer value (pointers are 64-bit on nvptx64).
fn width(v: Value) -> Option<u32> {
    let t = v.ty();
    if t.is_int() {
        Some(t.int_width())
    } else if t.is_pointer() {
        Some(64)
    } else {
        None
    }
}

impl<'a> Folder<'a> {
    pub fn new(cx: Context<'a>) -> Folder<'a> {
        Folder {
            cx,
            memo: HashMap::new(),
            cond_memo: HashMap::new(),
            open: HashMap::new(),
            log: Vec::new(),
            next_rec: 0,
            next_uniform: 0,
            depth: 0,
            sizes: HashMap::new(),
        }
    }

    /// The expression for an integer or pointer value.
    pub fn fold(&mut self, v: Value) -> E {
        if let Some(e) = self.memo.get(&v) {
            return e.clone();
        }
        if let Some(&id) = self.open.get(&v) {
            return Rc::new(Expr::Rec(id));
        }
        if self.depth >= MAX_DEPTH {
            return unknown(Why::TooBig);
        }
        self.depth += 1;
        let mut e = self.fold_uncached(v);
        self.depth -= 1;
        if self.tree_size(&e) > MAX_NODES {
            e = unknown(Why::TooBig);
        }
        self.memo.insert(v, e.clone());
        if !self.open.is_empty() {
            self.log.push(v);
        }
        e
    }

    /// Nodes of `e` counted as a tree (shared parts once per use), memoized
    /// per node so that a DAG costs its distinct nodes, saturating.
    fn tree_size(&mut self, e: &E) -> u64 {
        if let Some((_, n)) = self.sizes.get(&Rc::as_ptr(e)) {
            return *n;
        }
        let children: u64 = match &**e {
            Expr::Bin { lhs, rhs, .. } => self.tree_size(lhs).saturating_add(self.tree_size(rhs)),
            Expr::Cast { value, .. } => self.tree_size(value),
            Expr::Select {
                then, otherwise, ..
            } => self
                .tree_size(then)
                .saturating_add(self.tree_size(otherwise)),
            Expr::AddRec { start, step, .. } => {
                self.tree_size(start).saturating_add(self.tree_size(step))
            }
            Expr::Uniform { from, .. } => self.tree_size(from),
            _ => 0,
        };
        let n = children.saturating_add(1);
        self.sizes.insert(Rc::as_ptr(e), (e.clone(), n));
        n
    }

    fn fold_uncached(&mut self, v: Value) -> E {
        if let Some(c) = v.const_int() {
            return konst(c);
        }
        if v.is_null_pointer() {
            return konst(0);
        }
        if v.is_undef_or_poison() {
            return unknown(Why::Unsupported("undef".into()));
        }
        if v.is_argument() {
            return self.argument(v);
        }
        if v.is_global_variable() {
            let ordinal = self.cx.globals.get(&v).copied().unwrap_or(0);
            return Rc::new(Expr::Base(Base::Global {
                ordinal,
                name: v.name(),
                align: v.alignment(),
            }));
        }
        let Some(op) = v.opcode() else {
            return unknown(Why::Unsupported("constant".into()));
        };
        let Some(bits) = width(v) else {
            return unknown(Why::Unsupported(format!("{} value", v.ty().print())));
        };
        if let Some(b) = bin_op(op) {
            // `or disjoint` is an add whose operands share no set bits.
            let b = if b == BinOp::Or && v.is_instruction() && v.is_disjoint_or() {
                BinOp::Add
            } else {
                b
            };
            let (l, r) = (self.fold(v.operand(0)), self.fold(v.operand(1)));
            return bin(b, l, r, bits);
        }
        match op {
            Opcode::LLVMTrunc | Opcode::LLVMZExt | Opcode::LLVMSExt => {
                let src = v.operand(0);
                if src.ty().is_int() && src.ty().int_width() == 1 {
                    // zext/sext of a condition: 0 or 1 (-1).
                    let c = self.cond(src);
                    let one = if op == Opcode::LLVMSExt { -1 } else { 1 };
                    return Rc::new(Expr::Select {
                        cond: c,
                        then: konst(one),
                        otherwise: konst(0),
                    });
                }
                let Some(from) = width(src) else {
                    return unknown(Why::Unsupported("cast".into()));
                };
                let cop = match op {
                    Opcode::LLVMTrunc => CastOp::Trunc,
                    Opcode::LLVMZExt => CastOp::ZExt,
                    _ => CastOp::SExt,
                };
                let inner = self.fold(src);
                cast(cop, inner, from, bits)
            }
            Opcode::LLVMPtrToInt
            | Opcode::LLVMIntToPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => {
                let src = v.operand(0);
                match width(src) {
                    Some(from) if from >= bits => {
                        let inner = self.fold(src);
                        cast(CastOp::Trunc, inner, from, bits)
                    }
                    Some(from) => {
                        let inner = self.fold(src);
                        cast(CastOp::ZExt, inner, from, bits)
                    }
                    None => unknown(Why::Unsupported("cast".into())),
                }
            }
            Opcode::LLVMGetElementPtr => self.gep(v),
            Opcode::LLVMSelect => {
                let c = self.cond(v.operand(0));
                let (t, f) = (self.fold(v.operand(1)), self.fold(v.operand(2)));
                select(c, t, f)
            }
            Opcode::LLVMPHI => self.phi(v),
            Opcode::LLVMCall => self.call(v, bits),
            Opcode::LLVMLoad => self.loaded(v),
            other => unknown(Why::Unsupported(
                format!("{other:?}")
                    .trim_start_matches("LLVM")
                    .to_lowercase(),
            )),
        }
    }

    /// A load's value: block-uniform when every thread of the block reads
    /// the same address (and the load is neither volatile nor atomic, which
    /// may see another thread's write in between); unknown otherwise.
    fn loaded(&mut self, v: Value) -> E {
        if v.is_volatile() || v.is_atomic() {
            return unknown(Why::Memory);
        }
        let from = self.fold(v.operand(0));
        if !from.is_block_uniform() {
            return unknown(Why::Memory);
        }
        let id = self.next_uniform;
        self.next_uniform += 1;
        Rc::new(Expr::Uniform {
            id,
            from,
            pointer: v.ty().is_pointer(),
        })
    }

    fn argument(&mut self, v: Value) -> E {
        let index = v.arg_index();
        let name = v.name();
        if !self.cx.is_kernel {
            if v.ty().is_pointer() {
                return Rc::new(Expr::Base(Base::CalleeParam { index, name }));
            }
            return unknown(Why::CalleeArg(index));
        }
        if v.ty().is_pointer() {
            Rc::new(Expr::Base(Base::Param { index, name }))
        } else if v.ty().is_int() {
            Rc::new(Expr::Arg { index, name })
        } else {
            unknown(Why::Unsupported("non-integer argument".into()))
        }
    }

    /// Byte offset arithmetic of a GEP, with element sizes from the data layout.
    fn gep(&mut self, v: Value) -> E {
        let mut addr = self.fold(v.operand(0));
        let mut ty = v.gep_source_type();
        let layout = self.cx.layout;
        for i in 1..v.num_operands() {
            let idx = v.operand(i);
            if !idx.ty().is_int() {
                return unknown(Why::Unsupported("vector GEP".into()));
            }
            let (step, next) = if i == 1 {
                (layout.alloc_size(ty), ty)
            } else {
                use llvm_sys::LLVMTypeKind::*;
                match ty.kind() {
                    LLVMStructTypeKind => {
                        let Some(field) = idx.const_int() else {
                            return unknown(Why::Unsupported("struct GEP".into()));
                        };
                        if field < 0 || field as u32 >= ty.struct_fields() {
                            return unknown(Why::Unsupported("struct GEP".into()));
                        }
                        let off = layout.field_offset(ty, field as u32) as i64;
                        addr = bin(BinOp::Add, addr, konst(off), 64);
                        ty = ty.struct_field(field as u32);
                        continue;
                    }
                    LLVMArrayTypeKind | LLVMVectorTypeKind => {
                        (layout.alloc_size(ty.element()), ty.element())
                    }
                    _ => return unknown(Why::Unsupported("GEP into scalar".into())),
                }
            };
            let iw = idx.ty().int_width();
            let mut e = self.fold(idx);
            if iw < 64 {
                e = cast(CastOp::SExt, e, iw, 64);
            }
            addr = bin(
                BinOp::Add,
                addr,
                bin(BinOp::Mul, e, konst(step as i64), 64),
                64,
            );
            ty = next;
        }
        addr
    }

    fn phi(&mut self, v: Value) -> E {
        let id = self.next_rec;
        self.next_rec += 1;
        self.open.insert(v, id);
        let mark = self.log.len();
        let incoming: Vec<E> = v
            .incoming()
            .into_iter()
            .map(|(val, _)| self.fold(val))
            .collect();
        self.open.remove(&v);
        for k in self.log.drain(mark..) {
            self.memo.remove(&k);
        }
        let me = Expr::Rec(id);
        let (recurrent, starts): (Vec<&E>, Vec<&E>) =
            incoming.iter().partition(|e| e.any(&|x| *x == me));
        let starts: Vec<&E> = starts.into_iter().filter(|e| ***e != me).collect();
        let Some(first) = starts.first() else {
            return unknown(Why::Merge);
        };
        if starts.iter().any(|s| s != first) {
            return unknown(Why::Merge);
        }
        if recurrent.is_empty() {
            return (*first).clone();
        }
        // A recurrence: every back-edge value must be `phi + step`, one
        // loop-invariant step. Anything else (`s >>= 1`, two steps, a step
        // read from memory inside the loop) takes its first-iteration value:
        // Algorithm 1 deletes back edges, and only the first iteration is
        // evaluated.
        let first_iteration = (*first).clone();
        let mut step: Option<E> = None;
        for r in recurrent {
            let s = match &**r {
                Expr::Bin {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                    ..
                } if **lhs == me && !rhs.has_rec() => rhs.clone(),
                Expr::Bin {
                    op: BinOp::Add,
                    lhs,
                    rhs,
                    ..
                } if **rhs == me && !lhs.has_rec() => lhs.clone(),
                Expr::Bin {
                    op: BinOp::Sub,
                    lhs,
                    rhs,
                    bits,
                } if **lhs == me && !rhs.has_rec() => bin(BinOp::Sub, konst(0), rhs.clone(), *bits),
                _ => return first_iteration,
            };
            // Loop-invariant only when provably so: a value read from memory
            // (even at a block-uniform address) or another loop's recurrence
            // may change from one iteration to the next.
            let varying = s.any(&|x| {
                matches!(
                    x,
                    Expr::Unknown(_) | Expr::Uniform { .. } | Expr::AddRec { .. }
                )
            });
            if step.as_ref().is_some_and(|p| *p != s) || varying {
                return first_iteration;
            }
            step = Some(s);
        }
        // The loop's label: its header block's name, else its position.
        let block = v.parent_block();
        let header = match block.name() {
            n if !n.is_empty() => n,
            _ => format!(
                "bb{}",
                block
                    .function()
                    .blocks()
                    .iter()
                    .position(|b| *b == block)
                    .unwrap_or(0)
            ),
        };
        Rc::new(Expr::AddRec {
            start: (*first).clone(),
            step: step.unwrap_or_else(|| konst(0)),
            header,
            block,
        })
    }

    fn call(&mut self, v: Value, bits: u32) -> E {
        let callee = v.called_value();
        if callee.is_inline_asm() {
            return unknown(Why::Call("inline asm".into()));
        }
        let Some(name) = callee.intrinsic_name() else {
            return unknown(Why::Call(callee.name()));
        };
        if let Some(s) = Sreg::from_intrinsic(&name) {
            return Rc::new(Expr::Sreg(s));
        }
        let minmax = [
            ("smin", BinOp::SMin),
            ("smax", BinOp::SMax),
            ("umin", BinOp::UMin),
            ("umax", BinOp::UMax),
        ];
        for (n, op) in minmax {
            if name.starts_with(&format!("llvm.{n}.")) {
                let (a, b) = (self.fold(v.operand(0)), self.fold(v.operand(1)));
                return bin(op, a, b, bits);
            }
        }
        unknown(Why::Call(name))
    }

    /// The condition under which a `switch` on `on` goes to the case
    /// `value`s (`any_of`), or to none of them (the default).
    pub fn switch_cond(&mut self, on: Value, values: &[Value], any_of: bool) -> Rc<Cond> {
        let Some(bits) = width(on) else {
            return Rc::new(Cond::Unknown(Why::Unsupported("vector switch".into())));
        };
        let x = self.fold(on);
        let pred = if any_of {
            IntPredicate::LLVMIntEQ
        } else {
            IntPredicate::LLVMIntNE
        };
        let mut out: Option<Rc<Cond>> = None;
        for v in values {
            let c = Rc::new(Cond::Cmp {
                pred,
                lhs: x.clone(),
                rhs: self.fold(*v),
                bits,
            });
            out = Some(match out {
                None => c,
                Some(o) if any_of => Rc::new(Cond::Or(o, c)),
                Some(o) => Rc::new(Cond::And(o, c)),
            });
        }
        out.unwrap_or_else(|| Rc::new(Cond::Const(true)))
    }

    /// The condition an `i1` value stands for.
    pub fn cond(&mut self, v: Value) -> Rc<Cond> {
        if let Some(c) = self.cond_memo.get(&v) {
            if self.open.is_empty() {
                return c.clone();
            }
        }
        if self.depth >= MAX_DEPTH {
            return Rc::new(Cond::Unknown(Why::TooBig));
        }
        self.depth += 1;
        let c = Rc::new(self.cond_uncached(v));
        self.depth -= 1;
        if self.open.is_empty() {
            self.cond_memo.insert(v, c.clone());
        }
        c
    }

    fn cond_uncached(&mut self, v: Value) -> Cond {
        if let Some(c) = v.const_int() {
            return Cond::Const(c != 0);
        }
        match v.opcode() {
            Some(Opcode::LLVMICmp) => {
                let (l, r) = (v.operand(0), v.operand(1));
                let Some(bits) = width(l) else {
                    return Cond::Unknown(Why::Unsupported("vector compare".into()));
                };
                Cond::Cmp {
                    pred: v.icmp_predicate(),
                    lhs: self.fold(l),
                    rhs: self.fold(r),
                    bits,
                }
            }
            Some(Opcode::LLVMAnd) => Cond::And(self.cond(v.operand(0)), self.cond(v.operand(1))),
            Some(Opcode::LLVMOr) => Cond::Or(self.cond(v.operand(0)), self.cond(v.operand(1))),
            Some(Opcode::LLVMXor) => match (v.operand(1).const_int(), v.operand(0).const_int()) {
                (Some(c), _) if c != 0 => Cond::Not(self.cond(v.operand(0))),
                (_, Some(c)) if c != 0 => Cond::Not(self.cond(v.operand(1))),
                _ => Cond::Unknown(Why::Unsupported("xor of conditions".into())),
            },
            // `select i1 %a, i1 %b, i1 false` is a short-circuit and, `select %a, true, %b` an or.
            Some(Opcode::LLVMSelect) => {
                let (a, t, f) = (v.operand(0), v.operand(1), v.operand(2));
                match (t.const_int(), f.const_int()) {
                    (_, Some(0)) => Cond::And(self.cond(a), self.cond(t)),
                    (Some(c), _) if c != 0 => Cond::Or(self.cond(a), self.cond(f)),
                    _ => Cond::Unknown(Why::Unsupported("select of conditions".into())),
                }
            }
            // A frozen condition is the condition wherever it is defined.
            Some(Opcode::LLVMFreeze) => (*self.cond(v.operand(0))).clone(),
            // `trunc i32 %x to i1` is the low bit.
            Some(Opcode::LLVMTrunc) => {
                let x = v.operand(0);
                let Some(bits) = width(x) else {
                    return Cond::Unknown(Why::Unsupported("vector trunc".into()));
                };
                Cond::Cmp {
                    pred: IntPredicate::LLVMIntNE,
                    lhs: bin(BinOp::And, self.fold(x), konst(1), bits),
                    rhs: konst(0),
                    bits,
                }
            }
            Some(Opcode::LLVMLoad) => Cond::Unknown(Why::Memory),
            Some(Opcode::LLVMPHI) => Cond::Unknown(Why::Merge),
            _ => Cond::Unknown(Why::Unsupported("condition".into())),
        }
    }
}

fn select(cond: Rc<Cond>, then: E, otherwise: E) -> E {
    if then == otherwise {
        return then;
    }
    match &*cond {
        Cond::Const(true) => then,
        Cond::Const(false) => otherwise,
        _ => Rc::new(Expr::Select {
            cond,
            then,
            otherwise,
        }),
    }
}

// ---------------------------------------------------------------------------
// Printing: a linear form `base + c1*t1 + c2*t2 + k` where it exists, so that
// patterns read like `4*tid.x + 2048*ctaid.x`.

/// Values substituted while printing (block and grid dims, given arguments).
#[derive(Default)]
pub struct Known {
    pub sregs: HashMap<Sreg, i64>,
    pub args: HashMap<u32, i64>,
}

#[derive(Default)]
struct Linear {
    base: Option<String>,
    terms: Vec<(String, i64)>,
    konst: i64,
}

impl Linear {
    fn add_term(&mut self, atom: String, c: i64) {
        // Two unknowns are not the same unknown.
        if let Some(t) = self
            .terms
            .iter_mut()
            .find(|(a, _)| *a == atom && atom != "?")
        {
            t.1 = t.1.wrapping_add(c);
        } else {
            self.terms.push((atom, c));
        }
    }

    fn scaled(mut self, c: i64) -> Option<Linear> {
        if self.base.is_some() {
            return None;
        }
        for t in &mut self.terms {
            t.1 = t.1.wrapping_mul(c);
        }
        self.konst = self.konst.wrapping_mul(c);
        Some(self)
    }

    fn plus(mut self, other: Linear, sign: i64) -> Option<Linear> {
        match (&self.base, other.base) {
            (Some(_), Some(_)) => return None,
            (None, Some(b)) if sign == 1 => self.base = Some(b),
            (None, Some(_)) => return None,
            _ => {}
        }
        for (a, c) in other.terms {
            self.add_term(a, c.wrapping_mul(sign));
        }
        self.konst = self.konst.wrapping_add(other.konst.wrapping_mul(sign));
        Some(self)
    }

    fn render(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(b) = &self.base {
            parts.push(b.clone());
        }
        let mut terms: Vec<&(String, i64)> = self.terms.iter().filter(|t| t.1 != 0).collect();
        terms.sort_by_key(|(a, _)| atom_rank(a));
        for (a, c) in terms {
            let a = if a.contains(' ') {
                format!("({a})")
            } else {
                a.clone()
            };
            parts.push(match c {
                1 => a,
                -1 => format!("-{a}"),
                _ => format!("{c}*{a}"),
            });
        }
        if self.konst != 0 || parts.is_empty() {
            parts.push(self.konst.to_string());
        }
        let mut s = parts[0].clone();
        for p in &parts[1..] {
            match p.strip_prefix('-') {
                Some(rest) => {
                    s.push_str(" - ");
                    s.push_str(rest);
                }
                None => {
                    s.push_str(" + ");
                    s.push_str(p);
                }
            }
        }
        s
    }
}

fn atom_rank(a: &str) -> (u8, String) {
    let r = if a.starts_with("tid.") {
        0
    } else if a.starts_with("ctaid.") {
        1
    } else if a.contains("tid") {
        2
    } else {
        3
    };
    (r, a.to_string())
}

fn linear(e: &Expr, known: &Known) -> Option<Linear> {
    let atom = |s: String| {
        Some(Linear {
            terms: vec![(s, 1)],
            ..Linear::default()
        })
    };
    match e {
        Expr::Const(c) => Some(Linear {
            konst: *c,
            ..Linear::default()
        }),
        Expr::Sreg(s) => match known.sregs.get(s) {
            Some(v) => Some(Linear {
                konst: *v,
                ..Linear::default()
            }),
            None => atom(s.to_string()),
        },
        Expr::Arg { index, name } => match known.args.get(index) {
            Some(v) => Some(Linear {
                konst: *v,
                ..Linear::default()
            }),
            None => atom(arg_name(*index, name)),
        },
        Expr::Base(b) => Some(Linear {
            base: Some(b.to_string()),
            ..Linear::default()
        }),
        Expr::Uniform {
            from,
            pointer: true,
            ..
        } => Some(Linear {
            base: Some(format!("[{}]", render(from, known))),
            ..Linear::default()
        }),
        Expr::Cast { value, .. } => linear(value, known),
        Expr::Bin { op, lhs, rhs, .. } => {
            if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl) {
                return atom(render_atom(e, known));
            }
            let (l, r) = (linear(lhs, known), linear(rhs, known));
            let as_const = |x: &Option<Linear>| match x {
                Some(Linear {
                    base: None,
                    terms,
                    konst,
                }) if terms.iter().all(|t| t.1 == 0) => Some(*konst),
                _ => None,
            };
            match op {
                BinOp::Add => l?.plus(r?, 1),
                BinOp::Sub => l?.plus(r?, -1),
                BinOp::Mul => match (as_const(&l), as_const(&r)) {
                    (_, Some(c)) => l?.scaled(c),
                    (Some(c), _) => r?.scaled(c),
                    // Render from the forms already computed: recomputing them
                    // per level would be exponential in the chain's depth.
                    _ => atom(format!(
                        "{} * {}",
                        group(l, lhs, known),
                        group(r, rhs, known)
                    )),
                },
                BinOp::Shl => match as_const(&r) {
                    Some(c) if (0..63).contains(&c) => l?.scaled(1 << c),
                    _ => atom(format!(
                        "{} << {}",
                        group(l, lhs, known),
                        group(r, rhs, known)
                    )),
                },
                _ => atom(render_atom(e, known)),
            }
        }
        _ => atom(render_atom(e, known)),
    }
}

fn paren(e: &Expr, known: &Known) -> String {
    group(linear(e, known), e, known)
}

/// An operand's text from its linear form (computed once), in parentheses
/// unless it is a single atom or constant.
fn group(l: Option<Linear>, e: &Expr, known: &Known) -> String {
    match l {
        Some(l)
            if l.terms.iter().filter(|t| t.1 != 0).count()
                + usize::from(l.konst != 0)
                + usize::from(l.base.is_some())
                <= 1
                && l.terms.iter().all(|t| t.1 == 1 || t.1 == 0) =>
        {
            l.render()
        }
        Some(l) => format!("({})", l.render()),
        None => format!("({})", render_atom(e, known)),
    }
}

fn render_atom(e: &Expr, known: &Known) -> String {
    match e {
        Expr::Bin { op, lhs, rhs, .. } => {
            let sym = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::UDiv | BinOp::SDiv => "/",
                BinOp::URem | BinOp::SRem => "%",
                BinOp::Shl => "<<",
                BinOp::LShr | BinOp::AShr => ">>",
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                BinOp::SMin | BinOp::UMin => {
                    return format!("min({}, {})", render(lhs, known), render(rhs, known))
                }
                BinOp::SMax | BinOp::UMax => {
                    return format!("max({}, {})", render(lhs, known), render(rhs, known))
                }
            };
            format!("{} {sym} {}", paren(lhs, known), paren(rhs, known))
        }
        Expr::Select {
            cond,
            then,
            otherwise,
        } => {
            format!(
                "{} ? {} : {}",
                render_cond(cond, known),
                paren(then, known),
                paren(otherwise, known)
            )
        }
        Expr::AddRec {
            start,
            step,
            header,
            ..
        } => {
            format!(
                "{{{},+,{}}}<{header}>",
                render(start, known),
                render(step, known)
            )
        }
        Expr::Rec(id) => format!("%rec{id}"),
        Expr::Unknown(_) => "?".into(),
        Expr::Uniform { from, .. } => format!("[{}]", render(from, known)),
        other => render(other, known),
    }
}

/// A readable form of an address expression, with known values substituted.
pub fn render(e: &Expr, known: &Known) -> String {
    match linear(e, known) {
        Some(l) => l.render(),
        None => render_atom(e, known),
    }
}

pub fn render_cond(c: &Cond, known: &Known) -> String {
    use IntPredicate::*;
    match c {
        Cond::Const(b) => b.to_string(),
        Cond::Cmp { pred, lhs, rhs, .. } => {
            let sym = match pred {
                LLVMIntEQ => "==",
                LLVMIntNE => "!=",
                LLVMIntSLT | LLVMIntULT => "<",
                LLVMIntSLE | LLVMIntULE => "<=",
                LLVMIntSGT | LLVMIntUGT => ">",
                LLVMIntSGE | LLVMIntUGE => ">=",
            };
            format!("{} {sym} {}", render(lhs, known), render(rhs, known))
        }
        Cond::And(a, b) => format!("({}) && ({})", render_cond(a, known), render_cond(b, known)),
        Cond::Or(a, b) => format!("({}) || ({})", render_cond(a, known), render_cond(b, known)),
        Cond::Not(a) => format!("!({})", render_cond(a, known)),
        Cond::Unknown(_) => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tid() -> E {
        Rc::new(Expr::Sreg(Sreg::Tid(0)))
    }

    #[test]
    fn renders_linear_patterns() {
        let known = Known::default();
        let base = Rc::new(Expr::Base(Base::Param {
            index: 0,
            name: "a".into(),
        }));
        let ctaid = Rc::new(Expr::Sreg(Sreg::Ctaid(0)));
        let idx = bin(
            BinOp::Add,
            bin(BinOp::Mul, ctaid, konst(512), 32),
            tid(),
            32,
        );
        let addr = bin(
            BinOp::Add,
            base,
            bin(BinOp::Mul, cast(CastOp::SExt, idx, 32, 64), konst(4), 64),
            64,
        );
        assert_eq!(render(&addr, &known), "a + 4*tid.x + 2048*ctaid.x");
        let m = bin(BinOp::URem, tid(), konst(16), 32);
        assert_eq!(
            render(&bin(BinOp::Mul, m, konst(4), 64), &known),
            "4*(tid.x % 16)"
        );
    }

    #[test]
    fn folds_constants_and_identities() {
        assert_eq!(*bin(BinOp::Add, konst(2), konst(3), 32), Expr::Const(5));
        assert_eq!(
            *bin(BinOp::Mul, tid(), konst(1), 32),
            Expr::Sreg(Sreg::Tid(0))
        );
        assert_eq!(
            *cast(CastOp::Trunc, konst(0x1_0000_0001), 64, 32),
            Expr::Const(1)
        );
    }
}
