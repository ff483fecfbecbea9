//! What the analysis learns from outside the IR's loads: the values host
//! launches pass to a kernel's integer parameters (`LaunchFact`, with the
//! user's `--kernel-arg`s first), and the warnings about the module as a
//! whole (no kernels, argument names that match nothing, launch bounds
//! beyond CUDA's limits). Moved out of `analysis.rs` as it was.

use super::*;
use crate::facts::kernels::{launch_blocks, launch_grids, nominal_launch_line, shape_at};

/// What the file's host launches say about one integer parameter of a
/// kernel the user gave no value for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum LaunchFact {
    /// Every launch passes this constant; the lines of the launches.
    Agreed { value: i64, lines: Vec<u32> },
    /// The launches pass different constants: the model takes `value`, the
    /// first launch's (`line`), and weighs the others as scenarios
    /// (`LaunchVariant`); `line` 0 where no value was taken (two launches
    /// at one line).
    Differ {
        lines: Vec<u32>,
        value: i64,
        line: u32,
    },
    /// These launches pass a value that is not a constant.
    NotConstant { lines: Vec<u32> },
}

impl LaunchFact {
    /// The report's note on a load whose address or guards read the
    /// parameter `name`.
    pub(super) fn note(&self, name: &str) -> String {
        let at = |lines: &[u32]| {
            let list: Vec<String> = lines.iter().map(u32::to_string).collect();
            match list.as_slice() {
                [one] => format!("the host launch at line {one}"),
                _ => format!("the host launches at lines {}", list.join(", ")),
            }
        };
        match self {
            LaunchFact::Agreed { value, lines } => {
                format!("kernel argument {name} = {value} from {}", at(lines))
            }
            LaunchFact::Differ { lines, line: 0, .. } => {
                let list: Vec<String> = lines.iter().map(u32::to_string).collect();
                format!(
                    "kernel argument {name} differs between host launches at line{} {} (several launches at one line: which values go together is not known); give --kernel-arg={name}=VALUE",
                    if list.len() == 1 { "" } else { "s" },
                    list.join(", ")
                )
            }
            LaunchFact::Differ { lines, value, line } => {
                let list: Vec<String> = lines.iter().map(u32::to_string).collect();
                format!(
                    "kernel argument {name} differs between host launches (lines {}): the model takes {name} = {value} from the first (line {line}) and, under auto, weighs the other launches as scenarios where their walks fit the budget; give --kernel-arg={name}=VALUE for one value",
                    list.join(", ")
                )
            }
            LaunchFact::NotConstant { lines } => format!(
                "kernel argument {name} is not a constant at {}; give --kernel-arg={name}=VALUE",
                at(lines)
            ),
        }
    }
}

/// Whether `value` is one a `bits`-bit integer holds, read as signed or as
/// unsigned.
fn fits(value: i64, bits: u32) -> bool {
    if bits >= 64 {
        return true;
    }
    let low = -(1i128 << (bits - 1));
    let high = (1i128 << bits) - 1;
    (low..=high).contains(&i128::from(value))
}

/// One host launch whose constant arguments or grid differ from the first
/// launch's: the kernel's argument values as that launch passes them
/// (`args`) and its grid (`None`: the kernel's, where launches do not pass
/// grids of their own: the user gave one, or they all agree or are not
/// known), for a scenario of the kernel-level model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchVariant {
    pub line: u32,
    pub args: HashMap<u32, i64>,
    pub grid: Option<Dim3>,
    /// Its block (`None`: the kernel's, as for `grid`).
    pub block: Option<Dim3>,
}

/// Values of one function's integer arguments, by parameter index: the
/// user's (`kernel_args`) first; for a kernel, else the constant every host
/// launch of it passes (`launch_args`), or where the launches pass
/// different constants, the first launch's (by line). Also, per parameter
/// the launches speak of and the user did not give, what they say; and the
/// other launches that pass other constants, each as a variant of the
/// values. Only integer parameters take a launch's value: a pointer's is an
/// address on another device, of no use to the model.
pub(super) fn argument_values(
    function: Value,
    is_kernel: bool,
    opts: &Options,
) -> (
    HashMap<u32, i64>,
    HashMap<u32, LaunchFact>,
    Vec<LaunchVariant>,
) {
    let params = function.params();
    let mut out = HashMap::new();
    for (key, value) in &opts.kernel_args {
        let index = match key {
            ArgRef::Index(i) => Some(*i),
            ArgRef::Name(n) => params.iter().position(|p| p.name() == *n).map(|i| i as u32),
        };
        if let Some(i) = index.filter(|&i| (i as usize) < params.len()) {
            out.insert(i, *value);
        }
    }
    let mut facts = HashMap::new();
    if !is_kernel {
        return (out, facts, Vec::new());
    }
    let symbol = function.name();
    let mine: Vec<_> = (opts.launch_args.iter())
        .filter(|a| names_kernel(&symbol, &a.kernel))
        .collect();
    for (i, p) in params.iter().enumerate() {
        let i = i as u32;
        if out.contains_key(&i) || !p.ty().is_int() {
            continue;
        }
        let at: Vec<_> = mine.iter().filter(|a| a.index == i).collect();
        let lines = |pick: &dyn Fn(Option<i64>) -> bool| {
            let mut l: Vec<u32> = (at.iter())
                .filter(|a| pick(a.value))
                .map(|a| a.line)
                .collect();
            l.sort_unstable();
            l.dedup();
            l
        };
        let Some(first) = at.first() else { continue };
        let fact = if at.iter().any(|a| a.value.is_none()) {
            LaunchFact::NotConstant {
                lines: lines(&|v| v.is_none()),
            }
        } else if at.iter().all(|a| a.value == first.value) {
            let value = first.value.unwrap_or_default();
            out.insert(i, value);
            LaunchFact::Agreed {
                value,
                lines: lines(&|_| true),
            }
        } else {
            LaunchFact::Differ {
                lines: lines(&|_| true),
                value: 0,
                line: 0,
            }
        };
        facts.insert(i, fact);
    }
    // Where launches differ, the first launch in the source (by line) gives
    // every differing parameter its nominal value, and each other launch is
    // a variant. Launches are told apart by line only: where two launches
    // of the kernel share a line (a loop the optimiser unrolled, a macro),
    // which values go together is not known, and the differing parameters
    // stay unknown (no value, no variant).
    let mut differing: Vec<u32> = (facts.iter())
        .filter(|(_, f)| matches!(f, LaunchFact::Differ { .. }))
        .map(|(&i, _)| i)
        .collect();
    differing.sort_unstable();
    let one_per_line = differing.iter().all(|&i| {
        let mut l: Vec<u32> = (mine.iter())
            .filter(|a| a.index == i)
            .map(|a| a.line)
            .collect();
        let n = l.len();
        l.sort_unstable();
        l.dedup();
        l.len() == n
    });
    let value_at = |line: u32, i: u32| {
        (mine.iter())
            .find(|a| a.line == line && a.index == i)
            .and_then(|a| a.value)
    };
    let first_line = (mine.iter())
        .filter(|a| differing.contains(&a.index))
        .map(|a| a.line)
        .min();
    let nominal: Option<Vec<(u32, i64)>> = first_line.filter(|_| one_per_line).and_then(|l| {
        differing
            .iter()
            .map(|&i| Some((i, value_at(l, i)?)))
            .collect()
    });
    if !differing.is_empty() && nominal.is_none() {
        return (out, facts, Vec::new());
    }
    let line = first_line.unwrap_or_default();
    for &(i, value) in nominal.iter().flatten() {
        out.insert(i, value);
        if let Some(LaunchFact::Differ {
            value: v, line: l, ..
        }) = facts.get_mut(&i)
        {
            (*v, *l) = (value, line);
        }
    }
    // Launches with other grids are variants too, with the grid of their
    // line (`facts::kernels::launch_grids`: none where the user gave one).
    let grids = launch_grids(opts, &symbol);
    let blocks = launch_blocks(opts, &symbol);
    let nominal_line = nominal_launch_line(opts, &symbol);
    let nominal_grid = nominal_line.and_then(|l| shape_at(&grids, l));
    let nominal_block = nominal_line.and_then(|l| shape_at(&blocks, l));
    let mut variants: Vec<LaunchVariant> = Vec::new();
    let mut lines: Vec<u32> = (mine.iter().map(|a| a.line))
        .chain(grids.iter().map(|g| g.0))
        .chain(blocks.iter().map(|g| g.0))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    for line in lines {
        let mut args = out.clone();
        let mut complete = true;
        for &i in &differing {
            match value_at(line, i) {
                Some(v) => {
                    args.insert(i, v);
                }
                None => complete = false,
            }
        }
        // A line whose grid is not known while others' are (two launches
        // there with different grids) is no variant: which goes with its
        // arguments is not known either.
        // Likewise its block.
        let at = |shapes: &[(u32, Dim3)]| -> Result<Option<Dim3>, ()> {
            if shapes.is_empty() {
                return Ok(None);
            }
            shape_at(shapes, line).map(Some).ok_or(())
        };
        let (Ok(grid), Ok(block)) = (at(&grids), at(&blocks)) else {
            continue;
        };
        let known = (args == out
            && grid.or(nominal_grid) == nominal_grid
            && block.or(nominal_block) == nominal_block)
            || (variants.iter()).any(|v| v.args == args && v.grid == grid && v.block == block);
        if complete && !known {
            variants.push(LaunchVariant {
                line,
                args,
                grid,
                block,
            });
        }
    }
    (out, facts, variants)
}

/// Warnings about the module as a whole: no kernels, argument names that
/// match nothing, launch bounds beyond CUDA's limits.
pub(super) fn module_warnings(set: &Setting, kernels: &[Kernel], warnings: &mut Vec<String>) {
    if kernels.is_empty() {
        warnings.push(
            "no kernels in the module (no \"kernel\" annotation or ptx_kernel calling convention)"
                .into(),
        );
    }
    // An argument value no kernel can use is said, not silently dropped:
    // only integer parameters take one (pointers get stand-in bases).
    let integer = |p: &Value| p.ty().is_int();
    for (key, value) in &set.opts.kernel_args {
        let params = || set.kernel_fns.iter().flat_map(|k| k.params());
        // A value the parameter's type cannot hold is said too: the kernel
        // could never see it, and the model would read it wrapped.
        let given: Vec<Value> = match key {
            ArgRef::Name(n) => params().filter(|p| p.name() == *n).collect(),
            ArgRef::Index(i) => (set.kernel_fns.iter())
                .filter_map(|k| k.params().get(*i as usize).copied())
                .collect(),
        };
        if let Some(bits) = (given.iter().filter(|p| integer(p)))
            .map(|p| p.ty().int_width())
            .find(|&w| !fits(*value, w))
        {
            let name = match key {
                ArgRef::Name(n) => format!("'{n}'"),
                ArgRef::Index(i) => format!("index {i}"),
            };
            warnings.push(format!(
                "kernel argument {name} = {value} does not fit its {bits}-bit integer parameter; the model \
                 reads it wrapped to {bits} bits (give a value the parameter can hold)"
            ));
        }
        match key {
            ArgRef::Name(n) => {
                let named: Vec<Value> = params().filter(|p| p.name() == *n).collect();
                if named.is_empty() {
                    let names: Vec<String> = params().map(|p| p.name()).collect();
                    let hint = nearest(
                        n,
                        names.iter().map(String::as_str).filter(|s| !s.is_empty()),
                    )
                    .map_or(String::new(), |p| format!("; did you mean '{p}'?"));
                    warnings.push(format!(
                        "kernel argument '{n}' matches no kernel parameter name (names need a .cu input or \
                         -fno-discard-value-names; or give the index instead){hint}"
                    ));
                } else if !named.iter().any(integer) {
                    warnings.push(format!(
                        "kernel argument '{n}' names no integer parameter; its value is ignored \
                         (only integer arguments take --kernel-arg values)"
                    ));
                }
            }
            ArgRef::Index(i) => {
                let at: Vec<Value> = (set.kernel_fns.iter())
                    .filter_map(|k| k.params().get(*i as usize).copied())
                    .collect();
                if at.is_empty() {
                    warnings.push(format!(
                        "kernel argument index {i} is past every kernel's parameters; its value is ignored \
                         (indices count from 0)"
                    ));
                } else if !at.iter().any(integer) {
                    warnings.push(format!(
                        "kernel argument index {i} is no integer parameter; its value is ignored \
                         (only integer arguments take --kernel-arg values)"
                    ));
                }
            }
        }
    }
    // A shape for a kernel the module does not have is said, with the
    // nearest kernel name; the driver's own host-launch shapes name kernels
    // of the whole file, also those another pass or arch dropped.
    let symbols: Vec<String> = set.kernel_fns.iter().map(|k| k.name()).collect();
    let sources: Vec<String> = symbols.iter().map(|s| source_name(s)).collect();
    let shapes = [
        ("--block-dim", &set.opts.kernel_blocks),
        ("--grid-dim", &set.opts.kernel_grids),
    ];
    for (flag, list) in shapes {
        for k in list.iter().filter(|k| k.origin == ShapeOrigin::User) {
            if symbols.iter().any(|s| names_kernel(s, &k.kernel)) {
                continue;
            }
            let hint = match nearest(&k.kernel, sources.iter().map(String::as_str)) {
                Some(n) => format!("did you mean '{n}'?"),
                None => "the module has no kernels".into(),
            };
            warnings.push(format!(
                "{flag}={}={}: no kernel named '{}'; ignored ({hint})",
                k.kernel, k.dim, k.kernel
            ));
        }
    }
    // A register count for no kernel of the module is the user's typo (the
    // driver gives counts only for the kernels ptxas compiled from it).
    for r in &set.opts.kernel_registers {
        if symbols.iter().any(|s| names_kernel(s, &r.kernel)) {
            continue;
        }
        let hint = match nearest(&r.kernel, sources.iter().map(String::as_str)) {
            Some(n) => format!("did you mean '{n}'?"),
            None => "the module has no kernels".into(),
        };
        warnings.push(format!(
            "registers={}={}: no kernel named '{}'; ignored ({hint})",
            r.kernel, r.count, r.kernel
        ));
    }
    for d in &set.opts.kernel_data {
        let pointer = |p: &Value| p.ty().is_pointer();
        let binds = set.kernel_fns.iter().any(|k| {
            let params = k.params();
            match &d.arg {
                ArgRef::Name(n) => params.iter().any(|p| p.name() == *n && pointer(p)),
                ArgRef::Index(i) => params.get(*i as usize).is_some_and(pointer),
            }
        });
        if !binds {
            warnings.push(format!(
                "kernel data {} binds no pointer parameter of any kernel; ignored (name a pointer \
                 parameter, or give its index)",
                d.path.display()
            ));
        } else if d.bytes.is_empty() {
            warnings.push(format!(
                "kernel data {} is empty: every value read through it stays unknown (check the \
                 file)",
                d.path.display()
            ));
        }
    }
    for k in kernels {
        if let Some(d) = k.reqntid.or(k.maxntid).filter(|d| !d.is_valid_block()) {
            warnings.push(format!(
                "{}: launch bounds {d} exceed CUDA's 1024 threads per block; ignored",
                demangle(&k.function.name())
            ));
        }
    }
}
