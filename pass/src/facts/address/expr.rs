//! The expressions an address or a condition folds to: special registers,
//! kernel arguments, pointer bases, block-uniform values read from memory,
//! integer operations at their IR width, selects and add-recurrences, and
//! `Unknown` with its reason. Constructors fold constants as they build.

use std::fmt;
use std::rc::Rc;

use crate::facts::int::{apply_bin, apply_cast};
pub use crate::facts::int::{BinOp, CastOp};
use crate::llvm::ir::{Block, IntPredicate};

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
    pub(super) fn from_intrinsic(name: &str) -> Option<Sreg> {
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
            Base::Param { index, .. } => return Base::param_address(*index),
            Base::CalleeParam { index, .. } => (0x400 + *index as i64, 0),
            Base::Global { ordinal, align, .. } => (
                0x800 + *ordinal as i64,
                if *align < 256 { i64::from(*align) } else { 0 },
            ),
        };
        (slot << 36) + offset
    }

    /// [`Base::address`] of kernel parameter `index`.
    pub fn param_address(index: u32) -> i64 {
        (1 + i64::from(index)) << 36
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

/// Deepest def-use chain folded (and so the deepest expression evaluated).
pub const MAX_DEPTH: u32 = 256;

/// Largest expression kept, counting a shared subexpression once per use:
/// evaluation and printing walk it as a tree, once per thread.
pub const MAX_NODES: u64 = 4096;

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
    /// An integer read at `from` inside kernel data the user bound
    /// (`memory::Memory`): known per thread when the data covers it.
    Data {
        from: E,
        bytes: u32,
    },
    /// A value a thread reads with a plain load (not volatile, not atomic)
    /// from `from`, an address that is not the same for the whole block,
    /// where no kernel data is bound: unknown, and everywhere the same as
    /// `Unknown(Why::Memory)`, except to the walk, which gives the lanes
    /// of one warp instruction that read it at one address the same value
    /// (`sharing::Sharing::share`).
    Loaded {
        from: E,
        bytes: u32,
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
    pub(super) fn any(&self, p: &dyn Fn(&Expr) -> bool) -> bool {
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

    pub(super) fn has_rec(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Rec(_)))
    }

    /// True when part of the expression is ∞ whatever the user supplies.
    pub fn has_unknown(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Unknown(_) | Expr::Loaded { .. }))
    }

    /// The first reason the expression is unknown, if any.
    pub fn unknown_reason(&self) -> Option<Why> {
        let mut found = None;
        self.visit(&mut |e| {
            if found.is_none() {
                match e {
                    Expr::Unknown(w) => found = Some(w.clone()),
                    Expr::Loaded { .. } => found = Some(Why::Memory),
                    _ => {}
                }
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
            Expr::Data { from, .. } => from.visit(f),
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
            Expr::Sreg(Sreg::Tid(_) | Sreg::LaneId)
            | Expr::Unknown(_)
            | Expr::Loaded { .. }
            | Expr::Rec(_) => false,
            Expr::Const(_) | Expr::Sreg(_) | Expr::Arg { .. } | Expr::Base(_) => true,
            Expr::Uniform { .. } => true,
            Expr::Data { from, .. } => from.is_block_uniform(),
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
}

pub(super) fn arg_name(index: u32, name: &str) -> String {
    if name.is_empty() {
        format!("arg{index}")
    } else {
        name.to_string()
    }
}

impl Cond {
    pub(super) fn is_block_uniform(&self) -> bool {
        match self {
            Cond::Const(_) => true,
            Cond::Cmp { lhs, rhs, .. } => lhs.is_block_uniform() && rhs.is_block_uniform(),
            Cond::And(a, b) | Cond::Or(a, b) => a.is_block_uniform() && b.is_block_uniform(),
            Cond::Not(a) => a.is_block_uniform(),
            Cond::Unknown(_) => false,
        }
    }

    pub(super) fn any(&self, p: &dyn Fn(&Expr) -> bool) -> bool {
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
pub(super) fn args_of(walk: impl FnOnce(&mut dyn FnMut(&Expr))) -> Vec<(u32, String)> {
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

pub(super) fn konst(v: i64) -> E {
    Rc::new(Expr::Const(v))
}

pub fn unknown(w: Why) -> E {
    Rc::new(Expr::Unknown(w))
}

/// Builds a binary node, folding constants and identities so that printed
/// patterns stay short.
pub fn bin(op: BinOp, lhs: E, rhs: E, bits: u32) -> E {
    if let (Expr::Const(a), Expr::Const(b)) = (&*lhs, &*rhs) {
        if let Some(v) = apply_bin(op, *a, *b, bits) {
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

pub(super) fn cast(op: CastOp, value: E, from: u32, to: u32) -> E {
    if let Expr::Const(v) = &*value {
        return konst(apply_cast(op, *v, from, to));
    }
    // An integer cast to its own width is the value; a float's conversion
    // never is (its operand holds the float's bits).
    if from == to && matches!(op, CastOp::Trunc | CastOp::ZExt | CastOp::SExt) {
        return value;
    }
    Rc::new(Expr::Cast {
        op,
        value,
        from,
        to,
    })
}

pub(super) fn select(cond: Rc<Cond>, then: E, otherwise: E) -> E {
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
