//! Compiles the C++ plugin shim against Debian's LLVM 19, with the flags
//! `llvm-config --cxxflags` gives (the same ABI as libLLVM.so.19.1).

use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_191_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
    let llvm_config = format!("{prefix}/bin/llvm-config");
    let out = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {llvm_config}: {e}; run scripts/setup to install LLVM 19")
        });
    let flags = String::from_utf8_lossy(&out.stdout).to_string();
    let mut build = cc::Build::new();
    build.cpp(true).file("cpp/plugin.cpp").warnings(false);
    for f in flags.split_whitespace() {
        // The shim needs no exceptions/RTTI beyond what LLVM was built with.
        build.flag(f);
    }
    build.compile("gpucc_cache_shim");
    println!("cargo:rerun-if-changed=cpp/plugin.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
}
