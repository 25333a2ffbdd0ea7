#!/usr/bin/env python3
"""One markdown row per profiled kernel launch from Nsight Compute's text report (stdin or FILE).

    ncu --kernel-name regex:backward --launch-count 4 --section SpeedOfLight --section LaunchStats \\
        --section Occupancy --section MemoryWorkloadAnalysis spk bench ... | scripts/ncu-summary.py

scripts/gpu-profile.sh runs that. Columns: duration, DRAM / L2 / SM throughput (% of peak), L1 and L2 hit rates,
registers, theoretical / achieved occupancy and local-memory spill requests, the figures that say whether a kernel is
bound by memory, by latency (everything low) or by registers. With the WarpStateStats section, the cycles between a
warp's issued instructions and, below the table, the stall ncu names as the largest (what a latency-bound kernel
waits on).
"""
import re
import sys

COLUMNS = [
    ("Duration", "time"),
    ("DRAM Throughput", "DRAM %"),
    ("L2 Cache Throughput", "L2 %"),
    ("Compute (SM) Throughput", "SM %"),
    ("L1/TEX Hit Rate", "L1 hit %"),
    ("L2 Hit Rate", "L2 hit %"),
    ("Registers Per Thread", "regs"),
    ("Theoretical Occupancy", "occupancy"),
    ("Achieved Occupancy", "achieved"),
    ("Local Memory Spilling Requests", "spill requests"),
    ("Warp Cycles Per Issued Instruction", "cycles / issue"),
]
# ncu's WarpStateStats rule, wrapped over several lines: "... each warp of this kernel spends 20.3 cycles being
# stalled waiting for <reason>. This represents about 60.1% of the total average of 33.8 cycles between issuing ..."
STALL = re.compile(r"spends ([\d.]+) cycles being stalled (.*?)\. This represents about ([\d.]+)%")
KERNEL = re.compile(r"^  (?:void )?(\S.*?)\((?:.*)\) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context")
METRIC = re.compile(r"^    (\S.*?)\s{2,}(\S+)?\s+([\d,.]+|n/a|no data)$")


def short_name(signature):
    """The kernel's name and template arguments, without namespaces or parameter lists."""
    name = re.sub(r"\b\w+::", "", signature)
    return name.strip()


def parse(lines):
    kernels, current, rule = [], None, None
    for line in lines:
        line = line.rstrip("\n")
        m = KERNEL.match(line)
        if m:
            current = {"kernel": short_name(m.group(1)), "grid": f"{m.group(2)}x{m.group(5)}"}
            kernels.append(current)
            continue
        if current is not None and ("cycles being stalled" in line or rule is not None):
            rule = (rule or "") + " " + line.strip()
            m = STALL.search(rule)
            if m:
                current.setdefault("stall", f"{m.group(3)}% of the cycles stalled {m.group(2)}")
                rule = None
            elif len(rule) > 2000:
                rule = None
            continue
        m = METRIC.match(line)
        if current is not None and m:
            name, unit, value = m.group(1).strip(), m.group(2) or "", m.group(3)
            if name == "Duration":
                value = f"{value} {unit}"
            current.setdefault(name, value)
    return kernels


def main():
    source = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    kernels = parse(source)
    if not kernels:
        print("no profiled kernel in the input (did ncu match any? --kernel-name regex:...)", file=sys.stderr)
        return 1
    print("| kernel | grid x block | " + " | ".join(title for _, title in COLUMNS) + " |")
    print("|---|---|" + "---:|" * len(COLUMNS))
    for k in kernels:
        print(f"| {k['kernel']} | {k['grid']} | " + " | ".join(k.get(name, "-") for name, _ in COLUMNS) + " |")
    stalls = [k for k in kernels if "stall" in k]
    if stalls:
        print()
    for k in stalls:
        print(f"- {k['kernel']}: {k['stall']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
