#!/usr/bin/env python3
"""Simulates the CUDA SpGEMM numeric phase's shared-memory hash tables on sampled rows of C = A·A.

A warp's lanes take 32 consecutive entries of one row of B and probe in lockstep, so a round costs
the longest probe of its lanes, and its shared-memory loads cost the bank conflicts of the slots
they reach. For each candidate hash (src/cuda/spgemm/device_table.cuh's mix of the column, MurmurHash3's
finaliser, or "blocks": groups of 2^b consecutive columns hashed together to 2^b consecutive slots, probing
2^b + 1 slots on, an odd step that still visits every slot) and table load, this prints per warp
round: the longest and the mean probe, the wavefronts of the 4-byte key loads (the most lanes on
one of 32 banks) and of the 8-byte value loads (per half warp, 16 banks of 8 bytes).

    scripts/spgemm-hash-sim.py MATRIX.mtx [--min-len 256] [--max-len 512] [--rows 30]

Needs NumPy and SciPy (the project's .venv has both). Write a generated matrix with `spk gen`.
"""
import argparse

import numpy as np
import scipy.io


def mixed(keys, bits):
    """The device's home slot of 4-byte keys: xor-shift, multiply, xor-shift, top `bits` bits."""
    h = keys.astype(np.uint32)
    h ^= h >> np.uint32(15)
    h = (h * np.uint32(0x2C1B3C6D)).astype(np.uint32)
    h ^= h >> np.uint32(12)
    return (h >> np.uint32(32 - bits)).astype(np.int64)


def murmur(keys, bits):
    """MurmurHash3's 32-bit finaliser (two multiplies), top `bits` bits: a full mix, for comparison."""
    h = keys.astype(np.uint32)
    h ^= h >> np.uint32(16)
    h = (h * np.uint32(0x85EBCA6B)).astype(np.uint32)
    h ^= h >> np.uint32(13)
    h = (h * np.uint32(0xC2B2AE35)).astype(np.uint32)
    h ^= h >> np.uint32(16)
    return (h >> np.uint32(32 - bits)).astype(np.int64)


def blocked(keys, bits, b):
    return (mixed(keys >> b, bits - b) << b) | (keys & ((1 << b) - 1))


def simulate(a, rows, log2_capacity, b):
    """b: 0 the device's mix, -1 murmur, else blocks of 2^b columns."""
    capacity = 1 << log2_capacity
    step = 1 if b <= 0 else (1 << b) + 1
    if b == 0:
        home = lambda k: mixed(k, log2_capacity)
    elif b < 0:
        home = lambda k: murmur(k, log2_capacity)
    else:
        home = lambda k: blocked(k, log2_capacity, b)
    longest = mean = key_waves = value_waves = 0.0
    rounds = 0
    for i in rows:
        b_rows = [a.indices[a.indptr[k]:a.indptr[k + 1]] for k in a.indices[a.indptr[i]:a.indptr[i + 1]]]
        table = np.full(capacity, -1, dtype=np.int64)
        placed = {}  # column -> (probes, slot), filled in the order the products arrive
        for cols in b_rows:
            for j, s in zip(cols, home(cols)):
                if j in placed:
                    continue
                probes = 1
                while table[s] != -1:
                    s = (s + step) & (capacity - 1)
                    probes += 1
                table[s] = j
                placed[j] = (probes, s)
        for cols in b_rows:
            for w in range(0, len(cols), 32):
                lanes = [placed[j] for j in cols[w:w + 32]]
                probes = [p for p, _ in lanes]
                slots = np.array([s for _, s in lanes])
                longest += max(probes)
                mean += np.mean(probes)
                key_waves += np.bincount(slots % 32).max()
                value_waves += max(np.bincount(half % 16).max() for half in (slots[:16], slots[16:]) if len(half))
                rounds += 1
    return longest / rounds, mean / rounds, key_waves / rounds, value_waves / rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("matrix")
    parser.add_argument("--min-len", type=int, default=256, help="sample rows of C longer than this")
    parser.add_argument("--max-len", type=int, default=512, help="and at most this long (bin 5: 257-512)")
    parser.add_argument("--rows", type=int, default=30)
    args = parser.parse_args()
    a = scipy.io.mmread(args.matrix).tocsr()
    lengths = np.diff((a @ a).tocsr().indptr)
    candidates = np.where((lengths > args.min_len) & (lengths <= args.max_len))[0]
    if len(candidates) == 0:
        raise SystemExit(f"no row of C has {args.min_len + 1} to {args.max_len} entries")
    rows = np.random.default_rng(1).choice(candidates, size=min(args.rows, len(candidates)), replace=False)
    base = int(np.ceil(np.log2(2 * lengths[rows].max())))  # the bin's table: load at most 1/2
    print(f"{args.matrix}: {len(rows)} rows of C of {lengths[rows].min()}-{lengths[rows].max()} entries, tables of 2^{base} slots")
    print("hash        load  longest probe  mean probe  key wavefronts  value wavefronts (half warp)")
    for b in (0, -1, 3, 5):
        for spare in (0, 1):
            if b >= base + spare - 1:
                continue
            r = simulate(a, rows, base + spare, b)
            name = "mix" if b == 0 else "murmur" if b < 0 else f"blocks {1 << b}"
            print(f"{name:<10}  1/{2 << spare:<3} {r[0]:>13.2f}  {r[1]:>10.2f}  {r[2]:>14.2f}  {r[3]:>16.2f}")


if __name__ == "__main__":
    main()
