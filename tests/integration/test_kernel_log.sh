#!/bin/bash
# SPDX-License-Identifier: MIT
# test_kernel_log.sh - the kernel log in a run's test log (run/kmsg.c): a
# real run on a filesystem of its own on a loop device, during which a line
# naming that loop device (and one naming another device, and one naming
# loopN0, which is not it) is written into /dev/kmsg, as the kernel would log
# an I/O error. The line about the run's device is one of the run's "kernel"
# events, in the JSON's events and the text's kernel log; the others are
# not; the test log ends with an "end" event. Skipped (77) without root, a
# loop mount, io_uring or a readable and writable /dev/kmsg.
source "$(dirname "$0")/lib.sh"
set -e
need_root "writing to /dev/kmsg"
[ -r /dev/kmsg ] && [ -w /dev/kmsg ] || { echo "skipped: /dev/kmsg not readable and writable"; exit 77; }
loop_mount "$WORK/m" 256M
DEV=$(basename "$(findmnt -n -o SOURCE "$WORK/m")")
case $DEV in loop*) ;; *) echo "skipped: not on a loop device: $DEV"; exit 77 ;; esac
TAG="diskproof-test-$$"

# the lines go in while the run measures
(
	sleep 3
	echo "<3>$DEV: $TAG test I/O error, sector 8" >/dev/kmsg
	echo "<3>${DEV}0: $TAG not this device" >/dev/kmsg
	echo "<3>sdzz: $TAG another device" >/dev/kmsg
) &
set +e
"$DISKPROOF" run quick --engine io_uring --duration 8s --warmup 0s --db-size 8MiB \
	--data-dir "$WORK/m/d" --quiet --results r.db >out 2>err
rc=$?
set -e
wait
[ $rc = 0 ] || [ $rc = 1 ] || { grep -q "io_uring" err && { echo "skipped: $(cat err)"; exit 77; }; fail "run: exit $rc: $(cat err)"; }
[ "$(sqlite3 r.db "select distinct value from env where key like 'device.%.name'")" = "$DEV" ] ||
	fail "the volume's device: $(sqlite3 r.db "select key, value from env where key like 'device.%'")"
got=$(sqlite3 r.db "select kind || ': ' || message from event where message like '%$TAG%'")
[ "$got" = "kernel: err: $DEV: $TAG test I/O error, sector 8" ] || fail "kernel events: $got"
[ "$(sqlite3 r.db "select kind from event order by rowid desc limit 1")" = end ] ||
	fail "no end event last: $(sqlite3 r.db 'select kind, message from event')"
sqlite3 r.db "select message from event where kind = 'end'" | grep -q "^run ended: " || fail "end message"

expect_verdict "$DISKPROOF" report 1 --results r.db --format json
python3 - "$WORK/out" "$DEV" "$TAG" <<'PY' || fail "JSON events"
import json, sys
d = json.load(open(sys.argv[1]))
dev, tag = sys.argv[2], sys.argv[3]
k = [e["message"] for e in d["events"] if e["kind"] == "kernel" and tag in e["message"]]
assert k == ["err: %s: %s test I/O error, sector 8" % (dev, tag)], k
assert d["events"][-1]["kind"] == "end", d["events"][-1]
PY
expect_verdict "$DISKPROOF" report 1 --results r.db
grep -q "^kernel log (" "$WORK/out" || fail "text: no kernel log: $(cat "$WORK/out")"
grep -q "err: $DEV: $TAG test I/O error" "$WORK/out" || fail "text: the line"
echo "ok"
