//! The files a run touches, and the rules that keep a user's files safe:
//! - the input must be a regular file the driver can read;
//! - an output is where its symlinks lead; a directory is refused; a
//!   device or FIFO (`/dev/null`) is written through, as clang does, never
//!   replaced; a regular file is replaced whole, through a temporary file
//!   renamed over it;
//! - no output may be one of the run's inputs (the source, the headers it
//!   includes, kernel data, response files, graphs), by device and inode,
//!   nor another output;
//! - nothing is written unless the whole run succeeded (`Outputs::commit`);
//! - temporary directories are removed, also when a signal ends the run,
//!   and fail with a message that names `TMPDIR`.
//!
//! It does not decide output names (`args` does) nor write any format (the
//! routes hand finished bytes to `Outputs`).

use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};

/// The input exists and is a regular file (not a directory, device or
/// pipe: clang and the IR reader both need to read it whole; `-` reads
/// standard input). Its language is `args`' question.
pub fn check_input(input: &Path) -> Result<()> {
    check_regular(input, "a .cu, .ll or .bc file")?;
    // The line tables that carry the decisions name the file in PTX
    // comments; a line break in the name would put the rest of it on a
    // line of its own, which ptxas rejects.
    if input.as_os_str().as_encoded_bytes().contains(&b'\n') {
        bail!(
            "input file {:?} has a line break in its name, which would break the PTX; rename it",
            input.display().to_string()
        );
    }
    Ok(())
}

/// `input` exists and is a regular file; `give` says what to give instead.
pub fn check_regular(input: &Path, give: &str) -> Result<()> {
    let shown = input.display();
    let meta = match std::fs::metadata(input) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("input file '{shown}' not found; check the path")
        }
        Err(e) => bail!("cannot read input '{shown}': {e}; check its permissions"),
    };
    if meta.is_dir() {
        bail!("input '{shown}' is a directory; give {give}");
    }
    if !meta.is_file() {
        bail!("input '{shown}' is not a regular file; give {give}");
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

/// The response files of this command line (`@file`), set once by `main`:
/// inputs of every run, guarded like the others.
static RESPONSE_FILES: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();

pub fn set_response_files(files: Vec<PathBuf>) {
    let _ = RESPONSE_FILES.set(files);
}

/// A file's identity: its device and inode, after following symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

fn file_id(path: &Path) -> Option<FileId> {
    let m = std::fs::metadata(path).ok()?;
    Some(FileId {
        dev: m.dev(),
        ino: m.ino(),
    })
}

/// Where an output's bytes go, once its symlinks are followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    /// A regular file, or none yet: written to a temporary file beside it
    /// and renamed over it, so that it is replaced whole or not at all. A
    /// symlink's target is replaced; the link stays.
    Replace(PathBuf),
    /// A character or block device or a FIFO (`/dev/null`, `/dev/stdout`,
    /// a pipe): written through, as clang writes to one. Never replaced.
    Stream(PathBuf),
}

/// Symlinks followed at most (Linux's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Where `path` really writes: its symlinks followed to the end, even a
/// dangling one (clang writes through it and creates the target), and the
/// kernel's own links (`/dev/stdout` → `/proc/self/fd/1` → a pipe). `Err`
/// is the reason it cannot be an output.
pub fn sink(path: &Path) -> std::result::Result<Sink, String> {
    use std::os::unix::fs::FileTypeExt as _;
    if path.as_os_str().is_empty() {
        return Err("is an empty name; give a file name".into());
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err("ends in '/', a directory; give a file name".into());
    }
    match std::fs::metadata(path) {
        Ok(m) => {
            let t = m.file_type();
            if t.is_dir() {
                Err("is a directory; give a file name".into())
            } else if t.is_char_device() || t.is_block_device() || t.is_fifo() {
                Ok(Sink::Stream(path.to_path_buf()))
            } else if t.is_file() {
                // The file itself, so that the rename replaces it and not
                // a link to it.
                let real = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
                Ok(Sink::Replace(real))
            } else {
                Err("is a socket, not a file; give a file name".into())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => new_file(path),
        Err(e) => Err(format!(
            "cannot be used: {e}; check the path and its permissions"
        )),
    }
}

/// A file not there yet: where the chain of symlinks ends, in a directory
/// that must exist.
fn new_file(path: &Path) -> std::result::Result<Sink, String> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&p).map_err(|e| e.to_string())?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Err("changed while being checked; run again".into()),
            Err(_) => {
                let parent = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                if !parent.is_dir() {
                    return Err(format!(
                        "cannot be created: the directory {} does not exist; create it or choose another path",
                        parent.display()
                    ));
                }
                return Ok(Sink::Replace(p));
            }
        }
    }
    Err(format!(
        "has more than {MAX_LINKS} levels of symlinks; give the file itself"
    ))
}

/// One planned output.
struct Planned {
    /// How the user named it: `-o`, `--cache-report-file`, `--csv`, ...
    flag: String,
    given: PathBuf,
    sink: Sink,
    bytes: Option<Vec<u8>>,
    /// Permissions before the umask: 0o666, or 0o777 for an executable.
    mode: u32,
}

impl Planned {
    fn name(&self) -> String {
        if self.flag.starts_with("--") {
            format!("{}={}", self.flag, self.given.display())
        } else {
            format!("{} {}", self.flag, self.given.display())
        }
    }

    /// The file it would write over, if one exists.
    fn existing(&self) -> Option<FileId> {
        match &self.sink {
            Sink::Replace(p) => file_id(p),
            Sink::Stream(_) => None,
        }
    }
}

/// The files one run reads and writes. Outputs are planned before the
/// work (so that a bad path fails in a second, not after minutes of model),
/// every input is recorded, including those only known later (the headers
/// clang read), and no output may be one of them, by device and inode. The
/// outputs are written together at the end, by `commit`: a run that fails
/// anywhere before writes nothing.
#[derive(Default)]
pub struct Outputs {
    inputs: Vec<(String, PathBuf, FileId)>,
    planned: Vec<Planned>,
    /// Directories `commit` creates first (`partition --out`).
    dirs: Vec<PathBuf>,
}

/// A planned output, to be filled with its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Slot(usize);

impl Outputs {
    /// A run's files, the command line's response files among its inputs.
    pub fn new() -> Outputs {
        let mut o = Outputs::default();
        for f in RESPONSE_FILES.get().into_iter().flatten() {
            if let Some(id) = file_id(f) {
                o.inputs.push(("the response file".into(), f.clone(), id));
            }
        }
        o
    }

    /// Records an input (`what` names it in errors: "the input", "the
    /// kernel data", "a header the source includes"); an input that does
    /// not exist is nobody's output either. Fails if an output planned
    /// already would write over it.
    pub fn input(&mut self, what: &str, path: &Path) -> Result<()> {
        let Some(id) = file_id(path) else {
            return Ok(());
        };
        if let Some(o) = self.planned.iter().find(|o| o.existing() == Some(id)) {
            bail!(
                "{} would overwrite {what} {}; choose another output name",
                o.name(),
                path.display()
            );
        }
        self.inputs.push((what.to_string(), path.to_path_buf(), id));
        Ok(())
    }

    /// Plans the output `path`, named `flag` in errors.
    pub fn output(&mut self, flag: &str, path: &Path) -> Result<Slot> {
        let planned = Planned {
            flag: flag.to_string(),
            given: path.to_path_buf(),
            sink: Sink::Replace(PathBuf::new()),
            bytes: None,
            mode: 0o666,
        };
        let sink = match sink(path) {
            Ok(s) => s,
            // A file in a directory that `commit` creates.
            Err(_) if self.dirs.iter().any(|d| path.parent() == Some(d.as_path())) => {
                Sink::Replace(path.to_path_buf())
            }
            Err(why) => bail!("{} {why}", planned.name()),
        };
        self.plan(Planned { sink, ..planned })
    }

    /// Plans a directory that `commit` creates (with its parents) before it
    /// writes the outputs planned inside it.
    pub fn directory(&mut self, flag: &str, dir: &Path) -> Result<()> {
        if dir.exists() && !dir.is_dir() {
            bail!("{flag}={} is a file; give a directory", dir.display());
        }
        self.dirs.push(dir.to_path_buf());
        Ok(())
    }

    fn plan(&mut self, o: Planned) -> Result<Slot> {
        if let Some(id) = o.existing() {
            if let Some((what, path, _)) = self.inputs.iter().find(|i| i.2 == id) {
                bail!(
                    "{} would overwrite {what} {}; choose another output name",
                    o.name(),
                    path.display()
                );
            }
        }
        if let Sink::Replace(p) = &o.sink {
            let clash = self.planned.iter().find(|other| match &other.sink {
                Sink::Replace(q) => {
                    same_file(p, q) || (o.existing().is_some() && other.existing() == o.existing())
                }
                // Two streams (`/dev/null` twice) do not destroy each other.
                Sink::Stream(_) => false,
            });
            if let Some(other) = clash {
                bail!(
                    "{} and {} name the same file; give each output its own name",
                    other.name(),
                    o.name()
                );
            }
        }
        self.planned.push(o);
        Ok(Slot(self.planned.len() - 1))
    }

    /// The bytes of a planned output.
    pub fn fill(&mut self, slot: Slot, bytes: Vec<u8>) {
        self.planned[slot.0].bytes = Some(bytes);
    }

    /// The bytes of a planned output that is a program (executable bits).
    pub fn fill_executable(&mut self, slot: Slot, bytes: Vec<u8>) {
        self.planned[slot.0].mode = 0o777;
        self.fill(slot, bytes);
    }

    /// Writes every filled output: first each file to replace is staged in
    /// full beside its target (a full disk fails here, with nothing
    /// replaced), then devices and FIFOs are written, then the staged files
    /// are renamed over their targets. A planned output never filled is
    /// left alone (its step did not run).
    pub fn commit(self) -> Result<()> {
        for d in &self.dirs {
            std::fs::create_dir_all(d).with_context(|| {
                format!("cannot create {}; check the path is writable", d.display())
            })?;
        }
        let mut staged = Vec::new();
        for o in &self.planned {
            if let (Sink::Replace(target), Some(bytes)) = (&o.sink, &o.bytes) {
                staged.push((stage(target, bytes, &o.name(), o.mode)?, target));
            }
        }
        for o in &self.planned {
            if let (Sink::Stream(target), Some(bytes)) = (&o.sink, &o.bytes) {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(target)
                    .and_then(|mut f| f.write_all(bytes))
                    .with_context(|| format!("cannot write {}", o.name()))?;
            }
        }
        for ((tmp, _removal), target) in staged {
            tmp.persist(target).map_err(|e| {
                anyhow!(
                    "cannot write {}: {}; check it is writable",
                    target.display(),
                    e.error
                )
            })?;
        }
        Ok(())
    }
}

/// `bytes` in a temporary file in `target`'s directory (one file system, so
/// the rename is atomic), registered for removal if a signal ends the run.
fn stage(
    target: &Path,
    bytes: &[u8],
    name: &str,
    mode: u32,
) -> Result<(tempfile::NamedTempFile, crate::interrupt::Removal)> {
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // 0o666 (0o777) before the umask: what a plain create (a linker)
    // would give, not tempfile's private 0o600.
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpucc-cache-")
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)
        .with_context(|| {
            format!(
                "cannot write {name}: cannot create a file in {}; check the directory exists and is writable",
                dir.display()
            )
        })?;
    let removal = crate::interrupt::Removal::new(tmp.path());
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_data())
        .with_context(|| format!("cannot write {name}; check the disk has space"))?;
    Ok((tmp, removal))
}

/// Writes one output alone: `Outputs` with one slot (tests).
#[cfg(test)]
fn write_one(flag: &str, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut outputs = Outputs::new();
    let slot = outputs.output(flag, path)?;
    outputs.fill(slot, bytes.to_vec());
    outputs.commit()
}

/// A fresh temporary directory under `TMPDIR` (or /tmp), removed on drop,
/// and by a signal that ends the run.
pub struct Scratch {
    dir: tempfile::TempDir,
    _removal: crate::interrupt::Removal,
}

impl Scratch {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// A fresh temporary directory under `TMPDIR` (or /tmp).
pub fn temp_dir() -> Result<Scratch> {
    let dir = tempfile::tempdir().map_err(|e| {
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
    })?;
    let removal = crate::interrupt::Removal::new(dir.path());
    Ok(Scratch {
        dir,
        _removal: removal,
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
    fn outputs_never_land_on_inputs_or_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let k = dir.path().join("k.cu");
        std::fs::write(&k, "x").unwrap();
        let o = dir.path().join("k.ptx");
        let mut files = Outputs::new();
        files.input("the input", &k).unwrap();
        files.output("-o", &o).unwrap();
        let e = files
            .output("--cache-report-file", &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("name the same file"), "{e}");
        let e = files
            .output("--cache-report-file", &k)
            .unwrap_err()
            .to_string();
        assert!(e.contains("would overwrite the input"), "{e}");
        // A header learnt after the outputs were planned.
        let h = dir.path().join("h.cuh");
        std::fs::write(&h, "y").unwrap();
        let mut files = Outputs::new();
        files.output("-o", &h).unwrap();
        let e = files
            .input("a file the source includes", &h)
            .unwrap_err()
            .to_string();
        assert!(e.contains("-o") && e.contains("h.cuh"), "{e}");
        // Two devices do not clash.
        let mut files = Outputs::new();
        files.output("-o", Path::new("/dev/null")).unwrap();
        files
            .output("--cache-report-file", Path::new("/dev/null"))
            .unwrap();
    }

    #[test]
    fn symlinks_lead_to_their_target_and_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.ptx");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.ptx");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_one("-o", &link, b"new").unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A dangling link creates its target.
        let dangling = dir.path().join("dangling.ptx");
        std::os::unix::fs::symlink("made.ptx", &dangling).unwrap();
        write_one("-o", &dangling, b"made").unwrap();
        assert_eq!(std::fs::read(dir.path().join("made.ptx")).unwrap(), b"made");
        let e = write_one("-o", dir.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        assert_eq!(
            sink(Path::new("/dev/null")),
            Ok(Sink::Stream("/dev/null".into()))
        );
    }

    #[test]
    fn commit_replaces_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.ptx");
        std::fs::write(&p, "old").unwrap();
        write_one("-o", &p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        let missing = dir.path().join("no/such/out.ptx");
        let e = write_one("-o", &missing, b"x").unwrap_err().to_string();
        assert!(e.contains("does not exist") && !e.contains('\n'), "{e}");
        // A slot never filled is not written.
        let mut files = Outputs::new();
        let q = dir.path().join("q.ptx");
        files.output("-o", &q).unwrap();
        files.commit().unwrap();
        assert!(!q.exists());
    }
}
