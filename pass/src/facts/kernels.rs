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

/// The grids the host launches of `symbol` give, by line, where the user
/// gave none (for this kernel or for all): empty when the user did. Several
/// when the launches pass different constant grids (the driver then passes
/// each launch's); the nominal launch's (`nominal_launch_line`) is the
/// kernel's grid (`Kernel::grid`), the others go with the launch variants
/// (`analysis::launch`).
pub fn launch_grids(opts: &Options, symbol: &str) -> Vec<(u32, Dim3)> {
    launch_shapes(&opts.kernel_grids, opts.grid.is_some(), symbol)
}

/// The blocks the host launches of `symbol` give, by line, as
/// `launch_grids` gives grids: several where launches pass different
/// constant blocks, the nominal launch's the kernel's (`Kernel::block`).
pub fn launch_blocks(opts: &Options, symbol: &str) -> Vec<(u32, Dim3)> {
    launch_shapes(&opts.kernel_blocks, opts.block.is_some(), symbol)
}

fn launch_shapes(shapes: &[KernelShape], for_all: bool, symbol: &str) -> Vec<(u32, Dim3)> {
    let user = shape_for(shapes, symbol).is_some_and(|k| k.origin == ShapeOrigin::User);
    if user || for_all {
        return Vec::new();
    }
    let mut out: Vec<(u32, Dim3)> = (shapes.iter())
        .filter(|k| names_kernel(symbol, &k.kernel))
        .filter_map(|k| match k.origin {
            ShapeOrigin::HostLaunch { line } => Some((line, k.dim)),
            ShapeOrigin::User => None,
        })
        .collect();
    out.sort_by_key(|g| g.0);
    out.dedup();
    out
}

/// The line of the launch of `symbol` whose values the model takes where
/// launches differ: the first in the source, over the launches whose
/// arguments or grid the driver passed.
pub fn nominal_launch_line(opts: &Options, symbol: &str) -> Option<u32> {
    let args = (opts.launch_args.iter())
        .filter(|a| names_kernel(symbol, &a.kernel))
        .map(|a| a.line);
    let grids = launch_grids(opts, symbol).into_iter().map(|g| g.0);
    let blocks = launch_blocks(opts, symbol).into_iter().map(|g| g.0);
    args.chain(grids).chain(blocks).min()
}

/// The grid (or block) of the launch at `line` among `grids`
/// (`launch_grids`, `launch_blocks`): the one shape where every entry
/// agrees (the driver then passes one, at the line of the launch it met
/// first); else the entry at `line`, `None` where there is none or two
/// launches at that line differ.
pub fn shape_at(grids: &[(u32, Dim3)], line: u32) -> Option<Dim3> {
    let first = grids.first()?.1;
    if grids.iter().all(|g| g.1 == first) {
        return Some(first);
    }
    let mut at = grids.iter().filter(|g| g.0 == line);
    let first = at.next()?.1;
    at.all(|g| g.1 == first).then_some(first)
}

impl Kernel {
    /// The grid the analysis assumes: the user's for this kernel, the
    /// user's for all, a host launch's (where launches differ, the nominal
    /// launch's, whose arguments the model takes too:
    /// `analysis::launch::argument_values`); `None` when unknown.
    pub fn grid(&self, opts: &Options) -> Option<Dim3> {
        let symbol = self.function.name();
        let own = shape_for(&opts.kernel_grids, &symbol);
        match own {
            Some(k) if k.origin == ShapeOrigin::User => Some(k.dim),
            _ if opts.grid.is_some() => opts.grid,
            _ => {
                let grids = launch_grids(opts, &symbol);
                let line = nominal_launch_line(opts, &symbol).unwrap_or_default();
                shape_at(&grids, line)
            }
        }
    }

    /// The host launches' block: the one every launch passes, or where
    /// they pass different ones, the nominal launch's (`None` where its
    /// line has none, or two that differ), with the line it came from.
    fn launch_block(&self, opts: &Options) -> Option<(u32, Dim3)> {
        let symbol = self.function.name();
        let blocks = launch_blocks(opts, &symbol);
        let first = *blocks.first()?;
        if blocks.iter().all(|b| b.1 == first.1) {
            return Some(first);
        }
        let line = nominal_launch_line(opts, &symbol).unwrap_or_default();
        shape_at(&blocks, line).map(|d| (line, d))
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
        } else if let Some((line, d)) = self.launch_block(opts) {
            (d, BlockSource::HostLaunch(line))
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
    fn launches_with_different_grids_give_each_its_line() {
        let grid = |x, y| Dim3 { x, y, z: 1 };
        let shape = |line, dim| KernelShape {
            kernel: "gemm".into(),
            dim,
            origin: ShapeOrigin::HostLaunch { line },
        };
        let arg = |line| crate::options::LaunchArg {
            kernel: "gemm".into(),
            line,
            index: 0,
            value: Some(1),
        };
        // One entry: every launch's grid, whatever the line.
        let mut opts = Options {
            kernel_grids: vec![shape(93, grid(9, 13))],
            launch_args: vec![arg(93), arg(94)],
            ..Options::default()
        };
        let grids = launch_grids(&opts, "_Z4gemmPf");
        assert_eq!(shape_at(&grids, 94), Some(grid(9, 13)));
        // Two (the driver's order need not be the source's): each launch's
        // own; the nominal launch is the first line of any launch.
        opts.kernel_grids = vec![shape(94, grid(4, 4)), shape(93, grid(9, 13))];
        let grids = launch_grids(&opts, "_Z4gemmPf");
        assert_eq!(grids, [(93, grid(9, 13)), (94, grid(4, 4))]);
        assert_eq!(nominal_launch_line(&opts, "_Z4gemmPf"), Some(93));
        assert_eq!(shape_at(&grids, 94), Some(grid(4, 4)));
        assert_eq!(shape_at(&grids, 95), None);
        // A launch with arguments before both grids: its grid is unknown.
        opts.launch_args.push(arg(80));
        assert_eq!(nominal_launch_line(&opts, "_Z4gemmPf"), Some(80));
        // Two launches at one line with different grids: neither.
        opts.kernel_grids.push(shape(93, grid(2, 2)));
        assert_eq!(shape_at(&launch_grids(&opts, "_Z4gemmPf"), 93), None);
        // The user's grid wins over every launch's.
        opts.kernel_grids.push(KernelShape {
            kernel: "gemm".into(),
            dim: grid(3, 3),
            origin: ShapeOrigin::User,
        });
        assert!(launch_grids(&opts, "_Z4gemmPf").is_empty());
    }

    #[test]
    fn launches_with_different_blocks_give_each_its_line() {
        let block = |x| Dim3 { x, y: 1, z: 1 };
        let shape = |line, dim| KernelShape {
            kernel: "sums".into(),
            dim,
            origin: ShapeOrigin::HostLaunch { line },
        };
        // Blocks of 256 at line 34 and 128 at line 33: by line, the first
        // line the nominal launch; grids count for it too.
        let mut opts = Options {
            kernel_blocks: vec![shape(34, block(256)), shape(33, block(128))],
            kernel_grids: vec![shape(34, block(4)), shape(33, block(8))],
            ..Options::default()
        };
        let blocks = launch_blocks(&opts, "_Z4sumsPf");
        assert_eq!(blocks, [(33, block(128)), (34, block(256))]);
        assert_eq!(nominal_launch_line(&opts, "_Z4sumsPf"), Some(33));
        assert_eq!(shape_at(&blocks, 34), Some(block(256)));
        // A block for every kernel (`--block-dim=`) takes precedence.
        opts.block = Some(block(64));
        assert!(launch_blocks(&opts, "_Z4sumsPf").is_empty());
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
