//! Walks every warp of the co-resident blocks of one SM through a kernel's
//! [`Program`] and records the [`Trace`] of its global memory instructions
//! (issue 7 item 3).
//!
//! - A warp runs its lanes together: at each step it picks the lanes whose
//!   next block comes first in reverse post-order and runs that block for
//!   them, so divergent branches run both sides with their masks and lanes
//!   reconverge where the paths meet (the min-PC rule of SIMT simulators).
//! - Phis are per-lane variables, assigned on each edge: loops run
//!   iteration by iteration with the trip counts that constants and known
//!   arguments give.
//! - A condition that cannot be computed for a lane (it reads memory, or an
//!   argument nobody gave): a loop's exit test keeps the lane in the loop
//!   for [`Budget::unknown_trip`] iterations, or as many as clamps allow
//!   where they bound the test (`Program::test_bounds`: `for (y = max(c -
//!   1, 0); y <= min(c + 1, n - 1); y++)`, 3); any other branch sends it into
//!   the code it guards (the paper's assumption: an unknown guard leaves
//!   every thread active); a `switch` takes its default, or, when the
//!   default is a dead end (a switch that covers every value), the case
//!   its linear thread id picks modulo the number of cases.
//! - Addresses: block-uniform unknowns read as stand-ins (a 256-byte aligned
//!   base, `evaluate::Standin::Low`), per-thread unknowns as a synthetic
//!   address of their own ([`UNKNOWN_REGION`]), unless they are bounded.
//! - Bounded unknowns: when the interval of a lane's address (`bounds`: its
//!   known values as points, each unknown leaf the full range of its type)
//!   spans at most [`crate::model::trace::MAX_BOUNDED_SPAN`] bytes, the lane reads a
//!   pseudo-random address within it, aligned to the access size (a CUDA
//!   access is naturally aligned, so every real address is one of those),
//!   drawn from a hash of (instruction, block, warp, lane, execution): the
//!   same walk gives the same trace. The draw is uniform over the range,
//!   and the cache/bypass decision on such a load hinges on that
//!   assumption. It is the one to make: over a range smaller than L1,
//!   caching misses at most once per line whatever the distribution, so its
//!   cost barely depends on it; uniform spread is the worst case for
//!   bypassing (the most distinct sectors per warp) and close to the worst
//!   for caching (it touches every line of the range); a concentrated
//!   distribution (a skewed histogram) only helps caching. Only instructions whose
//!   address reads no stand-in are bounded; the others, and those whose
//!   stand-in shift varied, keep synthetic addresses.
//! - A known stride under an unknown start (issue 19 fact 12): a loop
//!   variable whose value on entering its loop is unknown for a lane
//!   (`j = rowptr[r]`) takes a value relative to a synthetic start of its
//!   own, numbered per lane and loop entry (`unknowns::START_OFFSETS`), and
//!   keeps its known step (`++j`);
//!   an address affine in it (`val[j]`, `col[j]`) lands in that start's own
//!   region (`unknowns::BASED_REGION`), so consecutive iterations read consecutive
//!   words while lanes with unknown starts share nothing. A branch that
//!   reads such a variable is unknown (`j < 10` says nothing of the real
//!   j). Addresses that also read a stand-in keep synthetic unknowns.
//!   [`Walked::accesses`] says which instructions had such addresses, and
//!   which were gathers (an unknown address read from memory, `x[col[j]]`).
//!   Where the start's array has an allocation the launch shows, the
//!   caller places the run inside it (`allocations::starts_in_allocations`).
//! - Fields through one unknown index (`p[s].x`, `p[s].y`): instructions
//!   whose addresses differ by a constant share one draw, the constant
//!   added (`unknowns::draw_groups`).
//! - Interleaving (issue 19): a warp issues its memory instructions back
//!   to back until one waits on a load in flight (`MemOp::waits`) or it
//!   reaches a block barrier (`Node::barriers`); [`Launch::order`] picks
//!   the next warp (`schedule`: greedy-then-oldest by default, or
//!   round-robin), and a barrier holds a warp until its block's live warps
//!   reach one.
//! - Budgets: at most [`Budget::iterations`] iterations per loop entry, and
//!   at most [`Budget::accesses`] thread-accesses in all; with
//!   [`walk_limited`], also at most [`Limits::evaluations`] evaluation steps
//!   and a deadline. The trace says which cut it (`Trace::truncated`, and
//!   [`Walked::cut`]). Nothing is extrapolated: figures are for the
//!   simulated part of the kernel, the same part for every policy.
//! - Addresses, phis and exit tests are evaluated as [`Tape`]s (a test as
//!   a [`CondTape`]) for the lanes that run a block together: each distinct
//!   node of an expression once per lane group, so a hash chain costs its
//!   length, and a node whose operands every lane shares (the block's id, a
//!   loop counter) once for the group. A warp keeps its lanes' thread ids
//!   and variables in rows too (`Leaves`), which the tapes read whole.
//!
//! Pure: program and launch in, trace out. No IR, no cache.
//!
//! Length (about 1,600 lines): the walker is one state machine (lane
//! groups, evaluation buffers, budgets) whose steps share that state, and
//! `issue`, the step that gives each lane its address under every rule
//! above, is most of it. What stands apart lives beside it: the scheduler
//! (`schedule`), the unknown-address rules (`unknowns`), the lanes that
//! load one value (`sharing`), the launch's allocations (`allocations`),
//! CFG facts and specialisation (`program`).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::Instant;

use crate::facts::address::{Expr, Sreg, E};
use crate::facts::bounds::Interval;
use crate::facts::evaluate::{eval, thread_coords, Env, Standin};
use crate::facts::geometry::Dim3;
use crate::facts::memory::Memory;
use crate::facts::tape::{all_lanes, per_lane, uniform, CondTape, Lanes, Rows, Tape};
use crate::facts::traffic::WARP_SIZE;
use crate::model::allocations::{extents, within};
use crate::model::program::{guarded_sides, specialised, Exit, Program, Shape};
use crate::model::schedule::{Issued, Scheduler, WarpOrder};
use crate::model::sharing::{Sharing, SHARED_PROBE};
use crate::model::trace::{Event, Instruction, Trace, UNKNOWN_REGION, UNKNOWN_SPACING};
use crate::model::unknowns::{
    based_address, cond_variables, draw_groups, loaded_addresses, shift_region, standin_uses,
    variables, Based, Range, Standins, START_OFFSETS,
};

/// The loop variables an expression reads, with their coefficients
/// (`unknowns::variables`).
type Variables = Vec<(u32, Option<i64>)>;

/// How much of the kernel is walked.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Iterations of one loop per entry (per lane).
    pub iterations: u32,
    /// Iterations of a loop whose exit test cannot be computed.
    pub unknown_trip: u32,
    /// Thread-accesses in the whole trace.
    pub accesses: u64,
    /// Blocks entered by all warps together: bounds the walk's time (a loop
    /// nest without memory accesses costs steps but no thread-accesses).
    pub steps: u64,
}

pub const DEFAULT_BUDGET: Budget = Budget {
    iterations: 64,
    unknown_trip: 8,
    accesses: 1 << 19,
    steps: 1 << 16,
};

/// Limits on the walk's work beyond [`Budget`]'s (issue 16): evaluation
/// steps (one expression node for one lane, [`Tape::cost`] per lane) and a
/// wall-clock deadline, the last resort. The deadline is the one limit
/// whose effect depends on the machine: a trace it cut says so
/// ([`Cut::WallTime`]).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub evaluations: u64,
    pub deadline: Option<Instant>,
}

impl Limits {
    pub const NONE: Limits = Limits {
        evaluations: u64::MAX,
        deadline: None,
    };
}

/// Which limit ended the walk early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// [`Budget::accesses`].
    Accesses,
    /// [`Budget::steps`], or a warp's own step limit.
    Steps,
    /// [`Limits::evaluations`].
    Evaluations,
    /// [`Limits::deadline`].
    WallTime,
}

/// A trace and what it cost.
pub struct Walked {
    pub trace: Trace,
    /// Evaluation steps spent (see [`Limits`]).
    pub evaluations: u64,
    /// The limit that stopped the walk before every warp finished, if one did
    /// (loops cut at [`Budget::iterations`] still finish).
    pub cut: Option<Cut>,
    /// Per instruction, what its addresses were made of.
    pub accesses: Vec<AccessFacts>,
    /// Some loop ran the [`Budget::unknown_trip`] iterations because its
    /// exit test could not be computed: the trace's iteration counts there
    /// are a guess, not the kernel's (`model::read_once` needs them real).
    pub guessed_trips: bool,
    /// Some other branch or switch could not be computed and sent lanes
    /// the way the rules above say: code they skipped may run for real.
    pub guessed_paths: bool,
    /// Per unknown start (number - 1, its region `unknowns::based_address`
    /// chose from it): the row its run belongs to, with the phi variable,
    /// when runs from that variable are stored row after row
    /// (`Program::packed_starts`).
    pub packed_bases: Vec<Option<(u32, i64)>>,
    /// Per instruction: the allocation its addresses lie within, where the
    /// launch shows one (`Launch::extents`; `allocations::extents`).
    pub extents: Vec<Option<Interval>>,
}

/// What the walk found of one instruction's addresses (issue 19 fact 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessFacts {
    /// Some address was a known offset from a lane's unknown start (in the
    /// start's own region): its stride is modelled, its start is not.
    pub based: bool,
    /// Some address was a synthetic unknown computed from a value loaded
    /// per thread (`x[col[j]]`): a data-dependent gather, which the
    /// decision layer may treat as a scenario (it shares nothing here).
    pub gather: bool,
    /// Some address read a block-uniform stand-in (an argument or value
    /// nobody gave): where it really points is an assumption, so how it
    /// overlaps other accesses is no evidence (`model::read_once`).
    pub standin: bool,
    /// Some address read a phi (a per-thread variable): where a guessed
    /// path chose the value it merged (`Walked::guessed_paths`), the
    /// address is a guess too (`model::read_once`).
    pub phi: bool,
    /// Some unknown address was bounded by its parameter's allocation
    /// (`Launch::extents`) and by nothing narrower.
    pub in_allocation: bool,
}

/// Limit checks between two looks at the clock.
const CLOCK_EVERY: u64 = 1 << 10;

/// What one SM runs: the block shape, the co-resident blocks' ids, the
/// grid (if known) and the argument values given.
#[derive(Clone, Debug)]
pub struct Launch {
    pub block: Dim3,
    pub grid: Option<Dim3>,
    pub blocks: Vec<[i64; 3]>,
    pub args: HashMap<u32, i64>,
    /// Kernel data the user bound.
    pub memory: Option<Rc<Memory>>,
    /// How the SM picks the warp that issues next.
    pub order: WarpOrder,
    /// The allocation a pointer parameter (by index) is given at the
    /// launch, where the host code shows it: (parameter, bytes before the
    /// pointer, bytes from it on). An address through that parameter alone
    /// lies within it (an access outside its allocation is undefined
    /// behaviour), so an unknown index into it is bounded.
    pub extents: Vec<(u32, u64, u64)>,
}

/// A lane's environment and unknown starts; where it is, and its
/// variables, are its warp's (`Warp`, `Leaves`), in rows.
struct Lane {
    /// Brought up to date (stand-in, variables) only before something
    /// reads more of it than ids: see `Warp::prepare`.
    env: Env,
    /// Per loop variable: 0, or the number of the unknown start its value
    /// is relative to (`unknowns::Based`).
    bases: Vec<u32>,
}

/// Where a warp is in the block it runs.
struct Position {
    node: u32,
    lanes: Vec<usize>,
    /// The next memory op, and the next barrier, of the block.
    op: usize,
    barrier: usize,
}

/// A warp's thread ids and phi variables in rows (a value per lane), so
/// that a tape reads a row at once rather than each lane's [`Env`]. The
/// variables live here; a lane's `Env::vars` is a copy that
/// `Warp::prepare` refreshes before a tape reads the environment.
struct Leaves {
    /// By axis.
    tid: [Vec<i64>; 3],
    ctaid: [i64; 3],
    /// By variable, a row of the warp's lanes (junk where unknown)...
    vars: Vec<Vec<i64>>,
    /// ... and the lanes that know it...
    known: Vec<u64>,
    /// ... and whether every lane knows it and all hold one value (a loop
    /// counter): a tape that reads it then fills its row with that value,
    /// with no copy or comparison per lane.
    same: Vec<bool>,
}

impl Leaves {
    /// Variable `var` of each lane of `lanes` takes its value in `values`.
    fn set(&mut self, var: u32, lanes: &[usize], values: &[Option<i64>]) {
        let (row, known) = (&mut self.vars[var as usize], &mut self.known[var as usize]);
        let (mut group, mut knows) = (0u64, 0u64);
        for (&l, v) in lanes.iter().zip(values) {
            row[l] = v.unwrap_or(0);
            group |= 1 << l;
            knows |= u64::from(v.is_some()) << l;
        }
        *known = (*known & !group) | knows;
        self.same[var as usize] =
            *known == all_lanes(row.len()) && row.iter().all(|&v| v == row[0]);
    }

    /// [`Leaves::set`] where every lane of `lanes` takes the value `v`
    /// (a loop counter's `k + 1`): the whole warp's row is filled at once.
    fn fill(&mut self, var: u32, lanes: &[usize], v: i64) {
        let (row, known) = (&mut self.vars[var as usize], &mut self.known[var as usize]);
        // The lanes are distinct and in increasing order: all of them.
        if lanes.len() == row.len() {
            row.fill(v);
            *known = all_lanes(row.len());
            self.same[var as usize] = true;
            return;
        }
        let mut group = 0u64;
        for &l in lanes {
            row[l] = v;
            group |= 1 << l;
        }
        *known |= group;
        self.same[var as usize] =
            *known == all_lanes(row.len()) && row.iter().all(|&v| v == row[0]);
    }
}

/// The lanes `lanes` of a warp, for a tape.
struct Group<'w> {
    lanes: &'w [usize],
    warp: &'w [Lane],
    leaves: &'w Leaves,
}

impl<'w> Group<'w> {
    fn of(w: &'w Warp, lanes: &'w [usize]) -> Group<'w> {
        Group {
            lanes,
            warp: &w.lanes,
            leaves: &w.leaves,
        }
    }

    /// `row` from a row of the warp's lanes, and its known mask from
    /// theirs (`known`).
    fn gather(&self, from: &[i64], known: u64, row: &mut [i64]) -> (u64, bool) {
        let n = self.lanes.len();
        // The lanes are in increasing order: 0..n are the first n.
        if n > 0 && self.lanes[n - 1] == n - 1 {
            row.copy_from_slice(&from[..n]);
            let known = known & all_lanes(n);
            return (known, uniform(row, known));
        }
        let mut mask = 0;
        for (i, (v, &l)) in row.iter_mut().zip(self.lanes).enumerate() {
            *v = from[l];
            mask |= (known >> l & 1) << i;
        }
        (mask, uniform(row, mask))
    }
}

impl Lanes for Group<'_> {
    fn count(&self) -> usize {
        self.lanes.len()
    }

    fn env(&self, lane: usize) -> &Env {
        &self.warp[self.lanes[lane]].env
    }

    fn sreg(&self, s: Sreg, row: &mut [i64]) -> (u64, bool) {
        match s {
            Sreg::Tid(a) => self.gather(&self.leaves.tid[a as usize], !0, row),
            // One block per warp.
            Sreg::Ctaid(a) => {
                row.fill(self.leaves.ctaid[a as usize]);
                (all_lanes(row.len()), true)
            }
            _ => per_lane(row, |l| self.env(l).sreg(s)),
        }
    }

    fn var(&self, var: u32, row: &mut [i64]) -> (u64, bool) {
        match self.leaves.vars.get(var as usize) {
            // What `gather` would find: every lane knows the one value.
            Some(from) if self.leaves.same[var as usize] => {
                row.fill(from[0]);
                (all_lanes(row.len()), true)
            }
            Some(from) => self.gather(from, self.leaves.known[var as usize], row),
            None => {
                row.fill(0);
                (0, true)
            }
        }
    }
}

/// What a warp did at its turn (see `schedule::Issued`).
enum Step {
    /// A memory instruction; `true`: the warp waits after it.
    Event(Event, bool),
    Barrier,
    Exited,
}

struct Warp {
    slot: u32,
    index: u32,
    lanes: Vec<Lane>,
    /// The lanes' ids and variables again, lane after lane, as the tapes
    /// read them.
    leaves: Leaves,
    /// The block being run and the lanes running it.
    current: Option<Position>,
    /// The lane list of the last block run, for the next.
    spare: Vec<usize>,
    /// Per lane: the block it runs next, and whether it returned.
    at: Vec<u32>,
    done: Vec<bool>,
    /// The lanes that have not returned.
    live: usize,
    /// Per node and lane (`[node * lanes + lane]`): iterations done of the
    /// loop the node heads, this entry.
    trips: Vec<u32>,
    executions: Vec<u32>,
    steps: u64,
}

impl Warp {
    /// Brings the environments of `lanes` up to date before a tape reads
    /// more of them than ids and variables (`Tape::reads_env`): their
    /// stand-in, and their variables from the rows the walk keeps.
    fn prepare(&mut self, lanes: &[usize], standin: Standin) {
        let leaves = &self.leaves;
        for &l in lanes {
            let env = &mut self.lanes[l].env;
            env.standin = standin;
            for (v, (row, known)) in
                (env.vars.iter_mut()).zip(leaves.vars.iter().zip(&leaves.known))
            {
                *v = (known >> l & 1 != 0).then(|| row[l]);
            }
        }
    }
}

/// A node's exit test, compiled for lane groups.
enum ExitTape {
    /// A jump or a return: nothing to compute.
    Fixed,
    Branch(CondTape),
    Switch(Tape),
}

/// A limit on blocks entered per warp: a loop without memory instructions
/// whose exit the budget cannot see still ends.
const MAX_STEPS: u64 = 1 << 20;

struct Walker<'p> {
    program: &'p Program,
    standins: Vec<Standins>,
    /// Per instruction and co-resident block: the shift of the first
    /// stand-in-dependent address; `varying`: whether another thread of the
    /// same block moved by another amount (then the stand-ins scale the
    /// thread's position: unknown per thread).
    shift: Vec<Option<i64>>,
    blocks: usize,
    /// Each memory instruction's address (`[node][op]`) and each phi's
    /// incoming values (`[node][phi]`), compiled once.
    address_tapes: Vec<Vec<Tape>>,
    /// Per address (`[node][op]`): whether it reads what `Warp::prepare`
    /// refreshes (`reads_lane_state`).
    addresses_read_env: Vec<Vec<bool>>,
    phi_tapes: Vec<Vec<Vec<(u32, Tape)>>>,
    /// Per node: whether evaluating its phis reads the lanes' stand-ins
    /// (a phi's tape reads them, or a packed start is evaluated).
    phis_read_env: Vec<bool>,
    /// The loop variables each address, phi incoming value and exit reads
    /// (`unknowns::variables`), for the unknown-start rule.
    address_vars: Vec<Vec<Variables>>,
    phi_vars: Vec<Vec<Vec<Variables>>>,
    exit_vars: Vec<Vec<u32>>,
    /// Whether each instruction's address reads a value loaded per thread.
    loaded: Vec<bool>,
    /// Unknown starts numbered so far (0: none; the walk's fast paths).
    bases: u32,
    /// Per start number (from 1, at index number - 1): the row its run
    /// belongs to when its phi variable's runs are stored row after row
    /// (`Program::packed_starts`), with that variable.
    packed_bases: Vec<Option<(u32, i64)>>,
    accesses: Vec<AccessFacts>,
    /// Each node's exit test, compiled once.
    exit_tapes: Vec<ExitTape>,
    /// Per branch node whose exit test may leave a loop: the loop's
    /// header, the side that leaves and the side that stays.
    loop_exits: Vec<Option<(u32, u32, u32)>>,
    /// Per such node: the most times its test can keep the loop going from
    /// the loop's entry, where clamps bound it (`Program::test_bounds`).
    stay_bounds: Vec<Option<u32>>,
    /// Buffers of the batched evaluation.
    rows: Rows,
    /// Rows of the phis' tapes and of the exit tests', apart from the
    /// addresses': a tape's rows are zeroed where they grow (`Rows`), so
    /// one buffer taken in turn by tapes of different lengths (an address,
    /// then `k + 1`, then the next address) was zeroed every few steps (by
    /// `perf`, 4 % of the walk of a coalesced loop).
    phi_rows: Rows,
    test_rows: Rows,
    low: Vec<Option<i64>>,
    high: Vec<Option<i64>>,
    phi_lanes: Vec<Vec<Option<i64>>>,
    phi_bases: Vec<Vec<u32>>,
    /// Per phi, `enter_group`'s value shared by every lane, if one is.
    phi_same: Vec<Option<i64>>,
    /// Per phi of a loop entered, per lane: what tells lanes that start
    /// from one loaded value apart (`Expr::Loaded`: the loads' addresses),
    /// and the start's value with the loads read as 0 and as
    /// [`SHARED_PROBE`] (`relative_phis` gives such lanes one start).
    phi_keys: Vec<Vec<Option<StartKey>>>,
    moves: Vec<(usize, u32)>,
    targets: Vec<u32>,
    entering: Vec<usize>,
    varying: Vec<bool>,
    shape: Shape,
    /// For each branch node, the side an unknown condition takes.
    guarded: Vec<u32>,
    budget: Budget,
    next_unknown: u64,
    /// Per instruction: the widest range its bounded unknowns were drawn
    /// from, and whether some unknown of it was not bounded.
    spans: Vec<Option<u64>>,
    /// Per instruction: the bytes its addresses lie within, from the
    /// allocation of the one parameter they are based on (`Launch::extents`).
    extent: Vec<Option<Interval>>,
    unbounded: Vec<bool>,
    /// Per instruction: the union of the ranges its bounded unknowns were
    /// drawn from (`Trace::reach`).
    reach: Vec<Option<(u64, u64)>>,
    /// Buffer of [`Tape::interval`].
    intervals: Vec<Interval>,
    /// Lanes that load one value ([`Sharing::share`]).
    sharing: Sharing,
    truncated: Option<String>,
    guessed_trips: bool,
    guessed_paths: bool,
    /// Per instruction: the first instruction whose address differs from
    /// its own by a constant, and that constant (`unknowns::draw_groups`).
    draw_groups: Vec<(u32, i64)>,
    total_steps: u64,
    limits: Limits,
    evaluations: u64,
    cut: Option<Cut>,
    /// Calls of `over_limit`, for the clock.
    looks: u64,
}

/// The trace of one SM running `program` under `launch`.
pub fn walk(
    program: &Program,
    instructions: Vec<Instruction>,
    launch: &Launch,
    budget: Budget,
) -> Trace {
    walk_limited(program, instructions, launch, budget, Limits::NONE).trace
}

/// [`walk`] within `limits` too, with what the walk cost.
pub fn walk_limited(
    program: &Program,
    instructions: Vec<Instruction>,
    launch: &Launch,
    budget: Budget,
    limits: Limits,
) -> Walked {
    let program = &specialise(program, launch);
    let shape = Shape::of(program);
    let guarded = guarded_sides(program, &shape);
    let standins = standin_uses(program, instructions.len());
    let phi_tapes: Vec<Vec<Vec<(u32, Tape)>>> = (program.nodes.iter())
        .map(|n| {
            (n.phis.iter())
                .map(|p| p.incoming.iter().map(|(b, e)| (*b, Tape::of(e))).collect())
                .collect()
        })
        .collect();
    let phis_read_env = (program.nodes.iter())
        .map(|n| {
            !program.packed_starts.is_empty()
                || (n.phis.iter().flat_map(|p| &p.incoming)).any(|(_, e)| reads_lane_state(e))
        })
        .collect();
    let mut walker = Walker {
        program,
        standins,
        shift: vec![None; instructions.len() * launch.blocks.len().max(1)],
        blocks: launch.blocks.len().max(1),
        address_tapes: (program.nodes.iter())
            .map(|n| n.ops.iter().map(|m| Tape::of(&m.address)).collect())
            .collect(),
        addresses_read_env: (program.nodes.iter())
            .map(|n| n.ops.iter().map(|m| reads_lane_state(&m.address)).collect())
            .collect(),
        phis_read_env,
        phi_tapes,
        address_vars: (program.nodes.iter())
            .map(|n| n.ops.iter().map(|m| variables(&m.address)).collect())
            .collect(),
        phi_vars: (program.nodes.iter())
            .map(|n| {
                (n.phis.iter())
                    .map(|p| p.incoming.iter().map(|(_, e)| variables(e)).collect())
                    .collect()
            })
            .collect(),
        exit_vars: (program.nodes.iter())
            .map(|n| match &n.exit {
                Exit::Branch { cond, .. } => cond_variables(cond),
                Exit::Switch { on, .. } => variables(on).into_iter().map(|v| v.0).collect(),
                _ => Vec::new(),
            })
            .collect(),
        loaded: loaded_addresses(program, instructions.len()),
        bases: 0,
        packed_bases: Vec::new(),
        accesses: vec![AccessFacts::default(); instructions.len()],
        exit_tapes: (program.nodes.iter())
            .map(|n| match &n.exit {
                Exit::Branch { cond, .. } => ExitTape::Branch(CondTape::of(cond)),
                Exit::Switch { on, .. } => ExitTape::Switch(Tape::of(on)),
                _ => ExitTape::Fixed,
            })
            .collect(),
        loop_exits: (program.nodes.iter().enumerate())
            .map(|(b, n)| match n.exit {
                Exit::Branch {
                    then, otherwise, ..
                } => {
                    let leaves = |to: u32| shape.exited_loop(b as u32, to);
                    match (leaves(then), leaves(otherwise)) {
                        (Some(h), None) => Some((h, then, otherwise)),
                        (None, Some(h)) => Some((h, otherwise, then)),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect(),
        stay_bounds: Vec::new(),
        rows: Rows::default(),
        phi_rows: Rows::default(),
        test_rows: Rows::default(),
        low: Vec::new(),
        high: Vec::new(),
        phi_lanes: Vec::new(),
        phi_bases: Vec::new(),
        phi_same: Vec::new(),
        phi_keys: Vec::new(),
        moves: Vec::new(),
        targets: Vec::new(),
        entering: Vec::new(),
        varying: vec![false; instructions.len()],
        shape,
        guarded,
        budget,
        next_unknown: 0,
        spans: vec![None; instructions.len()],
        extent: extents(program, instructions.len(), &launch.extents),
        unbounded: vec![false; instructions.len()],
        reach: vec![None; instructions.len()],
        intervals: Vec::new(),
        sharing: Sharing::default(),
        truncated: None,
        guessed_trips: false,
        guessed_paths: false,
        draw_groups: draw_groups(program, instructions.len()),
        total_steps: 0,
        limits,
        evaluations: 0,
        cut: None,
        looks: 0,
    };
    walker.stay_bounds = stay_bounds(program, &walker.loop_exits);
    let mut warps = warps(program, launch, instructions.len());
    let mut trace = Trace {
        instructions,
        blocks: launch.blocks.len() as u32,
        warps_per_block: launch.block.count().div_ceil(WARP_SIZE as u64) as u32,
        ..Trace::default()
    };
    reserve(&mut trace, budget);
    let mut scheduler = Scheduler::new(
        launch.order,
        launch.blocks.len(),
        trace.warps_per_block as usize,
    );
    while let Some(i) = scheduler.pick() {
        if let Some(cut) = walker.over_limit(&trace) {
            walker.cut = Some(cut);
            break;
        }
        // The event's addresses go straight to the trace's.
        let start = trace.addresses.len();
        let issued = match walker.next_event(&mut warps[i], &mut trace.addresses) {
            Step::Event(e, waits) => {
                trace.push_appended(e, start);
                if waits {
                    Issued::Waits
                } else {
                    Issued::Burst
                }
            }
            Step::Barrier => Issued::Barrier,
            Step::Exited => Issued::Exited,
        };
        scheduler.issued(i, issued);
    }
    walker.forget_varying(&mut trace);
    trace.bounded = (walker.spans.iter().zip(&walker.unbounded))
        .map(|(s, &u)| s.filter(|_| !u))
        .collect();
    trace.reach = (walker.reach.iter().zip(&trace.bounded))
        .map(|(r, b)| r.filter(|_| b.is_some()))
        .collect();
    trace.truncated = walker.truncated;
    trace.addresses.shrink_to_fit();
    trace.events.shrink_to_fit();
    Walked {
        trace,
        evaluations: walker.evaluations,
        cut: walker.cut,
        accesses: walker.accesses,
        guessed_trips: walker.guessed_trips,
        guessed_paths: walker.guessed_paths,
        extents: walker.extent,
        packed_bases: walker.packed_bases,
    }
}

/// A lane's loop start read from memory (`Walker::phi_keys`): its loads'
/// addresses, and the start with the loads read as 0 and as
/// [`SHARED_PROBE`].
type StartKey = (Vec<i64>, i64, i64);

/// The most thread-accesses whose room [`reserve`] takes up front: 64 MiB
/// of addresses, more than any budget the driver grants (`sm_model`: at
/// most 2^21).
const RESERVED_ACCESSES: u64 = 1 << 23;

/// Takes room in `trace` for the addresses the budget allows (and an event
/// per full warp of them) before the walk. A vector that grows by doubling
/// copies what it holds at each step into fresh memory, whose pages the
/// system supplies (and zeroes) as they are first written: the walks of the
/// `model` bench took 3-6 % less time on the CPU without those copies. Room
/// not used is address space only, and is given back when the walk ends.
/// Where the room cannot be had, the vectors grow as they fill.
fn reserve(trace: &mut Trace, budget: Budget) {
    // The budget is checked before each event: the last may pass it by a
    // warp's lanes.
    let accesses = budget.accesses.min(RESERVED_ACCESSES) as usize + WARP_SIZE;
    let _ = trace.addresses.try_reserve_exact(accesses);
    let _ = trace.events.try_reserve_exact(accesses / WARP_SIZE);
}

/// Whether evaluating `e` for a lane reads what `Warp::prepare` refreshes
/// in its environment, the stand-ins and the variables: through the nodes a
/// [`Tape`] evaluates one lane at a time (`Tape::reads_env`), an argument
/// nobody gave, a uniform load, a `select` or bound data, but not a
/// per-thread unknown, whose value is unknown whatever the environment
/// says (and whose interval is its type's, `bounds::interval`). A gather
/// (`x[col[j]]`) so reads none, and its lanes' environments need no
/// refresh (by `perf`, 3 % of the walk of one).
fn reads_lane_state(e: &E) -> bool {
    fn visit(e: &E, seen: &mut HashSet<*const Expr>) -> bool {
        // A node shared in the DAG (a hash chain's state) is seen once.
        if !seen.insert(Rc::as_ptr(e)) {
            return false;
        }
        match &**e {
            Expr::Const(_) | Expr::Sreg(_) | Expr::Rec(_) | Expr::Base(_) | Expr::Unknown(_) => {
                false
            }
            Expr::Bin { lhs, rhs, .. } => visit(lhs, seen) || visit(rhs, seen),
            Expr::Cast { value, .. } => visit(value, seen),
            Expr::AddRec { start, .. } => visit(start, seen),
            // Its address is evaluated like any other expression.
            Expr::Loaded { from, .. } => visit(from, seen),
            Expr::Arg { .. } | Expr::Uniform { .. } | Expr::Select { .. } | Expr::Data { .. } => {
                true
            }
        }
    }
    visit(e, &mut HashSet::new())
}

/// Whether the lanes `lanes` (distinct, in increasing order) have all done
/// the same iterations (`trips`, a warp's, by lane).
fn same_trips(trips: &[u32], lanes: &[usize]) -> bool {
    match lanes {
        [] => true,
        // The first n lanes: a row compared without a look-up per lane.
        [.., last] if *last == lanes.len() - 1 => {
            trips[..lanes.len()].iter().all(|&t| t == trips[0])
        }
        [first, ..] => lanes.iter().all(|&l| trips[l] == trips[*first]),
    }
}

/// `program` with what the launch fixes folded in (`program::specialise`).
fn specialise(program: &Program, launch: &Launch) -> Program {
    let mut env = Env::new(launch.block, launch.grid, launch.args.clone());
    env.memory = launch.memory.clone();
    specialised(program, &env)
}

fn warps(program: &Program, launch: &Launch, instructions: usize) -> Vec<Warp> {
    let mut base = Env::new(launch.block, launch.grid, launch.args.clone());
    base.memory = launch.memory.clone();
    base.vars = vec![None; program.vars as usize];
    let coords: Vec<[i64; 3]> = thread_coords(launch.block).collect();
    let mut out = Vec::new();
    for (slot, ctaid) in launch.blocks.iter().enumerate() {
        for (index, chunk) in coords.chunks(WARP_SIZE).enumerate() {
            let leaves = Leaves {
                tid: [0, 1, 2].map(|a| chunk.iter().map(|t| t[a]).collect()),
                ctaid: *ctaid,
                vars: vec![vec![0; chunk.len()]; program.vars as usize],
                known: vec![0; program.vars as usize],
                same: vec![false; program.vars as usize],
            };
            let lanes = chunk
                .iter()
                .map(|tid| {
                    let mut env = base.clone();
                    env.tid = *tid;
                    env.ctaid = *ctaid;
                    Lane {
                        env,
                        bases: vec![0; program.vars as usize],
                    }
                })
                .collect();
            out.push(Warp {
                slot: slot as u32,
                index: index as u32,
                lanes,
                leaves,
                current: None,
                spare: Vec::new(),
                at: vec![0; chunk.len()],
                done: vec![program.nodes.is_empty(); chunk.len()],
                live: if program.nodes.is_empty() {
                    0
                } else {
                    chunk.len()
                },
                trips: vec![0; program.nodes.len() * chunk.len()],
                executions: vec![0; instructions],
                steps: 0,
            });
        }
    }
    out
}

impl Walker<'_> {
    /// The limit reached before the next event, if one is: thread-accesses,
    /// evaluation steps, and every [`CLOCK_EVERY`] looks the deadline.
    fn over_limit(&mut self, trace: &Trace) -> Option<Cut> {
        if trace.thread_accesses() >= self.budget.accesses {
            self.truncated = Some(format!(
                "stopped after {} thread-accesses (budget)",
                self.budget.accesses
            ));
            return Some(Cut::Accesses);
        }
        if self.evaluations >= self.limits.evaluations {
            self.truncated = Some(format!(
                "stopped after {} evaluation steps (budget)",
                self.limits.evaluations
            ));
            return Some(Cut::Evaluations);
        }
        self.looks += 1;
        let late = |d: Instant| Instant::now() >= d;
        if self.looks.is_multiple_of(CLOCK_EVERY) && self.limits.deadline.is_some_and(late) {
            self.truncated = Some("stopped at the wall-time guard (machine-dependent)".into());
            return Some(Cut::WallTime);
        }
        None
    }

    /// Makes the addresses of instructions whose stand-in shift varied
    /// unknown per thread: their stand-in addresses would invent reuse
    /// (`out[y * w + x]` with `w` unknown reads as `out[x]` for every row).
    fn forget_varying(&mut self, trace: &mut Trace) {
        if !self.varying.iter().any(|&v| v) {
            return;
        }
        for e in trace.events.iter_mut() {
            if !self.varying[e.inst as usize] {
                continue;
            }
            e.unknown = true;
            self.unbounded[e.inst as usize] = true;
            let range = e.start as usize..(e.start + e.lanes) as usize;
            for a in &mut trace.addresses[range] {
                self.next_unknown += 1;
                *a = UNKNOWN_REGION + self.next_unknown * UNKNOWN_SPACING;
            }
        }
    }

    /// The warp's next step: a memory event (its active lanes' addresses
    /// into `addresses`), a barrier, or its exit.
    fn next_event(&mut self, w: &mut Warp, addresses: &mut Vec<u64>) -> Step {
        let program = self.program;
        // The block every live lane entered together, if they did: the
        // next group without a look at each lane.
        let mut together = None;
        loop {
            if let Some(mut at) = w.current.take() {
                let node = &program.nodes[at.node as usize];
                if node.barriers.get(at.barrier) == Some(&(at.op as u32)) {
                    at.barrier += 1;
                    w.current = Some(at);
                    return Step::Barrier;
                }
                if let Some(m) = node.ops.get(at.op) {
                    let event = self.issue(w, at.node, at.op, &at.lanes, addresses);
                    at.op += 1;
                    w.current = Some(at);
                    return Step::Event(event, m.waits);
                }
                let moved = self.leave_group(w, at.node, &at.lanes);
                together = moved.filter(|_| at.lanes.len() == w.live);
                w.spare = at.lanes;
            }
            w.steps += 1;
            self.total_steps += 1;
            if self.total_steps > self.budget.steps {
                self.truncated = Some(format!(
                    "stopped after {} block entries of all warps (budget)",
                    self.budget.steps
                ));
                self.cut.get_or_insert(Cut::Steps);
                return Step::Exited;
            }
            if w.steps > MAX_STEPS {
                self.truncated = Some(format!("a warp entered {MAX_STEPS} blocks"));
                self.cut.get_or_insert(Cut::Steps);
                return Step::Exited;
            }
            let mut lanes = std::mem::take(&mut w.spare);
            if let Some(node) = together {
                // What the pass below would find: these lanes, in order.
                w.current = Some(Position {
                    node,
                    lanes,
                    op: 0,
                    barrier: 0,
                });
                together = None;
                continue;
            }
            // The lanes whose next block comes first, in one pass.
            lanes.clear();
            let mut next = None;
            for (i, (&to, &done)) in w.at.iter().zip(&w.done).enumerate() {
                if done {
                    continue;
                }
                let rank = self.shape.rank[to as usize];
                match next {
                    Some((r, at)) if r < rank || (r == rank && at != to) => continue,
                    Some((r, _)) if r == rank => {}
                    _ => {
                        next = Some((rank, to));
                        lanes.clear();
                    }
                }
                lanes.push(i);
            }
            let Some((_, next)) = next else {
                w.spare = lanes;
                return Step::Exited;
            };
            w.current = Some(Position {
                node: next,
                lanes,
                op: 0,
                barrier: 0,
            });
        }
    }

    /// Lanes `lanes` of `w` execute memory op `op` of `node`: their
    /// addresses into `addresses`, and the event.
    fn issue(
        &mut self,
        w: &mut Warp,
        node: u32,
        op: usize,
        lanes: &[usize],
        addresses: &mut Vec<u64>,
    ) -> Event {
        let m = &self.program.nodes[node as usize].ops[op];
        let tape = &self.address_tapes[node as usize][op];
        let uses = self.standins[m.inst as usize];
        if self.addresses_read_env[node as usize][op] || uses != Standins::None {
            w.prepare(lanes, Standin::Low);
        }
        if uses != Standins::ThroughVariable {
            tape.run(&Group::of(w, lanes), &mut self.rows);
            self.evaluations += tape.cost() * lanes.len() as u64;
        }
        let execution = w.executions[m.inst as usize];
        w.executions[m.inst as usize] += 1;
        let vars = &self.address_vars[node as usize][op];
        let check = self.bases > 0 && !vars.is_empty();
        let facts = &mut self.accesses[m.inst as usize];
        facts.standin |= uses != Standins::None;
        facts.phi |= !vars.is_empty();
        let mut event = Event {
            inst: m.inst,
            block: w.slot,
            warp: w.index,
            execution,
            bytes: m.bytes,
            start: 0,
            lanes: 0,
            unknown: false,
        };
        // The common case: every lane's address known, absolute, and
        // free of stand-ins, as the tape computed it.
        if uses == Standins::None && !check {
            if let Some(row) = tape.known_row(&self.rows) {
                addresses.extend(row.iter().map(|&a| a as u64));
                return event;
            }
        }
        // A gather's `x[col[j]]`: no lane's address known, each absolute
        // and free of stand-ins, one range for the group and that one not
        // bounded: what the loop below gives, a synthetic address per lane,
        // without a look at each (by cachegrind, a tenth of the gather walk's
        // instructions went to that loop and its lanes' values).
        if uses == Standins::None
            && !check
            && tape.none_known(&self.rows)
            && tape.same_interval(&self.rows)
        {
            let env = &w.lanes[lanes[0]].env;
            let iv = tape.interval(env, 0, &self.rows, &mut self.intervals);
            if Range::within(within(iv, self.extent[m.inst as usize], m.bytes), m.bytes).is_none() {
                event.unknown = true;
                self.unbounded[m.inst as usize] = true;
                self.accesses[m.inst as usize].gather |= self.loaded[m.inst as usize];
                if self.sharing.share(
                    tape,
                    &self.rows,
                    &mut self.evaluations,
                    &Group::of(w, lanes),
                    |_, _| 0,
                    &[],
                ) {
                    for &s in &self.sharing.shared {
                        addresses.push(s.unwrap_or_else(|| {
                            self.next_unknown += 1;
                            UNKNOWN_REGION + self.next_unknown * UNKNOWN_SPACING
                        }));
                    }
                    return event;
                }
                let first = self.next_unknown;
                addresses.extend(
                    (1..=lanes.len() as u64)
                        .map(|i| UNKNOWN_REGION + (first + i) * UNKNOWN_SPACING),
                );
                self.next_unknown += lanes.len() as u64;
                return event;
            }
        }
        let (mut low, mut high) = (
            std::mem::take(&mut self.low),
            std::mem::take(&mut self.high),
        );
        low.clear();
        match uses {
            Standins::ThroughVariable => low.resize(lanes.len(), None),
            Standins::None | Standins::Direct => tape.values(&self.rows, &mut low),
        }
        if uses == Standins::Direct {
            for &l in lanes.iter() {
                w.lanes[l].env.standin = Standin::High;
            }
            tape.eval_lanes(&Group::of(w, lanes), &mut high, &mut self.rows);
            self.evaluations += tape.cost() * lanes.len() as u64;
            for &l in lanes.iter() {
                w.lanes[l].env.standin = Standin::Low;
            }
            let key = m.inst as usize * self.blocks + w.slot as usize;
            for (a, h) in low.iter_mut().zip(&high) {
                *a = a.zip(*h).map(|(low, high)| {
                    let shift = high.wrapping_sub(low);
                    let first = *self.shift[key].get_or_insert(shift);
                    if shift != first {
                        self.varying[m.inst as usize] = true;
                    }
                    if shift == 0 {
                        low
                    } else {
                        low.wrapping_add(shift_region(shift))
                    }
                });
            }
        }
        // Lanes that load one value share what follows from it.
        let sharing = uses == Standins::None
            && self.sharing.share(
                tape,
                &self.rows,
                &mut self.evaluations,
                &Group::of(w, lanes),
                |at, v| w.lanes[lanes[at]].bases[v as usize],
                vars,
            );
        let facts = &mut self.accesses[m.inst as usize];
        // The range of an unknown address, computed once for the group
        // when every lane would get the same.
        let same_range = uses == Standins::None && tape.same_interval(&self.rows);
        let mut shared: Option<Option<Range>> = None;
        for (at, (&l, a)) in lanes.iter().zip(&low).enumerate() {
            let based = if check {
                Based::of(vars, &w.lanes[l].bases)
            } else {
                Based::Absolute
            };
            let a = match based {
                Based::Absolute => *a,
                Based::On { base, .. } if uses == Standins::None => a.map(|a| {
                    facts.based = true;
                    based_address(a, base) as i64
                }),
                _ => None,
            };
            addresses.push(match a {
                Some(a) => a as u64,
                None => {
                    event.unknown = true;
                    let extent = self.extent[m.inst as usize];
                    let (leader, offset) = self.draw_groups[m.inst as usize];
                    let mut range_of = |lane: usize| {
                        let env = &w.lanes[lanes[lane]].env;
                        let iv = tape.interval(env, lane, &self.rows, &mut self.intervals);
                        let iv = Interval {
                            lo: iv.lo - i128::from(offset),
                            hi: iv.hi - i128::from(offset),
                        };
                        let bounded = within(iv, extent, m.bytes);
                        facts.in_allocation |= bounded != iv;
                        Range::within(bounded, m.bytes)
                    };
                    let range = match (
                        uses == Standins::None && based == Based::Absolute,
                        same_range,
                    ) {
                        // Stand-ins or an unknown start hide the interval,
                        // but not the allocation: an address through the
                        // parameter lies within it whatever its index.
                        // Lanes that load one value keep their shared
                        // place (`Sharing::share`) rather than a draw each.
                        (false, _) => {
                            let shared_here =
                                sharing && self.sharing.shared.get(at).copied().flatten().is_some();
                            let r = extent
                                .filter(|_| !shared_here)
                                .and_then(|e| Range::within(within(e, extent, m.bytes), m.bytes));
                            facts.in_allocation |= r.is_some();
                            r
                        }
                        (true, false) => range_of(at),
                        (true, true) => *shared.get_or_insert_with(|| range_of(at)),
                    };
                    match range {
                        Some(r) => {
                            let span = &mut self.spans[m.inst as usize];
                            *span = Some(span.unwrap_or(0).max(r.span(m.bytes)));
                            // The group's range, moved to this instruction's place.
                            let (lo, hi) = r.reach(m.bytes);
                            let (lo, hi) = (
                                lo.wrapping_add(offset as u64),
                                hi.wrapping_add(offset as u64),
                            );
                            let reach = &mut self.reach[m.inst as usize];
                            *reach = Some(reach.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
                            let key = [leader, w.slot, w.index, l as u32, execution];
                            r.draw(key).wrapping_add(offset as u64)
                        }
                        None => {
                            self.unbounded[m.inst as usize] = true;
                            facts.gather |= self.loaded[m.inst as usize];
                            match self
                                .sharing
                                .shared
                                .get(at)
                                .copied()
                                .flatten()
                                .filter(|_| sharing)
                            {
                                Some(a) => a,
                                None => {
                                    self.next_unknown += 1;
                                    UNKNOWN_REGION + self.next_unknown * UNKNOWN_SPACING
                                }
                            }
                        }
                    }
                }
            });
        }
        (self.low, self.high) = (low, high);
        event
    }

    /// Moves a group of lanes out of `node`, each along the edge its exit
    /// takes; the lanes entering one block get their phis evaluated
    /// together (`Tape::eval_lanes`). The block they all entered, if every
    /// lane of the group went the same way (none returned).
    fn leave_group(&mut self, w: &mut Warp, node: u32, lanes: &[usize]) -> Option<u32> {
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let all = self.exits(w, node, lanes, &mut moves);
        self.moves = moves;
        if let Some(t) = all {
            self.enter_group(w, node, t, lanes);
            return Some(t);
        }
        let moves = std::mem::take(&mut self.moves);
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        let mut last = None;
        for &(_, t) in &moves {
            if last != Some(t) && !targets.contains(&t) {
                targets.push(t);
            }
            last = Some(t);
        }
        let mut group = std::mem::take(&mut self.entering);
        let mut together = None;
        if let ([t], true) = (&targets[..], moves.len() == lanes.len()) {
            // The whole group moves together (no lane returned).
            self.enter_group(w, node, *t, lanes);
            together = Some(*t);
        } else {
            for &t in &targets {
                group.clear();
                group.extend(moves.iter().filter(|m| m.1 == t).map(|m| m.0));
                self.enter_group(w, node, t, &group);
            }
        }
        self.entering = group;
        self.targets = targets;
        self.moves = moves;
        together
    }

    /// Lanes `lanes` of `w` move along `from → to`: `to`'s phis are
    /// assigned (all from the old values), loop iterations counted.
    fn enter_group(&mut self, w: &mut Warp, from: u32, to: u32, lanes: &[usize]) {
        let target = &self.program.nodes[to as usize];
        if self.phis_read_env[to as usize] {
            w.prepare(lanes, Standin::Low);
        }
        if !target.phis.is_empty() {
            let header = self.shape.in_loop(to, to);
            let entry = header && !self.shape.in_loop(from, to);
            let relative = entry || self.bases > 0;
            let mut values = std::mem::take(&mut self.phi_lanes);
            values.resize_with(target.phis.len(), Vec::new);
            // Per phi: the one value every lane takes, when the unknown-start
            // rule has nothing to say (then `values` holds no lane's).
            let mut same = std::mem::take(&mut self.phi_same);
            same.clear();
            self.phi_keys.clear();
            {
                let group = Group::of(w, lanes);
                for (p, out) in self.phi_tapes[to as usize].iter().zip(values.iter_mut()) {
                    match p.iter().find(|i| i.0 == from) {
                        Some((_, tape)) => {
                            tape.run(&group, &mut self.phi_rows);
                            let keys = self.phi_keys.len();
                            self.phi_keys.push(Vec::new());
                            if entry && !tape.loads().is_empty() {
                                let (mut zero, mut probe) = (Vec::new(), Vec::new());
                                let [at_zero, at_probe] = &mut self.sharing.runs;
                                tape.run_loaded_as(&group, at_probe, Some(SHARED_PROBE));
                                tape.values(at_probe, &mut probe);
                                tape.run_loaded_as(&group, at_zero, Some(0));
                                tape.values(at_zero, &mut zero);
                                self.evaluations += 2 * tape.cost() * lanes.len() as u64;
                                let key = |at: usize| -> Option<Vec<i64>> {
                                    (tape.loads().iter())
                                        .map(|&s| Tape::value_at(&self.phi_rows, s, at))
                                        .collect()
                                };
                                self.phi_keys[keys] = (0..lanes.len())
                                    .map(|at| Some((key(at)?, zero[at]?, probe[at]?)))
                                    .collect();
                            }
                            let v = (!relative)
                                .then(|| tape.known_uniform(&self.phi_rows))
                                .flatten();
                            match v {
                                Some(_) => out.clear(),
                                None => tape.values(&self.phi_rows, out),
                            }
                            same.push(v);
                            self.evaluations += tape.cost() * lanes.len() as u64;
                        }
                        None => {
                            out.clear();
                            out.resize(lanes.len(), None);
                            same.push(None);
                            self.phi_keys.push(Vec::new());
                        }
                    }
                }
            }
            let mut bases = std::mem::take(&mut self.phi_bases);
            if relative {
                self.relative_phis(w, from, to, lanes, &mut values, &mut bases, entry);
            }
            for (i, (p, vals)) in target.phis.iter().zip(values.iter()).enumerate() {
                match same[i] {
                    Some(v) => w.leaves.fill(p.var, lanes, v),
                    None => w.leaves.set(p.var, lanes, vals),
                }
                if let Some(b) = bases.get(i) {
                    for (&l, &base) in lanes.iter().zip(b) {
                        w.lanes[l].bases[p.var as usize] = base;
                    }
                }
            }
            bases.clear();
            self.phi_bases = bases;
            self.phi_lanes = values;
            self.phi_same = same;
        }
        let back = self.shape.in_loop(to, to) && self.shape.in_loop(from, to);
        let trips = &mut w.trips[to as usize * w.at.len()..][..w.at.len()];
        // The lanes are distinct and in increasing order: when the last is
        // `n - 1`, they are the first n, updated as a row.
        if matches!(lanes.last(), Some(&last) if last + 1 == lanes.len()) {
            let n = lanes.len();
            match back {
                true => trips[..n].iter_mut().for_each(|t| *t += 1),
                false => trips[..n].fill(0),
            }
            w.at[..n].fill(to);
            return;
        }
        match back {
            true => lanes.iter().for_each(|&l| trips[l] += 1),
            false => lanes.iter().for_each(|&l| trips[l] = 0),
        }
        for &l in lanes {
            w.at[l] = to;
        }
    }

    /// The unknown-start rule for the phis of `to` entered from `from`
    /// (issue 19 fact 12): per phi and lane, in `bases`, the start its new
    /// value is relative to (0: none), and `values` made unknown where that
    /// is not one start with coefficient 1. On entering a loop (`entry`),
    /// a value unknown for a lane becomes an offset from a new start of its
    /// own. All from the old values, as phis assign in parallel.
    #[allow(clippy::too_many_arguments)]
    fn relative_phis(
        &mut self,
        w: &Warp,
        from: u32,
        to: u32,
        lanes: &[usize],
        values: &mut [Vec<Option<i64>>],
        bases: &mut Vec<Vec<u32>>,
        entry: bool,
    ) {
        let target = &self.program.nodes[to as usize];
        bases.resize_with(target.phis.len(), Vec::new);
        for (i, p) in target.phis.iter().enumerate() {
            let incoming = p.incoming.iter().position(|x| x.0 == from);
            let vars = incoming.map_or(&[][..], |k| &self.phi_vars[to as usize][i][k][..]);
            let out = &mut bases[i];
            out.clear();
            // Lanes that start from one loaded value (`phi_keys`): the
            // first of them takes a new start, the others the same one,
            // at their offset from it. Per position: the key's first lane.
            let keys = self.phi_keys.get(i).filter(|k| k.len() == lanes.len());
            let mut first_of: Vec<Option<usize>> = vec![None; lanes.len()];
            let mut assigned: Vec<Option<i64>> = vec![None; lanes.len()];
            for (at, (&l, v)) in lanes.iter().zip(values[i].iter_mut()).enumerate() {
                let mut base = 0;
                if self.bases > 0 && !vars.is_empty() {
                    match Based::of(vars, &w.lanes[l].bases) {
                        Based::Absolute => {}
                        Based::On {
                            base: b,
                            coefficient: 1,
                        } => base = b,
                        _ => *v = None,
                    }
                }
                let shared = keys.and_then(|k| {
                    let (key, z, p) = k[at].as_ref()?;
                    let vars_key: Vec<u32> = vars
                        .iter()
                        .map(|&(v, _)| w.lanes[l].bases[v as usize])
                        .collect();
                    (0..at).find_map(|o| {
                        let (ko, zo, po) = k[o].as_ref()?;
                        let same_vars = vars
                            .iter()
                            .zip(&vars_key)
                            .all(|(&(v, _), &b)| w.lanes[lanes[o]].bases[v as usize] == b);
                        (first_of[o] == Some(o) && ko == key && same_vars && z - zo == p - po)
                            .then_some((o, z - zo))
                    })
                });
                if v.is_none() && entry {
                    if let Some((o, delta)) = shared {
                        // The leader's start and value, moved by the offset.
                        base = out[o];
                        *v = assigned[o].map(|x| x + delta);
                        assigned[at] = *v;
                        first_of[at] = Some(o);
                        out.push(base);
                        continue;
                    }
                    first_of[at] = Some(at);
                    self.bases += 1;
                    base = self.bases;
                    // A row's run: placed by its row (`PackedStart`).
                    let row = (self.program.packed_starts.iter())
                        .find(|s| s.var == p.var)
                        .and_then(|s| {
                            let at = eval(&s.start, &w.lanes[l].env)?;
                            Some((p.var, at.div_euclid(s.size)))
                        });
                    self.packed_bases.push(row);
                    *v = Some(i64::from((base - 1) % START_OFFSETS));
                    assigned[at] = *v;
                }
                out.push(base);
            }
        }
    }

    /// Where each lane of `lanes` goes from `node`: the block, when every
    /// lane goes there (a jump, a branch the lanes take alike), else each
    /// lane's into `moves`; a lane that returns is done. The exit test runs
    /// for the group at once.
    fn exits(
        &mut self,
        w: &mut Warp,
        node: u32,
        lanes: &[usize],
        moves: &mut Vec<(usize, u32)>,
    ) -> Option<u32> {
        let program = self.program;
        let exit = &program.nodes[node as usize].exit;
        let tested = match &self.exit_tapes[node as usize] {
            ExitTape::Fixed => false,
            ExitTape::Branch(test) => test.reads_env(),
            ExitTape::Switch(on) => on.reads_env(),
        };
        if tested {
            w.prepare(lanes, Standin::Absent);
        }
        // A test of a variable relative to an unknown start is unknown:
        // the lanes (a bit each) whose test is.
        let vars = &self.exit_vars[node as usize];
        let mut blind = 0u64;
        if self.bases > 0 && !vars.is_empty() {
            for (at, &l) in lanes.iter().enumerate() {
                let lane = &w.lanes[l];
                if vars.iter().any(|&v| lane.bases[v as usize] != 0) {
                    blind |= 1 << at;
                }
            }
        }
        match (exit, &self.exit_tapes[node as usize]) {
            (Exit::Return | Exit::Stop, _) => {
                for &l in lanes {
                    w.done[l] = true;
                }
                w.live -= lanes.len();
            }
            (Exit::Jump(t), _) => return (!lanes.is_empty()).then_some(*t),
            (
                Exit::Branch {
                    then, otherwise, ..
                },
                ExitTape::Branch(test),
            ) => {
                let (known, holds) = test.run(&Group::of(w, lanes), &mut self.test_rows);
                let known = known & !blind;
                // The iterations done of the loop the test may leave.
                let exit = self.loop_exits[node as usize];
                let header = exit.map_or(0, |e| e.0 as usize);
                let trips = &w.trips[header * w.at.len()..][..w.at.len()];
                // Every lane alike (the same outcome, the same iterations):
                // one decision for the group.
                let all = all_lanes(lanes.len());
                let alike = (known == 0
                    || (known == all && (holds & all == 0 || holds & all == all)))
                    && (exit.is_none() || same_trips(trips, lanes));
                if let (true, Some(&first)) = (alike, lanes.first()) {
                    let known = (known & 1 != 0).then_some(holds & 1 != 0);
                    let to = self.branch(trips[first], node, known, *then, *otherwise);
                    return Some(to);
                }
                for (at, &l) in lanes.iter().enumerate() {
                    let known = (known >> at & 1 != 0).then_some(holds >> at & 1 != 0);
                    let to = self.branch(trips[l], node, known, *then, *otherwise);
                    moves.push((l, to));
                }
            }
            (Exit::Switch { cases, default, .. }, ExitTape::Switch(on)) => {
                let mut values = std::mem::take(&mut self.low);
                on.eval_lanes(&Group::of(w, lanes), &mut values, &mut self.test_rows);
                for (at, (&l, v)) in lanes.iter().zip(&values).enumerate() {
                    let lane = &w.lanes[l];
                    let v = v.filter(|_| blind >> at & 1 == 0);
                    let to = self.switch(lane, v, cases, *default);
                    moves.push((l, to));
                }
                self.low = values;
            }
            // Compiled from the exit itself: the two always agree.
            (Exit::Branch { .. } | Exit::Switch { .. }, _) => {}
        }
        None
    }

    /// Where a switch sends a lane whose value is `v` (`None`: unknown).
    fn switch(&mut self, lane: &Lane, v: Option<i64>, cases: &[(i64, u32)], default: u32) -> u32 {
        if let Some(v) = v {
            return cases.iter().find(|c| c.0 == v).map_or(default, |c| c.1);
        }
        self.guessed_paths = true;
        // An unknown value takes the default, unless the default
        // is a dead end (clang makes the default of a switch that
        // covers every value, `switch (x & 3)` with four cases,
        // `unreachable`): then the lanes spread over the cases by
        // their linear thread id, an assumption (uniform values)
        // that runs every case's code.
        let dead = |b: u32| {
            let n = &self.program.nodes[b as usize];
            matches!(n.exit, Exit::Stop) && n.ops.is_empty()
        };
        if dead(default) && !cases.is_empty() {
            let [x, y, z] = lane.env.tid;
            let [nx, ny, _] = lane.env.ntid;
            let linear = x + nx * (y + ny * z);
            let i = linear.rem_euclid(cases.len() as i64) as usize;
            return cases[i].1;
        }
        default
    }

    /// Where a branch sends a lane whose test is `known` (`None`: unknown),
    /// `trips` being its iterations done of the loop the branch may leave.
    fn branch(
        &mut self,
        trips: u32,
        node: u32,
        known: Option<bool>,
        then: u32,
        otherwise: u32,
    ) -> u32 {
        // A loop's exit test: the budget may end the loop.
        let exit = self.loop_exits[node as usize];
        let known = known.map(|c| if c { then } else { otherwise });
        let Some((_, out, stay)) = exit else {
            self.guessed_paths |= known.is_none();
            return known.unwrap_or(self.guarded[node as usize]);
        };
        let done = trips + 1;
        if done >= self.budget.iterations && known == Some(stay) {
            self.truncated = Some(format!(
                "loops cut at {} iterations per entry",
                self.budget.iterations
            ));
            return out;
        }
        self.guessed_trips |= known.is_none();
        let bounded = self.stay_bounds[node as usize].is_some_and(|most| trips >= most);
        known.unwrap_or(if done >= self.budget.unknown_trip || bounded {
            out
        } else {
            stay
        })
    }
}

/// Per node: the most times its loop test can stay in the loop
/// (`Program::test_bounds`), where the bound is of the loop the test
/// leaves (`loop_exits`) and counts the outcome that stays.
fn stay_bounds(program: &Program, loop_exits: &[Option<(u32, u32, u32)>]) -> Vec<Option<u32>> {
    let mut out = vec![None; program.nodes.len()];
    for b in &program.test_bounds {
        let (Some(Some((header, _, stay))), Some(node)) = (
            loop_exits.get(b.node as usize),
            program.nodes.get(b.node as usize),
        ) else {
            continue;
        };
        let Exit::Branch { then, .. } = node.exit else {
            continue;
        };
        // A loop exit leaves on exactly one side (`loop_exits`), so the
        // sides differ and `stay` is one of them.
        if *header == b.header && (*stay == then) == b.holds {
            out[b.node as usize] = Some(b.count);
        }
    }
    out
}
