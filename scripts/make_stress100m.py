#!/usr/bin/env python3
"""Writes stress100M (or the dense case) as a binary scene, for the 100M-circle benchmark
(docs/SCALE.md): N random circles in the unit square, sorted far to near (z falling), colours
.2-1 per channel, alpha .5, as the built-in stress10M is made, in packed float32 rows (x y z
radius r g b a), the layout circles maps without a copy.

  stress100M:       100M circles of radius .003-.0045 (stress10M's radii over sqrt(10): the same
                    depth per pixel, ten times the circles)
  stress100M-dense: 100M circles of stress10M's radii, .009-.014 (ten times the depth)

Usage: python3 scripts/make_stress100m.py OUT.npz [--dense] [--count N] [--seed S]
"""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--dense", action="store_true", help="stress10M's radii: ten times the depth")
    p.add_argument("--count", type=int, default=100_000_000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    n = a.count
    rows = np.empty((n, 8), np.float32)
    z = rng.random(n, dtype=np.float32)
    order = np.argsort(-z, kind="stable")  # far (large z) first, as sort_far_to_near draws
    rows[:, 2] = z[order]
    del z, order
    rows[:, 0] = rng.random(n, dtype=np.float32)
    rows[:, 1] = rng.random(n, dtype=np.float32)
    lo, span = (0.009, 0.005) if a.dense else (0.003, 0.0015)
    rows[:, 3] = np.float32(lo) + np.float32(span) * rng.random(n, dtype=np.float32)
    for k in (4, 5, 6):
        rows[:, k] = np.float32(0.2) + np.float32(0.8) * rng.random(n, dtype=np.float32)
    rows[:, 7] = 0.5
    name = "stress100M-dense" if a.dense else "stress100M"
    np.savez(a.out, version=np.int64(1), circles=rows, size=np.array([3840, 2160]), seed=np.uint64(a.seed))
    print(f"{a.out}: {name}, {n} circles, radius {lo:g}-{lo + span:g}")


if __name__ == "__main__":
    main()
