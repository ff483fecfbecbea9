//! The library's error type. Every variant renders as one line that names
//! the problem and what to do about it; the driver and the plugin print it
//! as is.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A pass parameter or driver flag with a value that cannot be used.
    BadOption {
        option: String,
        value: String,
        expected: String,
    },
    /// A pass parameter nobody knows.
    UnknownOption { option: String },
    /// The module is not for NVPTX.
    WrongTarget { triple: String },
    /// The report file could not be written.
    Report { path: String, reason: String },
    /// `arch=` names another GPU than the module's `target-cpu`.
    ArchMismatch { option: String, module: String },
    /// The module's debug info names the file that carries the keys.
    ReservedDebugFile { file: String },
    /// A file the user gave (a machine description, forced decisions) is
    /// unreadable or wrong: `message` is one line naming `FILE[:LINE]`.
    File { message: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadOption { option, value, expected } => {
                write!(f, "invalid value '{value}' for {option}: expected {expected}")
            }
            Error::UnknownOption { option } => write!(
                f,
                "unknown gpucc-cache option '{option}': known options are policy, block, grid, arch, \
                 model, l1, arg, launcharg, data, registers, sample-blocks, report, report-file, strip-debug, discard-names, whole-program, rdc, \
                 lower, machine, decisions"
            ),
            Error::WrongTarget { triple } => write!(
                f,
                "module targets '{}', not NVPTX: gpucc-cache works on device-side modules \
                 (triple nvptx64-nvidia-cuda); compile the device side, e.g. clang --cuda-device-only",
                if triple.is_empty() { "<no triple>" } else { triple }
            ),
            Error::ArchMismatch { option, module } => write!(
                f,
                "arch={option} contradicts the module's target-cpu {module}: the backend will write code for \
                 {module}; drop arch= or compile the module for {option}"
            ),
            Error::ReservedDebugFile { file } => write!(
                f,
                "the source's debug info names a file '{file}' (a #line directive?), a name gpucc-cache \
                 reserves for the keys that carry its decisions; rename it"
            ),
            Error::File { message } => f.write_str(message),
            Error::Report { path, reason } => {
                write!(f, "cannot write the cache report to '{path}': {reason}; pick a writable path")
            }
        }
    }
}

impl std::error::Error for Error {}
