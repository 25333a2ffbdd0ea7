#!/usr/bin/env python3
"""NumPy and SciPy versions of spk bench's SDDMM and dot-product attention FusedMM (one head, f32): the CPU baselines
of those operations, written as a user of those libraries would, one thread.

  sddmm      out_p = a_p <X_i, Y_j> for each entry p = (i, j) of A (spk bench's scale_by_a)
  attention  s_p = <X_i, Y_j> / sqrt(k), a softmax over each row's entries, E = alpha Z (SciPy's CSR @ dense)

The dot products go through np.einsum over chunks of entries (a chunk's gathered X and Y rows stay in cache; one
einsum over all nnz entries holds two nnz x k arrays), the row maxima and sums through ufunc.reduceat. The entries' row
indices are built once per matrix, outside the timing, as spk's plan is. X, Y and Z are uniform in [-1, 1]."""
import math
import numpy as np
import scipy
import scipy.sparse as sp

from common import load_csr, measure, read_suite, uniform, width_args, write_json

CHUNK = 1 << 14  # entries a chunk: two 16Ki x k f32 gathers, 8 MiB at k = 128


def row_dots(rows, cols, x, y):
    """<X_rows[p], Y_cols[p]> for every entry p, chunk by chunk."""
    out = np.empty(rows.size, dtype=np.float32)
    for start in range(0, rows.size, CHUNK):
        stop = start + CHUNK
        out[start:stop] = np.einsum("ij,ij->i", x[rows[start:stop]], y[cols[start:stop]])
    return out


def sddmm(a, rows, x, y):
    return row_dots(rows, a.indices, x, y) * a.data


def attention(a, rows, starts, x, y, z):
    """Softmax over each row of <X_i, Y_j> / sqrt(k), then the weighted sum of Z's rows."""
    s = row_dots(rows, a.indices, x, y) * np.float32(1.0 / math.sqrt(x.shape[1]))
    top = np.maximum.reduceat(s, starts)  # starts: the non-empty rows' first entries
    w = np.exp(s - np.repeat(top, np.diff(np.append(starts, s.size))))
    total = np.add.reduceat(w, starts)
    w /= np.repeat(total, np.diff(np.append(starts, s.size)))
    return sp.csr_matrix((w, a.indices, a.indptr), shape=a.shape) @ z


def main():
    args, widths = width_args(__doc__, "comma list of feature widths k")
    rng = np.random.default_rng(1)
    results = []
    for path in read_suite(args.suite):
        a = load_csr(path)
        lengths = np.diff(a.indptr)
        rows = np.repeat(np.arange(a.shape[0], dtype=np.int64), lengths)
        starts = a.indptr[:-1][lengths > 0]
        for k in widths:
            x, y, z = uniform(rng, a.shape[0], k), uniform(rng, a.shape[1], k), uniform(rng, a.shape[1], k)
            for op, body in (("sddmm", lambda: sddmm(a, rows, x, y)), ("fusedmm", lambda: attention(a, rows, starts, x, y, z))):
                measure("numpy", op, path, body, args, results, n=k, rows=a.shape[0], nnz=int(a.nnz))
    write_json(args.json, "numpy", f"{np.__version__} (SciPy {scipy.__version__})", results, threads=1)


if __name__ == "__main__":
    main()
