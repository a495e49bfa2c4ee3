#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Real `scale` of two builds side by side on a many-core machine: a
# change to the harness's locks or waits, before (A) and after (B). Made
# for the device of issue 17 (16 cores, no network): give it two static
# binaries (docs/numbers.md, "Virtual time"; scripts/device-scale.sh says how to
# build one) and a flat $OUT:
#
#   A=old/rmaptorture B=new/rmaptorture OUT=/some/dir scripts/device-ab.sh
#
# sdet32 and shm with every design, mixed32 with objfile and mainline9,
# at 1, 2, 4, 8 and 16 CPUs, one 1 s run per point, coverage off; the two
# binaries alternate per scenario. About 130 s on 16 cores. Into $OUT:
# info.txt (machine, each sweep's exit status and time) and one text
# table per sweep and binary, a-SCENARIO-RMAP.txt and b-SCENARIO-RMAP.txt.
set -u
: "${A:?A=path of the first binary}" "${B:?B=path of the second binary}" "${OUT:?OUT=directory}"
mkdir -p "$OUT"
T0=$(date +%s)
{ nproc; uname -r; grep -m1 "model name" /proc/cpuinfo; } > "$OUT/info.txt"
run() { # label binary scenario rmap
	"$2" scale --scenario "$3" --rmap "$4" --threads 1,2,4,8,16 --repeat 1 --seconds 1 \
		--no-cover --no-plots > "$OUT/$1-$3-$4.txt" 2>&1
	echo "$1 $3 $4 rc=$? t=$(( $(date +%s) - T0 ))" >> "$OUT/info.txt"
}
for sc in sdet32 shm; do
	run a "$A" $sc all
	run b "$B" $sc all
done
for m in objfile mainline9; do
	run a "$A" mixed32 $m
	run b "$B" mixed32 $m
done
echo "total $(( $(date +%s) - T0 )) s" >> "$OUT/info.txt"
