#!/bin/bash
# SPDX-License-Identifier: MIT
# run --metrics-file never replaces what diskproof did not write as a
# metrics file: the results file (not there yet, or by another spelling)
# and its SQLite side files, a data directory's files, a foreign file, or a
# foreign PATH.tmp are refused with exit 3 before anything is written, and
# the file is left as it was. A FIFO at PATH.tmp does not hang the run. A
# metrics file of an earlier run is replaced, as before.
source "$(dirname "$0")/lib.sh"
set -e
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
TINY="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
RUN=(run "$SIM" --duration 1m --warmup 0s --quiet)

# refused NAME WHY-REGEX CMD...: exit 3, the message names --metrics-file
refused() {
	local what=$1 why=$2
	shift 2
	expect_exit 3 "$@"
	grep -qE -- "--metrics-file .*$why" err || fail "$what: $(cat err)"
}

# 1. the results file, not there yet: same name, another spelling, side files
mkdir sub
for m in r.db ./r.db sub/../r.db "$WORK/r.db" r.db-wal r.db-journal r.db-shm; do
	refused "results $m" "results file" "$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file "$m"
	[ ! -e r.db ] || fail "--metrics-file $m: the results file was made"
	[ ! -e "$m" ] || fail "--metrics-file $m: written"
done
# and there already
expect_exit 0 "$DISKPROOF" "${RUN[@]}" --results r.db
cp r.db r.db.orig
refused "existing results" "results file|not a diskproof metrics file" \
	"$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file ./r.db
cmp -s r.db r.db.orig || fail "the results file changed"

# 2. a foreign file (the profile itself, a note), a foreign PATH.tmp
cp "$SIM" mine.ini
echo "keep me" >notes.txt
for m in mine.ini notes.txt; do
	cp "$m" "$m.orig"
	refused "foreign $m" "not a diskproof metrics file" \
		"$DISKPROOF" run ./mine.ini --duration 1m --quiet --results r.db --metrics-file "$m"
	cmp -s "$m" "$m.orig" || fail "$m was overwritten"
done
cp r.db m.prom.tmp
refused "foreign PATH.tmp" "m.prom.tmp.*not a diskproof metrics file" \
	"$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file m.prom
cmp -s m.prom.tmp r.db || fail "m.prom.tmp was truncated"
[ ! -e m.prom ] || fail "m.prom written beside a foreign m.prom.tmp"
rm m.prom.tmp

# 3. a data directory's files (a real layout made by init)
expect_exit 0 "$DISKPROOF" init "$TINY" --data-dir "$WORK/d" --results r.db --quiet
for f in d/a/db1.gen d/a/db1.edb d/a/db1.log d/a/.diskproof.lock; do
	cp "$f" f.orig
	refused "data $f" "not a diskproof metrics file" "$DISKPROOF" run "$TINY" --engine psync \
		--data-dir "$WORK/d" --results r.db --duration 1s --quiet --metrics-file "$f"
	cmp -s "$f" f.orig || fail "$f was overwritten"
done
expect_exit 0 "$DISKPROOF" verify "$TINY" --data-dir "$WORK/d" --results r.db --quiet

# 4. a FIFO at PATH.tmp: refused, no hang
mkfifo f.prom.tmp
expect_exit 3 timeout 30 "$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file f.prom
grep -q "not a diskproof metrics file" err || fail "FIFO PATH.tmp: $(cat err)"
rm f.prom.tmp

# 5. its own file, and a stale PATH.tmp of its own, are replaced
expect_exit 0 "$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file m.prom
grep -q '^diskproof_run_info{.*phase="finished"' m.prom || fail "no final text in m.prom"
head -c 100 m.prom >m.prom.tmp
: >empty.prom
expect_exit 0 "$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file m.prom
expect_exit 0 "$DISKPROOF" "${RUN[@]}" --results r.db --metrics-file empty.prom
[ ! -e m.prom.tmp ] || fail "a stale m.prom.tmp stayed"
grep -q "diskproof_run_pass 1" m.prom || fail "m.prom not rewritten"
grep -q "diskproof_run_pass 1" empty.prom || fail "an empty file is not replaced"
echo ok
