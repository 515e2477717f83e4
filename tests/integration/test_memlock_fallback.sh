#!/bin/bash
# Fixed buffers fall back to plain ones where the memlock limit refuses them:
# with a 64 KiB limit and without CAP_IPC_LOCK the run still works, and the
# results file's env facts say which the engine used.
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
set +e
(ulimit -l 64 && exec "${DROP[@]}" "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 2s \
	--results "$WORK/r.db" --quiet) >/dev/null 2>"$WORK/err"
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$WORK/err"; fail "run with a 64 KiB memlock limit: exit $rc"; }
notes=$(sqlite3 r.db "select value from env where run_id=(select max(id) from run) and key='engine_notes'")
[ "$notes" = "registered files: on, fixed buffers: off (memlock limit)" ] || fail "fallback: $notes"
[ "$(sqlite3 r.db "select count(*) from summary where run_id=(select max(id) from run) and scope='run' and ios > 0")" -ge 3 ] ||
	fail "no I/O recorded in the fallback run"
echo "ok"
