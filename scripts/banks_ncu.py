#!/usr/bin/python3
"""Bank conflicts by the arithmetic beside Nsight Compute's own count, as a Markdown table.

Input: what `scripts/gpu-run.sh lab-ncu` writes (ncu --csv over `circles kernels banks --repeat 1
--warmup 0`, the program's table and ncu's rows in one file). Each variant/stride runs its kernel
twice (the checked run, then one timed run), in the order the table lists them; ncu numbers the
launches in the same order. Per warp-wide load (request): wavefronts = ncu's
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / requests, conflicts =
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / requests, where requests = warps *
kBankIters (1024 loads per thread).

Usage: scripts/banks_ncu.py docs/bench/banks_ncu.csv [--threads 4096]
"""
import argparse
import csv
import math
import re
import sys

ITERS = 1024  # kernels/lab/lab.h kBankIters


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--threads", type=int, default=4096, help="the --size the banks run used")
    args = ap.parse_args()
    combos, metrics = [], {}
    with open(args.csv) as f:
        lines = f.read().splitlines()
    row_re = re.compile(r"^\s+(banks-\S+)\s+(\d+)\s+([\d.]+)\s+(\S+)")
    for line in lines:
        m = row_re.match(line)
        if m:
            combos.append((m.group(1), int(m.group(2)), float(m.group(3)), m.group(4)))
    quoted = [l for l in lines if l.startswith('"')]
    for r in csv.DictReader(quoted):
        metrics.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    if len(metrics) != 2 * len(combos):
        sys.exit("banks_ncu: %d profiled launches for %d variant/stride rows (expected 2 each)" %
                 (len(metrics), len(combos)))
    requests = math.ceil(args.threads / 256) * 256 / 32 * ITERS
    print("| variant | stride | check | wavefronts per load (arithmetic) | wavefronts per load (ncu) "
          "| conflicts per load (ncu) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k, (name, stride, arith, check) in enumerate(combos):
        m = metrics[2 * k + 1]  # the timed launch (the checked one is identical)
        wf = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] / requests
        bc = m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] / requests
        print("| %s | %d | %s | %.2f | %.2f | %.2f |" % (name, stride, check, arith, wf, bc))


if __name__ == "__main__":
    main()
