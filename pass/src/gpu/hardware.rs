//! The per-architecture hardware model (design.md §6): for every GPU in
//! [`SUPPORTED_SM`], what the SM's first-level data cache looks like (size,
//! shared-memory carveouts, line and sector, whether ordinary global loads
//! use it) and the residency limits the occupancy calculation needs.
//!
//! It is a table of documented facts and nothing else: no IR, no kernel, no
//! launch. Choosing a carveout for a launch is `occupancy`'s job; what the
//! cache does with a trace is `l1sim`'s. Which PTX spells "cache" and
//! "bypass" stays in `generation`.
//!
//! Sources, named beside each fact:
//! - *Guide*: CUDA C++ Programming Guide, "Compute Capabilities" appendix:
//!   the "Technical Specifications per Compute Capability" table (CUDA 11.x
//!   edition for the 5.x–7.2 columns, CUDA 12.9 edition for 7.5–9.0) and the
//!   "Compute Capability 5.x / 6.x / 7.x / 8.x / 9.0" sections
//!   (Architecture, Global Memory, Shared Memory).
//! - *Occupancy header*: `cuda_occupancy.h` from the CUDA toolkit (the
//!   occupancy calculator): allocation granularities, register
//!   sub-partitions, partitioned global caching.
//! - *Pascal Tuning Guide*, §"L1 Cache" (GP100 vs GP104 global caching).
//! - *Forum*: NVIDIA developer forum, "Pascal L1 cache" (answers by NVIDIA
//!   staff, posts 12 and 14): Maxwell/Pascal and Volta L1 lines and sector
//!   fills.
//! - *MT4G*: caps-tum/mt4g microbenchmark reports (Quadro P6000, V100,
//!   A100): measured line size, fetch granularity, L2 size, reserved shared
//!   memory per block.
//! - *Whitepaper*: the architecture whitepaper / product datasheet of the
//!   part named in `l2_part`, for L2 sizes.
//! - *Accel-Sim*: the Accel-Sim framework's Volta model
//!   (`gpu-simulator/gpgpu-sim/configs/tested-cfgs/SM7_QV100`,
//!   `-gpgpu_cache:dl1 S:4:128:64,...`: 4 sets of 128 B lines, ways
//!   following the carveout), tuned with its own microbenchmarks. One
//!   tool's reading, not an NVIDIA statement: kept apart as
//!   `measured_sets`, for scenarios only.
//! - *Probe*: this project's pointer-chase probe (`bench/device/l1probe.cu`)
//!   run on a real part (`bench/device/README.md`, raw output in
//!   `bench/device/results/`): [`Measured`], kept per entry.
//!
//! Where the sources disagree or say nothing, the entry says which
//! assumption it makes.

use crate::gpu::generation::{Arch, SUPPORTED_SM};

/// Threads per warp on every supported part (Guide, table: "Warp size").
pub const WARP_SIZE: u32 = 32;

const KB: u64 = 1024;
const MB: u64 = 1024 * KB;

/// How the SM's L1 data cache and its shared memory share (or do not share)
/// storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataCache {
    /// Maxwell and Pascal: a unified L1/texture cache of fixed size beside a
    /// dedicated shared memory; no carveout to choose.
    Separate { l1_bytes: u64 },
    /// Volta and later: one array per SM; the runtime carves shared memory
    /// out of it in one of `carveouts` (ascending, bytes) and the rest is L1.
    Unified {
        bytes: u64,
        carveouts: &'static [u64],
    },
}

/// What an ordinary (coherent, weak) global load does with L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalLoads {
    /// Cached in L2 only; L1 holds only data read through the read-only
    /// path (`ld.global.nc`, `__ldg`).
    L2Only,
    /// Cached in L1 only when asked (`ld.global.ca`, ptxas `-dlcm=ca`), and
    /// then only for launches whose blocks fit in half an SM ("partitioned
    /// global caching", Occupancy header).
    OptIn,
    /// Cached in L1 unless told otherwise.
    L1ByDefault,
}

/// What a miss brings into L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Only the 32-byte sectors of the line that the request touched.
    Sectors,
    /// The whole line (Fermi/Kepler-style cached loads; no supported part
    /// does this, but the paper's model assumes it, and a machine
    /// description may say it).
    WholeLine,
}

/// How an L1 line's address picks its set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetIndex {
    /// The line number modulo the sets.
    Linear,
    /// Fermi's hash, measured on a GTX470 by Nugteren, Coenen, Corporaal and
    /// Gómez-Luna ("A Detailed GPU Cache Model Based on Reuse Distance
    /// Theory", HPCA 2014) and used by GPGPU-Sim's Fermi configuration
    /// (its `H` set function): for 32 sets, the line's 5 low index bits
    /// (address bits 7-11 for 128-byte lines) XOR address bits 13, 14, 15,
    /// 17 and 19; for 64 sets (48 KB), address bit 12 above them. Defined
    /// for those two set counts only.
    FermiHash,
}

/// One architecture's hardware facts. Sizes are in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// `XX` of `sm_XX` (`sm_90a` shares `sm_90`'s entry).
    pub sm: u32,
    /// Architecture family, for reports.
    pub family: &'static str,
    pub data_cache: DataCache,
    pub global_loads: GlobalLoads,
    /// L1 line (tag) size: capacity is occupied in whole lines.
    pub line_bytes: u64,
    /// Sector size: the unit a miss fetches from L2.
    pub sector_bytes: u64,
    pub fill: Fill,
    /// Ways per set; `None` where NVIDIA documents none, to be modelled as
    /// fully associative over the stated capacity.
    pub associativity: Option<u32>,
    /// How a line picks its set, where `associativity` gives sets.
    pub set_index: SetIndex,
    /// Sets per L1 unit as a microbenchmark or simulator measured them,
    /// with a linear index (line number mod sets) and the ways following
    /// the capacity; uncertain (one tool's measurement), so the model uses
    /// it as a scenario beside `associativity`, never in its place.
    pub measured_sets: Option<u32>,
    /// What the probe measured on a real part of this entry, settling
    /// questions the documents leave open; `None` where no part was
    /// measured (and for a machine description, which is another machine).
    pub measured: Option<&'static Measured>,
    /// Separate L1/texture units per SM, each serving a fixed part of its
    /// warp schedulers (a half SM on Maxwell/Pascal); the L1 bytes above are
    /// the sum over them, and each unit caches only for its blocks.
    pub l1_slices: u32,
    /// Shared memory an SM can give to its blocks (the largest carveout).
    pub shared_per_sm: u64,
    /// Shared memory one block may use, with the opt-in above 48 KB.
    pub shared_per_block: u64,
    /// Unit in which a block's shared memory is allocated.
    pub shared_granularity: u64,
    /// Shared memory the driver reserves for every resident block.
    pub shared_reserved_per_block: u64,
    pub max_threads_per_block: u32,
    pub max_blocks_per_sm: u32,
    pub max_warps_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// 32-bit registers one block may hold.
    pub registers_per_block: u32,
    pub max_registers_per_thread: u32,
    /// Registers are allocated per warp in multiples of this.
    pub register_granularity: u32,
    /// Register-file sub-partitions (one per warp scheduler); a warp's
    /// registers come from one of them.
    pub register_partitions: u32,
    /// L2 bytes of `l2_part`, the flagship part of the architecture.
    pub l2_bytes: u64,
    pub l2_part: &'static str,
    /// SMs of the machine, where a machine description gives them
    /// (`machine`); `None` in the table: [`Hardware::sm_count`] answers
    /// for `l2_part`.
    pub sms: Option<u32>,
}

/// Volta carveouts (Guide 7.x "Shared Memory"; Occupancy header).
const VOLTA_CARVEOUTS: &[u64] = &[0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 96 * KB];
/// Turing offers only two (Guide 7.x "Shared Memory").
const TURING_CARVEOUTS: &[u64] = &[32 * KB, 64 * KB];
/// sm_80 and sm_87 (Guide 8.x "Shared Memory").
const GA100_CARVEOUTS: &[u64] = &[
    0,
    8 * KB,
    16 * KB,
    32 * KB,
    64 * KB,
    100 * KB,
    132 * KB,
    164 * KB,
];
/// sm_86 and sm_89 (Guide 8.x "Shared Memory").
const GA102_CARVEOUTS: &[u64] = &[0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 100 * KB];
/// sm_90 (Guide 9.0 "Shared Memory").
const HOPPER_CARVEOUTS: &[u64] = &[
    0,
    8 * KB,
    16 * KB,
    32 * KB,
    64 * KB,
    100 * KB,
    132 * KB,
    164 * KB,
    196 * KB,
    228 * KB,
];

/// Answers a real part gave the probe (`bench/device/l1probe.cu`: one thread,
/// or a thread of a second warp of the block, walks a chain of dependent
/// loads after another walk warmed L1; on the H200 an L1 hit took about 39
/// cycles and an L2 hit 281-290, from the slope between walk lengths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    /// The part, driver and date, for the report.
    pub part: &'static str,
    /// `.L1::no_allocate` loads hit lines that other loads allocated: the
    /// same thread's `.ca` loads, and another warp's default `ld.global`
    /// (the product's own pattern: a cached load, then a bypassed one).
    pub no_allocate_hits: bool,
    /// Whether a linear index over 4 sets (Accel-Sim's Volta model,
    /// `measured_sets`) holds; `false`: the probe refuted it, and the entry
    /// has no `measured_sets`.
    pub four_linear_sets: bool,
    /// L1 the probe could not use, below the nominal size the carveout
    /// leaves: the "effective L1" scenario takes at least this much off.
    pub l1_shortfall_bytes: u64,
}

/// H200 (sm_90), driver 580.159.04, 2026-11-27 (`bench/device/README.md`).
///
/// - no_allocate: `.ca` then `.L1::no_allocate` in one thread, and the
///   default load in warp 0 then `.L1::no_allocate` in warp 1, hit (45.8
///   and 45.6 cycles per load of 64, against 288 for L2;
///   `results/H200/l1probe.txt`).
/// - Sets: 1,536 lines at strides of 512 B to 4 KB, in address order, all
///   hit on the second walk (38.8 cycles; `results/H200-5rounds/
///   l1probe.txt`); a linear index over 4 sets holds about 448 such lines
///   at the default carveout. Hashed or other indexes were not probed.
/// - Shortfall: at the default carveout (nominal 224 KB) 216 KB of lines
///   all hit and 220 KB did not (53 cycles); where the carveout left 28 KB,
///   24 KB of lines already missed a quarter of the time (101-109 cycles):
///   about 8 KB below nominal at either size, more than 8 % of a small L1.
///
/// Measured and left open: a store then a load of the same word hit (the
/// probe wrote and read one word per line, which does not tell whether the
/// store allocates the sector or only the bytes it wrote), so "stores
/// allocate" stays a scenario. Also measured, and already the model's:
/// sector fills (a line's second sector missed after its first was loaded),
/// `.cg` neither hits nor allocates, `.nc` and the default load allocate,
/// and the default carveout is the smallest that holds the blocks the other
/// limits allow (`occupancy` test `sm90_carveout_follows_the_h200`).
pub const H200_MEASURED: Measured = Measured {
    part: "H200 (sm_90), driver 580.159.04, 2026-11-27",
    no_allocate_hits: true,
    four_linear_sets: false,
    l1_shortfall_bytes: 8 * KB,
};

/// Facts every supported part shares.
const COMMON: Hardware = Hardware {
    sm: 0,
    family: "",
    data_cache: DataCache::Separate { l1_bytes: 24 * KB },
    global_loads: GlobalLoads::L1ByDefault,
    // Forum post 12: "For all Maxwell - Pascal the L1/TEX cache line size is
    // 128B consisting of 4 32B sectors. On a load miss only the 32B sectors
    // in the cache line that were accessed are loaded from L2"; post 14 says
    // the same of Volta. MT4G measures line 128 B / fetch 32 B on P6000,
    // V100 and A100. NVIDIA states nothing newer, so Turing..Hopper keep it.
    line_bytes: 128,
    sector_bytes: 32,
    fill: Fill::Sectors,
    // Not documented for any part; microbenchmark papers disagree and the
    // set count changes with the carveout.
    associativity: None,
    set_index: SetIndex::Linear,
    measured_sets: None,
    measured: None,
    l1_slices: 1,
    shared_per_sm: 0,
    // Guide table: 48 KB per block on 5.x and 6.x.
    shared_per_block: 48 * KB,
    // Occupancy header, cudaOccSMemAllocationGranularity: 256 for 5.x-7.x.
    shared_granularity: 256,
    // Guide 8.x/9.0 "Shared Memory": 1 KB per block reserved from 8.0 on;
    // MT4G reads reservedSharedMemPerBlock = 0 on P6000 and V100.
    shared_reserved_per_block: 0,
    // Guide table: all supported parts.
    max_threads_per_block: 1024,
    max_blocks_per_sm: 32,
    max_warps_per_sm: 64,
    registers_per_sm: 64 * 1024,
    registers_per_block: 64 * 1024,
    max_registers_per_thread: 255,
    // Occupancy header, cudaOccRegAllocationGranularity: 256 registers per
    // warp for every supported major version.
    register_granularity: 256,
    // Occupancy header, cudaOccSubPartitionsPerMultiprocessor: 4, except 2 on
    // 6.0 (Guide 6.x: GP100 has 2 warp schedulers).
    register_partitions: 4,
    l2_bytes: 0,
    l2_part: "",
    sms: None,
};

/// Maxwell and Pascal except GP100: two L1/texture units per SM, one per
/// pair of warp schedulers (MT4G counts 2 per SM on P6000; the GM107 SM
/// diagram pairs its processing blocks the same way).
const MAXWELL: Hardware = Hardware {
    family: "Maxwell",
    // Guide 5.x "Architecture": "a unified L1/texture cache of 24 KB". The
    // GM20x and GP10x L1/TEX are "very similar" (Forum post 12) and MT4G
    // finds 2 x 24 KB on GP102, so 5.x may hold more; the Guide's smaller
    // figure is kept: a smaller L1 only makes caching more cautious.
    data_cache: DataCache::Separate { l1_bytes: 24 * KB },
    // Guide 5.x "Global Memory": ordinary loads are not cached in L1 on 5.0;
    // on 5.2 only when enabled (.ca, -dlcm=ca, -fscm=ca). The Occupancy
    // header's cudaOccPartitionedGlobalCachingModeSupport lists 5.2 and 5.3,
    // so 5.3 is opt-in like 5.2 (the Guide does not name 5.3).
    global_loads: GlobalLoads::OptIn,
    l1_slices: 2,
    ..COMMON
};

const VOLTA: Hardware = Hardware {
    family: "Volta",
    // Guide 7.x "Shared Memory": 128 KB unified, carveouts 0..96 KB; 7.2
    // (Xavier) is listed beside 7.0 in the table and the Occupancy header
    // treats every 7.x but 7.5 as Volta.
    data_cache: DataCache::Unified {
        bytes: 128 * KB,
        carveouts: VOLTA_CARVEOUTS,
    },
    // The Guide's 7.x-9.0 "Global Memory" sections still say "behaves as
    // 5.x", which contradicts the hardware: ptxas turns a plain ld.global
    // into a weak LDG.E that allocates in L1 (design.md §5, SASS read on
    // sm_75/80/90), and the Volta Tuning Guide §"Unified Shared
    // Memory/L1/Texture Cache" describes the L1 as the path of ordinary
    // device-memory accesses. The SASS wins.
    global_loads: GlobalLoads::L1ByDefault,
    // Guide table: 96 KB per SM and per block on 7.0 and 7.2.
    shared_per_sm: 96 * KB,
    shared_per_block: 96 * KB,
    // Accel-Sim's QV100 model: 4 sets, ways = L1 / (4 x 128 B). An Ampere
    // config of the same tool (192 KB unified) keeps `S:4:128:64`; the model
    // assumes 4 sets on every unified part. Uncertain: a scenario only.
    measured_sets: Some(4),
    ..COMMON
};

const AMPERE: Hardware = Hardware {
    family: "Ampere",
    // Guide 8.x "Shared Memory": 192 KB on 8.0 and 8.7, 128 KB on 8.6/8.9.
    data_cache: DataCache::Unified {
        bytes: 192 * KB,
        carveouts: GA100_CARVEOUTS,
    },
    // Guide table: 164 KB per SM, 163 KB per block (1 KB reserved).
    shared_per_sm: 164 * KB,
    shared_per_block: 163 * KB,
    // Occupancy header: 128 from 8.x on.
    shared_granularity: 128,
    shared_reserved_per_block: KB,
    ..VOLTA
};

static TABLE: [Hardware; 14] = [
    Hardware {
        sm: 50,
        // Guide 5.x "Global Memory": not cacheable in L1 on 5.0.
        global_loads: GlobalLoads::L2Only,
        // Guide table: 64 KB shared per SM on 5.0.
        shared_per_sm: 64 * KB,
        l2_bytes: 2 * MB,
        l2_part: "GM107 (GeForce GTX 750 Ti)",
        ..MAXWELL
    },
    Hardware {
        sm: 52,
        shared_per_sm: 96 * KB,
        l2_bytes: 3 * MB,
        l2_part: "GM200 (GeForce GTX Titan X, Tesla M40)",
        ..MAXWELL
    },
    Hardware {
        sm: 53,
        shared_per_sm: 64 * KB,
        // Guide table: 32 K registers per block on 5.3 (Tegra X1).
        registers_per_block: 32 * 1024,
        l2_bytes: 256 * KB,
        l2_part: "GM20B (Tegra X1)",
        ..MAXWELL
    },
    Hardware {
        sm: 60,
        family: "Pascal",
        // Pascal Tuning Guide: "By default, GP100 caches global loads in the
        // L1/Texture cache"; the Occupancy header excludes 6.0 from
        // partitioned global caching. (Guide 6.x only says "as 5.x".)
        global_loads: GlobalLoads::L1ByDefault,
        // Guide 6.x "Architecture": 24 KB L1/texture, 64 KB shared on 6.0;
        // its 2 schedulers make one L1/texture unit.
        data_cache: DataCache::Separate { l1_bytes: 24 * KB },
        l1_slices: 1,
        shared_per_sm: 64 * KB,
        register_partitions: 2,
        l2_bytes: 4 * MB,
        l2_part: "GP100 (Tesla P100)",
        ..MAXWELL
    },
    Hardware {
        sm: 61,
        family: "Pascal",
        // Pascal Tuning Guide: GP104 caches global loads in L2 only unless
        // opted in with -dlcm=ca, like Maxwell.
        global_loads: GlobalLoads::OptIn,
        // Guide 6.x "Architecture": 48 KB L1/texture, 96 KB shared on 6.1;
        // MT4G measures 2 x 24 KB on a P6000 (GP102).
        data_cache: DataCache::Separate { l1_bytes: 48 * KB },
        shared_per_sm: 96 * KB,
        // MT4G measures 3 MB on a Quadro P6000.
        l2_bytes: 3 * MB,
        l2_part: "GP102 (Titan Xp, Tesla P40, Quadro P6000)",
        ..MAXWELL
    },
    Hardware {
        sm: 62,
        family: "Pascal",
        // Assumption: the Guide says 6.x global memory behaves as 5.x and
        // the Occupancy header lists 6.2 for partitioned global caching, so
        // opt-in as on GP104 (no tuning guide covers GP10B).
        global_loads: GlobalLoads::OptIn,
        // Guide 6.x "Architecture": 24 KB L1/texture, 64 KB shared on 6.2.
        data_cache: DataCache::Separate { l1_bytes: 24 * KB },
        shared_per_sm: 64 * KB,
        registers_per_block: 32 * 1024,
        l2_bytes: 512 * KB,
        l2_part: "GP10B (Jetson TX2)",
        ..MAXWELL
    },
    Hardware {
        sm: 70,
        // MT4G measures 6 MB on a V100-PCIE.
        l2_bytes: 6 * MB,
        l2_part: "GV100 (Tesla V100)",
        ..VOLTA
    },
    Hardware {
        sm: 72,
        l2_bytes: 512 * KB,
        l2_part: "GV10B (Jetson AGX Xavier)",
        ..VOLTA
    },
    Hardware {
        sm: 75,
        family: "Turing",
        // Guide 7.x "Shared Memory": 96 KB unified, shared 32 or 64 KB.
        data_cache: DataCache::Unified {
            bytes: 96 * KB,
            carveouts: TURING_CARVEOUTS,
        },
        shared_per_sm: 64 * KB,
        shared_per_block: 64 * KB,
        // Guide table: 16 blocks, 32 warps (1024 threads) per SM on 7.5.
        max_blocks_per_sm: 16,
        max_warps_per_sm: 32,
        l2_bytes: 6 * MB,
        l2_part: "TU102 (Titan RTX, Quadro RTX 8000)",
        ..VOLTA
    },
    Hardware {
        sm: 80,
        // MT4G measures 40 MB on an A100-PCIE-40GB.
        l2_bytes: 40 * MB,
        l2_part: "GA100 (A100 40GB)",
        ..AMPERE
    },
    Hardware {
        sm: 86,
        data_cache: DataCache::Unified {
            bytes: 128 * KB,
            carveouts: GA102_CARVEOUTS,
        },
        // Guide table: 100 KB per SM, 99 KB per block; 16 blocks, 48 warps.
        shared_per_sm: 100 * KB,
        shared_per_block: 99 * KB,
        max_blocks_per_sm: 16,
        max_warps_per_sm: 48,
        l2_bytes: 6 * MB,
        l2_part: "GA102 (GeForce RTX 3090, A40)",
        ..AMPERE
    },
    Hardware {
        sm: 87,
        // Guide table: shared as 8.0, residency as 8.6 (16 blocks, 48 warps).
        max_blocks_per_sm: 16,
        max_warps_per_sm: 48,
        l2_bytes: 4 * MB,
        l2_part: "GA10B (Jetson AGX Orin)",
        ..AMPERE
    },
    Hardware {
        sm: 89,
        family: "Ada",
        data_cache: DataCache::Unified {
            bytes: 128 * KB,
            carveouts: GA102_CARVEOUTS,
        },
        shared_per_sm: 100 * KB,
        shared_per_block: 99 * KB,
        // Guide table: 24 blocks, 48 warps per SM on 8.9.
        max_blocks_per_sm: 24,
        max_warps_per_sm: 48,
        // Full AD102; the GeForce RTX 4090 enables 72 MB of it.
        l2_bytes: 96 * MB,
        l2_part: "AD102 (RTX 6000 Ada, L40)",
        ..AMPERE
    },
    Hardware {
        sm: 90,
        family: "Hopper",
        // Guide 9.0 "Shared Memory": 256 KB unified, carveouts 0..228 KB;
        // table: 228 KB per SM, 227 KB per block, 32 blocks, 64 warps.
        data_cache: DataCache::Unified {
            bytes: 256 * KB,
            carveouts: HOPPER_CARVEOUTS,
        },
        shared_per_sm: 228 * KB,
        shared_per_block: 227 * KB,
        l2_bytes: 50 * MB,
        l2_part: "GH100 (H100 SXM5)",
        // The H200 probe refuted a linear index over 4 sets
        // (`H200_MEASURED`): no such scenario here.
        measured_sets: None,
        measured: Some(&H200_MEASURED),
        ..AMPERE
    },
];

impl Hardware {
    /// Every entry, oldest first.
    pub fn table() -> &'static [Hardware] {
        &TABLE
    }

    /// The entry for `sm_XX`, if the table has one.
    pub fn for_sm(sm: u32) -> Option<&'static Hardware> {
        TABLE.iter().find(|h| h.sm == sm)
    }

    /// The entry for an architecture (`sm_90a` is `sm_90`). `Arch::parse`
    /// admits only tabled parts; an `Arch` built by hand for another one
    /// gets the newest entry not newer than it, so this never fails.
    pub fn for_arch(arch: Arch) -> &'static Hardware {
        Hardware::for_sm(arch.sm)
            .or_else(|| TABLE.iter().rev().find(|h| h.sm <= arch.sm))
            .unwrap_or(&TABLE[0])
    }

    pub fn max_threads_per_sm(&self) -> u32 {
        self.max_warps_per_sm * WARP_SIZE
    }

    pub fn sectors_per_line(&self) -> u64 {
        self.line_bytes / self.sector_bytes
    }

    /// The carveouts the runtime may choose, ascending; empty where shared
    /// memory is dedicated.
    pub fn carveouts(&self) -> &'static [u64] {
        match self.data_cache {
            DataCache::Unified { carveouts, .. } => carveouts,
            DataCache::Separate { .. } => &[],
        }
    }

    /// The smallest carveout that holds `shared` bytes; `None` where shared
    /// memory is dedicated or no carveout is that large.
    pub fn smallest_carveout_holding(&self, shared: u64) -> Option<u64> {
        self.carveouts().iter().copied().find(|&c| c >= shared)
    }

    /// L1 bytes per SM left by `carveout`: `None` for a unified part means
    /// no carveout was given or it is not one of the supported steps; a
    /// part with dedicated shared memory takes no carveout and answers its
    /// fixed L1 size to `None` only.
    pub fn l1_bytes(&self, carveout: Option<u64>) -> Option<u64> {
        match (self.data_cache, carveout) {
            (DataCache::Separate { l1_bytes }, None) => Some(l1_bytes),
            (DataCache::Unified { bytes, carveouts }, Some(c)) if carveouts.contains(&c) => {
                Some(bytes - c)
            }
            _ => None,
        }
    }

    /// The most L1 the SM can have (smallest carveout).
    pub fn largest_l1_bytes(&self) -> u64 {
        match self.data_cache {
            DataCache::Separate { l1_bytes } => l1_bytes,
            DataCache::Unified { bytes, carveouts } => {
                bytes - carveouts.first().copied().unwrap_or(0)
            }
        }
    }

    /// The L1 left whatever carveout the runtime picks (largest carveout).
    pub fn smallest_l1_bytes(&self) -> u64 {
        match self.data_cache {
            DataCache::Separate { l1_bytes } => l1_bytes,
            DataCache::Unified { bytes, carveouts } => {
                bytes - carveouts.last().copied().unwrap_or(0)
            }
        }
    }
}

impl Hardware {
    /// SMs of the machine (`sms`), else of `l2_part`, the part the table's
    /// L2 size is for: the block
    /// scheduler deals the first wave of blocks out over this many SMs.
    /// Sources: the parts' whitepapers and product pages (GTX 750 Ti 5,
    /// Titan X 24, Tegra X1 2, P100 56, Titan Xp 30, TX2 2, V100 80,
    /// Xavier 8, Titan RTX 72, A100 108, RTX 3090 82, Orin 16, RTX 6000
    /// Ada 142, H100 SXM5 132).
    pub fn sm_count(&self) -> u32 {
        if let Some(n) = self.sms {
            return n;
        }
        match self.sm {
            50 => 5,
            52 => 24,
            53 | 62 => 2,
            60 => 56,
            61 => 30,
            70 => 80,
            72 => 8,
            75 => 72,
            80 => 108,
            86 => 82,
            87 => 16,
            89 => 142,
            _ => 132,
        }
    }
}

/// Every supported architecture, for callers that iterate (tests, reports).
pub fn supported() -> impl Iterator<Item = &'static Hardware> {
    SUPPORTED_SM.iter().filter_map(|&sm| Hardware::for_sm(sm))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::generation::Model;

    #[test]
    fn every_supported_arch_has_one_entry() {
        for &sm in SUPPORTED_SM {
            let hits = TABLE.iter().filter(|h| h.sm == sm).count();
            assert_eq!(hits, 1, "sm_{sm}");
        }
        assert_eq!(TABLE.len(), SUPPORTED_SM.len());
        assert_eq!(supported().count(), SUPPORTED_SM.len());
        let hopper_a = Arch::parse("sm_90a").unwrap();
        assert_eq!(Hardware::for_arch(hopper_a).sm, 90);
        // A hand-built, untabled arch falls back to the newest older entry.
        let odd = Arch {
            sm: 88,
            arch_specific: false,
        };
        assert_eq!(Hardware::for_arch(odd).sm, 87);
        assert_eq!(
            Hardware::for_arch(Arch {
                sm: 30,
                arch_specific: false
            })
            .sm,
            50
        );
    }

    #[test]
    fn carveouts_ascend_and_fit_the_unified_array() {
        for hw in supported() {
            let sm = hw.sm;
            match hw.data_cache {
                DataCache::Unified { bytes, carveouts } => {
                    assert!(carveouts.windows(2).all(|w| w[0] < w[1]), "sm_{sm}");
                    assert!(carveouts.iter().all(|&c| c <= bytes), "sm_{sm}");
                    // The largest carveout is the table's shared memory per SM.
                    assert_eq!(carveouts.last(), Some(&hw.shared_per_sm), "sm_{sm}");
                    assert!(hw.sm >= 70, "sm_{sm}");
                }
                DataCache::Separate { .. } => assert!(hw.sm < 70, "sm_{sm}"),
            }
            assert!(hw.shared_per_block <= hw.shared_per_sm, "sm_{sm}");
            assert!(hw.registers_per_block <= hw.registers_per_sm, "sm_{sm}");
            assert!(
                hw.max_threads_per_block <= hw.max_threads_per_sm(),
                "sm_{sm}"
            );
            assert_eq!(hw.sectors_per_line(), 4, "sm_{sm}");
        }
    }

    #[test]
    fn l1_left_by_a_carveout() {
        let a100 = Hardware::for_sm(80).unwrap();
        // 192 KB unified - 100 KB shared = 92 KB.
        assert_eq!(a100.l1_bytes(Some(100 * KB)), Some(92 * KB));
        assert_eq!(a100.l1_bytes(Some(0)), Some(192 * KB));
        assert_eq!(a100.l1_bytes(Some(50 * KB)), None, "not a step");
        assert_eq!(a100.l1_bytes(None), None);
        let turing = Hardware::for_sm(75).unwrap();
        assert_eq!(turing.l1_bytes(Some(0)), None, "Turing has no 0 KB step");
        assert_eq!(turing.largest_l1_bytes(), 64 * KB);
        let maxwell = Hardware::for_sm(52).unwrap();
        assert_eq!(maxwell.l1_bytes(None), Some(24 * KB));
        assert_eq!(maxwell.l1_bytes(Some(0)), None);
        assert_eq!(maxwell.smallest_carveout_holding(0), None);
        assert_eq!(a100.smallest_carveout_holding(9 * KB), Some(16 * KB));
        assert_eq!(a100.smallest_carveout_holding(165 * KB), None);
    }

    #[test]
    fn agrees_with_the_generation_table() {
        // generation.rs counts on unified minus the largest carveout.
        for hw in supported().filter(|h| h.sm >= 70) {
            let arch = Arch {
                sm: hw.sm,
                arch_specific: false,
            };
            assert_eq!(
                arch.default_l1_bytes(Model::Sectored),
                hw.smallest_l1_bytes(),
                "sm_{}",
                hw.sm
            );
        }
    }

    #[test]
    fn measured_sets_only_on_unified_parts() {
        for hw in supported() {
            let unified = matches!(hw.data_cache, DataCache::Unified { .. });
            // sm_90: the H200 probe refuted 4 linear sets.
            let want = if unified && hw.sm != 90 {
                Some(4)
            } else {
                None
            };
            assert_eq!(hw.measured.is_some(), hw.sm == 90, "sm_{}", hw.sm);
            assert_eq!(hw.measured_sets, want, "sm_{}", hw.sm);
            // Two L1/TEX units exactly on Maxwell/Pascal but GP100.
            let two = hw.sm < 70 && hw.sm != 60;
            assert_eq!(hw.l1_slices, if two { 2 } else { 1 }, "sm_{}", hw.sm);
        }
    }

    #[test]
    fn global_load_caching_by_generation() {
        let kind = |sm| Hardware::for_sm(sm).unwrap().global_loads;
        assert_eq!(kind(50), GlobalLoads::L2Only);
        for sm in [52, 53, 61, 62] {
            assert_eq!(kind(sm), GlobalLoads::OptIn, "sm_{sm}");
        }
        for sm in [60, 70, 72, 75, 80, 86, 87, 89, 90] {
            assert_eq!(kind(sm), GlobalLoads::L1ByDefault, "sm_{sm}");
        }
    }
}
