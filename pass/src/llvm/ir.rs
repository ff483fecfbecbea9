//! The LLVM boundary: small, safe, copyable handles over the raw C API for
//! the parts of the IR the analysis reads and the transforms write.
//!
//! Every `unsafe` call into llvm-sys that the analysis needs lives here, so
//! that the rest of the crate is ordinary Rust. The handles borrow: a module
//! handed to the plugin belongs to LLVM and is never disposed from Rust, and
//! a module owned by an inkwell `Module` outlives every handle made from it
//! for the length of one `run`. This file does not decide anything; it only
//! reads and writes IR.
//!
//! Length (about 1,350 lines): one file, so that the crate's `unsafe`
//! surface is read and reviewed in one place; it grows by one small safe
//! wrapper per C API function the analysis needs.

use std::ffi::{CStr, CString};

use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

pub use llvm_sys::LLVMIntPredicate as IntPredicate;
pub use llvm_sys::LLVMOpcode as Opcode;

/// A module the caller keeps alive for as long as the handle is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Module(LLVMModuleRef);

/// An LLVM value: instruction, argument, constant, function or basic block value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(LLVMValueRef);

/// A basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(LLVMBasicBlockRef);

/// An LLVM type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type(LLVMTypeRef);

/// The module's data layout, for type sizes and struct field offsets.
pub struct DataLayout(LLVMTargetDataRef);

/// A position in the source, as a debug location names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourcePosition {
    /// The path of the location's scope's file: its directory and name as
    /// the debug info gives them (`None` when the scope has no file).
    pub file: Option<String>,
    /// 0 when the debug info attributes the instruction to no line (LLVM
    /// writes line 0 when it merges instructions from different lines).
    pub line: u32,
    pub column: u32,
}

/// Where an instruction comes from: its own position and the call sites it
/// was inlined through, innermost first (the last is in the function that
/// holds the instruction).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    pub at: SourcePosition,
    pub inlined_at: Vec<SourcePosition>,
}

/// Key locations being written (`Module::key_locations`): the key file and
/// one `DILexicalBlockFile` per scope that names it.
pub struct KeyLocations {
    di: LLVMDIBuilderRef,
    file: LLVMMetadataRef,
    blocks: std::collections::HashMap<LLVMMetadataRef, LLVMMetadataRef>,
}

impl Drop for KeyLocations {
    fn drop(&mut self) {
        // SAFETY: the builder was created by `key_locations` and is used no more.
        unsafe {
            LLVMDIBuilderFinalize(self.di);
            LLVMDisposeDIBuilder(self.di);
        }
    }
}

/// The path of a debug scope's file (`DIScope::getFile`): its name joined
/// to its directory, or, when it names none, to `unit_dir` (the compile
/// unit's directory, which DWARF takes for such files); absolute names as
/// they are. `None` when the scope has no file.
fn scope_file(scope: LLVMMetadataRef, unit_dir: Option<&str>) -> Option<String> {
    if scope.is_null() {
        return None;
    }
    // SAFETY: `scope` is a DIScope; the file's strings are owned by the context.
    let (name, dir) = unsafe {
        let file = LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return None;
        }
        let (mut n, mut d) = (0u32, 0u32);
        let name = LLVMDIFileGetFilename(file, &mut n);
        let dir = LLVMDIFileGetDirectory(file, &mut d);
        (to_string(name, n as usize), to_string(dir, d as usize))
    };
    if name.is_empty() {
        return None;
    }
    let dir = Some(dir.as_str()).filter(|d| !d.is_empty()).or(unit_dir);
    match dir {
        // `components` drops the `.` of `./helpers.cuh`.
        Some(d) if !std::path::Path::new(&name).is_absolute() => Some(
            std::path::Path::new(d)
                .join(&name)
                .components()
                .collect::<std::path::PathBuf>()
                .to_string_lossy()
                .into_owned(),
        ),
        _ => Some(name),
    }
}

/// The raw name and the directory of a debug scope's file (empty strings
/// when it has none).
fn scope_file_parts(scope: LLVMMetadataRef) -> (String, String) {
    if scope.is_null() {
        return (String::new(), String::new());
    }
    // SAFETY: `scope` is a DIScope; the file's strings are owned by the context.
    unsafe {
        let file = LLVMDIScopeGetFile(scope);
        if file.is_null() {
            return (String::new(), String::new());
        }
        let (mut n, mut d) = (0u32, 0u32);
        let name = LLVMDIFileGetFilename(file, &mut n);
        let dir = LLVMDIFileGetDirectory(file, &mut d);
        (to_string(name, n as usize), to_string(dir, d as usize))
    }
}

/// Line, column and file of a DILocation.
fn position(loc: LLVMMetadataRef, unit_dir: Option<&str>) -> SourcePosition {
    // SAFETY: `loc` is a non-null DILocation.
    unsafe {
        SourcePosition {
            file: scope_file(LLVMDILocationGetScope(loc), unit_dir),
            line: LLVMDILocationGetLine(loc),
            column: LLVMDILocationGetColumn(loc),
        }
    }
}

/// A `switch`: its condition, default destination and (case value, destination) pairs.
pub type Switch = (Value, Block, Vec<(Value, Block)>);

/// A piece of IR metadata being built for attachment.
#[derive(Clone, Copy, Debug)]
pub struct Metadata(LLVMMetadataRef);

fn to_string(ptr: *const std::ffi::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns a pointer to `len` bytes it owns, valid while the value lives.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NULs were removed")
}

impl Module {
    /// # Safety
    /// `raw` must be a valid module that outlives every handle derived from it.
    pub unsafe fn from_raw(raw: LLVMModuleRef) -> Module {
        Module(raw)
    }

    pub fn triple(self) -> String {
        // SAFETY: valid module; the string is owned by the module.
        unsafe {
            CStr::from_ptr(LLVMGetTarget(self.0))
                .to_string_lossy()
                .into_owned()
        }
    }

    pub fn data_layout(self) -> DataLayout {
        // SAFETY: valid module; the layout string is copied into a new TargetData.
        unsafe { DataLayout(LLVMCreateTargetData(LLVMGetDataLayoutStr(self.0))) }
    }

    pub fn functions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the module's own function list.
        unsafe {
            let mut f = LLVMGetFirstFunction(self.0);
            while !f.is_null() {
                out.push(Value(f));
                f = LLVMGetNextFunction(f);
            }
        }
        out
    }

    pub fn globals(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the module's own global list.
        unsafe {
            let mut g = LLVMGetFirstGlobal(self.0);
            while !g.is_null() {
                out.push(Value(g));
                g = LLVMGetNextGlobal(g);
            }
        }
        out
    }

    /// Operands of a named metadata node such as `!nvvm.annotations`, each an MDNode.
    pub fn named_metadata(self, name: &str) -> Vec<Value> {
        let cname = cstring(name);
        // SAFETY: the out-buffer is sized by the count LLVM reports.
        unsafe {
            let n = LLVMGetNamedMetadataNumOperands(self.0, cname.as_ptr()) as usize;
            let mut ops = vec![std::ptr::null_mut(); n];
            if n > 0 {
                LLVMGetNamedMetadataOperands(self.0, cname.as_ptr(), ops.as_mut_ptr());
            }
            ops.into_iter().map(Value).collect()
        }
    }

    /// The module's first compile unit (`!llvm.dbg.cu`), if it has debug info.
    fn compile_unit(self) -> Option<LLVMMetadataRef> {
        self.named_metadata("llvm.dbg.cu")
            .into_iter()
            .find_map(|unit| {
                // SAFETY: the operands of `!llvm.dbg.cu` are metadata wrapped as
                // values; unwrapping gives the node, checked to be a unit.
                let md = unsafe { LLVMValueAsMetadata(unit.0) };
                // SAFETY: `md` is a metadata node of this module's context.
                let kind = unsafe { LLVMGetMetadataKind(md) };
                matches!(kind, LLVMMetadataKind::LLVMDICompileUnitMetadataKind).then_some(md)
            })
    }

    /// The compile unit's directory (the compilation directory), which
    /// files named without one are relative to.
    fn compile_dir(self) -> Option<String> {
        let unit = self.compile_unit()?;
        // SAFETY: a compile unit is a DIScope with a file.
        unsafe {
            let file = LLVMDIScopeGetFile(unit);
            if file.is_null() {
                return None;
            }
            let mut len = 0u32;
            let dir = LLVMDIFileGetDirectory(file, &mut len);
            Some(to_string(dir, len as usize)).filter(|d| !d.is_empty())
        }
    }

    /// The path of the module's main source file, from its debug info (the
    /// first compile unit's file, joined to its directory). `None` without
    /// debug info.
    pub fn main_source_file(self) -> Option<String> {
        scope_file(self.compile_unit()?, None)
    }

    pub fn add_named_metadata(self, name: &str, node: Metadata) {
        let cname = cstring(name);
        // SAFETY: valid module and context; the node is wrapped as a value.
        unsafe {
            let v = LLVMMetadataAsValue(LLVMGetModuleContext(self.0), node.0);
            LLVMAddNamedMetadataOperand(self.0, cname.as_ptr(), v);
        }
    }

    pub fn context(self) -> LLVMContextRef {
        // SAFETY: valid module.
        unsafe { LLVMGetModuleContext(self.0) }
    }

    pub fn md_string(self, s: &str) -> Metadata {
        // SAFETY: the context copies the bytes.
        unsafe {
            Metadata(LLVMMDStringInContext2(
                self.context(),
                s.as_ptr() as *const _,
                s.len(),
            ))
        }
    }

    pub fn md_i64(self, v: i64) -> Metadata {
        // SAFETY: constants are uniqued in the context.
        unsafe {
            let ty = LLVMInt64TypeInContext(self.context());
            Metadata(LLVMValueAsMetadata(LLVMConstInt(ty, v as u64, 1)))
        }
    }

    pub fn md_i32(self, v: i32) -> Metadata {
        // SAFETY: constants are uniqued in the context.
        unsafe {
            let ty = LLVMInt32TypeInContext(self.context());
            Metadata(LLVMValueAsMetadata(LLVMConstInt(ty, v as u64, 1)))
        }
    }

    pub fn md_value(self, v: Value) -> Metadata {
        // SAFETY: wraps a value of this module as metadata.
        unsafe { Metadata(LLVMValueAsMetadata(v.0)) }
    }

    pub fn md_node(self, items: &[Metadata]) -> Metadata {
        let mut raw: Vec<LLVMMetadataRef> = items.iter().map(|m| m.0).collect();
        // SAFETY: the node copies the operand list.
        unsafe {
            Metadata(LLVMMDNodeInContext2(
                self.context(),
                raw.as_mut_ptr(),
                raw.len(),
            ))
        }
    }

    pub fn md_kind(self, name: &str) -> u32 {
        // SAFETY: kind ids are registered in the context.
        unsafe {
            LLVMGetMDKindIDInContext(self.context(), name.as_ptr() as *const _, name.len() as u32)
        }
    }

    /// Removes all debug info; used by the driver when it added line tables
    /// only to locate loads, so that the emitted code matches a build without them.
    pub fn strip_debug_info(self) {
        // SAFETY: valid module.
        unsafe {
            LLVMStripModuleDebugInfo(self.0);
        }
    }

    /// Every file the module's debug locations can name in the output's
    /// line table: the files of each instruction's location and of the call
    /// sites it was inlined through, of each function's subprogram and of
    /// the compile units; each as its raw name, its directory, and its
    /// name joined to its directory.
    pub fn debug_file_names(self) -> Vec<String> {
        let mut scopes = Vec::new();
        if let Some(unit) = self.compile_unit() {
            scopes.push(unit);
        }
        for f in self.functions() {
            if f.is_declaration() {
                continue;
            }
            scopes.push(f.subprogram());
            for i in f.instructions() {
                let mut loc = i.debug_loc_raw();
                while !loc.is_null() {
                    // SAFETY: `loc` is a DILocation of a live module.
                    unsafe {
                        scopes.push(LLVMDILocationGetScope(loc));
                        loc = LLVMDILocationGetInlinedAt(loc);
                    }
                }
            }
        }
        scopes.sort();
        scopes.dedup();
        let mut names = Vec::new();
        for s in scopes.into_iter().filter(|s| !s.is_null()) {
            let (name, dir) = scope_file_parts(s);
            if !dir.is_empty() {
                names.push(format!("{dir}/{name}"));
            }
            names.push(name);
            names.push(dir);
        }
        names.sort();
        names.dedup();
        names
    }

    /// A writer of key locations in a file of their own named `file`
    /// (`keys`), for `Value::set_key_line`.
    pub fn key_locations(self, file: &str) -> KeyLocations {
        // SAFETY: a DIBuilder over this live module, finalized and disposed by `KeyLocations`'s drop.
        unsafe {
            let di = LLVMCreateDIBuilder(self.0);
            let file =
                LLVMDIBuilderCreateFile(di, file.as_ptr() as *const _, file.len(), c"".as_ptr(), 0);
            KeyLocations {
                di,
                file,
                blocks: std::collections::HashMap::new(),
            }
        }
    }

    /// Gives every defined function in `functions` that has no debug
    /// subprogram one, in a compile unit of its own (file `name`, the
    /// key file), so that its instructions can carry key
    /// locations. Returns whether anything was added.
    pub fn ensure_subprograms(self, functions: &[Value], name: &str) -> bool {
        let missing: Vec<Value> = functions
            .iter()
            .copied()
            .filter(|f| !f.is_declaration() && f.subprogram().is_null())
            .collect();
        if missing.is_empty() {
            return false;
        }
        // SAFETY: a DIBuilder over this live module, finalized and disposed here.
        unsafe {
            if LLVMGetModuleDebugMetadataVersion(self.0) == 0 {
                let version = LLVMConstInt(
                    LLVMInt32TypeInContext(self.context()),
                    LLVMDebugMetadataVersion() as u64,
                    0,
                );
                let key = "Debug Info Version";
                LLVMAddModuleFlag(
                    self.0,
                    llvm_sys::LLVMModuleFlagBehavior::LLVMModuleFlagBehaviorWarning,
                    key.as_ptr() as *const _,
                    key.len(),
                    LLVMValueAsMetadata(version),
                );
            }
            let di = LLVMCreateDIBuilder(self.0);
            let file =
                LLVMDIBuilderCreateFile(di, name.as_ptr() as *const _, name.len(), c"".as_ptr(), 0);
            let unit = LLVMDIBuilderCreateCompileUnit(
                di,
                LLVMDWARFSourceLanguage::LLVMDWARFSourceLanguageC_plus_plus,
                file,
                name.as_ptr() as *const _,
                name.len(),
                1,
                c"".as_ptr(),
                0,
                0,
                c"".as_ptr(),
                0,
                LLVMDWARFEmissionKind::LLVMDWARFEmissionKindLineTablesOnly,
                0,
                0,
                0,
                c"".as_ptr(),
                0,
                c"".as_ptr(),
                0,
            );
            let ty = LLVMDIBuilderCreateSubroutineType(di, file, std::ptr::null_mut(), 0, 0);
            for f in missing {
                let fname = f.name();
                let sp = LLVMDIBuilderCreateFunction(
                    di,
                    unit,
                    fname.as_ptr() as *const _,
                    fname.len(),
                    fname.as_ptr() as *const _,
                    fname.len(),
                    file,
                    1,
                    ty,
                    0,
                    1,
                    1,
                    0,
                    1,
                );
                LLVMSetSubprogram(f.0, sp);
            }
            LLVMDIBuilderFinalize(di);
            LLVMDisposeDIBuilder(di);
        }
        true
    }

    /// Clears the names of arguments, blocks and instructions, as clang
    /// does by default; the driver keeps them during the pass only to match
    /// `--kernel-arg=NAME=...` to parameters.
    pub fn discard_local_names(self) {
        // SAFETY: walking and renaming the module's own local values; the
        // context flag makes later passes' names no-ops, as under clang
        // (a codegen pass naming a block "<header>.preheader" would
        // otherwise leave a `// %.preheader` comment clang does not write).
        unsafe {
            LLVMContextSetDiscardValueNames(self.context(), 1);
            for f in self.functions() {
                for p in f.params() {
                    LLVMSetValueName2(p.0, c"".as_ptr(), 0);
                }
                for b in f.blocks() {
                    LLVMSetValueName2(LLVMBasicBlockAsValue(b.0), c"".as_ptr(), 0);
                    for i in b.instructions() {
                        LLVMSetValueName2(i.0, c"".as_ptr(), 0);
                    }
                }
            }
        }
    }
}

impl Drop for DataLayout {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateTargetData in `Module::data_layout`.
        unsafe { LLVMDisposeTargetData(self.0) }
    }
}

impl DataLayout {
    /// Bytes between consecutive elements of this type in an array (GEP stride).
    pub fn alloc_size(&self, ty: Type) -> u64 {
        // SAFETY: sized types only; callers check `is_sized`.
        unsafe { LLVMABISizeOfType(self.0, ty.0) }
    }

    /// Bytes a load of this type reads.
    pub fn store_size(&self, ty: Type) -> u64 {
        // SAFETY: sized types only.
        unsafe { LLVMStoreSizeOfType(self.0, ty.0) }
    }

    pub fn field_offset(&self, ty: Type, field: u32) -> u64 {
        // SAFETY: `ty` is a struct type with more than `field` elements (checked by caller).
        unsafe { LLVMOffsetOfElement(self.0, ty.0, field) }
    }
}

impl Type {
    pub fn kind(self) -> LLVMTypeKind {
        // SAFETY: valid type.
        unsafe { LLVMGetTypeKind(self.0) }
    }

    pub fn int_width(self) -> u32 {
        // SAFETY: only called on integer types.
        unsafe { LLVMGetIntTypeWidth(self.0) }
    }

    pub fn is_int(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMIntegerTypeKind
    }

    pub fn is_pointer(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMPointerTypeKind
    }

    /// Bits of an IEEE `float` (32) or `double` (64); `None` for any other
    /// type, `half` and vectors included.
    pub fn float_bits(self) -> Option<u32> {
        match self.kind() {
            LLVMTypeKind::LLVMFloatTypeKind => Some(32),
            LLVMTypeKind::LLVMDoubleTypeKind => Some(64),
            _ => None,
        }
    }

    pub fn address_space(self) -> u32 {
        // SAFETY: only called on pointer types.
        unsafe { LLVMGetPointerAddressSpace(self.0) }
    }

    pub fn is_sized(self) -> bool {
        // SAFETY: valid type.
        unsafe { LLVMTypeIsSized(self.0) != 0 }
    }

    /// Element type of an array or vector type.
    pub fn element(self) -> Type {
        // SAFETY: only called on arrays and vectors.
        unsafe { Type(LLVMGetElementType(self.0)) }
    }

    pub fn vector_len(self) -> u32 {
        // SAFETY: only called on fixed vectors.
        unsafe { LLVMGetVectorSize(self.0) }
    }

    pub fn struct_field(self, i: u32) -> Type {
        // SAFETY: only called on struct types with more than `i` fields.
        unsafe { Type(LLVMStructGetTypeAtIndex(self.0, i)) }
    }

    pub fn struct_fields(self) -> u32 {
        // SAFETY: only called on struct types.
        unsafe { LLVMCountStructElementTypes(self.0) }
    }

    pub fn print(self) -> String {
        // SAFETY: LLVM allocates the string; we copy and free it.
        unsafe {
            let s = LLVMPrintTypeToString(self.0);
            let out = CStr::from_ptr(s).to_string_lossy().into_owned();
            LLVMDisposeMessage(s);
            out
        }
    }
}

impl Value {
    pub fn raw(self) -> LLVMValueRef {
        self.0
    }

    pub fn ty(self) -> Type {
        // SAFETY: valid value.
        unsafe { Type(LLVMTypeOf(self.0)) }
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        // SAFETY: the name is owned by the value.
        unsafe { to_string(LLVMGetValueName2(self.0, &mut len), len) }
    }

    pub fn opcode(self) -> Option<LLVMOpcode> {
        // SAFETY: checked to be an instruction first.
        unsafe {
            if !LLVMIsAInstruction(self.0).is_null() {
                Some(LLVMGetInstructionOpcode(self.0))
            } else if !LLVMIsAConstantExpr(self.0).is_null() {
                Some(LLVMGetConstOpcode(self.0))
            } else {
                None
            }
        }
    }

    pub fn is_instruction(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAInstruction(self.0).is_null() }
    }

    pub fn is_argument(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAArgument(self.0).is_null() }
    }

    pub fn is_global_variable(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAGlobalVariable(self.0).is_null() }
    }

    pub fn is_function(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAFunction(self.0).is_null() }
    }

    pub fn is_inline_asm(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAInlineAsm(self.0).is_null() }
    }

    /// An inline asm value's template text; empty for any other value.
    pub fn asm_text(self) -> String {
        if !self.is_inline_asm() {
            return String::new();
        }
        let mut len = 0usize;
        // SAFETY: `self` is an inline asm value; LLVM returns a pointer to
        // `len` bytes it owns, valid while the value lives, read at once.
        unsafe {
            let p = LLVMGetInlineAsmAsmString(self.0, &mut len);
            if p.is_null() {
                return String::new();
            }
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            String::from_utf8_lossy(bytes).into_owned()
        }
    }

    pub fn is_null_pointer(self) -> bool {
        // SAFETY: a type query.
        unsafe { !LLVMIsAConstantPointerNull(self.0).is_null() }
    }

    pub fn is_undef_or_poison(self) -> bool {
        // SAFETY: type queries.
        unsafe { !LLVMIsAUndefValue(self.0).is_null() || !LLVMIsAPoisonValue(self.0).is_null() }
    }

    pub fn const_int(self) -> Option<i64> {
        // SAFETY: checked to be a ConstantInt of at most 64 bits.
        unsafe {
            if LLVMIsAConstantInt(self.0).is_null() || self.ty().int_width() > 64 {
                None
            } else {
                Some(LLVMConstIntGetSExtValue(self.0))
            }
        }
    }

    pub fn num_operands(self) -> u32 {
        // SAFETY: users only (instructions, constant exprs, metadata nodes are handled elsewhere).
        unsafe { LLVMGetNumOperands(self.0).max(0) as u32 }
    }

    pub fn operand(self, i: u32) -> Value {
        // SAFETY: callers stay below `num_operands`.
        unsafe { Value(LLVMGetOperand(self.0, i)) }
    }

    /// Whether an `add`, `sub`, `mul` or `shl` instruction carries `nsw`
    /// (no signed wrap); false for any other value, a constant expression
    /// included (`LLVMGetNSW` takes instructions only).
    pub fn has_nsw(self) -> bool {
        let arith = self.is_instruction()
            && matches!(
                self.opcode(),
                Some(Opcode::LLVMAdd | Opcode::LLVMSub | Opcode::LLVMMul | Opcode::LLVMShl)
            );
        // SAFETY: `LLVMGetNSW` reads the flag of an overflowing binary
        // instruction, which `arith` checked this is.
        arith && unsafe { LLVMGetNSW(self.0) != 0 }
    }

    pub fn is_volatile(self) -> bool {
        // SAFETY: only called on loads and stores.
        unsafe { LLVMGetVolatile(self.0) != 0 }
    }

    pub fn is_atomic(self) -> bool {
        // SAFETY: only called on loads and stores.
        unsafe {
            LLVMGetOrdering(self.0) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        }
    }

    pub fn alignment(self) -> u32 {
        // SAFETY: only called on loads, stores and globals.
        unsafe { LLVMGetAlignment(self.0) }
    }

    pub fn is_disjoint_or(self) -> bool {
        // SAFETY: only called on `or` instructions.
        unsafe { LLVMGetIsDisjoint(self.0) != 0 }
    }

    pub fn icmp_predicate(self) -> LLVMIntPredicate {
        // SAFETY: only called on icmp instructions / constant exprs.
        unsafe { LLVMGetICmpPredicate(self.0) }
    }

    pub fn gep_source_type(self) -> Type {
        // SAFETY: only called on GEPs.
        unsafe { Type(LLVMGetGEPSourceElementType(self.0)) }
    }

    /// The callee of a call instruction (function, inline asm, or other value).
    pub fn called_value(self) -> Value {
        // SAFETY: only called on calls.
        unsafe { Value(LLVMGetCalledValue(self.0)) }
    }

    pub fn num_args(self) -> u32 {
        // SAFETY: only called on calls.
        unsafe { LLVMGetNumArgOperands(self.0) }
    }

    pub fn intrinsic_name(self) -> Option<String> {
        // Intrinsic ids are not stable across LLVM versions; the name is.
        if self.is_function() {
            let name = self.name();
            if name.starts_with("llvm.") {
                return Some(name);
            }
        }
        None
    }

    pub fn parent_block(self) -> Block {
        // SAFETY: only called on instructions.
        unsafe { Block(LLVMGetInstructionParent(self.0)) }
    }

    pub fn parent_function(self) -> Value {
        self.parent_block().function()
    }

    pub fn incoming(self) -> Vec<(Value, Block)> {
        // SAFETY: only called on phis.
        unsafe {
            (0..LLVMCountIncoming(self.0))
                .map(|i| {
                    (
                        Value(LLVMGetIncomingValue(self.0, i)),
                        Block(LLVMGetIncomingBlock(self.0, i)),
                    )
                })
                .collect()
        }
    }

    pub fn params(self) -> Vec<Value> {
        // SAFETY: only called on functions.
        unsafe {
            (0..LLVMCountParams(self.0))
                .map(|i| Value(LLVMGetParam(self.0, i)))
                .collect()
        }
    }

    /// Position of an argument in its function's parameter list.
    pub fn arg_index(self) -> u32 {
        // SAFETY: only called on arguments.
        unsafe {
            let f = LLVMGetParamParent(self.0);
            (0..LLVMCountParams(f))
                .find(|&i| LLVMGetParam(f, i) == self.0)
                .unwrap_or(0)
        }
    }

    pub fn arg_function(self) -> Value {
        // SAFETY: only called on arguments.
        unsafe { Value(LLVMGetParamParent(self.0)) }
    }

    /// Whether a function argument carries an enum attribute such as
    /// `noalias` or `readonly`.
    pub fn arg_has_attribute(self, name: &str) -> bool {
        // SAFETY: only called on arguments; attribute index is the parameter's index + 1.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let f = LLVMGetParamParent(self.0);
            !LLVMGetEnumAttributeAtIndex(f, self.arg_index() + 1, kind).is_null()
        }
    }

    /// Whether a function carries an enum attribute such as `optnone`.
    pub fn has_fn_attribute(self, name: &str) -> bool {
        // SAFETY: only called on functions; the function's own attributes
        // sit at index -1 (LLVMAttributeFunctionIndex).
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            !LLVMGetEnumAttributeAtIndex(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind)
                .is_null()
        }
    }

    /// A function's `memory(...)` attribute as LLVM 19 encodes it
    /// (`MemoryEffects`: two mod/ref bits per location, argument memory in
    /// bits 0–1, inaccessible memory in 2–3, any other memory in 4–5), or
    /// `None` when it has none: then it may read or write any memory.
    pub fn memory_effects(self) -> Option<u64> {
        let name = "memory";
        // SAFETY: only called on functions; see `has_fn_attribute`.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let a = LLVMGetEnumAttributeAtIndex(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind);
            (!a.is_null()).then(|| LLVMGetEnumAttributeValue(a))
        }
    }

    /// Internal or private linkage: every use of the symbol is in this module.
    pub fn has_local_linkage(self) -> bool {
        use llvm_sys::LLVMLinkage::*;
        // SAFETY: only called on globals.
        unsafe {
            matches!(
                LLVMGetLinkage(self.0),
                LLVMInternalLinkage | LLVMPrivateLinkage
            )
        }
    }

    /// The module of a function or global.
    pub fn module(self) -> Module {
        // SAFETY: a function or global always has a parent module.
        Module(unsafe { LLVMGetGlobalParent(self.0) })
    }

    /// The type a global variable holds.
    pub fn global_value_type(self) -> Type {
        // SAFETY: only called on global variables.
        Type(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    pub fn is_global_constant(self) -> bool {
        // SAFETY: only called on global variables.
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }

    pub fn is_declaration(self) -> bool {
        // SAFETY: only called on globals.
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }

    pub fn calling_conv(self) -> u32 {
        // SAFETY: only called on functions.
        unsafe { LLVMGetFunctionCallConv(self.0) }
    }

    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        // SAFETY: walking the function's own block list.
        unsafe {
            let mut b = LLVMGetFirstBasicBlock(self.0);
            while !b.is_null() {
                out.push(Block(b));
                b = LLVMGetNextBasicBlock(b);
            }
        }
        out
    }

    pub fn instructions(self) -> impl Iterator<Item = Value> {
        self.blocks().into_iter().flat_map(|b| b.instructions())
    }

    /// A string function attribute such as `"target-cpu"`.
    pub fn string_attribute(self, key: &str) -> Option<String> {
        // SAFETY: function attribute index is u32::MAX (LLVMAttributeFunctionIndex).
        unsafe {
            let a = LLVMGetStringAttributeAtIndex(
                self.0,
                llvm_sys::LLVMAttributeFunctionIndex,
                key.as_ptr() as *const _,
                key.len() as u32,
            );
            if a.is_null() {
                return None;
            }
            let mut len = 0u32;
            let p = LLVMGetStringAttributeValue(a, &mut len);
            Some(to_string(p, len as usize))
        }
    }

    /// Source line and column from the instruction's debug location, if any.
    pub fn debug_line_col(self) -> (u32, u32) {
        // SAFETY: only called on instructions; LLVM returns 0 when there is no location.
        unsafe {
            if LLVMInstructionGetDebugLoc(self.0).is_null() {
                (0, 0)
            } else {
                (LLVMGetDebugLocLine(self.0), LLVMGetDebugLocColumn(self.0))
            }
        }
    }

    /// Where the instruction comes from, by its debug location: file (the
    /// path the debug info gives), line and column, and the call sites it
    /// was inlined through. `None` when it has no debug location.
    pub fn source_location(self) -> Option<SourceLocation> {
        // SAFETY: only called on instructions; the location's metadata
        // belongs to the context and outlives this call.
        let loc = unsafe { LLVMInstructionGetDebugLoc(self.0) };
        if loc.is_null() {
            return None;
        }
        // SAFETY: an instruction's function belongs to a module.
        let module = Module(unsafe { LLVMGetGlobalParent(self.parent_function().0) });
        let unit_dir = module.compile_dir();
        let unit_dir = unit_dir.as_deref();
        let mut inlined_at = Vec::new();
        // SAFETY: `loc` and every inlined-at link are DILocations.
        let mut site = unsafe { LLVMDILocationGetInlinedAt(loc) };
        while !site.is_null() {
            inlined_at.push(position(site, unit_dir));
            // SAFETY: as above.
            site = unsafe { LLVMDILocationGetInlinedAt(site) };
        }
        Some(SourceLocation {
            at: position(loc, unit_dir),
            inlined_at,
        })
    }

    /// The instruction's debug location as LLVM holds it (null when it has
    /// none), for emitting a remark about it after the instruction is gone;
    /// locations are owned by the context, not the instruction.
    pub fn debug_loc_raw(self) -> LLVMMetadataRef {
        // SAFETY: only called on instructions.
        unsafe { LLVMInstructionGetDebugLoc(self.0) }
    }

    /// The function's debug subprogram (null when it has none).
    pub fn subprogram(self) -> LLVMMetadataRef {
        // SAFETY: only called on functions.
        unsafe { LLVMGetSubprogram(self.0) }
    }

    /// Whether the instruction has a debug location.
    pub fn has_debug_loc(self) -> bool {
        // SAFETY: only called on instructions.
        unsafe { !LLVMInstructionGetDebugLoc(self.0).is_null() }
    }

    /// Moves the instruction's debug location to `line`, column 0, of the
    /// key file of `keys`, keeping its scope (as the parent of a
    /// `DILexicalBlockFile` naming the key file) and inlined-at chain (or,
    /// without a location, in the function's subprogram). Debug locations
    /// never change generated code. Returns false when there is no scope
    /// to put it in.
    pub fn set_key_line(self, keys: &mut KeyLocations, line: u32) -> bool {
        // SAFETY: only called on instructions of the live module `keys` builds for.
        unsafe {
            let loc = LLVMInstructionGetDebugLoc(self.0);
            let (scope, inlined) = if loc.is_null() {
                (self.parent_function().subprogram(), std::ptr::null_mut())
            } else {
                (LLVMDILocationGetScope(loc), LLVMDILocationGetInlinedAt(loc))
            };
            if scope.is_null() {
                return false;
            }
            let (di, file) = (keys.di, keys.file);
            let block = *keys
                .blocks
                .entry(scope)
                .or_insert_with(|| LLVMDIBuilderCreateLexicalBlockFile(di, scope, file, 0));
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let new = LLVMDIBuilderCreateDebugLocation(ctx, line, 0, block, inlined);
            LLVMInstructionSetDebugLoc(self.0, new);
        }
        true
    }

    /// Operands of a metadata node value (from `named_metadata`).
    pub fn md_operands(self) -> Vec<Value> {
        // SAFETY: only called on MDNode values; the buffer is sized by LLVM's count.
        unsafe {
            if LLVMIsAMDNode(self.0).is_null() {
                return Vec::new();
            }
            let n = LLVMGetMDNodeNumOperands(self.0) as usize;
            let mut ops = vec![std::ptr::null_mut(); n];
            LLVMGetMDNodeOperands(self.0, ops.as_mut_ptr());
            ops.into_iter().map(Value).collect()
        }
    }

    pub fn md_string(self) -> Option<String> {
        if self.0.is_null() {
            return None;
        }
        let mut len = 0u32;
        // SAFETY: returns null for values that are not MDStrings.
        let p = unsafe { LLVMGetMDString(self.0, &mut len) };
        (!p.is_null()).then(|| to_string(p, len as usize))
    }

    pub fn is_null(self) -> bool {
        self.0.is_null()
    }

    pub fn set_metadata(self, kind: u32, node: Metadata) {
        // SAFETY: only called on instructions.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            LLVMSetMetadata(self.0, kind, LLVMMetadataAsValue(ctx, node.0));
        }
    }

    /// The metadata node of `kind` attached to this instruction, as a value
    /// (`md_operands` reads it); `None` when there is none.
    pub fn metadata(self, kind: u32) -> Option<Value> {
        // SAFETY: only called on instructions.
        unsafe {
            let m = LLVMGetMetadata(self.0, kind);
            (!m.is_null()).then_some(Value(m))
        }
    }

    pub fn set_raw_metadata(self, kind: u32, node: Value) {
        // SAFETY: `node` is a MetadataAsValue from `metadata`.
        unsafe { LLVMSetMetadata(self.0, kind, node.0) }
    }

    pub fn print(self) -> String {
        // SAFETY: LLVM allocates the string; we copy and free it.
        unsafe {
            let s = LLVMPrintValueToString(self.0);
            let out = CStr::from_ptr(s).to_string_lossy().into_owned();
            LLVMDisposeMessage(s);
            out
        }
    }

    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the value's use list.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(Value(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        out
    }
}

impl Block {
    pub fn raw(self) -> LLVMBasicBlockRef {
        self.0
    }

    pub fn function(self) -> Value {
        // SAFETY: valid block.
        unsafe { Value(LLVMGetBasicBlockParent(self.0)) }
    }

    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        // SAFETY: walking the block's own instruction list.
        unsafe {
            let mut i = LLVMGetFirstInstruction(self.0);
            while !i.is_null() {
                out.push(Value(i));
                i = LLVMGetNextInstruction(i);
            }
        }
        out
    }

    pub fn terminator(self) -> Option<Value> {
        // SAFETY: valid block; null when the block is not terminated.
        unsafe {
            let t = LLVMGetBasicBlockTerminator(self.0);
            (!t.is_null()).then_some(Value(t))
        }
    }

    pub fn successors(self) -> Vec<Block> {
        let Some(t) = self.terminator() else {
            return Vec::new();
        };
        // SAFETY: successor indices below the terminator's count.
        unsafe {
            (0..LLVMGetNumSuccessors(t.0))
                .map(|i| Block(LLVMGetSuccessor(t.0, i)))
                .collect()
        }
    }

    /// For a conditional `br`, its condition and (true, false) targets.
    /// The block's `switch`: its condition, default destination and cases.
    pub fn switch(self) -> Option<Switch> {
        let t = self.terminator()?;
        if t.opcode() != Some(LLVMOpcode::LLVMSwitch) {
            return None;
        }
        // SAFETY: a switch's operands are the condition, the default
        // destination, then (case value, destination) pairs.
        unsafe {
            let n = LLVMGetNumOperands(t.0);
            let block = |i| Block(LLVMValueAsBasicBlock(LLVMGetOperand(t.0, i as u32)));
            let cases = (1..n / 2)
                .map(|c| (Value(LLVMGetOperand(t.0, (2 * c) as u32)), block(2 * c + 1)))
                .collect();
            Some((Value(LLVMGetOperand(t.0, 0)), block(1), cases))
        }
    }

    pub fn conditional_branch(self) -> Option<(Value, Block, Block)> {
        let t = self.terminator()?;
        if t.opcode() != Some(LLVMOpcode::LLVMBr) {
            return None;
        }
        // SAFETY: t is a branch instruction.
        unsafe {
            if LLVMIsConditional(t.0) == 0 {
                return None;
            }
            Some((
                Value(LLVMGetCondition(t.0)),
                Block(LLVMGetSuccessor(t.0, 0)),
                Block(LLVMGetSuccessor(t.0, 1)),
            ))
        }
    }

    pub fn name(self) -> String {
        // SAFETY: valid block; the name is owned by it.
        unsafe {
            CStr::from_ptr(LLVMGetBasicBlockName(self.0))
                .to_string_lossy()
                .into_owned()
        }
    }
}

/// An IR builder positioned before an instruction; used only by the lowering.
pub struct Builder {
    raw: LLVMBuilderRef,
    module: Module,
}

impl Builder {
    pub fn before(module: Module, inst: Value) -> Builder {
        // SAFETY: the builder is disposed in Drop; `inst` is in `module`.
        unsafe {
            let raw = LLVMCreateBuilderInContext(module.context());
            LLVMPositionBuilderBefore(raw, inst.0);
            Builder { raw, module }
        }
    }

    pub fn int_type(&self, bits: u32) -> Type {
        // SAFETY: valid context.
        unsafe { Type(LLVMIntTypeInContext(self.module.context(), bits)) }
    }

    pub fn ptr_type(&self, address_space: u32) -> Type {
        // SAFETY: valid context.
        unsafe {
            Type(LLVMPointerTypeInContext(
                self.module.context(),
                address_space,
            ))
        }
    }

    pub fn struct_type(&self, fields: &[Type]) -> Type {
        let mut raw: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        // SAFETY: the struct copies its field list.
        unsafe {
            Type(LLVMStructTypeInContext(
                self.module.context(),
                raw.as_mut_ptr(),
                raw.len() as u32,
                0,
            ))
        }
    }

    /// A call to inline asm with side effects (so that no later pass moves it
    /// across stores: it stands for a load), returning `ret`.
    pub fn inline_asm(&self, ret: Type, asm: &str, constraints: &str, args: &[Value]) -> Value {
        let mut arg_tys: Vec<LLVMTypeRef> = args.iter().map(|a| a.ty().0).collect();
        let mut arg_vals: Vec<LLVMValueRef> = args.iter().map(|a| a.0).collect();
        // SAFETY: types and values come from the same context; strings are copied.
        unsafe {
            let fn_ty = LLVMFunctionType(ret.0, arg_tys.as_mut_ptr(), arg_tys.len() as u32, 0);
            let ia = LLVMGetInlineAsm(
                fn_ty,
                asm.as_ptr() as *mut _,
                asm.len(),
                constraints.as_ptr() as *mut _,
                constraints.len(),
                1,
                0,
                llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
                0,
            );
            let name = c"";
            Value(LLVMBuildCall2(
                self.raw,
                fn_ty,
                ia,
                arg_vals.as_mut_ptr(),
                arg_vals.len() as u32,
                name.as_ptr(),
            ))
        }
    }

    pub fn cast(&self, op: LLVMOpcode, v: Value, to: Type) -> Value {
        // SAFETY: the caller picks a cast valid for the types.
        unsafe { Value(LLVMBuildCast(self.raw, op, v.0, to.0, c"".as_ptr())) }
    }

    pub fn extract_value(&self, agg: Value, index: u32) -> Value {
        // SAFETY: index is within the struct the asm returns.
        unsafe { Value(LLVMBuildExtractValue(self.raw, agg.0, index, c"".as_ptr())) }
    }

    pub fn insert_element(&self, vec: Value, elt: Value, index: u32) -> Value {
        // SAFETY: index is within the vector.
        unsafe {
            let idx = LLVMConstInt(
                LLVMInt32TypeInContext(self.module.context()),
                index as u64,
                0,
            );
            Value(LLVMBuildInsertElement(
                self.raw,
                vec.0,
                elt.0,
                idx,
                c"".as_ptr(),
            ))
        }
    }

    pub fn poison(&self, ty: Type) -> Value {
        // SAFETY: valid type.
        unsafe { Value(LLVMGetPoison(ty.0)) }
    }
}

impl Drop for Builder {
    fn drop(&mut self) {
        // SAFETY: created in `Builder::before`.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

pub fn float_type(module: Module) -> Type {
    // SAFETY: valid context.
    unsafe { Type(LLVMFloatTypeInContext(module.context())) }
}

pub fn double_type(module: Module) -> Type {
    // SAFETY: valid context.
    unsafe { Type(LLVMDoubleTypeInContext(module.context())) }
}

pub fn vector_type(element: Type, lanes: u32) -> Type {
    // SAFETY: valid element type.
    unsafe { Type(LLVMVectorType(element.0, lanes)) }
}

/// Replaces every use of `old` with `new`, copies the debug location, and
/// erases `old`.
pub fn replace_instruction(old: Value, new: Value) {
    // SAFETY: both are instructions in the same function; `old` has no other owner.
    unsafe {
        let loc = LLVMInstructionGetDebugLoc(old.0);
        if !loc.is_null() && !LLVMIsAInstruction(new.0).is_null() {
            LLVMInstructionSetDebugLoc(new.0, loc);
        }
        LLVMReplaceAllUsesWith(old.0, new.0);
        LLVMInstructionEraseFromParent(old.0);
    }
}

/// Copies the name of `from` onto `to` so lowered IR stays readable.
pub fn take_name(from: Value, to: Value) {
    let name = from.name();
    if name.is_empty() {
        return;
    }
    // SAFETY: both are valid values; LLVM copies the name.
    unsafe {
        LLVMSetValueName2(from.0, c"".as_ptr(), 0);
        LLVMSetValueName2(to.0, name.as_ptr() as *const _, name.len());
    }
}

/// Runs a textual new-pass-manager pipeline on the module with a target
/// machine for the module's own triple and CPU (so the target's cost model applies).
pub fn run_passes(module: Module, pipeline: &str, cpu: &str) -> Result<(), String> {
    use llvm_sys::target_machine::*;
    use llvm_sys::transforms::pass_builder::*;
    // SAFETY: every object created here is disposed before return; the
    // target registry is initialised idempotently.
    unsafe {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        let triple = LLVMGetTarget(module.0);
        let mut target = std::ptr::null_mut();
        let mut err = std::ptr::null_mut();
        if LLVMGetTargetFromTriple(triple, &mut target, &mut err) != 0 {
            let msg = CStr::from_ptr(err).to_string_lossy().into_owned();
            LLVMDisposeMessage(err);
            return Err(msg);
        }
        let ccpu = cstring(cpu);
        let tm = LLVMCreateTargetMachine(
            target,
            triple,
            ccpu.as_ptr(),
            c"".as_ptr(),
            LLVMCodeGenOptLevel::LLVMCodeGenLevelAggressive,
            LLVMRelocMode::LLVMRelocDefault,
            LLVMCodeModel::LLVMCodeModelDefault,
        );
        let opts = LLVMCreatePassBuilderOptions();
        let cpipe = cstring(pipeline);
        let e = LLVMRunPasses(module.0, cpipe.as_ptr(), tm, opts);
        LLVMDisposePassBuilderOptions(opts);
        LLVMDisposeTargetMachine(tm);
        if e.is_null() {
            Ok(())
        } else {
            let m = llvm_sys::error::LLVMGetErrorMessage(e);
            let msg = CStr::from_ptr(m).to_string_lossy().into_owned();
            llvm_sys::error::LLVMDisposeErrorMessage(m);
            Err(msg)
        }
    }
}
