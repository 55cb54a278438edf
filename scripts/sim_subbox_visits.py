#!/usr/bin/env python3
"""How many circle visits a warp's walk makes on rand1M-like circles, by the box it culls against.

cuda-tile-binned's exact shade gives a warp an 8x16 pixel box (32 lanes, four pixels each) and
walks, per group of 32 staged circles of the tile's list, the circles that touch the box. Walking
per row group of 8 lanes (an 8x4 box each) instead, a warp's passes over a group are its busiest
row group's. This counts both over a 256x256 patch of random circles at rand1M's density (one a
pixel, radius 9.2-14.3 pixels): 'whole' the 8x16 box's visits, 'grp' the busiest 8x4 box's per
group, 'half' per 8x8 half, 'chunk4', 'chunk8' and 'batch' the busiest 8x4 box's over 4, 8 and 16
groups (chunk8: the per-row-group lists the fifth session tried), 'mean' the four row groups'
mean (perfect balance). The ratios to 'whole' are what docs/BENCHMARKS.md quotes (fourth and
fifth sessions). Needs numpy.
"""
import numpy as np

rng = np.random.default_rng(2)
W = 256
n = int(W * W * ((W + 60) / W) ** 2)
x = rng.uniform(-30, W + 30, n)
y = rng.uniform(-30, W + 30, n)
r = rng.uniform(9.2, 14.3, n)


def touch(idx, x0, y0, x1, y1):
    """Which circles of idx touch the box of pixel centres [x0, x1] x [y0, y1]."""
    xx, yy, rr = x[idx], y[idx], r[idx]
    dx = xx - np.clip(xx, x0, x1)
    dy = yy - np.clip(yy, y0, y1)
    return dx * dx + dy * dy <= rr * rr


tot = {"whole": 0, "grp": 0, "half": 0, "chunk4": 0, "chunk8": 0, "batch": 0, "mean": 0}
for ti in range(0, W, 32):
    for tj in range(0, W, 32):
        tile = np.nonzero(touch(np.arange(n), ti + .5, tj + .5, ti + 31.5, tj + 31.5))[0]  # in order
        groups = (len(tile) + 31) // 32
        for wi in range(ti, ti + 32, 8):
            for wj in range(tj, tj + 32, 16):
                t = touch(tile, wi + .5, wj + .5, wi + 7.5, wj + 15.5)
                q = np.stack([touch(tile, wi + .5, wj + .5 + 4 * k, wi + 7.5, wj + 3.5 + 4 * k) for k in range(4)])
                for g in range(groups):
                    s = slice(g * 32, (g + 1) * 32)
                    tot["whole"] += t[s].sum()
                    tot["grp"] += q[:, s].sum(1).max()
                    tot["half"] += max((q[0, s] | q[1, s]).sum(), (q[2, s] | q[3, s]).sum())
                for c in range(0, groups, 4):
                    tot["chunk4"] += q[:, slice(c * 32, (c + 4) * 32)].sum(1).max()
                for c in range(0, groups, 8):
                    tot["chunk8"] += q[:, slice(c * 32, (c + 8) * 32)].sum(1).max()
                for c in range(0, groups, 16):
                    tot["batch"] += q[:, slice(c * 32, (c + 16) * 32)].sum(1).max()
                tot["mean"] += q.sum() / 4
print("visits:", {k: int(v) for k, v in tot.items()})
print("against the 8x16 box:", {k: round(v / tot["whole"], 3) for k, v in tot.items()})
