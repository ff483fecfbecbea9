//! Reading a data-affinity graph from a file: a Matrix Market sparse matrix, read as the SpMV graph
//! of y = Ax, or a plain edge list of `u v` lines.
//!
//! Files may be gigabytes, so both readers stream one physical line at a time through a reused
//! buffer and keep only the edges. Every input is bounded before it costs memory ([`Limits`]): a
//! regular file (not a FIFO or a device) of at most [`crate::limits::MAX_INPUT_BYTES`], lines of at
//! most [`crate::limits::MAX_LINE_BYTES`], and a graph that fits the memory its partition will need,
//! checked as it is read. Every problem becomes an [`InputError`] naming the file and the 1-based
//! line, never a guess: a malformed line is not skipped, a count that does not match is not
//! forgiven. Deliberately out of scope: numerical values (read only to check that they are there and
//! are numbers), dense `array` matrices (no sparsity to partition), vectors, and any other format.

use std::fmt;
use std::fs::{File, FileType};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::graph::{Graph, MatrixShape, MAX_VERTICES};
use crate::limits::{Footprint, Limits, TooLarge};

/// Why a graph file could not be read. Every variant names the file; `Display` is one line.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be opened.
    Open { file: String, source: io::Error },
    /// Reading failed part way through (a device error, a directory given as a file, ...).
    Read {
        file: String,
        line: u64,
        source: io::Error,
    },
    /// A token, or its absence, is not what the format allows at that place.
    Unexpected {
        file: String,
        line: u64,
        expected: String,
        found: Found,
    },
    /// The file is well formed but describes something this crate cannot partition.
    Unsupported {
        file: String,
        line: u64,
        reason: String,
    },
    /// The file ended before all the entries the size line declares.
    MissingEntries {
        file: String,
        line: u64,
        expected: u64,
        found: u64,
    },
    /// An edge list without a single edge.
    NoEdges { file: String },
    /// The path names something that is not a regular file (`kind` says what): a directory, a
    /// FIFO, a device. These have no size to bound, or no end.
    NotRegular { file: String, kind: &'static str },
    /// The file holds more than `limit` bytes (`size` is what was seen, at least `limit + 1`).
    TooBig { file: String, size: u64, limit: u64 },
    /// A line runs past `limit` bytes without a newline.
    LineTooLong {
        file: String,
        line: u64,
        limit: usize,
    },
    /// The graph read up to `line` (or declared there) would not fit the memory of its partition.
    TooLarge {
        file: String,
        line: u64,
        source: TooLarge,
    },
}

/// What stood where something else was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The offending token, cut to [`ECHO_LIMIT`] characters.
    Token(String),
    EndOfLine,
    EndOfFile,
}

/// Longest token echoed back in a message: enough to recognise it, short enough to keep one line
/// readable when the "token" is a stray binary blob.
pub const ECHO_LIMIT: usize = 40;

/// Edges are numbered by `u32` throughout the crate (incidence lists, cluster arrays).
const MAX_EDGES: u64 = u32::MAX as u64;

/// The Matrix Market `field`: how many value tokens follow the two indices of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Real,
    Integer,
    Complex,
    Pattern,
}

/// The Matrix Market `symmetry`: whether a stored off-diagonal entry stands for its mirror too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
    Hermitian,
}

/// A streaming reader of physical lines that counts them for messages.
struct Lines<'n, R> {
    reader: R,
    buf: Vec<u8>,
    line: u64,
    /// Bytes read so far, lines and line endings included.
    consumed: u64,
    file: &'n str,
    limits: Limits,
}

/// The whitespace-separated tokens of one line, with what is needed to report an error on it.
struct Tokens<'a> {
    rest: &'a [u8],
    file: &'a str,
    line: u64,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Token(t) => write!(f, "'{t}'"),
            Found::EndOfLine => write!(f, "end of line"),
            Found::EndOfFile => write!(f, "end of file"),
        }
    }
}

impl Found {
    fn token(bytes: &[u8]) -> Found {
        let text = String::from_utf8_lossy(bytes);
        // Control characters (binary garbage) are shown as '?': the message
        // stays one readable line.
        let mut cut: String = (text.chars().take(ECHO_LIMIT))
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        if text.chars().nth(ECHO_LIMIT).is_some() {
            cut.push('…');
        }
        Found::Token(cut)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Open { file, source } => {
                write!(f, "cannot open '{file}': {source}; check the path")
            }
            InputError::Read { file, line, source } => {
                write!(f, "{file}:{line}: read failed: {source}")
            }
            InputError::Unexpected {
                file,
                line,
                expected,
                found,
            } => {
                write!(f, "{file}:{line}: expected {expected}, found {found}")
            }
            InputError::Unsupported { file, line, reason } => write!(f, "{file}:{line}: {reason}"),
            InputError::MissingEntries {
                file,
                line,
                expected,
                found,
            } => write!(
                f,
                "{file}:{line}: expected {expected} entries, found {found}; \
                 the file ends early (truncated?) or the size line is wrong"
            ),
            InputError::NoEdges { file } => write!(
                f,
                "{file}: no edges; an edge list needs lines 'u v' of 0-based vertex ids"
            ),
            InputError::NotRegular { file, kind } => write!(
                f,
                "'{file}' is {kind}, not a regular file; give a graph file \
                 (save a stream to a file first)"
            ),
            InputError::TooBig { file, size, limit } => write!(
                f,
                "'{file}' has {size} bytes or more, over the {limit}-byte limit for a graph file; \
                 give a smaller graph"
            ),
            InputError::LineTooLong { file, line, limit } => write!(
                f,
                "{file}:{line}: line longer than {limit} bytes (no newline); \
                 a graph file has one entry or edge per line: is this a text graph?"
            ),
            InputError::TooLarge { file, line, source } => write!(f, "{file}:{line}: {source}"),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Open { source, .. } | InputError::Read { source, .. } => Some(source),
            InputError::TooLarge { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl<'n, R: BufRead> Lines<'n, R> {
    fn new(reader: R, file: &'n str, limits: Limits) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
            consumed: 0,
            file,
            limits,
        }
    }

    /// Moves to the next physical line, its line ending dropped; `false` at end of file. A line
    /// is read at most one byte past the line limit, so no line costs more than the limit.
    fn advance(&mut self) -> Result<bool, InputError> {
        self.buf.clear();
        let cap = self.limits.line_bytes as u64 + 1;
        let read = (self.reader.by_ref().take(cap))
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| InputError::Read {
                file: self.file.to_string(),
                line: self.line + 1,
                source,
            })?;
        if read == 0 {
            return Ok(false);
        }
        self.line += 1;
        self.consumed += read as u64;
        if self.consumed > self.limits.input_bytes {
            return Err(InputError::TooBig {
                file: self.file.to_string(),
                size: self.consumed,
                limit: self.limits.input_bytes,
            });
        }
        let content = self.buf.len() - usize::from(self.buf.last() == Some(&b'\n'));
        if content > self.limits.line_bytes {
            return Err(InputError::LineTooLong {
                file: self.file.to_string(),
                line: self.line,
                limit: self.limits.line_bytes,
            });
        }
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        Ok(true)
    }

    fn tokens(&self) -> Tokens<'_> {
        Tokens {
            rest: &self.buf,
            file: self.file,
            line: self.line,
        }
    }

    /// The next physical line, or `None` at end of file.
    fn next_line(&mut self) -> Result<Option<Tokens<'_>>, InputError> {
        Ok(if self.advance()? {
            Some(self.tokens())
        } else {
            None
        })
    }

    /// The next line that holds data: blank lines and lines opening with one of `comment` skipped.
    fn next_data_line(&mut self, comment: &[u8]) -> Result<Option<Tokens<'_>>, InputError> {
        while self.advance()? {
            if !self.tokens().is_blank_or_comment(comment) {
                return Ok(Some(self.tokens()));
            }
        }
        Ok(None)
    }

    /// `Ok` when a graph of `footprint` fits the memory budget; else an error on the current line.
    fn check_memory(&self, footprint: Footprint) -> Result<(), InputError> {
        (self.limits.memory.check(footprint)).map_err(|source| InputError::TooLarge {
            file: self.file.to_string(),
            line: self.line,
            source,
        })
    }

    fn end_of_file(&self, expected: impl Into<String>) -> InputError {
        InputError::Unexpected {
            file: self.file.to_string(),
            line: self.line,
            expected: expected.into(),
            found: Found::EndOfFile,
        }
    }
}

impl<'a> Tokens<'a> {
    fn is_blank_or_comment(&self, comment: &[u8]) -> bool {
        match self.rest.iter().find(|b| !b.is_ascii_whitespace()) {
            None => true,
            Some(first) => comment.contains(first),
        }
    }

    fn next_token(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|b| !b.is_ascii_whitespace())?;
        let rest = &self.rest[start..];
        let len = rest
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        self.rest = &rest[len..];
        Some(&rest[..len])
    }

    fn error(&self, expected: impl Into<String>, found: Option<&[u8]>) -> InputError {
        InputError::Unexpected {
            file: self.file.to_string(),
            line: self.line,
            expected: expected.into(),
            found: found.map_or(Found::EndOfLine, Found::token),
        }
    }

    fn unsupported(&self, reason: impl Into<String>) -> InputError {
        InputError::Unsupported {
            file: self.file.to_string(),
            line: self.line,
            reason: reason.into(),
        }
    }

    /// An unsigned integer in `low..=high`, described as `what` in the message.
    fn integer_in(&mut self, what: &str, low: u64, high: u64) -> Result<u64, InputError> {
        let token = self.next_token();
        match token.and_then(parse_unsigned) {
            Some(value) if (low..=high).contains(&value) => Ok(value),
            _ => Err(self.error(format!("{what} in {low}..={high}"), token)),
        }
    }

    /// Any unsigned integer (a count), described as `what` in the message.
    fn count(&mut self, what: &str) -> Result<u64, InputError> {
        let token = self.next_token();
        token
            .and_then(parse_unsigned)
            .ok_or_else(|| self.error(what, token))
    }

    /// One numeric value token: an integer for `integer` fields, a decimal number otherwise.
    fn value(&mut self, field: Field) -> Result<(), InputError> {
        let token = self.next_token();
        let text = token.and_then(|t| std::str::from_utf8(t).ok());
        let ok = match field {
            Field::Integer => text.is_some_and(|t| t.parse::<i64>().is_ok()),
            _ => text.is_some_and(|t| t.parse::<f64>().is_ok()),
        };
        if ok {
            Ok(())
        } else {
            let what = match field {
                Field::Integer => "an integer value",
                Field::Complex => "a real and an imaginary part",
                _ => "a real value",
            };
            Err(self.error(what, token))
        }
    }

    /// A keyword out of `choices` (case-insensitive), returning its index.
    fn keyword(&mut self, what: &str, choices: &[&str]) -> Result<usize, InputError> {
        let token = self.next_token();
        token
            .and_then(|t| {
                choices
                    .iter()
                    .position(|c| t.eq_ignore_ascii_case(c.as_bytes()))
            })
            .ok_or_else(|| {
                let list: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
                self.error(format!("{what} ({})", list.join(", ")), token)
            })
    }

    fn end(&mut self) -> Result<(), InputError> {
        match self.next_token() {
            None => Ok(()),
            Some(token) => Err(self.error("end of line", Some(token))),
        }
    }
}

/// Decimal digits only (no sign, no blanks); `None` on anything else or on overflow.
fn parse_unsigned(token: &[u8]) -> Option<u64> {
    if token.is_empty() {
        return None;
    }
    token.iter().try_fold(0u64, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

const BANNER: &[u8] = b"%%MatrixMarket";

/// Reads the graph in `path`: Matrix Market when the first line opens with `%%` (the banner
/// `%%MatrixMarket`, in any case), an edge list otherwise; within [`Limits::of_this_machine`].
pub fn read_graph(path: &Path) -> Result<Graph, InputError> {
    read_graph_within(path, &Limits::of_this_machine())
}

/// As [`read_graph`], within `limits`.
pub fn read_graph_within(path: &Path, limits: &Limits) -> Result<Graph, InputError> {
    let name = path.display().to_string();
    let file = open_regular(path, limits.input_bytes)?;
    // One byte past the limit, so that a file that grows while it is read is still caught.
    let mut reader = BufReader::with_capacity(1 << 16, file.take(limits.input_bytes + 1));
    // Peek at the start without consuming it, so that line numbers stay physical.
    let start = reader.fill_buf().map_err(|source| InputError::Read {
        file: name.clone(),
        line: 1,
        source,
    })?;
    // `%%` opens only a banner: a misspelled one gets the banner's error, not
    // an edge-list error on line 2.
    let matrix_market = start.starts_with(b"%%")
        || (start.len() >= BANNER.len() && start[..BANNER.len()].eq_ignore_ascii_case(BANNER));
    if matrix_market {
        read_matrix_market_within(reader, &name, limits)
    } else {
        read_edge_list_within(reader, &name, limits)
    }
}

/// Opens `path` for reading when it is a regular file of at most `limit` bytes. Directories,
/// FIFOs, sockets and devices are refused: they have no size to bound (`/dev/zero` never ends) or
/// block (a FIFO without a writer).
///
/// The type is checked twice: on the path before opening, since opening a FIFO for reading blocks
/// until a writer comes, and on the opened handle, which is what is read. A path swapped for a
/// FIFO between the two can still block the open; `O_NONBLOCK` would close that gap, but needs
/// `libc`, which this crate does not depend on.
pub fn open_regular(path: &Path, limit: u64) -> Result<File, InputError> {
    let name = || path.display().to_string();
    let open_error = |source| InputError::Open {
        file: name(),
        source,
    };
    let before = std::fs::metadata(path).map_err(open_error)?;
    if !before.is_file() {
        return Err(InputError::NotRegular {
            file: name(),
            kind: kind_of(before.file_type()),
        });
    }
    let file = File::open(path).map_err(open_error)?;
    let meta = file.metadata().map_err(open_error)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular {
            file: name(),
            kind: kind_of(meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(InputError::TooBig {
            file: name(),
            size: meta.len(),
            limit,
        });
    }
    Ok(file)
}

/// What a non-regular file is, for messages.
fn kind_of(t: FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

/// Reads a Matrix Market `matrix coordinate` file as the SpMV data-affinity graph of y = Ax: vertex r
/// is y[r], vertex rows + c is x[c], and nonzero (r, c) is the edge (r, rows + c), in file order. A
/// symmetric, skew-symmetric or Hermitian file stores one triangle; each stored off-diagonal entry
/// also stands for its mirror, which is pushed right after it.
pub fn read_matrix_market<R: BufRead>(reader: R, name: &str) -> Result<Graph, InputError> {
    read_matrix_market_within(reader, name, &Limits::of_this_machine())
}

/// As [`read_matrix_market`], within `limits`: the size line's vertex count and entries must fit
/// the memory budget, and so must the edges as they are read.
pub fn read_matrix_market_within<R: BufRead>(
    reader: R,
    name: &str,
    limits: &Limits,
) -> Result<Graph, InputError> {
    let mut lines = Lines::new(reader, name, *limits);
    let (field, symmetry) = match lines.next_line()? {
        None => return Err(lines.end_of_file("a '%%MatrixMarket matrix coordinate ...' banner")),
        Some(mut banner) => read_banner(&mut banner)?,
    };
    let (rows, cols, entries) = match lines.next_data_line(b"%")? {
        None => return Err(lines.end_of_file("a size line 'rows columns entries'")),
        Some(mut size) => read_size(&mut size, symmetry)?,
    };
    let vertices = u64::from(rows) + u64::from(cols);
    // Refused by the declared counts before anything is read: the entries are the fewest edges the
    // file can hold (mirrors come on top).
    lines.check_memory(Footprint {
        vertices,
        edges: entries,
    })?;
    let mirrored = symmetry != Symmetry::General;
    // The size line is untrusted (it may promise more than the file holds): reserve for what it
    // promises only up to a modest bound.
    let promised = if mirrored {
        entries.saturating_mul(2)
    } else {
        entries
    };
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(promised.min(1 << 22) as usize);
    let mut read = 0u64;
    while let Some(mut entry) = lines.next_data_line(b"%")? {
        if read == entries {
            let token = entry.next_token();
            return Err(entry.error(
                format!("no more entries (the size line declares {entries})"),
                token,
            ));
        }
        let r = entry.integer_in("a row index", 1, u64::from(rows))? as u32 - 1;
        let c = entry.integer_in("a column index", 1, u64::from(cols))? as u32 - 1;
        let values = match field {
            Field::Pattern => 0,
            Field::Real | Field::Integer => 1,
            Field::Complex => 2,
        };
        for _ in 0..values {
            entry.value(field)?;
        }
        entry.end()?;
        let added = if mirrored && r != c { 2 } else { 1 };
        let count = edges.len() as u64 + added;
        if count > MAX_EDGES {
            return Err(entry.unsupported(format!(
                "more than {MAX_EDGES} edges, the most this crate can number; split the matrix"
            )));
        }
        if count > entries {
            // Only mirrors take the count past the declared entries.
            lines.check_memory(Footprint {
                vertices,
                edges: count,
            })?;
        }
        edges.push((r, rows + c));
        if added == 2 {
            edges.push((c, rows + r));
        }
        read += 1;
    }
    if read < entries {
        return Err(InputError::MissingEntries {
            file: name.to_string(),
            line: lines.line,
            expected: entries,
            found: read,
        });
    }
    let mut graph = Graph::new(rows + cols, edges);
    graph.matrix = Some(MatrixShape { rows, cols });
    Ok(graph)
}

fn read_banner(banner: &mut Tokens<'_>) -> Result<(Field, Symmetry), InputError> {
    banner.keyword(
        "a '%%MatrixMarket matrix coordinate ...' banner",
        &["%%MatrixMarket"],
    )?;
    banner.keyword("an object", &["matrix"])?;
    let format = banner.keyword("a format", &["coordinate", "array"])?;
    if format == 1 {
        return Err(banner.unsupported(
            "a dense 'array' matrix has no sparsity to partition; use the coordinate format",
        ));
    }
    let field = match banner.keyword("a field", &["real", "integer", "complex", "pattern"])? {
        0 => Field::Real,
        1 => Field::Integer,
        2 => Field::Complex,
        _ => Field::Pattern,
    };
    let symmetry = match banner.keyword(
        "a symmetry",
        &["general", "symmetric", "skew-symmetric", "hermitian"],
    )? {
        0 => Symmetry::General,
        1 => Symmetry::Symmetric,
        2 => Symmetry::SkewSymmetric,
        _ => Symmetry::Hermitian,
    };
    banner.end()?;
    Ok((field, symmetry))
}

fn read_size(size: &mut Tokens<'_>, symmetry: Symmetry) -> Result<(u32, u32, u64), InputError> {
    let rows = size.count("a row count")?;
    let cols = size.count("a column count")?;
    let entries = size.count("an entry count")?;
    size.end()?;
    if symmetry != Symmetry::General && rows != cols {
        return Err(size.unsupported(format!(
            "a matrix stored as one triangle must be square, but the size line says {rows}x{cols}"
        )));
    }
    if rows + cols > u64::from(MAX_VERTICES) {
        return Err(size.unsupported(format!(
            "{rows} rows + {cols} columns exceed the {MAX_VERTICES} vertices a graph may have; \
             number the vertices compactly (drop empty rows and columns)"
        )));
    }
    if entries > MAX_EDGES {
        return Err(size.unsupported(format!(
            "{entries} entries exceed the {MAX_EDGES} edges this crate can number"
        )));
    }
    Ok((rows as u32, cols as u32, entries))
}

/// Reads an edge list: one edge `u v` (0-based vertex ids) per line, in thread order; blank lines and
/// lines opening with `#` or `%` are comments. The vertex count is the largest id plus one.
pub fn read_edge_list<R: BufRead>(reader: R, name: &str) -> Result<Graph, InputError> {
    read_edge_list_within(reader, name, &Limits::of_this_machine())
}

/// As [`read_edge_list`], within `limits`: every id below [`MAX_VERTICES`], and the graph read so
/// far within the memory budget.
pub fn read_edge_list_within<R: BufRead>(
    reader: R,
    name: &str,
    limits: &Limits,
) -> Result<Graph, InputError> {
    // The largest id leaves room for the count, max id + 1, to be a u32.
    let max_id = u64::from(u32::MAX - 1);
    let mut lines = Lines::new(reader, name, *limits);
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut highest = 0u32;
    while let Some(mut line) = lines.next_data_line(b"#%")? {
        let u = line.integer_in("a vertex id", 0, max_id)? as u32;
        let v = line.integer_in("a second vertex id", 0, max_id)? as u32;
        line.end()?;
        if edges.len() as u64 == MAX_EDGES {
            return Err(line.unsupported(format!(
                "more than {MAX_EDGES} edges, the most this crate can number; split the graph"
            )));
        }
        highest = highest.max(u).max(v);
        if highest >= MAX_VERTICES {
            return Err(line.unsupported(format!(
                "vertex id {highest} is past the {MAX_VERTICES} vertices a graph may have; \
                 number the vertices compactly (0..n-1)"
            )));
        }
        edges.push((u, v));
        lines.check_memory(Footprint {
            vertices: u64::from(highest) + 1,
            edges: edges.len() as u64,
        })?;
    }
    if edges.is_empty() {
        return Err(InputError::NoEdges {
            file: name.to_string(),
        });
    }
    Ok(Graph::new(highest + 1, edges))
}
