#!/usr/bin/env bash
# The one-call GPU check, run on the GPU machine from the bundle folder that
# scripts/gpu-bundle.sh made (no Rust, no network). Runs the device tests (device_gpu's
# with --ignored: they are marked as needing a GPU), device_props,
# the seed page on the device with n = 1,000,000, start-up cold vs warm (JIT into a fresh
# build cache, then a cache hit; the built-in cubin skipped with EAGLE_CUBIN=off), each arm
# x compaction strategy on the oscillator, and `nsys profile --stats=true` of the seed page
# when nsys is on PATH; writes full logs to the folder named by $1 or $OUT (default ./gpu-logs)
# and prints a short table last. Whole run: a few minutes at most.
#
# Phases, their time limits, and the time each is expected to take (estimated on
# 2026-12-07 from the emulated run on a 2-core Xeon and the build's ptxas times; no GPU
# has run them yet, so these are estimates, not measurements):
#   test device_gpu --ignored   240 s  ~30-60 s: one context and one module load for the
#                                      whole binary (CUDA teams of one process share a
#                                      loaded module, runtime/src/device/cuda/shared.rs),
#                                      the built-in sm_90 cubin (no JIT on an H100/H200);
#                                      the rest is the host references at the GPU sizes
#                                      (the emulated set takes 28 s on 2 cores at sizes
#                                      10-100x smaller, its device work done by the CPU)
#   test no_driver / device_emulated / report
#                               240 s each  ~1 s / ~30 s / ~5 s (2 cores; 16 cores less)
#   seed page n=1e6             120 s  ~5 s (cubin load, 1e6 samples x 1000 steps)
#   user crate (vdp-app)        180 s  ~10 s (its own module: JIT unless its cubin fits)
#   start-up cold (JIT)         120 s  ~30-60 s: the driver's JIT of 12 MB of PTX is ptxas's
#                                      work, 44 s on one core here (docs/measurements.md)
#   start-up warm               120 s  ~3 s (the cached image)
#   3 arms x 2 strategies       120 s each  ~5 s each (two runs of n = 1e6)
#   nsys profile                300 s  ~30 s where nsys is installed
# In all about 5 minutes expected. The limits add up to 42 minutes, more than a lent
# device's call: see EAGLE_GPU_CHECK_S below.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="$HERE/bin"
LOGS="${1:-${OUT:-$HERE/gpu-logs}}"
mkdir -p "$LOGS"
# Only if the driver refuses the WHILE condition setter as plain PTX is it linked with this.
export EAGLE_CUDADEVRT="${EAGLE_CUDADEVRT:-$BIN/libcudadevrt.a}"
cd "$LOGS"
ROWS=()
row() { ROWS+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }

# The whole check stops starting phases once EAGLE_GPU_CHECK_S seconds (default 540, under
# a lent device's 600 s per call) are spent, and cuts the last one short, so that the table
# always comes back: a phase not run says so in its log and its row.
DEADLINE=${EAGLE_GPU_CHECK_S:-540}
run() { # name timeout cmd...
  local name=$1 t=$2; shift 2
  local left=$((DEADLINE - SECONDS))
  if [ "$left" -le 5 ]; then
    echo "skipped: the check's $DEADLINE s were spent" >"$LOGS/$name.log"
    echo "== $name: skipped (the check's $DEADLINE s were spent)"
    return 125
  fi
  [ "$t" -gt "$left" ] && t=$left
  local start=$(date +%s.%N)
  timeout "$t" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  local secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
  echo "== $name: rc=$rc (${secs}s)"
  return $rc
}

nvidia-smi >"$LOGS/nvidia-smi.log" 2>&1 || true

# device_gpu's tests are all `#[ignore = "needs a CUDA GPU"]` (so a machine without one
# reports them as ignored, not passed): here they run with --ignored, and fail if the GPU
# is not usable. The other subjects run their ordinary (non-ignored) tests.
# Every integration test is one binary, `it`; each subject is a module filter.
for t in device_gpu no_driver device_emulated report; do
  [ -x "$BIN/it" ] || { row "test $t" "MISS" "binary not in bundle"; continue; }
  args=(--nocapture --test-threads=1)
  [ "$t" = device_gpu ] && args+=(--ignored)
  if run "test-$t" 240 "$BIN/it" "$t::" "${args[@]}"; then st=ok; else st=FAIL; fi
  summary=$(grep -E "^test result" "$LOGS/test-$t.log" | tail -1)
  skips=$(grep -c "skipped:" "$LOGS/test-$t.log")
  [ "$skips" = 0 ] && skips=
  row "test $t${args[2]:+ ${args[2]}}" "$st" "$summary${skips:+ (skipped: $skips)}"
done
props=$(grep -E "name:|sm_count|compute_capability|fp64_flops|memory_bandwidth" "$LOGS/test-device_gpu.log" 2>/dev/null | tr -s ' ' | tr '\n' ' ')
row "device_props" "-" "${props:-see test-device_gpu.log}"

if run seed-page 120 "$BIN/profile-your-run" --team device --n 1000000 --figure "$LOGS/seed.svg"; then st=ok; else st=FAIL; fi
row "seed page n=1e6" "$st" "$(grep -E '^build:' "$LOGS/seed-page.log" | tail -1) $(grep -E '^start-up:' "$LOGS/seed-page.log")"

# A user's kernel crate (examples/user-crate), from its own module: host, emulated, best team.
if run user-crate 180 "$BIN/vdp-app"; then st=ok; else st=FAIL; fi
row "user crate (vdp-app)" "$st" "$(grep -E '^best team|^note:|bit for bit' "$LOGS/user-crate.log" | tr '\n' ' ')"

# Start-up: the JIT into an empty build cache (cold), then the same from the cache (warm).
CACHE="$LOGS/build-cache"
rm -rf "$CACHE"
for phase in cold warm; do
  if EAGLE_CUBIN=off EAGLE_CACHE_DIR="$CACHE" run "startup-$phase" 120 "$BIN/profile-your-run" \
      --team device --n 100000 --figure "$LOGS/startup-$phase.svg"; then st=ok; else st=FAIL; fi
  row "start-up $phase (EAGLE_CUBIN=off)" "$st" "$(grep -E '^start-up:|^note:' "$LOGS/startup-$phase.log" | tr '\n' ' ')"
done

for arm in simulate graph graph_while; do
  for strategy in index_list gather; do
    name="osc-$arm-$strategy"
    if run "$name" 120 "$BIN/profile-your-run" --team device --n 1000000 --arm "$arm" \
        --strategy "$strategy" --runs 2 --figure "$LOGS/$name.svg"; then st=ok; else st=FAIL; fi
    first=$(grep -E '^earlier run:' "$LOGS/$name.log" | sed 's/earlier run: //')
    second=$(grep -E '^build:' "$LOGS/$name.log" | tail -1)
    launches=$(grep -oE '^launches: [0-9]+' "$LOGS/$name.log" | tail -1)
    note=$(grep -E '^note:' "$LOGS/$name.log" | head -1)
    row "$arm/$strategy" "$st" "1st [$first] 2nd [$second] $launches $note"
  done
done

# NVTX ranges (the bundle's seed page is built with --features nvtx) in nsys's summary.
if command -v nsys >/dev/null 2>&1; then
  if run nsys-seed-page 300 nsys profile --stats=true --force-overwrite=true \
      -o "$LOGS/seed-page" "$BIN/profile-your-run" --team device --n 1000000 \
      --figure "$LOGS/nsys-seed.svg"; then st=ok; else st=FAIL; fi
  ranges=$(grep -cwE 'launch|upload|to_host|compaction' "$LOGS/nsys-seed-page.log")
  row "nsys profile seed page" "$st" "lines naming eagle's NVTX ranges: $ranges (see nsys-seed-page.log)"
else
  echo "== nsys not on PATH: skipping the nsys profile of the seed page"
  row "nsys profile seed page" "SKIP" "nsys not on PATH"
fi

echo
echo "logs: $LOGS"
printf '%-34s %-6s %s\n' "check" "status" "numbers"
for r in "${ROWS[@]}"; do echo "$r"; done
