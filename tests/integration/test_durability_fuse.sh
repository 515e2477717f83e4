#!/bin/bash
# SPDX-License-Identifier: MIT
# A durability run end to end through the FUSE rig (tests/fuse/cachefs.c), so
# that the real io_uring engine with direct I/O, the journals, the witness and
# verify go through the kernel: the databases are made by init through an
# honest rig, then a durability run writes through a fresh rig (honest, then
# lying) with its witness file outside the mount; the rig's power cut comes
# at a random instant once acknowledgements flow, then diskproof is killed
# with SIGKILL, and `verify --witness` reads the backing directory itself
# (what the "storage" kept). Honest: exit 0, no page called lost (a false
# "lost" is a failure). Lying: exit 4 with the lost pages named. Two cycles
# of each. Root and /dev/fuse, else exit 77; exit 77 too while diskproof has
# no durability run.
source "$(dirname "$0")/lib.sh"
set -e
leftovers_remove
skip_without_uring
B=$WORK/backing M=$WORK/mnt W=$WORK/witness
R=(--results "$WORK/r.db")
mkdir -p "$W"
cat >"$WORK/dur.ini" <<EOF
; two 8 MiB databases on one volume; every page write write-through (its
; completion the durability point), acknowledged to the witness; runs until
; cut (each cycle names its own witness with run --witness)
[test]
type = durability
duration = 10m
witness = $W/unused.log
warmup = 0s

[sizing]
database_size = 8MiB
log_size = 1MiB

[workload]
log_segment_size = 256KiB

[engine]
name = io_uring
direct = on
streams = 4

[volume a]
path = ./a
databases = 2
EOF
P=$WORK/dur.ini

if ! "$DISKPROOF" plan "$P" --data-dir "$WORK/x" >"$WORK/plan.out" 2>&1; then
	grep -q '"durability" is not one of' "$WORK/plan.out" &&
		{ echo "skipped: needs the durability run ([test] type = durability)"; exit 77; }
	fail "plan refuses the profile: $(cat "$WORK/plan.out")"
fi

# the databases, made durable through an honest rig and a clean unmount
cachefs_mount honest "$B" "$M"
expect_exit 0 "$DISKPROOF" init "$P" --data-dir "$M" "${R[@]}"
cachefs_unmount
cp -a "$B" "$WORK/made" # every cycle starts from what init made

# cycle MODE N: a durability run through a MODE rig over the backing
# directory as init left it, cut at a random instant after the first acknowledgements, then
# verify --witness on the backing directory (output in $WORK/out, $WORK/err)
cycle() {
	local mode=$1 n=$2 wit="$W/$1-$2.log" pid size
	rm -rf "$B"
	cp -a "$WORK/made" "$B"
	cachefs_mount "$mode" "$B" "$M"
	"$DISKPROOF" run "$P" --data-dir "$M" --witness "$wit" --quiet "${R[@]}" \
		>"$WORK/run.out" 2>"$WORK/run.err" &
	pid=$!
	for _ in $(seq 1 600); do
		size=$(stat -c %s "$wit" 2>/dev/null || echo 0)
		[ "$size" -gt 4096 ] && break
		kill -0 $pid 2>/dev/null || fail "$mode cycle $n: the run ended before a cut: $(cat "$WORK/run.err")"
		sleep 0.1
	done
	[ "$size" -gt 4096 ] || fail "$mode cycle $n: the witness got no acknowledgement in 60 s"
	sleep "$((RANDOM % 3)).$((RANDOM % 10))" # a random instant, 0 to 2.9 s later
	cachefs_cut
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	echo "$mode cycle $n: cut after $(stat -c %s "$wit") bytes of witness records"
	set +e
	"$DISKPROOF" verify "$P" --data-dir "$B" --witness "$wit" "${R[@]}" >"$WORK/out" 2>"$WORK/err"
	VERIFY_RC=$?
	set -e
}

for n in 1 2; do
	cycle honest $n
	[ $VERIFY_RC = 0 ] ||
		fail "honest cycle $n: verify --witness exit $VERIFY_RC, want 0: $(cat "$WORK/out" "$WORK/err")"
	grep -q " 0 lost after acknowledgement, 0 torn, 0 corrupt" "$WORK/out" ||
		fail "honest cycle $n: not every acknowledged page intact: $(cat "$WORK/out")"
	echo "honest cycle $n: $(grep "^witness " "$WORK/out")"
done

for n in 1 2; do
	cycle lying $n
	[ $VERIFY_RC = 4 ] ||
		fail "lying cycle $n: verify --witness exit $VERIFY_RC, want 4: $(cat "$WORK/out" "$WORK/err")"
	grep -Eq "^db[0-9]+ page [0-9]+: lost after acknowledgement \(acknowledged generation [0-9]+, found [0-9]+" \
		"$WORK/out" || fail "lying cycle $n: the lost pages are not named: $(head -3 "$WORK/out")"
	lost=$(sed -n 's/.* \([0-9]*\) lost after acknowledgement, .*/\1/p' "$WORK/out")
	[ "${lost:-0}" -gt 0 ] || fail "lying cycle $n: no lost count: $(tail -2 "$WORK/out")"
	echo "lying cycle $n: $(grep "^witness " "$WORK/out")"
done
