#!/usr/bin/env python3
"""Replays the image loads of testdata/holdout/conv2d_3x3.cu on one GTX480 SM
(blocks 0, 15, 30, 45 of the 8 x 6 grid, 16 x 16 threads each) through a
4-way LRU L1 of 32 sets of 128-byte lines, with a linear set index and with
Fermi's hash (Nugteren et al., HPCA 2014; GPGPU-Sim's `H`), in two warp
orders: every warp issues its k-th load before any issues its (k+1)-th
(what the model's walk gives for this kernel, whose loads each wait on the
one before through the sum), and each warp issuing all nine at once.

    bench/sim/holdout/conv_replay.py

Independent of the model's code: the check behind the README's note that
the hash doubles the misses of the interleaved order, while GPGPU-Sim (which
throttles conflicting warps with reservation fails) misses as the linear
index does (about 83 misses a block: 4,046 over 48 blocks)."""
from collections import OrderedDict

W, H, BX, BY = 128, 96, 16, 16
PITCH = W + 2  # the input has a one-pixel halo
BLOCKS = [0, 15, 30, 45]  # GPGPU-Sim deals blocks to 15 SMs in turn


def fermi_hash(line):
    a = line << 7
    upper = ((a >> 13) & 7) | ((a >> 17) & 1) << 3 | ((a >> 19) & 1) << 4
    return (line & 31) ^ upper


def linear(line):
    return line % 32


def misses(set_of, interleaved, base=0):
    sets = [OrderedDict() for _ in range(32)]
    warps = []
    for b in BLOCKS:
        bx, by = b % 8, b // 8
        for w in range(BX * BY // 32):
            warps.append([(bx * BX + t % BX, by * BY + t // BX) for t in range(w * 32, w * 32 + 32)])
    steps = [(dy, dx) for dy in range(3) for dx in range(3)]
    order = [(w, s) for s in steps for w in warps] if interleaved else [(w, s) for w in warps for s in steps]
    n = 0
    for w, (dy, dx) in order:
        for line in {(base + ((y + dy) * PITCH + (x + dx)) * 4) // 128 for x, y in w}:
            s = sets[set_of(line)]
            if line in s:
                s.move_to_end(line)
            else:
                n += 1
                s[line] = True
                if len(s) > 4:
                    s.popitem(last=False)
    return n


if __name__ == "__main__":
    for interleaved in (True, False):
        order = "interleaved" if interleaved else "each warp's nine loads at once"
        print(f"{order}: linear {misses(linear, interleaved)} misses, "
              f"Fermi hash {misses(fermi_hash, interleaved)} (4 blocks)")
