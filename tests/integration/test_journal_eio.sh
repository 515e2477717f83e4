#!/bin/bash
# SPDX-License-Identifier: MIT
# An I/O error reading a generation journal is said as one. Every read-only
# open of a *.gen fails with EIO (the LD_PRELOAD library eio_open, built
# with the tests), nothing else does: run, init and verify each exit 3 with
# "DB.gen: cannot read the journal: Input/output error"; none calls the
# journal "not a diskproof generation journal" or advises --destroy-data,
# and the databases, logs and journals stay byte for byte. Without the
# fault, verify exits 0 and the next run finds no integrity error.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
SHIM="$DP_BINARY_DIR/tests/libeio_open.so"
[ -f "$SHIM" ] || fail "no $SHIM (built with the tests)"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
D="$WORK/d"
# the library comes before a sanitizer's runtime (an Asan build): allowed
eio() {
	LD_PRELOAD="$SHIM" EIO_OPEN_SUFFIX=.gen \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$DISKPROOF" "$@"
}
sums() { cat "$D"/a/* "$D"/b/* | sha256sum; }

expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$D" --quiet
expect_verdict "$DISKPROOF" run "$T" --data-dir "$D" --duration 1s --results "$WORK/r.db" --quiet
before=$(sums)
# the library does what it says: a *.gen cannot be read, a database can
if LD_PRELOAD="$SHIM" EIO_OPEN_SUFFIX=.gen cat "$D/a/db1.gen" >/dev/null 2>&1; then
	fail "the library let db1.gen be read"
fi
LD_PRELOAD="$SHIM" EIO_OPEN_SUFFIX=.gen cat "$D/a/db1.edb" >/dev/null ||
	fail "the library kept db1.edb from being read"

for cmd in run init verify; do
	extra=()
	[ $cmd = run ] && extra=(--duration 1s)
	expect_exit 3 eio $cmd "$T" --data-dir "$D" --results "$WORK/r.db" "${extra[@]}"
	cat "$WORK/out" "$WORK/err" >"$WORK/all.$cmd"
	grep -q "db[12].gen: cannot read the journal: Input/output error" "$WORK/all.$cmd" ||
		fail "$cmd: the I/O error is not said: $(cat "$WORK/all.$cmd")"
	! grep -q -- "--destroy-data" "$WORK/all.$cmd" ||
		fail "$cmd: advises --destroy-data: $(cat "$WORK/all.$cmd")"
	! grep -q "not a diskproof" "$WORK/all.$cmd" ||
		fail "$cmd: calls a file not diskproof's: $(cat "$WORK/all.$cmd")"
	[ "$(sums)" = "$before" ] || fail "$cmd: a file changed"
done
# verify still checked every page (only the generations could not be)
grep -q "^db1: 256 pages, .*no problems; journal unusable" "$WORK/out" ||
	fail "verify: $(cat "$WORK/out")"

expect_exit 0 "$DISKPROOF" verify "$T" --data-dir "$D" --results "$WORK/r.db"
expect_verdict "$DISKPROOF" run "$T" --data-dir "$D" --duration 1s --results "$WORK/r.db" --quiet
ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary
	where run_id=(select max(id) from run) and scope='run'")
[ "$ie" = 0 ] || fail "the run after found $ie integrity errors"
echo ok
