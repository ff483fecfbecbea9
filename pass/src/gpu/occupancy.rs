//! Co-resident blocks per SM and the L1 they share (design.md §6): from a
//! block size, a register count and the block's shared memory, how many
//! blocks one SM holds, which resource stops it holding more, which
//! shared-memory carveout that leaves, and so how much L1 the SM and each of
//! its blocks get.
//!
//! The block arithmetic is the CUDA occupancy calculator's
//! (`cuda_occupancy.h`, `cudaOccMaxActiveBlocksPerMultiprocessor`):
//! warps per block rounded up; registers allocated per warp, rounded up to
//! the allocation unit and drawn from one register-file sub-partition;
//! shared memory per block plus the driver's reservation, rounded up to its
//! allocation unit. The carveout is the model's own rule, stated at
//! [`occupancy`].
//!
//! On the parts with partitioned global caching (sm_52, 53, 61, 62) a
//! kernel that caches global loads in L1 runs each block on one half of the
//! SM, which changes the block count: [`Occupancy::caching`] gives that
//! launch, as the header's `cudaOccMaxBlocksPerSMWarpsLimit` and
//! `cudaOccMaxBlocksPerSMRegsLimit` compute it under `PARTITIONED_GC_ON`.
//!
//! Deliberately not modelled: dynamic shared memory beyond what the caller
//! adds to the static figure, the carveout preference attribute, several
//! kernels sharing an SM, and thread-block clusters. No IR is read here.

use std::fmt;

use crate::gpu::hardware::{DataCache, GlobalLoads, Hardware, WARP_SIZE};

/// Registers per thread assumed when the real count (ptxas) is unknown.
/// 32 is the most that never limits occupancy on any supported part
/// (65,536 registers / 2,048 threads on the 64-warp SMs; more room on the
/// smaller ones), so the estimate never invents a register limit.
pub const ESTIMATED_REGISTERS_PER_THREAD: u32 = 32;

/// The resource that stops an SM from holding more blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The SM's resident-block slots.
    Blocks,
    /// The SM's resident-warp (thread) slots.
    Warps,
    Registers,
    SharedMemory,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Blocks => "blocks",
            Limit::Warps => "warps",
            Limit::Registers => "registers",
            Limit::SharedMemory => "shared memory",
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Blocks per SM each resource alone allows (`u32::MAX`: no limit, e.g.
/// no shared memory before Ampere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub blocks: u32,
    pub warps: u32,
    pub registers: u32,
    pub shared_memory: u32,
}

/// One launch shape on one architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Co-resident blocks on one SM.
    pub blocks_per_sm: u32,
    /// The binding limit; on a tie the SM's fixed slots (warps, then
    /// blocks) are named before the kernel's resources, since trimming
    /// registers or shared memory would not add a block.
    pub limit: Limit,
    pub limits: Limits,
    pub warps_per_block: u32,
    /// The count used: the caller's, or the estimate.
    pub registers_per_thread: u32,
    /// Whether `registers_per_thread` is [`ESTIMATED_REGISTERS_PER_THREAD`]
    /// rather than the kernel's.
    pub registers_estimated: bool,
    /// Shared memory allocated to each block: its own, plus the driver's
    /// reservation, rounded up to the allocation unit.
    pub shared_bytes_per_block: u64,
    /// The carveout chosen; `None` where shared memory is dedicated.
    pub carveout: Option<u64>,
    /// L1 bytes per SM: unified minus carveout, or the fixed L1 size.
    pub l1_bytes_per_sm: u64,
    /// `l1_bytes_per_sm` split evenly over the resident blocks.
    pub l1_bytes_per_block: u64,
    /// Whether a global load that asks for L1 is cached at this launch
    /// shape: always on parts that cache by default, never on sm_50, and on
    /// opt-in parts only when a block fits in half an SM (Guide 5.x "Global
    /// Memory": caching is skipped for launches whose blocks "consume too
    /// much of the SM's register file").
    pub l1_serves_global_loads: bool,
    /// On opt-in parts where caching survives, the launch when the kernel
    /// does cache global loads (partitioned global caching on): the fields
    /// above describe the launch without it (no load cached in L1, the
    /// driver's default). `None` elsewhere: there the fields above hold
    /// either way.
    pub caching: Option<Partitioned>,
}

/// A launch under partitioned global caching (`cuda_occupancy.h`,
/// `PARTITIONED_GC_ON`): "a CTA can only use a SM partition (a half SM),
/// and thus a half of the warp slots available per SM" and "a half of the
/// registers available per SM"; each half holds `per_half` blocks, the SM
/// twice that. The block-slot and shared-memory limits are the SM's, as in
/// the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partitioned {
    pub blocks_per_sm: u32,
    pub limit: Limit,
    pub limits: Limits,
    /// L1 bytes of one half (the SM's L1/TEX unit of that half) over the
    /// blocks it holds: the most any block of the launch shares with.
    pub l1_bytes_per_block: u64,
}

impl Occupancy {
    /// Blocks per SM when the kernel caches global loads in L1 (`cached`)
    /// or not: they differ only under partitioned global caching.
    pub fn blocks_per_sm(&self, cached: bool) -> u32 {
        match (cached, self.caching) {
            (true, Some(p)) => p.blocks_per_sm,
            _ => self.blocks_per_sm,
        }
    }
}

/// A launch shape no SM of the architecture can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OccupancyError {
    NoThreads,
    TooManyThreads {
        threads: u32,
        max: u32,
    },
    TooManyRegisters {
        per_thread: u32,
        max: u32,
    },
    /// The block's register allocation exceeds the per-block register file.
    RegisterFileExceeded {
        per_block: u64,
        max: u32,
    },
    TooMuchSharedMemory {
        bytes: u64,
        max: u64,
    },
    /// No block fits on an SM although each per-block limit holds (only a
    /// table entry that contradicts itself gets here).
    DoesNotFit {
        limit: Limit,
    },
}

impl fmt::Display for OccupancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OccupancyError::NoThreads => {
                write!(f, "a block of 0 threads cannot run: give a block size of at least 1")
            }
            OccupancyError::TooManyThreads { threads, max } => write!(
                f,
                "a block of {threads} threads exceeds the {max} a block may have: use a smaller block"
            ),
            OccupancyError::TooManyRegisters { per_thread, max } => write!(
                f,
                "{per_thread} registers per thread exceed the {max} a thread may have: give the count ptxas reports"
            ),
            OccupancyError::RegisterFileExceeded { per_block, max } => write!(
                f,
                "the block needs {per_block} registers but a block may hold {max}: use a smaller block or fewer registers"
            ),
            OccupancyError::TooMuchSharedMemory { bytes, max } => write!(
                f,
                "{bytes} bytes of shared memory per block exceed the {max} a block may use: use less shared memory"
            ),
            OccupancyError::DoesNotFit { limit } => write!(
                f,
                "not one block of this shape fits on an SM ({limit} run out): use a smaller block"
            ),
        }
    }
}

impl std::error::Error for OccupancyError {}

/// Occupancy and L1 share of a block of `threads_per_block` threads using
/// `registers_per_thread` registers (`None`: unknown, estimated) and
/// `static_shared_bytes` of shared memory (static plus any dynamic).
///
/// Carveout rule (the model's): the CUDA guide says the driver picks the
/// carveout per kernel to avoid shared-memory occupancy bottlenecks, and
/// treats `cudaFuncAttributePreferredSharedMemoryCarveout` as a hint. The
/// model takes the smallest supported carveout that holds the shared memory
/// (reservation included) of the blocks resident at the occupancy the other
/// limits reach, so a kernel without shared memory gets the most L1 the
/// part allows. That is an upper bound on L1: Nsight Compute reports show
/// drivers choosing larger ones (16 KB for 6 x 1 KB on sm_89, 32 KB on an
/// A100), e.g. to keep earlier kernels' configuration.
pub fn occupancy(
    hw: &Hardware,
    threads_per_block: u32,
    registers_per_thread: Option<u32>,
    static_shared_bytes: u64,
) -> Result<Occupancy, OccupancyError> {
    let registers = registers_per_thread.unwrap_or(ESTIMATED_REGISTERS_PER_THREAD);
    check_shape(hw, threads_per_block, registers, static_shared_bytes)?;
    let warps_per_block = threads_per_block.div_ceil(WARP_SIZE);
    let registers_per_warp = round_up(
        u64::from(registers * WARP_SIZE),
        u64::from(hw.register_granularity),
    );
    let shared_bytes_per_block = round_up(
        static_shared_bytes + hw.shared_reserved_per_block,
        hw.shared_granularity,
    );
    let limits = Limits {
        blocks: hw.max_blocks_per_sm,
        warps: hw.max_warps_per_sm / warps_per_block,
        registers: register_limit(hw, registers_per_warp, warps_per_block)?,
        shared_memory: shared_limit(hw, shared_bytes_per_block),
    };
    let (blocks_per_sm, limit) = binding(limits);
    if blocks_per_sm == 0 {
        // Unreachable after check_shape on the tabled parts; kept as an
        // error so a bad table entry cannot divide by zero below.
        return Err(OccupancyError::DoesNotFit { limit });
    }
    let (carveout, l1_bytes_per_sm) =
        carveout_and_l1(hw, u64::from(blocks_per_sm) * shared_bytes_per_block);
    let serves = serves_global_loads(hw, registers_per_warp, warps_per_block);
    let caching = (serves && hw.global_loads == GlobalLoads::OptIn)
        .then(|| {
            partitioned(
                hw,
                limits,
                registers_per_warp,
                warps_per_block,
                l1_bytes_per_sm,
            )
        })
        .flatten();
    Ok(Occupancy {
        blocks_per_sm,
        limit,
        limits,
        warps_per_block,
        registers_per_thread: registers,
        registers_estimated: registers_per_thread.is_none(),
        shared_bytes_per_block,
        carveout,
        l1_bytes_per_sm,
        l1_bytes_per_block: l1_bytes_per_sm / u64::from(blocks_per_sm),
        l1_serves_global_loads: serves,
        caching,
    })
}

/// The launch with partitioned global caching on, as the header computes
/// it: warps `(max_warps / 2) / warps_per_block × 2`; registers
/// `(warps one sub-partition holds × sub-partitions / 2) / warps_per_block
/// × 2`; blocks and shared memory as without. `None` when a block does not
/// fit a half (the header then turns caching off; `serves_global_loads`
/// has said so already) or the SM has no two halves.
fn partitioned(
    hw: &Hardware,
    whole: Limits,
    registers_per_warp: u64,
    warps: u32,
    l1_bytes_per_sm: u64,
) -> Option<Partitioned> {
    let half_warps = hw.max_warps_per_sm / 2;
    let half_partitions = u64::from(hw.register_partitions / 2);
    let registers = match registers_per_warp {
        0 => u32::MAX,
        r => {
            let per_partition = u64::from(hw.registers_per_sm / hw.register_partitions.max(1));
            saturate(per_partition / r * half_partitions / u64::from(warps) * 2)
        }
    };
    let limits = Limits {
        warps: half_warps / warps * 2,
        registers,
        ..whole
    };
    let (blocks_per_sm, limit) = binding(limits);
    if blocks_per_sm == 0 {
        return None;
    }
    // Blocks alternate between the L1 units (`l1sim`'s slices), so a unit
    // holds at most ceil(blocks / units) of them.
    let halves = u64::from(hw.l1_slices.max(1));
    Some(Partitioned {
        blocks_per_sm,
        limit,
        limits,
        l1_bytes_per_block: l1_bytes_per_sm / halves / u64::from(blocks_per_sm).div_ceil(halves),
    })
}

/// Rejects shapes the hardware refuses to launch, with the limit they break.
fn check_shape(
    hw: &Hardware,
    threads: u32,
    registers: u32,
    shared: u64,
) -> Result<(), OccupancyError> {
    if threads == 0 {
        return Err(OccupancyError::NoThreads);
    }
    if threads > hw.max_threads_per_block {
        return Err(OccupancyError::TooManyThreads {
            threads,
            max: hw.max_threads_per_block,
        });
    }
    if registers > hw.max_registers_per_thread {
        return Err(OccupancyError::TooManyRegisters {
            per_thread: registers,
            max: hw.max_registers_per_thread,
        });
    }
    if shared > hw.shared_per_block {
        return Err(OccupancyError::TooMuchSharedMemory {
            bytes: shared,
            max: hw.shared_per_block,
        });
    }
    Ok(())
}

/// Blocks the register file holds. Each warp's registers come from one
/// sub-partition, so an SM holds (warps one sub-partition fits) x
/// (sub-partitions) warps, not registers / registers-per-warp. The launch
/// check counts the block's warps rounded up to the sub-partition count
/// (the occupancy header's "hardware check").
fn register_limit(
    hw: &Hardware,
    registers_per_warp: u64,
    warps: u32,
) -> Result<u32, OccupancyError> {
    if registers_per_warp == 0 {
        return Ok(u32::MAX);
    }
    let partitions = u64::from(hw.register_partitions);
    let assumed = registers_per_warp * round_up(u64::from(warps), partitions);
    let allocated = registers_per_warp * u64::from(warps);
    let max = u64::from(hw.registers_per_block);
    if assumed > max || allocated > max {
        return Err(OccupancyError::RegisterFileExceeded {
            per_block: assumed.max(allocated),
            max: hw.registers_per_block,
        });
    }
    let per_partition = u64::from(hw.registers_per_sm) / partitions;
    let warps_per_sm = per_partition / registers_per_warp * partitions;
    Ok(saturate(warps_per_sm / u64::from(warps)))
}

/// Blocks the SM's shared memory holds at the largest carveout (or the
/// dedicated shared memory before Volta).
fn shared_limit(hw: &Hardware, per_block: u64) -> u32 {
    match hw.shared_per_sm.checked_div(per_block) {
        Some(blocks) => saturate(blocks),
        None => u32::MAX,
    }
}

/// The smallest limit, naming fixed slots before kernel resources on ties.
fn binding(limits: Limits) -> (u32, Limit) {
    [
        (limits.warps, Limit::Warps),
        (limits.blocks, Limit::Blocks),
        (limits.registers, Limit::Registers),
        (limits.shared_memory, Limit::SharedMemory),
    ]
    .into_iter()
    .fold((u32::MAX, Limit::Warps), |best, next| {
        if next.0 < best.0 {
            next
        } else {
            best
        }
    })
}

/// The carveout holding `shared` bytes and the L1 it leaves per SM.
fn carveout_and_l1(hw: &Hardware, shared: u64) -> (Option<u64>, u64) {
    match hw.data_cache {
        DataCache::Separate { l1_bytes } => (None, l1_bytes),
        DataCache::Unified { bytes, carveouts } => {
            // The shared limit keeps `shared` within the largest carveout;
            // fall back to it rather than fail if a table entry disagrees.
            let carveout = hw
                .smallest_carveout_holding(shared)
                .or_else(|| carveouts.last().copied())
                .unwrap_or(0);
            (Some(carveout), bytes.saturating_sub(carveout))
        }
    }
}

/// Whether loads asking for L1 are cached. With partitioned global caching
/// (the occupancy header's `PARTITIONED_GC_ON`) a block must fit in half an
/// SM: half the warp slots and half the register sub-partitions; if it does
/// not, the driver turns caching off for the launch.
fn serves_global_loads(hw: &Hardware, registers_per_warp: u64, warps: u32) -> bool {
    match hw.global_loads {
        GlobalLoads::L2Only => false,
        GlobalLoads::L1ByDefault => true,
        GlobalLoads::OptIn => {
            let half_warps = u64::from(hw.max_warps_per_sm / 2);
            let half_partitions = u64::from(hw.register_partitions / 2);
            let per_partition = u64::from(hw.registers_per_sm / hw.register_partitions);
            let register_warps = match per_partition.checked_div(registers_per_warp) {
                Some(w) => w * half_partitions,
                None => u64::MAX,
            };
            u64::from(warps) <= half_warps.min(register_warps)
        }
    }
}

fn round_up(value: u64, unit: u64) -> u64 {
    if unit == 0 {
        value
    } else {
        value.div_ceil(unit) * unit
    }
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KB: u64 = 1024;

    fn hw(sm: u32) -> &'static Hardware {
        Hardware::for_sm(sm).unwrap()
    }

    /// The carveout rule against a real part: `bench/device/l1probe.cu` on
    /// an H200 (driver 580.159.04, no carveout preference) launched one
    /// block of one thread with S KB of dynamic shared memory and walked L
    /// KB of lines twice; the second walk's cycles per load (L1 hit about
    /// 40, L2 about 290) show where the L1 the driver left ends
    /// (`bench/device/results/H200/l1probe.txt`, "carveout picked"):
    ///
    /// | S KB | all hits up to L KB | first L KB missing (cycles) | rule: blocks, shared, carveout, L1 |
    /// |---|---|---|---|
    /// | 0 | 216 | 220 (53) | 32 x 1 KB = 32 KB -> 32 KB, 224 KB |
    /// | 1 | 160 | 192 (74) | 32 x 2 KB = 64 KB -> 64 KB, 192 KB |
    /// | 8 | 16 | 24 (109) | 228 / 9 = 25 x 9 KB = 225 KB -> 228 KB, 28 KB |
    /// | 32 | 16 | 24 (101) | 228 / 33 = 6 x 33 KB = 198 KB -> 228 KB, 28 KB |
    /// | 64 | 48 | 64 (126) | 228 / 65 = 3 x 65 KB = 195 KB -> 196 KB, 60 KB |
    /// | 100 | 16 | 24 (105) | 228 / 101 = 2 x 101 KB = 202 KB -> 228 KB, 28 KB |
    /// | 160 | 64 | 96 (105) | 1 x 161 KB -> 164 KB, 92 KB |
    ///
    /// (1 KB reserved per block, 32 blocks at most: Guide 9.0.) Every
    /// rule L1 lies past the last all-hit size, and at most 8 KB past the
    /// first size that missed (the L1 really usable is that much short of
    /// nominal: `Measured::l1_shortfall_bytes`): the driver chose the
    /// smallest carveout holding the blocks that fit, not the smallest
    /// holding one block (that would leave 240, 192, 156 and 124 KB of L1 at
    /// 8, 32, 64 and 100 KB). The S = 0 row fits the rule and also a cap on
    /// usable L1 near 220 KB: with "prefer L1" the probe saw the same knee.
    /// The probe's registers cannot limit a one-thread block.
    #[test]
    fn sm90_carveout_follows_the_h200() {
        for (shared_kb, l1_kb) in [
            (0, 224),
            (1, 192),
            (8, 28),
            (32, 28),
            (64, 60),
            (100, 28),
            (160, 92),
        ] {
            let occ = occupancy(hw(90), 1, Some(32), shared_kb * KB).unwrap();
            assert_eq!(
                occ.l1_bytes_per_sm,
                l1_kb * KB,
                "{shared_kb} KB of shared memory"
            );
        }
    }

    #[test]
    fn sm80_no_shared_memory_is_warp_bound() {
        // 256 threads = 8 warps. Warps: 64 / 8 = 8 blocks. Registers: 32 x 32
        // = 1,024 per warp (already a multiple of 256); a sub-partition holds
        // 65,536 / 4 = 16,384 -> 16 warps, x 4 = 64 warps -> 8 blocks (a tie:
        // warps named). Blocks: 32. Shared: 0 + 1 KB reserved = 1,024 B
        // (multiple of 128) -> 164 KB / 1 KB = 164 blocks.
        // 8 blocks x 1 KB = 8 KB of shared -> carveout 8 KB, L1 = 192 - 8 =
        // 184 KB, 184 / 8 = 23 KB per block.
        let occ = occupancy(hw(80), 256, Some(32), 0).unwrap();
        assert_eq!(occ.blocks_per_sm, 8);
        assert_eq!(occ.limit, Limit::Warps);
        assert_eq!(
            occ.limits,
            Limits {
                blocks: 32,
                warps: 8,
                registers: 8,
                shared_memory: 164
            }
        );
        assert_eq!(occ.shared_bytes_per_block, KB);
        assert_eq!(occ.carveout, Some(8 * KB));
        assert_eq!(occ.l1_bytes_per_sm, 184 * KB);
        assert_eq!(occ.l1_bytes_per_block, 23 * KB);
        assert!(!occ.registers_estimated);
        assert!(occ.l1_serves_global_loads);
    }

    #[test]
    fn sm90_with_16_kb_of_shared_memory() {
        // Shared: 16,384 + 1,024 reserved = 17,408 B (a multiple of 128);
        // 228 KB = 233,472 B / 17,408 = 13.4 -> 13 blocks. Warps: 64 / 8 = 8.
        // Registers: 8 (as on sm_80). -> 8 blocks, warp-bound.
        // 8 x 17 KB = 136 KB -> smallest step >= 136 KB is 164 KB;
        // L1 = 256 - 164 = 92 KB = 94,208 B; / 8 = 11,776 B per block.
        let occ = occupancy(hw(90), 256, Some(32), 16 * KB).unwrap();
        assert_eq!(occ.blocks_per_sm, 8);
        assert_eq!(occ.limit, Limit::Warps);
        assert_eq!(occ.limits.shared_memory, 13);
        assert_eq!(occ.shared_bytes_per_block, 17 * KB);
        assert_eq!(occ.carveout, Some(164 * KB));
        assert_eq!(occ.l1_bytes_per_sm, 92 * KB);
        assert_eq!(occ.l1_bytes_per_block, 11_776);
    }

    #[test]
    fn sm90_shared_memory_bound() {
        // 128 threads, 48 KB shared: 48 + 1 = 49 KB per block;
        // 228 / 49 = 4.65 -> 4 blocks. Warps: 64 / 4 = 16; blocks: 32;
        // registers: 64 / 4 = 16. -> 4 blocks, shared-bound.
        // 4 x 49 = 196 KB -> carveout 196 KB, L1 = 256 - 196 = 60 KB, 15 KB each.
        let occ = occupancy(hw(90), 128, Some(32), 48 * KB).unwrap();
        assert_eq!(occ.blocks_per_sm, 4);
        assert_eq!(occ.limit, Limit::SharedMemory);
        assert_eq!(occ.carveout, Some(196 * KB));
        assert_eq!(occ.l1_bytes_per_sm, 60 * KB);
        assert_eq!(occ.l1_bytes_per_block, 15 * KB);
    }

    #[test]
    fn sm52_register_bound() {
        // 256 threads = 8 warps, 64 registers: 64 x 32 = 2,048 per warp; a
        // sub-partition holds 16,384 / 2,048 = 8 warps, x 4 = 32 warps
        // -> 32 / 8 = 4 blocks. Warps: 64 / 8 = 8; blocks: 32; no shared
        // memory and no reservation before Ampere -> no shared limit.
        // L1/texture is a fixed 24 KB: 24 / 4 = 6 KB per block.
        // Half an SM: 2 sub-partitions x 8 = 16 warps >= 8 -> caching holds.
        let occ = occupancy(hw(52), 256, Some(64), 0).unwrap();
        assert_eq!(occ.blocks_per_sm, 4);
        assert_eq!(occ.limit, Limit::Registers);
        assert_eq!(occ.limits.shared_memory, u32::MAX);
        assert_eq!(occ.carveout, None);
        assert_eq!(occ.l1_bytes_per_sm, 24 * KB);
        assert_eq!(occ.l1_bytes_per_block, 6 * KB);
        assert!(occ.l1_serves_global_loads);
    }

    #[test]
    fn sm52_caching_dropped_when_a_block_needs_more_than_half_an_sm() {
        // 1,024 threads = 32 warps, 64 registers: 2,048 x 32 = 65,536 fits
        // the block limit; half an SM holds 16 warps of these (2 x 8) < 32.
        let occ = occupancy(hw(52), 1024, Some(64), 0).unwrap();
        assert_eq!(occ.blocks_per_sm, 1);
        assert!(!occ.l1_serves_global_loads);
        // sm_50 never caches ordinary loads in L1.
        assert!(
            !occupancy(hw(50), 128, Some(32), 0)
                .unwrap()
                .l1_serves_global_loads
        );
    }

    /// Issue 19, fact 9: `cuda_occupancy.h` under `PARTITIONED_GC_ON`.
    #[test]
    fn partitioned_global_caching_confines_a_block_to_half_an_sm() {
        // sm_52, 96 threads = 3 warps, 32 registers = 1,024 per warp.
        // Without caching: warps 64 / 3 = 21; registers: a sub-partition
        // holds 16,384 / 1,024 = 16 warps, x 4 = 64 -> 21; blocks 32 -> 21,
        // warp-bound (tie named as warps).
        // With caching: warps (64 / 2) / 3 = 10 per half, x 2 = 20;
        // registers 16 x (4 / 2) = 32 per half / 3 = 10, x 2 = 20 -> 20.
        // L1: each half's 24 KB / 2 = 12,288 B over ceil(20 / 2) = 10
        // blocks = 1,228 B.
        let occ = occupancy(hw(52), 96, Some(32), 0).unwrap();
        assert_eq!((occ.blocks_per_sm, occ.limit), (21, Limit::Warps));
        let p = occ.caching.unwrap();
        assert_eq!((p.blocks_per_sm, p.limit), (20, Limit::Warps));
        assert_eq!((p.limits.warps, p.limits.registers), (20, 20));
        assert_eq!(p.l1_bytes_per_block, 1_228);
        assert_eq!(
            (occ.blocks_per_sm(false), occ.blocks_per_sm(true)),
            (21, 20)
        );
        // sm_61, 640 threads = 20 warps: 64 / 20 = 3 blocks without; with,
        // (32 / 20) x 2 = 2 (registers: 32 / 20 = 1, x 2 = 2). Each half's
        // 48 KB / 2 = 24 KB serves ceil(2 / 2) = 1 block.
        let occ = occupancy(hw(61), 640, Some(32), 0).unwrap();
        assert_eq!(occ.blocks_per_sm, 3);
        let p = occ.caching.unwrap();
        assert_eq!(p.blocks_per_sm, 2);
        assert_eq!(p.l1_bytes_per_block, 24 * KB);
        // A block that does not fit a half: caching off, no partitioned launch
        // (1,024 threads x 64 registers, see below).
        assert_eq!(occupancy(hw(52), 1024, Some(64), 0).unwrap().caching, None);
        // No partitioning where plain loads cache by default, or never do.
        for sm in [50, 60, 70, 90] {
            let occ = occupancy(hw(sm), 96, Some(32), 0).unwrap();
            assert_eq!(occ.caching, None, "sm_{sm}");
            assert_eq!(occ.blocks_per_sm(true), occ.blocks_per_sm, "sm_{sm}");
        }
    }

    #[test]
    fn registers_come_from_one_sub_partition() {
        // sm_80, 96 threads = 3 warps, 40 registers: 1,280 per warp.
        // Flat: 65,536 / 1,280 = 51 warps -> 17 blocks; per sub-partition:
        // 16,384 / 1,280 = 12 warps, x 4 = 48 -> 16 blocks. Warps: 64 / 3 =
        // 21; blocks 32 -> 16, register-bound. Shared 16 x 1 KB = 16 KB ->
        // carveout 16 KB, L1 176 KB, 11 KB per block.
        let occ = occupancy(hw(80), 96, Some(40), 0).unwrap();
        assert_eq!(occ.warps_per_block, 3);
        assert_eq!(occ.blocks_per_sm, 16);
        assert_eq!(occ.limit, Limit::Registers);
        assert_eq!(occ.carveout, Some(16 * KB));
        assert_eq!(occ.l1_bytes_per_block, 11 * KB);
        // 33 registers round up to 1,280 per warp (33 x 32 = 1,056).
        let odd = occupancy(hw(80), 96, Some(33), 0).unwrap();
        assert_eq!(
            (odd.limits, odd.l1_bytes_per_sm),
            (occ.limits, occ.l1_bytes_per_sm)
        );
    }

    #[test]
    fn turing_keeps_at_least_32_kb_of_shared_memory() {
        // sm_75, 256 threads: warps 32 / 8 = 4 blocks; no shared memory, but
        // the smallest Turing carveout is 32 KB -> L1 = 96 - 32 = 64 KB, 16 KB each.
        let occ = occupancy(hw(75), 256, Some(32), 0).unwrap();
        assert_eq!(occ.blocks_per_sm, 4);
        assert_eq!(occ.limit, Limit::Warps);
        assert_eq!(occ.carveout, Some(32 * KB));
        assert_eq!(occ.l1_bytes_per_sm, 64 * KB);
        assert_eq!(occ.l1_bytes_per_block, 16 * KB);
    }

    #[test]
    fn partial_warps_and_block_slots() {
        // sm_86, 100 threads -> 4 warps; warps 48 / 4 = 12; blocks 16 -> 12.
        // 12 x 1 KB = 12 KB -> carveout 16 KB, L1 = 128 - 16 = 112 KB.
        let occ = occupancy(hw(86), 100, Some(32), 0).unwrap();
        assert_eq!(occ.warps_per_block, 4);
        assert_eq!(occ.blocks_per_sm, 12);
        assert_eq!(occ.carveout, Some(16 * KB));
        assert_eq!(occ.l1_bytes_per_sm, 112 * KB);
        // sm_80, 32 threads: warps 64, blocks 32 -> block-slot bound.
        let small = occupancy(hw(80), 32, Some(32), 0).unwrap();
        assert_eq!((small.blocks_per_sm, small.limit), (32, Limit::Blocks));
    }

    #[test]
    fn unknown_registers_are_estimated() {
        let occ = occupancy(hw(70), 256, None, 0).unwrap();
        assert!(occ.registers_estimated);
        assert_eq!(occ.registers_per_thread, ESTIMATED_REGISTERS_PER_THREAD);
        // The estimate never binds: 64 warps fit the register file on sm_70.
        assert_eq!(occ.limits.registers, 8);
        assert_eq!(occ.limit, Limit::Warps);
        // Volta reserves nothing: carveout 0, the whole 128 KB is L1.
        assert_eq!(occ.carveout, Some(0));
        assert_eq!(occ.l1_bytes_per_sm, 128 * KB);
    }

    #[test]
    fn impossible_shapes_are_errors() {
        assert_eq!(
            occupancy(hw(80), 0, None, 0),
            Err(OccupancyError::NoThreads)
        );
        assert_eq!(
            occupancy(hw(80), 1025, None, 0),
            Err(OccupancyError::TooManyThreads {
                threads: 1025,
                max: 1024
            })
        );
        assert_eq!(
            occupancy(hw(80), 128, Some(256), 0),
            Err(OccupancyError::TooManyRegisters {
                per_thread: 256,
                max: 255
            })
        );
        assert_eq!(
            occupancy(hw(52), 128, None, 48 * KB + 1),
            Err(OccupancyError::TooMuchSharedMemory {
                bytes: 48 * KB + 1,
                max: 48 * KB
            })
        );
        assert!(occupancy(hw(80), 128, None, 163 * KB).is_ok());
        assert!(occupancy(hw(80), 128, None, 164 * KB).is_err());
        // sm_53 holds 32 K registers per block: 1,024 threads x 64 = 65,536.
        assert_eq!(
            occupancy(hw(53), 1024, Some(64), 0),
            Err(OccupancyError::RegisterFileExceeded {
                per_block: 65_536,
                max: 32_768
            })
        );
        // 1,024 threads x 255 registers (8,192 per warp x 32) never fits.
        assert!(occupancy(hw(90), 1024, Some(255), 0).is_err());
        let text = OccupancyError::NoThreads.to_string();
        assert!(!text.contains('\n'));
    }

    #[test]
    fn every_part_runs_a_typical_block() {
        for hw in crate::gpu::hardware::supported() {
            let occ = occupancy(hw, 256, None, 4 * KB).unwrap();
            assert!(occ.blocks_per_sm >= 1, "sm_{}", hw.sm);
            assert!(occ.l1_bytes_per_sm <= hw.largest_l1_bytes(), "sm_{}", hw.sm);
            assert!(
                occ.l1_bytes_per_sm >= hw.smallest_l1_bytes(),
                "sm_{}",
                hw.sm
            );
        }
    }
}
