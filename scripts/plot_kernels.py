#!/usr/bin/python3
"""Plots the lab's JSON: `circles kernels --json` (one PNG per family) or `circles bench --json` (one PNG).

The input is told apart by its records' keys: kernel records have "family" and "task", bench
records have "scene" and "median_ms".

Kernels: one PNG per family (kernels_FAMILY.png), one panel per task, type and size. Ladders are
bars of GB/s per variant (in registry order, knob values as "name/value"), with the device copy
and the library reference (CUB) drawn across as lines. Knobs with many values (the bank-conflict
strides, the convolution radii) are drawn as lines over the knob instead.

Bench: one PNG, bench.png: the median ms per frame on a log scale, grouped bars, one group per
scene (in the order they first appear), one bar per variant (renderer, knobs and mode, e.g.
"cuda-tile-binned/32/early"). Records without "mode" (older files) are taken as exact.

Usage: scripts/plot_kernels.py FILE.json [-o OUTDIR] [--markdown FILE]   (needs python3-matplotlib)
--markdown also writes the same measurements as Markdown tables (docs/KERNELS.md quotes them; for
bench, a table of medians, scene by variant, and one of the work counted per record where the
renderer counts it); it works without matplotlib. Exit codes: 0 done, 1 bad input or an output
that cannot be written, 2 a command-line mistake, 3 matplotlib is missing (no PNG drawn).
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict

MISSING_MATPLOTLIB = 3  # exit code when only the plots could not be drawn (the tests skip on it)


def group_records(records):
    families = OrderedDict()
    for r in records:
        key = (r["task"], r["type"], r["size"])
        families.setdefault(r["family"], OrderedDict()).setdefault(key, []).append(r)
    return families


def label(r):
    return r["variant"] + ("/%d" % r["param"] if "param" in r else "")


def plot_bars(ax, rows):
    copy = [r for r in rows if r["variant"] == "device-copy"]
    refs = [r for r in rows if r.get("reference") and r["variant"] != "device-copy"]
    rungs = [r for r in rows if r["variant"] != "device-copy"]
    xs = range(len(rungs))
    colours = ["#999999" if r.get("reference") else ("#d62728" if r["check"] != "ok" else "#1f77b4") for r in rungs]
    ax.bar(xs, [r["gbps"] for r in rungs], color=colours)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([label(r) for r in rungs], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("GB/s (10^9 B/s)")
    if copy:
        ax.axhline(copy[0]["gbps"], color="black", linestyle="--", linewidth=1,
                   label="device copy %.0f GB/s" % copy[0]["gbps"])
    for r in refs:
        ax.axhline(r["gbps"], color="#2ca02c", linestyle=":", linewidth=1.5,
                   label="%s %.0f GB/s" % (label(r), r["gbps"]))
    if copy or refs:
        ax.legend(fontsize=7, loc="upper left")


def plot_lines(ax, rows, family):
    copy = [r for r in rows if r["variant"] == "device-copy"]
    by_variant = OrderedDict()
    for r in rows:
        if r["variant"] != "device-copy":
            by_variant.setdefault(r["variant"], []).append(r)
    for name, rs in by_variant.items():
        rs = sorted(rs, key=lambda r: r.get("param", 0))
        xs = [r.get("param", 0) for r in rs]
        if family == "banks":
            ys = [r["median_ms"] for r in rs]
            ax.plot(xs, ys, marker="o", markersize=3, label=name)
        else:
            ax.plot(xs, [r["gbps"] for r in rs], marker="o", markersize=3, label=name)
    if family == "banks":
        ax.set_ylabel("median ms (same loads at every stride)")
        ax.set_xlabel("stride (words)")
        ax.set_yscale("log")
    else:
        ax.set_ylabel("GB/s (10^9 B/s)")
        ax.set_xlabel(rows[-1].get("param_name", "knob"))
        if copy:
            ax.axhline(copy[0]["gbps"], color="black", linestyle="--", linewidth=1,
                       label="device copy %.0f GB/s" % copy[0]["gbps"])
    ax.legend(fontsize=7)


def markdown(families):
    out = []
    for family, groups in families.items():
        for (task, typ, size), rows in groups.items():
            copy = [r for r in rows if r["variant"] == "device-copy"]
            rungs = [r for r in rows if r["variant"] != "device-copy"]
            out.append("#### %s: %s, %s, %s" % (family, task, typ, size))
            out.append("")
            if copy:
                out.append("Device copy of the input: %.4f ms, %.0f GB/s (read + written)." %
                           (copy[0]["median_ms"], copy[0]["gbps"]))
                out.append("")
            knob = next((r["param_name"] for r in rungs if "param_name" in r), None)
            banks = family == "banks"
            head = ["variant"] + ([knob] if knob else []) + ["check", "median ms", "min ms", "max ms"]
            head += ["wavefronts (arith.)"] if banks else ["GB/s", "% of copy", "% of ref", "x first"]
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + " --- |" * len(head))
            first = rungs[0]["median_ms"] if rungs else 0
            for r in rungs:
                cells = [r["variant"] + (" (ref)" if r.get("reference") else "")]
                if knob:
                    cells.append(str(r.get("param", "")))
                cells += [r["check"] if r["check"] == "ok" else "**" + r["check"] + "**",
                          "%.4f" % r["median_ms"], "%.4f" % r["min_ms"], "%.4f" % r["max_ms"]]
                if banks:
                    cells.append("%.2f" % r.get("wavefronts_arith", 0))
                else:
                    cells += ["%.0f" % r["gbps"],
                              "%.1f" % r["pct_copy"] if "pct_copy" in r else "",
                              "%.1f" % r["pct_reference"] if "pct_reference" in r else "",
                              "%.2f" % (first / r["median_ms"]) if r["median_ms"] > 0 else ""]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out)


# --- `circles bench --json` ---------------------------------------------------------------------

DASH = "\u2014"  # a missing cell in the Markdown tables
MB = 1024.0 * 1024.0  # as `circles bench` prints peak device memory


def is_bench(records):
    return all(isinstance(r, dict) and "scene" in r and "median_ms" in r for r in records)


KERNEL_FIELDS = {"family": str, "task": str, "type": str, "size": str, "variant": str, "check": str,
                 "gbps": (int, float), "median_ms": (int, float), "min_ms": (int, float), "max_ms": (int, float)}


def check_kernels(records):
    """The reason the kernel records cannot be plotted, or None."""
    for i, r in enumerate(records):
        for key, kind in KERNEL_FIELDS.items():
            if not isinstance(r.get(key), kind) or isinstance(r.get(key), bool):
                return "record %d: %s is missing or not a %s" % (
                    i, key, "string" if kind is str else "number")
        if "param" in r and not isinstance(r["param"], int):
            return "record %d: param is not a whole number" % i
    return None


def check_bench(records):
    """The reason the records cannot be plotted, or None."""
    for i, r in enumerate(records):
        if not isinstance(r["median_ms"], (int, float)) or isinstance(r["median_ms"], bool):
            return "record %d: median_ms is not a number" % i
        if not isinstance(r.get("variant", r.get("renderer")), str):
            return "record %d: has neither a variant nor a renderer name" % i
        if r.get("work") is not None and not isinstance(r["work"], dict):
            return "record %d: work is neither an object nor null" % i
    return None


def bench_size(r):
    return "%sx%s" % (r.get("width", "?"), r.get("height", "?"))


def bench_tables(records):
    """(scenes, columns, cell): scene groups in first-seen order, bar labels, {(scene, label): record}.

    A bar is a variant; a variant timed in more than one mode (a file whose variant names do not
    say the mode) gets the mode appended. A file with more than one frame size groups by scene and
    size."""
    modes = OrderedDict()
    for r in records:
        modes.setdefault(r.get("variant", r.get("renderer")), set()).add(r.get("mode") or "exact")
    sizes = {bench_size(r) for r in records}
    scenes, columns, cell = [], [], {}
    for r in records:
        name = r.get("variant", r.get("renderer"))
        mode = r.get("mode") or "exact"
        col = name + (" [%s]" % mode if len(modes[name]) > 1 else "")
        scene = str(r["scene"]) + (" " + bench_size(r) if len(sizes) > 1 else "")
        if scene not in scenes:
            scenes.append(scene)
        if col not in columns:
            columns.append(col)
        cell[(scene, col)] = r  # a pair timed twice: the last one
    return scenes, columns, cell


def bench_markdown(records):
    scenes, columns, cell = bench_tables(records)
    sizes = sorted({bench_size(r) for r in records})
    out = ["#### bench: median ms per frame, %s" % ", ".join(sizes), ""]
    out.append("| scene | " + " | ".join(columns) + " |")
    out.append("|" + " --- |" * (len(columns) + 1))
    for scene in scenes:
        cells = [scene] + ["%.3f" % cell[(scene, c)]["median_ms"] if (scene, c) in cell else DASH
                           for c in columns]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    worked = [(scene, c, cell[(scene, c)]) for scene in scenes for c in columns
              if (scene, c) in cell and isinstance(cell[(scene, c)].get("work"), dict)]
    if worked:
        out.append("#### bench: work per frame")
        out.append("")
        head = ["scene", "variant", "pairs", "chunks", "circles never binned %", "pixel tests", "blends",
                "peak device MB"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + " --- |" * len(head))

        def count(w, key):
            return str(w[key]) if isinstance(w.get(key), int) else DASH

        for scene, c, r in worked:
            w = r["work"]
            circles, binned = w.get("circles"), w.get("circles_binned")
            # A frame drawn without binning (chunks 0: every block walked the circles) skipped none.
            skipped = ("%.1f" % (100.0 * (1.0 - float(binned) / circles))
                       if isinstance(circles, int) and isinstance(binned, int) and circles > 0
                       and w.get("chunks") else DASH)
            peak = r.get("peak_device_bytes")
            cells = [scene, c, count(w, "pairs"), count(w, "chunks"), skipped, count(w, "pixel_tests"),
                     count(w, "blends"), "%.1f" % (peak / MB) if isinstance(peak, (int, float)) else DASH]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def plot_bench(plt, records, outdir):
    scenes, columns, cell = bench_tables(records)
    n = max(len(columns), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(7.5, 0.55 + len(scenes) * (0.25 + 0.18 * n)), 4.8))
    colours = plt.get_cmap("tab10" if n <= 10 else "tab20")
    for i, c in enumerate(columns):
        xs = [j + (i - (n - 1) / 2.0) * width for j, scene in enumerate(scenes)
              if (scene, c) in cell and cell[(scene, c)]["median_ms"] > 0]
        ys = [cell[(scene, c)]["median_ms"] for scene in scenes
              if (scene, c) in cell and cell[(scene, c)]["median_ms"] > 0]
        ax.bar(xs, ys, width=width, color=colours(i % colours.N), label=c)
    ax.set_yscale("log")
    ax.set_xticks(list(range(len(scenes))))
    ax.set_xticklabels(scenes, rotation=30 if len(scenes) > 6 else 0,
                       ha="right" if len(scenes) > 6 else "center", fontsize=8)
    ax.set_xlim(-0.6, len(scenes) - 0.4)
    ax.set_ylabel("ms per frame (median)")
    sizes = sorted({bench_size(r) for r in records})
    frames = sorted({r["frames"] for r in records if isinstance(r.get("frames"), int)})
    timed = ""
    if frames:
        timed = ", %d%s frame%s" % (frames[0], "" if len(frames) == 1 else "-%d" % frames[-1],
                                    "" if frames == [1] else "s")
    ax.set_title("circles bench, %s%s: time per scene, renderer and mode" % (", ".join(sizes), timed), fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path = os.path.join(outdir, "bench.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print("plot_kernels: %s" % path)


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_kernels: matplotlib is missing (apt-get install python3-matplotlib)", file=sys.stderr)
        sys.exit(MISSING_MATPLOTLIB)
    return plt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="file written by `circles kernels --json` or `circles bench --json`")
    ap.add_argument("-o", "--outdir", default=".", help="where the PNGs go (default: .)")
    ap.add_argument("--markdown", help="also write the measurements as Markdown tables to this file")
    args = ap.parse_args()
    try:
        with open(args.json) as f:
            records = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("plot_kernels: cannot read %s: %s" % (args.json, e))
    if not isinstance(records, list):
        sys.exit("plot_kernels: %s is neither `circles kernels --json` nor `circles bench --json` output"
                 % args.json)
    if not records:
        sys.exit("plot_kernels: %s holds no records: nothing to plot" % args.json)
    try:
        run(args, records)
    except OSError as e:  # the output folder, a PNG or the Markdown file
        sys.exit("plot_kernels: cannot write %s: %s" % (e.filename or args.outdir, e.strerror or e))


def run(args, records):
    if is_bench(records):
        problem = check_bench(records)
        if problem:
            sys.exit("plot_kernels: %s is not usable `circles bench --json` output: %s" % (args.json, problem))
        os.makedirs(args.outdir, exist_ok=True)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as f:  # the em dash
                f.write(bench_markdown(records))
            print("plot_kernels: %s" % args.markdown)
        plot_bench(import_pyplot(), records, args.outdir)
        return
    if not all(isinstance(r, dict) and "family" in r and "task" in r for r in records):
        sys.exit("plot_kernels: %s is neither `circles kernels --json` nor `circles bench --json` output "
                 "(kernel records have \"family\" and \"task\", bench records \"scene\" and \"median_ms\")"
                 % args.json)
    problem = check_kernels(records)
    if problem:
        sys.exit("plot_kernels: %s is not usable `circles kernels --json` output: %s" % (args.json, problem))
    os.makedirs(args.outdir, exist_ok=True)
    families = group_records(records)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(families))
        print("plot_kernels: %s" % args.markdown)
    plt = import_pyplot()
    for family, groups in families.items():
        n = len(groups)
        cols = min(n, 2)
        rows_n = math.ceil(n / cols)
        fig, axes = plt.subplots(rows_n, cols, figsize=(7.5 * cols, 4.8 * rows_n), squeeze=False)
        for ax, ((task, typ, size), rows) in zip(axes.flat, groups.items()):
            distinct = {r.get("param") for r in rows if "param" in r}
            if len(distinct) > 6 and family in ("banks", "conv"):
                plot_lines(ax, rows, family)
            else:
                plot_bars(ax, rows)
            ax.set_title("%s %s, %s %s" % (family, task, typ, size), fontsize=9)
            ax.grid(axis="y", alpha=0.3)
        for ax in list(axes.flat)[n:]:
            ax.axis("off")
        fig.tight_layout()
        path = os.path.join(args.outdir, "kernels_%s.png" % family)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        print("plot_kernels: %s" % path)


if __name__ == "__main__":
    main()
