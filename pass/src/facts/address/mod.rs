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
//!
//! `expr` defines the expressions, `fold` builds them from the IR, `print`
//! writes them for the report. Evaluating them per thread is
//! `evaluate.rs`'s job.

mod expr;
mod fold;
mod print;

pub use expr::{bin, unknown, Base, BinOp, CastOp, Cond, Expr, Sreg, Why, E};
pub use fold::{Context, Folder};
pub use print::{render, render_cond, uniform_unknowns, Known};

#[cfg(test)]
mod tests {
    use super::expr::{cast, konst};
    use super::*;
    use std::rc::Rc;

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
