#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Validation of --sched vtime (docs/numbers.md, "Virtual time"): at 1 and 2 CPUs,
# where a real run on this machine is not oversubscribed, compare
# vtime's virtual ops/s (model and measured costs) with a real --sched
# free run of the same operations (--ops N, seed 1: with one worker the
# same operation stream). The free run is repeated and its best kept: on
# a shared machine the load only ever slows it down. Since a loaded
# machine also takes the cores away from the free run, the cost is
# compared too: the free run's operations per CPU second of the process
# (user + system, bash's `time`; setup and the final audit included)
# against vtime's operations per busy virtual second (all CPUs).
#
#   [DESIGNS="ptechain objfile"] scripts/vtime-validate.sh [BINARY] [SCENARIOS] [OPS]
# (default: every design; interleaving coverage off in every run, as in
# the calibration)
#   meson test -C build --benchmark vtime-validate
set -eu
bin=${1:-build/stress/rmaptorture}
scenarios=${2:-mixed32 sdet32}
nops=${3:-20000}
tries=${FREE_TRIES:-3}
TIMEFORMAT='%U %S'
# A field of the run record in $1 (run --json: one record, one line).
field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"r": r}))' "$1" "$2"; }
ops_per_sec() { field "$1" 'r["ops_per_sec"]'; }
# vtime's worker operations per busy virtual second (all CPUs).
busy_rate() { field "$1" 'r["vtime"]["ops"] * 1e9 / r["vtime"]["busy_ns"] if r["vtime"]["busy_ns"] > 0 else 0'; }
printf '| scenario | rmap | CPUs | free ops/s (best of %d) | vtime model ops/s | vtime measured ops/s | model / free | measured / free | free ops per CPU s (best) | model ops per busy s | measured ops per busy s | model / free (cost) | measured / free (cost) | real s per virtual s (model) |\n' "$tries"
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
designs=${DESIGNS:-$("$bin" list | sed -n 's/^rmap designs: //p')}
for sc in $scenarios; do
	for rmap in $designs; do
		for t in 1 2; do
			# kswapd idles in both; 1 kswapd so that 2 CPUs + kswapd fit 2 cores.
			common=(run --scenario "$sc" --rmap "$rmap" --threads "$t" --reclaim-threads 1 --seed 1 --json --no-cover --no-progress)
			free=0
			fcpu=0
			for k in $(seq "$tries"); do
				tm=$( { time "$bin" "${common[@]}" --ops "$nops" >"$tmp/free.json" 2>/dev/null; } 2>&1 )
				free=$(awk -v a="$free" -v b="$(ops_per_sec "$tmp/free.json")" 'BEGIN { print (b > a ? b : a) }')
				fcpu=$(echo "$tm" | awk -v a="$fcpu" -v n="$nops" '{ c = $1 + $2; b = c > 0 ? n / c : 0; print (b > a ? b : a) }')
			done
			"$bin" "${common[@]}" --sched vtime --ops "$nops" >"$tmp/model.json" 2>/dev/null
			"$bin" "${common[@]}" --sched vtime --vtime-cost measured --ops "$nops" >"$tmp/meas.json" 2>/dev/null
			model=$(ops_per_sec "$tmp/model.json")
			meas=$(ops_per_sec "$tmp/meas.json")
			rpv=$(field "$tmp/model.json" 'r["vtime"]["real_per_virtual"]')
			mb=$(busy_rate "$tmp/model.json")
			sb=$(busy_rate "$tmp/meas.json")
			awk -v sc="$sc" -v r="$rmap" -v t="$t" -v f="$free" -v m="$model" -v s="$meas" \
			    -v fc="$fcpu" -v mb="$mb" -v sb="$sb" -v rpv="$rpv" 'BEGIN {
				a = 0; b = 0; c = 0; d = 0
				if (f > 0) { a = m / f; b = s / f }
				if (fc > 0) { c = mb / fc; d = sb / fc }
				printf "| %s | %s | %d | %.0f | %.0f | %.0f | %.2f | %.2f | %.0f | %.0f | %.0f | %.2f | %.2f | %.0f |\n",
				       sc, r, t, f, m, s, a, b, fc, mb, sb, c, d, rpv }'
		done
	done
done
