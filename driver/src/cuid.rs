//! Compilation-unit IDs under separate compilation. With `-fgpu-rdc` clang
//! gives a file's internal symbols names that other units can see, ending
//! in a hash of the unit's ID (`_ZL6hiddenPKfPf__intern__<hash>`), so that
//! units linked together do not clash. By default the ID hashes the input's
//! path and clang's whole command line (`-fuse-cuid=hash`). The driver's own
//! clang runs have other command lines (scratch files, its own flags), so
//! each would name those symbols differently: on every run, and between the
//! archs of one run, whose PTX then disagrees on the names of one file's
//! kernels and variables. Every run of one input is given one ID instead, a
//! hash of the input's path and of the user's command: the same run after
//! run and for every arch, different for different inputs or commands.
//!
//! Not done: clang's own value. It hashes clang's parsed arguments (aliases
//! resolved, joined values split), which a driver can only imitate; and
//! `clang -###`, which prints it, counts `-###` among them. So the names'
//! suffix differs from clang's, as any other ID would. An ID the user chose
//! (`-cuid=`, `-fuse-cuid=none|random`) is left to clang as given.

use std::path::Path;

/// Whether the user chose the unit ID themselves: an ID, none, or a random
/// one. `-fuse-cuid=hash` (clang's default, written out) asks for a hash
/// of the command line, which the driver's is not: it gets the driver's.
pub fn given(flags: &[String]) -> bool {
    flags.iter().any(|f| {
        f.starts_with("-cuid=") || (f.starts_with("-fuse-cuid=") && f != "-fuse-cuid=hash")
    })
}

/// The ID of `input` under the user's `command` (the arguments that are not
/// the driver's own, in order): FNV-1a (64-bit) of the input's canonical
/// path and the arguments, each ended by a zero byte.
pub fn of(input: &Path, command: &[String]) -> String {
    let path = std::fs::canonicalize(input).unwrap_or_else(|_| input.to_path_buf());
    let path = path.to_string_lossy();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in std::iter::once(path.as_ref()).chain(command.iter().map(String::as_str)) {
        for b in part.bytes().chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_id_per_input_and_command() {
        let command = vec!["-fgpu-rdc".to_string(), "k.cu".to_string()];
        let a = of(Path::new("k.cu"), &command);
        assert_eq!(a, of(Path::new("k.cu"), &command));
        assert_eq!(a.len(), 16);
        assert_ne!(a, of(Path::new("j.cu"), &command));
        let other = vec![
            "-fgpu-rdc".to_string(),
            "-O1".to_string(),
            "k.cu".to_string(),
        ];
        assert_ne!(a, of(Path::new("k.cu"), &other));
        assert!(given(&["-O3".into(), "-cuid=abc".into()]));
        assert!(given(&["-fuse-cuid=none".into()]));
        assert!(!given(&["-fuse-cuid=hash".into()]));
        assert!(!given(&["-O3".into()]));
    }
}
