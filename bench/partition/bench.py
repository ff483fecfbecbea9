"""bench/partition/run's work: GRAPE against the edge partitioners it must beat, every result recounted
independently under exact balance. See bench/partition/README.md for what is measured and how.

For every (graph, k): GRAPE and vertex-greedy through grape/examples/partition_one, NE (3 runs: it seeds
itself from random_device; the median C counts) and HEP with tau = 10 through HEP's own `main`, each
under /usr/bin/time (wall seconds, peak RSS), each partition recounted by grape/examples/recount
(C, RF, loads; a partition that is not exactly balanced is rebalanced by best C-gain moves and counted
again: cost_exact). Rows go to results.csv under a label (rows of the same label are replaced), and
summary.md gets one section per label.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(HERE, "work")
HEP = os.path.join(TOP, ".partitioners", "hep", "release", "main")
EXAMPLES = os.path.join(TOP, "target", "release", "examples")
RESULTS = os.path.join(HERE, "results.csv")
SUMMARY = os.path.join(HERE, "summary.md")

FAMILIES = ["delaunay2d", "delaunay3d", "grid", "road", "4elt", "copter2", "4elt-spmv", "ba", "rmat"]
FIXED = {"4elt", "copter2", "4elt-spmv"}  # METIS's sample graphs come at their own size
SIZES = {"100k": 100_000, "1M": 1_000_000, "10M": 10_000_000}
METHODS = ["grape", "vertex-greedy", "ne", "hep"]
ANCHORS = ["vertex-greedy", "ne", "hep"]
FIELDS = ["label", "family", "size", "m", "vertices", "k", "method", "run", "status", "cost", "rf",
          "max_load", "min_load", "balanced", "moves", "cost_exact", "rf_exact", "wall_s", "algo_s",
          "rss_mib", "detail", "cpu_s"]


def graph_files(family, size):
    """The edge list (and GRAPE's input: the .mtx for 4elt-spmv), generated on first use."""
    name = family if family in FIXED else f"{family}-{size}"
    edges = os.path.join(WORK, "graphs", f"{name}.txt")
    if not os.path.exists(edges):
        os.makedirs(os.path.dirname(edges), exist_ok=True)
        print(f"  generating {name}", flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, "graphs.py"), family, str(SIZES[size]), "1",
                        edges + ".part.txt"], check=True)
        if family == "4elt-spmv":
            os.replace(edges + ".part.mtx", edges[: -len(".txt")] + ".mtx")
        os.replace(edges + ".part.txt", edges)
    grape_input = edges[: -len(".txt")] + ".mtx" if family == "4elt-spmv" else edges
    return name, edges, grape_input


def timed(cmd, timeout, cwd=None):
    """Runs cmd under /usr/bin/time: (returncode, stdout+stderr, wall seconds, peak RSS MiB, CPU
    seconds user + system). Every partitioner here is one thread, so on a machine shared with other
    jobs the CPU seconds are what it cost; the wall seconds include the waiting."""
    stats = os.path.join(WORK, "time.txt")
    try:
        p = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%e %M %U %S"] + cmd, cwd=cwd,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", float(timeout), 0.0, float(timeout)
    wall, rss, cpu = 0.0, 0.0, 0.0
    with open(stats) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].replace(".", "").isdigit():
                wall, rss = float(parts[0]), float(parts[1]) / 1024
                cpu = float(parts[2]) + float(parts[3])
    return p.returncode, p.stdout + p.stderr, wall, rss, cpu


def recount(edges, k, fmt, path):
    p = subprocess.run([os.path.join(EXAMPLES, "recount"), edges, str(k), fmt, path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return dict(kv.split("=", 1) for kv in p.stdout.split())


def log_value(text, key):
    for line in text.splitlines():
        if key in line:
            return line.rsplit(":", 1)[-1].strip()
    return ""


def run_grape_lib(method, grape_input, edges, k, timeout):
    out = os.path.join(WORK, "part.u32")
    code, text, wall, rss, cpu = timed([os.path.join(EXAMPLES, "partition_one"), grape_input, str(k), method,
                                        "1", out], timeout)
    if code != 0:
        return {"status": "failed", "detail": text.strip().splitlines()[-1] if text.strip() else f"exit {code}",
                "wall_s": wall, "rss_mib": rss, "cpu_s": cpu}
    fields = dict(kv.split("=", 1) for kv in text.split("\n")[0].split(" ", 2))
    row = recount(edges, k, "u32", out)
    row.update(status="ok", wall_s=wall, rss_mib=rss, cpu_s=cpu, algo_s=fields.get("seconds", ""),
               detail=fields.get("detail", ""))
    return row


def run_hep_main(method, edges, k, timeout):
    """NE or HEP (tau = 10) on a private copy of the edge list, so that its converted binary and its
    output never mix with another run's. The text is converted inside every run, as GRAPE reads
    text every run."""
    scratch = os.path.join(WORK, "hep-run")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    local = os.path.join(scratch, "g.txt")
    os.symlink(edges, local)
    cmd = [HEP, "-method", method, "-p", str(k), "-filename", local, "-write_results"]
    if method == "hep":
        cmd += ["-hdf", "10"]
    code, text, wall, rss, cpu = timed(cmd, timeout, cwd=scratch)
    result = f"{local}.edgepart.{k}"
    if code != 0 or not os.path.exists(result):
        last = [l for l in text.strip().splitlines() if "Check failed" in l or "FATAL" in l or "rror" in l]
        return {"status": "failed", "detail": (last or [f"exit {code}"])[-1][-160:], "wall_s": wall,
                "rss_mib": rss, "cpu_s": cpu}
    row = recount(edges, k, "edgepart", result)
    row.update(status="ok", wall_s=wall, rss_mib=rss, cpu_s=cpu, algo_s=log_value(text, "time used for partitioning"),
               detail="tau=10" if method == "hep" else "")
    shutil.rmtree(scratch, ignore_errors=True)
    return row


def load_rows():
    if not os.path.exists(RESULTS):
        return []
    with open(RESULTS) as f:
        return list(csv.DictReader(f))


def save_rows(rows):
    with open(RESULTS, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def fmt_int(x):
    return f"{int(float(x)):,}" if x not in ("", None) else "—"


def median_row(rows):
    """The run with the median cost_exact (NE's 3 runs); the only run otherwise."""
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        return rows[0] if rows else None
    ok.sort(key=lambda r: int(r["cost_exact"]))
    return ok[(len(ok) - 1) // 2]


def seconds(row, cpu=None):
    """What a run cost in time: its CPU seconds where recorded (see timed), else its wall seconds;
    `cpu` forces one or the other."""
    if cpu is None:
        cpu = bool(row.get("cpu_s"))
    return float(row["cpu_s"]) if cpu else float(row["wall_s"])


def summarise(rows, labels_order):
    out = ["# GRAPE against the edge partitioners\n",
           "Written by `bench/partition/run` (see `bench/partition/README.md`). C is recounted by",
           "`grape/examples/recount` under exact balance: a result that is not exactly balanced (every",
           "part ⌊m/k⌋ or ⌈m/k⌉ edges) is rebalanced by best C-gain moves first (`moves` > 0, marked *).",
           "NE: median of 3 runs (random seeds). HEP: τ = 10. Anchors: vertex-greedy (METIS vertex",
           "partition + greedy cut-edge assignment + exact rebalance), NE, HEP. Ratio = GRAPE C / best",
           "anchor C (goal ≤ 1.00). Time: seconds of the whole process (read text, partition, write),",
           "CPU (user + system) where the row records it, else wall; every partitioner here is one thread,",
           "so the CPU seconds are what it cost on a machine shared with other jobs, the wall seconds",
           "include the waiting. Memory: peak RSS (`/usr/bin/time`). Machine: 2 cores, 24 GiB, shared",
           "with other jobs (builds, tests; load 2–11 on 2 cores during label `after`'s runs): memory is not",
           "affected, CPU seconds little, wall seconds much.\n"]
    for label in labels_order:
        lr = [r for r in rows if r["label"] == label]
        anchor_rows = [r for r in rows if r["method"] != "grape"]
        keys = []
        for r in lr:
            key = (str(r["family"]), str(r["size"]), str(r["k"]))
            if key not in keys:
                keys.append(key)
        sizes = list(SIZES)
        keys.sort(key=lambda t: (sizes.index(t[1]), FAMILIES.index(t[0]), int(t[2])))
        out.append(f"## {label}\n")
        out.append("| graph | m | k | GRAPE C | vertex-greedy C | NE C | HEP C | ratio | time / NE | memory / NE | "
                   "GRAPE s / MiB | vertex-greedy s / MiB | NE s / MiB | HEP s / MiB |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        worst = {}
        worst_cost = {}
        for fam, size, k in keys:
            picked = {}
            ne_runs = []
            for method in METHODS:
                own = [r for r in lr if (r["family"], r["size"], r["k"], r["method"]) == (fam, size, k, method)]
                if not own and method != "grape":
                    # Anchors do not change with GRAPE: reuse the latest label that ran them.
                    others = [r for r in anchor_rows if (r["family"], r["size"], r["k"], r["method"])
                              == (fam, size, k, method)]
                    latest = others[-1]["label"] if others else None
                    own = [r for r in others if r["label"] == latest]
                picked[method] = median_row(own)
                if method == "ne":
                    ne_runs = [r for r in own if r["status"] == "ok"]
            g = picked.get("grape")
            # Cost ratios to NE: GRAPE's wall seconds and peak RSS over the medians of NE's runs.
            time_ratio = mem_ratio = ""
            if g and g["status"] == "ok" and ne_runs:
                # CPU seconds only where GRAPE's run and every NE run recorded them.
                cpu = all(r.get("cpu_s") for r in [g] + ne_runs)
                t = seconds(g, cpu) / max(statistics.median(seconds(r, cpu) for r in ne_runs), 1e-9)
                mem = float(g["rss_mib"]) / max(statistics.median(float(r["rss_mib"]) for r in ne_runs), 1e-9)
                time_ratio, mem_ratio = f"{t:.2f}", f"{mem:.2f}"
                prev = worst_cost.get(fam, (0.0, "", 0.0, ""))
                worst_cost[fam] = (max(prev[0], t), f"{size}, k={k}" if t > prev[0] else prev[1],
                                   max(prev[2], mem), f"{size}, k={k}" if mem > prev[2] else prev[3])
            m = next((r["m"] for r in picked.values() if r and r.get("m")), "")

            def c(method):
                r = picked.get(method)
                if not r:
                    return "—"
                if r["status"] != "ok":
                    return "failed"
                star = "*" if int(r["moves"] or 0) > 0 else ""
                return fmt_int(r["cost_exact"]) + star

            def tm(method):
                r = picked.get(method)
                if not r or r["status"] != "ok":
                    return "—"
                return f"{seconds(r):.2f} / {float(r['rss_mib']):.0f}"

            anchors = [int(picked[a]["cost_exact"]) for a in ANCHORS
                       if picked.get(a) and picked[a]["status"] == "ok"]
            ratio = ""
            if g and g["status"] == "ok" and anchors:
                value = int(g["cost_exact"]) / max(min(anchors), 1)
                ratio = f"{value:.2f}"
                name = fam if fam in FIXED else f"{fam}"
                prev = worst.get(name)
                if prev is None or value > prev[0]:
                    worst[name] = (value, f"{size}, k={k}")
            graph = fam if fam in FIXED else f"{fam}-{size}"
            out.append(f"| {graph} | {fmt_int(m)} | {k} | {c('grape')} | {c('vertex-greedy')} | {c('ne')} | "
                       f"{c('hep')} | {ratio or '—'} | {time_ratio or '—'} | {mem_ratio or '—'} | {tm('grape')} | {tm('vertex-greedy')} | {tm('ne')} | "
                       f"{tm('hep')} |")
        if worst:
            out.append("\nWorst ratios per family: GRAPE C / best anchor C (three decimals), GRAPE's time "
                       "(CPU seconds where GRAPE's and NE's rows record them, else wall) and peak memory / the "
                       "medians of NE's runs:\n")
            out.append("| family | C ratio | at | time / NE | at | memory / NE | at |")
            out.append("|---|---:|---|---:|---|---:|---|")
            for fam in FAMILIES:
                if fam in worst:
                    wc = worst_cost.get(fam, (0.0, "—", 0.0, "—"))
                    out.append(f"| {fam} | {worst[fam][0]:.3f} | {worst[fam][1]} | {wc[0]:.2f} | {wc[1]} | "
                               f"{wc[2]:.2f} | {wc[3]} |")
            overall = max(worst.values())
            line = f"\nOverall worst C ratio: **{overall[0]:.3f}**"
            if worst_cost:
                line += (f"; time / NE: **{max(w[0] for w in worst_cost.values()):.2f}**; memory / NE: "
                         f"**{max(w[2] for w in worst_cost.values()):.2f}**")
            out.append(line + ".\n")
    with open(SUMMARY, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", default="before")
    ap.add_argument("--sizes", default="100k", help="comma list of " + ", ".join(SIZES))
    ap.add_argument("--ks", default="32,256")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--methods", default=",".join(METHODS), help="anchors not run are taken from other labels")
    ap.add_argument("--ne-runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per run")
    ap.add_argument("--summary-only", action="store_true")
    a = ap.parse_args()
    rows = load_rows()
    if not a.summary_only:
        for tool in [os.path.join(EXAMPLES, "recount"), os.path.join(EXAMPLES, "partition_one")]:
            if not os.access(tool, os.X_OK):
                sys.exit(f"bench: {tool} missing: cargo build --release -p gpucc-cache-grape --examples")
        methods = a.methods.split(",")
        if any(m in ("ne", "hep") for m in methods) and not os.access(HEP, os.X_OK):
            sys.exit(f"bench: {HEP} missing: run scripts/setup-partitioners")
        os.makedirs(WORK, exist_ok=True)
        done = set()
        for size in a.sizes.split(","):
            for fam in a.families.split(","):
                if fam in FIXED and (size != a.sizes.split(",")[0] or fam in done):
                    continue
                done.add(fam)
                name, edges, grape_input = graph_files(fam, size)
                for k in [int(x) for x in a.ks.split(",")]:
                    rows = [r for r in rows if not (r["label"] == a.label and r["family"] == fam
                                                    and r["size"] == size and r["k"] == str(k)
                                                    and r["method"] in methods)]
                    for method in methods:
                        runs = a.ne_runs if method == "ne" else 1
                        for i in range(1, runs + 1):
                            start = time.time()
                            if method in ("grape", "vertex-greedy"):
                                row = run_grape_lib(method, grape_input, edges, k, a.timeout)
                            else:
                                row = run_hep_main(method, edges, k, a.timeout)
                            row.update(label=a.label, family=fam, size=size, k=str(k), method=method, run=str(i))
                            rows.append(row)
                            print(f"  {name} k={k} {method}#{i}: {row['status']} C={row.get('cost_exact', '—')}"
                                  f" ({time.time() - start:.1f} s, {row.get('rss_mib', 0):.0f} MiB)"
                                  f" {row.get('detail', '')}", flush=True)
                            save_rows(rows)
    labels = []
    for r in rows:
        if r["label"] not in labels:
            labels.append(r["label"])
    summarise(rows, labels)
    print(f"bench: {RESULTS}, {SUMMARY}")


if __name__ == "__main__":
    main()
