#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Calibrate the cost model of --sched vtime (stress/rt_vtime.h): run every
# design on sdet32, mixed32 and shm with one worker under
# --vtime-cost measured, which sums the thread CPU time of the segments
# between scheduling points per (design, operation, point kind, lock
# class), and write their sums and counts as stress/vtime-costs.tsv (the
# build turns it into C: stress/vtime_costs_to_c.py).
# Run it on an idle machine, on the plain build:
#
#   scripts/vtime-calibrate.sh [BUILD_DIR]      (default: build)
#
# then rebuild. The table is data: the model stays deterministic with any
# table, and a machine's own table gives that machine's absolute figures.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
bin=$root/$build/stress/rmaptorture
seconds=${VTIME_CALIBRATE_SECONDS:-0.05}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
[ -x "$bin" ] || { echo "vtime-calibrate: $bin not built" >&2; exit 2; }
for scenario in sdet32 mixed32 shm; do
	for rmap in ptechain objfile anonvma; do
		for seed in 1 2; do
			"$bin" run --scenario "$scenario" --rmap "$rmap" --threads 1 --seed "$seed" \
				--sched vtime --vtime-cost measured --seconds "$seconds" \
				--vtime-calibrate "$tmp" --no-progress >/dev/null
		done
	done
done
# First line: how the table was made (rt_vtime_costs_source); then one
# row per key: design, operation, point kind, lock class, summed ns,
# segments, tab-separated.
out=$root/stress/vtime-costs.tsv
{
	printf '%s, %s, %s cores (%s): sdet32, mixed32, shm x 3 designs x seeds 1, 2, one worker, %s virtual s each\n' \
		"$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)" \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(nproc)" \
		"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" "$seconds"
	awk '{ k = $1 " " $2 " " $3 " " $4; s[k] += $5; n[k] += $6 }
	     END { for (k in s) { split(k, f, " ");
		   printf "%s\t%s\t%s\t%s\t%.0f\t%.0f\n", f[1], f[2], f[3], f[4], s[k], n[k] } }' \
		"$tmp" | LC_ALL=C sort
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "vtime-calibrate: $(( $(wc -l < "$out") - 1 )) rows written to $out"
