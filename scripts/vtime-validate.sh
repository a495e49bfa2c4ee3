#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Validation of --sched vtime (README, "Virtual time"): at 1 and 2 CPUs,
# where a real run on this machine is not oversubscribed, compare
# vtime's virtual ops/s (model and measured costs) with a real --sched
# free run of the same operations (--ops N, seed 1: with one worker the
# same operation stream). The free run is repeated and its best kept: on
# a shared machine the load only ever slows it down.
#
#   scripts/vtime-validate.sh [BINARY] [SCENARIOS] [OPS]
#   meson test -C build --benchmark vtime-validate
set -eu
bin=${1:-build/stress/rmaptorture}
scenarios=${2:-mixed32 sdet32}
nops=${3:-20000}
tries=${FREE_TRIES:-3}
ops_per_sec() { sed -n 's/.*"ops_per_sec": *\([0-9.e+]*\).*/\1/p' "$1" | head -1; }
printf '| scenario | rmap | CPUs | free ops/s (best of %d) | vtime model ops/s | vtime measured ops/s | model / free | measured / free | real s per virtual s (model) |\n' "$tries"
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for sc in $scenarios; do
	for rmap in ptechain objfile anonvma; do
		for t in 1 2; do
			# kswapd idles in both; 1 kswapd so that 2 CPUs + kswapd fit 2 cores.
			common=(run --scenario "$sc" --rmap "$rmap" --threads "$t" --reclaim-threads 1 --seed 1 --json --no-progress)
			free=0
			for k in $(seq "$tries"); do
				"$bin" "${common[@]}" --ops "$nops" >"$tmp/free.json" 2>/dev/null
				free=$(awk -v a="$free" -v b="$(ops_per_sec "$tmp/free.json")" 'BEGIN { print (b > a ? b : a) }')
			done
			"$bin" "${common[@]}" --sched vtime --ops "$nops" >"$tmp/model.json" 2>/dev/null
			"$bin" "${common[@]}" --sched vtime --vtime-cost measured --ops "$nops" >"$tmp/meas.json" 2>/dev/null
			model=$(ops_per_sec "$tmp/model.json")
			meas=$(ops_per_sec "$tmp/meas.json")
			rpv=$(sed -n 's/.*"real_per_virtual": *\([0-9.e+]*\).*/\1/p' "$tmp/model.json" | head -1)
			awk -v sc="$sc" -v r="$rmap" -v t="$t" -v f="$free" -v m="$model" -v s="$meas" \
			    -v rpv="$rpv" 'BEGIN {
				a = 0; b = 0
				if (f > 0) { a = m / f; b = s / f }
				printf "| %s | %s | %d | %.0f | %.0f | %.0f | %.2f | %.2f | %.0f |\n",
				       sc, r, t, f, m, s, a, b, rpv }'
		done
	done
done
