//! The simulated L1 of one SM, from the hardware facts (design.md §6, issue
//! 19): a pure function from a [`Hardware`] entry (the table's or a machine
//! description's), the operator the build writes for a bypassed load and
//! the L1 capacity the occupancy left, to the [`L1Config`] the simulation
//! runs. Every generation rule lives in the hardware facts (fill, line and
//! sector, ways, L1/TEX units, which loads allocate by default); nothing
//! here looks at the per-load model (`Model::Fermi` or `Sectored`), which
//! judges loads alone and says nothing about the machine.
//!
//! It also builds the scenarios a decision that must hold under the
//! uncertain facts replays ([`Scenario`]): a set-indexed L1 as one tool
//! measured it, `.L1::no_allocate` that does not hit, stores that allocate.
//! It decides nothing and runs no simulation.

use crate::gpu::generation::CacheOp;
use crate::gpu::hardware::{DataCache, Fill as HwFill, GlobalLoads, Hardware};
use crate::model::l1sim::{Bypass, Fill, L1Config, L1Error, StorePolicy};

/// The L1 of `hw` with `capacity` bytes (after the carveout), where a
/// bypassed load is written with `bypass` (`Arch::bypass_op`: `.cg` before
/// sm_70 and on sm_70+ below PTX ISA 7.4, `.L1::no_allocate` otherwise).
///
/// The capacity is trimmed to whole lines in every L1 unit (no tabled part
/// loses a byte: 24 KB and 48 KB over 2 units of 128 B lines, and every
/// carveout step on Volta and later is a multiple of 1 KB). Ways are the
/// documented ones (`Hardware::associativity`; none is documented for a
/// tabled part, so fully associative); a measured set count is a
/// [`Scenario`], not the default.
pub fn l1_config(hw: &Hardware, bypass: CacheOp, capacity: u32) -> L1Config {
    // `machine::check` keeps line and sector sizes within u32; a value past
    // it becomes u32::MAX, which the simulation refuses (not a power of two).
    let size = |b: u64| u32::try_from(b).unwrap_or(u32::MAX);
    let line_bytes = size(hw.line_bytes);
    let slices = hw.l1_slices.max(1);
    let unit = line_bytes.saturating_mul(slices).max(1);
    L1Config {
        capacity_bytes: capacity / unit * unit,
        line_bytes,
        sector_bytes: size(hw.sector_bytes),
        ways: hw.associativity,
        set_index: hw.set_index,
        slices,
        fill: match hw.fill {
            HwFill::WholeLine => Fill::Line,
            HwFill::Sectors => Fill::Sector,
        },
        stores: store_policy(hw),
        bypass: bypass_of(bypass),
        default_load_allocates: hw.global_loads == GlobalLoads::L1ByDefault,
    }
}

/// What the simulation does with a load written with `op` that does not
/// allocate. `.cg` on sm_70+ is `LDG.E.STRONG.GPU`, a strong load served
/// at L2 (design.md §5, SASS read with cuobjdump; PTX ISA: "cache in L2 and
/// below, not L1"), so it does not look up L1 there either; `.ca` is never
/// a bypass operator and is read the same way should it appear.
pub fn bypass_of(op: CacheOp) -> Bypass {
    match op {
        CacheOp::NoAllocate => Bypass::NoAllocate,
        CacheOp::Cg | CacheOp::Ca => Bypass::SkipL1,
    }
}

/// The default store policy of `hw`: write-through without allocation,
/// keeping present sectors, on a unified sectored L1 (Volta and later,
/// [`StorePolicy::UpdateSectors`]); elsewhere a store discards the line
/// (PTX ISA, cache operators, `.wb`: "Global stores bypass L1, and discard
/// any L1 lines that match"; the ISA says it of sm_20, and the model
/// assumes it of Maxwell/Pascal too, whose L1/TEX is not coherent with
/// stores, and of a machine described with whole-line fills).
pub fn store_policy(hw: &Hardware) -> StorePolicy {
    match (hw.data_cache, hw.fill) {
        (DataCache::Unified { .. }, HwFill::Sectors) => StorePolicy::UpdateSectors,
        _ => StorePolicy::EvictLine,
    }
}

/// A way the uncertain facts may really be, for a decision that must hold
/// under each (design.md §6, "Decisions under uncertainty").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// The documented facts, as [`l1_config`] gives them.
    Nominal,
    /// The L1 as `sets` sets per unit with a linear index, ways following
    /// the capacity (`Hardware::measured_sets`: Accel-Sim's Volta model).
    Sets(u32),
    /// `.L1::no_allocate` loads do not hit lines others allocated.
    NoAllocateMisses,
    /// Stores allocate the sectors they write (Accel-Sim's write-policy
    /// microbenchmark on Volta to Ampere).
    StoresAllocate,
}

impl Scenario {
    /// The scenarios that differ from `Nominal` on `hw` with `config`
    /// (`l1_config`'s result), `Nominal` first: sets only where a
    /// measurement gives them, the `.L1::no_allocate` reading only where the
    /// build probes, stores allocating only on a sectored unified L1. A
    /// question the probe answered on the real part (`Hardware::measured`)
    /// is no scenario: its answer is the nominal one.
    pub fn for_machine(hw: &Hardware, config: &L1Config) -> Vec<Scenario> {
        let mut out = vec![Scenario::Nominal];
        out.extend(hw.measured_sets.map(Scenario::Sets));
        let no_allocate_measured = hw.measured.is_some_and(|m| m.no_allocate_hits);
        if config.bypass == Bypass::NoAllocate && !no_allocate_measured {
            out.push(Scenario::NoAllocateMisses);
        }
        if config.stores == StorePolicy::UpdateSectors {
            out.push(Scenario::StoresAllocate);
        }
        out
    }

    /// `config` under this scenario; an error only for `Sets` on a
    /// capacity below one line per set.
    pub fn apply(self, config: L1Config) -> Result<L1Config, L1Error> {
        Ok(match self {
            Scenario::Nominal => config,
            Scenario::Sets(sets) => config.with_sets(sets)?,
            Scenario::NoAllocateMisses => L1Config {
                bypass: Bypass::SkipL1,
                ..config
            },
            Scenario::StoresAllocate => L1Config {
                stores: StorePolicy::AllocateSectors,
                ..config
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::hardware::Hardware;

    const KB: u32 = 1024;

    fn hw(sm: u32) -> &'static Hardware {
        Hardware::for_sm(sm).unwrap()
    }

    /// Issue 19, facts 1 and 9: Maxwell/Pascal fill sectors, in two units.
    #[test]
    fn maxwell_and_pascal_fill_sectors_in_two_units() {
        for sm in [50, 52, 53, 61, 62] {
            let c = l1_config(hw(sm), CacheOp::Cg, 24 * KB);
            assert_eq!(c.fill, Fill::Sector, "sm_{sm}");
            assert_eq!(c.slices, 2, "sm_{sm}");
            assert_eq!(c.stores, StorePolicy::EvictLine, "sm_{sm}");
            assert_eq!(c.bypass, Bypass::SkipL1, "sm_{sm}");
            assert_eq!((c.line_bytes, c.sector_bytes), (128, 32), "sm_{sm}");
            // 24 KB over 2 units of 128 B lines: 96 lines each, no loss.
            assert_eq!(c.capacity_bytes, 24 * KB, "sm_{sm}");
            assert!(!c.default_load_allocates, "sm_{sm}");
        }
        // GP100: one unit, plain loads cached.
        let p100 = l1_config(hw(60), CacheOp::Cg, 24 * KB);
        assert_eq!((p100.slices, p100.fill), (1, Fill::Sector));
        assert!(p100.default_load_allocates);
    }

    /// Issue 19, fact 10: the bypass follows the operator the build writes.
    #[test]
    fn the_bypass_follows_the_operator() {
        let v = hw(70);
        // PTX ISA 7.4 and later: .L1::no_allocate probes L1.
        let new = l1_config(v, CacheOp::NoAllocate, 128 * KB);
        assert_eq!(new.bypass, Bypass::NoAllocate);
        // Below 7.4 the build writes .cg, a strong load that skips L1.
        let old = l1_config(v, CacheOp::Cg, 128 * KB);
        assert_eq!(old.bypass, Bypass::SkipL1);
        assert_eq!(
            (old.fill, old.stores, old.slices),
            (Fill::Sector, StorePolicy::UpdateSectors, 1)
        );
        assert!(old.default_load_allocates);
        // A capacity off a line boundary is trimmed: 1000 B -> 7 x 128 = 896.
        assert_eq!(l1_config(v, CacheOp::Cg, 1000).capacity_bytes, 896);
        // On two units the trim is to 2 x 128 = 256 B: 1000 -> 768.
        assert_eq!(l1_config(hw(52), CacheOp::Cg, 1000).capacity_bytes, 768);
    }

    /// Issue 19, fact 8, and the other knobs as scenarios.
    #[test]
    fn scenarios_on_volta_and_maxwell() {
        let v = hw(70);
        let nominal = l1_config(v, CacheOp::NoAllocate, 120 * KB);
        let all = Scenario::for_machine(v, &nominal);
        assert_eq!(
            all,
            vec![
                Scenario::Nominal,
                Scenario::Sets(4),
                Scenario::NoAllocateMisses,
                Scenario::StoresAllocate
            ]
        );
        // The 8 KB carveout leaves 120 KB = 960 lines: 4 sets of 240 ways.
        let sets = Scenario::Sets(4).apply(nominal).unwrap();
        assert_eq!((sets.ways, sets.capacity_bytes), (Some(240), 120 * KB));
        // An effective capacity 7 % below 28 KB (sm_80 at its 164 KB
        // carveout): 26,670 B holds 26,670 / 512 = 52 whole sets of 4 x 128 B
        // rows, so 52 ways and 52 x 512 = 26,624 B.
        let a100 = l1_config(hw(80), CacheOp::NoAllocate, 26_670);
        let sets = Scenario::Sets(4).apply(a100).unwrap();
        assert_eq!((sets.ways, sets.capacity_bytes), (Some(52), 26_624));
        let miss = Scenario::NoAllocateMisses.apply(nominal).unwrap();
        assert_eq!(miss.bypass, Bypass::SkipL1);
        let alloc = Scenario::StoresAllocate.apply(nominal).unwrap();
        assert_eq!(alloc.stores, StorePolicy::AllocateSectors);
        // Maxwell: .cg already skips L1, stores already evict, no measured sets.
        let m = l1_config(hw(52), CacheOp::Cg, 24 * KB);
        assert_eq!(Scenario::for_machine(hw(52), &m), vec![Scenario::Nominal]);
        // Fewer lines than sets is an error, not a panic.
        let tiny = L1Config {
            capacity_bytes: 256,
            ..nominal
        };
        assert!(Scenario::Sets(4).apply(tiny).is_err());
    }
}
