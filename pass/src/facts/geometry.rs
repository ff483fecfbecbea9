//! Launch geometry: block and grid shapes (CUDA's `dim3`). The ground
//! floor that options, kernels and evaluation share.

/// Threads per block when nothing says otherwise (reported as a warning).
pub const DEFAULT_BLOCK: Dim3 = Dim3 { x: 256, y: 1, z: 1 };

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub fn count(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// CUDA's limits on a block: at most 1024 threads, z at most 64.
    pub fn is_valid_block(self) -> bool {
        (1..=1024).contains(&self.count()) && self.z <= 64
    }

    pub fn as_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.x, self.y, self.z)
    }
}
