#!/usr/bin/env bash
# Issue 11's measurement: every host card row with `lanes: auto` against each fixed width
# (and on AVX2 with --isa avx2), interleaved rounds, medians per row from the card binary.
# Usage: scripts/lanes-sweep.sh [rounds] [threads] > sweep.tsv  (build first:
# cargo build --release -p eagle-cli; scripts/lanes-sweep-summary.py sweep.tsv sums it
# up). The tuning cache is a fresh temporary folder, so the first auto run of each row
# probes and the next two check; the card binary times each row after its warm-up
# (`WARMUP` runs, then more until `lanes: auto` has settled: the `warmup_runs` column).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
THREADS=${2:-2}
# Untimed runs before each row's timed ones (auto rows: more until settled), the same for
# every row: a short run's speed can keep rising over a process's first runs.
WARMUP=${WARMUP:-10}
CARD=${CARD:-target/release/card}
export EAGLE_CACHE_DIR=$(mktemp -d)
WORKLOADS=${WORKLOADS:-"oscillator lorenz-rk4-f64 lorenz-rk4-f32 lorenz-rk78-f64 lorenz-rk78-f32 kepler-rk78 pendulum-rk4-f64 pendulum-rk4-f32"}
# isa `any` is the default (auto picks among every instruction set of the CPU); the
# others force one, as `EAGLE_ISA` / `--isa` do.
echo -e "round\tworkload\tisa\tlanes\ttime_ms\tpct_peak\tshape\tceiling_pct_peak\tpct_of_ceiling\twarmup_runs"
for r in $(seq "$ROUNDS"); do
  for w in $WORKLOADS; do
    for isa in any avx512 avx2; do
      for lanes in auto 8 16 32 64; do
        [ "$isa" = avx2 ] && [ "$lanes" = 64 ] && continue
        [ "$isa" = any ] && [ "$lanes" != auto ] && continue
        args=(--workload "$w" --arm host --threads "$THREADS" --repeat 5 --warmup "$WARMUP" --json)
        [ "$isa" != any ] && args+=(--isa "$isa")
        [ "$lanes" != auto ] && args+=(--lanes "$lanes")
        "$CARD" "${args[@]}" 2>/dev/null | python3 -c '
import json, sys
c = json.load(sys.stdin); row = c["rows"][0]
print("\t".join(str(x) for x in [sys.argv[1], row["workload"], sys.argv[2], sys.argv[3],
      round(row["time_ms"], 2), round(row["flops_pct_of_peak"], 1), row.get("shape"),
      round(row.get("ceiling_pct_of_peak") or 0, 1), round(row.get("pct_of_ceiling") or 0, 1),
      row.get("warmup_runs")]))
' "$r" "$isa" "$lanes"
      done
    done
  done
done
