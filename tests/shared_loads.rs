//! Lanes that load at one address in one warp instruction get one value
//! (`Expr::Loaded`, `walk::Sharing::share`): an index the compiler cannot
//! know is still the same for the lanes that read it together, so what
//! they read through it shares lines. Found by the held-out `embedding_bag`
//! (`testdata/holdout/`), whose 16 lanes a bag read one index each step:
//! the model took 16 unknowns and predicted 11.7x the simulated bytes.
//! `testdata/model/shared_index.cu`, one block of 128 threads (4 warps) on
//! sm_70 (32-byte sectors); the figures are the model's L2->L1 bytes with
//! every load bypassing L1 (`traffic_bytes.cache_none`), worked by hand.

mod common;

use common::*;

fn cache_none(kernel: &str) -> u64 {
    let r = json_report(
        &testdata("model/shared_index.cu"),
        "sm_70",
        &["--grid-dim=1", "--kernel-arg=len=128"],
    );
    function_named(&r, kernel)["simulated"]["traffic_bytes"]["cache_none"]
        .as_u64()
        .unwrap()
}

#[test]
fn lanes_reading_one_index_read_one_row() {
    // gather_rows: per warp, `idx[t / 16]` at two addresses 4 B apart: one
    // sector, 32 B. Each 16-lane group then reads 16 consecutive floats of
    // its row, 64 B at a 64-byte-aligned offset: 2 sectors, 4 per warp,
    // 128 B. 4 warps x (32 + 128) = 640 B. With an unknown per lane, every
    // lane's table read was a sector of its own: 4 x (32 + 32 x 32) = 4,224.
    assert_eq!(cache_none("gather_rows"), 640);
}

#[test]
fn a_loop_from_a_shared_start_walks_one_row() {
    // sum_rows: each warp starts at one loaded `starts[t / 32]` and reads
    // 32 consecutive floats a step. Its bound is loaded too, so the walk
    // runs its guessed 8 steps. Per warp: the start, one sector (32 B);
    // each step 128 B from a start whose offset within a sector the walk
    // varies (`walk::START_OFFSETS`): 4 or 5 sectors. 4 warps: between
    // 4 x (32 + 8 x 4 x 32) = 4,224 and 4 x (32 + 8 x 5 x 32) = 5,248 B.
    // With a start per lane each step was 32 sectors: 4 x (32 + 8 x 1,024)
    // = 32,896.
    let bytes = cache_none("sum_rows");
    assert!((4224..=5248).contains(&bytes), "{bytes}");
}
