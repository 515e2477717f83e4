#!/bin/bash
# SPDX-License-Identifier: MIT
# A page the journal marks as one whose last write failed (journal.h,
# version 3) is never called corrupt (docs/integrity.md, "Failed writes"),
# on any filesystem, without root: a page of a journal marked "write failed
# in run 7" (pagetool fail) and then damaged is named by verify as "write
# failed in run 7" with exit 0, in text and in JSON (valid against
# verify.schema.json); a damaged page that is not marked is still an
# integrity error (exit 4) beside it; the next run notes the page, reads it
# with no integrity error and keeps its mark until it writes it.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
PT="$DP_BINARY_DIR/tests/pagetool"
D="$WORK/d"
DB="$D/a/db1.edb"
run_tiny() { "$DISKPROOF" run "$T" --data-dir "$D" --results "$WORK/r.db" --quiet "$@"; }
verify_tiny() { "$DISKPROOF" verify "$T" --data-dir "$D" "$@"; }
flip() { # flip PAGE: one payload byte of page PAGE of db1 changed
	local off=$(($1 * 32768 + 1000)) b
	b=$(od -An -tu1 -j $off -N1 "$DB" | tr -d ' ')
	printf "$(printf '\\%03o' $(((b + 1) % 256)))" | dd of="$DB" bs=1 seek=$off conv=notrunc 2>/dev/null
}

expect_verdict run_tiny --duration 2s
"$PT" fail "$D/a/db1.gen" 5 7
[ "$(head -c 12 "$D/a/db1.gen" | tail -c 4 | od -An -tu4 | tr -d ' ')" = 3 ] ||
	fail "a journal with a mark is not version 3"
flip 5
[ "$("$PT" crc "$DB" 5)" = bad ] || fail "page 5 not damaged"

expect_exit 0 verify_tiny
grep -q "^db1 page 5 (.* offset 163840): write failed in run 7: what it holds is undefined; not checked$" out ||
	fail "verify does not name the failed write: $(cat out)"
grep -q "^db1: .*1 write failed" out || fail "no count: $(cat out)"
! grep -q "checksum mismatch" out || fail "a failed write called corrupt: $(cat out)"
grep -q "1 page(s) not checked: their last write failed .* not an integrity error" err ||
	fail "verify does not say what it means: $(cat err)"
expect_exit 0 verify_tiny --format json
cp out v.json
python3 - v.json <<'EOF2' || fail "verify JSON: $(cat v.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "clean" and d["integrity_errors"] == 0 and d["write_failed"] == 1, d
b = d["databases"][0]["bad_listed"]
assert len(b) == 1 and b[0]["problem"] == "write_failed" and b[0]["index"] == 5, b
assert b[0]["failed_in_run"] == 7 and b[0]["found_generation"] is None, b
assert d["bad"]["write_failed"] == 1 and d["bad"]["checksum"] == 0, d["bad"]
EOF2
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$DP_SOURCE_DIR/docs/schema/verify.schema.json" v.json <<'EOF2' || fail "verify JSON not valid"
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
EOF2
fi

# a damaged page that is not marked: still an integrity error
gen6=$("$PT" gen "$DB" 6)
flip 6
expect_exit 4 verify_tiny
grep -q "^db1 page 6 .*checksum mismatch" out || fail "damage beside a failed write missed: $(cat out)"
grep -q "^db1 page 5 .*write failed in run 7" out || fail "page 5: $(cat out)"
"$PT" stamp "$DB" 6 "$gen6"

# the next run: noted, read without an integrity error, mark kept or cleared
expect_verdict run_tiny --duration 3s
sqlite3 "$WORK/r.db" "select message from event where run_id=2 and kind='journal'" |
	grep -q "^db1: 1 page(s) whose last write failed (run 7)" || fail "run 2 does not note the page"
ie=$(sqlite3 "$WORK/r.db" "select coalesce(sum(integrity_errors),0) from summary
	where run_id=2 and scope='run'")
[ "$ie" = 0 ] || fail "run 2: $ie integrity errors"
line=$("$PT" journal "$D/a/db1.gen" 2>/dev/null | sed -n 6p)
case $line in
"5 failed 7") [ "$("$PT" crc "$DB" 5)" = bad ] || fail "page 5 changed but still marked" ;;
"5 "[0-9]*) [ "$("$PT" crc "$DB" 5)" = ok ] || fail "page 5 unmarked but damaged" ;;
*) fail "journal page 5: $line" ;;
esac
expect_exit 0 verify_tiny
echo "ok"
