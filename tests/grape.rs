//! Issue 8: `gpucc-cache partition` (GRAPE) end to end: the methods' costs on
//! generated graphs, exact balance, the files a host program loads, errors,
//! and the measured effect on two kernels: the simulated L2→L1 traffic of
//! edge-per-thread SpMV and of a mesh edge-flux kernel, with the original
//! order and with GRAPE's, the index arrays bound with `--kernel-data`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

fn partition(args: &[&str]) -> (bool, String, String) {
    let out = run(Command::new(driver()).arg("partition").args(args));
    let (o, e) = text(&out);
    (out.status.success(), o, e)
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn read_i32(path: &Path) -> Vec<i32> {
    (std::fs::read(path).unwrap().chunks(4))
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_u32(path: &Path) -> Vec<u32> {
    (std::fs::read(path).unwrap().chunks(4))
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The 5-point Laplacian of an n x n grid with randomly numbered unknowns,
/// as a symmetric Matrix Market file (lower triangle stored).
fn laplacian(path: &Path, n: u64) {
    let cells = n * n;
    // A fixed random numbering: Fisher-Yates driven by xorshift64.
    let mut numbering: Vec<u64> = (0..cells).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..cells as usize).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        numbering.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let perm = |v: u64| numbering[v as usize];
    let mut entries = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let r = perm(i * n + j);
            entries.push((r, r, "4"));
            for (a, b) in [(i + 1, j), (i, j + 1)] {
                if a < n && b < n {
                    let c = perm(a * n + b);
                    entries.push((r.max(c), r.min(c), "-1"));
                }
            }
        }
    }
    entries.sort();
    let mut text = format!(
        "%%MatrixMarket matrix coordinate real symmetric\n% 5-point Laplacian, randomly numbered\n{cells} {cells} {}\n",
        entries.len()
    );
    for (r, c, v) in entries {
        text += &format!("{} {} {v}\n", r + 1, c + 1);
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn costs_on_a_randomly_numbered_mesh_and_a_scale_free_graph() {
    let dir = tempfile::tempdir().unwrap();
    // (graph, k, how far below the original order GRAPE must be: C·num < original·den)
    for (graph, k, num, den) in [
        ("gen:mesh2d:128x128", "64", 10, 1),
        ("gen:scalefree:20000:4", "64", 4, 3),
    ] {
        let j = dir.path().join("p.json");
        let (ok, table, err) =
            partition(&[graph, "--parts", k, &format!("--json={}", j.display())]);
        assert!(ok, "{err}");
        let r = json(&j);
        let m = &r["methods"];
        let edges = r["graph"]["edges"].as_u64().unwrap();
        let cost = |name: &str| m[name]["cost"].as_u64().unwrap();
        for name in ["grape", "vertex", "vertex-greedy", "original", "random"] {
            // Exact balance: every cluster m/k or m/k + 1 (m mod k of them).
            let (max, min) = (
                m[name]["max_load"].as_u64().unwrap(),
                m[name]["min_load"].as_u64().unwrap(),
            );
            assert_eq!(max, edges.div_ceil(64), "{graph} {name}");
            assert_eq!(min, edges / 64, "{graph} {name}");
            assert!(table.contains(name), "{table}");
        }
        assert!(cost("grape") <= cost("vertex"), "{graph}: {m:#}");
        // Issue 20: never worse than METIS vertex + greedy cut-edge assignment + exact rebalance.
        // On the mesh GRAPE's sparse mode runs that anchor itself and refines it, so C can only
        // tie or drop; the scale-free graph goes to the expansion, which has no such guarantee
        // and is checked here.
        assert!(cost("grape") <= cost("vertex-greedy"), "{graph}: {m:#}");
        assert!(cost("vertex-greedy") < cost("vertex"), "{graph}: {m:#}");
        assert!(
            cost("grape") * num < cost("original") * den,
            "{graph}: {m:#}"
        );
        assert!(cost("grape") * 2 < cost("random"), "{graph}: {m:#}");
    }
}

#[test]
fn json_directory_is_created_and_comment_lines_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.txt");
    // A 4-cycle with a SNAP-style header and one edge commented out: 3 comment lines.
    std::fs::write(&graph, "# 4 nodes\n# u v\n0 1\n1 2\n  % 2 3\n3 0\n").unwrap();
    let j = dir.path().join("new/deeper/p.json");
    let (ok, _, err) = partition(&[
        graph.to_str().unwrap(),
        "--parts=2",
        "--method=vertex-greedy",
        &format!("--json={}", j.display()),
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("skipped 3 comment lines"), "{err}");
    let r = json(&j);
    assert_eq!(r["graph"]["edges"], 3, "{r:#}");
    // The path 3-0-1-2 in two clusters of 2 and 1 edges: one vertex split, C = 1.
    assert_eq!(r["methods"]["vertex-greedy"]["cost"], 1, "{r:#}");
}

#[test]
fn the_files_are_the_chosen_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let j = dir.path().join("p.json");
    let (ok, _, err) = partition(&[
        "gen:mesh2d:40x40",
        "--block-dim=128",
        "--cuda-gpu-arch=sm_70",
        &format!("--out={}", out.display()),
        &format!("--json={}", j.display()),
    ]);
    assert!(ok, "{err}");
    let r = json(&j);
    let m = r["graph"]["edges"].as_u64().unwrap() as usize;
    let n = r["graph"]["vertices"].as_u64().unwrap() as usize;
    assert_eq!(m, 2 * 39 * 40);
    // sm_70: 80 SMs, 16 blocks of 128 threads each: clusters of 2048 threads.
    assert_eq!(r["launch"]["blocks_per_sm"], 16, "{r:#}");
    let parts = r["parts"].as_u64().unwrap() as usize;
    assert_eq!(parts, m.div_ceil(2048));
    let cluster = read_u32(&out.join("edge_cluster.u32"));
    let threads = read_i32(&out.join("thread_edge.i32"));
    assert_eq!(
        threads.len() as u64,
        r["launch"]["threads"].as_u64().unwrap()
    );
    assert_eq!(
        threads.len() as u64,
        r["launch"]["grid_dim"].as_u64().unwrap() * 128
    );
    // Every edge on exactly one thread, the rest padding.
    let mut seen = vec![0u32; m];
    for &e in &threads {
        if e >= 0 {
            seen[e as usize] += 1;
        } else {
            assert_eq!(e, -1);
        }
    }
    assert!(seen.iter().all(|&s| s == 1));
    // Thread t of block B runs on SM B mod 80 in wave B / 1280: its edge's
    // cluster is that SM's of that wave.
    for (t, &e) in threads.iter().enumerate() {
        if e >= 0 {
            let block = t / 128;
            let expect = (block / (80 * 16)) * 80 + block % 80;
            assert_eq!(cluster[e as usize] as usize, expect, "thread {t}");
        }
    }
    let order = read_u32(&out.join("vertex_order.u32"));
    let index = read_u32(&out.join("vertex_index.u32"));
    assert_eq!(order.len(), n);
    for (new, &old) in order.iter().enumerate() {
        assert_eq!(index[old as usize] as usize, new);
    }
    let (src, dst) = (
        read_i32(&out.join("src.i32")),
        read_i32(&out.join("dst.i32")),
    );
    assert_eq!(src.len(), threads.len());
    assert_eq!(
        src.iter()
            .zip(&threads)
            .filter(|(s, t)| (**s < 0) != (**t < 0))
            .count(),
        0
    );
    let _ = dst;
}

/// Simulated L2→L1 bytes (auto) and thread-accesses of `kernel` with the
/// files of `dir` bound and the launch of `report`.
fn simulate(kernel: &str, bind: &[(&str, PathBuf)], count_arg: &str, report: &Value) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    let launch = &report["launch"];
    let mut cmd = Command::new(driver());
    cmd.arg(testdata("corpus").join(kernel))
        .arg("--cuda-gpu-arch=sm_70")
        .arg("--block-dim=256")
        .arg(format!("--grid-dim={}", launch["grid_dim"]))
        .arg(format!("--kernel-arg={count_arg}={}", launch["threads"]))
        .arg("--cache-report=json")
        .arg(format!("--cache-report-file={}", r.display()))
        .arg("-o")
        .arg(dir.path().join("k.ptx"));
    for (name, file) in bind {
        cmd.arg(format!("--kernel-data={name}={}", file.display()));
    }
    let out = run(&mut cmd);
    assert!(out.status.success(), "{}", text(&out).1);
    let s = &json(&r)["kernels"][0]["simulated"];
    (
        s["traffic_bytes"]["auto"].as_u64().unwrap(),
        s["thread_accesses"].as_u64().unwrap(),
    )
}

/// Partitions `graph` for 256-thread blocks on sm_70 with `method`.
fn laid_out(graph: &str, method: &str, dir: &Path) -> (PathBuf, Value) {
    let out = dir.join(method);
    let j = dir.join(format!("{method}.json"));
    let (ok, _, err) = partition(&[
        graph,
        "--block-dim=256",
        "--cuda-gpu-arch=sm_70",
        &format!("--method={method}"),
        &format!("--methods={method}"),
        &format!("--out={}", out.display()),
        &format!("--json={}", j.display()),
    ]);
    assert!(ok, "{err}");
    (out, json(&j))
}

#[test]
fn grape_order_lowers_the_simulated_traffic_of_spmv() {
    let dir = tempfile::tempdir().unwrap();
    let mtx = dir.path().join("lap.mtx");
    laplacian(&mtx, 200);
    let graph = mtx.to_str().unwrap();
    let mut figures = Vec::new();
    for method in ["original", "grape"] {
        let (out, report) = laid_out(graph, method, dir.path());
        let bind = [("row", out.join("row.i32")), ("col", out.join("col.i32"))];
        figures.push(simulate("spmv_edge.cu", &bind, "nnz", &report));
    }
    let ((original, acc_o), (grape, acc_g)) = (figures[0], figures[1]);
    // The same work on SM 0: 8 blocks of 256 threads, 5 accesses each
    // (the few padding threads of the GRAPE cluster do fewer).
    assert_eq!(acc_o, 8 * 256 * 5);
    assert!(acc_g * 100 >= acc_o * 99, "{acc_g} vs {acc_o}");
    assert!(
        grape * 10 < original * 6,
        "GRAPE {grape} B, original {original} B"
    );
}

#[test]
fn grape_order_lowers_the_simulated_traffic_of_a_mesh_flux_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let mut figures = Vec::new();
    for method in ["original", "grape"] {
        let (out, report) = laid_out("gen:mesh2d:300x300", method, dir.path());
        let bind = [
            ("left", out.join("src.i32")),
            ("right", out.join("dst.i32")),
        ];
        figures.push(simulate("mesh_edge_flux.cu", &bind, "faces", &report));
    }
    let ((original, acc_o), (grape, acc_g)) = (figures[0], figures[1]);
    assert!(acc_g * 100 >= acc_o * 99, "{acc_g} vs {acc_o}");
    // Measured 40,992 B against 80,192 B (0.511) once the partition
    // minimised C itself (issue 20: the expansion candidate wins this mesh
    // on C); C is the objects shared between clusters, not the L1 traffic
    // of the 8 blocks one SM runs, so the two need not fall together. The
    // bound keeps the halving within a tenth.
    assert!(
        grape * 100 < original * 55,
        "GRAPE {grape} B, original {original} B"
    );
}

#[test]
fn bad_input_gets_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["/nonexistent/g.mtx", "--parts=2"],
            "/nonexistent/g.mtx",
        ),
        (vec![&bad, "--parts=2"], "bad.mtx:4:"),
        (vec!["gen:cycle:8", "--parts=9"], "at most 8"),
        (vec!["gen:cycle:8"], "--parts=K"),
        (
            vec!["gen:cycle:8", "--parts=2", "--method=metis"],
            "--method",
        ),
        (
            vec!["gen:cycle:8", "--block-dim=256", "--cuda-gpu-arch=sm_13"],
            "sm_13",
        ),
        (
            vec!["gen:cycle:8", "--parts=2", "--method=hilbert"],
            "coordinates",
        ),
        (vec!["gen:torus:8", "--parts=2"], "unknown graph generator"),
        (vec!["gen:cycle:8", "--parts=0"], "--parts"),
    ];
    for (args, needle) in cases {
        let (ok, _, err) = partition(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The input is never an output.
    let (ok, _, err) = partition(&[&bad, "--parts=2", &format!("--json={bad}")]);
    assert!(!ok && err.contains("overwrite"), "{err}");
    // Not even when its name is one of the files --out writes, or a hard link to one.
    let named = dir.path().join("src.i32");
    std::fs::write(&named, "0 1\n1 2\n2 3\n3 0\n").unwrap();
    let out = format!("--out={}", dir.path().display());
    let (ok, _, err) = partition(&[named.to_str().unwrap(), "--parts=2", &out]);
    assert!(
        !ok && err.contains("would overwrite the input graph"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&named).unwrap(),
        "0 1\n1 2\n2 3\n3 0\n"
    );
    let linked = dir.path().join("o");
    std::fs::create_dir(&linked).unwrap();
    std::fs::hard_link(&named, linked.join("thread_edge.i32")).unwrap();
    let out = format!("--out={}", linked.display());
    let (ok, _, err) = partition(&[named.to_str().unwrap(), "--parts=2", &out]);
    assert!(
        !ok && err.contains("would overwrite the input graph"),
        "{err}"
    );
    let json = format!("--json={}", linked.join("src.i32").display());
    let (ok, _, err) = partition(&["gen:cycle:8", "--parts=2", &out, &json]);
    assert!(!ok && err.contains("name the same file"), "{err}");
    // Declared sizes are checked before anything is allocated for them.
    let huge = dir.path().join("huge.mtx");
    std::fs::write(
        &huge,
        "%%MatrixMarket matrix coordinate pattern general\n2000000000 2000000000 2\n1 1\n2 2\n",
    )
    .unwrap();
    let (ok, _, err) = partition(&[huge.to_str().unwrap(), "--parts=2"]);
    assert!(
        !ok && err.contains("number the vertices compactly"),
        "{err}"
    );
    // A misspelled banner is a banner error, on line 1.
    let banner = dir.path().join("banner.mtx");
    std::fs::write(
        &banner,
        "%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n",
    )
    .unwrap();
    let (ok, _, err) = partition(&[banner.to_str().unwrap(), "--parts=1"]);
    assert!(!ok && err.contains("banner.mtx:1:"), "{err}");
    let (ok, _, err) = partition(&["gen:cycle:8", "--parts=2", "--parts=3"]);
    assert!(!ok && err.contains("given twice"), "{err}");
}

#[test]
fn a_cycle_split_in_two_costs_two() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("c.json");
    let (ok, _, err) = partition(&[
        "gen:cycle:12",
        "--parts=2",
        &format!("--json={}", j.display()),
    ]);
    assert!(ok, "{err}");
    let r = json(&j);
    assert_eq!(r["methods"]["grape"]["cost"], 2, "{r:#}");
    assert_eq!(r["methods"]["grape"]["max_load"], 6);
    assert_eq!(r["methods"]["grape"]["min_load"], 6);
}

/// Runs the driver with `args`, killed after 60 s (a FIFO read would block
/// forever), and checks a clean refusal: exit 1, no panic, one line of ours
/// that contains `expect` (the pattern of tests/errors.rs).
fn assert_refused_in_time(args: &[&str], expect: &str) {
    use std::time::{Duration, Instant};
    let mut child = Command::new(driver())
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gpucc-cache {args:?} still ran after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{args:?}:\n{err}");
    assert!(!err.contains("panicked"), "{args:?}:\n{err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line:\n{err}");
    assert!(
        err.starts_with("gpucc-cache: error: ") && err.contains(expect),
        "{args:?}: expected '{expect}' in:\n{err}"
    );
}

/// Issue 16 item 6: unbounded inputs. `/dev/zero` used to grow one line until
/// the allocator aborted, a FIFO blocked forever, `gen:mesh2d:8000x8000` set
/// out to take about 50 GB; each is now one line before anything large is read
/// or allocated.
#[test]
fn unbounded_inputs_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("graph.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Sparse files: their size costs no disk.
    let zeros = dir.path().join("zeros.txt");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let huge = dir.path().join("huge.txt");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(17 << 30)
        .unwrap();
    let promising = dir.path().join("promising.mtx");
    std::fs::write(
        &promising,
        "%%MatrixMarket matrix coordinate pattern general\n1000 1000 2147483648\n1 1\n2 2\n",
    )
    .unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let (fifo, zeros, huge, promising, here) = (
        path(&fifo),
        path(&zeros),
        path(&huge),
        path(&promising),
        path(dir.path()),
    );
    let cases: [(&str, &str); 8] = [
        (
            "/dev/zero",
            "'/dev/zero' is a character device, not a regular file",
        ),
        (&fifo, "is a FIFO (named pipe), not a regular file"),
        (&here, "is a directory, not a regular file"),
        (&zeros, "zeros.txt:1: line longer than 1048576 bytes"),
        (&huge, "over the 17179869184-byte limit for a graph file"),
        (
            &promising,
            "promising.mtx:2: partitioning 2000 vertices and 2147483648 edges",
        ),
        // 68.7 GiB and 80 GiB: over the 64 GiB limit on any machine.
        ("gen:mesh2d:8000x8000", "needs about 68.7 GiB"),
        ("gen:cycle:134217728", "needs about 80.0 GiB"),
    ];
    for (graph, expect) in cases {
        assert_refused_in_time(&["partition", graph, "--parts=2"], expect);
    }
}
