#!/usr/bin/env python3
"""SciPy's CSR @ dense (f32) on the suite's matrices: the CPU SpMM baseline of spk bench.

SciPy's sparse-dense product runs on one thread. B is uniform in [-1, 1], as in spk bench."""
import sys

import numpy as np
import scipy

from common import load_csr, read_suite, result, time_runs, width_args, write_json


def main():
    args, widths = width_args(__doc__, "comma list of dense widths")
    rng = np.random.default_rng(1)
    results = []
    for path in read_suite(args.suite):
        a = load_csr(path)
        for n in widths:
            b = rng.uniform(-1.0, 1.0, size=(a.shape[1], n)).astype(np.float32)
            times = time_runs(lambda: a @ b, args.warmup, args.reps)
            r = result("spmm", path, times, n=n, rows=a.shape[0], nnz=int(a.nnz))
            print(f"scipy spmm {r['matrix']} n={n}: {r['median_s'] * 1e3:.3f} ms", file=sys.stderr)
            results.append(r)
    write_json(args.json, "scipy", scipy.__version__, results, threads=1)


if __name__ == "__main__":
    main()
