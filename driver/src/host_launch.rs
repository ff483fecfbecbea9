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
//! before its identifier (`_Z26__device_stub__apply_layerPKfPfii` starts
//! `_Z11apply_layerPKfPfii`).
//!
//! Deliberately not done: launches whose kernel is not a constant at the
//! call (a kernel chosen at run time through a pointer), `cudaLaunchKernelEx`
//! (its configuration is a struct in memory), HIP, and host targets other
//! than x86-64. A shape that is not a constant, or that CUDA cannot launch,
//! is `None`: unknown, never guessed. Pure: reads the module, changes nothing,
//! runs nothing.

use std::collections::{HashMap, HashSet};

use gpucc_cache_pass::ir::{self, Block, DataLayout, IntPredicate, Opcode, Value};

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
    /// `None` when the module has no debug locations (compiled without
    /// `-gline-tables-only`).
    pub at: Option<Site>,
}

/// Every launch in the module, in function order then instruction order.
/// A function launching the same kernel twice gives two entries.
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
        // Launch calls already explained by a `<<<>>>`: the inlined stubs.
        let mut claimed = HashSet::new();
        let mut direct = Vec::new();
        for block in f.blocks() {
            for inst in block.instructions() {
                match callee_name(inst).as_deref() {
                    Some(PUSH) => {
                        if let Some(l) = chevron(inst, &layout, &mut stub_slots, &mut claimed) {
                            found.push(l);
                        }
                    }
                    Some(name) if runtime_form(name).is_some() => direct.push(inst),
                    _ => {}
                }
            }
        }
        for call in direct {
            if !claimed.contains(&call) {
                found.extend(runtime_call(call, &layout));
            }
        }
    }
    found
}

const PUSH: &str = "__cudaPushCallConfiguration";
const STUB: &str = "__device_stub__";

impl Kernel {
    /// The kernel whose host stub is `symbol`; `None` if it is no stub.
    /// Clang writes the stub's name as the kernel's with `__device_stub__`
    /// before the identifier, and the identifier's length grown by 15
    /// (ItaniumMangle.cpp, `mangleSourceName` of a `KernelReferenceKind::Stub`);
    /// substitutions count components, not characters, so nothing else moves.
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
        let at = symbol.find(STUB)?;
        let digits = symbol[..at]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        let len: usize = symbol[at - digits..at].parse().ok()?;
        let name_len = len.checked_sub(STUB.len()).filter(|&n| n > 0)?;
        let name = symbol.get(at + STUB.len()..at + STUB.len() + name_len)?;
        if !ident(name) {
            return None;
        }
        Some(Kernel {
            symbol: format!(
                "{}{name_len}{name}{}",
                &symbol[..at - digits],
                &symbol[at + STUB.len() + name_len..]
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

/// The name of the function a call calls directly; `None` for other
/// instructions and indirect calls.
fn callee_name(inst: Value) -> Option<String> {
    if inst.opcode() != Some(Opcode::LLVMCall) {
        return None;
    }
    let callee = inst.called_value();
    callee.is_function().then(|| callee.name())
}

/// The launch a `__cudaPushCallConfiguration` configures: the stub called
/// (or inlined) where it returned 0.
fn chevron(
    push: Value,
    layout: &DataLayout,
    stub_slots: &mut HashMap<Value, Vec<Slot>>,
    claimed: &mut HashSet<Value>,
) -> Option<HostLaunch> {
    if push.num_args() < 6 {
        return None;
    }
    let launch = launched_after(push)?;
    let callee = launch.called_value();
    let (kernel, args) = if let Some(kernel) = Kernel::of_stub(&callee.name()) {
        // The stub, not inlined: parameter i's value is the call's operand.
        let slots = stub_slots
            .entry(callee)
            .or_insert_with(|| stub_launch(callee).map_or(Vec::new(), |l| slots(l, layout)));
        let args = slots
            .iter()
            .map(|s| match *s {
                Slot::Param(i) if i < launch.num_args() => launch.operand(i).const_int(),
                _ => None,
            })
            .collect();
        (kernel, args)
    } else {
        claimed.insert(launch);
        let kernel = Kernel::of_stub(&launch.operand(0).name())?;
        (kernel, constants(&slots(launch, layout)))
    };
    Some(HostLaunch {
        kernel,
        form: Form::Chevron,
        grid: dim3(push.operand(0), push.operand(1)).and_then(valid_grid),
        block: dim3(push.operand(2), push.operand(3)).and_then(valid_block),
        shared_bytes: push.operand(4).const_int().map(|b| b as u64),
        args,
        at: site(push),
    })
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
    let kernel = Kernel::of_stub(&handle.name())?;
    Some(HostLaunch {
        kernel,
        form,
        grid: dim3(call.operand(1), call.operand(2)).and_then(valid_grid),
        block: dim3(call.operand(3), call.operand(4)).and_then(valid_block),
        shared_bytes: call.operand(6).const_int().map(|b| b as u64),
        args: constants(&slots(call, layout)),
        at: site(call),
    })
}

/// After a `__cudaPushCallConfiguration`, the call that launches: a stub's,
/// or an inlined stub's `cudaLaunchKernel`. Clang branches on the push's
/// result being 0 and calls the stub there, so the search follows that edge
/// (and any straight line after it) and stops at the next push.
fn launched_after(push: Value) -> Option<Value> {
    let here = push.parent_block();
    let mut blocks = vec![];
    let rest: Vec<Value> = here
        .instructions()
        .into_iter()
        .skip_while(|i| *i != push)
        .skip(1)
        .collect();
    let mut next = on_success(push, here).or_else(|| single_successor(here));
    for _ in 0..MAX_BLOCKS {
        let Some(b) = next else { break };
        blocks.push(b);
        next = single_successor(b);
    }
    let later = blocks.iter().flat_map(|b| b.instructions());
    for inst in rest.into_iter().chain(later) {
        match callee_name(inst).as_deref() {
            Some(PUSH) => return None,
            Some(name) if Kernel::of_stub(name).is_some() => return Some(inst),
            Some(name)
                if runtime_form(name).is_some()
                    && inst.num_args() > 0
                    && Kernel::of_stub(&inst.operand(0).name()).is_some() =>
            {
                return Some(inst)
            }
            _ => {}
        }
    }
    None
}

/// How many blocks past the push the launch is looked for; clang puts it in
/// the first, and an inlined stub is straight-line code.
const MAX_BLOCKS: usize = 4;

/// The block a `br (icmp eq push, 0)` (or `ne`) goes to when the push
/// returned 0.
fn on_success(push: Value, block: Block) -> Option<Block> {
    let (cond, then, otherwise) = block.conditional_branch()?;
    if cond.opcode() != Some(Opcode::LLVMICmp) || cond.num_operands() != 2 {
        return None;
    }
    let (a, b) = (cond.operand(0), cond.operand(1));
    let zero = |v: Value| v.const_int() == Some(0);
    if !((a == push && zero(b)) || (b == push && zero(a))) {
        return None;
    }
    match cond.icmp_predicate() {
        IntPredicate::LLVMIntEQ => Some(then),
        IntPredicate::LLVMIntNE => Some(otherwise),
        _ => None,
    }
}

fn single_successor(block: Block) -> Option<Block> {
    match block.successors().as_slice() {
        [only] => Some(*only),
        _ => None,
    }
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
    let mut at: HashMap<u64, Value> = HashMap::new();
    let mut stored = |offset: u64, store: Value| -> bool {
        // Two stores to one slot: which one a launch sees is control flow.
        store.opcode() == Some(Opcode::LLVMStore)
            && offset % 8 == 0
            && at.insert(offset / 8, store.operand(0)).is_none()
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
            Some(Opcode::LLVMCall) => is_lifetime(user) || runtime_form_of(user).is_some(),
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
    (0..n).map(|i| slot(at[&i], array)).collect()
}

fn runtime_form_of(call: Value) -> Option<Form> {
    runtime_form(&callee_name(call)?)
}

fn is_lifetime(call: Value) -> bool {
    call.called_value()
        .intrinsic_name()
        .is_some_and(|n| n.starts_with("llvm.lifetime."))
}

/// What a slot's pointer points to: an integer `alloca` stored exactly once
/// and otherwise only read or put into `array`, whose stored value is a
/// constant or the function's parameter.
fn slot(pointer: Value, array: Value) -> Slot {
    let into_array = |p: Value| {
        p == array || (p.opcode() == Some(Opcode::LLVMGetElementPtr) && p.operand(0) == array)
    };
    if pointer.opcode() != Some(Opcode::LLVMAlloca) {
        return Slot::Unknown;
    }
    let mut value = None;
    for user in pointer.users() {
        match user.opcode() {
            Some(Opcode::LLVMStore) if user.operand(1) == pointer => {
                if value.replace(user.operand(0)).is_some() {
                    return Slot::Unknown;
                }
            }
            // The slot's own address, stored into the argument array.
            Some(Opcode::LLVMStore) if into_array(user.operand(1)) => {}
            Some(Opcode::LLVMLoad) => {}
            Some(Opcode::LLVMCall) if is_lifetime(user) => {}
            _ => return Slot::Unknown,
        }
    }
    let Some(value) = value else {
        return Slot::Unknown;
    };
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
    let mut ty = gep.gep_source_type();
    if !ty.is_sized() {
        return None;
    }
    let first = u64::try_from(gep.operand(1).const_int()?).ok()?;
    let mut offset = first.checked_mul(layout.alloc_size(ty))?;
    for i in 2..gep.num_operands() {
        let index = u64::try_from(gep.operand(i).const_int()?).ok()?;
        match ty.kind() {
            llvm_sys::LLVMTypeKind::LLVMArrayTypeKind => {
                ty = ty.element();
                offset = offset.checked_add(index.checked_mul(layout.alloc_size(ty))?)?;
            }
            llvm_sys::LLVMTypeKind::LLVMStructTypeKind => {
                let field = u32::try_from(index)
                    .ok()
                    .filter(|&f| f < ty.struct_fields())?;
                offset = offset.checked_add(layout.field_offset(ty, field))?;
                ty = ty.struct_field(field);
            }
            _ => return None,
        }
    }
    Some(offset)
}

/// Where a launch is written: the innermost debug location outside CUDA's
/// own headers (a `cudaLaunchKernel<T>` template inlined from
/// `cuda_runtime.h` is not where the user launched).
fn site(call: Value) -> Option<Site> {
    let loc = call.source_location()?;
    let frames: Vec<&ir::SourcePosition> =
        std::iter::once(&loc.at).chain(&loc.inlined_at).collect();
    let runtime_header = |p: &&ir::SourcePosition| {
        p.file.as_deref().is_some_and(|f| {
            let base = f.rsplit('/').next().unwrap_or(f);
            base.starts_with("cuda_runtime")
        })
    };
    let at = frames
        .iter()
        .find(|p| !runtime_header(p))
        .unwrap_or(&frames[0]);
    Some(Site {
        file: at.file.clone(),
        line: at.line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    fn launches_in(ir: &str) -> Vec<HostLaunch> {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "host.ll");
        let module = context
            .create_module_from_ir(buffer)
            .unwrap_or_else(|e| panic!("bad test IR: {e}"));
        launches(&module)
    }

    #[test]
    #[ignore]
    fn dump() {
        let path = std::env::var("HOST_LL").unwrap();
        for l in launches_in(&std::fs::read_to_string(path).unwrap()) {
            println!("{l:?}");
        }
    }
}
