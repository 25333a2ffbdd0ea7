#!/usr/bin/env python3
"""Merges spk bench's JSON with the SciPy, NumPy and GraphBLAS baselines into a Markdown report:
date, machine, commit, one table per operation (spk time, baseline time, ratio per matrix)
and closing lines such as `geomean spmm n=32 vs scipy: 1.83x`. A ratio is the baseline's
median time over spk's: above 1 means spk is faster."""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine():
    fields = {}
    for line in run(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    model = fields.get("Model name", platform.processor() or "unknown CPU")
    cores = fields.get("CPU(s)", str(os.cpu_count()))
    return f"{model}, {cores} CPUs ({platform.system()} {platform.release()})"


def commit():
    rev = run(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    return rev + (" (with uncommitted changes)" if run(["git", "status", "--porcelain", "--untracked-files=no"]) else "")


def load(paths):
    docs = []
    for p in paths or []:
        with open(p) as f:
            docs.append(json.load(f))
    return docs


def index(docs, op):
    """(matrix, n) -> result for one op over several JSON documents."""
    out = {}
    for d in docs:
        for r in d["results"]:
            if r["op"] == op:
                out[(r["matrix"], r.get("n", 0))] = r
    return out


def ms(seconds):
    return f"{seconds * 1e3:.3f}" if seconds < 0.1 else f"{seconds * 1e3:.1f}"


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def table(lines, header, rows):
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")


def width_section(lines, op, title, baseline, width_name, spk, spk_1t, base_docs, names, closing):
    """A table a width of spk's times (all threads and one) against a single-threaded baseline's, for an operation with a
    dense width (spmm's n, sddmm's and fusedmm's k)."""
    ours, theirs, single = index(spk, op), index(base_docs, op), index(spk_1t, op)
    keys = [k for k in ours if k in theirs]
    if not keys:
        return
    lines.append(title + "\n")
    widths = sorted({n for _, n in keys})
    threads = spk[0]["threads"]
    for n in widths:
        rows, ratios, ratios_1t = [], [], []
        for m, nn in keys:
            if nn != n:
                continue
            a, b, s = ours[(m, n)], theirs[(m, n)], single.get((m, n))
            ratio = b["median_s"] / a["median_s"]
            ratios.append(ratio)
            row = [names.get(m, m), str(a["nnz"]), ms(a["median_s"]), f"{a['gflops']:.2f}"]
            if single:
                ratios_1t.append(b["median_s"] / s["median_s"] if s else 0)
                row += [ms(s["median_s"]) if s else "", f"{ratios_1t[-1]:.2f}x" if s else ""]
            rows.append(row + [ms(b["median_s"]), f"{ratio:.2f}x"])
        lines.append(f"{width_name} = {n}:\n")
        header = ["matrix", "nnz", f"spk ms ({threads} thr)", "spk GFLOP/s"]
        if single:
            header += ["spk ms (1 thr)", f"{baseline} / spk (1 thr)"]
        table(lines, header + [f"{baseline} ms", f"{baseline} / spk ({threads} thr)"], rows)
        key = baseline.lower()
        closing.append(f"geomean {op} {width_name}={n} vs {key}: {geomean(ratios):.2f}x")
        if single:
            closing.append(f"geomean {op} {width_name}={n} vs {key}, both on 1 thread: {geomean(ratios_1t):.2f}x")


def graphblas_section(lines, op, title, spk, gb_docs, names, closing):
    ours, theirs = index(spk, op), index(gb_docs, op)
    keys = [k for k in ours if (k[0], 0) in theirs]
    if not keys:
        return
    lines.append(title + "\n")
    rows, ratios = [], []
    for m, n in keys:
        a, b = ours[(m, n)], theirs[(m, 0)]
        ratio = b["median_s"] / a["median_s"]
        ratios.append(ratio)
        if op == "spgemm":
            agree = "yes" if a.get("result_nnz") == b.get("result_nnz") else f"no ({b.get('result_nnz')})"
            rows.append([names.get(m, m), str(a["nnz"]), str(a.get("result_nnz", "")), agree, f"{a['gflops']:.2f}", ms(a["median_s"]),
                         ms(b["median_s"]), f"{ratio:.2f}x"])
        else:
            count = int(a.get("checksum", -1))
            agree = "yes" if count == b.get("count") else f"no ({b.get('count')})"
            rows.append([names.get(m, m), str(a["nnz"]), str(count), agree, ms(a["median_s"]), ms(b["median_s"]), f"{ratio:.2f}x"])
    if op == "spgemm":
        table(lines, ["matrix", "nnz(A)", "nnz(C)", "same nnz(C)", "spk GFLOP/s", "spk ms", "GraphBLAS ms", "GraphBLAS / spk"], rows)
    else:
        table(lines, ["matrix", "nnz", "triangles", "same count", "spk ms", "GraphBLAS ms", "GraphBLAS / spk"], rows)
    closing.append(f"geomean {op} vs graphblas: {geomean(ratios):.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--spk", nargs="+", required=True, help="spk bench --json outputs")
    p.add_argument("--spk-1t", nargs="*", default=[], help="spk bench --json outputs of single-thread SpMM runs")
    p.add_argument("--scipy", nargs="*", default=[])
    p.add_argument("--numpy", nargs="*", default=[], help="bench/compare/numpy_fused.py outputs (SDDMM, attention FusedMM)")
    p.add_argument("--graphblas", nargs="*", default=[])
    p.add_argument("--names", help="TSV: matrix label, then the generator spec it came from")
    p.add_argument("--suites", default="suites in bench/suites/", help="the suites measured, for the header")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    spk, spk_1t, scipy_docs, gb_docs = load(args.spk), load(args.spk_1t), load(args.scipy), load(args.graphblas)
    numpy_docs = load(args.numpy)
    names = {}
    if args.names:
        with open(args.names) as f:
            for line in f:
                lab, _, text = line.rstrip("\n").partition("\t")
                names[lab] = text or lab

    lines = ["# spk on the CPU vs SciPy, NumPy and GraphBLAS", ""]
    lines.append(f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}")
    lines.append(f"- machine: {machine()}")
    lines.append(f"- commit: {commit()}")
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append(f"- load average when the report was written (1, 5, 15 min): {load_avg}; other processes' load distorts the times")
    first = spk[0]
    lines.append(f"- spk: backend {first['backend']}, warm-up {first['warmup']}, median of {first['reps']} runs")
    for version in sorted({d["version"] for d in scipy_docs}):
        lines.append(f"- SciPy {version}, 1 thread (its sparse-dense product is single-threaded)")
    for version in sorted({d["version"] for d in numpy_docs}):
        lines.append(f"- NumPy {version}, 1 thread (SDDMM and attention FusedMM as bench/compare/numpy_fused.py writes them)")
    for version, threads in sorted({(d["version"], d["threads"]) for d in gb_docs}):
        lines.append(f"- python-graphblas {version}, {threads} threads")
    lines.append("- ratio: baseline median time / spk median time (above 1: spk is faster); SpMM, SDDMM and FusedMM also on 1 thread,"
                 " like SciPy's and NumPy's")
    lines.append(f"- produced by scripts/bench-cpu.sh ({args.suites})")
    lines.append("")

    closing = []
    width_section(lines, "spmm", "## SpMM (C = A B, f32, B dense random) vs SciPy `csr_matrix @ ndarray`", "SciPy", "n", spk, spk_1t,
                  scipy_docs, names, closing)
    width_section(lines, "sddmm", "## SDDMM (out = A .* (X Yᵀ) on A's pattern, f32, one head) vs NumPy (einsum over chunks of entries)",
                  "NumPy", "k", spk, spk_1t, numpy_docs, names, closing)
    width_section(lines, "fusedmm",
                  "## FusedMM, dot-product attention (softmax of <X_i, Y_j> / sqrt(k) over each row, E = alpha Z; f32, one head) vs"
                  " NumPy and SciPy (einsum, reduceat, `csr_matrix @ ndarray`)", "NumPy", "k", spk, spk_1t, numpy_docs, names, closing)
    graphblas_section(lines, "spgemm", "## SpGEMM (C = A·A, A·Aᵀ for rectangular A; f32 plus_times; both phases) vs GraphBLAS `mxm`",
                      spk, gb_docs, names, closing)
    graphblas_section(lines, "tc", "## Triangle counting vs GraphBLAS (masked L·Lᵀ, plus_pair)", spk, gb_docs, names, closing)
    lines.append("## Summary\n")
    lines.append("```")
    lines.extend(closing)
    lines.append("```")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(closing))


if __name__ == "__main__":
    main()
