#!/bin/bash
# SPDX-License-Identifier: MIT
# Nothing blocks on a non-file, and signals always work: a FIFO named
# db1.edb makes verify, run and init exit 3 at once naming it (verify used to
# block in open() with SIGINT and SIGTERM blocked: only kill -9 ended it); a
# FIFO named db1.gen does not hang verify or run either. SIGINT and SIGTERM
# end a rate-limited verify --deep and an init creating files within 2 s
# (130 / 143).
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

# prompt CODE CMD...: expect_exit CODE within 10 s (a hang fails, and
# timeout's SIGKILL ends it even with its signals blocked)
prompt() {
	local want=$1
	shift
	expect_exit "$want" timeout -k 1 10 "$@"
}

mkdir -p f/a
mkfifo f/a/db1.edb
prompt 3 "$DISKPROOF" verify "$T" --data-dir "$WORK/f"
grep -q "$WORK/f/a/db1.edb: is a FIFO (named pipe)" err || fail "verify: $(cat err)"
prompt 3 "$DISKPROOF" init "$T" --data-dir "$WORK/f"
grep -q "$WORK/f/a/db1.edb: exists and is a FIFO (named pipe), not a regular file" err ||
	fail "init: $(cat err)"
prompt 3 "$DISKPROOF" run "$T" --data-dir "$WORK/f" --duration 1s --results "$WORK/r.db"
grep -q "$WORK/f/a/db1.edb: exists and is a FIFO (named pipe)" err || fail "run: $(cat err)"
[ -p f/a/db1.edb ] || fail "the FIFO was replaced"

# a FIFO for a journal: verify says so (exit 3), the run does not hang
rm -rf f
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/f" --quiet
rm f/a/db1.gen
mkfifo f/a/db1.gen
prompt 3 "$DISKPROOF" verify "$T" --data-dir "$WORK/f"
grep -q "$WORK/f/a/db1.gen: is a FIFO (named pipe)" err || fail "verify journal: $(cat err)"
set +e
timeout -k 1 20 "$DISKPROOF" run "$T" --data-dir "$WORK/f" --duration 1s --results "$WORK/r.db" \
	--quiet >out 2>err
rc=$?
set -e
[ $rc != 124 ] && [ $rc != 137 ] || fail "run hung on a FIFO journal"
[ $rc = 3 ] || fail "run with a FIFO journal: exit $rc, want 3: $(cat err)"
[ -p f/a/db1.gen ] || fail "the run replaced the FIFO journal"

# signal SIG at 1 s to CMD...: exits CODE within 2 s of it
signal_ends() {
	local sig=$1 want=$2 t0 t1 rc
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err" &
	local pid=$!
	sleep 1
	kill -0 $pid 2>/dev/null || { cat "$WORK/err"; fail "ended before the signal: $*"; }
	t0=$(date +%s%N)
	kill -"$sig" $pid
	for _ in $(seq 1 40); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid
		fail "still running 2 s after SIG$sig: $*"
	fi
	set +e
	wait $pid
	rc=$?
	set -e
	t1=$(date +%s%N)
	[ $rc = "$want" ] || { cat "$WORK/err"; fail "SIG$sig: exit $rc, wanted $want: $*"; }
	[ $(((t1 - t0) / 1000000)) -lt 2000 ] || fail "SIG$sig took $(((t1 - t0) / 1000000)) ms"
}
rm -rf f
expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/v" --db-size 64MiB --quiet
for s in "INT 130" "TERM 143"; do
	set -- $s
	signal_ends "$1" "$2" "$DISKPROOF" verify "$T" --data-dir "$WORK/v" --db-size 64MiB --deep \
		--rate 4MiB
	# 2 x 2 GiB: more than a second of writing on any disk these run on
	[ "$(df -k --output=avail . | tail -1)" -gt $((5 * 1024 * 1024)) ] || continue
	signal_ends "$1" "$2" "$DISKPROOF" init "$T" --data-dir "$WORK/i$1" --db-size 2GiB
	grep -q "interrupted" err || fail "init said nothing of the interrupt: $(cat err)"
	rm -rf "$WORK/i$1"
done
echo "ok"
