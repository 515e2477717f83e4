#!/bin/bash
# SPDX-License-Identifier: MIT
# test_golden_runs.sh - "nothing changed" for refactors: the JSON report of a
# few simulated runs (sim-quick and exchange-2013 for 2 h, a backup test, an
# auto-tuned run), the names of the environment facts each stores, and
# `plan --format json` of a few profiles must match tests/golden/runs/ byte
# for byte once what varies by nature is masked (host, start and end times
# and the load's, the clock's state,
# the host's counters, free space and copy-on-write (the build's filesystem),
# scratch paths, version). A change of
# behaviour on purpose regenerates them in its own commit:
# DP_UPDATE_GOLDEN=1 rewrites the golden files from this run (review the diff).
set -e
. "$(dirname "$0")/lib.sh"

GOLDEN="$DP_SOURCE_DIR/tests/golden/runs"
P="$GOLDEN/profiles"
failed=0

mask_json() {
	sed -E -e 's/^( *"(host|started|ended|load_started_at|uuid|diskproof_version)": )"[^"]*"/\1"MASKED"/' \
		-e "s#$WORK#WORK#g" \
		-e '/^  "host": \{$/,/^  \}$/c\  "host": null' \
		-e '/^  "clock": \{$/,/^  \},$/c\  "clock": "MASKED",' \
		-e '/^  "environment": \{$/,/^  \}$/c\  "environment": "MASKED"'
}
mask_plan() {
	sed -E -e "s#$WORK#WORK#g" -e "s#$DP_SOURCE_DIR#SRC#g" \
		-e 's/"diskproof_version": "[^"]*"/"diskproof_version": "MASKED"/' \
		-e 's/"(free|available)": [0-9]+/"\1": N/g' \
		-e 's/"copy_on_write": (null|"[^"]*"), "keep_free": [0-9]+/"copy_on_write": M, "keep_free": N/g' \
		-e 's/[0-9.]+ [KMGTPE]iB is free/N is free/g' \
		-e 's/"filesystems": \[\{"path": "[^"]*"/"filesystems": [{"path": "FS"/g'
}

# check NAME: compare got.NAME with the golden file (or write it)
check() {
	if [ "${DP_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "got.$1" "$GOLDEN/$1"
		echo "updated $GOLDEN/$1"
		return
	fi
	[ -f "$GOLDEN/$1" ] || fail "no golden file $GOLDEN/$1 (DP_UPDATE_GOLDEN=1 makes it)"
	if ! diff -u "$GOLDEN/$1" "got.$1" >"diff.$1"; then
		head -30 "diff.$1" >&2
		echo "FAIL: $1 differs from $GOLDEN/$1" >&2
		failed=1
	fi
}

# run NAME ARGS...: one stored run, its JSON report and its env fact names
n=0
golden_run() {
	local name=$1
	shift
	set +e
	"$DISKPROOF" run "$@" --results r.db --quiet >/dev/null 2>"err.$name"
	local rc=$?
	set -e
	n=$((n + 1))
	echo "exit $rc" >"got.$name.json"
	"$DISKPROOF" report "$n" --results r.db --format json | mask_json >>"got.$name.json"
	check "$name.json"
	sqlite3 r.db "select key from env where run_id=$n order by key" |
		sed -E 's/^(worker|volume|disk)\.[^.]*\./\1.N./' | sort -u >"got.$name.env"
	check "$name.env"
}

golden_run sim-quick-2h sim-quick
golden_run exchange-2013-sim-2h exchange-2013 --engine sim --duration 2h --data-dir "$WORK/x"
golden_run sim-backup "$P/sim-backup.ini"
golden_run sim-auto "$P/sim-auto.ini"

for prof in exchange-2013 sim-quick random-32k "$P/fixed-workers.ini" "$DP_SOURCE_DIR/examples/five-disks.ini"; do
	name=plan-$(basename "$prof" .ini)
	set +e
	"$DISKPROOF" plan "$prof" --data-dir "$WORK/p" --format json >"got.raw" 2>&1
	rc=$?
	set -e
	{ echo "exit $rc"; mask_plan <got.raw; } >"got.$name.json"
	check "$name.json"
done
[ $failed = 0 ] || fail "golden runs differ (DP_UPDATE_GOLDEN=1 regenerates them, on purpose only)"
echo "ok"
