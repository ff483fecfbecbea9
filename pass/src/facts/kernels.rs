//! Which functions are kernels, and the block size each one is launched with.
//!
//! A kernel is what LLVM 19's NVPTX backend emits as `.entry`: a function
//! whose first `!nvvm.annotations` `"kernel"` entry is 1 (clang 19, NVVM
//! IR), or, without such an entry, one with the `ptx_kernel` calling
//! convention (newer producers). Block size: the user's, else `reqntid`, else
//! `maxntid` (`__launch_bounds__`), else a stated default.

use crate::facts::names::names_kernel;
use crate::llvm::ir::{Module, Value};
use crate::options::{Dim3, KernelShape, Options, ShapeOrigin, DEFAULT_BLOCK};

/// LLVM's `CallingConv::PTX_Kernel`.
const PTX_KERNEL_CC: u32 = 71;

/// Where a kernel's block size came from, for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockSource {
    User,
    /// A constant `<<<grid, block>>>` in the host code, at this line.
    HostLaunch(u32),
    Reqntid,
    Maxntid,
    Default,
}

impl BlockSource {
    pub fn name(self) -> String {
        match self {
            BlockSource::User => "user".into(),
            BlockSource::HostLaunch(line) => format!("host launch at line {line}"),
            BlockSource::Reqntid => "reqntid".into(),
            BlockSource::Maxntid => "maxntid (__launch_bounds__)".into(),
            BlockSource::Default => "default".into(),
        }
    }
}

fn origin_source(o: ShapeOrigin) -> BlockSource {
    match o {
        ShapeOrigin::User => BlockSource::User,
        ShapeOrigin::HostLaunch { line } => BlockSource::HostLaunch(line),
    }
}

/// The shape given for the kernel `symbol`: the user's first, then the
/// first host launch.
pub fn shape_for<'a>(shapes: &'a [KernelShape], symbol: &str) -> Option<&'a KernelShape> {
    let mine = |k: &&KernelShape| names_kernel(symbol, &k.kernel);
    shapes
        .iter()
        .filter(mine)
        .find(|k| k.origin == ShapeOrigin::User)
        .or_else(|| shapes.iter().find(mine))
}

/// Of `names`, the one nearest to `wanted` in edit distance (the first of
/// equals), for "did you mean" warnings.
pub fn nearest<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names.into_iter().min_by_key(|n| edit_distance(wanted, n))
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[derive(Clone, Debug)]
pub struct Kernel {
    pub function: Value,
    pub reqntid: Option<Dim3>,
    pub maxntid: Option<Dim3>,
}

#[derive(Default)]
struct Bounds {
    /// The first `"kernel"` annotation's value, as LLVM 19 reads it.
    kernel: Option<bool>,
    reqntid: [Option<u32>; 3],
    maxntid: [Option<u32>; 3],
}

fn dim(v: [Option<u32>; 3]) -> Option<Dim3> {
    v[0].map(|x| Dim3 {
        x,
        y: v[1].unwrap_or(1),
        z: v[2].unwrap_or(1),
    })
}

/// Parses `"x,y,z"` as newer LLVMs write `"nvvm.reqntid"` / `"nvvm.maxntid"`.
fn dim_attr(f: Value, key: &str) -> Option<Dim3> {
    let s = f.string_attribute(key)?;
    let v: Vec<u32> = s.split(',').filter_map(|p| p.trim().parse().ok()).collect();
    let x = *v.first()?;
    Some(Dim3 {
        x,
        y: v.get(1).copied().unwrap_or(1),
        z: v.get(2).copied().unwrap_or(1),
    })
}

/// The module's kernels in definition order.
pub fn find(module: Module) -> Vec<Kernel> {
    let mut bounds: Vec<(Value, Bounds)> = Vec::new();
    for node in module.named_metadata("nvvm.annotations") {
        let ops = node.md_operands();
        let Some(f) = ops
            .first()
            .copied()
            .filter(|f| !f.is_null() && f.is_function())
        else {
            continue;
        };
        let idx = match bounds.iter().position(|(g, _)| *g == f) {
            Some(i) => i,
            None => {
                bounds.push((f, Bounds::default()));
                bounds.len() - 1
            }
        };
        let b = &mut bounds[idx].1;
        for pair in ops[1..].chunks(2) {
            let [key, val] = pair else { continue };
            let (Some(key), Some(val)) = (key.md_string(), val.const_int()) else {
                continue;
            };
            let axis = |s: &str| match s {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if key == "kernel" {
                b.kernel.get_or_insert(val == 1);
            } else if let Some(a) = key.strip_prefix("reqntid").and_then(axis) {
                b.reqntid[a] = u32::try_from(val).ok();
            } else if let Some(a) = key.strip_prefix("maxntid").and_then(axis) {
                b.maxntid[a] = u32::try_from(val).ok();
            }
        }
    }
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration())
        .filter_map(|f| {
            let b = bounds.iter().find(|(g, _)| *g == f).map(|(_, b)| b);
            // LLVM 19 (NVPTXUtilities isKernelFunction): an annotation
            // decides when there is one, even `"kernel", i32 0` on a
            // ptx_kernel function; only without it does the convention count.
            let is_kernel = b
                .and_then(|b| b.kernel)
                .unwrap_or(f.calling_conv() == PTX_KERNEL_CC);
            is_kernel.then(|| Kernel {
                function: f,
                reqntid: b
                    .and_then(|b| dim(b.reqntid))
                    .or_else(|| dim_attr(f, "nvvm.reqntid")),
                maxntid: b
                    .and_then(|b| dim(b.maxntid))
                    .or_else(|| dim_attr(f, "nvvm.maxntid")),
            })
        })
        .collect()
}

impl Kernel {
    /// The grid the analysis assumes: the user's for this kernel, the
    /// user's for all, a host launch's; `None` when unknown.
    pub fn grid(&self, opts: &Options) -> Option<Dim3> {
        let own = shape_for(&opts.kernel_grids, &self.function.name());
        match own {
            Some(k) if k.origin == ShapeOrigin::User => Some(k.dim),
            _ => opts.grid.or(own.map(|k| k.dim)),
        }
    }

    /// The block size the analysis assumes, and why.
    /// Launch bounds outside CUDA's limits (more than 1024 threads) are ignored.
    pub fn block(&self, opts: &Options) -> (Dim3, BlockSource) {
        let valid = |d: &Dim3| d.is_valid_block();
        let symbol = self.function.name();
        let own = shape_for(&opts.kernel_blocks, &symbol);
        if let Some(k) = own.filter(|k| k.origin == ShapeOrigin::User) {
            (k.dim, BlockSource::User)
        } else if let Some(d) = opts.block {
            (d, BlockSource::User)
        } else if let Some(k) = own {
            (k.dim, origin_source(k.origin))
        } else if let Some(d) = self.reqntid.filter(valid) {
            (d, BlockSource::Reqntid)
        } else if let Some(d) = self.maxntid.filter(valid) {
            (d, BlockSource::Maxntid)
        } else {
            (DEFAULT_BLOCK, BlockSource::Default)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::names::source_name;

    #[test]
    fn nearest_name_by_edit_distance() {
        assert_eq!(source_name("_ZN2ns6kernelIfLi4EEEvPT_"), "kernel");
        assert_eq!(source_name("saxpy"), "saxpy");
        let names = ["stencil", "saxpy", "transpose"];
        assert_eq!(nearest("sxapy", names), Some("saxpy"));
        assert_eq!(nearest("transposed", names), Some("transpose"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(nearest("x", []), None);
    }

    #[test]
    fn names_kernel_rejects_other_names() {
        assert!(!names_kernel("_Z10calc_temp2Pf", "calc_temp"));
        assert!(!names_kernel("_ZN2ns6kernelEPf", "ns"));
        assert!(!names_kernel("_Z5saxpyifPfS_", "saxp"));
        assert!(!names_kernel("saxpy", "sax"));
        assert!(!names_kernel("_Z6kernelPf", ""));
        for malformed in [
            "_Z",
            "_Z99abc",
            "_ZN2ns",
            "_ZN2nsI",
            "_Z18446744073709551616x",
            "_ZNS",
            "_Z\u{f1}",
            "_Z2\u{f1}Pf",
            "_ZN2nsI\u{f1}E",
            "_ZN2nsIDv",
            "_ZN2nsIS",
            "_ZN1aB",
        ] {
            assert!(!names_kernel(malformed, "ns"), "{malformed}");
        }
    }
}
