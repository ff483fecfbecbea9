//! Reading Matrix Market and edge-list files: the SpMV graph of each symmetry, and one-line errors
//! that point at the exact physical line.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use grape::graph::{Graph, MatrixShape};
use grape::input::{read_edge_list, read_graph, read_matrix_market, Found, InputError};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn mtx(text: &str) -> Result<Graph, InputError> {
    read_matrix_market(Cursor::new(text.as_bytes()), "a.mtx")
}

fn edge_list(text: &str) -> Result<Graph, InputError> {
    read_edge_list(Cursor::new(text.as_bytes()), "e.txt")
}

fn message(result: Result<Graph, InputError>) -> String {
    let text = result.expect_err("the input is malformed").to_string();
    assert!(!text.contains('\n'), "messages are one line: {text}");
    text
}

/// Each input's error message as `read` gives it.
fn assert_messages(read: fn(&str) -> Result<Graph, InputError>, cases: &[(&str, &str)]) {
    for &(input, expected) in cases {
        assert_eq!(message(read(input)), expected, "input {input:?}");
    }
}

#[test]
fn general_matrix_from_file_is_the_spmv_graph_in_file_order() {
    let graph = read_graph(&data("general.mtx")).unwrap();
    // 3 rows: y = vertices 0..3, x = vertices 3..7; nonzero (r, c) 1-based is edge (r-1, 3 + c-1).
    assert_eq!(graph.vertices, 7);
    assert_eq!(graph.edges, vec![(0, 3), (1, 5), (2, 6), (0, 6), (2, 4)]);
    assert_eq!(graph.matrix, Some(MatrixShape { rows: 3, cols: 4 }));
    assert_eq!(graph.coords, None);
}

#[test]
fn symmetric_matrix_mirrors_off_diagonal_entries_right_after_them() {
    let graph = read_graph(&data("symmetric.mtx")).unwrap();
    // Entries (1,1) (2,1) (3,2) (3,3): the diagonal once, (2,1) then its mirror (1,2), and so on.
    assert_eq!(graph.vertices, 6);
    assert_eq!(
        graph.edges,
        vec![(0, 3), (1, 3), (0, 4), (2, 4), (1, 5), (2, 5)]
    );
    assert_eq!(graph.matrix, Some(MatrixShape { rows: 3, cols: 3 }));
}

#[test]
fn pattern_entries_have_no_values() {
    let graph = mtx("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n").unwrap();
    assert_eq!(graph.vertices, 5);
    assert_eq!(graph.edges, vec![(0, 4), (1, 2)]);
    let text = message(mtx(
        "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3 1.0\n",
    ));
    assert_eq!(text, "a.mtx:3: expected end of line, found '1.0'");
}

#[test]
fn banner_keywords_are_case_insensitive_and_crlf_is_accepted() {
    let graph = read_graph(&data("lowercase_banner.mtx")).unwrap();
    assert_eq!(graph.edges, vec![(0, 3), (1, 2)]);
    assert_eq!(graph.matrix, Some(MatrixShape { rows: 2, cols: 2 }));
}

#[test]
fn complex_hermitian_needs_two_values_and_mirrors() {
    let text =
        "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2.0 0\n2 1 1.0 -1.5\n";
    let graph = mtx(text).unwrap();
    assert_eq!(graph.edges, vec![(0, 2), (1, 2), (0, 3)]);
    let missing = "%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1.0\n";
    assert_eq!(
        message(mtx(missing)),
        "a.mtx:3: expected a real and an imaginary part, found end of line"
    );
}

#[test]
fn skew_symmetric_mirrors_like_symmetric() {
    let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3.0\n3 1 -1\n";
    let graph = mtx(text).unwrap();
    assert_eq!(graph.vertices, 6);
    assert_eq!(graph.edges, vec![(1, 3), (0, 4), (2, 3), (0, 5)]);
}

#[test]
fn missing_or_non_numeric_values_are_errors() {
    assert_messages(
        mtx,
        &[
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 abc\n",
                "a.mtx:4: expected a real value, found 'abc'",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
                "a.mtx:3: expected a real value, found end of line",
            ),
            (
                "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                "a.mtx:3: expected an integer value, found '1.5'",
            ),
        ],
    );
}

#[test]
fn comments_and_blank_lines_anywhere_after_the_banner_are_skipped() {
    let text =
        "%%MatrixMarket matrix coordinate pattern general\n\n% c\n  \n2 2 1\n%\n\n1 2\n% end\n\n";
    let graph = mtx(text).unwrap();
    assert_eq!(graph.edges, vec![(0, 3)]);
}

#[test]
fn out_of_bounds_row_names_its_physical_line() {
    let text = message(read_graph(&data("bad_entry.mtx")));
    let file = data("bad_entry.mtx").display().to_string();
    assert_eq!(
        text,
        format!("{file}:6: expected a row index in 1..=5, found '9'")
    );
}

#[test]
fn out_of_bounds_column_and_zero_index_are_errors() {
    let head = "%%MatrixMarket matrix coordinate real general\n% comment\n5 4 2\n1 1 1\n";
    let (zero, wide, negative) = (
        format!("{head}0 1 1\n"),
        format!("{head}2 5 1\n"),
        format!("{head}2 -1 1\n"),
    );
    assert_messages(
        mtx,
        &[
            (&zero, "a.mtx:5: expected a row index in 1..=5, found '0'"),
            (
                &wide,
                "a.mtx:5: expected a column index in 1..=4, found '5'",
            ),
            (
                &negative,
                "a.mtx:5: expected a column index in 1..=4, found '-1'",
            ),
        ],
    );
}

#[test]
fn fewer_entries_than_declared_is_an_error_at_the_end() {
    let text = "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2\n";
    let error = mtx(text).unwrap_err();
    assert!(matches!(
        error,
        InputError::MissingEntries {
            expected: 3,
            found: 2,
            ..
        }
    ));
    assert!(
        error
            .to_string()
            .starts_with("a.mtx:4: expected 3 entries, found 2"),
        "{error}"
    );
}

#[test]
fn more_entries_than_declared_is_an_error_on_the_extra_line() {
    let text = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2\n% c\n3 3\n";
    assert_eq!(
        message(mtx(text)),
        "a.mtx:6: expected no more entries (the size line declares 2), found '3'"
    );
}

#[test]
fn dense_array_format_is_rejected_with_the_fix() {
    let error = read_graph(&data("dense.mtx")).unwrap_err();
    assert!(
        matches!(error, InputError::Unsupported { line: 1, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("array") && text.contains("use the coordinate format"),
        "{text}"
    );
}

#[test]
fn malformed_banner_and_size_lines() {
    assert_messages(
        mtx,
        &[
            (
                "%%MatrixMarket matrix coordinate real diagonal\n",
                "a.mtx:1: expected a symmetry ('general', 'symmetric', 'skew-symmetric', \
                 'hermitian'), found 'diagonal'",
            ),
            (
                "%%MatrixMarket vector coordinate real general\n",
                "a.mtx:1: expected an object ('matrix'), found 'vector'",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n% only comments\n",
                "a.mtx:2: expected a size line 'rows columns entries', found end of file",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n3 3\n",
                "a.mtx:2: expected an entry count, found end of line",
            ),
        ],
    );
    let rectangular = message(mtx(
        "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n",
    ));
    assert!(
        rectangular.starts_with("a.mtx:2: ") && rectangular.contains("square"),
        "{rectangular}"
    );
    let huge = message(mtx(
        "%%MatrixMarket matrix coordinate real general\n4294967295 1 0\n",
    ));
    assert!(
        huge.starts_with("a.mtx:2: ") && huge.contains("vertices"),
        "{huge}"
    );
}

#[test]
fn an_empty_matrix_has_vertices_but_no_edges() {
    let graph = mtx("%%MatrixMarket matrix coordinate real general\n2 3 0\n").unwrap();
    assert_eq!(graph.vertices, 5);
    assert!(graph.edges.is_empty());
}

#[test]
fn edge_list_file_skips_comments_and_counts_vertices_from_the_largest_id() {
    let graph = read_graph(&data("edges.txt")).unwrap();
    assert_eq!(graph.vertices, 8);
    assert_eq!(graph.edges, vec![(0, 1), (1, 2), (2, 7)]);
    assert_eq!(graph.matrix, None);
}

#[test]
fn edge_list_accepts_tabs_crlf_and_self_loops_in_line_order() {
    let graph = edge_list("3\t1\r\n  # indented comment\r\n1 1\r\n0   3").unwrap();
    assert_eq!(graph.vertices, 4);
    assert_eq!(graph.edges, vec![(3, 1), (1, 1), (0, 3)]);
}

#[test]
fn malformed_edge_lines_name_their_line() {
    let id = "vertex id in 0..=4294967294";
    let cases = [
        (
            "0 1\n# c\n1 x\n",
            format!("e.txt:3: expected a second {id}, found 'x'"),
        ),
        (
            "0 1\n1 2 3\n",
            "e.txt:2: expected end of line, found '3'".to_string(),
        ),
        (
            "\n\n7\n",
            format!("e.txt:3: expected a second {id}, found end of line"),
        ),
        ("-1 2\n", format!("e.txt:1: expected a {id}, found '-1'")),
        (
            "4294967295 0\n",
            format!("e.txt:1: expected a {id}, found '4294967295'"),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(i, e)| (*i, e.as_str())).collect();
    assert_messages(edge_list, &cases);
}

#[test]
fn an_edge_list_without_edges_is_an_error() {
    let error = edge_list("# nothing here\n\n").unwrap_err();
    assert!(matches!(error, InputError::NoEdges { .. }));
    assert!(error.to_string().contains("no edges"), "{error}");
    assert!(message(edge_list("")).starts_with("e.txt: no edges"));
}

#[test]
fn long_tokens_are_cut_in_messages() {
    let long = "9".repeat(100);
    let error = edge_list(&format!("{long} 1\n")).unwrap_err();
    match &error {
        InputError::Unexpected {
            found: Found::Token(token),
            ..
        } => {
            assert_eq!(
                token.chars().count(),
                41,
                "40 characters and an ellipsis: {token}"
            );
            assert!(token.starts_with(&"9".repeat(40)) && token.ends_with('…'));
        }
        other => panic!("expected an Unexpected error, got {other:?}"),
    }
}

#[test]
fn missing_file_names_the_path_and_the_fix() {
    let path = data("no-such-graph.mtx");
    let error = read_graph(&path).unwrap_err();
    assert!(matches!(error, InputError::Open { .. }));
    let text = error.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("check the path"), "{text}");
    assert!(std::error::Error::source(&error).is_some());
}
