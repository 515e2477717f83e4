#!/bin/bash
# SPDX-License-Identifier: MIT
# test_volume_device.sh - the run report maps each volume to the block
# device under it (issue 30: "disk3 -> sdb in the host table"): a real run
# on a filesystem of its own on a loop device records device.VOL.name and
# device.VOL.devno (major:minor, as /sys/class/block/loopN/dev has it); the
# text report's "volumes and their devices" table shows "VOL  MOUNT
# loopN (7:N)" within 120 columns, the JSON's environment.volumes[] has
# device and devno, the HTML's volume-devices table the same. Root and a
# loop device needed (77 otherwise).
source "$(dirname "$0")/lib.sh"
set -e
loop_mount "$WORK/m" 256M
DEV=$(basename "$(findmnt -n -o SOURCE "$WORK/m")")
case $DEV in loop*) ;; *) echo "skipped: not on a loop device: $DEV"; exit 77 ;; esac
DEVNO=$(cat "/sys/class/block/$DEV/dev")
set +e
"$DISKPROOF" run quick --engine io_uring --duration 3s --warmup 0s --db-size 8MiB \
	--data-dir "$WORK/m/d" --quiet --results r.db >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 1 ] || { grep -q "io_uring" err && { echo "skipped: $(cat err)"; exit 77; }; fail "run: exit $rc: $(cat err)"; }
VOLS=$(sqlite3 r.db "select substr(key, 8, length(key) - 12) from env where key like 'device.%.name'")
[ -n "$VOLS" ] || fail "no device.VOL.name facts"
expect_exit 0 "$DISKPROOF" report 1 --results r.db
sed -n '/^volumes and their devices:$/,/^$/p' "$WORK/out" >vols.txt
for v in $VOLS; do
	# the mount point whole, or "..." and its end when over 60 columns
	line=$(grep -E "^  $v " vols.txt) || fail "text: no row for $v: $(cat vols.txt)"
	mnt=$(awk '{ print $2 }' <<<"$line")
	case "$WORK/m" in *"${mnt#...}") ;; *) fail "text: $v's mount point $mnt is not $WORK/m" ;; esac
	grep -Eq " $DEV \($DEVNO\)$" <<<"$line" ||
		fail "text: $v not shown on $DEV ($DEVNO): $(cat vols.txt)"
done
awk 'length > 120 { exit 1 }' vols.txt || fail "text: a line over 120 columns"
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format json
python3 - "$WORK/out" "$DEV" "$DEVNO" <<'PY' || fail "json: the volumes' device"
import json, sys
d = json.load(open(sys.argv[1]))
vols = d["environment"]["volumes"]
assert vols, d["environment"]
for v in vols:
    assert v["device"] == sys.argv[2] and v["devno"] == sys.argv[3], v
PY
expect_exit 0 "$DISKPROOF" report 1 --results r.db --format html
grep -q "<td class=\"device\">$DEV ($DEVNO)</td>" "$WORK/out" || fail "html: no $DEV ($DEVNO) in the volume-devices table"
echo "ok"
