#!/usr/bin/env python3
"""SuiteSparse:GraphBLAS (python-graphblas) on the suite's matrices: the CPU baseline of spk's
SpGEMM (C = A·A, or A·Aᵀ when A is not square, plus_times over f32, both phases timed) and
triangle counting (pattern of A + Aᵀ without the diagonal, L = its lower triangle,
sum of C<L> = L·Lᵀ over plus_pair, timed from A as spk's triangle_count is)."""
import argparse
import sys

import graphblas as gb

from common import load_csr, read_suite, result, time_runs, write_json


def spgemm(a, b):
    return a.mxm(b, gb.semiring.plus_times).new()


def triangles(a):
    s = a.ewise_add(a.T, gb.binary.pair).new(dtype=gb.dtypes.INT64)  # pattern of A + Aᵀ
    lower = gb.select.tril(s, -1).new()
    c = lower.mxm(lower.T, gb.semiring.plus_pair[gb.dtypes.INT64]).new(mask=lower.S)
    return c.reduce_scalar(gb.monoid.plus).new().value or 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--suite", required=True, help="resolved suite: one .mtx path a line")
    p.add_argument("--ops", default="spgemm,tc", help="comma list of spgemm, tc")
    p.add_argument("--threads", type=int, required=True, help="GraphBLAS threads (as spk's)")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--json", required=True)
    args = p.parse_args()
    gb.ss.config["nthreads"] = args.threads
    ops = args.ops.split(",")
    results = []
    for path in read_suite(args.suite):
        csr = load_csr(path)
        a = gb.io.from_scipy_sparse(csr)
        square = csr.shape[0] == csr.shape[1]
        if "spgemm" in ops:
            b = a if square else a.T.new()
            c = spgemm(a, b)
            times = time_runs(lambda: spgemm(a, b), args.warmup, args.reps)
            r = result("spgemm", path, times, rows=csr.shape[0], nnz=int(csr.nnz), result_nnz=int(c.nvals))
            print(f"graphblas spgemm {r['matrix']}: {r['median_s'] * 1e3:.3f} ms", file=sys.stderr)
            results.append(r)
        if "tc" in ops and square:
            count = triangles(a)
            times = time_runs(lambda: triangles(a), args.warmup, args.reps)
            r = result("tc", path, times, rows=csr.shape[0], nnz=int(csr.nnz), count=int(count))
            print(f"graphblas tc {r['matrix']}: {count} triangles, {r['median_s'] * 1e3:.3f} ms", file=sys.stderr)
            results.append(r)
    write_json(args.json, "python-graphblas", f"{gb.__version__} (SuiteSparse:GraphBLAS {'.'.join(map(str, gb.ss.about['library_version']))})",
               results, threads=args.threads)


if __name__ == "__main__":
    main()
