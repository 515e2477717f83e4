#!/bin/bash
# SPDX-License-Identifier: MIT
# test_tree_shape.sh - the rules that keep the source tree's shape
# (docs/architecture.md): no file in src/ over 1,200 lines and none in
# src/run/ over 1,000; every source file opens with its licence's SPDX line
# ("/* SPDX-License-Identifier: MIT */", LICENSE), then a comment naming its
# job; every C file and header of tests/, every script (tests/, .ci/run) and
# CMake file carries the SPDX line too (shown to fail on a planted file);
# src/workload/ includes no header of src/run/ (generators see only their
# narrow context); engines include nothing of the run, plan or workload;
# workers and generators never touch SQLite or the terminal; one driver
# drives every engine: outside src/engine/ no io_uring call (io_uring_*(),
# IORING_*, liburing) and no call of an engine's queue, commit, reap,
# stamp_ready or probe hook (the clients go through src/engine/driver.c). Then
# tests/tree_shape.py: folders include only what docs/architecture.md's
# Layers table allows and form no circle; no function over 120 lines but
# those tests/long_functions.txt lists (a list that only shrinks); every file
# of src/ named in docs/architecture.md; every header compiles alone with the
# build's flags (compile_commands.json); each public header named after its
# folder or its .c file. Each of those checks is then shown to fail on a copy
# of the tree with a fault planted for it. Skipped (77) without
# universal-ctags.
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
	sed -n 2p "$f" | grep -q '^/\*' || complain "$f does not open with a comment naming its job (after its SPDX line)"
done
# spdx_missing DIR: each file under DIR that should carry the SPDX line and
# does not: C files and headers open with it, scripts have it within their
# first three lines (after a #! line, a "---" or an editor's mode line)
spdx_missing() {
	local f
	find "$1/src" "$1/include" "$1/tests" -name '*.[ch]' -not -path '*/fuzz/corpus/*' | sort |
		while read -r f; do
			[ "$(head -1 "$f")" = "/* SPDX-License-Identifier: MIT */" ] || echo "${f#"$1"/}"
		done
	find "$1/tests" "$1/cmake" "$1/deploy" "$1/.ci" -type f \( -name '*.sh' -o -name '*.py' -o -name '*.cmake' \
		-o -name CMakeLists.txt -o -name run -o -name '*.yml' \) -not -path '*/golden/*' 2>/dev/null | sort |
		while read -r f; do
			head -3 "$f" | grep -qx '# SPDX-License-Identifier: MIT' || echo "${f#"$1"/}"
		done
	head -3 "$1/CMakeLists.txt" | grep -qx '# SPDX-License-Identifier: MIT' || echo CMakeLists.txt
}
[ -f LICENSE ] || complain "no LICENSE"
missing=$(spdx_missing "$DP_SOURCE_DIR")
[ -z "$missing" ] || complain "without the SPDX line (/* SPDX-License-Identifier: MIT */ first in C files, \
# SPDX-License-Identifier: MIT in scripts): $(echo $missing)"
# ... and the check finds a file without it
mkdir -p "$WORK/spdx/src/util" "$WORK/spdx/include" "$WORK/spdx/tests" "$WORK/spdx/cmake"
printf '/* SPDX-License-Identifier: MIT */\n/* ok.c - has it */\n' >"$WORK/spdx/src/util/ok.c"
printf '/* bare.h - has none */\n' >"$WORK/spdx/include/bare.h"
printf '#!/bin/bash\n# SPDX-License-Identifier: MIT\n' >"$WORK/spdx/tests/ok.sh"
printf '#!/bin/bash\n# bare.sh - has none\n' >"$WORK/spdx/tests/bare.sh"
printf '# SPDX-License-Identifier: MIT\n' >"$WORK/spdx/CMakeLists.txt"
missing=$(spdx_missing "$WORK/spdx" | tr '\n' ' ')
[ "$missing" = "include/bare.h tests/bare.sh " ] || complain "the SPDX check on a planted tree said \"$missing\""
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

shape() { python3 "$DP_SOURCE_DIR/tests/tree_shape.py" --build "$DP_BINARY_DIR" "$@"; }
rc=0
shape --source "$DP_SOURCE_DIR" || rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "the tree's shape rules are broken (docs/architecture.md, tests/tree_shape.py)"

# every global symbol of the core library carries its module's (or its file's) prefix
rc=0
python3 "$DP_SOURCE_DIR/tests/symbol_prefixes.py" --build "$DP_BINARY_DIR" >"$WORK/sym" 2>&1 || rc=$?
[ $rc = 2 ] && { echo "skip: the build has no library objects to read"; exit 77; }
[ $rc = 0 ] || fail "global symbols without their module's prefix (tests/symbol_prefixes.py): $(cat "$WORK/sym")"
# ... and fails when one has none: an object of util defining a function named like run's
mkdir -p "$WORK/symbuild/CMakeFiles/diskproof_core.dir/src/util"
echo 'int tuner_init(void); int tuner_init(void) { return 0; }' >"$WORK/planted.c"
cc -c -o "$WORK/symbuild/CMakeFiles/diskproof_core.dir/src/util/planted.c.o" "$WORK/planted.c" ||
	fail "cannot compile the planted object"
rc=0
python3 "$DP_SOURCE_DIR/tests/symbol_prefixes.py" --build "$WORK/symbuild" >"$WORK/sym" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q 'util/planted.c tuner_init' "$WORK/sym" ||
	fail "symbol_prefixes.py passed a planted util symbol tuner_init (rc $rc): $(cat "$WORK/sym")"

# each check fails when it should: a copy of the tree, one fault at a time
T="$WORK/tree"
fresh() {
	rm -rf "$T"
	mkdir -p "$T/tests" "$T/docs"
	cp -r "$DP_SOURCE_DIR/src" "$DP_SOURCE_DIR/include" "$T/"
	cp "$DP_SOURCE_DIR/docs/architecture.md" "$T/docs/"
	cp "$DP_SOURCE_DIR/tests/long_functions.txt" "$T/tests/"
}
# planted CHECK WANT...: the check fails on the copy, saying each WANT
planted() {
	local check=$1 want
	shift
	if shape --source "$T" --only "$check" >"$WORK/out" 2>"$WORK/err"; then
		fail "$check: a planted fault passed ($1)"
	fi
	for want in "$@"; do
		grep -qF -- "$want" "$WORK/err" || fail "$check: wanted \"$want\": $(cat "$WORK/err")"
	done
}
fresh
sed -i 's|^#include "diskproof/results.h"|#include "diskproof/report.h"\n&|' "$T/include/diskproof/analyze.h"
planted layers "a circle of folders: analyze, report"
fresh
echo '#include "diskproof/run.h"' >>"$T/src/engine/sim.c"
planted layers "engine includes run (src/engine/sim.c: #include \"diskproof/run.h\"), which its row in docs/architecture.md's Layers table does not allow: run is above it"
fresh
sed -i 's/^| `util` | — |$/| `util` | `cli` |/' "$T/docs/architecture.md"
planted layers "util may include cli, which is not in a row above it"
fresh
{
	echo "int tree_shape_long(void);"
	echo "int tree_shape_long(void)"
	echo "{"
	echo "	int x = 0;"
	for i in $(seq 118); do echo "	x += $i;"; done
	echo "	return x;"
	echo "}"
} >>"$T/src/util/strbuf.c"
planted functions "tree_shape_long is 123 lines (at most 120"
fresh
echo "src/util/strbuf.c strbuf_addstr" >>"$T/tests/long_functions.txt"
planted functions ": strbuf_addstr is " " lines now: take it off tests/long_functions.txt"
fresh
echo "/* unnamed.c - a file the map does not name */" >"$T/src/util/unnamed.c"
planted named "src/util/unnamed.c is not named"
fresh
printf '/* alone.h - needs util.h */\nstatic inline unsigned long alone(void) { return sizeof(struct strbuf); }\n' \
	>"$T/src/util/alone.h"
planted headers "src/util/alone.h does not compile alone"
fresh
printf '/* oddname.h */\n#include "diskproof/util.h"\nvoid strbuf_release(struct strbuf *sb);\n' \
	>"$T/include/diskproof/oddname.h"
planted names "include/diskproof/oddname.h: named neither after its folder (src/util/"
echo "ok"
