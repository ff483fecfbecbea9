//! Guards of a load: the branch conditions that decide whether a thread
//! executes it. Found from the CFG: a block reached only through one edge of
//! a conditional branch (or of a switch), and dominating the load, runs
//! only when that branch went that way. Conditions that leave a loop are
//! not guards of code after it (Algorithm 1 of Jia et al. deletes back
//! edges).

use std::collections::HashMap;
use std::rc::Rc;

use crate::facts::address::{Cond, Folder};
use crate::llvm::ir::{Block, Value};

/// A condition that must hold (or not hold) for a load to execute.
#[derive(Clone, Debug)]
pub struct Guard {
    pub cond: Rc<Cond>,
    pub expect: bool,
}

/// Dominator tree of one function, for finding guards.
pub struct Dominators {
    idom: HashMap<Block, Block>,
    preds: HashMap<Block, Vec<Block>>,
}

impl Dominators {
    /// Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm" (2001).
    pub fn of(function: Value) -> Dominators {
        let blocks = function.blocks();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        let Some(&entry) = blocks.first() else {
            return Dominators {
                idom: HashMap::new(),
                preds,
            };
        };
        // Reverse post-order from the entry.
        let mut order = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(entry, 0usize)];
        seen.insert(entry);
        let mut succs: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &blocks {
            let s = b.successors();
            for &t in &s {
                // Once per edge source: two cases of one switch that go to
                // the same block are one predecessor, whose guard is their
                // disjunction.
                let p = preds.entry(t).or_default();
                if !p.contains(&b) {
                    p.push(b);
                }
            }
            succs.insert(b, s);
        }
        while let Some((b, i)) = stack.pop() {
            let s = &succs[&b];
            if i < s.len() {
                stack.push((b, i + 1));
                let t = s[i];
                if seen.insert(t) {
                    stack.push((t, 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        let rpo: HashMap<Block, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut idom: HashMap<Block, Block> = HashMap::new();
        idom.insert(entry, entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new: Option<Block> = None;
                for p in preds.get(&b).into_iter().flatten() {
                    if !idom.contains_key(p) {
                        continue;
                    }
                    new = Some(match new {
                        None => *p,
                        Some(mut a) => {
                            let mut c = *p;
                            while a != c {
                                while rpo[&a] > rpo[&c] {
                                    a = idom[&a];
                                }
                                while rpo[&c] > rpo[&a] {
                                    c = idom[&c];
                                }
                            }
                            a
                        }
                    });
                }
                if let Some(n) = new {
                    if idom.get(&b) != Some(&n) {
                        idom.insert(b, n);
                        changed = true;
                    }
                }
            }
        }
        Dominators { idom, preds }
    }

    /// Conditions under which `block` runs, from the branches that lead to it.
    ///
    /// A branch on a loop recurrence whose edge leaves that loop (the exit
    /// test of a counted loop) is no guard: evaluated at the first iteration
    /// it would say nobody gets past the loop.
    pub fn guards(&self, block: Block, folder: &mut Folder) -> Vec<Guard> {
        let mut out = Vec::new();
        let mut b = block;
        loop {
            // The one edge into `b` from outside any loop `b` heads: the
            // back edges come from blocks `b` dominates, so that edge is
            // taken before every execution of `b` (a rotated loop's entry
            // test, `for (i = tid; i < n; ...)` at -O3).
            let mut entries =
                (self.preds.get(&b).into_iter().flatten()).filter(|&&p| !self.dominates(b, p));
            let entry = match (entries.next(), entries.next()) {
                (Some(&p), None) => Some(p),
                _ => None,
            };
            if let Some(p) = entry {
                let guard = if let Some((cond, t, f)) = p.conditional_branch() {
                    (t != f).then(|| (folder.cond(cond), t == b))
                } else if let Some((on, default, cases)) = p.switch() {
                    // The values that lead here, or, for the default, the
                    // values that all lead elsewhere.
                    let to_b: Vec<Value> = cases
                        .iter()
                        .filter(|(_, d)| *d == b)
                        .map(|(v, _)| *v)
                        .collect();
                    if default == b {
                        let others: Vec<Value> = cases
                            .iter()
                            .filter(|(_, d)| *d != b)
                            .map(|(v, _)| *v)
                            .collect();
                        Some((folder.switch_cond(on, &others, false), true))
                    } else {
                        Some((folder.switch_cond(on, &to_b, true), true))
                    }
                } else {
                    None
                };
                if let Some((cond, expect)) = guard {
                    let leaves_loop = cond.loop_headers().into_iter().any(|h| !self.in_loop(h, b));
                    if !leaves_loop {
                        out.push(Guard { cond, expect });
                    }
                }
            }
            match self.idom.get(&b) {
                Some(&d) if d != b => b = d,
                _ => break,
            }
        }
        out
    }
}

impl Dominators {
    fn dominates(&self, a: Block, mut b: Block) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom.get(&b) {
                Some(&d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// Whether `b` is in the natural loop of `header`: it reaches a back
    /// edge into `header` without passing through `header`.
    fn in_loop(&self, header: Block, b: Block) -> bool {
        if b == header {
            return true;
        }
        let latches: Vec<Block> = self
            .preds
            .get(&header)
            .into_iter()
            .flatten()
            .copied()
            .filter(|p| self.dominates(header, *p))
            .collect();
        let mut seen = std::collections::HashSet::new();
        let mut work = latches;
        while let Some(x) = work.pop() {
            if x == b {
                return true;
            }
            if x == header || !seen.insert(x) {
                continue;
            }
            work.extend(self.preds.get(&x).into_iter().flatten().copied());
        }
        false
    }
}
