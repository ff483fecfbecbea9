//! Folding: walks the def-use chain of a value backwards and builds its
//! expression (Jia et al., ICS'12, Algorithm 1, in the style of LLVM's
//! scalar evolution), with loop-header phis as add-recurrences and loads
//! from block-uniform addresses as symbolic values.

use std::collections::HashMap;
use std::rc::Rc;

use super::expr::{
    bin, cast, konst, select, unknown, Base, BinOp, CastOp, Cond, Expr, Sreg, Why, E, MAX_DEPTH,
    MAX_NODES,
};
use crate::llvm::ir::{Block, DataLayout, IntPredicate, Opcode, Value};

pub struct Context<'a> {
    pub layout: &'a DataLayout,
    /// Whether the function is a kernel: its parameters are launch inputs.
    pub is_kernel: bool,
    /// Ordinals of global variables, for distinct stand-in addresses.
    pub globals: &'a HashMap<Value, u32>,
    /// Kernel parameters with bound data (`memory::Memory::bound`).
    pub bound: Vec<u32>,
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
    /// Whether the walk under the current value met the depth cap.
    cut: bool,
    /// Values memoized under the depth cap, forgotten before the next walk.
    cut_values: Vec<Value>,
    /// Current recursion depth; past `MAX_DEPTH` a value is unknown, so that
    /// a 4000-step unrolled chain cannot overflow the stack of clang or opt.
    depth: u32,
    /// Tree size of each expression built, keyed by node (the `E` keeps the
    /// node alive so the key is never reused).
    sizes: HashMap<*const Expr, (E, u64)>,
    /// The trace's mode (`with_phi_variables`): every phi is a per-thread
    /// variable `Rec(n)` whose value the trace's interpreter keeps, instead
    /// of an add-recurrence or its first-iteration value.
    variables: Option<HashMap<Value, u32>>,
    /// Phi variables numbered so far, over every call frame.
    next_var: u32,
    /// In a device function spliced into the trace at a call site
    /// (`enter_call`): the call's arguments, folded in the caller's frame.
    call_args: Option<Vec<E>>,
}

/// What a call frame keeps of its caller's folding while a callee's body is
/// folded at one call site (`Folder::enter_call`): the same IR values mean
/// other things at another call site, so the memos and phi variables are
/// the frame's own.
pub struct CallerFrame {
    memo: HashMap<Value, E>,
    cond_memo: HashMap<Value, Rc<Cond>>,
    cut_values: Vec<Value>,
    variables: Option<HashMap<Value, u32>>,
    call_args: Option<Vec<E>>,
}

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
            cut: false,
            cut_values: Vec::new(),
            depth: 0,
            sizes: HashMap::new(),
            variables: None,
            next_var: 0,
            call_args: None,
        }
    }

    /// A folder for the whole-kernel trace: phis are not folded but stand
    /// as variables, numbered in the order they are met (`phi_variables`).
    pub fn with_phi_variables(cx: Context<'a>) -> Folder<'a> {
        Folder {
            variables: Some(HashMap::new()),
            ..Folder::new(cx)
        }
    }

    /// How many phi variables the trace's mode has numbered, over every
    /// call frame.
    pub fn variable_count(&self) -> u32 {
        self.next_var
    }

    /// The variable number of a phi in the trace's mode (numbering it if
    /// it is new in this call frame); `None` in the ordinary mode. Also the
    /// variable that holds a spliced call's result (`control`): the value
    /// its callee returns, set on the edge back to the caller.
    pub fn phi_variable(&mut self, phi: Value) -> Option<u32> {
        let vars = self.variables.as_mut()?;
        let next = self.next_var;
        let n = *vars.entry(phi).or_insert(next);
        if n == next {
            self.next_var += 1;
        }
        Some(n)
    }

    /// The variable of `v` in this frame, if `phi_variable` numbered it.
    pub fn phi_variable_of(&self, v: Value) -> Option<u32> {
        self.variables.as_ref()?.get(&v).copied()
    }

    /// Enters a callee's body spliced into the trace at one call site (the
    /// trace's mode only): its parameters stand for `args`, the call's
    /// operands folded in the caller's frame, and its values are folded
    /// afresh (another call site binds other arguments). Give the returned
    /// frame back to `leave_call`.
    pub fn enter_call(&mut self, args: Vec<E>) -> CallerFrame {
        self.flush_cut();
        CallerFrame {
            memo: std::mem::take(&mut self.memo),
            cond_memo: std::mem::take(&mut self.cond_memo),
            cut_values: std::mem::take(&mut self.cut_values),
            variables: self.variables.as_mut().map(std::mem::take),
            call_args: self.call_args.replace(args),
        }
    }

    /// Returns to the caller's frame that `enter_call` kept.
    pub fn leave_call(&mut self, caller: CallerFrame) {
        self.flush_cut();
        self.memo = caller.memo;
        self.cond_memo = caller.cond_memo;
        self.cut_values = caller.cut_values;
        if self.variables.is_some() {
            self.variables = caller.variables;
        }
        self.call_args = caller.call_args;
    }

    /// Forgets what was memoized under the depth cap in this frame.
    fn flush_cut(&mut self) {
        for v in self.cut_values.drain(..) {
            self.memo.remove(&v);
            self.cond_memo.remove(&v);
        }
        self.cut = false;
    }

    /// The expression for an integer or pointer value.
    pub fn fold(&mut self, v: Value) -> E {
        self.forget_cut_results();
        if let Some(e) = self.memo.get(&v) {
            return e.clone();
        }
        if let Some(&id) = self.open.get(&v) {
            return Rc::new(Expr::Rec(id));
        }
        if self.depth >= MAX_DEPTH {
            self.cut = true;
            return unknown(Why::TooBig);
        }
        let outer_cut = std::mem::replace(&mut self.cut, false);
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
        if self.cut {
            self.cut_values.push(v);
        }
        self.cut |= outer_cut;
        e
    }

    /// At the start of a walk from the top (depth 0), forgets what earlier
    /// walks memoized under the depth cap: how deep a value sat depends on
    /// where that walk started, so reusing it would make one load's result
    /// depend on which loads were folded before it.
    fn forget_cut_results(&mut self) {
        if self.depth > 0 || self.cut_values.is_empty() {
            return;
        }
        self.flush_cut();
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
            Expr::Uniform { from, .. } | Expr::Data { from, .. } => self.tree_size(from),
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
            Opcode::LLVMTrunc | Opcode::LLVMZExt | Opcode::LLVMSExt => self.int_cast(v, op, bits),
            Opcode::LLVMFPToSI | Opcode::LLVMFPToUI => self.float_cast(v, op, bits),
            Opcode::LLVMPtrToInt
            | Opcode::LLVMIntToPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => self.reinterpretation(v, bits),
            Opcode::LLVMGetElementPtr => self.gep(v),
            Opcode::LLVMSelect => {
                let c = self.cond(v.operand(0));
                let (t, f) = (self.fold(v.operand(1)), self.fold(v.operand(2)));
                select(c, t, f)
            }
            Opcode::LLVMPHI => match self.phi_variable(v) {
                Some(n) => Rc::new(Expr::Rec(n)),
                None => self.phi(v),
            },
            Opcode::LLVMCall => match self.variables.as_ref().and_then(|m| m.get(&v)) {
                // A spliced call: its result is the variable its returns set.
                Some(&n) => Rc::new(Expr::Rec(n)),
                None => self.call(v, bits),
            },
            Opcode::LLVMLoad => self.loaded(v),
            other => unknown(Why::Unsupported(
                format!("{other:?}")
                    .trim_start_matches("LLVM")
                    .to_lowercase(),
            )),
        }
    }

    /// `trunc`, `zext`, `sext` to `bits`; of an `i1`, a select of 0 and 1 (-1).
    fn int_cast(&mut self, v: Value, op: Opcode, bits: u32) -> E {
        let src = v.operand(0);
        if src.ty().is_int() && src.ty().int_width() == 1 {
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

    /// `fptosi`/`fptoui` of a `float` or `double` read from kernel data the
    /// user bound (`(int)p[i].x`, a particle's cell): known per thread like
    /// a bound integer. Any other float is not followed (float arithmetic
    /// is not modelled), so its conversion stays unknown.
    fn float_cast(&mut self, v: Value, op: Opcode, bits: u32) -> E {
        let unsupported = || {
            let name = if op == Opcode::LLVMFPToSI {
                "fptosi"
            } else {
                "fptoui"
            };
            unknown(Why::Unsupported(name.into()))
        };
        let src = v.operand(0);
        let Some(float_bits) = src.ty().float_bits() else {
            return unsupported();
        };
        // Below 16 bits NVPTX converts to 16 (`cvt.rzi.s16.f32`, registers
        // have no 8-bit form) and keeps the 16-bit value in the register the
        // i8 lives in, so an out-of-range (poison) conversion reads back as
        // the 16-bit one, which no i8 value is: left unknown.
        if bits < 16 {
            return unsupported();
        }
        // Without bound data the address is not folded at all: folding
        // numbers the block-uniform loads it holds, and other loads' stand-in
        // values follow those numbers.
        if self.cx.bound.is_empty()
            || src.opcode() != Some(Opcode::LLVMLoad)
            || src.is_volatile()
            || src.is_atomic()
        {
            return unsupported();
        }
        let from = self.fold(src.operand(0));
        if !self.reads_bound(&from) {
            return unsupported();
        }
        let data = Rc::new(Expr::Data {
            from,
            bytes: float_bits / 8,
        });
        let cop = if op == Opcode::LLVMFPToSI {
            CastOp::FpToSi
        } else {
            CastOp::FpToUi
        };
        cast(cop, data, float_bits, bits)
    }

    /// A value read at another type of the same or another width (pointer
    /// and integer casts, `freeze`): truncated or zero-extended to `bits`.
    fn reinterpretation(&mut self, v: Value, bits: u32) -> E {
        let src = v.operand(0);
        let Some(from) = width(src) else {
            return unknown(Why::Unsupported("cast".into()));
        };
        let op = if from >= bits {
            CastOp::Trunc
        } else {
            CastOp::ZExt
        };
        let inner = self.fold(src);
        cast(op, inner, from, bits)
    }

    /// A load's value: block-uniform when every thread of the block reads
    /// the same address (and the load is neither volatile nor atomic, which
    /// may see another thread's write in between); unknown otherwise.
    fn loaded(&mut self, v: Value) -> E {
        // An `__ldg()` call is never volatile or atomic (and has no such flags to ask).
        let plain_load = v.opcode() == Some(Opcode::LLVMLoad);
        if plain_load && (v.is_volatile() || v.is_atomic()) {
            return unknown(Why::Memory);
        }
        let from = self.fold(v.operand(0));
        if v.ty().is_int() && self.reads_bound(&from) {
            let bytes = self.cx.layout.store_size(v.ty()) as u32;
            return Rc::new(Expr::Data { from, bytes });
        }
        if !from.is_block_uniform() {
            // An integer or a pointer: what an address can be made of.
            if v.ty().is_int() || v.ty().is_pointer() {
                let bytes = self.cx.layout.store_size(v.ty()) as u32;
                return Rc::new(Expr::Loaded { from, bytes });
            }
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

    /// Whether an address is based on a parameter with bound data.
    fn reads_bound(&self, from: &E) -> bool {
        if self.cx.bound.is_empty() {
            return false;
        }
        let mut found = false;
        from.visit(&mut |x| {
            if let Expr::Base(Base::Param { index, .. }) = x {
                found |= self.cx.bound.contains(index);
            }
        });
        found
    }

    fn argument(&mut self, v: Value) -> E {
        let index = v.arg_index();
        let name = v.name();
        if let Some(args) = &self.call_args {
            // A spliced callee's parameter: what its call site passes.
            return match args.get(index as usize) {
                Some(e) if v.ty().is_int() || v.ty().is_pointer() => e.clone(),
                _ => unknown(Why::CalleeArg(index)),
            };
        }
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
                    Expr::Unknown(_)
                        | Expr::Loaded { .. }
                        | Expr::Uniform { .. }
                        | Expr::Data { .. }
                        | Expr::AddRec { .. }
                )
            });
            if step.as_ref().is_some_and(|p| *p != s) || varying {
                return first_iteration;
            }
            step = Some(s);
        }
        let block = v.parent_block();
        Rc::new(Expr::AddRec {
            start: (*first).clone(),
            step: step.unwrap_or_else(|| konst(0)),
            header: loop_label(block),
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
        if crate::facts::global_loads::is_ldg(v) {
            return self.loaded(v);
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
        self.forget_cut_results();
        if let Some(c) = self.cond_memo.get(&v) {
            if self.open.is_empty() {
                return c.clone();
            }
        }
        if self.depth >= MAX_DEPTH {
            self.cut = true;
            return Rc::new(Cond::Unknown(Why::TooBig));
        }
        let outer_cut = std::mem::replace(&mut self.cut, false);
        self.depth += 1;
        let c = Rc::new(self.cond_uncached(v));
        self.depth -= 1;
        if self.open.is_empty() {
            self.cond_memo.insert(v, c.clone());
        }
        if self.cut {
            self.cut_values.push(v);
        }
        self.cut |= outer_cut;
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

/// A loop's label: its header block's name, else its position.
fn loop_label(block: Block) -> String {
    match block.name() {
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
    }
}
