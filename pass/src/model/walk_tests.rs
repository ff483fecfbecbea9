//! Tests of the walk on small hand-built programs (issue 19): the order in
//! which warps issue (bursts, waits, barriers, greedy-then-oldest against
//! round-robin) and loop variables with an unknown start (a CSR row loop).
//! Every expected figure is worked out in the comments.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::facts::address::{bin, Base, BinOp, Cond, Expr, Sreg, Why, E};
use crate::facts::geometry::Dim3;
use crate::llvm::ir::IntPredicate;
use crate::model::program::{Exit, MemOp, Node, PhiDef, Program, TestBound};
use crate::model::schedule::WarpOrder;
use crate::model::trace::{Instruction, Kind, Trace, UNKNOWN_REGION};
use crate::model::unknowns::{BASED_REGION, BASED_SPACING};
use crate::model::walk::{walk, walk_limited, AccessFacts, Budget, Launch, Limits};

const BUDGET: Budget = Budget {
    iterations: 64,
    unknown_trip: 8,
    accesses: u64::MAX,
    steps: u64::MAX,
};

fn c(v: i64) -> E {
    Rc::new(Expr::Const(v))
}

fn add(a: E, b: E) -> E {
    bin(BinOp::Add, a, b, 64)
}

fn mul(a: E, b: E) -> E {
    bin(BinOp::Mul, a, b, 64)
}

fn param(index: u32) -> E {
    Rc::new(Expr::Base(Base::Param {
        index,
        name: format!("p{index}"),
    }))
}

fn tid() -> E {
    Rc::new(Expr::Sreg(Sreg::Tid(0)))
}

fn var(v: u32) -> E {
    Rc::new(Expr::Rec(v))
}

fn slt(lhs: E, rhs: E) -> Rc<Cond> {
    Rc::new(Cond::Cmp {
        pred: IntPredicate::LLVMIntSLT,
        lhs,
        rhs,
        bits: 64,
    })
}

/// `&base[index]`, 4-byte elements.
fn element(base: E, index: E) -> E {
    add(base, mul(index, c(4)))
}

fn op(inst: u32, address: E, waits: bool) -> MemOp {
    MemOp {
        inst,
        address,
        bytes: 4,
        waits,
    }
}

fn node(phis: Vec<PhiDef>, ops: Vec<MemOp>, exit: Exit) -> Node {
    Node {
        phis,
        ops,
        barriers: Vec::new(),
        exit,
    }
}

fn launch(threads: u32, order: WarpOrder) -> Launch {
    Launch {
        block: Dim3 {
            x: threads,
            y: 1,
            z: 1,
        },
        grid: Some(Dim3 { x: 1, y: 1, z: 1 }),
        blocks: vec![[0, 0, 0]],
        args: HashMap::new(),
        memory: None,
        order,
        extents: Vec::new(),
    }
}

fn loads(n: u32) -> Vec<Instruction> {
    (0..n)
        .map(|i| Instruction {
            kind: Kind::Load,
            site: format!("1:{i}"),
        })
        .collect()
}

/// `for k in 0..trips: body(k)`: node 0 enters, node 1 is the header and
/// latch (`k` is variable 0) holding `ops(k)`, node 2 returns.
fn counted(trips: i64, ops: impl FnOnce(E) -> Vec<MemOp>) -> Program {
    let k = var(0);
    let next = add(k.clone(), c(1));
    Program {
        nodes: vec![
            node(Vec::new(), Vec::new(), Exit::Jump(1)),
            node(
                vec![PhiDef {
                    var: 0,
                    incoming: vec![(0, c(0)), (1, next.clone())],
                }],
                ops(k),
                Exit::Branch {
                    cond: slt(next, c(trips)),
                    then: 1,
                    otherwise: 2,
                },
            ),
            node(Vec::new(), Vec::new(), Exit::Return),
        ],
        vars: 1,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    }
}

/// (warp, instruction, execution) of each event, in trace order.
fn order(t: &Trace) -> Vec<(u32, u32, u32)> {
    t.events
        .iter()
        .map(|e| (e.warp, e.inst, e.execution))
        .collect()
}

/// The rolled row walk `for k < 3: s += a[tid*8 + k]`: the add uses each
/// load, so the warp waits after every one (a burst of one).
fn rolled() -> Program {
    counted(3, |k| {
        vec![op(0, element(param(0), add(mul(tid(), c(8)), k)), true)]
    })
}

#[test]
fn rolled_row_walk_greedy_then_oldest_favours_the_oldest_warps() {
    // Three warps (96 threads), latency 1 slot. Slot 0: warp 0 issues
    // iteration 0 and waits until slot 0 + 1 + 1 = 2. Slot 1: warp 1
    // (ready at 3). Slot 2: warp 0 is ready again and older than warp 2:
    // iteration 1 (ready at 4). Slot 3: warp 1 (ready at 5). Slot 4: warp 0's
    // last iteration; slot 5: warp 1's. Only then warp 2, alone: its three
    // iterations, time jumping to each ready slot.
    let t = walk(
        &rolled(),
        loads(1),
        &launch(96, WarpOrder::Gto { latency: 1 }),
        BUDGET,
    );
    let warps: Vec<u32> = t.events.iter().map(|e| e.warp).collect();
    assert_eq!(warps, vec![0, 1, 0, 1, 0, 1, 2, 2, 2]);
    assert_eq!(
        (t.events.iter().map(|e| e.execution)).collect::<Vec<_>>(),
        vec![0, 0, 1, 1, 2, 2, 0, 1, 2]
    );
}

#[test]
fn rolled_row_walk_round_robin_takes_turns() {
    // One burst (one load) per warp per turn: warps 0, 1, 2, three times.
    let t = walk(
        &rolled(),
        loads(1),
        &launch(96, WarpOrder::RoundRobin),
        BUDGET,
    );
    let warps: Vec<u32> = t.events.iter().map(|e| e.warp).collect();
    assert_eq!(warps, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
}

#[test]
fn rolled_row_walk_under_the_default_latency_is_round_robin() {
    // 200 slots of wait against three warps of one-slot bursts: every warp
    // waits before any is ready again; the oldest ready each time is
    // warp 0, then 1, then 2 (ready at 201, 202, 203).
    let t = walk(
        &rolled(),
        loads(1),
        &launch(96, WarpOrder::default()),
        BUDGET,
    );
    let warps: Vec<u32> = t.events.iter().map(|e| e.warp).collect();
    assert_eq!(warps, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
}

#[test]
fn unrolled_independent_loads_issue_back_to_back() {
    // `for k < 2: s += a[r] + a[r+1] + a[r+2] + a[r+3]`, r = tid*8 + 4k:
    // four loads, then the adds, so only the fourth waits. Two warps,
    // default GTO: warp 0 issues loads 0..3 (slots 0..3, ready at 204),
    // warp 1 loads 0..3 (slots 4..7, ready at 208); time jumps to 204:
    // warp 0's second iteration, then warp 1's.
    let p = counted(2, |k| {
        let r = add(mul(tid(), c(8)), mul(k, c(4)));
        (0..4)
            .map(|i| {
                op(
                    i,
                    element(param(0), add(r.clone(), c(i64::from(i)))),
                    i == 3,
                )
            })
            .collect()
    });
    let t = walk(&p, loads(4), &launch(64, WarpOrder::default()), BUDGET);
    let mut expected = Vec::new();
    for execution in 0..2 {
        for warp in 0..2 {
            for inst in 0..4 {
                expected.push((warp, inst, execution));
            }
        }
    }
    assert_eq!(order(&t), expected);
    // Round-robin turns are bursts too: the same order.
    let rr = walk(&p, loads(4), &launch(64, WarpOrder::RoundRobin), BUDGET);
    assert_eq!(order(&rr), expected);
}

/// Phase 1 `a[tid]`, `__syncthreads()`, phase 2 `b[tid]`; warps whose
/// threads are at or past `live` return first. No load waits: without the
/// barrier each warp would issue both phases in one burst.
fn two_phases(live: i64, barrier: bool) -> Program {
    let mut phases = node(
        Vec::new(),
        vec![
            op(0, element(param(0), tid()), false),
            op(1, element(param(1), tid()), false),
        ],
        Exit::Return,
    );
    if barrier {
        phases.barriers = vec![1];
    }
    Program {
        nodes: vec![
            node(
                Vec::new(),
                Vec::new(),
                Exit::Branch {
                    cond: slt(tid(), c(live)),
                    then: 1,
                    otherwise: 2,
                },
            ),
            phases,
            node(Vec::new(), Vec::new(), Exit::Return),
        ],
        vars: 0,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    }
}

#[test]
fn a_barrier_keeps_phase_two_after_every_live_warps_phase_one() {
    // Three warps; the third (threads 64..95) returns before the barrier.
    // Without it, GTO runs warp 0's two loads, then warp 1's.
    let gto = WarpOrder::default();
    let free = walk(&two_phases(64, false), loads(2), &launch(96, gto), BUDGET);
    assert_eq!(
        order(&free),
        vec![(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0)]
    );
    // With it: warp 0 issues phase 1 and parks; warp 1 issues phase 1 and
    // parks; warp 2 exits (it may do so before or after: it does not
    // count), the block is released, and warp 0, the oldest, goes first.
    for order_kind in [gto, WarpOrder::RoundRobin] {
        let t = walk(
            &two_phases(64, true),
            loads(2),
            &launch(96, order_kind),
            BUDGET,
        );
        assert_eq!(order(&t), vec![(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]);
    }
}

#[test]
fn no_phase_two_access_precedes_a_phase_one_access_of_its_block() {
    // Two blocks of 8 warps, every warp live: within each block, the last
    // phase-1 event comes before the first phase-2 event.
    let mut l = launch(256, WarpOrder::default());
    l.blocks = vec![[0, 0, 0], [1, 0, 0]];
    let t = walk(&two_phases(256, true), loads(2), &l, BUDGET);
    assert_eq!(t.events.len(), 2 * 8 * 2);
    for block in 0..2 {
        let at = |inst: u32| {
            (t.events.iter().enumerate())
                .filter(|(_, e)| e.block == block && e.inst == inst)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let (one, two) = (at(0), at(1));
        assert_eq!((one.len(), two.len()), (8, 8));
        assert!(one.iter().max() < two.iter().min(), "block {block}");
    }
}

/// CSR SpMV, one row per thread `r = tid`:
/// ```text
/// start = rowptr[r]; end = rowptr[r + 1];
/// for (j = start; ; ++j) { s += val[j] * x[col[j]]; if (j + 1 >= end) break; }
/// ```
/// Instructions: 0 `rowptr[r]`, 1 `rowptr[r+1]`, 2 `val[j]`, 3 `col[j]`,
/// 4 `x[col[j]]`. Parameters: rowptr 0, val 1, col 2, x 3. The row bounds
/// are loaded (no data bound): unknown.
fn csr() -> Program {
    let loaded = |from: E| Rc::new(Expr::Data { from, bytes: 4 });
    let start = element(param(0), tid());
    let end = element(param(0), add(tid(), c(1)));
    let j = var(0);
    let next = add(j.clone(), c(1));
    Program {
        nodes: vec![
            node(
                Vec::new(),
                vec![op(0, start.clone(), false), op(1, end.clone(), true)],
                Exit::Jump(1),
            ),
            node(
                vec![PhiDef {
                    var: 0,
                    incoming: vec![(0, loaded(start)), (1, next.clone())],
                }],
                vec![
                    op(2, element(param(1), j.clone()), false),
                    op(3, element(param(2), j.clone()), true),
                    op(4, element(param(3), loaded(element(param(2), j))), true),
                ],
                Exit::Branch {
                    cond: slt(next, loaded(end)),
                    then: 1,
                    otherwise: 2,
                },
            ),
            node(Vec::new(), Vec::new(), Exit::Return),
        ],
        vars: 1,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    }
}

#[test]
fn csr_row_loop_keeps_its_stride_under_an_unknown_start() {
    // One warp. The exit test reads `end`, unknown: the loop runs
    // `unknown_trip` = 8 iterations. Each lane's `j` starts at its own
    // unknown start s (lane l's is number l + 1, l in lane order), at
    // offset (l mod 8) words within it, so `val[j]` for its 8 iterations
    // reads words l%8 .. l%8 + 7 of its own region: 32 bytes, one 32-byte
    // sector when l%8 = 0, else two. Per warp: 4 lanes × 1 + 28 × 2 = 60
    // sectors for `val`, the same for `col`; no sector shared by two lanes.
    let walked = walk_limited(
        &csr(),
        loads(5),
        &launch(32, WarpOrder::default()),
        BUDGET,
        Limits::NONE,
    );
    let t = &walked.trace;
    for inst in [2, 3] {
        let events: Vec<_> = t.events.iter().filter(|e| e.inst == inst).collect();
        assert_eq!(events.len(), 8);
        assert!(events.iter().all(|e| !e.unknown && e.lanes == 32));
        let mut all = HashSet::new();
        for lane in 0..32usize {
            let a: Vec<u64> = events.iter().map(|e| t.lanes(e)[lane]).collect();
            // Consecutive iterations: the next 4-byte word.
            assert!(a.windows(2).all(|w| w[1] == w[0] + 4), "lane {lane}");
            assert!(a
                .iter()
                .all(|&x| (BASED_REGION..UNKNOWN_REGION).contains(&x)));
            // Lane l's start: (l mod 8) words into its region, the region
            // BASED_REGION + l × 2^48 plus the array's stand-in base
            // ((1 + parameter) << 36).
            let region = BASED_REGION + lane as u64 * BASED_SPACING;
            let base = (1 + u64::from(inst - 1)) << 36;
            assert_eq!(a[0], region + base + 4 * (lane as u64 % 8));
            let sectors: HashSet<u64> = a.iter().map(|x| x / 32).collect();
            assert_eq!(sectors.len(), if lane % 8 == 0 { 1 } else { 2 });
            all.extend(sectors);
        }
        assert_eq!(all.len(), 60);
    }
    // The gather: 8 × 32 synthetic unknowns, one sector each.
    let x: Vec<_> = t.events.iter().filter(|e| e.inst == 4).collect();
    assert_eq!(x.len(), 8);
    let sectors: HashSet<u64> = x.iter().flat_map(|e| t.lanes(e)).map(|a| a / 32).collect();
    assert_eq!(sectors.len(), 256);
    assert!(x.iter().all(|e| e.unknown));
    let plain = AccessFacts::default();
    // val[j], col[j] and x[col[j]] read the loop variable j, a phi.
    let based = AccessFacts {
        based: true,
        phi: true,
        ..plain
    };
    let gather = AccessFacts {
        gather: true,
        phi: true,
        ..plain
    };
    assert_eq!(walked.accesses, vec![plain, plain, based, based, gather]);
}

#[test]
fn a_bound_test_ends_the_loop_the_guess_would_run_on() {
    // The CSR loop's test `j + 1 < end` (node 1, a latch of the loop
    // headed by node 1) cannot be computed: 8 iterations, the guess. With
    // a bound "holds at most 3 times" (what `trip_bounds` gives for an
    // end at most 4 past the start), the test stays at trips 0, 1, 2 and
    // leaves at trips 3: 4 iterations of `val[j]`. A bound of the other
    // outcome, or of another loop, says nothing of staying: 8 again.
    let val_events = |bound: TestBound| {
        let mut p = csr();
        p.test_bounds = vec![bound];
        let t = walk(&p, loads(5), &launch(32, WarpOrder::default()), BUDGET);
        t.events.iter().filter(|e| e.inst == 2).count()
    };
    let bound = TestBound {
        node: 1,
        header: 1,
        holds: true,
        count: 3,
    };
    assert_eq!(val_events(bound), 4);
    assert_eq!(
        val_events(TestBound {
            holds: false,
            ..bound
        }),
        8
    );
    assert_eq!(val_events(TestBound { header: 0, ..bound }), 8);
}

#[test]
fn a_second_entry_gets_new_starts() {
    // The CSR loop inside `for round < 2`: node 1 is the outer header
    // (variable 1 counts rounds) with the row-bound loads, node 2 the row
    // loop, node 3 the outer latch. Lane l's first entry gets start number
    // l + 1, its second 32 + l + 1: 32 regions further, and the same
    // offset in it ((32 + l) mod 8 = l mod 8), so it meets nothing of the
    // first entry.
    let loaded = |from: E| Rc::new(Expr::Data { from, bytes: 4 });
    let start = element(param(0), tid());
    let end = element(param(0), add(tid(), c(1)));
    let (j, round) = (var(0), var(1));
    let (next, again) = (add(j.clone(), c(1)), add(round.clone(), c(1)));
    let p = Program {
        nodes: vec![
            node(Vec::new(), Vec::new(), Exit::Jump(1)),
            node(
                vec![PhiDef {
                    var: 1,
                    incoming: vec![(0, c(0)), (3, again.clone())],
                }],
                vec![op(0, start.clone(), false), op(1, end.clone(), true)],
                Exit::Jump(2),
            ),
            node(
                vec![PhiDef {
                    var: 0,
                    incoming: vec![(1, loaded(start)), (2, next.clone())],
                }],
                vec![op(2, element(param(1), j), true)],
                Exit::Branch {
                    cond: slt(next, loaded(end)),
                    then: 2,
                    otherwise: 3,
                },
            ),
            node(
                Vec::new(),
                Vec::new(),
                Exit::Branch {
                    cond: slt(again, c(2)),
                    then: 1,
                    otherwise: 4,
                },
            ),
            node(Vec::new(), Vec::new(), Exit::Return),
        ],
        vars: 2,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    };
    let t = walk(&p, loads(3), &launch(32, WarpOrder::default()), BUDGET);
    let val: Vec<_> = t.events.iter().filter(|e| e.inst == 2).collect();
    // Two entries of 8 iterations.
    assert_eq!(val.len(), 16);
    for lane in 0..32 {
        let first = t.lanes(val[0])[lane];
        let second = t.lanes(val[8])[lane];
        assert_eq!(second - first, 32 * BASED_SPACING, "lane {lane}");
    }
}

#[test]
fn fields_read_through_one_unknown_index_are_drawn_together() {
    // `p[s].x`, `p[s].y` (8-byte structs, parameter 1 given a 4096-byte
    // allocation at the launch) with `s` loaded from `start[c]`: an
    // unknown address within the allocation, drawn per lane. The two
    // loads' addresses differ by the constant 4, so they share one draw:
    // for every lane `p[s].y` is `p[s].x` + 4, inside the allocation. (A
    // draw each would put the fields 4 bytes apart only by chance.)
    let cell = Rc::new(Expr::Unknown(Why::Unsupported("fptosi".into())));
    let s = Rc::new(Expr::Loaded {
        from: element(param(0), cell),
        bytes: 4,
    });
    let x = add(param(1), mul(s, c(8)));
    let p = Program {
        nodes: vec![node(
            Vec::new(),
            vec![op(0, x.clone(), false), op(1, add(x, c(4)), true)],
            Exit::Return,
        )],
        vars: 0,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    };
    let t = walk(
        &p,
        loads(2),
        &Launch {
            extents: vec![(1, 0, 4096)],
            ..launch(32, WarpOrder::default())
        },
        BUDGET,
    );
    let at = |inst: u32| -> Vec<u64> {
        let e = t.events.iter().find(|e| e.inst == inst).unwrap();
        t.lanes(e).to_vec()
    };
    let (xs, ys) = (at(0), at(1));
    let base = Base::param_address(1) as u64;
    assert_eq!(xs.len(), 32);
    for (lane, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        assert_eq!(y, x + 4, "lane {lane}");
        assert!((base..base + 4096).contains(&x), "lane {lane}: {x:#x}");
    }
    // The lanes' draws differ (32 draws over 1,024 places).
    assert!(xs.iter().collect::<HashSet<_>>().len() > 16);
}
