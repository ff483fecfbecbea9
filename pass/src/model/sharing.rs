//! Lanes of one warp instruction that load one value (issue 19): what the
//! walk gives their addresses, a region of their group's own, so that
//! lanes reading one row of a table, or starting a loop at one loaded
//! offset, share what follows from it (`Sharing::share`).

use crate::facts::tape::{Lanes, Rows, Tape};
use crate::model::trace::UNKNOWN_REGION;

/// Where the lanes that load one value (`Sharing::share`) get their
/// addresses: above the other synthetic unknowns (`UNKNOWN_REGION` +
/// `UNKNOWN_SPACING` × a count that stays below 2^40) and below the
/// gathers' local scenario (`gathers::LOCAL_GATHER_REGION`, +2^59), which
/// treats them as it treats every synthetic unknown.
pub const SHARED_REGION: u64 = UNKNOWN_REGION + (1 << 58);

/// Each group's room: its lanes' offsets span less than half of it.
const SHARED_SPACING: u64 = 1 << 24;

/// Groups before their regions are used again (2^34 × 2^24 = 2^58 bytes):
/// a group so far back in the trace has long left L1.
const SHARED_GROUPS: u64 = 1 << 34;

/// A group's offsets keep their alignment to this many bytes (a row of a
/// table read as float4 lanes starts on a line as it does in memory).
const SHARED_ALIGN: i64 = 4096;

/// The value the loads read in [`Sharing::share`]'s second run.
pub(super) const SHARED_PROBE: i64 = 4096;

/// Lanes of a warp that load one value (`Expr::Loaded`), for the walk.
#[derive(Default)]
pub(super) struct Sharing {
    /// Rows of a second and third run of a tape.
    pub(super) runs: [Rows; 2],
    /// Per lane of the last event: the address [`Sharing::share`] gave it.
    pub(super) shared: Vec<Option<u64>>,
    /// Groups of lanes given one value so far.
    next: u64,
}

impl Sharing {
    /// Lanes of one warp instruction that read its address's per-thread
    /// loads (`Expr::Loaded`) at the same addresses get the same values
    /// (one instruction, one moment: no store comes between), so their
    /// addresses differ only by what the rest of the expression adds. Per
    /// lane of `group`, into `self.shared`: such a lane's address, in a
    /// region of its group's own in [`SHARED_REGION`]; `None` for a lane
    /// that shares its loads with no other, or whose offset from its
    /// group's depends on the loaded values (two runs, with the loads read
    /// as 0 and as [`SHARED_PROBE`], disagree). Whether any lane got one.
    /// `tape` ran for the lanes of `group` into `rows`; `vars` are the loop
    /// variables its expression reads, whose starts (`Based`; `start_of`
    /// gives lane `at`'s of variable `v`) join the lanes' keys, since their
    /// rows hold offsets from those starts.
    pub(super) fn share(
        &mut self,
        tape: &Tape,
        rows: &Rows,
        evaluations: &mut u64,
        group: &impl Lanes,
        start_of: impl Fn(usize, u32) -> u32,
        vars: &[(u32, Option<i64>)],
    ) -> bool {
        let lanes = group.count();
        let Sharing { runs, shared, next } = self;
        let next_shared = next;
        shared.clear();
        let loads = tape.loads();
        if loads.is_empty() || lanes < 2 {
            return false;
        }
        // The common case first, without allocating: a gather whose lanes read
        // their indices at distinct addresses (`x[col[j]]`) shares nothing.
        let mut firsts = [0i64; crate::facts::tape::MAX_LANES];
        let mut n = 0;
        for at in 0..lanes {
            if let Some(x) = Tape::value_at(rows, loads[0], at) {
                firsts[n] = x;
                n += 1;
            }
        }
        let firsts = &mut firsts[..n];
        firsts.sort_unstable();
        if !firsts.windows(2).any(|p| p[0] == p[1]) {
            return false;
        }
        // Each lane's key: its loads' addresses and its variables' starts.
        let key = |at: usize| -> Option<Vec<i64>> {
            let mut k = Vec::with_capacity(loads.len() + vars.len());
            for &s in loads {
                k.push(Tape::value_at(rows, s, at)?);
            }
            for &(v, _) in vars {
                k.push(i64::from(start_of(at, v)));
            }
            Some(k)
        };
        let keys: Vec<Option<Vec<i64>>> = (0..lanes).map(key).collect();
        // Each lane's group: the first lane with its key.
        let leader: Vec<Option<usize>> = (0..lanes)
            .map(|at| {
                let k = keys[at].as_ref()?;
                (0..lanes).find(|&o| keys[o].as_ref() == Some(k))
            })
            .collect();
        let shares = |at: usize| {
            leader[at].is_some_and(|g| (0..lanes).any(|o| o != at && leader[o] == Some(g)))
        };
        if !(0..lanes).any(shares) {
            return false;
        }
        let [zero, probe] = runs;
        tape.run_loaded_as(group, zero, Some(0));
        tape.run_loaded_as(group, probe, Some(SHARED_PROBE));
        *evaluations += 2 * tape.cost() * lanes as u64;
        let (mut at0, mut at1) = (Vec::new(), Vec::new());
        tape.values(zero, &mut at0);
        tape.values(probe, &mut at1);
        shared.resize(lanes, None);
        for g in 0..lanes {
            let members: Vec<usize> = (0..lanes)
                .filter(|&at| leader[at] == Some(g) && shares(at))
                .collect();
            if members.is_empty() {
                continue;
            }
            let offsets: Option<Vec<i64>> = members
                .iter()
                .map(|&at| {
                    let (a0, g0) = (at0[at]?, at0[g]?);
                    let (a1, g1) = (at1[at]?, at1[g]?);
                    (a0.wrapping_sub(g0) == a1.wrapping_sub(g1)).then_some(a0)
                })
                .collect();
            let Some(offsets) = offsets else { continue };
            let low = offsets
                .iter()
                .min()
                .copied()
                .unwrap_or(0)
                .div_euclid(SHARED_ALIGN)
                * SHARED_ALIGN;
            let high = offsets.iter().max().copied().unwrap_or(0);
            if high.wrapping_sub(low) as u64 >= SHARED_SPACING / 2 {
                continue;
            }
            *next_shared += 1;
            let region = SHARED_REGION + (*next_shared % SHARED_GROUPS) * SHARED_SPACING;
            for (&at, &o) in members.iter().zip(&offsets) {
                shared[at] = Some(region + o.wrapping_sub(low) as u64);
            }
        }
        shared.iter().any(Option::is_some)
    }
}
