#!/usr/bin/env python3
"""Compares two builds' `circles bench --json` results, scene by scene and mode by mode.

Usage: scripts/bench_compare.py --old A.json [A2.json ...] --new B.json [B2.json ...] [--limit 0.02]

Each side may give several files (rounds run alternately in one device call); a pair's figure is
the smallest of its medians over the rounds. Prints a Markdown table (old ms, new ms, new/old)
and marks the rows whose ratio is outside 1 +- limit. Exit codes: 0 done, 1 bad input, 2 a
command-line mistake.
"""
import argparse
import json
import sys


def load(paths):
    best = {}
    for path in paths:
        try:
            with open(path) as f:
                records = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"bench_compare: cannot read {path}: {e}")
        for r in records:
            mode = "half-colour" if r.get("half_colour") else r.get("mode", "exact")
            key = (r["scene"], r.get("variant", r["renderer"]), r.get("width"), r.get("height"), mode)
            best[key] = min(best.get(key, float("inf")), r["median_ms"])
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--limit", type=float, default=0.02)
    a = ap.parse_args()
    old, new = load(a.old), load(a.new)
    print("| scene | size | renderer | mode | old ms | new ms | new/old |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for key in old:
        if key not in new:
            continue
        scene, renderer, w, h, mode = key
        ratio = new[key] / old[key]
        mark = " (outside)" if abs(ratio - 1) > a.limit else ""
        print(f"| {scene} | {w}x{h} | {renderer} | {mode} | {old[key]:.4f} | {new[key]:.4f} | {ratio:.3f}{mark} |")


if __name__ == "__main__":
    main()
