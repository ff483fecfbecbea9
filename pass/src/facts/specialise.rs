//! Partial evaluation of expressions for one launch (`Specialiser`): what
//! the launch fixes is folded into constants before the per-thread walk.

use std::collections::HashMap;
use std::rc::Rc;

use crate::facts::address::{Cond, Expr, Sreg, Why, E};
use crate::facts::evaluate::Env;
use crate::facts::int::{apply_bin, apply_cast, compare, BinOp};

/// Partial evaluation of expressions for one launch: what does not vary
/// between the threads and blocks of the launch (constants, pointer bases,
/// `ntid`/`nctaid`/`warpSize` when known, arguments with a value) is folded
/// into constants once, so that evaluating per thread walks a smaller tree.
/// For every environment that agrees with `env` on the block and grid
/// shape and the arguments, `eval(specialise(e), env') == eval(e, env')`:
/// each folded node is computed by the same functions `eval` uses, and
/// what depends on a thread, a block, a phi variable or a stand-in (`tid`,
/// `ctaid`, `laneid`, `Rec`, `Uniform`, unknown arguments) is kept.
pub struct Specialiser<'a> {
    env: &'a Env,
    /// By node: the node itself (held, so that its address stays its own
    /// while the memo lives) and its specialised form.
    memo: HashMap<*const Expr, (E, E)>,
    memo_cond: HashMap<*const Cond, (Rc<Cond>, Rc<Cond>)>,
}

impl<'a> Specialiser<'a> {
    pub fn new(env: &'a Env) -> Self {
        Specialiser {
            env,
            memo: HashMap::new(),
            memo_cond: HashMap::new(),
        }
    }

    pub fn expr(&mut self, e: &E) -> E {
        let key = Rc::as_ptr(e);
        if let Some((_, done)) = self.memo.get(&key) {
            return done.clone();
        }
        let out = self.fold(e);
        self.memo.insert(key, (e.clone(), out.clone()));
        out
    }

    fn fold(&mut self, e: &E) -> E {
        let constant = |v: i64| Rc::new(Expr::Const(v));
        match &**e {
            Expr::Sreg(s @ (Sreg::Ntid(_) | Sreg::Nctaid(_) | Sreg::WarpSize)) => {
                self.env.sreg(*s).map_or_else(|| e.clone(), constant)
            }
            Expr::Arg { index, .. } => self
                .env
                .args
                .get(index)
                .map_or_else(|| e.clone(), |v| constant(*v)),
            Expr::Base(b) => constant(b.address()),
            Expr::Bin { op, lhs, rhs, bits } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                match (&*l, &*r) {
                    (Expr::Const(a), Expr::Const(b)) => match apply_bin(*op, *a, *b, *bits) {
                        Some(v) => constant(v),
                        // Undefined (a division by zero): `eval` gives no value.
                        None => Rc::new(Expr::Unknown(Why::Unsupported(
                            "undefined arithmetic".into(),
                        ))),
                    },
                    (Expr::Const(0), _) | (_, Expr::Const(0))
                        if matches!(op, BinOp::Mul | BinOp::And) =>
                    {
                        constant(0)
                    }
                    _ => Rc::new(Expr::Bin {
                        op: *op,
                        lhs: l,
                        rhs: r,
                        bits: *bits,
                    }),
                }
            }
            Expr::Cast {
                op,
                value,
                from,
                to,
            } => {
                let v = self.expr(value);
                match &*v {
                    Expr::Const(c) => constant(apply_cast(*op, *c, *from, *to)),
                    _ => Rc::new(Expr::Cast {
                        op: *op,
                        value: v,
                        from: *from,
                        to: *to,
                    }),
                }
            }
            Expr::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.cond(cond);
                match &*c {
                    Cond::Const(true) => self.expr(then),
                    Cond::Const(false) => self.expr(otherwise),
                    _ => Rc::new(Expr::Select {
                        cond: c,
                        then: self.expr(then),
                        otherwise: self.expr(otherwise),
                    }),
                }
            }
            // `eval` reads an add-recurrence at its start.
            Expr::AddRec { start, .. } => self.expr(start),
            Expr::Data { from, bytes } => {
                let from = self.expr(from);
                let read = match (&*from, &self.env.memory) {
                    (Expr::Const(a), Some(m)) => m.read(*a, *bytes),
                    _ => None,
                };
                read.map_or_else(
                    || {
                        Rc::new(Expr::Data {
                            from,
                            bytes: *bytes,
                        })
                    },
                    constant,
                )
            }
            Expr::Loaded { from, bytes } => Rc::new(Expr::Loaded {
                from: self.expr(from),
                bytes: *bytes,
            }),
            _ => e.clone(),
        }
    }

    pub fn cond(&mut self, c: &Rc<Cond>) -> Rc<Cond> {
        let key = Rc::as_ptr(c);
        if let Some((_, done)) = self.memo_cond.get(&key) {
            return done.clone();
        }
        let out = self.fold_cond(c);
        self.memo_cond.insert(key, (c.clone(), out.clone()));
        out
    }

    fn fold_cond(&mut self, c: &Rc<Cond>) -> Rc<Cond> {
        let constant = |b: bool| Rc::new(Cond::Const(b));
        match &**c {
            Cond::Cmp {
                pred,
                lhs,
                rhs,
                bits,
            } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                match (&*l, &*r) {
                    (Expr::Const(a), Expr::Const(b)) => constant(compare(*pred, *a, *b, *bits)),
                    _ => Rc::new(Cond::Cmp {
                        pred: *pred,
                        lhs: l,
                        rhs: r,
                        bits: *bits,
                    }),
                }
            }
            Cond::And(a, b) => {
                let (a, b) = (self.cond(a), self.cond(b));
                match (&*a, &*b) {
                    (Cond::Const(false), _) | (_, Cond::Const(false)) => constant(false),
                    (Cond::Const(true), _) => b,
                    (_, Cond::Const(true)) => a,
                    _ => Rc::new(Cond::And(a, b)),
                }
            }
            Cond::Or(a, b) => {
                let (a, b) = (self.cond(a), self.cond(b));
                match (&*a, &*b) {
                    (Cond::Const(true), _) | (_, Cond::Const(true)) => constant(true),
                    (Cond::Const(false), _) => b,
                    (_, Cond::Const(false)) => a,
                    _ => Rc::new(Cond::Or(a, b)),
                }
            }
            Cond::Not(a) => {
                let a = self.cond(a);
                match &*a {
                    Cond::Const(v) => constant(!v),
                    _ => Rc::new(Cond::Not(a)),
                }
            }
            _ => c.clone(),
        }
    }
}
