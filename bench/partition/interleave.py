"""GRAPE's time against NE's on one graph, runs interleaved: for R rounds, one GRAPE run (through
grape/examples/partition_one, read + partition + write, as bench.py runs it) and one NE run (HEP's `main
-method ne`, on a private copy of the edge list, converting the text itself), each under /usr/bin/time.
Prints every round's CPU seconds (user + system) and the medians, and GRAPE's median over NE's.

On a machine shared with other jobs the load changes over minutes, so two medians measured minutes apart
compare the load as much as the partitioners; runs taken in turn see the same load. The partitions are
not recounted (bench.py does that); only the time is measured.

    .partitioners/venv/bin/python bench/partition/interleave.py GRAPH K [--rounds=5] [--grape=PATH]

GRAPH: a family name as bench.py names its graphs (delaunay3d-100k, 4elt, ...), generated into work/ on
first use. --grape: another partition_one binary (an older build, say), to compare two versions against
the same NE runs.
"""
import argparse
import os
import statistics
import sys

sys.dont_write_bytecode = True  # importing bench.py must not leave a __pycache__ in the tree
import bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph", help="e.g. delaunay3d-100k, 4elt")
    ap.add_argument("k", type=int)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--grape", action="append", default=[],
                    help="partition_one binaries to time (default: target/release/examples/partition_one)")
    a = ap.parse_args()
    family, _, size = a.graph.rpartition("-")
    if family not in bench.FAMILIES:
        family, size = a.graph, "100k"
    if family not in bench.FAMILIES or size not in bench.SIZES:
        raise SystemExit(f"interleave: unknown graph '{a.graph}' (families: {', '.join(bench.FAMILIES)})")
    os.makedirs(bench.WORK, exist_ok=True)
    _, edges, grape_input = bench.graph_files(family, size)
    grapes = a.grape or [os.path.join(bench.EXAMPLES, "partition_one")]
    out = os.path.join(bench.WORK, "interleave.u32")
    cpu = {g: [] for g in grapes}
    cpu["ne"] = []
    for r in range(1, a.rounds + 1):
        line = []
        for g in grapes:
            code, text, _, _, s = bench.timed([g, grape_input, str(a.k), "grape", "1", out], 600)
            if code != 0:
                raise SystemExit(f"interleave: {g} failed: {text.strip()[-300:]}")
            cpu[g].append(s)
            line.append(f"{os.path.basename(os.path.dirname(g)) if a.grape else 'grape'} {s:.2f}")
        row = bench.run_hep_main("ne", edges, a.k, 600)
        if row["status"] != "ok":
            raise SystemExit(f"interleave: NE failed: {row['detail']}")
        cpu["ne"].append(row["cpu_s"])
        print(f"round {r}: " + ", ".join(line) + f", ne {row['cpu_s']:.2f} CPU s", flush=True)
    ne = statistics.median(cpu["ne"])
    print(f"{a.graph} k={a.k}, {a.rounds} rounds, CPU s medians: NE {ne:.2f}")
    for g in grapes:
        m = statistics.median(cpu[g])
        print(f"  {g}: {m:.2f}, {m / ne:.2f}x NE")


if __name__ == "__main__":
    main()
