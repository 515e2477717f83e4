#!/bin/bash
# SPDX-License-Identifier: MIT
# --destroy-data on files: what it names is created anew from its first page
# with its journal reset, whatever is there. A database file that shrank
# (here 64 MiB cut to 40 MiB: more than the 8 MiB a resumed creation
# re-checks) is refused by run, init and verify (exit 4); following the
# refusal's own advice (init, then run, with --destroy-data naming it)
# rewrites it whole: verify exits 0, every page is a diskproof page of
# generation 1 or later, the end of the command says what was re-created,
# and clean removes the file as diskproof's. A complete, valid database
# named by --destroy-data is re-created too (its journal back to generation
# 1 on every page); a log named alone is re-created and leaves the
# database's journal as it was; a journal named alone is replaced by a lower
# bound. On the build tree's own filesystem.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
D="$WORK/d"
DB2="$D/a/db2.edb"
PT="$DP_BINARY_DIR/tests/pagetool"
cat >p.ini <<INI
[test]
duration = 1s
warmup = 0s
[sizing]
database_size = 64MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[engine]
name = io_uring
streams = 4
[volume a]
path = $D/a
databases = 2
INI
r() { "$DISKPROOF" "$@" ./p.ini --results "$WORK/r.db"; }

# every page of FILE is a diskproof database page with its own page number
whole() {
	python3 - "$1" "$WORK/whole" <<'EOF' || fail "$1 is not whole: $(cat "$WORK/whole")"
import struct, sys
f = open(sys.argv[1], "rb")
size, bad, n = 64 << 20, [], 0
for pg in range(size // 32768):
    f.seek(pg * 32768)
    h = f.read(64)
    magic, _, kind, _, psize, page_no = struct.unpack("<QIIIIQ", h[:32])
    if magic != 0x47504f4f52504444 or kind != 1 or psize != 32768 or page_no != pg:
        bad.append(pg)
f.seek(0, 2)
open(sys.argv[2], "w").write(
    "size %d, %d pages not diskproof's (first %s)" % (f.tell(), len(bad), bad[:3]))
sys.exit(1 if bad or f.tell() != size else 0)
EOF
}

# the database cut short: refused with exit 4, by run, init and verify
shrink() {
	truncate -s 40M "$DB2"
	expect_exit 4 r run --quiet
	grep -q "db2.edb: is 41943040 bytes, but its journal .* knows 2048 pages" "$WORK/err" ||
		fail "run on the shrunk file: $(cat "$WORK/err")"
	grep -q -- "--destroy-data" "$WORK/err" || fail "no advice: $(cat "$WORK/err")"
	expect_exit 4 r init --quiet
	expect_exit 4 r verify
	[ "$(stat -c %s "$DB2")" = 41943040 ] || fail "the shrunk file was regrown"
}

# after --destroy-data: whole, verified, and clean's as diskproof's
check_remade() { # WHAT
	whole "$DB2"
	expect_exit 0 r verify
	grep -q "^db2: .*no problems" "$WORK/out" || fail "$1: verify: $(cat "$WORK/out")"
}

expect_exit 0 r init --quiet
expect_verdict r run --quiet

# init --destroy-data over the shrunk file
shrink
expect_exit 0 r init --destroy-data "$DB2"
grep -q "re-created as --destroy-data asked: $DB2" "$WORK/out" ||
	fail "init does not say what it re-created: $(cat "$WORK/out")"
grep -q "wrote 64 MiB" "$WORK/out" || fail "init did not write db2 whole: $(cat "$WORK/out")"
check_remade "init --destroy-data"

# run --destroy-data over the shrunk file
expect_verdict r run --quiet
shrink
expect_verdict r run --destroy-data "$DB2"
grep -q "re-created as --destroy-data asked: $DB2" "$WORK/err" ||
	fail "run does not say what it re-created: $(cat "$WORK/err")"
id=$(sqlite3 r.db "select max(id) from run")
sqlite3 r.db "select message from event where run_id=$id and kind='destroy_data'" |
	grep -q "$DB2" || fail "run stored no destroy_data event"
ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary where run_id=$id and scope='run'")
[ "$ie" = 0 ] || fail "run --destroy-data found $ie integrity errors"
check_remade "run --destroy-data"

# a complete, valid database named: re-created, its journal reset to 1
expect_verdict r run --quiet --duration 2s
[ -n "$("$PT" journal "$D/a/db2.gen" 2>/dev/null | awk '$2 > 1')" ] ||
	fail "set-up: no page of db2 written by the runs"
expect_exit 0 r init --destroy-data "$DB2"
grep -q "wrote 64 MiB" "$WORK/out" || fail "complete file not rewritten: $(cat "$WORK/out")"
[ -z "$("$PT" journal "$D/a/db2.gen" 2>/dev/null | awk '$2 != 1')" ] ||
	fail "db2's journal not reset to generation 1"
check_remade "a complete file named"

# a log named alone: re-created; the database's journal stays as it was
expect_verdict r run --quiet
j=$("$PT" journal "$D/a/db2.gen" 2>/dev/null | sha256sum)
expect_exit 0 r init --destroy-data "$D/a/db2.log"
grep -q "re-created as --destroy-data asked: $D/a/db2.log" "$WORK/out" ||
	fail "log: $(cat "$WORK/out")"
[ "$("$PT" journal "$D/a/db2.gen" 2>/dev/null | sha256sum)" = "$j" ] ||
	fail "re-creating the log changed the database's journal"
expect_exit 0 r verify

# a journal named alone: a new one in its place, a lower bound (the pages
# are newer than generation 1 after the runs), so verify still exits 0
expect_exit 0 r init --destroy-data "$D/a/db1.gen"
grep -q "re-created as --destroy-data asked: $D/a/db1.gen (a new journal)" "$WORK/out" ||
	fail "journal: $(cat "$WORK/out")"
"$PT" journal "$D/a/db1.gen" 2>&1 >/dev/null | grep -q " run_id 0 flags 0$" ||
	fail "db1's new journal is not a lower bound"
expect_exit 0 r verify
grep -q "^db1: .*no problems; journal a lower bound" "$WORK/out" || fail "verify: $(cat "$WORK/out")"

# clean removes the re-created files as diskproof's
expect_exit 0 "$DISKPROOF" clean ./p.ini --yes
grep -q "not diskproof's" "$WORK/out" && fail "clean kept a file: $(cat "$WORK/out")"
[ ! -e "$DB2" ] || fail "clean left db2.edb"
echo ok
