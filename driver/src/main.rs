//! `gpucc-cache`: a drop-in wrapper of clang's CUDA compiler that chooses the
//! L1 cache operator of every global load and writes PTX plus a per-load
//! report.
//!
//! Thin by design: this file splits the command line into our flags and
//! clang's, and wires the pieces; `toolchain` finds clang and CUDA;
//! `compile` runs the two routes (in-process pass, or clang with the plugin).
//! The analysis itself is the `gpucc-cache-pass` library.

mod args;
mod compile;
mod toolchain;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = args::parse(&argv).and_then(|inv| match inv {
        args::Invocation::Help(text) => {
            print!("{text}");
            Ok(())
        }
        args::Invocation::Compile(job) => compile::run(&job),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the chain of contexts joined, outermost first.
            let msg: Vec<String> = e
                .chain()
                .map(|c| c.to_string().replace('\n', " "))
                .collect();
            eprintln!("gpucc-cache: error: {}", msg.join(": "));
            ExitCode::FAILURE
        }
    }
}
