//! Loads whose data is read once (issue 19, "a decision must rest on
//! evidence"): a decided load every line of which no other access of the
//! kernel's trace touches — no other load, no other warp or loop iteration
//! of the same load, no earlier store or atomic — can never hit in L1,
//! whatever the warp order, the carveout, the set index or the no_allocate
//! rule. Caching it buys nothing in L2→L1 bytes under every scenario
//! `decide::robust` weighs, and costs an L1 allocation that evicts lines
//! other loads might reuse. `auto` bypasses such loads.
//!
//! Why bypass rather than leave the tie to caching (design.md §6): on the
//! cycle-level simulator the loads of this kind ran faster bypassed on both
//! configs (`bench/sim`: backprop's `forward` weights and bias, `delta_out`,
//! the transposes' reads; the oracle's best assignment bypasses each), and
//! NVIDIA's own advice for data read once is to keep it out of L1 (the
//! `.cs`/`.cg`/`evict_first` operators, PTX ISA "Cache Operators"). Bytes do
//! not tell the two apart, so the rule is not a regret figure: it is the
//! one case where bypassing is safe under every answer to every open
//! question, and so it needs no scenario.
//!
//! The unit is what one miss fetches: the sector on sector-fill parts
//! (another access reading another sector of the line would miss on its
//! own sector whether or not this load allocated the line), the whole line
//! on line-fill parts (where that access would hit). A load with a bounded
//! unknown address is never read once: where it reads is not known; every
//! fill unit of the range it may read (`Trace::reach`) counts as touched by
//! it, so a load sharing none of them can still be read once
//! (`stream_table`'s `x[i]`, `s[i]`, `y0[i]` beside `table[x[i] & 1023]`).
//!
//! The claim is about every access of the kernel, so it needs a trace that
//! shows them all; no load is read once when it does not:
//! - some access's address is a per-thread unknown, not bounded (a gather such as
//!   `level[adj[k]]` may read any line, the candidate's among them: the
//!   simulator's `bfs` moved 1.1 % more bytes when `level[v]` was bypassed
//!   on that mistaken evidence);
//! - an unknown condition chose the lanes' path and some memory instruction
//!   never ran (it may, for real);
//! - a budget cut the trace short (later iterations may read the line again);
//! - checked by `sm_model` from what the walk and the IR show: some access
//!   reads a block-uniform stand-in (an argument nobody gave: `a[i]` and
//!   `a[i + off]`), or a known stride under an unknown start (`val[j]` from
//!   `j = rowptr[r]`: neighbouring rows meet in one line), or a loop ran a
//!   guessed trip count (`Walked::guessed_trips`), or some instruction may
//!   touch global memory outside the trace (a call, inline asm, a volatile
//!   load: `KernelProgram::complete`).

use std::collections::{HashMap, HashSet};

use crate::model::trace::{Kind, Trace};

/// Per trace instruction: whether it is a decided load whose data is read
/// once (see the module doc), in units of `fill_bytes` (what a miss
/// fetches). `guessed_paths`: an unknown condition chose where lanes went
/// (`Walked::guessed_paths`), so an instruction no warp ran may run for real.
///
/// `guessed_address`: per instruction, its address is a guess (it reads a
/// value a guessed path chose): never read once.
pub fn read_once(
    trace: &Trace,
    fill_bytes: u64,
    guessed_paths: bool,
    guessed_address: &[bool],
) -> Vec<bool> {
    let n = trace.instructions.len();
    let mut once = vec![false; n];
    if trace.truncated.is_some() || fill_bytes == 0 {
        return once;
    }
    // Per line: the first access (event index) and whether any other access
    // that can matter touched it.
    struct Seen {
        first: usize,
        shared: bool,
    }
    let mut lines: HashMap<u64, Seen> = HashMap::new();
    let mut executed = vec![false; n];
    let mut unknown = vec![false; n];
    let mut event_lines: Vec<u64> = Vec::new();
    for (e, ev) in trace.events.iter().enumerate() {
        let inst = ev.inst as usize;
        executed[inst] = true;
        unknown[inst] |= ev.unknown;
        event_lines.clear();
        event_lines.extend(trace.lanes(ev).iter().map(|a| a / fill_bytes));
        event_lines.sort_unstable();
        event_lines.dedup();
        let kind = trace.instructions[inst].kind;
        for &line in &event_lines {
            match lines.get_mut(&line) {
                None => {
                    lines.insert(
                        line,
                        Seen {
                            first: e,
                            // A store or atomic before any read: under
                            // "stores allocate" a later read could hit it.
                            shared: !is_read(kind),
                        },
                    );
                }
                Some(seen) => {
                    let first = &trace.events[seen.first];
                    // The same warp writing back what it read (`x[i] =
                    // f(x[i])`) after the read: program order keeps the
                    // write after the read in every warp order, and a write
                    // is not a read that could hit.
                    let write_back = !is_read(kind)
                        && is_read(trace.instructions[first.inst as usize].kind)
                        && first.block == ev.block
                        && first.warp == ev.warp;
                    if !write_back {
                        seen.shared = true;
                    }
                }
            }
        }
    }
    // The trace is evidence only where it shows every access: a memory
    // instruction no warp ran (an unknown guard sent the lanes the other
    // way) or an address not known (a gather, `level[adj[k]]`, may read any
    // line, the read-once load's among them) hides what really shares it.
    // A bounded unknown (`table[v & 255]`) is the exception: its drawn
    // addresses are a sample, but what it may touch is known (`Trace::reach`),
    // and every fill unit of that is taken as touched by it.
    let hidden =
        (unknown.iter().enumerate()).any(|(i, &u)| u && trace.bounded_reach(i as u32).is_none());
    if (guessed_paths && executed.contains(&false)) || hidden {
        return once;
    }
    let mut reached: HashSet<u64> = HashSet::new();
    for (i, _) in executed.iter().enumerate().filter(|(_, &x)| x) {
        if let Some((lo, hi)) = trace.bounded_reach(i as u32) {
            reached.extend(lo / fill_bytes..=(hi.max(lo + 1) - 1) / fill_bytes);
        }
    }
    // A load is read once when every line it touched was touched by that
    // one event alone (write-backs aside).
    for (i, o) in once.iter_mut().enumerate() {
        // A load no warp ran has no verdict (no evidence either way).
        *o = trace.instructions[i].kind == Kind::Load
            && executed[i]
            && !guessed_address.get(i).copied().unwrap_or(false)
            && trace.bounded_span(i as u32).is_none();
    }
    for ev in &trace.events {
        let inst = ev.inst as usize;
        if !once[inst] {
            continue;
        }
        if trace.lanes(ev).iter().any(|a| {
            reached.contains(&(a / fill_bytes))
                || lines
                    .get(&(a / fill_bytes))
                    .is_none_or(|s| s.shared || trace.events[s.first].inst != ev.inst)
        }) {
            once[inst] = false;
        }
    }
    once
}

fn is_read(kind: Kind) -> bool {
    matches!(kind, Kind::Load | Kind::FixedLoad | Kind::ReadOnly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Event, Instruction};

    /// A trace of (instruction, block, warp, lane addresses) events over
    /// instructions of the given kinds.
    fn trace(kinds: &[Kind], events: &[(u32, u32, u32, &[u64])]) -> Trace {
        let mut t = Trace {
            instructions: (kinds.iter().enumerate())
                .map(|(i, &kind)| Instruction {
                    kind,
                    site: format!("1:{i}"),
                })
                .collect(),
            blocks: 2,
            warps_per_block: 2,
            ..Trace::default()
        };
        let mut executions = HashMap::new();
        for &(inst, block, warp, lanes) in events {
            let x = executions.entry((inst, block, warp)).or_insert(0u32);
            t.push(
                Event {
                    inst,
                    block,
                    warp,
                    execution: *x,
                    bytes: 4,
                    start: 0,
                    lanes: 0,
                    unknown: false,
                },
                lanes,
            );
            *x += 1;
        }
        t
    }

    /// 32 lanes reading 4-byte words from `base` on.
    fn warp(base: u64) -> Vec<u64> {
        (0..32).map(|l| base + 4 * l).collect()
    }

    #[test]
    fn a_coalesced_stream_is_read_once_and_a_row_walk_is_not() {
        // Load 0: two warps, each reads its own 128-byte line once.
        // Load 1: one warp reads line 10 twice (two loop iterations over
        // the same line, as `a[i*W + k]` does for k and k+1).
        let (w0, w1, w10) = (warp(0), warp(128), warp(1280));
        let t = trace(
            &[Kind::Load, Kind::Load],
            &[
                (0, 0, 0, &w0),
                (0, 0, 1, &w1),
                (1, 0, 0, &w10),
                (1, 0, 0, &w10),
            ],
        );
        assert_eq!(read_once(&t, 128, false, &[]), vec![true, false]);
    }

    #[test]
    fn a_line_two_loads_share_is_read_once_by_neither_under_line_fill() {
        // Load 0 reads the first 64 bytes of line 0, load 1 the other 64
        // (other sectors, the same line: line fill would let one hit).
        let a: Vec<u64> = (0..16).map(|l| 4 * l).collect();
        let b: Vec<u64> = (16..32).map(|l| 4 * l).collect();
        let t = trace(&[Kind::Load, Kind::Load], &[(0, 0, 0, &a), (1, 0, 0, &b)]);
        assert_eq!(read_once(&t, 128, false, &[]), vec![false, false]);
        // Sector fill: each load misses on its own two sectors whatever the
        // other does, so each is read once.
        assert_eq!(read_once(&t, 32, false, &[]), vec![true, true]);
    }

    #[test]
    fn writing_back_what_the_warp_read_keeps_it_read_once() {
        // `x[i] += 1`: warp 0 reads line 0 then stores to it; warp 1 does
        // the same on line 1. A store by warp 0 to line 1, or a store
        // before the read, would make it not read once.
        let (l0, l1) = (warp(0), warp(128));
        let kinds = [Kind::Load, Kind::Store];
        let rmw = trace(
            &kinds,
            &[
                (0, 0, 0, &l0),
                (1, 0, 0, &l0),
                (0, 0, 1, &l1),
                (1, 0, 1, &l1),
            ],
        );
        assert_eq!(read_once(&rmw, 128, false, &[]), vec![true, false]);
        let stored_first = trace(&kinds, &[(1, 0, 0, &l0), (0, 0, 0, &l0)]);
        assert_eq!(
            read_once(&stored_first, 128, false, &[]),
            vec![false, false]
        );
        let other_warp = trace(&kinds, &[(0, 0, 0, &l1), (1, 1, 0, &l1)]);
        assert_eq!(read_once(&other_warp, 128, false, &[]), vec![false, false]);
    }

    #[test]
    fn unknowns_read_only_loads_and_cut_traces_are_never_read_once() {
        let w = warp(0);
        let mut t = trace(&[Kind::Load], &[(0, 0, 0, &w)]);
        assert_eq!(read_once(&t, 128, false, &[]), vec![true]);
        t.events[0].unknown = true;
        assert_eq!(read_once(&t, 128, false, &[]), vec![false]);
        t.events[0].unknown = false;
        t.truncated = Some("loop iterations".into());
        assert_eq!(read_once(&t, 128, false, &[]), vec![false]);
        let ro = trace(&[Kind::ReadOnly], &[(0, 0, 0, &w)]);
        assert_eq!(read_once(&ro, 128, false, &[]), vec![false]);
    }

    #[test]
    fn a_trace_that_hides_an_access_proves_no_load_read_once() {
        // Load 0 streams line 0; load 1 reads line 100 — apart, both are
        // read once.
        let (w, far) = (warp(0), warp(12_800));
        let both = trace(&[Kind::Load, Kind::Load], &[(0, 0, 0, &w), (1, 0, 0, &far)]);
        assert_eq!(read_once(&both, 128, false, &[]), vec![true, true]);
        // Load 1 is a gather (`level[adj[k]]`): its synthetic address says
        // nothing of which line it really reads, line 0 perhaps.
        let mut gather = trace(&[Kind::Load, Kind::Load], &[(0, 0, 0, &w), (1, 0, 0, &far)]);
        gather.events[1].unknown = true;
        assert_eq!(read_once(&gather, 128, false, &[]), vec![false, false]);
        // A bounded gather (a table lookup) whose range is lines 200..201
        // hides nothing: load 0 is read once, unless it reads that range.
        let mut table = trace(&[Kind::Load, Kind::Load], &[(0, 0, 0, &w), (1, 0, 0, &far)]);
        table.events[1].unknown = true;
        table.bounded = vec![None, Some(256)];
        table.reach = vec![None, Some((25_600, 25_856))];
        assert_eq!(read_once(&table, 128, false, &[]), vec![true, false]);
        table.reach = vec![None, Some((0, 256))];
        assert_eq!(read_once(&table, 128, false, &[]), vec![false, false]);
        // Instruction 1 (a store, say) never ran: where known conditions
        // say so, nothing is hidden; where an unknown guard sent every lane
        // past it, where it writes is unseen.
        let idle = trace(&[Kind::Load, Kind::Store], &[(0, 0, 0, &w)]);
        assert_eq!(read_once(&idle, 128, false, &[]), vec![true, false]);
        assert_eq!(read_once(&idle, 128, true, &[]), vec![false, false]);
        // A load no warp ran has no verdict, read once or not.
        let unrun = trace(&[Kind::Load, Kind::Load], &[(0, 0, 0, &w)]);
        assert_eq!(read_once(&unrun, 128, false, &[]), vec![true, false]);
    }
}
