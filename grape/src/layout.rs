//! Where each cluster's edges run on the GPU: the thread order a host program
//! launches, so that one cluster's threads share one SM's L1.
//!
//! The block scheduler deals the first wave of blocks to the SMs in turn, so
//! SM s runs blocks s, s + S, s + 2S, ... (S SMs; the kernel-level model in
//! `gpucc-cache-pass` assumes the same dealing). A cluster is the
//! `blocks_per_sm` blocks that share one SM in one wave: cluster c runs on SM
//! c mod S in wave c div S, in blocks `wave·S·b + c mod S + j·S`, j < b. A
//! cluster holds at most `threads_per_block · blocks_per_sm` edges; the threads
//! it does not fill are padding (edge −1), which the kernel skips.
//!
//! Without a launch shape the order is the clusters one after another.

use crate::partition::EdgePartition;

/// The launch a partition is laid out for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub threads_per_block: u32,
    /// Co-resident blocks per SM (occupancy).
    pub blocks_per_sm: u32,
    pub sms: u32,
}

/// Per thread, the edge it works on (−1: padding), and the blocks to launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadOrder {
    pub edge: Vec<i64>,
    pub blocks: u64,
}

impl Launch {
    /// Threads of one cluster: the blocks one SM holds at once.
    pub fn cluster_threads(&self) -> u64 {
        u64::from(self.threads_per_block) * u64::from(self.blocks_per_sm)
    }

    /// The clusters `edges` edges need: as few as hold them all (at least 1).
    pub fn parts_for(&self, edges: usize) -> u64 {
        (edges as u64)
            .div_ceil(self.cluster_threads().max(1))
            .max(1)
    }
}

/// The thread order of `partition`: laid out over SMs when `launch` is given,
/// else the clusters concatenated. Inside a cluster, edges keep input order.
pub fn thread_order(partition: &EdgePartition, launch: Option<&Launch>) -> ThreadOrder {
    let order = partition.edge_order();
    let Some(l) = launch else {
        return ThreadOrder {
            blocks: 0,
            edge: order.into_iter().map(i64::from).collect(),
        };
    };
    let (t, b, s) = (
        u64::from(l.threads_per_block),
        u64::from(l.blocks_per_sm),
        u64::from(l.sms.max(1)),
    );
    let k = u64::from(partition.parts);
    let waves = k.div_ceil(s);
    let blocks = waves * s * b;
    let mut edge = vec![-1i64; (blocks * t) as usize];
    let mut at = 0usize;
    for c in 0..k {
        let (wave, sm) = (c / s, c % s);
        let start = at;
        while at < order.len() && u64::from(partition.cluster[order[at] as usize]) == c {
            at += 1;
        }
        for (p, &e) in order[start..at].iter().enumerate() {
            let (j, lane) = (p as u64 / t, p as u64 % t);
            let block = wave * s * b + sm + j * s;
            edge[(block * t + lane) as usize] = i64::from(e);
        }
    }
    ThreadOrder { edge, blocks }
}

/// Whether every cluster fits its blocks.
pub fn fits(partition: &EdgePartition, launch: &Launch) -> bool {
    partition
        .loads()
        .iter()
        .all(|&n| n <= launch.cluster_threads())
}
