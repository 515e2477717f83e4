#!/bin/bash
# SPDX-License-Identifier: MIT
# A damaged results file (a valid one cut in half, or with garbage written
# over its pages) gives a clear error and exit 3, for run as for report, and
# no data files are written.
source "$(dirname "$0")/lib.sh"
set -e
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
expect_exit 0 "$DISKPROOF" run "$S" --duration 10m --results "$WORK/good.db" --quiet
sqlite3 good.db "pragma wal_checkpoint(truncate)" >/dev/null
size=$(stat -c %s good.db)
head -c $((size / 2)) good.db >half.db
cp good.db garbled.db
dd if=/dev/urandom of=garbled.db bs=4096 seek=1 count=8 conv=notrunc status=none
for f in half.db garbled.db; do
	for cmd in "report latest" "list"; do
		expect_exit 3 "$DISKPROOF" $cmd --results "$WORK/$f"
		grep -q "$f" err || fail "$cmd on $f: message does not name the file: $(cat err)"
		grep -qi "malformed\|not a database\|damaged\|corrupt" err ||
			fail "$cmd on $f: message does not say it is damaged: $(cat err)"
	done
	expect_exit 3 "$DISKPROOF" run "$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini" \
		--data-dir "$WORK/data" --results "$WORK/$f"
	[ ! -e data ] || fail "data written with a damaged results file"
done
echo "ok"
