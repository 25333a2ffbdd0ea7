#!/usr/bin/env python3
"""SciPy's CSR @ dense (f32) on the suite's matrices: the CPU SpMM baseline of spk bench.

SciPy's sparse-dense product runs on one thread. B is uniform in [-1, 1], as in spk bench."""
import numpy as np
import scipy

from common import load_csr, measure, read_suite, uniform, width_args, write_json


def main():
    args, widths = width_args(__doc__, "comma list of dense widths")
    rng = np.random.default_rng(1)
    results = []
    for path in read_suite(args.suite):
        a = load_csr(path)
        for n in widths:
            b = uniform(rng, a.shape[1], n)
            measure("scipy", "spmm", path, lambda: a @ b, args, results, n=n, rows=a.shape[0], nnz=int(a.nnz))
    write_json(args.json, "scipy", scipy.__version__, results, threads=1)


if __name__ == "__main__":
    main()
