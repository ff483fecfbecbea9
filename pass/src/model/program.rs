//! A kernel's control flow as typed facts, for the whole-kernel trace
//! (issue 7): its blocks in order, the phis each block assigns on entry,
//! the global memory instructions it executes with their address
//! expressions, where a warp's burst of memory instructions ends (a
//! scoreboard wait on a loaded value, a block barrier), and how it exits.
//! Built from the IR by `control`; walked per warp by `walk`. Also the
//! loop structure the walk needs (natural loops from retreating edges of a
//! reverse post-order), the side an unknown guard takes, and the program
//! specialised to a launch.
//!
//! Pure data and CFG arithmetic: no IR handles are followed here, no
//! policy, no cache.

use std::rc::Rc;

use crate::facts::address::{Cond, E};
use crate::facts::evaluate::Env;
use crate::facts::specialise::Specialiser;

/// How a block ends.
#[derive(Clone, Debug)]
pub enum Exit {
    Return,
    Jump(u32),
    Branch {
        cond: Rc<Cond>,
        then: u32,
        otherwise: u32,
    },
    Switch {
        on: E,
        cases: Vec<(i64, u32)>,
        default: u32,
    },
    /// `unreachable`, or a terminator the walk does not follow (`trap`).
    Stop,
}

impl Exit {
    pub fn successors(&self) -> Vec<u32> {
        match self {
            Exit::Return | Exit::Stop => Vec::new(),
            Exit::Jump(t) => vec![*t],
            Exit::Branch {
                then, otherwise, ..
            } => vec![*then, *otherwise],
            Exit::Switch { cases, default, .. } => {
                let mut v: Vec<u32> = cases.iter().map(|c| c.1).collect();
                v.push(*default);
                v
            }
        }
    }
}

/// A phi: the variable it sets on entry, and its value per predecessor.
#[derive(Clone, Debug)]
pub struct PhiDef {
    pub var: u32,
    pub incoming: Vec<(u32, E)>,
}

/// A global memory instruction in a block.
#[derive(Clone, Debug)]
pub struct MemOp {
    /// Its index in the trace's instruction table.
    pub inst: u32,
    pub address: E,
    /// Bytes each thread accesses.
    pub bytes: u32,
    /// Whether the warp waits after issuing this instruction, before its
    /// next memory instruction: some instruction between them (in issue
    /// order) uses the value of a load issued since the last wait, so the
    /// scoreboard holds the warp until that load returns (see `control`).
    /// `false`: the next memory instruction issues back to back.
    pub waits: bool,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub phis: Vec<PhiDef>,
    pub ops: Vec<MemOp>,
    /// Block barriers (`__syncthreads`, `bar.sync`), each as the index of
    /// the op it precedes (`ops.len()`: after the last), in order. A warp
    /// reaching one waits until every warp of its block that has not
    /// exited reaches a barrier.
    pub barriers: Vec<u32>,
    pub exit: Exit,
}

/// A loop test whose outcomes that stay in its loop clamps bound, though
/// the walk cannot compute it (`trip_bounds`): after `count` evaluations
/// that came out `holds` since the loop headed by node `header` was
/// entered, the test at node `node` does not come out `holds` again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestBound {
    pub node: u32,
    pub header: u32,
    /// `true`: the branch's `then` side.
    pub holds: bool,
    pub count: u32,
}

/// One function's control flow; block 0 is the entry.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub nodes: Vec<Node>,
    /// Number of phi variables (`Expr::Rec(n)`, n below this).
    pub vars: u32,
    /// The phi variables whose loaded starts begin runs stored one after
    /// another, row by row (`control::packed_starts`), sorted by variable.
    pub packed_starts: Vec<PackedStart>,
    /// Loop tests whose count of staying outcomes clamps bound
    /// (`trip_bounds`), by node.
    pub test_bounds: Vec<TestBound>,
}

impl Program {
    /// Per trace instruction (`n` of them): what `of` says of its memory
    /// operations, where all of them (the copies a trace instruction has in
    /// the program) say the same; `None` elsewhere.
    pub fn per_instruction<T: Copy + PartialEq>(
        &self,
        n: usize,
        of: impl Fn(&MemOp) -> Option<T>,
    ) -> Vec<Option<T>> {
        let mut out: Vec<Option<Option<T>>> = vec![None; n];
        for op in self.nodes.iter().flat_map(|n| &n.ops) {
            let here = of(op);
            if let Some(slot) = out.get_mut(op.inst as usize) {
                *slot = match *slot {
                    None => Some(here),
                    Some(seen) if seen == here => Some(seen),
                    Some(_) => Some(None),
                };
            }
        }
        out.into_iter().map(Option::flatten).collect()
    }
}

/// A phi variable whose start is loaded from a row-offset array `p[i]`:
/// the run a lane starts there is row `i`'s (`start`'s address over
/// `size`), stored after row `i - 1`'s.
#[derive(Clone, Debug)]
pub struct PackedStart {
    pub var: u32,
    /// The address the start is loaded from.
    pub start: E,
    /// The bytes of one offset.
    pub size: i64,
}

/// Reverse post-order ranks and natural loops of a [`Program`].
#[derive(Clone, Debug)]
pub struct Shape {
    /// Rank of each node in reverse post-order (unreached nodes: u32::MAX).
    pub rank: Vec<u32>,
    /// For each node, the headers of the loops containing it, innermost
    /// last (a header is in its own loop).
    pub loops: Vec<Vec<u32>>,
}

impl Shape {
    pub fn of(p: &Program) -> Shape {
        let n = p.nodes.len();
        let succ: Vec<Vec<u32>> = p.nodes.iter().map(|b| b.exit.successors()).collect();
        let rank = reverse_post_order(&succ);
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (b, ss) in succ.iter().enumerate() {
            for &s in ss {
                pred[s as usize].push(b as u32);
            }
        }
        // A retreating edge u → h (rank h ≤ rank u) closes the loop headed
        // by h: its body is what reaches u backwards without passing h.
        let mut members: Vec<(u32, Vec<bool>)> = Vec::new();
        for (u, ss) in succ.iter().enumerate() {
            for &h in ss {
                if rank[u] == u32::MAX || rank[h as usize] > rank[u] {
                    continue;
                }
                let set = match members.iter_mut().find(|m| m.0 == h) {
                    Some(m) => &mut m.1,
                    None => {
                        members.push((h, vec![false; n]));
                        &mut members.last_mut().expect("just pushed").1
                    }
                };
                set[h as usize] = true;
                let mut stack = vec![u as u32];
                while let Some(x) = stack.pop() {
                    if !set[x as usize] {
                        set[x as usize] = true;
                        stack.extend(pred[x as usize].iter().copied());
                    }
                }
            }
        }
        // Outer loops first: a larger body contains the smaller.
        members.sort_by_key(|m| std::cmp::Reverse(m.1.iter().filter(|x| **x).count()));
        let mut loops = vec![Vec::new(); n];
        for (h, set) in &members {
            for (b, inside) in set.iter().enumerate() {
                if *inside {
                    loops[b].push(*h);
                }
            }
        }
        Shape { rank, loops }
    }

    /// Whether `node` is in the loop headed by `header`.
    pub fn in_loop(&self, node: u32, header: u32) -> bool {
        self.loops[node as usize].contains(&header)
    }

    /// The innermost loop that the edge `from → to` leaves, if any.
    pub fn exited_loop(&self, from: u32, to: u32) -> Option<u32> {
        self.loops[from as usize]
            .iter()
            .rev()
            .copied()
            .find(|&h| !self.in_loop(to, h))
    }
}

/// `program` with what `env` fixes (block and grid shape, argument
/// values, pointer bases) folded into its expressions once, rather than
/// per thread and step (`specialise::Specialiser`; the values are the same).
pub fn specialised(program: &Program, env: &Env) -> Program {
    let mut s = Specialiser::new(env);
    let nodes = (program.nodes.iter())
        .map(|n| Node {
            phis: (n.phis.iter())
                .map(|p| PhiDef {
                    var: p.var,
                    incoming: p.incoming.iter().map(|(b, e)| (*b, s.expr(e))).collect(),
                })
                .collect(),
            ops: (n.ops.iter())
                .map(|m| MemOp {
                    address: s.expr(&m.address),
                    ..m.clone()
                })
                .collect(),
            barriers: n.barriers.clone(),
            exit: match &n.exit {
                Exit::Branch {
                    cond,
                    then,
                    otherwise,
                } => Exit::Branch {
                    cond: s.cond(cond),
                    then: *then,
                    otherwise: *otherwise,
                },
                Exit::Switch { on, cases, default } => Exit::Switch {
                    on: s.expr(on),
                    cases: cases.clone(),
                    default: *default,
                },
                other => other.clone(),
            },
        })
        .collect();
    Program {
        nodes,
        vars: program.vars,
        packed_starts: (program.packed_starts.iter())
            .map(|p| PackedStart {
                start: s.expr(&p.start),
                ..p.clone()
            })
            .collect(),
        test_bounds: program.test_bounds.clone(),
    }
}

/// For each branch, the side an unknown condition sends a lane to: the
/// side that is not the join when one side reaches the other without a
/// back edge (`if (c) { ... }`), else the `then` side.
pub fn guarded_sides(p: &Program, shape: &Shape) -> Vec<u32> {
    p.nodes
        .iter()
        .enumerate()
        .map(|(b, n)| match n.exit {
            Exit::Branch {
                then, otherwise, ..
            } => {
                if reaches_forward(p, shape, otherwise, then) {
                    otherwise
                } else {
                    then
                }
            }
            _ => b as u32,
        })
        .collect()
}

/// Whether `to` is reachable from `from` along edges that go forward in
/// reverse post-order.
fn reaches_forward(p: &Program, shape: &Shape, from: u32, to: u32) -> bool {
    let mut seen = vec![false; p.nodes.len()];
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        if x == to {
            return true;
        }
        if std::mem::replace(&mut seen[x as usize], true) {
            continue;
        }
        for s in p.nodes[x as usize].exit.successors() {
            if shape.rank[s as usize] > shape.rank[x as usize] {
                stack.push(s);
            }
        }
    }
    false
}

fn reverse_post_order(succ: &[Vec<u32>]) -> Vec<u32> {
    let n = succ.len();
    let mut rank = vec![u32::MAX; n];
    if n == 0 {
        return rank;
    }
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack = vec![(0u32, 0usize)];
    seen[0] = true;
    while let Some((b, i)) = stack.pop() {
        let ss = &succ[b as usize];
        if i < ss.len() {
            stack.push((b, i + 1));
            let t = ss[i];
            if !seen[t as usize] {
                seen[t as usize] = true;
                stack.push((t, 0));
            }
        } else {
            post.push(b);
        }
    }
    let total = post.len() as u32;
    for (i, b) in post.into_iter().enumerate() {
        rank[b as usize] = total - 1 - i as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(exit: Exit) -> Node {
        Node {
            phis: Vec::new(),
            ops: Vec::new(),
            barriers: Vec::new(),
            exit,
        }
    }

    #[test]
    fn nested_loops_and_exits() {
        // 0 → 1 (outer header) → 2 (inner header) → 2 | 3; 3 → 1 | 4; 4 returns.
        let t = Rc::new(Cond::Const(true));
        let p = Program {
            nodes: vec![
                node(Exit::Jump(1)),
                node(Exit::Jump(2)),
                node(Exit::Branch {
                    cond: t.clone(),
                    then: 2,
                    otherwise: 3,
                }),
                node(Exit::Branch {
                    cond: t,
                    then: 1,
                    otherwise: 4,
                }),
                node(Exit::Return),
            ],
            vars: 0,
            packed_starts: Vec::new(),
            test_bounds: Vec::new(),
        };
        let s = Shape::of(&p);
        assert_eq!(s.rank, vec![0, 1, 2, 3, 4]);
        assert_eq!(s.loops[2], vec![1, 2]);
        assert_eq!(s.loops[3], vec![1]);
        assert!(s.loops[4].is_empty());
        assert_eq!(s.exited_loop(2, 3), Some(2));
        assert_eq!(s.exited_loop(3, 4), Some(1));
        assert_eq!(s.exited_loop(3, 1), None);
    }
}
