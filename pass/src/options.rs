//! What the user asks of the pass: policy, launch geometry, kernel
//! argument values, model and capacity overrides, report format.
//!
//! One parser serves every entry point: the pass parameters of
//! `opt -passes='gpucc-cache<policy=cache-none;block=256>'`, the
//! `GPUCC_CACHE_OPTIONS` environment variable read under
//! `clang -fpass-plugin` (where a plugin gets no parameters), and the
//! driver, which turns its flags into the same `Options`. Validation lives
//! here so that every entry point rejects the same bad values with the same
//! message.

use std::path::PathBuf;

use crate::decide::forced::Decisions;
use crate::decide::policy::{Policy, POLICY_NAMES};
use crate::error::Error;
use crate::facts::names::names_kernel;
use crate::files::{read_regular, Refused};
use crate::gpu::generation::{Arch, Model, MODEL_NAMES};
use crate::gpu::machine::Machine;

/// The environment variable the plugin reads when it gets no parameters.
pub const ENV_OPTIONS: &str = "GPUCC_CACHE_OPTIONS";

pub use crate::facts::geometry::{Dim3, DEFAULT_BLOCK};

/// A kernel argument named by its source name or its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgRef {
    Name(String),
    Index(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Text,
    Json,
    None,
}

impl ReportFormat {
    pub fn parse(s: &str) -> Option<ReportFormat> {
        match s {
            "text" => Some(ReportFormat::Text),
            "json" => Some(ReportFormat::Json),
            "none" => Some(ReportFormat::None),
            _ => None,
        }
    }
}

/// How the decisions reach the PTX (design.md §5, §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// Rewrite decided loads into inline `ld.global.<op>` asm: works in any
    /// pipeline, but ptxas sees different address arithmetic.
    Asm,
    /// Leave loads plain and key their debug locations; `gpucc-cache apply`
    /// (or the driver) writes the operators into the PTX afterwards, so the
    /// code is exactly what clang generates.
    Keys,
}

impl Lowering {
    pub fn parse(s: &str) -> Option<Lowering> {
        match s {
            "asm" => Some(Lowering::Asm),
            "keys" => Some(Lowering::Keys),
            _ => None,
        }
    }
}

/// Where a per-kernel launch shape came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeOrigin {
    /// `--block-dim=NAME=...` / `block=NAME=...`.
    User,
    /// A constant launch in the host code of the same `.cu`, at this line.
    HostLaunch { line: u32 },
}

/// A block or grid shape for the kernel whose source name is `kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelShape {
    pub kernel: String,
    pub dim: Dim3,
    pub origin: ShapeOrigin,
}

/// Parses `NAME=XxY` (user) or `NAME@LINE=XxY` (host launch).
fn parse_kernel_shape(option: &str, s: &str, is_block: bool) -> Result<KernelShape, Error> {
    let expected = "NAME=X[xY[xZ]] (a kernel's source name)";
    let (head, dims) = s.split_once('=').ok_or_else(|| bad(option, s, expected))?;
    let (kernel, origin) = match head.split_once('@') {
        Some((k, line)) => {
            let line = line
                .parse()
                .map_err(|_| bad(option, s, "NAME@LINE=X[xY[xZ]]"))?;
            (k, ShapeOrigin::HostLaunch { line })
        }
        None => (head, ShapeOrigin::User),
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if kernel.is_empty() || !kernel.chars().all(ident) {
        return Err(bad(option, s, expected));
    }
    Ok(KernelShape {
        kernel: kernel.into(),
        dim: parse_dim3(option, dims, is_block)?,
        origin,
    })
}

/// One integer argument at one host launch: at the launch of `kernel`
/// written at `line`, parameter `index` gets `value`, or `None` when it is
/// not a constant there. The analysis uses a value only when every launch
/// of the kernel gives the same one (`analysis::argument_values`), so the
/// driver passes every launch, not only the constant ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchArg {
    /// The kernel's symbol (or source name), as `KernelShape::kernel`.
    pub kernel: String,
    pub line: u32,
    pub index: u32,
    pub value: Option<i64>,
}

/// Parses `NAME@LINE=INDEX=VALUE`, VALUE an integer or `?` (not a constant).
fn parse_launch_arg(option: &str, s: &str) -> Result<LaunchArg, Error> {
    let expected = "NAME@LINE=INDEX=VALUE (a kernel, the line of its launch, a parameter index, \
                    an integer or ?), e.g. smooth@80=2=128";
    let wrong = || bad(option, s, expected);
    let mut parts = s.splitn(3, '=');
    let (head, index, value) = match (parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(i), Some(v)) => (h, i.trim(), v.trim()),
        _ => return Err(wrong()),
    };
    let (kernel, line) = head.split_once('@').ok_or_else(wrong)?;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if kernel.is_empty() || !kernel.chars().all(ident) {
        return Err(wrong());
    }
    let value = match value {
        "?" => None,
        v => Some(parse_int(v).ok_or_else(wrong)?),
    };
    Ok(LaunchArg {
        kernel: kernel.into(),
        line: line.trim().parse().map_err(|_| wrong())?,
        index: index.parse().map_err(|_| wrong())?,
        value,
    })
}

/// A host launch whose pointer arguments break what the model assumes of
/// them (distinct allocations, 256-byte aligned):
/// `overlap=NAME@[FILE:]LINE=PARAMS=WHY`, PARAMS the parameter indices it
/// concerns, comma-separated, FILE the file of a launch outside the
/// compiled source (a header); filled by the driver from the host IR
/// (`host_launch::overlaps`). The build warns, and no load through those
/// parameters is read once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchOverlap {
    /// The kernel's symbol (or source name), as `KernelShape::kernel`.
    pub kernel: String,
    /// The file of the launch when it is not the compiled source (a
    /// header's helper launched it); `None`: the source itself.
    pub file: Option<String>,
    /// 0 when the host IR has no line tables.
    pub line: u32,
    pub params: Vec<u32>,
    /// What the launch passes, in words (`arguments 0 and 1 point into one
    /// allocation`).
    pub why: String,
}

/// The allocation every host launch of a kernel gives one of its pointer
/// parameters (`extent=NAME=INDEX=BYTES[,BEFORE]`: bytes from the pointer
/// to the allocation's end, and before it; the most where launches differ), filled by the driver from the host IR
/// (`host_launch::extents`: a `cudaMalloc` of a constant size into the
/// variable the launch passes). An address through that parameter alone
/// lies within it, so the model bounds an unknown index into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchExtent {
    /// The kernel's symbol (or source name), as `KernelShape::kernel`.
    pub kernel: String,
    pub index: u32,
    pub bytes: u64,
    pub before: u64,
}

/// Parses `NAME=INDEX=BYTES[,BEFORE]`.
fn parse_launch_extent(option: &str, s: &str) -> Result<LaunchExtent, Error> {
    let wrong = || {
        bad(
            option,
            s,
            "NAME=INDEX=BYTES[,BEFORE] (a kernel, a pointer parameter's index, its allocation's \
             bytes from the pointer on, and before it), e.g. propagate=2=8192",
        )
    };
    let mut parts = s.splitn(3, '=');
    let (Some(kernel), Some(index), Some(bytes)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(wrong());
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if kernel.is_empty() || !kernel.chars().all(ident) {
        return Err(wrong());
    }
    let (bytes, before) = bytes.split_once(',').unwrap_or((bytes, "0"));
    let bytes: u64 = bytes.trim().parse().map_err(|_| wrong())?;
    let before: u64 = before.trim().parse().map_err(|_| wrong())?;
    if bytes == 0 || bytes.checked_add(before).is_none() {
        return Err(wrong());
    }
    Ok(LaunchExtent {
        kernel: kernel.into(),
        index: index.trim().parse().map_err(|_| wrong())?,
        bytes,
        before,
    })
}

/// Parses `NAME@[FILE:]LINE=PARAMS=WHY`.
fn parse_launch_overlap(option: &str, s: &str) -> Result<LaunchOverlap, Error> {
    let wrong = || {
        bad(
            option,
            s,
            "NAME@[FILE:]LINE=PARAMS=WHY (a kernel, the line of its launch, parameter indices, \
             what they share), e.g. axpy@40=1,2=arguments 1 and 2 point into one allocation",
        )
    };
    let (head, rest) = s.split_once('=').ok_or_else(wrong)?;
    let (params, why) = rest.split_once('=').ok_or_else(wrong)?;
    let params = (params.split(','))
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|_| wrong())?;
    let (kernel, at) = head.split_once('@').ok_or_else(wrong)?;
    let (file, line) = match at.rsplit_once(':') {
        Some((f, _)) if f.trim().is_empty() => return Err(wrong()),
        Some((f, l)) => (Some(f.trim().to_string()), l),
        None => (None, at),
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if kernel.is_empty() || !kernel.chars().all(ident) || why.trim().is_empty() {
        return Err(wrong());
    }
    Ok(LaunchOverlap {
        kernel: kernel.into(),
        file,
        line: line.trim().parse().map_err(|_| wrong())?,
        params,
        why: why.trim().into(),
    })
}

/// A kernel's registers per thread (`registers=NAME=N`): what ptxas
/// allocates for it, so that occupancy uses the count instead of
/// `occupancy::ESTIMATED_REGISTERS_PER_THREAD`. The driver fills it from
/// `ptxas -v` of the PTX it makes; a user of `opt` or `clang
/// -fpass-plugin` gives the count ptxas reported for the same PTX (the
/// cache operators the pass chooses do not change register allocation,
/// design.md §8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRegisters {
    /// The kernel's symbol or source name, as `KernelShape::kernel`.
    pub kernel: String,
    pub count: u32,
}

/// The most registers a thread may have on every supported part (CUDA
/// Programming Guide, compute-capability table: 255 from sm_35 on); the
/// occupancy checks the arch's own limit.
pub const MAX_REGISTERS_PER_THREAD: u32 = 255;

/// Parses `NAME=N`.
fn parse_kernel_registers(option: &str, s: &str) -> Result<KernelRegisters, Error> {
    let expected =
        "NAME=N (a kernel's symbol or source name, N registers per thread from 0 to 255, \
                    as ptxas -v reports), e.g. registers=_Z6kernelPf=40";
    let wrong = || bad(option, s, expected);
    let (kernel, count) = s.split_once('=').ok_or_else(wrong)?;
    let (kernel, count) = (kernel.trim(), count.trim());
    // PTX identifiers may also hold `$` and `.` (PTX ISA "Identifiers").
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.');
    if kernel.is_empty() || !kernel.chars().all(ident) {
        return Err(wrong());
    }
    let count = count
        .parse::<u32>()
        .ok()
        .filter(|n| *n <= MAX_REGISTERS_PER_THREAD)
        .ok_or_else(wrong)?;
    Ok(KernelRegisters {
        kernel: kernel.into(),
        count,
    })
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub policy: Policy,
    /// Threads per block; `None`: from `reqntid`/`maxntid`, else `DEFAULT_BLOCK`.
    pub block: Option<Dim3>,
    pub grid: Option<Dim3>,
    /// Per-kernel blocks and grids (user's first, then host launches).
    pub kernel_blocks: Vec<KernelShape>,
    pub kernel_grids: Vec<KernelShape>,
    /// Target arch; `None`: the module's `target-cpu`.
    pub arch: Option<Arch>,
    pub model: Option<Model>,
    pub l1_bytes: Option<u64>,
    pub kernel_args: Vec<(ArgRef, i64)>,
    /// Integer arguments of the file's host launches, one entry per launch
    /// and parameter (`launcharg=`, filled by the driver); a `kernel_args`
    /// value wins over them.
    pub launch_args: Vec<LaunchArg>,
    /// Host launches whose pointer arguments share an allocation or point
    /// inside one (`overlap=`, filled by the driver).
    pub launch_overlaps: Vec<LaunchOverlap>,
    pub launch_extents: Vec<LaunchExtent>,
    /// Raw little-endian arrays bound to pointer arguments (`--kernel-data`,
    /// `data=NAME=FILE`), read when an address depends on a value loaded
    /// from them.
    pub kernel_data: Vec<KernelData>,
    /// Blocks evaluated; 1 means block (0,0,0) only, as in the paper.
    pub sample_blocks: u32,
    pub report: ReportFormat,
    pub report_file: Option<PathBuf>,
    /// Remove debug info after the pass (the driver adds line tables only
    /// to locate loads for the report).
    pub strip_debug: bool,
    /// Clear local value names after the pass (the driver keeps them only
    /// to match kernel argument names).
    pub discard_names: bool,
    /// The module is the whole device program (no `-fgpu-rdc`): a function
    /// is called only from this module. Off by default, because nothing in a
    /// device module tells (clang writes the same IR with and without
    /// `-fgpu-rdc`): under separate compilation an external function's
    /// pointer parameter may point to shared memory of another translation
    /// unit. The driver, which sees the flags, turns it on.
    pub whole_program: bool,
    /// How decisions reach the PTX.
    pub lowering: Lowering,
    /// The machine the model describes instead of the arch's table entry
    /// (`machine=FILE`, `--machine`).
    pub machine: Option<Machine>,
    /// Loads whose decision is forced (`decisions=FILE`, `--decisions`).
    pub decisions: Option<Decisions>,
    /// Registers per thread by kernel (`registers=NAME=N`); the first entry
    /// naming a kernel wins, so the user's come before the driver's.
    pub kernel_registers: Vec<KernelRegisters>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            policy: Policy::Auto,
            block: None,
            grid: None,
            kernel_blocks: Vec::new(),
            kernel_grids: Vec::new(),
            arch: None,
            model: None,
            l1_bytes: None,
            kernel_args: Vec::new(),
            launch_args: Vec::new(),
            launch_overlaps: Vec::new(),
            launch_extents: Vec::new(),
            kernel_data: Vec::new(),
            sample_blocks: 1,
            report: ReportFormat::None,
            report_file: None,
            strip_debug: false,
            discard_names: false,
            whole_program: false,
            lowering: Lowering::Asm,
            machine: None,
            decisions: None,
            kernel_registers: Vec::new(),
        }
    }
}

fn bad(option: &str, value: &str, expected: &str) -> Error {
    Error::BadOption {
        option: option.into(),
        value: value.into(),
        expected: expected.into(),
    }
}

/// Parses `X`, `XxY` or `XxYxZ` (also with `,`), each at least 1, for a
/// block at most 1024 threads in all (CUDA's limit for every generation).
pub fn parse_dim3(option: &str, s: &str, is_block: bool) -> Result<Dim3, Error> {
    let expected = if is_block {
        "X[xY[xZ]] with 1 to 1024 threads in all, e.g. 256 or 16x16"
    } else {
        "X[xY[xZ]] with 1 <= X < 2^31 and 1 <= Y, Z <= 65535, e.g. 1024 or 64x64"
    };
    let parts: Vec<&str> = s.split(['x', 'X', ',']).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(bad(option, s, expected));
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p.trim().parse().map_err(|_| bad(option, s, expected))?;
        if v[i] == 0 {
            return Err(bad(option, s, expected));
        }
    }
    let d = Dim3 {
        x: v[0],
        y: v[1],
        z: v[2],
    };
    let fits = if is_block {
        d.is_valid_block()
    } else {
        d.x < 1 << 31 && d.y <= 65535 && d.z <= 65535
    };
    if !fits {
        return Err(bad(option, s, expected));
    }
    Ok(d)
}

/// Most blocks `sample-blocks` evaluates.
pub const MAX_SAMPLE_BLOCKS: u32 = 1024;

/// Largest L1 size accepted: far above any GPU's (256 KiB of L1 and shared
/// memory per SM on sm_90), so only a typo is refused.
pub const MAX_L1_BYTES: u64 = 1 << 30;

/// Parses a byte count: `49152`, `48K`, `48k`, `1M`, at most 1 GiB.
pub fn parse_bytes(option: &str, s: &str) -> Result<u64, Error> {
    let expected = "a byte count from 1 to 1G such as 49152 or 48K";
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1024),
        Some('m' | 'M') => (&t[..t.len() - 1], 1024 * 1024),
        _ => (t, 1),
    };
    let n: u64 = num.parse().map_err(|_| bad(option, s, expected))?;
    if n == 0 {
        return Err(bad(option, s, expected));
    }
    n.checked_mul(mult)
        .filter(|&b| b <= MAX_L1_BYTES)
        .ok_or_else(|| bad(option, s, expected))
}

/// Parses `NAME=VALUE` or `INDEX=VALUE`; VALUE is a decimal or 0x integer.
pub fn parse_kernel_arg(option: &str, s: &str) -> Result<(ArgRef, i64), Error> {
    let expected = "NAME=VALUE or INDEX=VALUE with an integer VALUE, e.g. n=1024 or 3=1024";
    let (k, v) = s.split_once('=').ok_or_else(|| bad(option, s, expected))?;
    let (k, v) = (k.trim(), v.trim());
    let value = parse_int(v).ok_or_else(|| bad(option, s, expected))?;
    if k.is_empty() {
        return Err(bad(option, s, expected));
    }
    let key = match k.parse::<u32>() {
        Ok(i) => ArgRef::Index(i),
        Err(_) if k.chars().all(|c| c.is_alphanumeric() || c == '_') => ArgRef::Name(k.into()),
        Err(_) => return Err(bad(option, s, expected)),
    };
    Ok((key, value))
}

/// A file of kernel data bound to a pointer argument.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelData {
    pub arg: ArgRef,
    pub path: PathBuf,
    pub bytes: std::sync::Arc<Vec<u8>>,
}

/// The most bytes one kernel-data file may hold: 1 GiB. The model keeps the file whole in memory
/// and reads one element per simulated thread access, so an index array for a few hundred million
/// threads is the most it can use.
pub const MAX_KERNEL_DATA: u64 = 1 << 30;

/// `NAME=FILE` or `INDEX=FILE`, with the file read: a regular file of at most [`MAX_KERNEL_DATA`]
/// bytes (a FIFO, device or directory is refused before it is read).
pub fn parse_kernel_data(option: &str, s: &str) -> Result<KernelData, Error> {
    let expected = "NAME=FILE or INDEX=FILE naming a raw little-endian array, e.g. col=col.i32";
    let (k, path) = s
        .split_once('=')
        .filter(|(k, p)| !k.trim().is_empty() && !p.is_empty())
        .ok_or_else(|| bad(option, s, expected))?;
    let k = k.trim();
    let arg = match k.parse::<u32>() {
        Ok(i) => ArgRef::Index(i),
        Err(_) if k.chars().all(|c| c.is_alphanumeric() || c == '_') => ArgRef::Name(k.into()),
        Err(_) => return Err(bad(option, s, expected)),
    };
    let bytes = read_kernel_data(path).map_err(|why| bad(option, s, &why))?;
    Ok(KernelData {
        arg,
        path: PathBuf::from(path),
        bytes: std::sync::Arc::new(bytes),
    })
}

/// The bytes of the kernel-data file `path`, or what `--kernel-data` expected instead.
///
/// The path's type is checked before opening, since opening a FIFO for reading blocks until a
/// writer comes, and the opened handle's type and size again, since that is what is read; a path
/// swapped for a FIFO between the two can still block the open (`O_NONBLOCK` would close the gap,
/// but needs `libc`, which this crate does not depend on). The read stops one byte past the limit,
/// so a file that grows while it is read is still refused.
fn read_kernel_data(path: &str) -> Result<Vec<u8>, String> {
    read_regular(path, MAX_KERNEL_DATA).map_err(|r| match r {
        Refused::Unreadable(e) => format!("a readable file ({path}: {e}); check the path"),
        Refused::NotRegular(kind) => {
            format!("a regular file ({path} is {kind}); save the array to a file and bind that")
        }
        Refused::TooBig(size) => format!(
            "a file of at most {MAX_KERNEL_DATA} bytes (1 GiB; {path} has {size}); bind a smaller array"
        ),
    })
}

/// Where the plugin writes its error beside the report file `report` (the
/// driver's scratch `report.json` gives `report.error`): the message clang
/// printed as `error: gpucc-cache: ...`, for the driver to tell it from
/// the source's own messages.
pub fn error_file(report: &std::path::Path) -> std::path::PathBuf {
    report.with_extension("error")
}

fn parse_flag(option: &str, value: &str) -> Result<bool, Error> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(bad(option, value, "0 or 1")),
    }
}

/// A decimal or `0x` integer with an optional leading `-`, that fits i64
/// (the widest kernel argument). One sign only: `--5` and `-0x-5` are
/// typos, not 5.
fn parse_int(v: &str) -> Option<i64> {
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, v),
    };
    if body.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) if !h.starts_with(['+', '-']) => u64::from_str_radix(h, 16).ok()?,
        Some(_) => return None,
        None => body.parse::<u64>().ok()?,
    };
    // i64::MIN has no positive counterpart, so negate in i128.
    let n = if neg {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    i64::try_from(n).ok()
}

impl Options {
    /// Applies one `key=value` setting.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        match key {
            "policy" => {
                self.policy =
                    Policy::parse(value).ok_or_else(|| bad("policy", value, POLICY_NAMES))?;
            }
            "block" | "block-dim" if value.contains('=') => {
                let shape = parse_kernel_shape("block", value, true)?;
                self.kernel_blocks.push(shape);
            }
            "grid" | "grid-dim" if value.contains('=') => {
                let shape = parse_kernel_shape("grid", value, false)?;
                self.kernel_grids.push(shape);
            }
            "block" | "block-dim" => self.block = Some(parse_dim3("block", value, true)?),
            "grid" | "grid-dim" => self.grid = Some(parse_dim3("grid", value, false)?),
            "arch" => {
                let list = format!("one of {}", Arch::supported_list());
                self.arch = Some(Arch::parse(value).ok_or_else(|| bad("arch", value, &list))?);
            }
            "model" => {
                self.model =
                    Some(Model::parse(value).ok_or_else(|| bad("model", value, MODEL_NAMES))?)
            }
            "l1" | "l1-size" => self.l1_bytes = Some(parse_bytes("l1", value)?),
            "arg" | "kernel-arg" => self.kernel_args.push(parse_kernel_arg("arg", value)?),
            "launcharg" => self.launch_args.push(parse_launch_arg(key, value)?),
            "overlap" => self.launch_overlaps.push(parse_launch_overlap(key, value)?),
            "extent" => self.launch_extents.push(parse_launch_extent(key, value)?),
            "data" | "kernel-data" => self.kernel_data.push(parse_kernel_data("data", value)?),
            "sample-blocks" => {
                // Each sampled block is evaluated in full; the cap keeps
                // the time and memory of a run bounded (4294967295 blocks
                // once allocated 103 GB).
                let n: u32 = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_SAMPLE_BLOCKS).contains(n))
                    .ok_or_else(|| {
                        bad("sample-blocks", value, "a number of blocks from 1 to 1024")
                    })?;
                self.sample_blocks = n;
            }
            "report" => {
                self.report = ReportFormat::parse(value)
                    .ok_or_else(|| bad("report", value, "text, json or none"))?;
            }
            "report-file" => self.report_file = Some(PathBuf::from(value)),
            "strip-debug" => self.strip_debug = parse_flag(key, value)?,
            "discard-names" => self.discard_names = parse_flag(key, value)?,
            "whole-program" => self.whole_program = parse_flag(key, value)?,
            // The older spelling: relocatable device code is the opposite.
            "rdc" => self.whole_program = !parse_flag(key, value)?,
            "lower" => {
                self.lowering =
                    Lowering::parse(value).ok_or_else(|| bad(key, value, "asm or keys"))?
            }
            "machine" => self.machine = Some(Machine::read(value)?),
            "decisions" => self.decisions = Some(Decisions::read(value)?),
            "registers" => (self.kernel_registers).push(parse_kernel_registers(key, value)?),
            _ => return Err(Error::UnknownOption { option: key.into() }),
        }
        Ok(())
    }

    /// Parses a `;`-separated list of `key=value` (LLVM's pass-parameter
    /// form), applied on top of `self`. A `;` or `\\` inside a value (a
    /// path) is written `\\;` or `\\\\` (`escape_param`).
    pub fn apply(mut self, params: &str) -> Result<Options, Error> {
        let items = split_params(params);
        for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| Error::BadOption {
                option: item.into(),
                value: String::new(),
                expected: "key=value, e.g. policy=cache-none".into(),
            })?;
            self.set(k.trim(), v.trim())?;
        }
        if self.sample_blocks > 1 && self.grid.is_none() {
            return Err(bad(
                "sample-blocks",
                &self.sample_blocks.to_string(),
                "a grid as well: add grid=X[xY[xZ]] (driver: --grid-dim)",
            ));
        }
        Ok(self)
    }

    pub fn parse(params: &str) -> Result<Options, Error> {
        Options::default().apply(params)
    }

    /// The registers per thread given for the kernel `symbol` (by symbol or
    /// source name); `None`: unknown, the occupancy estimates.
    pub fn registers_of(&self, symbol: &str) -> Option<u32> {
        (self.kernel_registers.iter())
            .find(|r| names_kernel(symbol, &r.kernel))
            .map(|r| r.count)
    }

    /// The pass-parameter form of these options (what `parse` reads back);
    /// the driver hands it to the plugin through `GPUCC_CACHE_OPTIONS`.
    pub fn to_params(&self) -> String {
        let dim = |d: Dim3| format!("{}x{}x{}", d.x, d.y, d.z);
        let mut p = vec![format!("policy={}", self.policy)];
        p.extend(self.block.map(|d| format!("block={}", dim(d))));
        p.extend(self.grid.map(|d| format!("grid={}", dim(d))));
        for (key, shapes) in [("block", &self.kernel_blocks), ("grid", &self.kernel_grids)] {
            for k in shapes {
                let at = match k.origin {
                    ShapeOrigin::User => String::new(),
                    ShapeOrigin::HostLaunch { line } => format!("@{line}"),
                };
                p.push(format!("{key}={}{at}={}", k.kernel, dim(k.dim)));
            }
        }
        p.extend(self.arch.map(|a| format!("arch={a}")));
        p.extend(self.model.map(|m| format!("model={m}")));
        p.extend(self.l1_bytes.map(|b| format!("l1={b}")));
        for r in &self.kernel_registers {
            p.push(format!("registers={}={}", r.kernel, r.count));
        }
        for (k, v) in &self.kernel_args {
            match k {
                ArgRef::Name(n) => p.push(format!("arg={n}={v}")),
                ArgRef::Index(i) => p.push(format!("arg={i}={v}")),
            }
        }
        for a in &self.launch_args {
            let value = a.value.map_or("?".into(), |v| v.to_string());
            p.push(format!(
                "launcharg={}@{}={}={value}",
                a.kernel, a.line, a.index
            ));
        }
        for o in &self.launch_overlaps {
            let params: Vec<String> = o.params.iter().map(u32::to_string).collect();
            let file = o.file.as_ref().map_or(String::new(), |f| format!("{f}:"));
            p.push(format!(
                "overlap={}@{}{}={}={}",
                o.kernel,
                escape_param(&file),
                o.line,
                params.join(","),
                escape_param(&o.why)
            ));
        }
        for e in &self.launch_extents {
            p.push(format!(
                "extent={}={}={},{}",
                e.kernel, e.index, e.bytes, e.before
            ));
        }
        for d in &self.kernel_data {
            let key = match &d.arg {
                ArgRef::Name(n) => n.clone(),
                ArgRef::Index(i) => i.to_string(),
            };
            p.push(format!(
                "data={key}={}",
                escape_param(&d.path.display().to_string())
            ));
        }
        if self.sample_blocks > 1 {
            p.push(format!("sample-blocks={}", self.sample_blocks));
        }
        p.push(format!(
            "report={}",
            match self.report {
                ReportFormat::Text => "text",
                ReportFormat::Json => "json",
                ReportFormat::None => "none",
            }
        ));
        if let Some(f) = &self.report_file {
            p.push(format!(
                "report-file={}",
                escape_param(&f.display().to_string())
            ));
        }
        if self.strip_debug {
            p.push("strip-debug=1".into());
        }
        if self.discard_names {
            p.push("discard-names=1".into());
        }
        if self.lowering == Lowering::Keys {
            p.push("lower=keys".into());
        }
        if self.whole_program {
            p.push("whole-program=1".into());
        }
        for (key, path) in [
            ("machine", self.machine.as_ref().map(|m| &m.path)),
            ("decisions", self.decisions.as_ref().map(|d| &d.path)),
        ] {
            if let Some(path) = path {
                p.push(format!(
                    "{key}={}",
                    escape_param(&path.display().to_string())
                ));
            }
        }
        p.join(";")
    }
}

/// A value written into a `;`-separated parameter list: `\\` and `;`
/// escaped with a backslash, so a path may hold either.
pub fn escape_param(value: &str) -> String {
    value.replace('\\', "\\\\").replace(';', "\\;")
}

/// The items of a parameter list, split at unescaped `;`, escapes removed.
fn split_params(params: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut chars = params.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | ';')) => items.last_mut().expect("one item").push(e),
                Some(other) => {
                    let item = items.last_mut().expect("one item");
                    item.push('\\');
                    item.push(other);
                }
                None => items.last_mut().expect("one item").push('\\'),
            },
            ';' => items.push(String::new()),
            c => items.last_mut().expect("one item").push(c),
        }
    }
    items
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
