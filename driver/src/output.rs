//! The files a run touches: the input must be a file the driver can compile,
//! no output may land on the input or on another output, outputs are
//! replaced atomically, and temporary directories fail with a message that
//! names `TMPDIR`.
//!
//! It does not decide output names (`args` does) nor write any format (the
//! compile routes hand finished bytes to `write_atomic`).

use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};

/// Input extensions the driver compiles: CUDA source, or device-side IR.
pub const INPUT_EXTENSIONS: &[&str] = &["cu", "cuh", "ll", "bc"];

/// The input exists, is a regular file (not a directory, device or pipe:
/// clang and the IR reader both need to read it whole), and has an
/// extension the driver knows how to route.
pub fn check_input(input: &Path) -> Result<()> {
    let shown = input.display();
    let meta = match std::fs::metadata(input) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("input file '{shown}' not found; check the path")
        }
        Err(e) => bail!("cannot read input '{shown}': {e}; check its permissions"),
    };
    if meta.is_dir() {
        bail!("input '{shown}' is a directory; give a .cu, .ll or .bc file");
    }
    if !meta.is_file() {
        bail!("input '{shown}' is not a regular file; give a .cu, .ll or .bc file");
    }
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !INPUT_EXTENSIONS.contains(&ext) {
        bail!(
            "input '{shown}' has {}; gpucc-cache compiles .cu or .cuh (CUDA) and .ll or .bc (NVPTX IR) files",
            if ext.is_empty() {
                "no extension".to_string()
            } else {
                format!("the extension .{ext}")
            }
        );
    }
    Ok(())
}

/// Where `path` is or would be: the canonical path of an existing file, or
/// the canonical parent joined with the file name for one not written yet.
/// `None` when even the parent cannot be resolved (the caller's own
/// directory checks report that).
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether two paths name one file: the same resolved path (symlinks,
/// `./`, `..`), or the same device and inode (hard links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return true;
        }
    }
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// Refuses a run that would write over its own input, or write the report
/// and the output to one file (the second write would destroy the first).
pub fn check_paths(input: &Path, output: &Path, report_file: Option<&Path>) -> Result<()> {
    let (i, o) = (input.display(), output.display());
    if same_file(output, input) {
        bail!("-o {o} would overwrite the input {i}; choose another output name");
    }
    if let Some(report) = report_file {
        let r = report.display();
        if same_file(report, output) {
            bail!("--cache-report-file={r} is also the output (-o {o}); choose another file for the report");
        }
        if same_file(report, input) {
            bail!("--cache-report-file={r} would overwrite the input {i}; choose another file for the report");
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// that is renamed over it: a failure part-way (full disk, a crash, an
/// error) leaves the old file, or none, never a truncated one. The same
/// directory keeps the rename on one file system, where it is atomic.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let shown = path.display();
    // 0o666 before the umask: what a plain create would give, not
    // tempfile's private 0o600.
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpucc-cache-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot write {shown}: cannot create a file in {}; check the directory exists and is writable",
                dir.display()
            )
        })?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_data())
        .with_context(|| format!("cannot write {shown}; check the disk has space"))?;
    tmp.persist(path)
        .map_err(|e| anyhow!("cannot write {shown}: {}; check it is writable", e.error))?;
    Ok(())
}

/// A fresh temporary directory under `TMPDIR` (or /tmp), removed on drop.
pub fn temp_dir() -> Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(|e| {
        // tempfile's message names its random file name; say what is wrong
        // with the directory instead.
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "it does not exist".to_string(),
            std::io::ErrorKind::PermissionDenied => "it is not writable".to_string(),
            kind => kind.to_string(),
        };
        anyhow!(
            "cannot create a temporary directory in {} (TMPDIR): {why}; set TMPDIR to an existing writable directory",
            std::env::temp_dir().display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_file_sees_through_spellings_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let k = dir.path().join("k.cu");
        std::fs::write(&k, "x").unwrap();
        let dotted = dir.path().join(".").join("k.cu");
        assert!(same_file(&dotted, &k));
        let hard = dir.path().join("h.cu");
        std::fs::hard_link(&k, &hard).unwrap();
        assert!(same_file(&hard, &k));
        let soft = dir.path().join("s.cu");
        std::os::unix::fs::symlink(&k, &soft).unwrap();
        assert!(same_file(&soft, &k));
        // Not written yet: resolved through its parent.
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let new = dir.path().join("sub/../k.ptx");
        assert!(!same_file(&new, &k));
        assert!(same_file(&new, &dir.path().join("k.ptx")));
    }

    #[test]
    fn check_paths_names_the_clash() {
        let dir = tempfile::tempdir().unwrap();
        let k = dir.path().join("k.cu");
        std::fs::write(&k, "x").unwrap();
        let o = dir.path().join("k.ptx");
        assert!(check_paths(&k, &o, None).is_ok());
        let e = check_paths(&k, &k, None).unwrap_err().to_string();
        assert!(e.contains("would overwrite the input"), "{e}");
        let e = check_paths(&k, &o, Some(&o)).unwrap_err().to_string();
        assert!(e.contains("is also the output"), "{e}");
        let e = check_paths(&k, &o, Some(&k)).unwrap_err().to_string();
        assert!(e.contains("would overwrite the input"), "{e}");
    }

    #[test]
    fn write_atomic_replaces_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.ptx");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        let missing = dir.path().join("no/such/out.ptx");
        let e = write_atomic(&missing, b"x").unwrap_err().to_string();
        assert!(e.contains("cannot write") && !e.contains('\n'), "{e}");
    }
}
