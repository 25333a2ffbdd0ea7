"""Shared helpers of the comparison scripts: suite reading, matrix loading, timing, JSON."""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def width_args(description, width_help):
    """The command line of a baseline over a suite at several dense widths: (arguments, widths)."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", required=True, help="resolved suite: one .mtx path a line")
    p.add_argument("--n", default="32,128", help=width_help)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--json", required=True)
    args = p.parse_args()
    return args, [int(v) for v in args.n.split(",")]


def label(path):
    """The matrix name spk bench uses: the file name without .mtx / .mtx.gz / .spkb."""
    name = os.path.basename(path)
    for ext in (".mtx.gz", ".mtx", ".spkb"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def read_suite(path):
    """File paths of a resolved suite (one absolute path a line, '#' comments)."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out


def load_csr(path):
    """The matrix as f32 CSR with sorted indices and duplicates summed, as spk reads it."""
    a = sp.csr_matrix(scipy.io.mmread(path), dtype=np.float32)
    a.sum_duplicates()
    a.sort_indices()
    return a


def time_runs(body, warmup, reps):
    """Seconds of each of `reps` calls after `warmup` untimed ones."""
    for _ in range(warmup):
        body()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        body()
        times.append(time.perf_counter() - t0)
    return times


def result(op, path, times, **extra):
    r = {"op": op, "matrix": label(path), "source": path, "median_s": statistics.median(times), "times_s": times}
    r.update(extra)
    return r


def uniform(rng, rows, cols):
    """A dense f32 operand uniform in [-1, 1], as spk bench makes them."""
    return rng.uniform(-1.0, 1.0, size=(rows, cols)).astype(np.float32)


def measure(tool, op, path, body, args, results, **extra):
    """Times body (args.warmup untimed calls, then args.reps), appends the result and reports it on stderr."""
    r = result(op, path, time_runs(body, args.warmup, args.reps), **extra)
    width = f" n={extra['n']}" if "n" in extra else ""
    print(f"{tool} {op} {r['matrix']}{width}: {r['median_s'] * 1e3:.3f} ms", file=sys.stderr)
    results.append(r)


def write_json(path, tool, version, results, **extra):
    doc = {"tool": tool, "version": version, "results": results}
    doc.update(extra)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
