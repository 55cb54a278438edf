#!/usr/bin/python3
"""Draws the viewer's timeline (`circles view --timeline FILE.json`) as an SVG, and sums it up.

The JSON holds every displayed frame's work as intervals on one clock, in three lanes: host (each
step of the loop: the window's events, advancing the animation, the render's launches or a CPU
renderer's render, the present path's host side with its copies, the tools, the UI being built,
GL's calls, the waits, collecting the timings), cuda (the render's stages and the interop's, from
CUDA events) and gl (upload, present and UI draws, from GL timestamps). An interval may lie inside
another (a wait inside GL's calls). The SVG shows FRAMES consecutive frames from the middle of the
run, a row a lane, each interval a bar coloured by its name, shorter ones over longer ones. The
summary (stdout, Markdown) gives, over the frames from the first quarter of the run on: the mean
frame, the GPU's busy time per frame in CUDA and in GL, the GPU's idle time per frame (neither CUDA
nor GL busy: on a GPU machine, the time lost switching between the two APIs' work), and the host's
time outside every interval (near zero: the loop's steps cover the frame).

Usage: scripts/plot_timeline.py FILE.json [-o OUT.svg] [--frames N]   (python3 only, no packages)
Exit codes: 0 done, 1 bad input or an output that cannot be written, 2 a command-line mistake.
"""
import argparse
import json
import sys

LANES = ["host", "cuda", "gl"]
PALETTE = ["#5b9ef2", "#f29a40", "#73cc73", "#e65966", "#b380e6", "#a6735a", "#f28dcc", "#999999",
           "#cccc4d", "#4dccd9", "#8c564b", "#17becf", "#1f4e99", "#b35900", "#2e8b2e", "#990f1f",
           "#6a3d9a", "#d9b38c", "#555555", "#80b3ff"]


def union_length(intervals, lo, hi):
    """Length of the union of [a, b) clipped to [lo, hi)."""
    total, end = 0.0, lo
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in intervals):
        if b <= a:
            continue
        if a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("-o", "--output", default="timeline.svg")
    ap.add_argument("--frames", type=int, default=4)
    args = ap.parse_args()
    if args.frames < 1:
        ap.error("--frames must be at least 1")
    try:
        with open(args.json) as f:
            doc = json.load(f)
        spans = [s for s in doc["spans"] if s["lane"] in LANES]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_timeline: {args.json}: {e}", file=sys.stderr)
        return 1
    frames = sorted((s["t0"], s["t1"]) for s in spans if s["lane"] == "host" and s["name"] == "frame")
    if len(frames) < args.frames + 2:
        print(f"plot_timeline: {args.json}: {len(frames)} frames, need {args.frames + 2}", file=sys.stderr)
        return 1

    # The summary: frames from the middle quarter of the run on (past the warm-up).
    first = len(frames) // 4
    lo, hi = frames[first][0], frames[-1][1]
    n = len(frames) - first
    gpu = [(s["t0"], s["t1"]) for s in spans if s["lane"] in ("cuda", "gl")]
    cuda = [(s["t0"], s["t1"]) for s in spans if s["lane"] == "cuda"]
    gl = [(s["t0"], s["t1"]) for s in spans if s["lane"] == "gl"]
    busy = union_length(gpu, lo, hi)
    print(f"{doc.get('about', '')}")
    print(f"\n| over {n} frames | ms per frame |\n| --- | ---: |")
    print(f"| frame (host loop) | {(hi - lo) / n:.3f} |")
    print(f"| GPU busy in CUDA | {union_length(cuda, lo, hi) / n:.3f} |")
    print(f"| GPU busy in GL | {union_length(gl, lo, hi) / n:.3f} |")
    print(f"| GPU idle (neither) | {((hi - lo) - busy) / n:.3f} |")
    host = [(s["t0"], s["t1"]) for s in spans if s["lane"] == "host" and s["name"] != "frame"]
    print(f"| host outside every interval | {((hi - lo) - union_length(host, lo, hi)) / n:.3f} |")
    names = []
    for s in spans:
        if s["t0"] >= lo and s["name"] not in names:
            names.append(s["name"])
    print("\n| interval | lane | median ms |\n| --- | --- | ---: |")
    for name in names:
        d = sorted(s["t1"] - s["t0"] for s in spans if s["name"] == name and s["t0"] >= lo)
        lane = next(s["lane"] for s in spans if s["name"] == name)
        print(f"| {name} | {lane} | {d[len(d) // 2]:.3f} |")

    # The drawing: FRAMES frames from the middle.
    mid = len(frames) // 2
    w0, w1 = frames[mid][0], frames[mid + args.frames - 1][1]
    width, left, row, top = 1200, 150, 34, 30
    scale = (width - left - 20) / (w1 - w0)
    colour = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + row * 3 + 40 + 18 * ((len(names) + 2) // 3)}" '
           'font-family="monospace" font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    # Longest first, so that an interval inside another (a wait inside the host's draw) shows.
    longest_first = sorted(spans, key=lambda s: s["t0"] - s["t1"])
    for i, lane in enumerate(LANES):
        y = top + i * row
        out.append(f'<text x="8" y="{y + row / 2 + 4}">{lane}</text>')
        out.append(f'<line x1="{left}" y1="{y + row}" x2="{width - 20}" y2="{y + row}" stroke="#ddd"/>')
        for s in longest_first:
            if s["lane"] != lane or s["t1"] < w0 or s["t0"] > w1 or s["name"] == "frame":
                continue
            x = left + (max(s["t0"], w0) - w0) * scale
            w = max((min(s["t1"], w1) - max(s["t0"], w0)) * scale, 0.5)
            out.append(f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="{row - 8}" fill="{colour.get(s["name"], "#888")}">'
                       f'<title>{s["name"]}: {s["t1"] - s["t0"]:.3f} ms</title></rect>')
    for t0, _ in frames[mid:mid + args.frames]:  # frame starts on the host
        x = left + (t0 - w0) * scale
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{top + 3 * row}" stroke="black" stroke-dasharray="3,3"/>')
    step = 0.1 if (w1 - w0) < 2 else 0.5 if (w1 - w0) < 10 else 5
    t = 0.0
    while t <= w1 - w0:
        x = left + t * scale
        out.append(f'<text x="{x:.1f}" y="{top + 3 * row + 14}" text-anchor="middle">{t:g}</text>')
        t = round(t + step, 6)
    out.append(f'<text x="{width - 20}" y="{top + 3 * row + 28}" text-anchor="end">ms (dashed: the host starts a frame)</text>')
    for i, name in enumerate(names):
        x, y = 8 + (i % 3) * 400, top + 3 * row + 44 + (i // 3) * 18
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour[name]}"/><text x="{x + 14}" y="{y}">{name}</text>')
    out.append("</svg>")
    try:
        with open(args.output, "w") as f:
            f.write("\n".join(out) + "\n")
    except OSError as e:
        print(f"plot_timeline: {args.output}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
