//! Issue 16 item 6: every input is bounded before it costs memory or time. Non-regular files
//! (a FIFO, `/dev/zero`, a directory) are refused before they are read, a file over the size
//! limit by its size, a line over the line limit at its line, and a graph (read, declared or
//! generated) whose partition would not fit the memory budget by its counts. The budgets here are
//! tiny, set by hand, so that nothing large is ever allocated.

use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;

use grape::generate::{clique, from_spec, from_spec_within};
use grape::input::{read_edge_list_within, read_graph, read_graph_within, read_matrix_market};
use grape::limits::{mem_available, Footprint, Limits, MemoryBudget, MAX_PARTITION_BYTES};

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grape-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Limits with a budget of `bytes` of memory, the other bounds as given.
fn limits(input_bytes: u64, line_bytes: usize, memory: u64) -> Limits {
    Limits {
        input_bytes,
        line_bytes,
        memory: MemoryBudget {
            limit: memory,
            available: None,
        },
    }
}

#[test]
fn fifos_devices_and_directories_are_refused_without_reading() {
    let dir = scratch("fifo");
    let fifo = dir.join("graph.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Opening a FIFO with no writer for reading blocks forever: refused before the open.
    let message = read_graph(&fifo).unwrap_err().to_string();
    assert!(
        message.contains("is a FIFO (named pipe), not a regular file"),
        "{message}"
    );
    let message = read_graph(&dir).unwrap_err().to_string();
    assert!(
        message.contains("is a directory, not a regular file"),
        "{message}"
    );
    // /dev/zero reads forever without a newline.
    let message = read_graph("/dev/zero".as_ref()).unwrap_err().to_string();
    assert_eq!(
        message,
        "'/dev/zero' is a character device, not a regular file; give a graph file \
         (save a stream to a file first)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_over_the_size_limit_is_refused_by_its_size() {
    let dir = scratch("size");
    let path = dir.join("g.txt");
    // 10 lines of "0 1\n": 40 bytes, over a limit of 39.
    std::fs::write(&path, "0 1\n".repeat(10)).unwrap();
    let message = read_graph_within(&path, &limits(39, 1024, u64::MAX))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("has 40 bytes or more, over the 39-byte limit"),
        "{message}"
    );
    assert!(read_graph_within(&path, &limits(40, 1024, u64::MAX)).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
    // A stream that turns out longer than the limit (a file that grew) is caught while reading:
    // the limit is crossed on line 10 (bytes 37..=40).
    let message = read_edge_list_within(
        Cursor::new("0 1\n".repeat(20)),
        "e.txt",
        &limits(39, 1024, u64::MAX),
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("'e.txt' has 40 bytes or more"),
        "{message}"
    );
}

#[test]
fn a_line_over_the_line_limit_is_refused_at_its_line() {
    let text = format!("0 1\n1 {}\n", "2".repeat(100));
    let message = read_edge_list_within(
        Cursor::new(text.clone()),
        "e.txt",
        &limits(1 << 20, 64, u64::MAX),
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.starts_with("e.txt:2: line longer than 64 bytes"),
        "{message}"
    );
    // Exactly at the limit is fine (a syntax error here, since the id is too long for a u32).
    let message =
        read_edge_list_within(Cursor::new(text), "e.txt", &limits(1 << 20, 102, u64::MAX))
            .unwrap_err()
            .to_string();
    assert!(
        message.starts_with("e.txt:2: expected a second vertex id"),
        "{message}"
    );
    // With the default limits, a line of zero bytes without a newline (what /dev/zero or a sparse
    // file reads as) stops after 1 MiB.
    let zeros = vec![0u8; (1 << 20) + 10];
    let message = read_matrix_market(Cursor::new(zeros), "z.mtx")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("z.mtx:1: line longer than 1048576 bytes"),
        "{message}"
    );
}

#[test]
fn a_graph_over_the_memory_budget_is_refused_at_the_line_that_crosses_it() {
    // 3 edges over 4 vertices need 3·512 + 4·128 = 2048 bytes; the 4th edge (5 vertices) crosses.
    let budget = 3 * 512 + 4 * 128;
    assert_eq!(
        Footprint {
            vertices: 4,
            edges: 3
        }
        .bytes(),
        budget
    );
    let text = "0 1\n1 2\n2 3\n3 4\n";
    let message = read_edge_list_within(Cursor::new(text), "e.txt", &limits(1 << 20, 1024, budget))
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("e.txt:4: partitioning 5 vertices and 4 edges needs about"),
        "{message}"
    );
    assert!(
        message.contains(
            "more than the 2048 B limit; partition a smaller graph (at most 2 edges fit)"
        ),
        "{message}"
    );
    // An id past the vertex limit is refused on its line, not after the whole file.
    let message = read_edge_list_within(
        Cursor::new("0 1\n0 134217728\n"),
        "e.txt",
        &Limits::of_this_machine(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.starts_with("e.txt:2: vertex id 134217728"),
        "{message}"
    );
    assert!(
        message.contains("number the vertices compactly"),
        "{message}"
    );
}

#[test]
fn a_matrix_market_size_line_promising_too_much_is_refused_before_reading_entries() {
    // 2^31 entries need 1 TiB at 512 B each, over the fixed limit on any machine; the file holds
    // two. The old reader read to the end and complained of missing entries.
    let text = "%%MatrixMarket matrix coordinate pattern general\n1000 1000 2147483648\n1 1\n2 2\n";
    let message = read_matrix_market(Cursor::new(text), "m.mtx")
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("m.mtx:2: partitioning 2000 vertices and 2147483648 edges"),
        "{message}"
    );
    // A plausible size line with few entries still reads them (the reservation is capped).
    let text = "%%MatrixMarket matrix coordinate pattern general\n1000 1000 3000000\n1 1\n2 2\n";
    let message = read_matrix_market(Cursor::new(text), "m.mtx")
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("expected 3000000 entries, found 2"),
        "{message}"
    );
}

#[test]
fn generator_specs_are_refused_by_their_footprint_before_generating() {
    // 64,000,000 vertices and 127,984,000 edges: 68.7 GiB, over the 64 GiB limit everywhere.
    let message = from_spec("mesh2d:8000x8000").unwrap_err();
    assert!(message.contains("needs about 68.7 GiB"), "{message}");
    // With little memory available, the available memory is the bound named.
    let small = MemoryBudget {
        limit: MAX_PARTITION_BYTES,
        available: Some(1 << 30),
    };
    let message = from_spec_within("mesh2d:1000x1000", small).unwrap_err();
    assert!(
        message.contains("more than the 1.0 GiB of memory available (MemAvailable)"),
        "{message}"
    );
    assert!(from_spec_within("mesh2d:100x100", small).is_ok());
    // The counts' own limits come first: a clique of 10^5 has 5·10^9 edges.
    let message = from_spec("clique:100000").unwrap_err();
    assert!(message.contains("exceed the limits"), "{message}");
}

#[test]
#[should_panic(expected = "exceed the generators' limits")]
fn a_generator_called_directly_panics_before_allocating() {
    clique(100_000);
}

#[test]
fn mem_available_is_read_in_bytes() {
    let meminfo =
        "MemTotal:       24684200 kB\nMemFree:        9573876 kB\nMemAvailable:   23894736 kB\n";
    assert_eq!(mem_available(meminfo), Some(23_894_736 * 1024));
    assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
}
