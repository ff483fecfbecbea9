//! A small deterministic generator (SplitMix64, Steele, Lea, Flood: "Fast splittable pseudorandom
//! number generators", OOPSLA 2014) so that generated graphs and the random baseline are the same on
//! every machine for a given seed, without a dependency.

pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..bound (bound > 0), by multiply-shift (Lemire); the bias is below 2^-32 for the
    /// bounds used here and irrelevant to a test generator.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() >> 32).wrapping_mul(bound)) >> 32
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}
