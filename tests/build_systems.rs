//! Build systems (issue 17): a CMake project with gpucc-cache as its CUDA
//! compiler, and a Makefile written for nvcc built with `NVCC=gpucc-cache`,
//! each in a temporary copy of `testdata/build_systems/`. Each executable
//! runs (it says "no device" without a GPU, and checks its results against
//! the CPU with one), and CUDA's own `cuobjdump` lists the archs it embeds.
//!
//! CMake and make come from Debian (scripts/setup installs them); CMake
//! also needs the nvcc stand-in that scripts/setup writes in
//! `.cuda/cmake/bin`. Without them these tests fail and say so: a build
//! system the suite cannot run is not a pass.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::*;

/// `name --version` runs, else the test fails with the fix.
fn require(name: &str) {
    let ran = Command::new(name).arg("--version").output();
    assert!(
        ran.is_ok_and(|o| o.status.success()),
        "{name} is not installed: run scripts/setup (it installs cmake and make from Debian)"
    );
}

/// A copy of `testdata/build_systems/<name>` in a temporary directory, so
/// that no build writes into the source tree.
fn copy_project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(name);
    std::fs::create_dir(&dst).unwrap();
    for entry in std::fs::read_dir(testdata(&format!("build_systems/{name}"))).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
    }
    (tmp, dst)
}

/// Runs a build tool with the environment a developer's shell might add
/// taken out (another CUDA compiler, flags or toolkit, an outer make's
/// job server); panics with its output if it fails. Its output.
fn build_step(cmd: &mut Command) -> String {
    for var in [
        "CUDACXX",
        "CUDAFLAGS",
        "CUDAARCHS",
        "CUDAToolkit_ROOT",
        "CUDA_PATH",
        "GPUCC_CACHE_CUDA_PATH",
        "NVCC_PREPEND_FLAGS",
        "NVCC_APPEND_FLAGS",
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
    ] {
        cmd.env_remove(var);
    }
    let out = run(cmd);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{cmd:?} failed:\n{o}\n{e}");
    o + &e
}

/// Runs a built program: it succeeds, and says "no device" or its result.
fn runs(exe: &Path, result: &str) {
    let out = run(&mut Command::new(exe));
    let (o, e) = text(&out);
    assert!(out.status.success(), "{} failed:\n{o}\n{e}", exe.display());
    assert!(
        o.starts_with("no device") || o.starts_with(result),
        "{}: {o}",
        exe.display()
    );
}

/// What `cuobjdump` lists of `kind` (`elf`, `ptx`) in `exe`: the archs,
/// sorted (`sm_70`, ...), from lines like `ELF file 1: app.1.sm_70.cubin`.
fn embedded(exe: &Path, kind: &str) -> Vec<String> {
    let out = run(Command::new(cuda_root().join("bin/cuobjdump"))
        .arg(format!("-l{kind}"))
        .arg(exe));
    let (o, e) = text(&out);
    assert!(out.status.success(), "cuobjdump -l{kind}: {e}");
    let mut archs: Vec<String> = o
        .lines()
        .filter_map(|l| l.rsplit('.').nth(1).map(String::from))
        .collect();
    archs.sort();
    archs
}

/// `project(x LANGUAGES CXX CUDA)` configured with gpucc-cache as the CUDA
/// compiler, as the README says, for sm_70 and sm_80: CMake identifies it
/// as Clang, builds, and the program embeds both cubins and sm_80's PTX.
#[test]
fn a_cmake_project_builds_with_gpucc_cache_as_its_cuda_compiler() {
    require("cmake");
    require("make");
    let probe = cuda_root().join("cmake/bin/nvcc");
    assert!(
        probe.is_file(),
        "{} missing: run scripts/setup (it writes CMake's nvcc stand-in)",
        probe.display()
    );
    let start = Instant::now();
    let (_tmp, src) = copy_project("cmake");
    let build = src.join("build");
    let said = build_step(
        Command::new("cmake")
            .arg("-S")
            .arg(&src)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_CUDA_COMPILER={}", driver().display()))
            .arg(format!(
                "-DCUDAToolkit_ROOT={}",
                cuda_root().join("cmake").display()
            ))
            .arg("-DCMAKE_CUDA_RUNTIME_LIBRARY=Shared")
            .arg("-DCMAKE_CUDA_ARCHITECTURES=70;80"),
    );
    assert!(
        said.contains("The CUDA compiler identification is Clang 19."),
        "{said}"
    );
    let said = build_step(
        Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .arg("--verbose"),
    );
    // The compile line CMake wrote for a Clang CUDA compiler.
    assert!(
        said.contains("--cuda-gpu-arch=sm_70 --cuda-gpu-arch=sm_80"),
        "{said}"
    );
    let exe = build.join("particles");
    runs(&exe, "mean speed");
    assert_eq!(embedded(&exe, "elf"), ["sm_70", "sm_80"]);
    assert_eq!(embedded(&exe, "ptx"), ["sm_80"]);
    eprintln!("cmake project: {:.1} s", start.elapsed().as_secs_f64());
}

/// A Makefile written for nvcc (-arch, -gencode, -Xcompiler, -Xptxas,
/// --use_fast_math, -lineinfo, -ccbin, nvcc as the linker) built with
/// `make NVCC=gpucc-cache`: the objects carry exactly the images asked for.
#[test]
fn a_makefile_for_nvcc_builds_with_nvcc_set_to_gpucc_cache() {
    require("make");
    let start = Instant::now();
    let (_tmp, src) = copy_project("make");
    let said = build_step(
        Command::new("make")
            .current_dir(&src)
            .arg(format!("NVCC={}", driver().display())),
    );
    assert!(said.contains("-ccbin g++ ignored"), "{said}");
    // -Xptxas -v reached ptxas: it reports each kernel's registers.
    assert!(said.contains("ptxas info"), "{said}");
    let exe = src.join("app");
    runs(&exe, "signal of");
    // blur.o: -arch=sm_70 (its cubin and PTX); scale.o: -gencode sm_80
    // cubin and compute_90 PTX.
    assert_eq!(embedded(&exe, "elf"), ["sm_70", "sm_80"]);
    assert_eq!(embedded(&exe, "ptx"), ["sm_70", "sm_90"]);
    eprintln!("makefile project: {:.1} s", start.elapsed().as_secs_f64());
}
