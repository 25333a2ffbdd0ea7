#!/usr/bin/env python3
"""Read a kernel's SASS without a GPU: its loops and what they execute, a range of its instructions, and the
compiler's register and spill report, per kernel (demangled), for kernels whose name matches a regular expression.

    scripts/sass.py cubin TU.cu OUT.cubin            compile one translation unit for sm_90 (and keep ptxas's report;
                                                     from the repository root, after a configure into build/)
    scripts/sass.py loops OUT.cubin 'REGEX'          each backward branch: its loop's size and instruction mix
    scripts/sass.py body OUT.cubin 'REGEX' LO HI     the instructions at addresses LO..HI (hex)
    scripts/sass.py spills OUT.cubin.ptxas 'REGEX'   registers and spill bytes of each matching kernel

cuobjdump is not part of this machine's toolkit install; the PyPI wheel has it (no GPU needed):
    python3 -m venv /tmp/dis && /tmp/dis/bin/pip download --no-deps -d /tmp/dl nvidia-cuda-cuobjdump
    (cd /tmp/dl && for w in *.whl; do unzip -qo "$w" -d x; done)
and SPK_CUOBJDUMP=/tmp/dl/x/nvidia/cu13/bin/cuobjdump (the default). Loops nest, so an outer loop's count includes
its inner ones; a loop's instruction count is static (what one pass through its body executes when no branch inside is
taken). Used to compare kernels before and after a change (docs/architecture.md, SpMM and FusedMM: "read off the SASS").
"""
import collections
import os
import re
import subprocess
import sys

CUOBJDUMP = os.environ.get("SPK_CUOBJDUMP", "/tmp/dl/x/nvidia/cu13/bin/cuobjdump")
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);")
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def demangle(name):
    return subprocess.run(["c++filt", name], capture_output=True, text=True, check=True).stdout.strip()


def kernels(cubin, pattern):
    """(demangled name, [(address, instruction)]) of every kernel in cubin whose demangled name matches pattern."""
    sass = subprocess.run([CUOBJDUMP, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    for section in re.split(r"\n\s+Function : ", sass)[1:]:
        name = demangle(section.split("\n", 1)[0].strip())
        if re.search(pattern, name):
            yield name, [(int(a, 16), text) for a, text in INSTRUCTION.findall(section)]


def opcode(text):
    words = text.split()
    word = words[1] if words[0].startswith("@") else words[0]
    return word.split(".")[0]


def loops(cubin, pattern):
    for name, code in kernels(cubin, pattern):
        print(f"{name}\n  {len(code)} instructions")
        for address, text in code:
            target = re.search(r"BRA.*0x([0-9a-f]+)", text)
            if target and int(target.group(1), 16) < address:
                start = int(target.group(1), 16)
                body = [t for a, t in code if start <= a <= address]
                mix = collections.Counter(opcode(t) for t in body).most_common(12)
                print(f"  loop {start:x}-{address:x}: {len(body)} instructions  " + " ".join(f"{op}:{k}" for op, k in mix))


def body(cubin, pattern, lo, hi):
    for name, code in kernels(cubin, pattern):
        print(name)
        for address, text in code:
            if int(lo, 16) <= address <= int(hi, 16):
                print(f"  {address:05x}  {text}")
        return


def spills(report, pattern):
    """ptxas -v prints a kernel's properties (stack, spills) and then its registers; pair them by kernel."""
    current = None
    lines = open(report).read().splitlines()
    for i, line in enumerate(lines):
        found = re.search(r"Function properties for (\S+)", line)
        if found:
            current = demangle(found.group(1))
        found = SPILLS.search(line)
        if found and current and re.search(pattern, current):
            registers = next((m.group(1) for l in lines[i:i + 3] for m in [re.search(r"Used (\d+) registers", l)] if m), "?")
            print(f"{found.group(1):>5} B stored {found.group(2):>5} B loaded {registers:>4} registers  {current}")


def compile_unit(source, cubin):
    flags = ["-std=c++20", "-O3", "-arch=sm_90", "--expt-relaxed-constexpr", "--diag-suppress=554", "-Iinclude", "-Isrc", "-Ibuild",
             "-DSPK_WITH_CUDA=1", "-cubin", "-Xptxas", "-v"]
    result = subprocess.run(["nvcc", *flags, "-o", cubin, source], capture_output=True, text=True)
    with open(cubin + ".ptxas", "w") as report:
        report.write(result.stderr)
    if result.returncode != 0:
        sys.exit(result.stderr[-2000:])
    print(f"{cubin} (ptxas report: {cubin}.ptxas)")


def main():
    commands = {"cubin": (compile_unit, 2), "loops": (loops, 2), "body": (body, 4), "spills": (spills, 2)}
    if len(sys.argv) < 2 or sys.argv[1] not in commands or len(sys.argv) != 2 + commands[sys.argv[1]][1]:
        sys.exit(__doc__)
    function, _ = commands[sys.argv[1]]
    function(*sys.argv[2:])


if __name__ == "__main__":
    main()
