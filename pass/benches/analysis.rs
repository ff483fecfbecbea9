//! Analysis cost on a generated module: one kernel with thousands of global
//! loads of mixed patterns (coalesced, strided, tid % k, tid / k, indirect),
//! analysed for 1024-thread blocks. Run with
//! `cargo bench -p gpucc-cache-pass --bench analysis`.
//!
//! Prints wall time per configuration and, to show the cost is linear in
//! loads × threads, each time as a ratio to the smallest configuration
//! measured in the same process.

use std::fmt::Write as _;
use std::time::Instant;

use gpucc_cache_pass::analysis::analyze;
use gpucc_cache_pass::llvm::ir;
use gpucc_cache_pass::options::Options;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

/// A kernel with `loads` global loads; each feeds a running sum so none is dead.
fn module_text(loads: usize) -> String {
    let mut s = String::new();
    s.push_str("target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n");
    s.push_str("target triple = \"nvptx64-nvidia-cuda\"\n\n");
    s.push_str("define void @bench(ptr addrspace(1) %a, ptr addrspace(1) %idx, ptr addrspace(1) %out) \"target-cpu\"=\"sm_90\" {\n");
    s.push_str("entry:\n  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n");
    s.push_str(
        "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n  %base = mul i32 %ctaid, 1024\n",
    );
    s.push_str("  %i = add i32 %base, %tid\n");
    let mut acc = "0.0".to_string();
    for n in 0..loads {
        let idx = match n % 5 {
            0 => format!("  %x{n} = add i32 %i, {n}\n"),
            1 => format!("  %m{n} = mul i32 %i, {}\n  %x{n} = add i32 %m{n}, {n}\n", 2 + n % 37),
            2 => format!("  %r{n} = urem i32 %tid, {}\n  %x{n} = add i32 %r{n}, {n}\n", 1 + n % 64),
            3 => format!("  %d{n} = udiv i32 %tid, {}\n  %x{n} = add i32 %d{n}, {n}\n", 1 + n % 64),
            _ => format!(
                "  %pi{n} = getelementptr inbounds i32, ptr addrspace(1) %idx, i32 %i\n  %x{n} = load i32, ptr addrspace(1) %pi{n}, align 4\n"
            ),
        };
        let _ = write!(
            s,
            "{idx}  %p{n} = getelementptr inbounds float, ptr addrspace(1) %a, i32 %x{n}\n  %v{n} = load float, ptr addrspace(1) %p{n}, align 4\n  %s{n} = fadd float {acc}, %v{n}\n"
        );
        acc = format!("%s{n}");
    }
    let _ = write!(s, "  %po = getelementptr inbounds float, ptr addrspace(1) %out, i32 %i\n  store float {acc}, ptr addrspace(1) %po, align 4\n  ret void\n}}\n\n");
    s.push_str("declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\ndeclare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n\n");
    s.push_str("!nvvm.annotations = !{!0}\n!0 = !{ptr @bench, !\"kernel\", i32 1}\n");
    s
}

/// Seconds for one analysis of the whole module (nothing changes, nothing printed).
fn time(loads: usize, threads: u32) -> (f64, usize) {
    let text = module_text(loads);
    let context = Context::create();
    let module = context
        .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
            text.as_bytes(),
            "bench",
        ))
        .expect("generated IR parses");
    let opts = Options::parse(&format!("block={threads}")).unwrap();
    // SAFETY: `module` outlives the handle.
    let m = unsafe { ir::Module::from_raw(module.as_mut_ptr()) };
    let start = Instant::now();
    let analysis = analyze(m, &opts).expect("no forced decisions to check");
    let secs = start.elapsed().as_secs_f64();
    (
        secs,
        analysis.report.kernels.iter().map(|k| k.loads.len()).sum(),
    )
}

fn main() {
    // Warm-up so the first measured run does not pay for page faults.
    time(500, 256);
    let configs = [
        (1250, 256),
        (1250, 1024),
        (2500, 1024),
        (5000, 1024),
        (10000, 1024),
    ];
    let mut base = None;
    println!(
        "{:>7} {:>7} {:>14} {:>9} {:>12} {:>16}",
        "loads", "threads", "global loads", "seconds", "ns/(load*thr)", "ratio to first"
    );
    for (loads, threads) in configs {
        // Best of three: the machines are noisy.
        let (secs, analysed) = (0..3)
            .map(|_| time(loads, threads))
            .fold((f64::MAX, 0), |b, r| (b.0.min(r.0), r.1));
        let work = loads as f64 * threads as f64;
        let per = secs / work * 1e9;
        let base_per = *base.get_or_insert(per);
        println!(
            "{loads:>7} {threads:>7} {analysed:>14} {secs:>9.3} {per:>12.1} {:>16.2}",
            per / base_per
        );
    }
}
