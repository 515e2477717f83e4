#!/bin/bash
# SPDX-License-Identifier: MIT
# test_results_escape.sh - what a results file holds cannot drive the
# terminal, nor stay "running" for ever. A label and a host name with control
# characters (ESC, BEL, CR) are shown escaped (\x1b) by list, report and
# compare in text and HTML, JSON still escapes them as JSON does; and a run that was
# still running in a file when it was imported is marked aborted in the
# importing file (an event says why), while finished runs keep their status.
set -e
. "$(dirname "$0")/lib.sh"

S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
sim() { expect_exit 0 "$DISKPROOF" run "$S" --duration 5s --warmup 1s --quiet "$@"; }

sim --results a.db --label "$(printf 'fw\033[2J\033[1;1HPASS\r')"
sim --results a.db
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("UPDATE run SET host = ? WHERE id = 2", ("srv\x07b\x1b]0;x\x07",)); db.commit()' a.db
raw() { LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" "$1" || true; }
# in HTML a CR is whitespace, as a tab or a newline
raw_html() { LC_ALL=C grep -c "$(printf '[\001-\010\013\014\016-\037\177]')" "$1" || true; }
expect_exit 0 "$DISKPROOF" list --results a.db
[ "$(raw out)" = 0 ] || fail "list printed control characters: $(od -c out | head)"
grep -qF 'fw\x1b[2J\x1b[1;1HPASS\x0d' out || fail "list label not escaped: $(cat out)"
grep -qF 'srv\x07b\x1b]0;x\x07' out || fail "list host not escaped: $(cat out)"
for id in 1 2; do
	expect_exit 0 "$DISKPROOF" report $id --results a.db
	[ "$(raw out)" = 0 ] || fail "report $id printed control characters"
done
expect_exit 0 "$DISKPROOF" report 1 --results a.db
grep -qF '[fw\x1b[2J\x1b[1;1HPASS\x0d]' out || fail "report label: $(head -3 out)"
expect_exit 0 "$DISKPROOF" compare 1 2 --results a.db
[ "$(raw out)" = 0 ] || fail "compare printed control characters"
grep -qF 'host srv\x07b\x1b]0;x\x07' out || fail "compare host: $(head -5 out)"
for id in 1 2; do
	expect_exit 0 "$DISKPROOF" report $id --results a.db --format html
	[ "$(raw_html out)" = 0 ] || fail "HTML report $id holds control characters"
done
expect_exit 0 "$DISKPROOF" report 1 --results a.db --format html
grep -qF 'fw\x1b[2J' out || fail "HTML label not shown escaped"
expect_exit 0 "$DISKPROOF" compare 1 2 --results a.db --format html
[ "$(raw_html out)" = 0 ] || fail "HTML comparison holds control characters"
expect_exit 0 "$DISKPROOF" report 1 --results a.db --format json
[ "$(json 'd["run"]["label"]')" = "$(printf 'fw\033[2J\033[1;1HPASS\r')" ] || fail "json label"

# --- import of a run still running elsewhere
sim --results b.db
sim --results b.db
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("UPDATE run SET host = ?, pid = 1", ("server-b",)); db.execute("UPDATE run SET status = ?, verdict = NULL, ended_at = NULL WHERE id = 2", ("running",)); db.commit()' b.db
cp b.db b-before.db
expect_exit 0 "$DISKPROOF" import b.db --results a.db
cmp -s b.db b-before.db || fail "import changed the other file"
[ "$(sqlite3 a.db "select status from run where host = 'server-b' order by id")" = "$(printf 'passed\naborted')" ] ||
	fail "imported statuses: $(sqlite3 a.db "select id, status from run")"
sqlite3 a.db "select message from event where kind = 'stop' and run_id = (select max(id) from run)" |
	grep -q "still running in the imported file" || fail "no event for the aborted copy"
[ -n "$(sqlite3 a.db "select ended_at from run where id = (select max(id) from run)")" ] ||
	fail "aborted copy has no end"
echo "ok"
