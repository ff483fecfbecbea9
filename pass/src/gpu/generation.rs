//! The GPU generation table: for each supported `sm_XX`, the traffic model
//! that fits its L1, the L1 capacity a block can count on, the PTX ISA
//! version the toolchain targets, and how "cache" and "bypass" are spelled
//! in PTX on that generation.
//!
//! Facts, with their sources:
//! - PTX ISA, `ld` instruction: `.ca` caches at all levels (L1 and L2), `.cg`
//!   caches in L2 only; `.L1::no_allocate` (PTX 7.4, sm_70+) does not allocate
//!   in L1. On sm_70+ a plain `ld.global` is a weak, L1-allocating load
//!   (`LDG.E`), while `.ca`/`.cg` turn into *strong* loads
//!   (`LDG.E.STRONG.SM`/`.GPU`), so there bypass is `.L1::no_allocate` and
//!   cache is the plain load (design.md §5, SASS read with ptxas).
//! - Before sm_70 the cache behaviour of a plain load follows ptxas'
//!   `-dlcm`, so both decisions are written out: `.ca` and `.cg`.
//! - CUDA C++ Programming Guide, compute-capability tables: unified
//!   L1/shared capacity and the largest shared carveout per generation; the
//!   sectored default L1 is what remains with the largest carveout, the
//!   capacity a block can count on whatever the runtime picks.
//!
//! This file knows nothing about IR.

use std::fmt;

/// Which traffic model estimates a load's bytes (design.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Fermi-style L1: a miss fills a whole 128-byte line.
    Fermi,
    /// Volta and later: a miss fills 32-byte sectors of 128-byte lines.
    Sectored,
}

impl Model {
    pub fn parse(s: &str) -> Option<Model> {
        match s {
            "fermi" => Some(Model::Fermi),
            "sectored" => Some(Model::Sectored),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Model::Fermi => "fermi",
            Model::Sectored => "sectored",
        }
    }

    /// Bytes brought into L1 by one miss.
    pub fn fill_bytes(self) -> u64 {
        match self {
            Model::Fermi => 128,
            Model::Sectored => 32,
        }
    }

    /// The model's default L1 capacity when the arch says nothing better.
    pub fn default_l1_bytes(self) -> u64 {
        match self {
            // Fermi's 64 KB is split 16 KB L1 / 48 KB shared by default.
            Model::Fermi => 16 * 1024,
            Model::Sectored => 28 * 1024,
        }
    }
}

pub const MODEL_NAMES: &str = "fermi, sectored";

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A GPU architecture, `sm_XX` (with `a` for the arch-specific variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arch {
    pub sm: u32,
    pub arch_specific: bool,
}

/// The architectures clang 19 and ptxas 12.5 both accept.
pub const SUPPORTED_SM: &[u32] = &[50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90];

impl Arch {
    /// Parses `sm_90`, `sm_90a`, `90` (also the `compute_XX` spelling).
    pub fn parse(s: &str) -> Option<Arch> {
        let t = s.trim();
        let t = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("compute_"))
            .unwrap_or(t);
        let (digits, arch_specific) = match t.strip_suffix('a') {
            Some(d) => (d, true),
            None => (t, false),
        };
        let sm: u32 = digits.parse().ok()?;
        if !SUPPORTED_SM.contains(&sm) || (arch_specific && sm != 90) {
            return None;
        }
        Some(Arch { sm, arch_specific })
    }

    pub fn supported_list() -> String {
        let mut v: Vec<String> = SUPPORTED_SM.iter().map(|s| format!("sm_{s}")).collect();
        v.push("sm_90a".into());
        v.join(", ")
    }

    /// Volta (sm_70) and later: sectored L1, weak plain loads allocate in L1.
    pub fn is_sectored(self) -> bool {
        self.sm >= 70
    }

    pub fn default_model(self) -> Model {
        if self.is_sectored() {
            Model::Sectored
        } else {
            Model::Fermi
        }
    }

    /// L1 bytes a block can count on under `model` on this arch.
    pub fn default_l1_bytes(self, model: Model) -> u64 {
        if model == Model::Fermi || !self.is_sectored() {
            return model.default_l1_bytes();
        }
        // Unified L1+shared minus the largest shared carveout (CUDA guide tables).
        let kb = match self.sm {
            70 | 72 => 128 - 96,
            75 => 96 - 64,
            80 | 87 => 192 - 164,
            86 | 89 => 128 - 100,
            _ => 256 - 228,
        };
        kb * 1024
    }

    /// The PTX ISA feature clang 19 selects with CUDA 12.5.
    pub fn ptx_feature(self) -> &'static str {
        "+ptx85"
    }

    /// The PTX ISA version LLVM 19's NVPTX backend emits for this CPU when
    /// the module's `target-features` name none: the minimum of the CPU's
    /// processor definition (NVPTX.td; read from `llc-19 -mcpu=sm_XX`'s
    /// `.version` line on an empty module).
    pub fn min_ptx_version(self) -> u32 {
        match (self.sm, self.arch_specific) {
            (90, true) => 80,
            (50, _) => 40,
            (52, _) => 41,
            (53, _) => 42,
            (60..=62, _) => 50,
            (70, _) => 60,
            (72, _) => 61,
            (75, _) => 63,
            (80, _) => 70,
            (86, _) => 71,
            (87, _) => 74,
            _ => 78,
        }
    }

    /// The PTX ISA version the backend will write for a module whose
    /// `target-features` ask for `requested` (`+ptx85` → 85): the larger of
    /// the request and the CPU's minimum.
    pub fn emitted_ptx_version(self, requested: Option<u32>) -> u32 {
        requested.unwrap_or(0).max(self.min_ptx_version())
    }

    /// The operator that makes a load go through L1, or `None` when the
    /// plain `ld.global` already does on this generation.
    pub fn cache_op(self) -> Option<CacheOp> {
        if self.is_sectored() {
            None
        } else {
            Some(CacheOp::Ca)
        }
    }

    /// The operator that makes a load skip L1 in PTX ISA version `ptx`
    /// (85 for 8.5). `.L1::no_allocate` needs PTX ISA 7.4 (PTX ISA, `ld`).
    pub fn bypass_op(self, ptx: u32) -> CacheOp {
        if self.is_sectored() && ptx >= 74 {
            CacheOp::NoAllocate
        } else {
            CacheOp::Cg
        }
    }

    /// Spelling of `cache_op` for reports (`None`: the plain load).
    pub fn cache_operator(self) -> Option<&'static str> {
        self.cache_op().map(CacheOp::spelling)
    }

    /// Spelling of `bypass_op` for a module at PTX ISA `ptx` (`None`: current).
    pub fn bypass_operator(self, ptx: Option<u32>) -> &'static str {
        self.bypass_op(ptx.unwrap_or(u32::MAX)).spelling()
    }
}

/// A cache operator of PTX `ld.global` that gpucc-cache writes. The only
/// place where these are spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    /// `.ca`: cache at all levels (L1 and L2).
    Ca,
    /// `.cg`: cache in L2 only (a strong load on sm_70+).
    Cg,
    /// `.L1::no_allocate` (PTX 7.4, sm_70+): a weak load that does not
    /// allocate in L1.
    NoAllocate,
}

impl CacheOp {
    pub fn spelling(self) -> &'static str {
        match self {
            CacheOp::Ca => "ca",
            CacheOp::Cg => "cg",
            CacheOp::NoAllocate => "L1::no_allocate",
        }
    }

    /// The reverse of `spelling`; anything else is not ours.
    pub fn parse(s: &str) -> Option<CacheOp> {
        [CacheOp::Ca, CacheOp::Cg, CacheOp::NoAllocate]
            .into_iter()
            .find(|op| op.spelling() == s)
    }

    /// Whether the operator may follow `.nc` (PTX ISA, `ld.global.nc`:
    /// eviction priorities after `.nc`; `.ca`/`.cg` would change the path).
    pub fn fits_non_coherent(self) -> bool {
        self == CacheOp::NoAllocate
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sm_{}{}",
            self.sm,
            if self.arch_specific { "a" } else { "" }
        )
    }
}

/// The operator a lowered load is written with: a cache operator, after
/// `.nc` for loads the backend reads through the non-coherent path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsmOp {
    pub nc: bool,
    pub op: CacheOp,
}

impl AsmOp {
    /// The PTX suffix after `ld.global.`.
    pub fn suffix(self) -> String {
        if self.nc {
            format!("nc.{}", self.op.spelling())
        } else {
            self.op.spelling().to_string()
        }
    }

    /// The whole opcode prefix, as reports and metadata spell it.
    pub fn spelling(self) -> String {
        format!("ld.global.{}", self.suffix())
    }

    /// Parses a report/metadata operator (`ld.global.cg`,
    /// `ld.global.nc.L1::no_allocate`); anything else is not ours and `None`.
    pub fn parse(operator: &str) -> Option<AsmOp> {
        let rest = operator.strip_prefix("ld.global.")?;
        let (nc, rest) = match rest.strip_prefix("nc.") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let op = CacheOp::parse(rest)?;
        (!nc || op.fits_non_coherent()).then_some(AsmOp { nc, op })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spellings() {
        assert_eq!(Arch::parse("sm_90").unwrap().sm, 90);
        assert!(Arch::parse("sm_90a").unwrap().arch_specific);
        assert_eq!(Arch::parse("compute_52").unwrap().sm, 52);
        assert!(Arch::parse("sm_91").is_none());
        assert!(Arch::parse("sm_80a").is_none());
        assert!(Arch::parse("banana").is_none());
    }

    #[test]
    fn operators_follow_generation() {
        let maxwell = Arch::parse("sm_52").unwrap();
        let hopper = Arch::parse("sm_90").unwrap();
        assert_eq!(maxwell.cache_operator(), Some("ca"));
        assert_eq!(maxwell.bypass_operator(None), "cg");
        assert_eq!(hopper.cache_operator(), None);
        assert_eq!(hopper.bypass_operator(Some(85)), "L1::no_allocate");
        assert_eq!(hopper.bypass_operator(Some(73)), "cg");
        assert_eq!(hopper.default_model(), Model::Sectored);
        assert_eq!(maxwell.default_model(), Model::Fermi);
        assert_eq!(hopper.default_l1_bytes(Model::Sectored), 28 * 1024);
        assert_eq!(hopper.default_l1_bytes(Model::Fermi), 16 * 1024);
    }

    #[test]
    fn emitted_ptx_follows_the_cpu_minimum() {
        let volta = Arch::parse("sm_70").unwrap();
        // llc-19 -mcpu=sm_70 on a module without +ptx features writes .version 6.0.
        assert_eq!(volta.emitted_ptx_version(None), 60);
        assert_eq!(
            volta.bypass_op(volta.emitted_ptx_version(None)),
            CacheOp::Cg
        );
        assert_eq!(volta.emitted_ptx_version(Some(85)), 85);
        assert_eq!(Arch::parse("sm_90a").unwrap().min_ptx_version(), 80);
        assert_eq!(CacheOp::parse("L1::no_allocate"), Some(CacheOp::NoAllocate));
        assert_eq!(CacheOp::parse("bogus"), None);
    }
}
