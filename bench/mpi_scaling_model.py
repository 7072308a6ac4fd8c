#!/usr/bin/env python3
"""Decode speed of one model over N machines (docs/distributed-scaling.md): a model on paper, fed with what
bench/mpi_scaling.sh and switchyard-run's per-rank table measure.

A decoded token reads every weight once, so one machine takes weights / DRAM bandwidth. Over N machines:

  tensor split  each machine reads its 1/N of the split weights (every matrix, the output projection by
                vocabulary rows) and all of the mirrored ones (the norms), then takes part in 2 all-reduces per
                layer (attention output, FFN output) of n_embd floats, and in the gather of the logits (each
                rank broadcasts its 1/N of them):
                  t = (W_split / N + W_mirrored) / B + 2 L * allreduce(N) + gather(N)
                  allreduce(N) = 2 (N - 1) * alpha + 2 (N - 1) / N * S / link     (ring)
  layer split   the machines take turns: a token still reads all weights, one machine after the other, and the
                activation crosses N - 1 links:
                  t = W / B + (N - 1) * (alpha + 2 S / link) + bcast(N)   (the logits from the last rank; two
                  vectors cross each boundary, as measured)

Run it with no arguments for the table of the note, or change the constants below.
"""

import math

MIB = 1024 * 1024

# the 1B-class model of switchyard-make-model --preset 1b (q4_K, q6_K for attn_v, ffn_down and output)
WEIGHTS = 643.65 * MIB  # read per token (switchyard-run --bench: "MiB of weights per token")
MIRRORED = (2 * 16 + 1) * 2048 * 4  # the norms (f32): every rank reads them
N_LAYER = 16
N_EMBD = 2048
N_VOCAB = 32000
S = N_EMBD * 4  # bytes of one all-reduced vector (f32)
LOGITS = N_VOCAB * 4

# links: bandwidth (bits/s) and one message's latency (s), typical of each kind
LINKS = {
    "25 Gb/s Ethernet (TCP)": (25e9, 20e-6),
    "100 Gb/s RoCE": (100e9, 4e-6),
    "400 Gb/s InfiniBand NDR": (400e9, 2e-6),
}


def allreduce(n, bw, alpha):
    return 0.0 if n == 1 else 2 * (n - 1) * alpha + 2 * (n - 1) / n * S / (bw / 8)


def bcast(n, bw, alpha):
    return 0.0 if n == 1 else math.ceil(math.log2(n)) * (alpha + LOGITS / (bw / 8))


def gather(n, bw, alpha):
    return 0.0 if n == 1 else n * math.ceil(math.log2(n)) * (alpha + LOGITS / n / (bw / 8))


def tensor_time(n, dram, bw, alpha):
    split = WEIGHTS - MIRRORED
    return (split / n + MIRRORED) / dram + 2 * N_LAYER * allreduce(n, bw, alpha) + gather(n, bw, alpha)


def layer_time(n, dram, bw, alpha):
    return WEIGHTS / dram + (n - 1) * (alpha + 2 * S / (bw / 8)) + bcast(n, bw, alpha)


def table(dram):
    machines = [1, 2, 4, 8, 16]
    print(f"DRAM {dram / 1e9:.0f} GB/s per machine: decode tokens/s (tensor split / layer split)")
    print("| link | " + " | ".join(f"{n} machine{'s' if n > 1 else ''}" for n in machines) + " | tensor split stops at |")
    print("|---|" + "---|" * len(machines) + "---|")
    for name, (bw, alpha) in LINKS.items():
        cells = []
        for n in machines:
            cells.append(f"{1 / tensor_time(n, dram, bw, alpha):.0f} / {1 / layer_time(n, dram, bw, alpha):.0f}")
        best = min(range(1, 65), key=lambda n: tensor_time(n, dram, bw, alpha))
        print(f"| {name} | " + " | ".join(cells) + f" | {best} machines ({1 / tensor_time(best, dram, bw, alpha):.0f} t/s) |")
    print()


if __name__ == "__main__":
    print(f"model: {WEIGHTS / MIB:.0f} MiB read per token, of which {MIRRORED / MIB:.2f} MiB mirrored (norms);"
          f" {2 * N_LAYER} all-reduces of {S} bytes and {LOGITS} bytes of logits per token\n")
    for dram in (13.4e9, 100e9, 400e9):
        table(dram)
