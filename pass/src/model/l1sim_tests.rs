//! Tests of the L1 simulation (`l1sim`), kept apart so that the simulation
//! stays one concept per file: hand-worked traces for each rule, and a
//! naive reference model checked against the indexed one on random traces.

use super::*;
use crate::model::trace::{Event, Instruction};

fn trace(kinds: &[Kind], blocks: u32, warps: u32) -> Trace {
    Trace {
        instructions: (kinds.iter())
            .map(|&kind| Instruction {
                kind,
                site: String::new(),
            })
            .collect(),
        blocks,
        warps_per_block: warps,
        ..Trace::default()
    }
}

/// Appends one event: `inst` run by (`block`, `warp`) for the
/// `execution`-th time, its lanes reading `bytes` each at `addresses`.
fn push(
    t: &mut Trace,
    (inst, block, warp, execution): (u32, u32, u32, u32),
    bytes: u32,
    addresses: &[u64],
) {
    let event = Event {
        inst,
        block,
        warp,
        execution,
        bytes,
        start: 0,
        lanes: 0,
        unknown: false,
    };
    t.push(event, addresses);
}

/// `n` lanes reading consecutive `bytes`-sized elements from `base`.
fn run(base: u64, n: u64, bytes: u64) -> Vec<u64> {
    (0..n).map(|l| base + l * bytes).collect()
}

fn counts(requests: u64, sectors: u64, hits: u64, misses: u64, l2_bytes: u64) -> Counts {
    Counts {
        requests,
        sectors,
        hits,
        misses,
        l2_bytes,
        invalidated: 0,
    }
}

/// (a) Fermi: 512 B = 2 sets × 2 ways × 128 B, line fill, `.cg` bypass.
/// Line n lives in set n % 2: lines 0, 2, 4 (addresses 0, 256, 512) share
/// set 0; line 1 (address 128) is in set 1.
#[test]
fn fermi_line_fill_hit_eviction_and_bypass() {
    let mut t = trace(&[Kind::Load, Kind::Load], 1, 2);
    // e0 warp 0: 32 × 4 B at 0: line 0, 4 sectors, miss: fill 128 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    // e1 warp 1: 16 × 4 B at 0: sectors 0-1 of line 0: 2 hits.
    push(&mut t, (0, 0, 1, 0), 4, &run(0, 16, 4));
    // e2 warp 0: line 2 (set 0, second way): 4 misses, 128 B.
    push(&mut t, (0, 0, 0, 1), 4, &run(256, 32, 4));
    // e3 warp 1: line 4, set 0 full: evicts the LRU line 0 (e1 < e2).
    push(&mut t, (0, 0, 1, 1), 4, &run(512, 32, 4));
    // e4 inst 1 (.cg): line 2 is present but not looked up: 1 miss, 32 B.
    push(&mut t, (1, 0, 0, 0), 4, &[256]);
    // e5 inst 1: 2 lanes in sector 0 of line 1: 1 miss, 32 B, not installed.
    push(&mut t, (1, 0, 0, 1), 4, &[128, 132]);
    // e6 warp 1: line 0 again: evicted by e3, so 1 miss and a 128 B fill,
    // evicting set 0's LRU: line 2 (e2), since e4 did not touch it.
    push(&mut t, (0, 0, 1, 2), 4, &[0]);
    // e7 warp 0: line 1: e5 did not install it: miss, 128 B, set 1 has room.
    push(&mut t, (0, 0, 0, 2), 4, &[128]);
    // e8 warp 0: line 4 survived (e6 evicted line 2): 1 hit, filled by
    // warp 1 (e3).
    push(&mut t, (0, 0, 0, 3), 4, &[512]);

    let config = L1Config {
        ways: Some(2),
        ..L1Config::line_fill(512)
    };
    let sim = simulate(&t, &config, &[true, false]).unwrap();
    // inst 0: requests e0,e1,e2,e3,e6,e7,e8 = 7; sectors 4+2+4+4+1+1+1 =
    // 17; hits 2 (e1) + 1 (e8) = 3; misses 17 - 3 = 14; five line fills
    // (e0, e2, e3, e6, e7) = 640 B.
    assert_eq!(sim.instructions[0].counts, counts(7, 17, 3, 14, 640));
    // All three hits are warp-to-warp within block 0.
    let from = &sim.instructions[0].from;
    assert_eq!(
        (from.same_warp, from.same_block, from.other_block),
        (0, 3, 0)
    );
    // inst 1: 2 requests, 2 sectors, 2 misses, 2 × 32 B.
    assert_eq!(sim.instructions[1].counts, counts(2, 2, 0, 2, 64));
    assert_eq!(sim.loads, counts(9, 19, 3, 16, 704));
    assert_eq!(sim.evictions, 2); // e3 and e6
}

/// (b) Volta+: 256 B fully associative = 2 frames of 128 B, sector fill,
/// `.L1::no_allocate` bypass.
#[test]
fn sectored_fill_occupies_whole_lines() {
    let mut t = trace(&[Kind::Load, Kind::Load], 1, 3);
    // e0 warp 0: 32 × 4 B at 0: 1 request, 4 sectors of line 0, 4 × 32 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    // e1 warp 1: 16 × 4 B at 128: sectors 0-1 of line 1: 2 misses, 64 B,
    // not the whole line.
    push(&mut t, (0, 0, 1, 0), 4, &run(128, 16, 4));
    // e2 warp 2: sectors 0, 1 (present) and 2 (new) of line 1: 2 hits,
    // 1 miss, 32 B.
    push(&mut t, (0, 0, 2, 0), 4, &[128, 160, 192]);
    // e3 warp 0: line 2. The frames hold 4 + 3 sectors = 224 of 256 B, but
    // both are taken: the LRU frame (line 0, e0) is evicted. 1 miss, 32 B.
    push(&mut t, (0, 0, 0, 1), 4, &[256]);
    // e4 inst 1 (no_allocate): sector 0 of line 2 present: 1 hit (filled
    // by inst 0); sector 1 absent: 1 miss, 32 B, not installed.
    push(&mut t, (1, 0, 1, 0), 4, &[256, 288]);
    // e5 warp 1: sector 1 of line 2 again: e4 did not install it: 1 miss,
    // 32 B, installed now.
    push(&mut t, (0, 0, 1, 1), 4, &[288]);
    // e6 warp 0: line 0 was evicted by e3: 1 miss, 32 B; evicts the LRU:
    // line 1 (e2) is older than line 2 (e5).
    push(&mut t, (0, 0, 0, 2), 4, &[0]);

    let config = L1Config::sector_fill(256);
    let sim = simulate(&t, &config, &[true, false]).unwrap();
    // inst 0: requests 6; sectors 4+2+3+1+1+1 = 12; hits 2 (e2); misses
    // 10; bytes (4+2+1+1+1+1) × 32 = 320.
    assert_eq!(sim.instructions[0].counts, counts(6, 12, 2, 10, 320));
    assert_eq!(sim.instructions[0].from.same_block, 2);
    assert_eq!(sim.instructions[1].counts, counts(1, 2, 1, 1, 32));
    let other = OtherInst {
        inst: 0,
        hits: 1,
        other_block: 0,
    };
    assert_eq!(sim.instructions[1].from.other_inst, vec![other]);
    assert_eq!(sim.evictions, 2); // e3 (line 0) and e6 (line 1)
}

/// (c) Fermi: a store evicts the whole line it touches.
#[test]
fn fermi_store_evicts_line() {
    let mut t = trace(&[Kind::Load, Kind::Store], 1, 1);
    // e0: 32 × 4 B at 0: line 0 filled, 128 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    // e1: store 4 B at 0: line 0 present (sector 0 found): evicts all 4
    // sectors; no load bytes.
    push(&mut t, (1, 0, 0, 0), 4, &[0]);
    // e2: load at 64 (sector 2): the line is gone: miss, 128 B.
    push(&mut t, (0, 0, 0, 1), 4, &[64]);

    let sim = simulate(&t, &L1Config::line_fill(16 * 1024), &[true]).unwrap();
    assert_eq!(sim.instructions[0].counts, counts(2, 5, 0, 5, 256));
    let store = Counts {
        invalidated: 4,
        ..counts(1, 1, 1, 0, 0)
    };
    assert_eq!(sim.stores, store);
    assert_eq!(sim.evictions, 0); // an invalidation is not an eviction
}

/// (c) Volta+: stores update present sectors and allocate nothing;
/// atomics invalidate the sectors they touch.
#[test]
fn volta_store_updates_atomic_invalidates() {
    let mut t = trace(&[Kind::Load, Kind::Store, Kind::Atomic], 1, 1);
    // e0: 32 × 4 B at 0: 4 sectors, 128 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    // e1: store 16 × 4 B at 0: sectors 0-1 present; they stay valid.
    push(&mut t, (1, 0, 0, 0), 4, &run(0, 16, 4));
    // e2: load at 0: hit, still credited to the load that filled it.
    push(&mut t, (0, 0, 0, 1), 4, &[0]);
    // e3: store at 128 (line 1 absent): 1 miss, no allocation.
    push(&mut t, (1, 0, 0, 1), 4, &[128]);
    // e4: load at 128: miss (the store did not allocate), 32 B.
    push(&mut t, (0, 0, 0, 2), 4, &[128]);
    // e5: atomic at 32 (sector 1 of line 0): invalidates 1 sector.
    push(&mut t, (2, 0, 0, 0), 4, &[32]);
    // e6: 32 × 4 B at 0: sectors 0, 2, 3 hit; sector 1 misses, 32 B.
    push(&mut t, (0, 0, 0, 3), 4, &run(0, 32, 4));

    let sim = simulate(&t, &L1Config::sector_fill(16 * 1024), &[true]).unwrap();
    // loads: requests 4; sectors 4+1+1+4 = 10; hits 1 (e2) + 3 (e6) = 4;
    // misses 6; bytes (4 + 1 + 1) × 32 = 192.
    assert_eq!(sim.loads, counts(4, 10, 4, 6, 192));
    assert_eq!(sim.instructions[0].from.same_warp, 4);
    assert_eq!(sim.stores, counts(2, 3, 2, 1, 0));
    let atomic = Counts {
        invalidated: 1,
        ..counts(1, 1, 1, 0, 0)
    };
    assert_eq!(sim.atomics, atomic);
}

/// (d) Provenance over 2 blocks × 2 warps, sector fill, all loads cached.
#[test]
fn provenance_by_instruction_block_and_execution() {
    let mut t = trace(&[Kind::Load, Kind::Load, Kind::Load], 2, 2);
    // e0 inst 0, block 0 warp 0: sector 0 of line 0: miss, filler (0,0,0).
    push(&mut t, (0, 0, 0, 0), 4, &[0]);
    // e1 same warp, next execution: hit, same_warp.
    push(&mut t, (0, 0, 0, 1), 4, &[4]);
    // e1' and once more (a loop): hit, same_warp.
    push(&mut t, (0, 0, 0, 2), 4, &[20]);
    // e2 block 0 warp 1: hit, same_block.
    push(&mut t, (0, 0, 1, 0), 4, &[8]);
    // e3 block 1 warp 0: hit, other_block.
    push(&mut t, (0, 1, 0, 0), 4, &[12]);
    // e4 inst 1, block 0: hit, inst 0 in the same block.
    push(&mut t, (1, 0, 0, 0), 4, &[0]);
    // e5 inst 1, block 1: hit, inst 0 in another block.
    push(&mut t, (1, 1, 1, 0), 4, &[16]);
    // e6 inst 2, block 1: 32 × 4 B at 0: sector 0 hits (inst 0, block 0);
    // sectors 1-3 miss and are filled by inst 2 in block 1.
    push(&mut t, (2, 1, 0, 0), 4, &run(0, 32, 4));
    // e7 inst 1, block 1: sector 1: hit, inst 2 in the same block.
    push(&mut t, (1, 1, 0, 1), 4, &[32]);

    let sim = simulate(&t, &L1Config::sector_fill(16 * 1024), &[]).unwrap();
    let from0 = &sim.instructions[0].from;
    assert_eq!(
        (from0.same_warp, from0.same_block, from0.other_block),
        (2, 1, 1)
    );
    assert!(from0.other_inst.is_empty());
    let from1 = &sim.instructions[1].from;
    let expected = vec![
        OtherInst {
            inst: 0,
            hits: 2,
            other_block: 1,
        },
        OtherInst {
            inst: 2,
            hits: 1,
            other_block: 0,
        },
    ];
    assert_eq!(from1.other_inst, expected);
    let from2 = &sim.instructions[2].from;
    assert_eq!(
        from2.other_inst,
        vec![OtherInst {
            inst: 0,
            hits: 1,
            other_block: 1
        }]
    );
    assert_eq!(sim.instructions[2].counts, counts(1, 4, 1, 3, 96));
}

/// (e) Maxwell/Pascal (issue 19, fact 9): two L1/TEX units of 256 B each
/// (2 frames of 128 B), block slot b on unit b % 2.
#[test]
fn blocks_on_two_units_share_only_their_own() {
    let mut t = trace(&[Kind::Load], 3, 1);
    // e0 block 0 (unit 0): 32 x 4 B at 0: line 0, 4 sectors miss, 128 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    // e1 block 1 (unit 1): the same line: unit 1 never saw it: 4 misses.
    push(&mut t, (0, 1, 0, 0), 4, &run(0, 32, 4));
    // e2 block 2 (unit 0 again): 4 hits, filled by block 0.
    push(&mut t, (0, 2, 0, 0), 4, &run(0, 32, 4));
    // e3, e4 block 1: lines 1 and 2 fill unit 1's two frames, evicting its
    // line 0 (LRU): 1 miss each.
    push(&mut t, (0, 1, 0, 1), 4, &[128]);
    push(&mut t, (0, 1, 0, 2), 4, &[256]);
    // e5 block 0: line 0 is still in unit 0: 1 hit.
    push(&mut t, (0, 0, 0, 1), 4, &[0]);
    let config = L1Config {
        slices: 2,
        ..L1Config::sector_fill(512)
    };
    let sim = simulate(&t, &config, &[true]).unwrap();
    // requests 6; sectors 4+4+4+1+1+1 = 15; hits 4 (e2) + 1 (e5) = 5;
    // misses 10; bytes 10 x 32 = 320. One eviction (e4, unit 1's line 0).
    assert_eq!(sim.loads, counts(6, 15, 5, 10, 320));
    let from = &sim.instructions[0].from;
    assert_eq!((from.same_warp, from.other_block), (1, 4));
    assert_eq!(sim.evictions, 1);
    // One unit of 512 B (4 frames): e1 hits all 4 and nothing is evicted:
    // hits 4 + 4 + 1 = 9, misses 15 - 9 = 6, 192 B.
    let one = simulate(&t, &L1Config::sector_fill(512), &[true]).unwrap();
    assert_eq!(one.loads, counts(6, 15, 9, 6, 192));
    // 512 B cannot split into 3 units of whole lines.
    let three = L1Config {
        slices: 3,
        ..L1Config::sector_fill(512)
    };
    assert!(matches!(L1::new(three), Err(L1Error::Capacity { .. })));
}

/// (f) Issue 19, fact 8: 4 sets with a linear index. Rows 512 B apart are 4
/// lines apart, so every row start falls in set 0.
#[test]
fn power_of_two_rows_fall_in_one_set() {
    // A warp reads 8 B at the start of rows 0..3 (addresses 0, 512, 1024,
    // 1536: lines 0, 4, 8, 12, all line % 4 = 0), twice.
    let mut t = trace(&[Kind::Load], 1, 1);
    let rows: Vec<u64> = (0..4).map(|r| r * 512).collect();
    push(&mut t, (0, 0, 0, 0), 8, &rows);
    push(&mut t, (0, 0, 0, 1), 8, &rows);
    // 2 KB = 16 lines: with 4 sets, 4 ways each.
    let sets = L1Config::sector_fill(2048).with_sets(4).unwrap();
    assert_eq!((sets.ways, sets.capacity_bytes), (Some(4), 2048));
    // The 4 lines fit set 0's 4 ways: second pass 4 hits. 8 requests, 8
    // sectors, 4 misses, 128 B.
    let sim = simulate(&t, &sets, &[true]).unwrap();
    assert_eq!(sim.loads, counts(8, 8, 4, 4, 128));
    // 1 KB = 8 lines, 4 sets of 2 ways: set 0 holds 2 of the 4 rows, and
    // LRU over a cycle of 4 lines in 2 ways misses every time: 8 misses,
    // 256 B, 6 evictions (the 3rd to 8th fills).
    let small = L1Config::sector_fill(1024).with_sets(4).unwrap();
    assert_eq!(small.ways, Some(2));
    let sim = simulate(&t, &small, &[true]).unwrap();
    assert_eq!(sim.loads, counts(8, 8, 0, 8, 256));
    assert_eq!(sim.evictions, 6);
    // Fully associative, the same 8 lines hold all 4 rows: 4 hits.
    let full = simulate(&t, &L1Config::sector_fill(1024), &[true]).unwrap();
    assert_eq!(full.loads, counts(8, 8, 4, 4, 128));
    // Whole sets at any capacity: 1,000 B holds 1 set-row of 4 x 128 B (512
    // B), so 1 way and 512 B; 500 B holds none.
    let odd = L1Config::sector_fill(1000).with_sets(4).unwrap();
    assert_eq!((odd.ways, odd.capacity_bytes), (Some(1), 512));
    assert!(L1Config::sector_fill(500).with_sets(4).is_err());
}

/// Fermi's hashed set index (`SetIndex::FermiHash`, Nugteren et al., HPCA
/// 2014; GPGPU-Sim's GTX480): lines that a linear index spreads over five
/// sets fall in one.
#[test]
fn fermi_hash_puts_strided_rows_in_one_set() {
    // Lines 0, 65, 130, 195, 260 (128-byte lines; addresses 0, 8320,
    // 16640, 24960, 33280). Linear, 32 sets: sets 0, 1, 2, 3, 4. Hash: the
    // low 5 bits of the line XOR address bits 13-15 (17, 19 are 0 here):
    // 0^0, 65%32=1 ^ 8320>>13=1, 130%32=2 ^ 2, 3^3, 4^4: set 0 for all.
    let lines = [0u64, 65, 130, 195, 260];
    let mut t = trace(&[Kind::Load], 1, 1);
    for (i, &l) in lines.iter().enumerate() {
        push(&mut t, (0, 0, 0, i as u32), 4, &[l * 128]);
    }
    // Line 0 again.
    push(&mut t, (0, 0, 0, 5), 4, &[0]);
    // 16 KB of 128-byte lines, 4 ways: 32 sets (GTX480's L1).
    let linear = L1Config {
        ways: Some(4),
        ..L1Config::line_fill(16384)
    };
    // Linear: 5 compulsory misses, then a hit. 6 requests, 6 sectors,
    // 5 x 128 B.
    let sim = simulate(&t, &linear, &[true]).unwrap();
    assert_eq!(sim.loads, counts(6, 6, 1, 5, 640));
    // Hashed: the fifth line evicts line 0 from set 0's 4 ways (LRU), so
    // line 0 misses again (evicting line 65): 6 misses, 768 B, two
    // evictions.
    let hashed = L1Config {
        set_index: SetIndex::FermiHash,
        ..linear
    };
    let sim = simulate(&t, &hashed, &[true]).unwrap();
    assert_eq!(sim.loads, counts(6, 6, 0, 6, 768));
    assert_eq!(sim.evictions, 2);
    // Address bits 17 and 19 are the hash's bits 3 and 4: line 1024
    // (address 0x20000) is set 0 ^ 8 = 8, line 4096 (0x80000) set 16; with
    // 64 sets, address bit 12 (line 32) is the sixth bit: set 32.
    let g32 = hashed.geometry().unwrap();
    assert_eq!(
        (g32.set_of(1024), g32.set_of(4096), g32.set_of(32)),
        (8, 16, 0)
    );
    let g64 = L1Config {
        ways: Some(6),
        ..L1Config::line_fill(49152)
    };
    let g64 = L1Config {
        set_index: SetIndex::FermiHash,
        ..g64
    }
    .geometry()
    .unwrap();
    assert_eq!((g64.sets, g64.set_of(32), g64.set_of(33)), (64, 32, 33));
    // At a set count the hash does not define (a scenario's smaller L1:
    // 15 KB of 4 ways, 30 sets) the index is linear: line 65 is set 5.
    let odd = L1Config {
        capacity_bytes: 15360,
        ..hashed
    }
    .geometry()
    .unwrap();
    assert_eq!((odd.sets, odd.set_of(65)), (30, 5));
}

/// (g) Issue 19: stores that allocate (Accel-Sim's reading of Volta).
#[test]
fn allocating_stores_make_written_sectors_hit() {
    let mut t = trace(&[Kind::Load, Kind::Store], 1, 1);
    // e0 store 16 x 4 B at 0: sectors 0-1 of line 0, absent: 2 misses;
    // allocates line 0 with those 2 sectors valid, fetches nothing.
    push(&mut t, (1, 0, 0, 0), 4, &run(0, 16, 4));
    // e1 load 32 x 4 B at 0: sectors 0-1 hit (filled by the store), 2-3
    // miss: 64 B.
    push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
    let alloc = L1Config {
        stores: StorePolicy::AllocateSectors,
        ..L1Config::sector_fill(1024)
    };
    let sim = simulate(&t, &alloc, &[true]).unwrap();
    assert_eq!(sim.stores, counts(1, 2, 0, 2, 0));
    assert_eq!(sim.loads, counts(1, 4, 2, 2, 64));
    let other = OtherInst {
        inst: 1,
        hits: 2,
        other_block: 0,
    };
    assert_eq!(sim.instructions[0].from.other_inst, vec![other]);
    // Without write allocation the load misses all 4 sectors: 128 B.
    let sim = simulate(&t, &L1Config::sector_fill(1024), &[true]).unwrap();
    assert_eq!(sim.loads, counts(1, 4, 0, 4, 128));
}

/// (h) Issue 19, fact 2: a read-only load allocates even where plain loads
/// do not (sm_50/52 without opting in: `default_load_allocates` false).
#[test]
fn read_only_loads_allocate_where_plain_loads_do_not() {
    let mut t = trace(&[Kind::ReadOnly, Kind::FixedLoad], 1, 2);
    // Two warps read the same 32 x 4 B table through each path.
    for warp in 0..2 {
        push(&mut t, (0, 0, warp, 0), 4, &run(0, 32, 4));
        push(&mut t, (1, 0, warp, 0), 4, &run(4096, 32, 4));
    }
    let maxwell = L1Config {
        default_load_allocates: false,
        slices: 2,
        ..L1Config::line_fill(1024)
    };
    let maxwell = L1Config {
        fill: Fill::Sector,
        ..maxwell
    };
    let sim = simulate(&t, &maxwell, &[]).unwrap();
    // Read-only: warp 0 misses 4 sectors (128 B), warp 1 hits all 4.
    assert_eq!(sim.instructions[0].counts, counts(2, 8, 4, 4, 128));
    // The plain load skips L1 (.cg): 8 misses, 256 B.
    assert_eq!(sim.instructions[1].counts, counts(2, 8, 0, 8, 256));
}

#[test]
fn lanes_coalesce_per_line_in_first_touch_order() {
    let mut c = Coalescer::new();
    let g = L1Config::sector_fill(1024).geometry().unwrap();
    // 8 B at 28 spans sectors 0 and 1; 300 is line 2 sector 1; 4 is a
    // repeat of line 0 sector 0 after another line.
    c.coalesce(&[28, 300, 4, 130], 8, &g);
    let got: Vec<(u64, u32)> = c.requests.iter().map(|r| (r.line, r.sectors)).collect();
    assert_eq!(got, vec![(0, 0b11), (2, 0b10), (1, 0b1)]);
    // 300 lanes on distinct lines force the table to grow.
    let lanes: Vec<u64> = (0..300).map(|l| l * 4096).collect();
    c.coalesce(&lanes, 4, &g);
    assert_eq!(c.requests.len(), 300);
    assert!(c
        .requests
        .iter()
        .enumerate()
        .all(|(i, r)| r.line == i as u64 * 32));
}

#[test]
fn a_run_of_lanes_coalesces_as_lane_by_lane() {
    // Runs of 1, 4, 8 and 16 B per lane, from 1 to 33 lanes, at offsets
    // that start and end inside sectors and lines, on sector and line
    // geometries (32 sectors of 1 B included) and near the top of the address
    // space: the shortcut gives what the lane-by-lane pass gives.
    let geometries = [
        L1Config::sector_fill(1024).geometry().unwrap(),
        L1Config::line_fill(1024).geometry().unwrap(),
        L1Config {
            line_bytes: 32,
            sector_bytes: 1,
            ..L1Config::sector_fill(1024)
        }
        .geometry()
        .unwrap(),
    ];
    let (mut fast, mut slow) = (Coalescer::new(), Coalescer::new());
    let key = |c: &Coalescer| -> Vec<(u64, u32, u32)> {
        c.requests
            .iter()
            .map(|r| (r.line, r.sectors, r.set))
            .collect()
    };
    for g in &geometries {
        for bytes in [1u32, 4, 8, 16] {
            for n in [1u64, 2, 7, 31, 32, 33] {
                for start in [0u64, 4, 28, 120, 4096 + 96, u64::MAX - 40 * 16] {
                    let lanes: Vec<u64> = (0..n).map(|l| start + l * u64::from(bytes)).collect();
                    fast.requests.clear();
                    assert!(fast.run_of(&lanes, bytes, g));
                    slow.requests.clear();
                    slow.each_lane(&lanes, bytes, g);
                    assert_eq!(key(&fast), key(&slow), "{bytes} B x {n} from {start}");
                }
            }
        }
    }
    // Not runs: a gap, a lane out of order, zero bytes, past the top.
    let g = &geometries[0];
    for (lanes, bytes) in [
        (vec![0u64, 8], 4u32),
        (vec![4, 0], 4),
        (vec![0, 0], 0),
        (vec![u64::MAX - 3], 4),
    ] {
        fast.requests.clear();
        assert!(!fast.run_of(&lanes, bytes, g), "{lanes:?} {bytes}");
    }
}

#[test]
fn bad_geometry_is_an_error() {
    let config = L1Config {
        ways: Some(3),
        ..L1Config::sector_fill(1024)
    };
    let err = L1::new(config).err().unwrap();
    assert_eq!(
        err,
        L1Error::Capacity {
            capacity_bytes: 1024,
            set_bytes: 384
        }
    );
    let config = L1Config {
        sector_bytes: 48,
        ..L1Config::sector_fill(1024)
    };
    assert!(matches!(
        L1::new(config),
        Err(L1Error::NotPowerOfTwo { bytes: 48, .. })
    ));
    let mut t = trace(&[Kind::Load], 1, 1);
    push(&mut t, (3, 0, 0, 0), 4, &[0]);
    let err = simulate(&t, &L1Config::sector_fill(1024), &[]).unwrap_err();
    assert_eq!(err, L1Error::UnknownInstruction { event: 0, inst: 3 });
}

/// A deliberately naive model (per-set vectors of (line, valid sectors,
/// last use), linear scans, victim = oldest) to check the indexed one
/// against on pseudo-random traces. Returns loads, stores + atomics,
/// evictions.
fn naive(t: &Trace, config: &L1Config, cached: &[bool]) -> (Counts, Counts, u64) {
    let g = config.geometry().unwrap();
    let mut sets: Vec<Vec<(u64, u32, u64)>> = vec![Vec::new(); (g.slices * g.sets) as usize];
    let (mut loads, mut writes, mut evictions) = (Counts::default(), Counts::default(), 0);
    let mut c = Coalescer::new();
    let mut now = 0u64;
    for e in &t.events {
        let kind = t.instructions[e.inst as usize].kind;
        c.coalesce(t.lanes(e), e.bytes, &g);
        for r in &c.requests {
            now += 1; // per request: the lines of one event age in order
            let slice = (e.block % g.slices) * g.sets;
            let set = &mut sets[(slice + (r.line % u64::from(g.sets)) as u32) as usize];
            let mut way = set.iter().position(|w| w.0 == r.line && w.1 != 0);
            let present = way.map_or(0, |w| set[w].1 & r.sectors);
            let n = u64::from(r.sectors.count_ones());
            let hits = u64::from(present.count_ones());
            let write = matches!(kind, Kind::Store | Kind::Atomic);
            let into = if write { &mut writes } else { &mut loads };
            let allocate = matches!(kind, Kind::FixedLoad | Kind::ReadOnly)
                || kind == Kind::Load && cached.get(e.inst as usize).copied().unwrap_or(true);
            let store_allocates =
                kind == Kind::Store && config.stores == StorePolicy::AllocateSectors;
            if !write && !allocate && config.bypass == Bypass::SkipL1 {
                *into += counts(1, n, 0, n, n * 32);
                continue;
            }
            *into += counts(1, n, hits, n - hits, 0);
            if let (true, Some(w), false) = (write, way, store_allocates) {
                let removed = match (config.stores, kind) {
                    (StorePolicy::EvictLine, _) => set[w].1,
                    (_, Kind::Atomic) => present,
                    (_, _) => 0,
                };
                into.invalidated += u64::from(removed.count_ones());
                set[w].1 &= !removed;
                continue;
            }
            if write && !store_allocates {
                continue;
            }
            if present != 0 {
                set[way.unwrap()].2 = now;
            }
            if !store_allocates && (!allocate || n == hits) {
                into.l2_bytes += (n - hits) * 32;
                continue;
            }
            if way.is_none() {
                let w = if set.len() < g.ways as usize {
                    set.push((r.line, 0, 0));
                    set.len() - 1
                } else {
                    let w = (0..set.len())
                        .min_by_key(|&w| (set[w].1 != 0, set[w].2))
                        .unwrap();
                    evictions += u64::from(set[w].1 != 0);
                    w
                };
                set[w] = (r.line, 0, 0);
                way = Some(w);
            }
            let w = way.unwrap();
            let fetched = match config.fill {
                _ if store_allocates => r.sectors & !present,
                Fill::Line => g.full & !set[w].1,
                Fill::Sector => r.sectors & !present,
            };
            if !store_allocates {
                into.l2_bytes += u64::from(fetched.count_ones()) * 32;
            }
            set[w].1 |= fetched;
            set[w].2 = now;
        }
    }
    (loads, writes, evictions)
}

/// Pseudo-random trace mixing coalesced, gathered and misaligned 8 B
/// accesses over a small footprint, so that hits and evictions abound.
fn random_trace(seed: u64, events: usize) -> Trace {
    let kinds = [
        Kind::Load,
        Kind::Load,
        Kind::FixedLoad,
        Kind::Store,
        Kind::Atomic,
        Kind::ReadOnly,
    ];
    let mut t = trace(&kinds, 2, 4);
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for n in 0..events {
        let r = next();
        let inst = (r % 6) as u32;
        let base = (r >> 8) % 8192;
        let lanes: Vec<u64> = match (r >> 4) % 3 {
            0 => run(base & !3, 32, 4),
            1 => (0..32).map(|_| (next() % 8192) & !3).collect(),
            _ => run(base, 8, 8),
        };
        let bytes = if (r >> 4) % 3 == 2 { 8 } else { 4 };
        push(
            &mut t,
            (inst, (r >> 20) as u32 % 2, (r >> 24) as u32 % 4, n as u32),
            bytes,
            &lanes,
        );
    }
    t
}

/// The indexed LRU agrees with the naive one on caches of several shapes,
/// under both generations' rules.
#[test]
fn matches_naive_model_on_random_traces() {
    let shapes = [None, Some(1), Some(2), Some(4), Some(8), Some(16)];
    for (seed, ways) in shapes.into_iter().enumerate() {
        for base in [L1Config::sector_fill(2048), L1Config::line_fill(2048)] {
            let config = L1Config { ways, ..base };
            check_against_naive(&random_trace(seed as u64 + 1, 3000), &config);
        }
    }
    // Two slices (Maxwell/Pascal's L1/TEX units), and stores that allocate.
    for (seed, ways) in [None, Some(2)].into_iter().enumerate() {
        let two = L1Config {
            ways,
            slices: 2,
            // 2 KB per unit, as the single-unit shapes above.
            ..L1Config::sector_fill(4096)
        };
        check_against_naive(&random_trace(seed as u64 + 11, 3000), &two);
        let allocating = L1Config {
            ways,
            stores: StorePolicy::AllocateSectors,
            ..L1Config::sector_fill(2048)
        };
        check_against_naive(&random_trace(seed as u64 + 21, 3000), &allocating);
    }
    // Accel-Sim's shape: few wide sets (16 ways: looked up through the
    // index, not scanned) in each of two slices.
    let sets = L1Config {
        slices: 2,
        ..L1Config::sector_fill(8192)
    };
    let sets = sets.with_sets(2).unwrap();
    assert_eq!(sets.ways, Some(16));
    check_against_naive(&random_trace(31, 6000), &sets);
}

fn check_against_naive(t: &Trace, config: &L1Config) {
    let cached = [true, false];
    let sim = simulate(t, config, &cached).unwrap();
    let (loads, writes, evictions) = naive(t, config, &cached);
    assert_eq!(sim.loads, loads, "loads, {config:?}");
    let mut both = sim.stores;
    both += sim.atomics;
    assert_eq!(both, writes, "stores and atomics, {config:?}");
    assert_eq!(sim.evictions, evictions, "evictions, {config:?}");
    let busy = sim.evictions > 100 && sim.loads.hits > 1000 && both.invalidated > 100;
    assert!(busy, "the trace should exercise the cache: {sim:?}");
    // Every load hit has a filler; stores and atomics have none.
    for (i, r) in sim.instructions.iter().enumerate() {
        let f = &r.from;
        let others: u64 = f.other_inst.iter().map(|o| o.hits).sum();
        let credited = f.same_warp + f.same_block + f.other_block + others;
        let load = matches!(i, 0..=2 | 5);
        assert_eq!(credited, if load { r.counts.hits } else { 0 }, "inst {i}");
    }
}

/// `run` coalesces each event just before replaying it; `run_requests`
/// replays requests coalesced beforehand: every figure agrees (provenance
/// included), on scanned (narrow) and indexed (wide) sets, one or two
/// slices and every policy. `count_requests` gives the same counts and no
/// provenance.
#[test]
fn streamed_run_matches_replayed_requests() {
    let mut seed = 100;
    for ways in [None, Some(1), Some(4), Some(8), Some(16)] {
        for slices in [1, 2] {
            let volta = L1Config::sector_fill(2048 * slices);
            for base in [
                volta,
                L1Config::line_fill(2048 * slices),
                L1Config {
                    stores: StorePolicy::AllocateSectors,
                    ..volta
                },
                L1Config {
                    bypass: Bypass::SkipL1,
                    default_load_allocates: false,
                    ..volta
                },
            ] {
                let config = L1Config {
                    ways,
                    slices,
                    ..base
                };
                seed += 1;
                let t = random_trace(seed, 2000);
                let mut l1 = L1::new(config).unwrap();
                let requests = l1.requests(&t).unwrap();
                for cached in [&[true, false][..], &[false, true]] {
                    let sim = l1.run(&t, cached).unwrap();
                    assert_eq!(l1.run_requests(&t, &requests, cached).unwrap(), sim);
                    // Counting alone: the same counts, no provenance.
                    let counted = l1.count_requests(&t, &requests, cached).unwrap();
                    assert_eq!(
                        (counted.loads, counted.stores, counted.atomics),
                        (sim.loads, sim.stores, sim.atomics)
                    );
                    assert_eq!(counted.evictions, sim.evictions);
                    for (c, s) in counted.instructions.iter().zip(&sim.instructions) {
                        assert_eq!(c.counts, s.counts);
                        assert_eq!(c.from, Provenance::default());
                    }
                    let hits: u64 = sim.instructions.iter().map(|r| r.from.same_warp).sum();
                    assert!(hits > 0, "provenance is kept by the full replay");
                }
            }
        }
    }
}
