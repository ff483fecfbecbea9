//! Files the user names (kernel data, a machine description, forced
//! decisions): read whole and bounded, regular files only, with a one-line
//! error naming the file and the fix. Below every stage: `options`,
//! `gpu::machine` and `decide::forced` read through it.

use crate::error::Error;

/// Why [`read_regular`] read nothing.
#[derive(Debug)]
pub enum Refused {
    Unreadable(std::io::Error),
    /// What the path is instead: "a directory", or "not a regular file (a
    /// FIFO, socket or device)".
    NotRegular(&'static str),
    /// Its size (or what was read of it), past the limit.
    TooBig(u64),
}

/// The bytes of the regular file `path`, at most `limit` of them: what a
/// file the user names (kernel data, a machine description, forced
/// decisions) is read with, so that a device (`/dev/zero`) or a FIFO is
/// refused rather than read without end or waited on.
///
/// The path's type is checked before opening, since opening a FIFO for reading blocks until a
/// writer comes, and the opened handle's type and size again, since that is what is read; a path
/// swapped for a FIFO between the two can still block the open (`O_NONBLOCK` would close the gap,
/// but needs `libc`, which this crate does not depend on). The read stops one byte past the limit,
/// so a file that grows while it is read is still refused.
pub fn read_regular(path: &str, limit: u64) -> Result<Vec<u8>, Refused> {
    use std::io::Read as _;
    let not_regular = |t: std::fs::FileType| {
        Refused::NotRegular(if t.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        })
    };
    let before = std::fs::metadata(path).map_err(Refused::Unreadable)?;
    if !before.is_file() {
        return Err(not_regular(before.file_type()));
    }
    let file = std::fs::File::open(path).map_err(Refused::Unreadable)?;
    let meta = file.metadata().map_err(Refused::Unreadable)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    if meta.len() > limit {
        return Err(Refused::TooBig(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(Refused::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooBig(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of a small file the user names (a machine description, forced
/// decisions: at most [`MAX_TEXT_FILE`] bytes of UTF-8), or a one-line
/// message naming `what` and `path`.
pub fn read_text_file(what: &str, path: &str) -> Result<String, Error> {
    let message = match read_regular(path, MAX_TEXT_FILE) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => return Ok(text),
            Err(_) => format!("cannot read {what} {path}: it is not UTF-8 text; give a text file"),
        },
        Err(Refused::Unreadable(e)) => format!("cannot read {what} {path}: {e}; check the path"),
        Err(Refused::NotRegular(kind)) => {
            format!("cannot read {what} {path}: it is {kind}; give a regular file")
        }
        Err(Refused::TooBig(size)) => format!(
            "cannot read {what} {path}: {size} bytes, more than the {MAX_TEXT_FILE} a text file may have; give the file itself"
        ),
    };
    Err(Error::File { message })
}

/// The most bytes a machine description or decisions file may have (1 MiB:
/// thousands of lines).
pub const MAX_TEXT_FILE: u64 = 1 << 20;
