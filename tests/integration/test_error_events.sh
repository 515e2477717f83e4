#!/bin/bash
# SPDX-License-Identifier: MIT
# Every bad page is named: each integrity and I/O error of a run is stored as
# an event (today's cap: 10,000 a run), and past the cap the report says how
# many more there were, exactly. Real pages: 53 pages damaged between runs
# give 53 named pages; sim: a run with more I/O errors than the cap stores
# the cap and counts the rest.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

expect_verdict "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 1s --results "$WORK/r.db" \
	--quiet
# a byte flipped in the payload of 53 pages of db1 (every fourth page)
python3 - "$WORK/d/a/db1.edb" <<'EOF'
import sys
with open(sys.argv[1], "r+b") as f:
    for p in range(0, 4 * 53, 4):
        f.seek(p * 32768 + 8192)
        b = f.read(1)
        f.seek(p * 32768 + 8192)
        f.write(bytes([b[0] ^ 0x5A]))
EOF
expect_exit 4 "$DISKPROOF" run "$T" --data-dir "$WORK/d" --duration 3s --results "$WORK/r.db" \
	--quiet
named=$(sqlite3 r.db "select message from event where run_id=2 and kind='error'" |
	sed -n 's/^db1 page \([0-9]*\) .*/\1/p' | sort -un | wc -l)
counted=$(sqlite3 r.db "select integrity_errors from summary where run_id=2 and scope='run'
	and class='db_read'")
[ "$named" = 53 ] || fail "53 damaged pages, $named named in the events"
[ "$counted" = 53 ] || fail "53 damaged pages, $counted integrity errors counted"

# more I/O errors than the cap: 10,000 stored, the rest counted exactly
sed -e 's/^seed = 7/seed = 7\nerror_rate = 20%/' -e 's/^duration = .*/duration = 2m/' \
	-e 's/^warmup = .*/warmup = 0s/' "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" >e.ini
printf '[test]\nmax_errors = 0\n' >>e.ini
expect_exit 1 "$DISKPROOF" run e.ini --results "$WORK/s.db" --quiet
kept=$(sqlite3 s.db "select count(*) from event where run_id=1 and kind='error'")
total=$(sqlite3 s.db "select sum(errors) from summary where run_id=1 and scope='run'")
more=$(sqlite3 s.db "select message from event where run_id=1 and kind='events_dropped'" |
	sed -n 's/^\([0-9]*\) more error.*/\1/p')
[ "$kept" = 10000 ] || fail "$kept error events stored, want the cap (10000)"
[ -n "$more" ] || fail "no count of the error messages past the cap"
[ $((kept + more)) = "$total" ] || fail "stored $kept + $more more != $total I/O errors"
expect_exit 0 "$DISKPROOF" report 1 --results "$WORK/s.db"
grep -q "$more more error message" "$WORK/out" || fail "the report does not say how many more"
echo ok
