#!/bin/bash
# SPDX-License-Identifier: MIT
# Fixed buffers fall back to plain ones where the memlock limit refuses them:
# with a 64 KiB and a 1 MiB limit and without CAP_IPC_LOCK the run still
# works, the engine registers as many of its buffers as the limit lets it
# (more under the larger limit, fewer than all), and the results file's env
# facts say how many.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
if [ "$(id -u)" = 0 ]; then
	expect_exit_0_or_1() {
		set +e; "$@" >/dev/null 2>"$WORK/err"; local rc=$?; set -e
		[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/err"; fail "exit $rc from $*"; }
	}
	expect_exit_0_or_1 "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 1s \
		--results "$WORK/r.db" --quiet
	notes=$(sqlite3 r.db "select value from env where run_id=1 and key='engine_notes'")
	[ "$notes" = "registered files: on, fixed buffers: on" ] || fail "as root: $notes"
	DROP=(setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock)
else
	DROP=()
fi
# run_limited KIB: a run under that memlock limit; prints the buffers
# registered ("0" when off)
run_limited() {
	local rc notes
	set +e
	(ulimit -l "$1" && exec "${DROP[@]}" "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 2s \
		--results "$WORK/r.db" --quiet) >/dev/null 2>"$WORK/err"
	rc=$?
	set -e
	[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/err" >&2; fail "run with a $1 KiB memlock limit: exit $rc"; }
	notes=$(sqlite3 "$WORK/r.db" "select value from env where run_id=(select max(id) from run) and key='engine_notes'")
	[ "$(sqlite3 "$WORK/r.db" "select count(*) from summary where run_id=(select max(id) from run) and scope='run' and ios > 0")" -ge 3 ] ||
		fail "no I/O recorded in the run with a $1 KiB memlock limit"
	case "$notes" in
	"registered files: on, fixed buffers: off (memlock limit)") echo 0 ;;
	"registered files: on, fixed buffers: on for "*" of "*" (memlock limit)")
		local k n
		read -r k n < <(echo "$notes" | sed 's/.*on for \([0-9]*\) of \([0-9]*\).*/\1 \2/')
		[ "$k" -ge 1 ] && [ "$k" -lt "$n" ] || fail "partial registration out of range: $notes"
		echo "$k"
		;;
	*) fail "memlock fallback: $notes" ;;
	esac
}
# too small for the rings themselves (charged to the limit since 6.13): a
# clear refusal that names the limit
set +e
(ulimit -l 8 && exec "${DROP[@]}" "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 1s \
	--results "$WORK/r8.db" --quiet) >/dev/null 2>"$WORK/err"
rc=$?
set -e
if [ $rc != 0 ] && [ $rc != 1 ]; then
	[ $rc = 3 ] || { cat "$WORK/err"; fail "8 KiB memlock limit: exit $rc"; }
	grep -q "memlock limit, ulimit -l, is 8 KiB" "$WORK/err" || { cat "$WORK/err"; fail "8 KiB: the limit is not named"; }
fi
small=$(run_limited 64)
large=$(run_limited 1024)
[ "$large" -gt "$small" ] || fail "1 MiB of memlock registered $large buffers, 64 KiB $small"
echo "ok"
