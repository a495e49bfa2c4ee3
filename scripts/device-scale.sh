#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The many-core check of issues 17 and 27: real `scale` (--sched free) at
# 1, 2, 4, 8 and 16 CPUs on a machine with >= 16 cores, every design, for
# sdet32, shm and mixed32, with `--reclaim-threads 0` and with each
# scenario's own reclaim threads; optionally a second ("before") binary
# beside it, and `bench vm --quick` (its disjoint-mm row up to the cores:
# the harness's own shared lines, if any, show there). vtime's curves for
# the same points need no many-core machine (virtual time is the same on
# any host): run them where you build, without a transfer cost and with
# --vtime-transfer NS, NS the device's own price of a line (each scale
# record's cpu_transfer), and hold them against these with
# scripts/vtime-vs-real.
#
# Meant for ONE run on a fresh x86-64 machine, from the repository root:
#
#   OUT=/some/dir [BIN=after/rmaptorture] [BEFORE=before/rmaptorture] \
#       scripts/device-scale.sh
#
# Without BIN it installs the Debian build dependencies and builds the
# plain binary (with a network). For a machine without one, build static
# binaries where the packages are:
#
#   meson setup build-static -Dprefer_static=true -Dc_link_args=-static
#   ninja -C build-static stress/rmaptorture
#
# Every run is --no-cover (interleaving coverage is the harness's
# bookkeeping). The most important sweeps run first, and each is skipped
# when the budget (DEVICE_BUDGET seconds, default 420) is spent; a sweep
# past it is cut and named in the log. $OUT holds two files, rewritten
# after every sweep, so a cut run still brings back what it measured:
#   device.log     the machine, every command, its exit status and time,
#                  each sweep's table
#   device.tar.gz  one folder per sweep, LABEL-SCENARIO/ with scale.json,
#                  scale.csv, scale.md; bench-vm.json
# Labels: after-r0, before-r0 (--reclaim-threads 0), after-rd (the
# scenario's reclaim threads). DEVICE_THREADS, DEVICE_SCENARIOS,
# DEVICE_REPEAT (default 3; the before binary and the -rd sweeps run
# one fewer, at least 1) and DEVICE_SECONDS (default 0.5) change the
# sweep; DEVICE_VTIME=1 adds vtime sweeps of the after binary.
set -eu
START=$(date +%s)
BUDGET=${DEVICE_BUDGET:-420}
OUT=${OUT:-$PWD/device-out}
THREADS=${DEVICE_THREADS:-1,2,4,8,16}
SCENARIOS=${DEVICE_SCENARIOS:-sdet32 shm mixed32}
REPEAT=${DEVICE_REPEAT:-3}
SECONDS_=${DEVICE_SECONDS:-0.5}
LESS=$(( REPEAT > 1 ? REPEAT - 1 : 1 ))
mkdir -p "$OUT"
W=$(mktemp -d)
LOG=$OUT/device.log
: > "$LOG"
log() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
pack() { tar -C "$W" -czf "$OUT/.device.tar.gz" . && mv "$OUT/.device.tar.gz" "$OUT/device.tar.gz"; }

log "device-scale: $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
log "allowed CPUs: $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
log "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"

if [ -z "${BIN:-}" ]; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	if ! command -v meson >/dev/null || ! command -v ninja >/dev/null || \
	   ! pkg-config --exists liburcu check jansson 2>/dev/null; then
		log "installing dependencies"
		export DEBIAN_FRONTEND=noninteractive
		$SUDO apt-get update >>"$LOG" 2>&1
		$SUDO apt-get install -y meson ninja-build pkg-config gcc liburcu-dev check \
			libjansson-dev >>"$LOG" 2>&1
	fi
	log "building build-device"
	[ -d build-device ] || meson setup build-device >>"$LOG" 2>&1
	ninja -C build-device stress/rmaptorture >>"$LOG" 2>&1
	BIN=build-device/stress/rmaptorture
fi
log "after: $BIN ($("$BIN" --version 2>/dev/null | head -1))"
[ -z "${BEFORE:-}" ] || log "before: $BEFORE ($("$BEFORE" --version 2>/dev/null | head -1))"

sweep() {	# LABEL BINARY SCENARIO ARGS...
	label=$1 bin=$2 sc=$3
	shift 3
	t=$(left)
	if [ "$t" -lt 15 ]; then
		log "SKIPPED $label-$sc: out of time"
		return 0
	fi
	d=$W/$label-$sc
	mkdir -p "$d"
	log "$label $sc (up to ${t}s): $bin scale --scenario $sc --threads $THREADS --rmap all $*"
	rc=0
	timeout "$t" "$bin" scale --scenario "$sc" --threads "$THREADS" --rmap all --no-plots \
		--no-cover --seed 1 --out "$d" "$@" >"$d/stdout.txt" 2>&1 || rc=$?
	log "$label $sc: exit $rc"
	[ -f "$d/scale.md" ] && cat "$d/scale.md" >>"$LOG"
	pack
}

for sc in $SCENARIOS; do
	sweep after-r0 "$BIN" "$sc" --reclaim-threads 0 --repeat "$REPEAT" --seconds "$SECONDS_"
	[ -z "${BEFORE:-}" ] ||
		sweep before-r0 "$BEFORE" "$sc" --reclaim-threads 0 --repeat "$LESS" --seconds "$SECONDS_"
done
if [ "$(left)" -gt 60 ]; then
	log "bench vm --quick (disjoint mms up to $(nproc) CPUs)"
	rc=0
	timeout "$(left)" "$BIN" bench vm --quick --json "$W/bench-vm.json" >"$W/bench-vm.txt" 2>&1 || rc=$?
	log "bench vm: exit $rc"
	cat "$W/bench-vm.txt" >>"$LOG"
	pack
else
	log "SKIPPED bench vm: out of time"
fi
for sc in $SCENARIOS; do
	sweep after-rd "$BIN" "$sc" --repeat "$LESS" --seconds "$SECONDS_"
done
if [ "${DEVICE_VTIME:-0}" = 1 ]; then
	for sc in $SCENARIOS; do
		sweep vtime-r0 "$BIN" "$sc" --sched vtime --reclaim-threads 0 --repeat 2 --seconds 0.005
	done
fi
pack
log "done in $(( $(date +%s) - START ))s"
