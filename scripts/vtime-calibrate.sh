#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Calibrate the cost model of --sched vtime (stress/rt_vtime.h): run each
# design on sdet32, mixed32 and shm with one worker under --vtime-cost
# measured, which sums the thread CPU time of the segments between
# scheduling points per (design, operation, point kind, lock class), and
# write their sums and counts as stress/vtime-costs.tsv (the build turns
# it into C: stress/vtime_costs_to_c.py). Interleaving coverage is off:
# it is the harness's bookkeeping, not the emulated kernel's work.
# Run it on an idle machine, on the plain build, then rebuild:
#
#   scripts/vtime-calibrate.sh [BUILD_DIR]      (default: build)
#
# VTIME_CALIBRATE_DESIGNS (default: every design that `rmaptorture list`
# names) limits the runs to some designs; the rows of the others are kept
# from the current table, and its first line then says which were redone.
# The table is data: the model stays deterministic with any table, and a
# machine's own table gives that machine's absolute figures.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
bin=$root/$build/stress/rmaptorture
seconds=${VTIME_CALIBRATE_SECONDS:-0.05}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
[ -x "$bin" ] || { echo "vtime-calibrate: $bin not built" >&2; exit 2; }
all=$("$bin" list | sed -n "s/^rmap designs: //p" | tr " " "\n")
designs=${VTIME_CALIBRATE_DESIGNS:-$all}
for d in $designs; do
	echo "$all" | grep -qx "$d" || { echo "vtime-calibrate: no design '$d'" >&2; exit 2; }
done
out=$root/stress/vtime-costs.tsv
for scenario in sdet32 mixed32 shm; do
	for rmap in $designs; do
		for seed in 1 2; do
			"$bin" run --scenario "$scenario" --rmap "$rmap" --threads 1 --seed "$seed" \
				--sched vtime --vtime-cost measured --seconds "$seconds" \
				--vtime-calibrate "$tmp" --no-cover --no-progress >/dev/null
		done
	done
done
# First line: how the table was made (rt_vtime_costs_source); then one
# row per key: design, operation, point kind, lock class, summed ns,
# segments, tab-separated.
keep=
[ "$designs" = "$all" ] || keep=$(echo $designs | tr ' ' '|')
{
	what="$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)): sdet32, mixed32, shm x $(echo $designs | tr ' ' ',') x seeds 1, 2, one worker, $seconds virtual s each"
	if [ -n "$keep" ]; then
		echo "$(head -1 "$out"); $what"
	else
		echo "$what"
	fi
	{
		[ -z "$keep" ] || tail -n +2 "$out" | awk -F '\t' -v k="^($keep)\$" '$1 !~ k'
		awk '{ k = $1 " " $2 " " $3 " " $4; s[k] += $5; n[k] += $6 }
		     END { for (k in s) { split(k, f, " ");
			   printf "%s\t%s\t%s\t%s\t%.0f\t%.0f\n", f[1], f[2], f[3], f[4], s[k], n[k] } }' \
			"$tmp"
	} | LC_ALL=C sort
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "vtime-calibrate: $(( $(wc -l < "$out") - 1 )) rows written to $out"
