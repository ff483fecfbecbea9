//! `gpucc-cache locality` (issue 7 item 7): the LS(N, K) curves of Gupta,
//! Xiang and Zhou (MSPC 2013) from the kernel-level model's trace, checked
//! against the paper's qualitative findings on a 16×16-tiled matrix
//! multiplication that reads its tiles straight from global memory, and the
//! command's files and errors.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use common::*;

/// LS by (level, N, K), from the CSV `locality` wrote.
type Curves = HashMap<(String, u32, u64), f64>;

fn parse_csv(text: &str) -> Curves {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("level,N,K,LS"), "{text}");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 4, "{l}");
            (
                (
                    f[0].to_string(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                ),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

fn locality(args: &[&str]) -> std::process::Output {
    run(Command::new(driver()).arg("locality").args(args))
}

const NS: [u32; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const KS: [u64; 7] = [0, 4, 8, 16, 32, 64, 128];

fn matmul(dir: &Path) -> Curves {
    let csv = dir.join("mm.csv");
    let file = testdata("corpus").join("matmul_global_tiles.cu");
    let out = locality(&[
        file.to_str().unwrap(),
        "--kernel=matmul_tiles",
        "--cuda-gpu-arch=sm_90",
        "--kernel-arg=n=1024",
        "--grid-dim=64x64",
        &format!("--csv={}", csv.display()),
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    parse_csv(&std::fs::read_to_string(csv).unwrap())
}

#[test]
fn tiled_matmul_shows_the_papers_findings() {
    let dir = tempfile::tempdir().unwrap();
    let c = matmul(dir.path());
    assert_eq!(c.len(), 3 * NS.len() * KS.len());
    let ls = |level: &str, n: u32, k: u64| c[&(level.to_string(), n, k)];
    for level in ["warp", "block", "sm"] {
        for k in KS {
            for w in NS.windows(2) {
                // A larger window or distance never finds less.
                assert!(ls(level, w[0], k) <= ls(level, w[1], k), "{level} {k}");
            }
        }
    }
    // A warp is two block rows of 16 threads. An A load: the 16 lanes of a
    // row read one element, so 30 of its 32 lane accesses are followed at
    // once by the same address. A B load: lanes l and l + 16 read one
    // element, 16 addresses apart. Half the accesses are A's, so warp-level
    // temporal locality is ~30/64 at N = 1 and, once N reaches 16, B's
    // first halves add 16/64: ~46/64.
    assert!(ls("warp", 1, 0) > 0.45, "tile A reused within a warp");
    assert!(ls("warp", 16, 0) > 0.7);
    assert!(
        ls("warp", 1024, 0) < 0.75,
        "B's second halves find no reuse in their warp"
    );
    // Every block row reads the same row of B's tile: the 8 warps of the
    // block reuse each other's B addresses, which the warp level cannot see.
    // Greedy-then-oldest issue (issue 19) runs each warp's burst of an A
    // and a B load back to back, so between two warps' reads of one B
    // element fall the rest of a burst: 16 B addresses and an A address,
    // 17 distinct, more than N = 16. From N = 64 the block level sees them.
    assert!(ls("block", 16, 0) - ls("warp", 16, 0) < 0.01);
    for n in [64, 1024] {
        assert!(
            ls("block", n, 0) - ls("warp", n, 0) > 0.2,
            "rows of B across warps at N={n}"
        );
    }
    // The co-resident blocks (0, 132, 264, ... of a 64×64 grid) share no
    // tile: the SM-level curve stays close to the block level.
    for n in NS {
        for k in KS {
            let d = (ls("sm", n, k) - ls("block", n, k)).abs();
            assert!(d < 0.05, "sm vs block at N={n} K={k}: {d}");
        }
    }
}

#[test]
fn svg_draws_one_level_and_stdout_gets_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("warp.svg");
    let file = testdata("corpus").join("matmul_global_tiles.cu");
    let file = file.to_str().unwrap();
    let common = [file, "--kernel=matmul_tiles", "--kernel-arg=n=64"];
    let svg_flag = format!("--svg={}", svg.display());
    let out = locality(&[&common[..], &["--level=warp", &svg_flag]].concat());
    assert!(out.status.success(), "{}", text(&out).1);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.starts_with("<svg"),
        "{}",
        &picture[..80.min(picture.len())]
    );
    assert!(picture.contains("matmul_tiles - warp level"));
    // One legend entry per K.
    for k in KS {
        assert!(picture.contains(&format!("K = {k} B")), "K = {k}");
    }
    // No file asked for: the CSV goes to stdout, one level here.
    let out = locality(&[&common[..], &["--level=block"]].concat());
    assert!(out.status.success(), "{}", text(&out).1);
    let c = parse_csv(&text(&out).0);
    assert_eq!(c.len(), NS.len() * KS.len());
    assert!(c.keys().all(|(l, _, _)| l == "block"));
}

#[test]
fn bad_requests_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = testdata("corpus").join("matmul_global_tiles.cu");
    let file = file.to_str().unwrap();
    let svg = format!("--svg={}", dir.path().join("x.svg").display());
    let csv_on_input = format!("--csv={file}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![file], "choose one with --kernel=NAME"),
        (vec![file, "--kernel=nope"], "no kernel named 'nope'"),
        (
            vec![file, "--kernel=matmul_tiles", "--level=grid"],
            "invalid value 'grid' for --level",
        ),
        (
            vec![file, "--kernel=matmul_tiles", &svg],
            "--svg draws one level",
        ),
        (
            vec![file, "--kernel=matmul_tiles", "-o", "x"],
            "does not apply to locality",
        ),
        (vec!["/nonexistent/k.cu", "--kernel=k"], "/nonexistent/k.cu"),
        (
            vec![file, "--kernel=matmul_tiles", "--level=sm", &csv_on_input],
            "would overwrite the input",
        ),
    ];
    for (args, expected) in cases {
        let out = locality(&args);
        let (_, err) = text(&out);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(expected), "{args:?}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // The input is untouched.
    assert!(std::fs::read_to_string(file)
        .unwrap()
        .contains("matmul_tiles"));
}
