#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Issue 17's check on a real many-core machine: real `scale` (--sched
# free) against `scale --sched vtime` at 1, 2, 4, 8 and 16 CPUs, sdet32
# and mixed32, the three designs, so that vtime's curves at 8 and 16 CPUs
# can be held against real runs of the same build.
#
# Meant for ONE run on a fresh Debian x86-64 machine with >= 16 cores,
# as root, from the repository root, within 6 minutes in all:
#
#   OUT=/some/dir scripts/device-scale.sh
#
# BIN=path/to/rmaptorture (a prebuilt, e.g. static, binary) skips the
# install, the build and the calibration; the time saved goes to a third
# sweep, vtime with measured costs (this machine's own) on sdet32. For a
# machine without a network (as the one of issue 17's check), build it
# static where the packages are:
#
#   meson setup build-static -Dprefer_static=true -Dc_link_args=-static
#   ninja -C build-static stress/rmaptorture
# Every run is --no-cover: interleaving coverage is the harness's
# bookkeeping, left out of the model's calibration too.
#
# It installs the build dependencies (Debian packages only), builds the
# plain binary, calibrates vtime's cost model on this machine (so that
# vtime's absolute ops/s are this machine's too; skipped when time is
# short), then runs the sweeps. Into $OUT, flat, at most 8 files:
#   free-sdet32.csv free-mixed32.csv vtime-sdet32.csv vtime-mixed32.csv
#   free.json vtime.json        (the scale records, by scenario)
#   vtime-costs.tsv             (the model calibrated here, if it was), or else
#   vtimemeasured-sdet32.csv    (vtime with this machine's measured costs)
#   device.log                  (machine, timings, every command, the tables)
set -eu
START=$(date +%s)
BUDGET=${DEVICE_BUDGET:-350}		# seconds, all of it; leaves margin under 6 min
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
LOG=$OUT/device.log
: > "$LOG"
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
left() { echo $(( BUDGET - ($(date +%s) - START) )); }

log "device-scale: $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
log "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"

# 1. Dependencies (the README's Quick start list).
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
CALIBRATED=
if [ -n "${BIN:-}" ]; then
	log "prebuilt binary $BIN: no install, build or calibration"
elif ! command -v meson >/dev/null || ! command -v ninja >/dev/null || \
   ! pkg-config --exists liburcu check jansson 2>/dev/null; then
	log "installing dependencies"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update >>"$LOG" 2>&1
	$SUDO apt-get install -y meson ninja-build pkg-config gcc liburcu-dev check \
		libjansson-dev gnuplot-nox >>"$LOG" 2>&1
fi

# 2. The plain build (the binary only: the tests are not needed here).
B=build-device
if [ -z "${BIN:-}" ]; then
	log "building $B"
	[ -d "$B" ] || meson setup "$B" >>"$LOG" 2>&1
	ninja -C "$B" stress/rmaptorture >>"$LOG" 2>&1
	BIN=$B/stress/rmaptorture
	PREBUILT=
else
	PREBUILT=1
fi

# 3. vtime's cost model, calibrated here (about 20 s), when there is time.
if [ -z "$PREBUILT" ] && [ "$(left)" -gt 270 ]; then
	CALIBRATED=1
	log "calibrating the vtime model on this machine"
	VTIME_CALIBRATE_SECONDS=0.02 scripts/vtime-calibrate.sh "$B" >>"$LOG" 2>&1
	ninja -C "$B" stress/rmaptorture >>"$LOG" 2>&1
	cp stress/vtime-costs.tsv "$OUT/vtime-costs.tsv"
	git checkout -- stress/vtime-costs.tsv 2>/dev/null || true
else
	log "no time to calibrate: vtime uses the table of the 2-core build machine"
fi

# 4. The sweeps: real first, then virtual, each scenario in turn.
THREADS=${DEVICE_THREADS:-1,2,4,8,16}
run_scale() {	# NAME SCENARIO ARGS...
	name=$1 sc=$2
	shift 2
	t=$(left)
	if [ "$t" -lt 20 ]; then
		log "SKIPPED $name-$sc: out of time"
		return 0
	fi
	dir=$(mktemp -d)
	log "scale $name $sc (up to ${t}s): $BIN scale --scenario $sc --threads $THREADS $*"
	if timeout "$t" "$BIN" scale --scenario "$sc" --threads "$THREADS" --rmap all --no-plots \
		--no-cover --out "$dir" "$@" >>"$LOG" 2>&1; then
		cp "$dir/scale.csv" "$OUT/$name-$sc.csv"
		cp "$dir/scale.json" "$dir/$name-$sc.json"
		cat "$dir/scale.md" >>"$LOG"
		RECS="$RECS $dir/$name-$sc.json"
	else
		log "FAILED or timed out: $name $sc (exit $?)"
	fi
}
RECS=
for sc in sdet32 mixed32; do
	run_scale free "$sc" --repeat 3 --seconds 0.5 --seed 1
done
for sc in sdet32 mixed32; do
	run_scale vtime "$sc" --sched vtime --repeat 2 --seconds 0.005 --seed 1
done
# Not calibrated here: this machine's own costs, measured, where time is left.
if [ -z "$CALIBRATED" ] && [ "$(left)" -gt 60 ]; then
	run_scale vtimemeasured sdet32 --sched vtime --vtime-cost measured --repeat 1 \
		--seconds 0.005 --seed 1
fi

# 5. One JSON file per schedule, {"SCENARIO": record, ...} (no python needed).
for name in free vtime; do
	sep=
	files=
	for r in $RECS; do
		case $(basename "$r") in "$name"-*) files="$files $r" ;; esac
	done
	[ -n "$files" ] || continue
	{
		echo '{'
		for r in $files; do
			sc=$(basename "$r" .json)
			printf '%s"%s":\n' "$sep" "${sc#"$name"-}"
			cat "$r"
			sep=','
		done
		echo '}'
	} > "$OUT/$name.json"
done
log "done in $(( $(date +%s) - START ))s; files: $(ls "$OUT" | tr '\n' ' ')"
