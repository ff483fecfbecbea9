//! Whole programs (issue 17): executables and objects with the device code
//! of every requested arch embedded, read back with CUDA's own `cuobjdump`
//! and `nvdisasm` (CUDA 13.5 wheels, installed by scripts/setup), so the
//! checks rest on NVIDIA's reading of what was built, not on ours.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const ARCHS: [&str; 4] = ["sm_52", "sm_70", "sm_80", "sm_90"];

fn program() -> PathBuf {
    testdata("programs/checksum.cu")
}

fn tool(name: &str) -> PathBuf {
    let p = cuda_root().join("bin").join(name);
    assert!(p.is_file(), "{} missing: run scripts/setup", p.display());
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the driver in `dir` and expects success.
fn gpucc_ok(dir: &Path, args: &[&str]) -> String {
    let out = run(Command::new(driver()).current_dir(dir).args(args));
    let (o, e) = text(&out);
    assert!(out.status.success(), "gpucc-cache {args:?}:\n{e}");
    o
}

fn cuobjdump(args: &[&str], file: &Path) -> String {
    let out = run(Command::new(tool("cuobjdump"))
        .env("PATH", cuda_root().join("bin"))
        .args(args)
        .arg(file));
    let (o, e) = text(&out);
    assert!(out.status.success(), "cuobjdump {args:?}: {e}");
    o
}

fn arch_flags() -> Vec<String> {
    ARCHS
        .iter()
        .map(|a| format!("--cuda-gpu-arch={a}"))
        .collect()
}

/// `gpucc-cache app.cu -o app` for four archs: an executable that runs (it
/// says "no device" without a GPU), one cubin per arch and the newest
/// arch's PTX, and one report section per arch.
#[test]
fn an_executable_with_one_cubin_per_arch() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut args = vec![s(&program()).to_string(), "-o".into(), "app".into()];
    args.extend(arch_flags());
    args.extend([
        "--cache-report=json".into(),
        "--cache-report-file=report.json".into(),
    ]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    gpucc_ok(d, &a);
    let app = d.join("app");
    use std::os::unix::fs::PermissionsExt as _;
    assert!(std::fs::metadata(&app).unwrap().permissions().mode() & 0o111 != 0);
    let ran = run(&mut Command::new(&app));
    let said = text(&ran).0;
    assert!(ran.status.success(), "{said}");
    assert!(
        said.starts_with("no device") || said.starts_with("checksum"),
        "{said}"
    );
    let listed = cuobjdump(&["-lelf", "-lptx"], &app);
    for arch in ARCHS {
        assert!(
            listed.contains(&format!(".{arch}.cubin")),
            "{arch}:\n{listed}"
        );
    }
    assert_eq!(listed.matches("ELF file").count(), 4, "{listed}");
    assert_eq!(listed.matches("PTX file").count(), 1, "{listed}");
    assert!(listed.contains(".sm_90.ptx"), "{listed}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap();
    let archs: Vec<&str> = report["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["arch"].as_str().unwrap())
        .collect();
    assert_eq!(archs, ARCHS);
}

/// Without an arch flag a build embeds clang's default (sm_52) and its
/// PTX; `--no-cuda-include-ptx=` and `--cuda-include-ptx=` say which PTX
/// goes in (CMake's `80-real`); `-o -` writes the object to stdout.
#[test]
fn default_arch_ptx_switches_and_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    gpucc_ok(
        d,
        &["-c", s(&program()), "-o", "plain.o", "--cache-report=none"],
    );
    let listed = cuobjdump(&["-lelf", "-lptx"], &d.join("plain.o"));
    assert!(
        listed.contains(".sm_52.cubin") && listed.contains(".sm_52.ptx"),
        "{listed}"
    );
    gpucc_ok(
        d,
        &[
            "-c",
            s(&program()),
            "-o",
            "real.o",
            "--cuda-gpu-arch=sm_70",
            "--cuda-gpu-arch=sm_80",
            "--no-cuda-include-ptx=sm_80",
            "--cuda-include-ptx=sm_70",
            "--cache-report=none",
        ],
    );
    let listed = cuobjdump(&["-lelf", "-lptx"], &d.join("real.o"));
    assert!(
        listed.contains(".sm_70.ptx") && !listed.contains(".sm_80.ptx"),
        "{listed}"
    );
    assert_eq!(listed.matches("ELF file").count(), 2, "{listed}");
    let out = run(Command::new(driver()).current_dir(d).args([
        "-c",
        s(&program()),
        "-o",
        "-",
        "--cache-report=none",
    ]));
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"\x7fELF"));
    assert!(!d.join("-").exists());
}

/// `-c` then a link, by the driver and by clang; and mixed inputs: a CUDA
/// file with a host launcher and a C++ main.
#[test]
fn objects_link_with_the_driver_and_with_clang() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    gpucc_ok(
        d,
        &[
            "-c",
            s(&program()),
            "-o",
            "app.o",
            "-arch=sm_80",
            "--cache-report=none",
        ],
    );
    gpucc_ok(d, &["app.o", "-o", "app1"]);
    let lib = cuda_root().join("lib64");
    let linked = run(Command::new("clang++-19")
        .current_dir(d)
        .args(["app.o", "-o", "app2"])
        .arg(format!("-L{}", lib.display()))
        .arg("-lcudart")
        .arg(format!("-Wl,-rpath,{}", lib.display())));
    assert!(linked.status.success(), "{}", text(&linked).1);
    for app in ["app1", "app2"] {
        let ran = run(&mut Command::new(d.join(app)));
        assert!(ran.status.success(), "{app}");
        assert!(cuobjdump(&["-lelf"], &d.join(app)).contains(".sm_80.cubin"));
    }
    std::fs::write(
        d.join("kernels.cu"),
        "#include <cuda_runtime.h>\n\
         __global__ void fill(int *a, int v) { a[blockIdx.x * blockDim.x + threadIdx.x] = v; }\n\
         int launch_fill(int v) {\n\
           int *a; if (cudaMalloc(&a, 1024 * sizeof(int)) != cudaSuccess) return -1;\n\
           fill<<<4, 256>>>(a, v); return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;\n\
         }\n",
    )
    .unwrap();
    std::fs::write(
        d.join("main.cpp"),
        "#include <cstdio>\nint launch_fill(int);\nint main() { std::printf(\"%d\\n\", launch_fill(7)); }\n",
    )
    .unwrap();
    // Two objects from one -c, then everything linked in one call.
    gpucc_ok(
        d,
        &[
            "-c",
            "kernels.cu",
            "main.cpp",
            "-arch=sm_70",
            "--cache-report=none",
        ],
    );
    assert!(d.join("kernels.o").is_file() && d.join("main.o").is_file());
    gpucc_ok(
        d,
        &[
            "kernels.cu",
            "main.cpp",
            "-o",
            "mixed",
            "-arch=sm_70",
            "--cache-report=none",
        ],
    );
    let ran = run(&mut Command::new(d.join("mixed")));
    assert!(ran.status.success());
    assert!(cuobjdump(&["-lelf"], &d.join("mixed")).contains(".sm_70.cubin"));
}

/// Per kernel, the LDG instructions with and without `.NA` (no L1
/// allocation) in each arch's SASS, as `nvdisasm` reads it.
fn sass_loads(obj: &Path, arch: &str) -> HashMap<String, (usize, usize)> {
    let sass = cuobjdump(&["-sass", "-arch", arch], obj);
    let mut out: HashMap<String, (usize, usize)> = HashMap::new();
    let mut function = String::new();
    for line in sass.lines() {
        if let Some(f) = line.trim().strip_prefix("Function : ") {
            function = f.trim().to_string();
            out.entry(function.clone()).or_default();
        } else if let Some(op) = line
            .split_whitespace()
            .nth(1)
            .filter(|w| w.starts_with("LDG."))
        {
            let e = out.entry(function.clone()).or_default();
            if op.split('.').any(|m| m == "NA") {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    out
}

/// In the embedded SASS of every arch NVIDIA's tools can disassemble
/// (`nvdisasm` 13.5 refuses sm_52 to sm_72 as deprecated, and no older
/// nvdisasm is on PyPI), each kernel's loads carry the modifier the report
/// gives them: PTX `.L1::no_allocate` becomes `LDG.E.NA` (sm_75 also
/// `.SYS`), a plain `ld.global` an LDG without `.NA`. Checked under three
/// policies, so both kinds occur.
#[test]
fn sass_cache_modifiers_agree_with_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let archs = ["sm_75", "sm_80", "sm_90"];
    for policy in ["auto", "cache-none", "cache-all"] {
        let mut seen = (0, 0);
        // Plain loads no evaluated thread executes: no verdict, so clang's
        // default under every policy (with rounds = 8 from the host launch,
        // shade's unrolled loop never enters its remainder).
        let mut unexecuted = 0;
        let mut args = vec![
            "-c".to_string(),
            s(&program()).into(),
            "-o".into(),
            "app.o".into(),
            format!("--cache-policy={policy}"),
            "--cache-report=json".into(),
            "--cache-report-file=report.json".into(),
        ];
        args.extend(archs.iter().map(|a| format!("-arch={a}")));
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        gpucc_ok(d, &a);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap();
        for r in report["reports"].as_array().unwrap() {
            let arch = r["arch"].as_str().unwrap();
            let sass = sass_loads(&d.join("app.o"), arch);
            for k in r["kernels"].as_array().unwrap() {
                let symbol = k["symbol"].as_str().unwrap();
                let (mut bypass, mut plain) = (0, 0);
                for l in k["loads"].as_array().unwrap() {
                    let n = l["ptx_loads"].as_u64().unwrap_or(0) as usize;
                    if l["operator"].as_str().unwrap_or("").contains("no_allocate") {
                        bypass += n;
                    } else {
                        plain += n;
                        if l["decision"] == "default" {
                            unexecuted += n;
                        }
                    }
                }
                assert_eq!(
                    sass.get(symbol).copied().unwrap_or_default(),
                    (bypass, plain),
                    "{policy} {arch} {symbol}: SASS (NA, plain) against the report"
                );
                seen = (seen.0 + bypass, seen.1 + plain);
            }
        }
        // Not vacuous: each policy's own kind of load is there.
        match policy {
            "cache-none" => assert!(seen.0 > 0 && seen.1 == unexecuted, "{seen:?} {unexecuted}"),
            "cache-all" => assert!(seen.0 == 0 && seen.1 > 0, "{seen:?}"),
            _ => assert!(seen.0 + seen.1 > 0),
        }
    }
}

/// With `--cache-policy=off` the embedded cubins are byte for byte what
/// clang's PTX gives through the same ptxas.
#[test]
fn policy_off_embeds_clangs_cubins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut args = vec![
        "-c".to_string(),
        s(&program()).into(),
        "-o".into(),
        "off.o".into(),
        "--cache-policy=off".into(),
        "--cache-report=none".into(),
    ];
    args.extend(arch_flags());
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    gpucc_ok(d, &a);
    let out = run(Command::new(tool("cuobjdump"))
        .current_dir(d)
        .args(["-xelf", "all", "off.o"]));
    assert!(out.status.success(), "{}", text(&out).1);
    for arch in ARCHS {
        let ptx = d.join(format!("clang-{arch}.ptx"));
        let made = run(device_clang(arch).args(["-S", "-O3", "-o", s(&ptx), s(&program())]));
        assert!(made.status.success());
        let cubin = d.join(format!("clang-{arch}.cubin"));
        let assembled = run(Command::new(ptxas())
            .arg(format!("-arch={arch}"))
            .arg(&ptx)
            .arg("-o")
            .arg(&cubin));
        assert!(assembled.status.success());
        let embedded = d.join(format!(
            "off.{}.{arch}.cubin",
            ARCHS.iter().position(|a| *a == arch).unwrap() + 1
        ));
        assert_eq!(
            std::fs::read(&embedded).unwrap(),
            std::fs::read(&cubin).unwrap(),
            "{arch}: the embedded cubin differs from clang's"
        );
    }
}

/// In a build the launch shapes come from clang's host IR: a block held in
/// a local variable (which the old text scanner missed) is found; a kernel
/// launched with two constant shapes at two lines takes the first launch's
/// and walks the other as a scenario (its block, grid and figures in
/// `simulated.other_launches`); a kernel whose blocks differ where one is
/// not a constant (from `argc`) gets none, with a warning naming both lines.
#[test]
fn launch_shapes_come_from_the_host_ir() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("twice.cu"),
        "#include <cuda_runtime.h>\n\
         __global__ void k(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }\n\
         __global__ void j(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }\n\
         __global__ void m(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] -= 1.0f; }\n\
         int main(int argc, char **argv) {\n\
           float *a; cudaMalloc(&a, 1 << 20);\n\
           int threads = 128;\n\
           k<<<64, 256>>>(a);\n\
           k<<<32, 512>>>(a);\n\
           j<<<1024 / threads, threads>>>(a);\n\
           m<<<8, 64 * argc>>>(a);\n\
           m<<<8, 128>>>(a);\n\
           return 0;\n\
         }\n",
    )
    .unwrap();
    gpucc_ok(
        d,
        &[
            "-c",
            "twice.cu",
            "-arch=sm_80",
            "--cache-report=json",
            "--cache-report-file=r.json",
        ],
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let kernel = |name: &str| {
        r["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"].as_str().unwrap().starts_with(name))
            .unwrap()
            .clone()
    };
    assert_eq!(kernel("j(")["block_dim"], serde_json::json!([128, 1, 1]));
    assert_eq!(kernel("j(")["block_dim_source"], "host launch at line 10");
    let k = kernel("k(");
    assert_eq!(k["block_dim"], serde_json::json!([256, 1, 1]));
    assert_eq!(k["grid_dim"], serde_json::json!([64, 1, 1]));
    assert!(
        (k["block_dim_source"].as_str().unwrap()).starts_with(
            "host launch at line 8, the first of the launches with different blocks (lines 8, 9)"
        ),
        "{k}"
    );
    let other = &k["simulated"]["other_launches"][0];
    assert_eq!(other["line"], 9);
    assert_eq!(other["block_dim"], serde_json::json!([512, 1, 1]));
    assert_eq!(other["grid_dim"], serde_json::json!([32, 1, 1]));
    assert_eq!(kernel("m(")["block_dim_source"], "default");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("m: launched with different block shapes (lines 11, 12)"),
        "{warnings}"
    );
    assert!(!warnings.contains("k: launched"), "{warnings}");
}

/// The lines of clang's or the driver's messages that hold `needle`.
fn lines_with(stderr: &str, needle: &str) -> usize {
    stderr.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn each_compile_prints_its_warnings_once() {
    // warnings.cu has a warning in its kernel and one in host-only code.
    // clang's device-only compile for two archs prints the kernel's once
    // per arch; its host-only compile prints both once. An object build
    // by the driver runs those compiles and two it adds (the host side to
    // IR, for the launches; the device side again when ptxas' register
    // count moves a kernel's occupancy), which must print nothing.
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("programs/warnings.cu");
    let archs = ["--cuda-gpu-arch=sm_70", "--cuda-gpu-arch=sm_80"];
    let side = |flag: &str| {
        // In `dir`: a device-only compile for two archs writes a file
        // per arch there (it takes no -o).
        let out = run(Command::new("clang++-19")
            .current_dir(dir.path())
            .arg(format!("--cuda-path={}", cuda_root().display()))
            .args(["-Wno-unknown-cuda-version", "-O3", "-Wall", flag, "-c"])
            .args(archs)
            .arg(&input));
        assert!(out.status.success(), "clang {flag}: {}", text(&out).1);
        text(&out).1
    };
    let (device, host) = (side("--cuda-device-only"), side("--cuda-host-only"));
    let out = run(Command::new(driver())
        .current_dir(dir.path())
        .args(["-Wall", "-c", "-o", "warnings.o"])
        .args(archs)
        .arg(&input));
    let (_, driver_says) = text(&out);
    assert!(out.status.success(), "{driver_says}");
    for (warning, expected) in [("'unused_in_kernel'", 3), ("'unused_on_host'", 1)] {
        let clang_says = lines_with(&device, warning) + lines_with(&host, warning);
        assert_eq!(clang_says, expected, "clang:\n{device}{host}");
        assert_eq!(lines_with(&driver_says, warning), expected, "{driver_says}");
    }
}
