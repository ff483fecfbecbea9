//! Printing: expressions and conditions as the report shows them, with
//! known launch values and arguments substituted.

use std::collections::HashMap;

use super::expr::{arg_name, BinOp, CastOp, Cond, Expr, Sreg};
use crate::llvm::ir::IntPredicate;

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
        // A float's conversion is no linear function of its bits.
        Expr::Cast {
            op: CastOp::FpToSi | CastOp::FpToUi,
            ..
        } => None,
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
        Expr::Unknown(_) | Expr::Loaded { .. } => "?".into(),
        Expr::Uniform { from, .. } | Expr::Data { from, .. } => {
            format!("[{}]", render(from, known))
        }
        Expr::Cast {
            op: CastOp::FpToSi | CastOp::FpToUi,
            value,
            ..
        } => format!("int({})", render(value, known)),
        // An integer cast around a form with no linear shape (a float's
        // conversion): shown as its operand, as `linear` shows casts; never
        // `render` of the cast itself, which would come back here.
        Expr::Cast { value, .. } => render(value, known),
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

/// The block-uniform unknowns of the expression, as they read in a
/// pattern: integer arguments not in `given`, and values loaded from
/// block-uniform addresses.
pub fn uniform_unknowns(e: &Expr, given: &HashMap<u32, i64>, known: &Known) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    e.visit(&mut |e| {
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
