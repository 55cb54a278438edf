#!/usr/bin/python3
"""Plots `circles kernels --json` output: one PNG per family, one panel per task, type and size.

Ladders are bars of GB/s per variant (in registry order, knob values as "name/value"), with the
device copy and the library reference (CUB) drawn across as lines. Knobs with many values (the
bank-conflict strides, the convolution radii) are drawn as lines over the knob instead.

Usage: scripts/plot_kernels.py KERNELS.json [-o OUTDIR] [--markdown FILE]   (needs python3-matplotlib)
--markdown also writes the same measurements as Markdown tables (docs/KERNELS.md quotes them); it
works without matplotlib. Exit codes: 0 done, 1 bad input, 3 matplotlib is missing (no PNG drawn).
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="file written by `circles kernels --json`")
    ap.add_argument("-o", "--outdir", default=".", help="where the PNGs go (default: .)")
    ap.add_argument("--markdown", help="also write the measurements as Markdown tables to this file")
    args = ap.parse_args()
    try:
        with open(args.json) as f:
            records = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("plot_kernels: cannot read %s: %s" % (args.json, e))
    if not isinstance(records, list) or not all(isinstance(r, dict) and "family" in r for r in records):
        sys.exit("plot_kernels: %s is not `circles kernels --json` output" % args.json)
    os.makedirs(args.outdir, exist_ok=True)
    families = group_records(records)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(families))
        print("plot_kernels: %s" % args.markdown)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_kernels: matplotlib is missing (apt-get install python3-matplotlib)", file=sys.stderr)
        sys.exit(MISSING_MATPLOTLIB)
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
