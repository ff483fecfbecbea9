//! How gpucc-cache spells what the analysis found, in one place, so that
//! the `!gpucc.cache` metadata, the report and the optimization remarks
//! say the same thing the same way: a load's locality, its guards, and
//! where in the source it is.

use std::rc::Rc;

use crate::facts::address::{render, Cond, Known};
use crate::llvm::ir::IntPredicate;

/// A load's locality as one word: `unknown` when some evaluated thread's
/// address is not known (design.md §4: locality is unknown for ∞, whatever
/// the known threads showed), else its classes joined with `+`
/// (`within-warp+within-block`), else `none`.
pub fn locality(analyzable: bool, classes: &[String]) -> String {
    if !analyzable {
        "unknown".into()
    } else if classes.is_empty() {
        "none".into()
    } else {
        classes.join("+")
    }
}

/// A guard as the report prints it: the condition `cond` when `expect`,
/// else its negation, simplified without changing its meaning:
/// - negations are pushed down to the comparisons, which flip (`!(a < b)`
///   is `a >= b`; De Morgan for `&&` and `||`; `!!a` is `a`);
/// - chains of one operator are flat (`a && b && c`, not `(a && b) && c`);
///   an operand is parenthesized only where the operators mix;
/// - `true` in an `&&` chain and `false` in an `||` chain are dropped, a
///   chain holding the other constant is that constant, and a repeated
///   operand is written once.
///
/// A condition the analysis could not read prints as `?` (`!?` negated).
pub fn guard(cond: &Cond, expect: bool, known: &Known) -> String {
    normal(cond, !expect, known).print(false)
}

/// A condition in negation normal form, its comparisons already printed.
#[derive(Clone, Debug, PartialEq)]
enum Form {
    Const(bool),
    Atom(String),
    And(Vec<Form>),
    Or(Vec<Form>),
}

/// The comparison that holds exactly when `pred` does not (integers have
/// no unordered case).
fn inverse(pred: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match pred {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntUGT => LLVMIntULE,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLT => LLVMIntSGE,
    }
}

fn symbol(pred: IntPredicate) -> &'static str {
    use IntPredicate::*;
    match pred {
        LLVMIntEQ => "==",
        LLVMIntNE => "!=",
        LLVMIntSLT | LLVMIntULT => "<",
        LLVMIntSLE | LLVMIntULE => "<=",
        LLVMIntSGT | LLVMIntUGT => ">",
        LLVMIntSGE | LLVMIntUGE => ">=",
    }
}

/// `c` (negated when `negate`) in negation normal form.
fn normal(c: &Cond, negate: bool, known: &Known) -> Form {
    match c {
        Cond::Const(b) => Form::Const(*b != negate),
        Cond::Cmp { pred, lhs, rhs, .. } => {
            let pred = if negate { inverse(*pred) } else { *pred };
            Form::Atom(format!(
                "{} {} {}",
                render(lhs, known),
                symbol(pred),
                render(rhs, known)
            ))
        }
        Cond::Not(a) => normal(a, !negate, known),
        Cond::And(a, b) => chain(!negate, a, b, negate, known),
        Cond::Or(a, b) => chain(negate, a, b, negate, known),
        Cond::Unknown(_) => Form::Atom(if negate { "!?" } else { "?" }.into()),
    }
}

/// `a && b` (`and`) or `a || b`, each operand negated when `negate`,
/// flattened and simplified.
fn chain(and: bool, a: &Rc<Cond>, b: &Rc<Cond>, negate: bool, known: &Known) -> Form {
    // The constant that decides the chain, and the one it ignores.
    let (absorbing, neutral) = (!and, and);
    let mut items: Vec<Form> = Vec::new();
    for x in [normal(a, negate, known), normal(b, negate, known)] {
        let flat = match x {
            Form::And(v) if and => v,
            Form::Or(v) if !and => v,
            other => vec![other],
        };
        for f in flat {
            match f {
                Form::Const(c) if c == absorbing => return Form::Const(absorbing),
                Form::Const(c) if c == neutral => {}
                f if items.contains(&f) => {}
                f => items.push(f),
            }
        }
    }
    match items.len() {
        0 => Form::Const(neutral),
        1 => items.pop().expect("one item"),
        _ if and => Form::And(items),
        _ => Form::Or(items),
    }
}

impl Form {
    /// The text; `nested` when an operand of the other chain operator.
    fn print(&self, nested: bool) -> String {
        let (items, op) = match self {
            Form::Const(b) => return b.to_string(),
            Form::Atom(s) => return s.clone(),
            Form::And(v) => (v, " && "),
            Form::Or(v) => (v, " || "),
        };
        let text = items
            .iter()
            .map(|f| f.print(true))
            .collect::<Vec<_>>()
            .join(op);
        if nested {
            format!("({text})")
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::address::{Expr, Sreg, Why, E};
    use IntPredicate::*;

    fn tid() -> E {
        Rc::new(Expr::Sreg(Sreg::Tid(0)))
    }

    fn k(c: i64) -> E {
        Rc::new(Expr::Const(c))
    }

    fn cmp(pred: IntPredicate, lhs: E, rhs: E) -> Rc<Cond> {
        Rc::new(Cond::Cmp {
            pred,
            lhs,
            rhs,
            bits: 32,
        })
    }

    fn and(a: Rc<Cond>, b: Rc<Cond>) -> Rc<Cond> {
        Rc::new(Cond::And(a, b))
    }

    fn or(a: Rc<Cond>, b: Rc<Cond>) -> Rc<Cond> {
        Rc::new(Cond::Or(a, b))
    }

    fn not(a: Rc<Cond>) -> Rc<Cond> {
        Rc::new(Cond::Not(a))
    }

    fn konst(b: bool) -> Rc<Cond> {
        Rc::new(Cond::Const(b))
    }

    fn text(c: &Rc<Cond>, expect: bool) -> String {
        guard(c, expect, &Known::default())
    }

    #[test]
    fn locality_is_one_spelling() {
        let both = vec!["within-warp".to_string(), "within-block".to_string()];
        assert_eq!(locality(true, &both), "within-warp+within-block");
        assert_eq!(locality(true, &[]), "none");
        assert_eq!(locality(false, &[]), "unknown");
        // Known threads sharing a line do not make an unknown address local.
        assert_eq!(locality(false, &both[..1]), "unknown");
    }

    #[test]
    fn same_operator_chains_are_flat() {
        // The default of `switch (tid.x / 32)` with cases 0, 1, 2.
        let w = || {
            Rc::new(Expr::Bin {
                op: crate::facts::address::BinOp::LShr,
                lhs: tid(),
                rhs: k(5),
                bits: 32,
            })
        };
        let c = and(
            and(cmp(LLVMIntNE, w(), k(0)), cmp(LLVMIntNE, w(), k(1))),
            cmp(LLVMIntNE, w(), k(2)),
        );
        assert_eq!(
            text(&c, true),
            "(tid.x >> 5) != 0 && (tid.x >> 5) != 1 && (tid.x >> 5) != 2"
        );
        let c = or(
            cmp(LLVMIntEQ, w(), k(1)),
            or(cmp(LLVMIntEQ, w(), k(2)), cmp(LLVMIntEQ, w(), k(3))),
        );
        assert_eq!(
            text(&c, true),
            "(tid.x >> 5) == 1 || (tid.x >> 5) == 2 || (tid.x >> 5) == 3"
        );
    }

    #[test]
    fn mixed_operators_keep_their_parentheses() {
        let c = and(
            or(cmp(LLVMIntEQ, tid(), k(1)), cmp(LLVMIntEQ, tid(), k(2))),
            cmp(LLVMIntULT, tid(), k(64)),
        );
        assert_eq!(text(&c, true), "(tid.x == 1 || tid.x == 2) && tid.x < 64");
        let c = or(
            and(cmp(LLVMIntSGT, tid(), k(1)), cmp(LLVMIntSLT, tid(), k(9))),
            cmp(LLVMIntEQ, tid(), k(0)),
        );
        assert_eq!(text(&c, true), "(tid.x > 1 && tid.x < 9) || tid.x == 0");
    }

    #[test]
    fn negated_comparisons_flip() {
        // The else side of `if (i < n)`: the load runs when !(i < n).
        for (pred, flipped) in [
            (LLVMIntSLT, ">="),
            (LLVMIntULT, ">="),
            (LLVMIntSLE, ">"),
            (LLVMIntUGT, "<="),
            (LLVMIntSGE, "<"),
            (LLVMIntEQ, "!="),
            (LLVMIntNE, "=="),
        ] {
            assert_eq!(
                text(&cmp(pred, tid(), k(100)), false),
                format!("tid.x {flipped} 100")
            );
        }
        // !! cancels, with `expect` or with a Not node.
        let c = not(cmp(LLVMIntSLT, tid(), k(100)));
        assert_eq!(text(&c, false), "tid.x < 100");
        assert_eq!(text(&c, true), "tid.x >= 100");
    }

    #[test]
    fn de_morgan_pushes_negation_down() {
        // The else side of `if (t == 1 || t == 2)`.
        let c = or(cmp(LLVMIntEQ, tid(), k(1)), cmp(LLVMIntEQ, tid(), k(2)));
        assert_eq!(text(&c, false), "tid.x != 1 && tid.x != 2");
        let c = and(cmp(LLVMIntSLT, tid(), k(8)), cmp(LLVMIntSGE, tid(), k(2)));
        assert_eq!(text(&c, false), "tid.x >= 8 || tid.x < 2");
        // Nested: !(a && (b || c)) = !a || (!b && !c).
        let c = and(
            cmp(LLVMIntEQ, tid(), k(0)),
            or(cmp(LLVMIntEQ, tid(), k(1)), cmp(LLVMIntEQ, tid(), k(2))),
        );
        assert_eq!(text(&c, false), "tid.x != 0 || (tid.x != 1 && tid.x != 2)");
    }

    #[test]
    fn constants_and_repeats_fold() {
        let a = cmp(LLVMIntSLT, tid(), k(8));
        assert_eq!(text(&and(konst(true), a.clone()), true), "tid.x < 8");
        assert_eq!(text(&or(konst(false), a.clone()), true), "tid.x < 8");
        assert_eq!(text(&and(konst(false), a.clone()), true), "false");
        assert_eq!(text(&or(a.clone(), konst(true)), true), "true");
        assert_eq!(text(&and(a.clone(), a.clone()), true), "tid.x < 8");
        assert_eq!(text(&konst(true), false), "false");
        // !(true && a) = !a.
        assert_eq!(text(&and(konst(true), a.clone()), false), "tid.x >= 8");
    }

    #[test]
    fn unknown_conditions_stay_unknown() {
        let u = Rc::new(Cond::Unknown(Why::Memory));
        assert_eq!(text(&u, true), "?");
        assert_eq!(text(&u, false), "!?");
        let c = and(u, cmp(LLVMIntSLT, tid(), k(8)));
        assert_eq!(text(&c, false), "!? || tid.x >= 8");
    }

    /// The condition's value for thread `t` (comparisons of tid.x with constants only).
    fn eval(c: &Cond, t: i64) -> bool {
        match c {
            Cond::Const(b) => *b,
            Cond::Cmp { pred, rhs, .. } => {
                let Expr::Const(n) = **rhs else {
                    panic!("test conditions compare with constants")
                };
                holds(symbol(*pred), t, n)
            }
            Cond::And(a, b) => eval(a, t) && eval(b, t),
            Cond::Or(a, b) => eval(a, t) || eval(b, t),
            Cond::Not(a) => !eval(a, t),
            Cond::Unknown(_) => panic!("no unknowns here"),
        }
    }

    fn holds(sym: &str, t: i64, n: i64) -> bool {
        match sym {
            "==" => t == n,
            "!=" => t != n,
            "<" => t < n,
            "<=" => t <= n,
            ">" => t > n,
            ">=" => t >= n,
            _ => panic!("{sym}"),
        }
    }

    /// Reads printed guard text back, as C would (`&&` binds tighter than
    /// `||`), and evaluates it for thread `t`.
    fn eval_text(s: &str, t: i64) -> bool {
        let tokens: Vec<String> = s
            .replace('(', " ( ")
            .replace(')', " ) ")
            .split_whitespace()
            .map(String::from)
            .collect();
        let mut pos = 0;
        let v = or_expr(&tokens, &mut pos, t);
        assert_eq!(pos, tokens.len(), "{s}");
        v
    }

    fn or_expr(tk: &[String], pos: &mut usize, t: i64) -> bool {
        let mut v = and_expr(tk, pos, t);
        while tk.get(*pos).is_some_and(|x| x == "||") {
            *pos += 1;
            v |= and_expr(tk, pos, t);
        }
        v
    }

    fn and_expr(tk: &[String], pos: &mut usize, t: i64) -> bool {
        let mut v = primary(tk, pos, t);
        while tk.get(*pos).is_some_and(|x| x == "&&") {
            *pos += 1;
            v &= primary(tk, pos, t);
        }
        v
    }

    fn primary(tk: &[String], pos: &mut usize, t: i64) -> bool {
        let x = tk[*pos].as_str();
        *pos += 1;
        match x {
            "(" => {
                let v = or_expr(tk, pos, t);
                assert_eq!(tk[*pos], ")");
                *pos += 1;
                v
            }
            "true" => true,
            "false" => false,
            "tid.x" => {
                let (sym, n) = (tk[*pos].clone(), tk[*pos + 1].parse().unwrap());
                *pos += 2;
                holds(&sym, t, n)
            }
            other => panic!("unexpected {other}"),
        }
    }

    /// A random condition over tid.x, `depth` levels deep (a fixed LCG, so
    /// every run checks the same thousands of trees).
    fn random(seed: &mut u64, depth: u32) -> Rc<Cond> {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (*seed >> 33) as u32;
        let preds = [
            LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE, LLVMIntULT,
            LLVMIntUGE,
        ];
        if depth == 0 || r.is_multiple_of(7) {
            return if r % 13 == 1 {
                konst(r.is_multiple_of(2))
            } else {
                cmp(
                    preds[(r / 7) as usize % preds.len()],
                    tid(),
                    k(i64::from(r / 61 % 6)),
                )
            };
        }
        match r % 3 {
            0 => and(random(seed, depth - 1), random(seed, depth - 1)),
            1 => or(random(seed, depth - 1), random(seed, depth - 1)),
            _ => not(random(seed, depth - 1)),
        }
    }

    #[test]
    fn simplified_guards_mean_what_the_conditions_mean() {
        let mut seed = 7;
        for _ in 0..3000 {
            let c = random(&mut seed, 5);
            for expect in [true, false] {
                let printed = text(&c, expect);
                for t in 0..7 {
                    assert_eq!(
                        eval_text(&printed, t),
                        eval(&c, t) == expect,
                        "{c:?} expect {expect}: printed {printed}, thread {t}"
                    );
                }
            }
        }
    }
}
