#!/bin/bash
# SPDX-License-Identifier: MIT
# A journal without CLEAN (a run in progress, or one that ended uncleanly)
# is a lower bound for verify: pages newer than it are accepted, said once
# per database with the run that left it, never as one error per page; a
# page older than it is still a lost write. The journal here is the one init
# left, marked in progress as a run does before its first write, so every
# page the run wrote since is newer than it.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PT="${PAGETOOL:-$DP_BINARY_DIR/tests/pagetool}"
PS=32768
V() { "$DISKPROOF" verify "$T" --data-dir "$WORK/d" --results "$WORK/r.db" "$@"; }

expect_exit 0 "$DISKPROOF" init "$T" --data-dir "$WORK/d" --results "$WORK/r.db"
cp d/a/db1.gen init.gen
expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --results "$WORK/r.db" --quiet
# the clean journal of init, now stale: every page the run wrote is "newer"
cp init.gen d/a/db1.gen
expect_exit 4 V
# marked as run 7's in progress: a lower bound
"$PT" mark d/a/db1.gen 7 || fail "pagetool mark"
"$PT" journal d/a/db1.gen 2>&1 >/dev/null | grep -q "run_id 7 flags 0" || fail "not marked"
expect_exit 0 V
n=$(sed -n 's/^db1: .*journal from an unclean end (run 7): newer pages accepted (\([0-9]*\) found), older ones are lost writes$/\1/p' "$WORK/out")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no lower-bound line for db1: $(cat "$WORK/out")"
[ "$(grep -c '^db1' "$WORK/out")" = 1 ] || fail "said more than once: $(cat "$WORK/out")"
grep -q "^db2: .*journal clean" "$WORK/out" || fail "db2: $(cat "$WORK/out")"
# older than a lower bound is still a lost write: after another run, its
# clean journal marked in progress, a page set back one generation
expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --results "$WORK/r.db" --quiet
"$PT" mark d/a/db1.gen 9
read -r P G < <("$PT" journal d/a/db1.gen 2>/dev/null | awk '$2 >= 2 {print; exit}')
[ -n "$P" ] || fail "no page of db1 written twice"
"$PT" stamp d/a/db1.edb "$P" $((G - 1))
expect_exit 4 V
grep -q "^db1 page $P (.*offset $((P * PS))): lost write.*(expected generation $G, found $((G - 1)))" \
	"$WORK/out" || fail "lost write not found: $(cat "$WORK/out")"
grep -q "^db1: .*journal from an unclean end (run 9)" "$WORK/out" || fail "db1: $(cat "$WORK/out")"
echo ok
