#!/usr/bin/env python3
"""One Markdown table from the `spk bench --json` files of variants of one bench (scripts/gpu-ab.sh): a row per case
(operation, configuration, matrix, n), a column per variant with its median ms and, after the first (the base), the
time over the base's; a last row gives each variant's geometric mean of that ratio. Where the bench timed a forward pass beside a backward one, a last column per variant gives it;
where the configuration names a plan's time (SpMM on CUDA: "[rb.g8.r1.v4, plan 0.25 ms]"), that goes to its own columns
and out of the case's name, so that the variants' rows line up.

    scripts/ab-table.py base-1.json batch2-1.json [--prefix DIR/]

One file of a bench run with several --config values (results with a "variant") gives a column per variant instead,
the first given as the base:

    scripts/ab-table.py spmm-sweep.json
"""
import argparse
import json
import math
import pathlib
import re

PLAN = re.compile(r", plan ([\d.]+) ms\]")


def results(path):
    return json.loads(pathlib.Path(path).read_text()).get("results", [])


def variants(path):
    """The --config values of a multi-configuration run, in the file's order (none for a plain run)."""
    return list(dict.fromkeys(r["variant"] for r in results(path) if r.get("variant")))


def cases(path, variant=None):
    """(case key, (median ms, forward ms or None, plan ms or None)) of every result in one file, in the file's order;
    with variant, those of that --config only, keyed without the configuration's name so that variants line up."""
    for r in results(path):
        if variant is not None and r.get("variant") != variant:
            continue
        config = r.get("config", r.get("op", ""))
        plan = PLAN.search(config)
        config = PLAN.sub("]", config)
        if variant is not None:  # SpMM names the configuration in brackets, SDDMM and FusedMM as "config=..."
            config = re.sub(r" \[[^]]*\]$", "", config)
            config = re.sub(r" config=\S+$", "", config)
        key = (config, r.get("matrix", ""), r.get("n", ""))
        forward = r.get("forward_s")
        yield key, (r["median_s"] * 1e3, forward * 1e3 if forward is not None else None, float(plan.group(1)) if plan else None)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", help="one JSON file a variant, the base first")
    p.add_argument("--prefix", default="", help="prepended to every file name")
    args = p.parse_args()
    names = [pathlib.Path(f).stem for f in args.files]
    runs = []
    for f in args.files:
        try:
            runs.append(dict(cases(args.prefix + f)))
        except (OSError, ValueError) as e:
            print(f"skipped {f}: {e}")
            runs.append({})
    if len(args.files) == 1 and runs[0]:
        names = variants(args.prefix + args.files[0]) or names
        if len(names) > 1:
            runs = [dict(cases(args.prefix + args.files[0], v)) for v in names]
    keys = list(dict.fromkeys(k for run in runs for k in run))
    with_forward = any(v[1] is not None for run in runs for v in run.values())
    with_plan = any(v[2] is not None for run in runs for v in run.values())
    header = ["case", "n"] + [n + " ms" for n in names] + ([n + " forward ms" for n in names] if with_forward else [])
    header += [n + " plan ms" for n in names] if with_plan else []
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * 2 + "---:|" * (len(header) - 2))
    for key in keys:
        config, matrix, n = key
        base = runs[0].get(key, (None,))[0]
        cells = []
        for i, run in enumerate(runs):
            ms = run.get(key, (None,))[0]
            if ms is None:
                cells.append("-")
            elif i == 0 or not base:
                cells.append(f"{ms:.4g}")
            else:
                cells.append(f"{ms:.4g} ({ms / base:.2f}x)")
        for column, wanted in ((1, with_forward), (2, with_plan)):
            if wanted:
                cells += [f"{run[key][column]:.4g}" if key in run and run[key][column] is not None else "-" for run in runs]
        print(f"| {config} {matrix} | {n} | " + " | ".join(cells) + " |")
    # The geometric mean of each variant's time over the base's, over the cases both have.
    means = ["-"]
    for run in runs[1:]:
        ratios = [run[k][0] / runs[0][k][0] for k in keys if k in run and k in runs[0] and runs[0][k][0]]
        means.append(f"{math.exp(sum(math.log(r) for r in ratios) / len(ratios)):.3f}x ({len(ratios)} case{'s' if len(ratios) > 1 else ''})" if ratios else "-")
    if len(runs) > 1:
        filler = ["-"] * (len(header) - 2 - len(means))
        print("| geomean of the time over the base | | " + " | ".join(means + filler) + " |")


if __name__ == "__main__":
    main()
