//! Launch configurations read from clang's host IR: for each kernel launch
//! in the host side of a CUDA file, which kernel it starts, its grid and
//! block when they are constants after optimisation, its constant integer
//! arguments, and the source line of the launch. This replaces reading C++
//! text (`launch.rs`) wherever a host compile exists: clang has already
//! resolved names, templates, macros, headers and `constexpr`, and the
//! optimiser has folded what is constant.
//!
//! How clang 19 lowers a launch (CodeGen/CGCUDANV.cpp, x86-64 host):
//! `k<<<grid, block, shmem, stream>>>(args)` is a call
//! `__cudaPushCallConfiguration(i64 gridXY, i32 gridZ, i64 blockXY, i32
//! blockZ, i64 shmem, ptr stream)` (a `dim3` travels as `x | y << 32` and
//! `z`), and when it returns 0, a call of the kernel's host stub
//! `__device_stub__k`. The stub stores each argument's address in a `void
//! *args[]`, pops the configuration and calls `cudaLaunchKernel(ptr @stub,
//! grid, block, args, shmem, stream)`; the optimiser usually inlines it into
//! the launching function. A `cudaLaunchKernel` or
//! `cudaLaunchCooperativeKernel` the user writes is the same call with the
//! user's shapes. Without a GPU binary (`-fcuda-include-gpubinary`) clang
//! registers nothing, so the only link from the stub to the device kernel is
//! the name: the stub's mangled name is the kernel's with `__device_stub__`
//! before its identifier (`_Z26__device_stub__apply_layerPKfPfii` is the
//! stub of `_Z11apply_layerPKfPfii`).
//!
//! Deliberately not done: launches whose kernel is not a constant at the
//! call (a kernel chosen at run time through a pointer, or two launches the
//! optimiser merged into one call of a `phi` of stubs), `cudaLaunchKernelEx`
//! (its configuration is a struct in memory), HIP, and host targets other
//! than x86-64. A shape that is not a constant, or that CUDA cannot launch,
//! is `None`: unknown, never guessed. Pure: reads the module, changes nothing,
//! runs nothing.

use std::collections::{HashMap, HashSet};

use gpucc_cache_pass::facts::names::demangle;
use gpucc_cache_pass::llvm::ir::{self, Block, DataLayout, IntPredicate, Opcode, Value};

use crate::launch::{valid_block, valid_grid, Shape};

/// The device kernel a launch starts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The kernel's symbol in the device code (mangled, or the plain name of
    /// an `extern "C"` kernel): `_Z11apply_layerPKfPfii`.
    pub symbol: String,
    /// Its identifier as written, without namespaces or template arguments
    /// (what `launch.rs` reports): `apply_layer`.
    pub name: String,
}

/// How the launch is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `kernel<<<grid, block, ...>>>(...)`.
    Chevron,
    /// `cudaLaunchKernel(kernel, grid, block, args, ...)`.
    LaunchKernel,
    /// `cudaLaunchCooperativeKernel(kernel, grid, block, args, ...)`.
    Cooperative,
}

/// Where a launch is written: the file as the debug info names it, and the
/// 1-based line (of `<<<`, or of the call).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub file: Option<String>,
    pub line: u32,
}

/// One kernel launch in the host code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLaunch {
    pub kernel: Kernel,
    pub form: Form,
    /// `None` when any dimension is not a constant after optimisation, or
    /// the shape is not one CUDA can launch.
    pub grid: Option<Shape>,
    pub block: Option<Shape>,
    /// Dynamic shared memory in bytes, when constant.
    pub shared_bytes: Option<u64>,
    /// One entry per kernel parameter, in order: the argument's value when
    /// it is an integer constant at this launch (sign-extended from its
    /// width), else `None`. Empty when the argument array could not be read.
    pub args: Vec<Option<i64>>,
    /// Pointer arguments that break what the model assumes of them
    /// (distinct allocations, each at its start, 256-byte aligned: README,
    /// "What it assumes"), in words: two parameters given one allocation,
    /// or one given a place inside its allocation (`p + 3`). Only what the
    /// host IR shows for certain: a pointer through a `phi`, a `select` or
    /// memory the host code wrote elsewhere is not followed. Each with the
    /// parameter indices it concerns.
    pub overlaps: Vec<(Vec<u32>, String)>,
    /// Pointer arguments whose allocation's size the host IR shows, as
    /// (parameter index, bytes of the allocation before the pointer, bytes
    /// from the pointer to its end): see [`extents`].
    pub extents: Vec<(u32, u64, u64)>,
    /// `None` when the module has no debug locations (compiled without
    /// `-gline-tables-only`).
    pub at: Option<Site>,
}

/// The kernels (by symbol) whose host-side handle, the stub, the host code
/// uses other than to launch it as [`launches`] sees (a call of the stub, a
/// runtime launch call naming it) or to register it: a handle handed to
/// other code may be launched there with arguments no launch here shows,
/// so what the launches here pass is not all the kernel gets (found by an
/// adversarial review: `launch_later((const void *)g, big)`).
pub fn escaping(module: &inkwell::module::Module) -> HashSet<String> {
    // SAFETY: the inkwell module outlives this call and is not disposed by it.
    let m = unsafe { ir::Module::from_raw(module.as_mut_ptr()) };
    let mut out = HashSet::new();
    for f in m.functions() {
        let Some(kernel) = Kernel::of_stub(&f.name()) else {
            continue;
        };
        let launched_or_registered = |user: Value| match callee_name(user).as_deref() {
            Some(_) if user.called_value() == f => true,
            Some(name) if runtime_form(name).is_some() => user.operand(0) == f,
            Some("__cudaRegisterFunction") => true,
            _ => false,
        };
        if !f.users().into_iter().all(launched_or_registered) {
            out.insert(kernel.symbol);
        }
    }
    out
}

/// Every launch in the module, in function order, then block order, then
/// instruction order (of the push, for a `<<<>>>`). A kernel launched
/// twice gives two entries; one launch the optimiser duplicated (a loop
/// unrolled) gives one per copy, at the same line.
pub fn launches(module: &inkwell::module::Module) -> Vec<HostLaunch> {
    // SAFETY: the inkwell module outlives this call and is not disposed by it.
    let m = unsafe { ir::Module::from_raw(module.as_mut_ptr()) };
    let layout = m.data_layout();
    let mut stub_slots: HashMap<Value, Vec<Slot>> = HashMap::new();
    let mut found = Vec::new();
    for f in m.functions() {
        if f.is_declaration() || Kernel::of_stub(&f.name()).is_some() {
            continue;
        }
        for block in f.blocks() {
            for inst in block.instructions() {
                match callee_name(inst).as_deref() {
                    Some(PUSH) => found.extend(chevrons(inst, &layout, &mut stub_slots)),
                    // A stub's own launch, inlined, belongs to its `<<<>>>`.
                    Some(name) if runtime_form(name).is_some() && !is_stub_launch(inst) => {
                        found.extend(runtime_call(inst, &layout))
                    }
                    _ => {}
                }
            }
        }
    }
    found
}

/// What the driver adds to a file's clang flags (its `-D`, `-I`, `-std`,
/// `--cuda-gpu-arch`, `--cuda-path`...) to get the host IR this module
/// reads, on stdout. An extra compile made only for these facts; `-O2`
/// folds launch expressions and inlines helpers and stubs (the identity of
/// every launch survives it), line tables give each launch its line
/// without changing the code.
pub const HOST_IR_FLAGS: &[&str] = &[
    "-x",
    "cuda",
    "--cuda-host-only",
    "-S",
    "-emit-llvm",
    "-O2",
    "-gline-tables-only",
    "-Wno-unknown-cuda-version",
];

const PUSH: &str = "__cudaPushCallConfiguration";
const POP: &str = "__cudaPopCallConfiguration";
const STUB: &str = "__device_stub__";

impl Kernel {
    /// The kernel whose host stub is `symbol`; `None` if it is no stub.
    /// Clang writes the stub's name as the kernel's with `__device_stub__`
    /// before the identifier, its length grown by 15 (ItaniumMangle.cpp,
    /// `mangleSourceName` of a `KernelReferenceKind::Stub`); substitutions
    /// count components, not characters, so nothing else moves. The
    /// identifier is read from the demangled name: the digits before the
    /// prefix alone are ambiguous (`_ZN12_GLOBAL__N_119__device_stub__k...`
    /// ends the anonymous namespace's `_1` with the length `19`).
    pub fn of_stub(symbol: &str) -> Option<Kernel> {
        let ident = |s: &str| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if let Some(name) = symbol.strip_prefix(STUB) {
            // `extern "C"`: not mangled.
            return ident(name).then(|| Kernel {
                symbol: name.to_string(),
                name: name.to_string(),
            });
        }
        if !symbol.starts_with("_Z") {
            return None;
        }
        let readable = demangle(symbol);
        let after = &readable[readable.find(STUB)? + STUB.len()..];
        let name = &after[..after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len())];
        if !ident(name) {
            return None;
        }
        let mangled = format!("{}{STUB}{name}", name.len() + STUB.len());
        let at = symbol.find(&mangled)?;
        Some(Kernel {
            symbol: format!(
                "{}{}{name}{}",
                &symbol[..at],
                name.len(),
                &symbol[at + mangled.len()..]
            ),
            name: name.to_string(),
        })
    }
}

/// What a launch's argument array holds at one parameter's slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Const(i64),
    /// The stub's own parameter, by IR index: its value is at the stub's call.
    Param(u32),
    /// A pointer stored into the slot: a device address the host holds.
    Pointer(Value),
    /// The address of a pointer variable the host also hands elsewhere
    /// (`cudaMalloc(&a)`, then `void *args[] = {&a, ...}`): its value at the
    /// launch is unknown, but two slots of one variable pass one value.
    Variable(Value),
    Unknown,
}

/// The runtime calls that take `(kernel, grid, block, args, shmem, stream)`
/// with `dim3` split as `i64, i32` (CUDA Runtime API, "Execution Control";
/// `_ptsz` under `--default-stream per-thread`; `cuda_runtime.h`'s template
/// wrappers when they are not inlined).
fn runtime_form(callee: &str) -> Option<Form> {
    match callee {
        "cudaLaunchKernel" | "cudaLaunchKernel_ptsz" => Some(Form::LaunchKernel),
        "cudaLaunchCooperativeKernel" | "cudaLaunchCooperativeKernel_ptsz" => {
            Some(Form::Cooperative)
        }
        s if s.starts_with("_Z16cudaLaunchKernelI") => Some(Form::LaunchKernel),
        s if s.starts_with("_Z27cudaLaunchCooperativeKernelI") => Some(Form::Cooperative),
        _ => None,
    }
}

/// IR arguments of those calls: `ptr kernel, i64, i32, i64, i32, ptr args,
/// i64 shmem, ptr stream`.
const LAUNCH_ARGS: u32 = 8;

/// The name of the function a call (or `invoke`) calls directly; `None`
/// for other instructions and indirect calls.
fn callee_name(inst: Value) -> Option<String> {
    if !matches!(inst.opcode(), Some(Opcode::LLVMCall | Opcode::LLVMInvoke)) {
        return None;
    }
    let callee = inst.called_value();
    callee.is_function().then(|| callee.name())
}

/// The launches a `__cudaPushCallConfiguration` configures.
fn chevrons(
    push: Value,
    layout: &DataLayout,
    stub_slots: &mut HashMap<Value, Vec<Slot>>,
) -> Vec<HostLaunch> {
    if push.num_args() < 6 {
        return Vec::new();
    }
    let grid = dim3(push.operand(0), push.operand(1)).and_then(valid_grid);
    let block = dim3(push.operand(2), push.operand(3)).and_then(valid_block);
    let shared_bytes = push.operand(4).const_int().map(|b| b as u64);
    let mut found = Vec::new();
    for launch in configured_by(push) {
        let callee = launch.called_value();
        let (kernel, args, at) = if let Some(kernel) = Kernel::of_stub(&callee.name()) {
            // The stub, not inlined: parameter i's value is the call's operand.
            let slots = stub_slots
                .entry(callee)
                .or_insert_with(|| stub_launch(callee).map_or(Vec::new(), |l| slots(l, layout)));
            let at_call: Vec<Slot> = (slots.iter())
                .map(|s| match *s {
                    Slot::Param(i) if i < launch.num_args() => {
                        let v = launch.operand(i);
                        match v.const_int() {
                            Some(c) => Slot::Const(c),
                            None if v.ty().is_pointer() => Slot::Pointer(v),
                            None => Slot::Unknown,
                        }
                    }
                    _ => Slot::Unknown,
                })
                .collect();
            (kernel, at_call, site(launch, 0))
        } else {
            let Some(kernel) = Kernel::of_stub(&launch.operand(0).name()) else {
                continue;
            };
            // The call's own location is in the stub; the next is the launch.
            (kernel, slots(launch, layout), site(launch, 1))
        };
        found.push(HostLaunch {
            kernel,
            form: Form::Chevron,
            grid,
            block,
            shared_bytes,
            args: constants(&args),
            overlaps: overlaps(&args, layout),
            extents: extents(&args, layout),
            at: at.or_else(|| site(push, 0)),
        });
    }
    found
}

/// The stub calls, and inlined stubs' `cudaLaunchKernel`s, that a
/// `__cudaPushCallConfiguration` configures. Clang calls the stub where the
/// push returned 0 (`br (icmp eq push, 0)`), so the search follows the
/// control flow from the push, only along that edge where it tests the
/// result, takes the first launch on each path, and ends a path at the next
/// push. One push may configure several launches: the optimiser hoists
/// identical pushes out of `if (c) a<<<g, b>>>(); else b<<<g, b>>>();`.
fn configured_by(push: Value) -> Vec<Value> {
    let tests: Vec<Value> = push
        .users()
        .into_iter()
        .filter(|u| tests_zero(*u, push))
        .collect();
    let mut found = Vec::new();
    // (block, first instruction to look at, whether the path has passed a
    // test that the push returned 0)
    let here = push.parent_block();
    let mut work = vec![(here, position_after(here, push), false)];
    let mut seen = HashSet::new();
    while let Some((block, from, tested)) = work.pop() {
        if seen.len() > MAX_BLOCKS {
            break;
        }
        let mut ended = false;
        for inst in block.instructions().into_iter().skip(from) {
            if inst != push && callee_name(inst).as_deref() == Some(PUSH) {
                ended = true;
                break;
            }
            if tested && is_stub_launch(inst) {
                found.push(inst);
                ended = true;
                break;
            }
        }
        if ended {
            continue;
        }
        let next: Vec<(Block, bool)> = match block.conditional_branch() {
            Some((cond, then, otherwise)) if tests.contains(&cond) => {
                let eq = cond.icmp_predicate() == IntPredicate::LLVMIntEQ;
                vec![(if eq { then } else { otherwise }, true)]
            }
            // An `invoke`'s normal destination is its first successor.
            _ if block.terminator().and_then(|t| t.opcode()) == Some(Opcode::LLVMInvoke) => block
                .successors()
                .into_iter()
                .take(1)
                .map(|b| (b, tested))
                .collect(),
            _ => block
                .successors()
                .into_iter()
                .map(|b| (b, tested))
                .collect(),
        };
        for (b, t) in next.into_iter().rev() {
            if seen.insert((b, t)) {
                work.push((b, 0, t));
            }
        }
    }
    found
}

/// How many blocks past a push its launches are looked for: clang puts the
/// launch in the block after the test, and an inlined stub is straight-line
/// code; the cap bounds the search in large functions.
const MAX_BLOCKS: usize = 16;

fn position_after(block: Block, inst: Value) -> usize {
    block
        .instructions()
        .iter()
        .position(|i| *i == inst)
        .map_or(0, |p| p + 1)
}

/// `icmp eq|ne push, 0`.
fn tests_zero(cmp: Value, push: Value) -> bool {
    if cmp.opcode() != Some(Opcode::LLVMICmp) || cmp.num_operands() != 2 {
        return false;
    }
    let (a, b) = (cmp.operand(0), cmp.operand(1));
    let zero = |v: Value| v.const_int() == Some(0);
    ((a == push && zero(b)) || (b == push && zero(a)))
        && matches!(
            cmp.icmp_predicate(),
            IntPredicate::LLVMIntEQ | IntPredicate::LLVMIntNE
        )
}

/// A call of a stub, or a stub's `cudaLaunchKernel` inlined.
fn is_stub_launch(inst: Value) -> bool {
    let Some(name) = callee_name(inst) else {
        return false;
    };
    Kernel::of_stub(&name).is_some()
        || (runtime_form(&name).is_some()
            && inst.num_args() >= LAUNCH_ARGS
            && Kernel::of_stub(&inst.operand(0).name()).is_some()
            && popped(inst.operand(1)))
}

/// Whether a value is loaded from memory a `__cudaPopCallConfiguration`
/// wrote: the grid of a stub's launch is, the grid of a launch the user
/// wrote is not.
fn popped(value: Value) -> bool {
    if value.opcode() != Some(Opcode::LLVMLoad) {
        return false;
    }
    let mut from = value.operand(0);
    if from.opcode() == Some(Opcode::LLVMGetElementPtr) {
        from = from.operand(0);
    }
    from.users()
        .into_iter()
        .any(|u| callee_name(u).as_deref() == Some(POP))
}

/// A `cudaLaunchKernel` or `cudaLaunchCooperativeKernel` of a kernel, not
/// made by a `<<<>>>`.
fn runtime_call(call: Value, layout: &DataLayout) -> Option<HostLaunch> {
    let form = runtime_form_of(call)?;
    if call.num_args() < LAUNCH_ARGS {
        return None;
    }
    let handle = call.operand(0);
    if !handle.is_function() {
        return None;
    }
    let args = slots(call, layout);
    Some(HostLaunch {
        kernel: Kernel::of_stub(&handle.name())?,
        form,
        grid: dim3(call.operand(1), call.operand(2)).and_then(valid_grid),
        block: dim3(call.operand(3), call.operand(4)).and_then(valid_block),
        shared_bytes: call.operand(6).const_int().map(|b| b as u64),
        args: constants(&args),
        overlaps: overlaps(&args, layout),
        extents: extents(&args, layout),
        at: site(call, 0),
    })
}

/// The `cudaLaunchKernel` in a stub's body.
fn stub_launch(stub: Value) -> Option<Value> {
    if stub.is_declaration() {
        return None;
    }
    stub.instructions()
        .find(|i| callee_name(*i).is_some_and(|n| runtime_form(&n).is_some()))
}

/// A `dim3` passed as `i64 x | y << 32` and `i32 z`, when both are constants.
fn dim3(xy: Value, z: Value) -> Option<Shape> {
    let xy = xy.const_int()? as u64;
    let z = z.const_int()?;
    Some(Shape {
        x: xy as u32,
        y: (xy >> 32) as u32,
        z: u32::try_from(z).ok()?,
    })
}

fn constants(slots: &[Slot]) -> Vec<Option<i64>> {
    slots
        .iter()
        .map(|s| match s {
            Slot::Const(c) => Some(*c),
            _ => None,
        })
        .collect()
}

/// What each slot of a launch call's `void *args[]` points to. The array
/// must be an `alloca` whose every use is a store of a slot's pointer (at a
/// constant offset), a lifetime marker, or a launch; slots are 8 bytes
/// (x86-64 pointers). Empty when that is not so.
fn slots(launch: Value, layout: &DataLayout) -> Vec<Slot> {
    if launch.num_args() < LAUNCH_ARGS {
        return Vec::new();
    }
    let array = launch.operand(5);
    if array.opcode() != Some(Opcode::LLVMAlloca) {
        return Vec::new();
    }
    let mut at: HashMap<u64, Vec<Value>> = HashMap::new();
    let mut stored = |offset: u64, store: Value| -> bool {
        let ok = store.opcode() == Some(Opcode::LLVMStore) && offset.is_multiple_of(8);
        if ok {
            at.entry(offset / 8).or_default().push(store);
        }
        ok
    };
    for user in array.users() {
        let ok = match user.opcode() {
            Some(Opcode::LLVMStore) => user.operand(1) == array && stored(0, user),
            Some(Opcode::LLVMGetElementPtr) => byte_offset(user, layout).is_some_and(|offset| {
                user.users().into_iter().all(|s| {
                    s.opcode() == Some(Opcode::LLVMStore)
                        && s.operand(1) == user
                        && stored(offset, s)
                })
            }),
            Some(Opcode::LLVMCall | Opcode::LLVMInvoke) => {
                is_lifetime(user) || runtime_form_of(user).is_some()
            }
            _ => false,
        };
        if !ok {
            return Vec::new();
        }
    }
    let n = at.len() as u64;
    if (0..n).any(|i| !at.contains_key(&i)) {
        return Vec::new();
    }
    (0..n)
        .map(|i| match reaching(&at[&i], launch) {
            Some(store) => slot(store.operand(0), array, launch),
            None => Slot::Unknown,
        })
        .collect()
}

/// Which of the stores to one place a call sees: the last before it in its
/// block, else the only one. Several elsewhere (a loop the optimiser
/// unrolled stores once per copy) leave it to control flow: `None`.
fn reaching(stores: &[Value], call: Value) -> Option<Value> {
    let block = call.parent_block().instructions();
    let before = block.iter().take_while(|i| **i != call);
    before
        .filter(|i| stores.contains(i))
        .last()
        .copied()
        .or(match stores {
            [only] => Some(*only),
            _ => None,
        })
}

fn runtime_form_of(call: Value) -> Option<Form> {
    runtime_form(&callee_name(call)?)
}

fn is_lifetime(call: Value) -> bool {
    call.called_value()
        .intrinsic_name()
        .is_some_and(|n| n.starts_with("llvm.lifetime."))
}

/// What a slot's pointer points to: an integer `alloca` only stored, read
/// or put into `array`, whose store that `launch` sees is of a constant or
/// of the function's parameter.
fn slot(pointer: Value, array: Value, launch: Value) -> Slot {
    let into_array = |p: Value| {
        p == array || (p.opcode() == Some(Opcode::LLVMGetElementPtr) && p.operand(0) == array)
    };
    if pointer.opcode() != Some(Opcode::LLVMAlloca) {
        return Slot::Unknown;
    }
    let mut stores = Vec::new();
    for user in pointer.users() {
        match user.opcode() {
            Some(Opcode::LLVMStore) if user.operand(1) == pointer => stores.push(user),
            // The slot's own address, stored into the argument array.
            Some(Opcode::LLVMStore) if into_array(user.operand(1)) => {}
            Some(Opcode::LLVMLoad) => {}
            Some(Opcode::LLVMCall) if is_lifetime(user) => {}
            _ if allocates_pointer(pointer) => return Slot::Variable(pointer),
            _ => return Slot::Unknown,
        }
    }
    let Some(value) = reaching(&stores, launch).map(|s| s.operand(0)) else {
        return Slot::Unknown;
    };
    if value.ty().is_pointer() && allocates_type_of(pointer, value) {
        return Slot::Pointer(value);
    }
    if !value.ty().is_int() || !allocates_type_of(pointer, value) {
        return Slot::Unknown;
    }
    if let Some(c) = value.const_int() {
        Slot::Const(c)
    } else if value.is_argument() {
        Slot::Param(value.arg_index())
    } else {
        Slot::Unknown
    }
}

/// Where a device pointer the host passes comes from: the value it was
/// computed from (a load of the host variable `cudaMalloc` wrote, or a
/// parameter) and its byte offset from it, negative below it (`None`: not
/// a constant). Two arguments from one load are one allocation for certain;
/// two loads of one variable are not, since the host may have allocated
/// again in between (`cudaMalloc(&t)` in a loop). `None` when the chain
/// passes anything else (a `phi`, a `select`, a call).
fn origin(mut v: Value, layout: &DataLayout) -> Option<(Value, Option<i64>)> {
    let mut offset = Some(0i64);
    for _ in 0..16 {
        match v.opcode() {
            Some(Opcode::LLVMGetElementPtr) => {
                offset = offset
                    .zip(signed_byte_offset(v, layout))
                    .and_then(|(a, b)| a.checked_add(b));
                v = v.operand(0);
            }
            Some(Opcode::LLVMLoad) => return Some((v, offset)),
            Some(_) => return None,
            None => return v.is_argument().then_some((v, offset)),
        }
    }
    None
}

/// What a launch's pointer arguments break of the model's assumptions
/// (`HostLaunch::overlaps`), in words naming the parameters by index: two
/// from one allocation, or one at an offset from its allocation's start
/// that may not keep the 256-byte alignment (an offset that is a multiple
/// of 256, on a pointer no other parameter shares, breaks nothing).
fn overlaps(slots: &[Slot], layout: &DataLayout) -> Vec<(Vec<u32>, String)> {
    // Per pointer argument: what its value comes from, and its offset. A
    // variable's address in a slot is that variable's value at the launch
    // (unknown, but the same in two slots), at offset 0 from itself.
    let pointers: Vec<(usize, Value, Option<i64>)> = (slots.iter().enumerate())
        .filter_map(|(i, s)| match s {
            Slot::Pointer(p) => origin(*p, layout).map(|(base, off)| (i, base, off)),
            Slot::Variable(v) => Some((i, *v, Some(0))),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for (k, &(i, base, _)) in pointers.iter().enumerate() {
        if let Some(&(j, ..)) = pointers[..k].iter().find(|p| p.1 == base) {
            out.push((
                vec![j as u32, i as u32],
                format!("arguments {j} and {i} point into one allocation"),
            ));
        }
    }
    for &(i, _, offset) in &pointers {
        let why = match offset {
            Some(b) if b % 256 == 0 => continue,
            Some(b) if b < 0 => format!(
                "argument {i} points {} bytes before its allocation's start",
                b.unsigned_abs()
            ),
            Some(b) => format!("argument {i} points {b} bytes into its allocation"),
            None => format!("argument {i} points a run-time offset into its allocation"),
        };
        out.push((vec![i as u32], why));
    }
    out
}

/// The runtime calls that allocate device memory into a pointer variable,
/// `(void **ptr, size_t size, ...)` (CUDA Runtime API, "Memory
/// Management"; `cudaMallocManaged` takes flags after the size).
fn allocates_into(call: Value) -> bool {
    matches!(
        callee_name(call).as_deref(),
        Some("cudaMalloc" | "cudaMallocManaged")
    )
}

/// The bytes from each pointer argument to the end of its allocation, where
/// the host IR shows them for certain: the argument is a load (at a
/// constant offset) of a pointer variable that only `cudaMalloc` calls of
/// constant sizes write, and otherwise is only read (the largest size, where
/// several write it: which one a launch sees is not followed). A variable
/// passed anywhere else, stored to, or written by a call of a run-time size
/// gives none. An access through the parameter outside those bytes would
/// be outside its allocation, which CUDA leaves undefined (Programming
/// Guide, "Device Memory"), so the model draws an unknown index into it
/// within them.
fn extents(slots: &[Slot], layout: &DataLayout) -> Vec<(u32, u64, u64)> {
    let mut out = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        let (variable, offset) = match s {
            Slot::Pointer(p) => match origin(*p, layout) {
                Some((load, Some(offset))) if load.opcode() == Some(Opcode::LLVMLoad) => {
                    (load.operand(0), offset)
                }
                _ => continue,
            },
            Slot::Variable(v) => (*v, 0),
            _ => continue,
        };
        let Some(size) = allocated_bytes(variable) else {
            continue;
        };
        if let Some(before) = u64::try_from(offset).ok().filter(|&o| o < size) {
            out.push((i as u32, before, size - before));
        }
    }
    out
}

/// The largest size a pointer variable (`alloca`) can hold an allocation
/// of: the variables that pass pointers among themselves (`t = a; a = b;
/// b = t`, double buffers) form one set, and each of them may hold what
/// any `cudaMalloc` of the set allocated. `None` unless every use of every
/// variable of the set is a load, a lifetime marker, a `cudaMalloc` into it
/// of a constant size, or a store into it of a value loaded from a
/// variable of the set; and at least one `cudaMalloc` writes the set.
fn allocated_bytes(variable: Value) -> Option<u64> {
    let mut set = vec![variable];
    let mut largest: Option<u64> = None;
    let mut next = 0;
    while next < set.len() {
        let v = set[next];
        next += 1;
        if v.opcode() != Some(Opcode::LLVMAlloca) || !allocates_pointer(v) {
            return None;
        }
        for user in v.users() {
            match user.opcode() {
                Some(Opcode::LLVMLoad) => {}
                Some(Opcode::LLVMCall) if is_lifetime(user) => {}
                Some(Opcode::LLVMCall | Opcode::LLVMInvoke)
                    if allocates_into(user) && user.operand(0) == v =>
                {
                    let bytes = u64::try_from(user.operand(1).const_int()?).ok()?;
                    largest = Some(largest.map_or(bytes, |l| l.max(bytes)));
                }
                Some(Opcode::LLVMStore) if user.operand(1) == v => {
                    let value = user.operand(0);
                    if value.opcode() != Some(Opcode::LLVMLoad) {
                        return None;
                    }
                    let from = value.operand(0);
                    if !set.contains(&from) {
                        set.push(from);
                    }
                }
                _ => return None,
            }
        }
    }
    largest
}

/// Whether `alloca` allocates one pointer.
fn allocates_pointer(alloca: Value) -> bool {
    // SAFETY: `alloca` is an alloca instruction; the type handle it returns
    // lives as long as the context.
    unsafe {
        let ty = llvm_sys::core::LLVMGetAllocatedType(alloca.raw());
        llvm_sys::core::LLVMGetTypeKind(ty) == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
    }
}

/// Whether `alloca` allocates exactly `value`'s type. A struct the x86-64
/// ABI passes in one register is stored as an `i64` into a struct `alloca`;
/// that is not an integer parameter.
fn allocates_type_of(alloca: Value, value: Value) -> bool {
    // SAFETY: `alloca` is an alloca instruction and `value` a value of the
    // same context; LLVM uniques types per context, so equal handles are
    // equal types.
    unsafe {
        llvm_sys::core::LLVMGetAllocatedType(alloca.raw())
            == llvm_sys::core::LLVMTypeOf(value.raw())
    }
}

/// The constant byte offset of a GEP from its base.
fn byte_offset(gep: Value, layout: &DataLayout) -> Option<u64> {
    signed_byte_offset(gep, layout).and_then(|o| u64::try_from(o).ok())
}

/// A constant GEP's byte offset, negative indices included (`p - 1`);
/// `None` when an index is not a constant or the sum overflows.
fn signed_byte_offset(gep: Value, layout: &DataLayout) -> Option<i64> {
    let mut ty = gep.gep_source_type();
    if !ty.is_sized() {
        return None;
    }
    let size = |t| i64::try_from(layout.alloc_size(t)).ok();
    let first = gep.operand(1).const_int()?;
    let mut offset = first.checked_mul(size(ty)?)?;
    for i in 2..gep.num_operands() {
        let index = gep.operand(i).const_int()?;
        match ty.kind() {
            llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => {
                ty = ty.element();
                offset = offset.checked_add(index.checked_mul(size(ty)?)?)?;
            }
            llvm_sys::LLVMTypeKind::LLVMStructTypeKind => {
                let field = u32::try_from(index)
                    .ok()
                    .filter(|&f| f < ty.struct_fields())?;
                let at = i64::try_from(layout.field_offset(ty, field)).ok()?;
                offset = offset.checked_add(at)?;
                ty = ty.struct_field(field);
            }
            _ => return None,
        }
    }
    Some(offset)
}

/// Where a launch is written: the debug location `skip` frames out from
/// the call's own (1 for a call in an inlined stub), then further out past
/// CUDA's own headers (a `cudaLaunchKernel<T>` template inlined from
/// `cuda_runtime.h` is not where the user launched). `None` without debug
/// locations, or at line 0 (a location merged from several lines).
fn site(call: Value, skip: usize) -> Option<Site> {
    let loc = call.source_location()?;
    let frames: Vec<&ir::SourcePosition> =
        std::iter::once(&loc.at).chain(&loc.inlined_at).collect();
    let runtime_header = |p: &ir::SourcePosition| {
        p.file.as_deref().is_some_and(|f| {
            let base = f.rsplit('/').next().unwrap_or(f);
            base.starts_with("cuda_runtime")
        })
    };
    let at = frames.iter().skip(skip).find(|p| !runtime_header(p))?;
    (at.line > 0).then(|| Site {
        file: at.file.clone(),
        line: at.line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    /// `read` of the module the IR text `ir` makes.
    fn with_module<T>(ir: &str, read: impl FnOnce(&inkwell::module::Module) -> T) -> T {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "host.ll");
        let module = context
            .create_module_from_ir(buffer)
            .unwrap_or_else(|e| panic!("bad test IR: {e}"));
        read(&module)
    }

    fn launches_in(ir: &str) -> Vec<HostLaunch> {
        with_module(ir, launches)
    }

    fn escaping_in(ir: &str) -> HashSet<String> {
        with_module(ir, escaping)
    }

    fn shape(x: u32, y: u32, z: u32) -> Option<Shape> {
        Some(Shape { x, y, z })
    }

    fn at(line: u32) -> Option<Site> {
        Some(Site {
            file: Some("/src/t.cu".into()),
            line,
        })
    }

    /// A host module: declarations, one debug scope per function (`!10`
    /// main, `!11` helper, `!12` the stub `kern`), then `body`.
    fn host(body: &str) -> String {
        format!(
            r#"target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
%struct.dim3 = type {{ i32, i32, i32 }}
%struct.P = type {{ i32, i32 }}
declare i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)
declare i32 @__cudaPopCallConfiguration(ptr, ptr, ptr, ptr)
declare i32 @cudaLaunchKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare i32 @cudaLaunchCooperativeKernel(ptr, i64, i32, i64, i32, ptr, i64, ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare i32 @__gxx_personality_v0(...)
{body}
!llvm.dbg.cu = !{{!0}}
!llvm.module.flags = !{{!2}}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "t.cu", directory: "/src")
!2 = !{{i32 2, !"Debug Info Version", i32 3}}
!3 = !DISubroutineType(types: !{{}})
!10 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 10, type: !3, unit: !0, spFlags: DISPFlagDefinition)
!11 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 5, type: !3, unit: !0, spFlags: DISPFlagDefinition)
!12 = distinct !DISubprogram(name: "__device_stub__kern", scope: !1, file: !1, line: 2, type: !3, unit: !0, spFlags: DISPFlagDefinition)
"#
        )
    }

    /// The body of clang's stub for `__global__ void kern(float *, int)`,
    /// with `%` names prefixed by `p` so that it can be inlined twice, and
    /// its launch's location `loc`.
    fn stub_body(p: &str, x: &str, n: &str, loc: &str) -> String {
        format!(
            r#"  %{p}a0 = alloca ptr
  %{p}a1 = alloca i32
  %{p}g = alloca %struct.dim3
  %{p}b = alloca %struct.dim3
  %{p}sh = alloca i64
  %{p}st = alloca ptr
  store ptr {x}, ptr %{p}a0
  store i32 {n}, ptr %{p}a1
  %{p}args = alloca [2 x ptr]
  store ptr %{p}a0, ptr %{p}args
  %{p}s1 = getelementptr inbounds i8, ptr %{p}args, i64 8
  store ptr %{p}a1, ptr %{p}s1
  %{p}pop = call i32 @__cudaPopCallConfiguration(ptr %{p}g, ptr %{p}b, ptr %{p}sh, ptr %{p}st)
  %{p}shv = load i64, ptr %{p}sh
  %{p}stv = load ptr, ptr %{p}st
  %{p}gxy = load i64, ptr %{p}g
  %{p}gzp = getelementptr inbounds i8, ptr %{p}g, i64 8
  %{p}gz = load i32, ptr %{p}gzp
  %{p}bxy = load i64, ptr %{p}b
  %{p}bzp = getelementptr inbounds i8, ptr %{p}b, i64 8
  %{p}bz = load i32, ptr %{p}bzp
  %{p}r = call i32 @cudaLaunchKernel(ptr @_Z19__device_stub__kernPfi, i64 %{p}gxy, i32 %{p}gz, i64 %{p}bxy, i32 %{p}bz, ptr %{p}args, i64 %{p}shv, ptr %{p}stv), !dbg {loc}
"#
        )
    }

    fn stub() -> String {
        format!(
            "define void @_Z19__device_stub__kernPfi(ptr %0, i32 %1) !dbg !12 {{\n{}  ret void\n}}\n",
            stub_body("", "%0", "%1", "!DILocation(line: 2, scope: !12)")
        )
    }

    fn kern() -> Kernel {
        Kernel {
            symbol: "_Z4kernPfi".into(),
            name: "kern".into(),
        }
    }

    /// `kern<<<dim3(16, 16), dim3(8, 8)>>>(p, 42)` at line 12, the stub
    /// called (as clang -O1 leaves it when the stub is not inlined):
    /// dim3(16, 16) is 16 | 16 << 32 = 68719476752, and 42 reaches the
    /// launch through the stub's parameter 1.
    #[test]
    fn chevron_with_dim3_shapes_calls_the_stub() {
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p) !dbg !10 {{
  %c = call i32 @__cudaPushCallConfiguration(i64 68719476752, i32 1, i64 34359738376, i32 1, i64 0, ptr null), !dbg !DILocation(line: 12, column: 7, scope: !10)
  %ok = icmp eq i32 %c, 0
  br i1 %ok, label %launch, label %done
launch:
  call void @_Z19__device_stub__kernPfi(ptr %p, i32 42), !dbg !DILocation(line: 12, column: 3, scope: !10)
  br label %done
done:
  ret i32 0
}}"#,
            stub()
        ));
        assert_eq!(
            launches_in(&ir),
            vec![HostLaunch {
                kernel: kern(),
                form: Form::Chevron,
                grid: shape(16, 16, 1),
                block: shape(8, 8, 1),
                shared_bytes: Some(0),
                args: vec![None, Some(42)],
                overlaps: vec![],
                extents: vec![],
                at: at(12),
            }]
        );
    }

    /// `kern<<<4, 256, 512>>>(p, 7)` at line 14 with the stub inlined (as
    /// clang -O2 leaves it): the shapes are the push's, the arguments the
    /// stores into the inlined argument array, the line the one the stub
    /// was inlined at (its own location is the kernel's line 2).
    #[test]
    fn chevron_with_int_shapes_and_the_stub_inlined() {
        let loc = "!DILocation(line: 2, scope: !12, inlinedAt: !DILocation(line: 14, scope: !10))";
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p) !dbg !10 {{
  %c = call i32 @__cudaPushCallConfiguration(i64 4294967300, i32 1, i64 4294967552, i32 1, i64 512, ptr null), !dbg !DILocation(line: 14, column: 7, scope: !10)
  %ok = icmp ne i32 %c, 0
  br i1 %ok, label %done, label %launch
launch:
{}  br label %done
done:
  ret i32 0
}}"#,
            stub(),
            stub_body("i", "%p", "7", loc)
        ));
        assert_eq!(
            launches_in(&ir),
            vec![HostLaunch {
                kernel: kern(),
                form: Form::Chevron,
                grid: shape(4, 1, 1),
                block: shape(256, 1, 1),
                shared_bytes: Some(512),
                args: vec![None, Some(7)],
                overlaps: vec![],
                extents: vec![],
                at: at(14),
            }]
        );
    }

    /// `kern<<<(n + 255) / 256, 128>>>(p, n)`: the grid is computed at run
    /// time, the block is still known.
    #[test]
    fn runtime_grid_with_constant_block() {
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p, i32 %n) !dbg !10 {{
  %a = add i32 %n, 255
  %b = sdiv i32 %a, 256
  %x = zext i32 %b to i64
  %xy = or i64 %x, 4294967296
  %c = call i32 @__cudaPushCallConfiguration(i64 %xy, i32 1, i64 4294967424, i32 1, i64 0, ptr null), !dbg !DILocation(line: 15, scope: !10)
  %ok = icmp eq i32 %c, 0
  br i1 %ok, label %launch, label %done
launch:
  call void @_Z19__device_stub__kernPfi(ptr %p, i32 %n), !dbg !DILocation(line: 15, scope: !10)
  br label %done
done:
  ret i32 0
}}"#,
            stub()
        ));
        let found = launches_in(&ir);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].grid, found[0].block), (None, shape(128, 1, 1)));
        assert_eq!(found[0].args, vec![None, None]);
    }

    /// `void *args[] = {&p, &n}; cudaLaunchKernel((void *)kern, dim3(7),
    /// dim3(160), args, 0, 0)` with `int n = 5`, and the same array to
    /// `cudaLaunchCooperativeKernel` with a runtime grid: the stub is only
    /// the kernel's handle here, and the user's calls pop nothing.
    #[test]
    fn launches_written_by_hand() {
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p, i32 %g) !dbg !10 {{
  %pp = alloca ptr
  %n = alloca i32
  %args = alloca [2 x ptr]
  store ptr %p, ptr %pp
  store i32 5, ptr %n
  store ptr %pp, ptr %args
  %s1 = getelementptr inbounds [2 x ptr], ptr %args, i64 0, i64 1
  store ptr %n, ptr %s1
  %r = call i32 @cudaLaunchKernel(ptr @_Z19__device_stub__kernPfi, i64 4294967303, i32 1, i64 4294967456, i32 1, ptr %args, i64 0, ptr null), !dbg !DILocation(line: 20, scope: !10)
  %gx = zext i32 %g to i64
  %gxy = or i64 %gx, 4294967296
  %r2 = call i32 @cudaLaunchCooperativeKernel(ptr @_Z19__device_stub__kernPfi, i64 %gxy, i32 1, i64 4294967328, i32 1, ptr %args, i64 0, ptr null), !dbg !DILocation(line: 21, scope: !10)
  ret i32 0
}}"#,
            stub()
        ));
        assert_eq!(
            launches_in(&ir),
            vec![
                HostLaunch {
                    kernel: kern(),
                    form: Form::LaunchKernel,
                    grid: shape(7, 1, 1),
                    block: shape(160, 1, 1),
                    shared_bytes: Some(0),
                    args: vec![None, Some(5)],
                    overlaps: vec![],
                    extents: vec![],
                    at: at(20),
                },
                HostLaunch {
                    kernel: kern(),
                    form: Form::Cooperative,
                    grid: None,
                    block: shape(32, 1, 1),
                    shared_bytes: Some(0),
                    args: vec![None, Some(5)],
                    overlaps: vec![],
                    extents: vec![],
                    at: at(21),
                },
            ]
        );
    }

    /// `if (c) kern<<<2, 64>>>(p, 1); else kern<<<2, 64>>>(p, 2);` after
    /// SimplifyCFG hoisted the identical pushes: one push, two launches,
    /// each at its own line. The same kernel launched twice is reported
    /// twice.
    #[test]
    fn one_push_configures_both_branches() {
        let first =
            "!DILocation(line: 2, scope: !12, inlinedAt: !DILocation(line: 30, scope: !10))";
        let second =
            "!DILocation(line: 2, scope: !12, inlinedAt: !DILocation(line: 32, scope: !10))";
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p, i1 %c) !dbg !10 {{
  %push = call i32 @__cudaPushCallConfiguration(i64 4294967298, i32 1, i64 4294967360, i32 1, i64 0, ptr null), !dbg !DILocation(line: 0, scope: !10)
  %ok = icmp eq i32 %push, 0
  br i1 %c, label %then, label %else
then:
  br i1 %ok, label %one, label %done
else:
  br i1 %ok, label %two, label %done
one:
{}  br label %done
two:
{}  br label %done
done:
  ret i32 0
}}"#,
            stub(),
            stub_body("a", "%p", "1", first),
            stub_body("b", "%p", "2", second)
        ));
        let found = launches_in(&ir);
        let summary: Vec<_> = found
            .iter()
            .map(|l| (l.block, l.args.clone(), l.at.as_ref().map(|s| s.line)))
            .collect();
        assert_eq!(
            summary,
            vec![
                (shape(64, 1, 1), vec![None, Some(1)], Some(30)),
                (shape(64, 1, 1), vec![None, Some(2)], Some(32)),
            ]
        );
    }

    /// In a function with exception handling the push and the launch are
    /// `invoke`s; the push's result is tested in its normal destination.
    #[test]
    fn invoke_launch() {
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p) personality ptr @__gxx_personality_v0 !dbg !10 {{
  %c = invoke i32 @__cudaPushCallConfiguration(i64 4294967297, i32 1, i64 4294967328, i32 1, i64 0, ptr null)
          to label %cont unwind label %lp, !dbg !DILocation(line: 40, scope: !10)
cont:
  %ok = icmp eq i32 %c, 0
  br i1 %ok, label %launch, label %done
launch:
  invoke void @_Z19__device_stub__kernPfi(ptr %p, i32 3)
          to label %done unwind label %lp, !dbg !DILocation(line: 40, scope: !10)
done:
  ret i32 0
lp:
  %e = landingpad {{ ptr, i32 }} cleanup
  resume {{ ptr, i32 }} %e
}}"#,
            stub()
        ));
        let found = launches_in(&ir);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].grid, found[0].block),
            (shape(1, 1, 1), shape(32, 1, 1))
        );
        assert_eq!(
            (found[0].args.clone(), found[0].at.clone()),
            (vec![None, Some(3)], at(40))
        );
    }

    /// A struct the x86-64 ABI passes in one register (`struct P { int a,
    /// b; }` as an `i64`) is stored into a struct `alloca`: not an integer
    /// argument, even when the `i64` is a constant.
    #[test]
    fn struct_in_a_register_is_no_integer_argument() {
        let ir = host(
            r#"define void @_Z16__device_stub__k1P(i64 %0) {
  %s = alloca %struct.P
  store i64 %0, ptr %s
  %args = alloca [1 x ptr]
  store ptr %s, ptr %args
  %g = alloca %struct.dim3
  %pop = call i32 @__cudaPopCallConfiguration(ptr %g, ptr %g, ptr %g, ptr %g)
  %xy = load i64, ptr %g
  %r = call i32 @cudaLaunchKernel(ptr @_Z16__device_stub__k1P, i64 %xy, i32 1, i64 %xy, i32 1, ptr %args, i64 0, ptr null)
  ret void
}
define i32 @main() !dbg !10 {
  %c = call i32 @__cudaPushCallConfiguration(i64 4294967297, i32 1, i64 4294967297, i32 1, i64 0, ptr null), !dbg !DILocation(line: 50, scope: !10)
  %ok = icmp eq i32 %c, 0
  br i1 %ok, label %launch, label %done
launch:
  call void @_Z16__device_stub__k1P(i64 8589934593), !dbg !DILocation(line: 50, scope: !10)
  br label %done
done:
  ret i32 0
}"#,
        );
        let found = launches_in(&ir);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kernel.symbol, "_Z1k1P");
        assert_eq!(found[0].args, vec![None]);
    }

    /// A block CUDA cannot launch (2048 threads) is no block shape.
    #[test]
    fn unlaunchable_block_is_unknown() {
        let ir = host(&format!(
            r#"{}
define i32 @main(ptr %p) !dbg !10 {{
  %c = call i32 @__cudaPushCallConfiguration(i64 4294967297, i32 1, i64 4294969344, i32 1, i64 0, ptr null), !dbg !DILocation(line: 60, scope: !10)
  %ok = icmp eq i32 %c, 0
  br i1 %ok, label %launch, label %done
launch:
  call void @_Z19__device_stub__kernPfi(ptr %p, i32 0), !dbg !DILocation(line: 60, scope: !10)
  br label %done
done:
  ret i32 0
}}"#,
            stub()
        ));
        assert_eq!(launches_in(&ir)[0].block, None);
    }

    #[test]
    fn kernel_of_stub_names() {
        let k = |symbol: &str, name: &str| {
            Some(Kernel {
                symbol: symbol.into(),
                name: name.into(),
            })
        };
        assert_eq!(
            Kernel::of_stub("_Z26__device_stub__apply_layerPKfPfii"),
            k("_Z11apply_layerPKfPfii", "apply_layer")
        );
        // extern "C"
        assert_eq!(Kernel::of_stub("__device_stub__ck"), k("ck", "ck"));
        // namespace, template arguments
        assert_eq!(
            Kernel::of_stub("_ZN2ns17__device_stub__tkIfLi3EEEvPT_i"),
            k("_ZN2ns2tkIfLi3EEEvPT_i", "tk")
        );
        // anonymous namespace: `_1` then the length 19
        assert_eq!(
            Kernel::of_stub("_ZN12_GLOBAL__N_119__device_stub__anonEPf"),
            k("_ZN12_GLOBAL__N_14anonEPf", "anon")
        );
        // static
        assert_eq!(
            Kernel::of_stub("_ZL19__device_stub__statPf"),
            k("_ZL4statPf", "stat")
        );
        assert_eq!(Kernel::of_stub("_Z4kernPf"), None);
        assert_eq!(Kernel::of_stub("main"), None);
    }

    /// The host IR clang makes of the CUDA program `source`.
    fn host_ir(source: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.cu");
        std::fs::write(&file, source).unwrap();
        let clang = crate::toolchain::clang(None).unwrap();
        let cuda = crate::toolchain::cuda(None).unwrap();
        let out = std::process::Command::new(&clang.path)
            .args(HOST_IR_FLAGS)
            .arg(format!("--cuda-path={}", cuda.path.display()))
            .args(["--cuda-gpu-arch=sm_80", "-o", "-"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// The allocation bytes a launch shows for its pointer arguments: a
    /// constant `cudaMalloc`, less a constant offset; double buffers that
    /// swap pointers share the largest size; none for a size known only at
    /// run time, or a variable the host hands to other code.
    #[test]
    fn allocation_extents() {
        let source = r#"
__global__ void k(const float *a, const float *b, float *c) { c[0] = a[0] + b[0]; }
void keep(float **p);
int main(int argc, char **) {
  float *a, *b, *c, *d, *e;
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 1024);
  cudaMalloc(&c, 256 * argc);
  cudaMalloc(&d, 512);
  keep(&d);
  cudaMalloc(&e, 2048);
  k<<<1, 32>>>(a + 16, b, c);
  for (int i = 0; i < argc; i++) {
    k<<<1, 32>>>(a, b, d);
    float *t = a; a = b; b = t;
  }
  k<<<1, 32>>>(e, e + 1, e);
  return 0;
}
"#;
        let found = launches_in(&host_ir(source));
        let extents: Vec<Vec<(u32, u64, u64)>> = found.iter().map(|l| l.extents.clone()).collect();
        assert_eq!(
            extents,
            vec![
                // a + 16 floats of 4,096 bytes; b; c's size is run time.
                vec![(0, 64, 4096 - 64), (1, 0, 4096)],
                vec![(0, 0, 2048), (1, 4, 2044), (2, 0, 2048)],
                // In the loop (laid out last): a and b swap, so each may
                // hold either; d is handed to `keep`.
                vec![(0, 0, 4096), (1, 0, 4096)],
            ]
        );
    }

    /// A kernel whose handle the host hands to other code may be launched
    /// there: its launches here are not all it gets. Launched by `<<<>>>`
    /// or `cudaLaunchKernel` only, it does not escape.
    #[test]
    fn kernels_whose_handle_escapes() {
        let source = r#"
__global__ void kept(float *p) { p[0] = 1; }
__global__ void direct(float *p) { p[0] = 2; }
__global__ void handed(float *p) { p[0] = 3; }
void later(const void *kernel, float *p);
int main() {
  float *p;
  cudaMalloc(&p, 4096);
  kept<<<1, 32>>>(p);
  void *args[] = {&p};
  cudaLaunchKernel((const void *)direct, dim3(1), dim3(32), args, 0, 0);
  handed<<<1, 32>>>(p);
  later((const void *)handed, p);
  return 0;
}
"#;
        let out = escaping_in(&host_ir(source));
        assert_eq!(out, HashSet::from(["_Z6handedPf".to_string()]));
    }

    /// Through clang: the C++ forms the scanner of text reads, and those it
    /// cannot (a template kernel, a `constexpr` function, `sizeof`, a launch
    /// in a helper, a loop clang unrolls).
    #[test]
    fn host_compile_of_a_small_program() {
        let source = r#"
template <typename T, int B> __global__ void tk(T *p, int n) { p[n] = B; }
__global__ void twice(float *p, int n) { p[n] = 0; }
constexpr int threads() { return 4 * 32; }
static void helper(float *p, int n) { twice<<<(n + 255) / 256, 256>>>(p, n); }
int main(int argc, char **) {
  float *p;
  cudaMalloc(&p, 4096);
  tk<float, 3><<<dim3(16, 16), dim3(8, 8)>>>(p, 7);
  tk<int, 5><<<4, threads()>>>((int *)p, argc);
  helper(p, argc);
  for (int i = 0; i < 2; i++)
    twice<<<i + 1, sizeof(float) * 16>>>(p, i);
  return 0;
}
"#;
        let found = launches_in(&host_ir(source));
        let summary: Vec<_> = found
            .iter()
            .map(|l| {
                (
                    l.kernel.symbol.as_str(),
                    l.grid,
                    l.block,
                    l.args.clone(),
                    l.at.as_ref().unwrap().line,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "_Z2tkIfLi3EEvPT_i",
                    shape(16, 16, 1),
                    shape(8, 8, 1),
                    vec![None, Some(7)],
                    9
                ),
                (
                    "_Z2tkIiLi5EEvPT_i",
                    shape(4, 1, 1),
                    shape(128, 1, 1),
                    vec![None, None],
                    10
                ),
                ("_Z5twicePfi", None, shape(256, 1, 1), vec![None, None], 5),
                (
                    "_Z5twicePfi",
                    shape(1, 1, 1),
                    shape(64, 1, 1),
                    vec![None, Some(0)],
                    13
                ),
                (
                    "_Z5twicePfi",
                    shape(2, 1, 1),
                    shape(64, 1, 1),
                    vec![None, Some(1)],
                    13
                ),
            ]
        );
    }
}

/// The corpus measurement behind `scripts/launch-shapes`: for every `.cu`
/// with host code under `testdata/`, how many kernels get their block shape
/// from a launch by the text scanner (`launch.rs`) and by the host IR.
/// A test too: the host IR must find a constant block for every launch of
/// the corpus and at least every kernel the scanner finds (the corpus's
/// launches are all constant-shaped; a file added with a runtime block
/// must say so here). Runs clang twice per file, about 30 s.
#[cfg(test)]
mod corpus {
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::time::{Duration, Instant};

    use gpucc_cache_pass::facts::names::names_kernel;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            // errors/ does not compile; stress/ holds compile-time stress
            // inputs (300 instantiations the scanner credits by name, 3
            // launched), not programs to measure launches on.
            if p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n != "errors" && n != "stress")
            {
                sources(&p, out);
            } else if p.extension().is_some_and(|e| e == "cu") {
                out.push(p);
            }
        }
    }

    /// clang's IR for one side of `file`, and how long clang took.
    fn compile(file: &Path, side: &[&str]) -> (String, Duration) {
        let cuda = root().join(".cuda");
        let start = Instant::now();
        let out = Command::new("clang++-19")
            .args([
                "-x",
                "cuda",
                "-S",
                "-emit-llvm",
                "-Wno-unknown-cuda-version",
            ])
            .arg(format!("--cuda-path={}", cuda.display()))
            .args(["--cuda-gpu-arch=sm_80", "-o", "-"])
            .args(side)
            .arg(file)
            .output()
            .unwrap();
        assert!(out.status.success(), "clang failed on {}", file.display());
        (String::from_utf8(out.stdout).unwrap(), start.elapsed())
    }

    #[test]
    fn launch_shapes() {
        let mut files = Vec::new();
        sources(&root().join("testdata"), &mut files);
        println!(
            "| file | kernels | launches (scanner / IR) | constant block (scanner / IR) | \
             kernels with a launch block (scanner / IR) | + __launch_bounds__ (scanner / IR) |"
        );
        println!("|---|---|---|---|---|---|");
        let mut total = [0usize; 9];
        let (mut host_time, mut device_time) = (Duration::ZERO, Duration::ZERO);
        for file in files {
            let (host, t) = compile(&file, super::HOST_IR_FLAGS);
            host_time += t;
            let context = Context::create();
            let module = context
                .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
                    host.as_bytes(),
                    "host.ll",
                ))
                .unwrap();
            let has_host_code = module.get_functions().any(|f| {
                f.count_basic_blocks() > 0
                    && super::Kernel::of_stub(f.get_name().to_str().unwrap()).is_none()
            });
            if !has_host_code {
                continue;
            }
            let ir = super::launches(&module);
            let scanned = crate::launch::find_launches(&std::fs::read_to_string(&file).unwrap());
            let (device, t) = compile(
                &file,
                &[
                    "-x",
                    "cuda",
                    "--cuda-device-only",
                    "-S",
                    "-emit-llvm",
                    "-O3",
                    "-Wno-unknown-cuda-version",
                ],
            );
            device_time += t;
            let dcontext = Context::create();
            let dmodule = dcontext
                .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
                    device.as_bytes(),
                    "device.ll",
                ))
                .unwrap();
            // SAFETY: the module outlives the handle's use below.
            let m = unsafe { gpucc_cache_pass::llvm::ir::Module::from_raw(dmodule.as_mut_ptr()) };
            let kernels: Vec<(String, bool)> = gpucc_cache_pass::facts::kernels::find(m)
                .iter()
                .map(|k| {
                    let bounds = k.reqntid.is_some() || k.maxntid.is_some();
                    (k.function.name(), bounds)
                })
                .collect();
            let by_scanner = |s: &str| {
                scanned
                    .iter()
                    .any(|l| l.block.is_some() && names_kernel(s, &l.kernel))
            };
            let by_ir = |s: &str| ir.iter().any(|l| l.block.is_some() && l.kernel.symbol == s);
            let row = [
                kernels.len(),
                scanned.len(),
                ir.len(),
                scanned.iter().filter(|l| l.block.is_some()).count(),
                ir.iter().filter(|l| l.block.is_some()).count(),
                kernels.iter().filter(|k| by_scanner(&k.0)).count(),
                kernels.iter().filter(|k| by_ir(&k.0)).count(),
                kernels.iter().filter(|k| by_scanner(&k.0) || k.1).count(),
                kernels.iter().filter(|k| by_ir(&k.0) || k.1).count(),
            ];
            for (t, r) in total.iter_mut().zip(row) {
                *t += r;
            }
            let name = file.strip_prefix(root().join("testdata")).unwrap();
            println!(
                "| {} | {} | {} / {} | {} / {} | {} / {} | {} / {} |",
                name.display(),
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                row[7],
                row[8]
            );
            for l in &ir {
                if l.block.is_none() {
                    println!("  IR: no constant block: {l:?}");
                }
            }
            for l in &scanned {
                if l.block.is_none() {
                    println!("  scanner: no constant block: {l:?}");
                }
            }
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        println!(
            "| total | {} | {} / {} | {} / {} | {} ({:.0}%) / {} ({:.0}%) | {} ({:.0}%) / {} ({:.0}%) |",
            total[0],
            total[1],
            total[2],
            total[3],
            total[4],
            total[5],
            pct(total[5], total[0]),
            total[6],
            pct(total[6], total[0]),
            total[7],
            pct(total[7], total[0]),
            total[8],
            pct(total[8], total[0]),
        );
        println!(
            "host IR compiles ({}): {host_time:.1?}; device -O3 IR compiles (files with host code): {device_time:.1?}",
            super::HOST_IR_FLAGS.join(" ")
        );
        assert_eq!(
            total[4], total[2],
            "a corpus launch without a constant block in the host IR"
        );
        assert!(
            total[6] >= total[5],
            "the host IR finds fewer kernels' blocks than the scanner"
        );
        assert_eq!(
            total[6], total[0],
            "a corpus kernel without a block from its launch"
        );
    }
}
