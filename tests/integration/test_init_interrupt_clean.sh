#!/bin/bash
# init stopped with SIGINT before it reached a file leaves that file absent,
# as it was before file creation went through the engine: no empty log file
# that verify calls "not a diskproof log file" and clean refuses as "not
# diskproof's", so clean --yes removes every trace of the interrupted init.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

"$DISKPROOF" init "$T" --data-dir "$WORK/data" --db-size 1GiB >"$WORK/out" 2>"$WORK/err" &
pid=$!
# stop it once the first database has begun (its log comes after it)
for _ in $(seq 1 500); do
	s=$(stat -c %s data/a/db1.edb 2>/dev/null || echo 0)
	[ "$s" -gt 1000000 ] && break
	sleep 0.01
done
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc = 130 ] || { cat "$WORK/err"; fail "interrupted init exited $rc"; }
for f in data/a/db1.log data/b/db2.log; do
	[ ! -e $f ] || [ -s $f ] || fail "interrupted init left an empty $f"
done
expect_exit 0 "$DISKPROOF" clean "$T" --data-dir "$WORK/data" --db-size 1GiB --yes
grep -q "not diskproof's" out && fail "clean kept a file init made: $(grep keep out)"
[ ! -e data/a ] && [ ! -e data/b ] || fail "clean left $(find data -type f)"
echo "ok"
