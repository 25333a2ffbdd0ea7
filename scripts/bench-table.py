#!/usr/bin/env python3
"""Markdown table of one or more `spk bench --json` files, for bench/results/.

Usage: scripts/bench-table.py FILE.json [FILE.json ...]
Each row: matrix, n, spk's time and configuration, the vendor's best and the ratio; then the
geometric mean of the ratios per op and width, in the form the issues ask for.
"""
import json
import math
import re
import sys
from collections import defaultdict


def main(paths):
    ratios = defaultdict(list)
    print("| op | matrix | rows | nnz | n | spk ms | configuration | vendor best | vendor ms | speedup |")
    print("|---|---|---:|---:|---:|---:|---|---|---:|---:|")
    for path in paths:
        for r in json.load(open(path))["results"]:
            config = re.search(r"\[([^,\]]+)", r["config"])
            spk_ms = r["median_s"] * 1e3
            vendor, vendor_ms, speedup = "-", "-", "-"
            if r.get("baseline"):
                vendor, vendor_ms = r["baseline"], r["baseline_s"] * 1e3
                speedup = vendor_ms / spk_ms
                width = "n" if r["op"] == "spmm" else "k"
                key = f"{r['op']} {width}={r['n']}" if r["n"] else r["op"]
                ratios[key].append(speedup)
                vendor_ms, speedup = f"{vendor_ms:.4g}", f"{speedup:.2f}x"
            print(f"| {r['op']} | {r['matrix']} | {r['rows']} | {r['nnz']} | {r['n'] or '-'} | {spk_ms:.4g} | "
                  f"{config.group(1) if config else '-'} | {vendor} | {vendor_ms} | {speedup} |")
    print()
    for key, values in ratios.items():
        geo = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"geomean {key} vs cusparse-best: {geo:.2f}x (worst case {min(values):.2f}x, {len(values)} cases)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
