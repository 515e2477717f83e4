#!/bin/bash
# test_tree_shape.sh - the rules that keep the source tree's shape
# (docs/architecture.md): no file in src/ over 1,200 lines and none in
# src/run/ over 1,000; every source file opens with a comment naming its job;
# src/workload/ includes no header of src/run/ (generators see only their
# narrow context); engines include nothing of the run, plan or workload;
# workers and generators never touch SQLite or the terminal; one driver
# drives every engine: outside src/engine/ no io_uring call (io_uring_*(),
# IORING_*, liburing) and no call of an engine's queue, commit, reap,
# stamp_ready or probe hook (the clients go through src/engine/driver.c).
set -e
. "$(dirname "$0")/lib.sh"
cd "$DP_SOURCE_DIR"
bad=0
complain() {
	echo "FAIL: $*" >&2
	bad=1
}
for f in src/*/*.c src/*/*.h; do
	n=$(wc -l <"$f")
	case $f in
	src/run/*) max=1000 ;;
	*) max=1200 ;;
	esac
	[ "$n" -le "$max" ] || complain "$f has $n lines (at most $max)"
	head -1 "$f" | grep -q '^/\*' || complain "$f does not open with a comment naming its job"
done
if [ -d src/workload ]; then
	grep -nE '#include *"(\.\./)?run/|#include *"(run_internal|autotune)\.h"|diskproof/run\.h' src/workload/* &&
		complain "src/workload/ includes a header of src/run/"
	grep -nE 'sqlite3|#include <stdio\.h>|printf *\(|fputs|stderr|stdout' src/workload/*.c | grep -v snprintf &&
		complain "src/workload/ touches SQLite or the terminal"
fi
grep -nE '#include *"diskproof/(run|plan|workload|store|report)\.h"' src/engine/* &&
	complain "an engine includes the run, plan, workload, store or report"
grep -rnE '\bio_uring_[a-z_]+[[:space:]]*\(|\bIORING_|liburing|(->|\.)(queue|commit|reap|stamp_ready|probe)[[:space:]]*\(' \
	src include --include='*.c' --include='*.h' | grep -v '^src/engine/' &&
	complain "io_uring or an engine's hook called outside src/engine/ (use driver.h)"
for f in src/run/worker.c; do
	[ -f "$f" ] || continue
	grep -nE 'sqlite3|\bstore_|fprintf|printf *\(' "$f" | grep -v snprintf &&
		complain "$f touches SQLite or the terminal"
done
[ $bad = 0 ] || fail "the tree's shape rules are broken (docs/architecture.md)"
echo "ok"
