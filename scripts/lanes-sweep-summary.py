#!/usr/bin/env python3
"""Sums up scripts/lanes-sweep.sh's output (issue 11's target: `lanes: auto` within 1.05x
of the best fixed width on every host row).

Usage: scripts/lanes-sweep-summary.py sweep.tsv

One line per row (workload x instruction sets): auto's median over the rounds [range],
the best fixed width's median, their ratio, and, as the noise floor, auto against the
fixed run of the very shape auto chose (the same code timed in other processes: a ratio
far from 1 there is the machine, not the choice). `any` rows compare with every fixed
width of both instruction sets.
"""

import collections
import csv
import statistics
import sys


def main(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    times = collections.defaultdict(list)
    shapes = collections.defaultdict(list)
    for r in rows:
        key = (r["workload"], r["isa"], r["lanes"])
        times[key].append(float(r["time_ms"]))
        if r["lanes"] == "auto":
            shapes[key[:2]].append(r["shape"].split(" (")[0])
    rounds = max(int(r["round"]) for r in rows)
    print(f"{rounds} rounds; medians in ms [min-max]")
    within = total = 0
    for w in dict.fromkeys(r["workload"] for r in rows):
        for isa in ("any", "avx512", "avx2"):
            auto = times.get((w, isa, "auto"))
            if not auto:
                continue
            fixed = {
                f"{i} x{lanes}": statistics.median(t)
                for (ww, i, lanes), t in times.items()
                if ww == w and lanes != "auto" and (isa in ("any", i))
            }
            best = min(fixed, key=fixed.get)
            a = statistics.median(auto)
            chosen = collections.Counter(shapes[(w, isa)]).most_common(1)[0][0]
            same = fixed.get(chosen)
            total += 1
            within += a <= 1.05 * fixed[best]
            floor = f"{a / same:.2f}" if same else "-"
            print(
                f"{w:16s} {isa:6s} auto {a:7.2f} [{min(auto):.2f}-{max(auto):.2f}]"
                f" best {best:>10s} {fixed[best]:7.2f}  ratio {a / fixed[best]:.2f}"
                f"  chose {chosen} ({len(set(shapes[(w, isa)]))} shapes over rounds),"
                f" vs that shape fixed {floor}"
            )
    print(f"{within} of {total} rows within 1.05x")


if __name__ == "__main__":
    main(sys.argv[1])
