#!/usr/bin/env bash
# Times card rows across MPI ranks against one process, interleaving the variants so that a
# busy machine slows each of them alike: ROUNDS rounds (default 7), each running every
# variant once (each run: the card binary's median of REPEAT timed runs, default 5); prints
# per variant the median over rounds, the spread (min-max) and the last imbalance.
#
#   1. weak scaling: Lorenz RK4 f64 (the card's row, n = 65,536), 1 rank x 2 threads vs
#      2 ranks x 1 thread (static shards; time includes the root's scatter and gather);
#   2. Kepler (n = 16,384) under 2 ranks x 1 thread: static shards vs dynamic chunks, in the
#      card's shuffled order and sorted by lifetime (long-lived samples together).
#
# Needs the card built with MPI: cargo build --release -p eagle-cli --features mpi
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
REPEAT=${REPEAT:-5}
LANES=${LANES:-8}
CARD=target/release/card
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2)
[ -x "$CARD" ] || { echo "build first: cargo build --release -p eagle-cli --features mpi" >&2; exit 1; }

grep -m1 "model name" /proc/cpuinfo
grep -m1 -o -w -E "avx512f|avx2" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
nproc

out=$(mktemp -d)
variant() { # name, command...
  local name=$1; shift
  local log="$out/$name.txt"
  "$@" > "$out/last" 2>&1 || { cat "$out/last" >&2; exit 1; }
  # The row's time (ms) is the 4th column of the card's table; the imbalance line follows.
  local t imb
  t=$(grep -m1 '^| host | host |' "$out/last" | awk -F'|' '{gsub(/ /,"",$5); print $5}' || true)
  imb=$(grep -m1 -o 'imbalance: [0-9.]*' "$out/last" | awk '{print $2}' || true)
  echo "$t ${imb:--}" >> "$log"
}

for r in $(seq "$ROUNDS"); do
  echo "round $r/$ROUNDS" >&2
  variant lorenz_1rank_2threads "$CARD" --workload lorenz-rk4-f64 --threads 2 --lanes "$LANES" --repeat "$REPEAT"
  variant lorenz_2ranks_1thread "${MPIRUN[@]}" "$CARD" --workload lorenz-rk4-f64 --threads 1 --lanes "$LANES" --repeat "$REPEAT"
  variant kepler_static "${MPIRUN[@]}" "$CARD" --workload kepler-rk78 --threads 1 --lanes "$LANES" --repeat "$REPEAT" --balance static
  variant kepler_dynamic "${MPIRUN[@]}" "$CARD" --workload kepler-rk78 --threads 1 --lanes "$LANES" --repeat "$REPEAT" --balance dynamic
  variant kepler_sorted_static "${MPIRUN[@]}" "$CARD" --workload kepler-rk78 --threads 1 --lanes "$LANES" --repeat "$REPEAT" --balance static --sorted
  variant kepler_sorted_dynamic "${MPIRUN[@]}" "$CARD" --workload kepler-rk78 --threads 1 --lanes "$LANES" --repeat "$REPEAT" --balance dynamic --sorted
done

python3 - "$out" <<'EOF'
import statistics, sys, pathlib
d = pathlib.Path(sys.argv[1])
print(f"{'variant':<24} {'median ms':>10} {'min-max ms':>18} {'imbalance (median)':>19}  runs")
med = {}
for f in sorted(d.glob("*.txt")):
    rows = [l.split() for l in f.read_text().split("\n") if l.strip()]
    t = [float(r[0]) for r in rows]
    imb = [float(r[1]) for r in rows if r[1] != "-"]
    med[f.stem] = statistics.median(t)
    im = f"{statistics.median(imb):.2f}" if imb else "-"
    print(f"{f.stem:<24} {med[f.stem]:>10.1f} {min(t):>8.1f}-{max(t):<9.1f} {im:>19}  {len(t)}")
def ratio(a, b):
    if a in med and b in med:
        print(f"{a} / {b}: {med[a] / med[b]:.3f}")
ratio("lorenz_2ranks_1thread", "lorenz_1rank_2threads")
ratio("kepler_dynamic", "kepler_static")
ratio("kepler_sorted_dynamic", "kepler_sorted_static")
EOF
