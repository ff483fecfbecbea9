//! Messages to standard error that never panic: `eprintln!` panics when
//! stderr cannot be written (a full disk behind `2>file`, a closed pipe),
//! which would turn a message into a crash. A message that cannot be
//! written is dropped; the exit status still tells.

use std::io::Write as _;

/// `text` as it is.
pub fn stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `text` and a newline.
pub fn line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(text.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}
