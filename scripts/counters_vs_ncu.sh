#!/usr/bin/env bash
# In-process hardware counters (`circles kernels --counters`: CUPTI's range profiler, see
# kernels/cuda/counters.h) beside Nsight Compute's figures for the same kernels, as one table.
#
# For each case (one variant and knob value), two runs of the same `circles kernels` command:
#   1. with --counters: after the checked and timed runs, one more run under CUPTI, its metrics
#      summed over all its kernels, into $OUT/counters_<case>.json (and .log);
#   2. under `ncu --metrics <the same list> --csv` without --counters (two profilers cannot share the
#      counters), --repeat 1 --warmup 0: every kernel of the checked run and of the one timed run,
#      into $OUT/ncu_<case>.csv (and .err). The timed run's kernels (the second half) are combined
#      the way one range combines them: sums added, percentages weighted by sm__cycles_active.sum,
#      threads per instruction weighted by sm__inst_executed.sum.
# ncu runs with --cache-control none --clock-control none, so it sees the caches and clocks the
# program sees (set NCU_FLAGS to change that, e.g. NCU_FLAGS="--cache-control all"); the metric
# list is read from the --counters JSON, so it is the program's own (kernels/cuda/counters.cpp).
#
# On the GPU machine, as root (both need permission to profile), with the executables in $BIN
# (default .device/bin); writes under $OUT (default /tmp/circles-gpu-out), the table in
# $OUT/counters_vs_ncu.md. Usage: bash scripts/counters_vs_ncu.sh [case ...]
# Cases: reduce-shuffle scan-warp-shuffle transpose-naive-read transpose-best banks-32bit-1
# banks-32bit-32 (default: all).
set -uo pipefail
BIN=$(realpath "${BIN:-.device/bin}")
OUT=${OUT:-/tmp/circles-gpu-out}
NCU_FLAGS=${NCU_FLAGS:---cache-control none --clock-control none}
mkdir -p "$OUT"
command -v ncu > /dev/null || { echo "counters_vs_ncu: ncu is not on PATH" >&2; exit 1; }
command -v python3 > /dev/null || { echo "counters_vs_ncu: python3 is not on PATH" >&2; exit 1; }

# name | circles kernels arguments (one variant, one knob value, HBM-sized inputs)
all_cases=(
  "reduce-shuffle|reduce --variant reduce-shuffle --param 256 --type i32 --size 2^26"
  "scan-warp-shuffle|scan --variant scan-warp-shuffle --type i32 --size 2^26"
  "transpose-naive-read|transpose --variant transpose-naive-read --size 8192x8192"
  "transpose-best|transpose --variant transpose-best --size 8192x8192"
  "banks-32bit-1|banks --variant banks-32bit --param 1 --size 2^20"
  "banks-32bit-32|banks --variant banks-32bit --param 32 --size 2^20"
)
cases=()
if [ $# -gt 0 ]; then
  for want in "$@"; do
    found=0
    for c in "${all_cases[@]}"; do [ "${c%%|*}" = "$want" ] && cases+=("$c") && found=1; done
    [ $found -eq 1 ] || { echo "counters_vs_ncu: unknown case $want" >&2; exit 2; }
  done
else
  cases=("${all_cases[@]}")
fi

status=0
names=()
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  names+=("$name")
  echo "== $name: circles kernels $args --counters"
  # shellcheck disable=SC2086
  "$BIN/circles" kernels $args --repeat 5 --warmup 1 --counters --json "$OUT/counters_$name.json" \
    > "$OUT/counters_$name.log" 2>&1
  rc=$?
  grep -E "counters" "$OUT/counters_$name.log" | sed 's/^/   /'
  [ "$rc" -eq 0 ] || { echo "   circles rc=$rc"; status=1; continue; }
  metrics=$(python3 - "$OUT/counters_$name.json" <<'EOF'
import json, sys
names = []
for r in json.load(open(sys.argv[1])):
    c = r.get("counters", {})
    for m in list(c.get("values", {})) + c.get("missing", []):
        if m not in names:
            names.append(m)
if "sm__cycles_active.sum" not in names:
    names.append("sm__cycles_active.sum")  # the weight of the percentages
print(",".join(names))
EOF
)
  if [ -z "$metrics" ] || [ "$metrics" = "sm__cycles_active.sum" ]; then
    echo "   no counters in $OUT/counters_$name.json (see the log)"; status=1; continue
  fi
  echo "== $name: ncu on circles kernels $args"
  # shellcheck disable=SC2086
  ncu $NCU_FLAGS --metrics "$metrics" --csv --print-units base "$BIN/circles" kernels $args --repeat 1 --warmup 0 \
    > "$OUT/ncu_$name.csv" 2> "$OUT/ncu_$name.err"
  rc=$?
  echo "   ncu rc=$rc, $(grep -c '^"' "$OUT/ncu_$name.csv") CSV lines"
  [ "$rc" -eq 0 ] || status=1
done

python3 - "$OUT" "${names[@]}" > "$OUT/counters_vs_ncu.md" <<'EOF'
import csv, json, math, os, sys

out, names = sys.argv[1], sys.argv[2:]
WEIGHT = {  # how one range combines a non-sum metric over several kernels
    "smsp__thread_inst_executed_per_inst_executed.ratio": "sm__inst_executed.sum",
}


def combine(kernels, metric):
    if metric.endswith(".sum"):
        return sum(k[metric] for k in kernels)
    w = WEIGHT.get(metric, "sm__cycles_active.sum")
    total = sum(k[w] for k in kernels)
    return sum(k[metric] * k[w] for k in kernels) / total if total else float("nan")


def fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return "{:,.0f}".format(x) if abs(x) >= 1000 else "{:.3f}".format(x)


print("| case | metric | CUPTI (circles --counters) | ncu | CUPTI / ncu |")
print("| --- | --- | --- | --- | --- |")
worst = 0.0
for name in names:
    try:
        records = json.load(open(os.path.join(out, "counters_%s.json" % name)))
        cupti = next(r["counters"] for r in records if "counters" in r)
    except (OSError, ValueError, StopIteration) as e:
        print("| %s | (no CUPTI figures: %s) | | | |" % (name, e))
        continue
    if "error" in cupti:
        print("| %s | (CUPTI: %s) | | | |" % (name, cupti["error"]))
        continue
    kernels = {}
    try:
        with open(os.path.join(out, "ncu_%s.csv" % name)) as f:
            rows = [l for l in f.read().splitlines() if l.startswith('"')]
        for r in csv.DictReader(rows):
            k = kernels.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
            try:
                k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:  # "n/a"
                k[r["Metric Name"]] = float("nan")
    except (OSError, ValueError, KeyError) as e:
        print("| %s | (no ncu figures: %s) | | | |" % (name, e))
        continue
    launches = [kernels[i] for i in sorted(kernels)]
    # The checked run, then the timed one: the same kernels twice. The timed run is compared.
    half = len(launches) // 2
    timed = launches[half:]
    if len(launches) % 2 or [k["name"] for k in launches[:half]] != [k["name"] for k in timed]:
        print("| %s | (ncu saw %d launches, not two equal runs: comparing all of them) | | | |"
              % (name, len(launches)))
        timed = launches
    note = "%d kernel%s" % (len(timed), "" if len(timed) == 1 else "s")
    for metric, value in cupti["values"].items():
        try:
            theirs = combine(timed, metric)
        except KeyError:
            theirs = None
        ok = theirs and value is not None and not math.isnan(theirs) and not math.isnan(value)
        ratio = value / theirs if ok else None
        if ratio is not None and metric.startswith(("dram__", "l1tex__", "sm__inst_executed")) and theirs > 1e6:
            worst = max(worst, abs(ratio - 1))
        print("| %s (%s) | %s | %s | %s | %s |" % (name, note, metric, fmt(value), fmt(theirs),
                                                  "n/a" if ratio is None else "%.4f" % ratio))
print()
print("Largest relative difference of the counts (DRAM bytes, shared wavefronts and conflicts, "
      "instructions; those over 10^6): %.2f%%" % (100 * worst))
EOF
cat "$OUT/counters_vs_ncu.md"
exit $status
