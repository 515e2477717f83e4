#!/bin/bash
# SPDX-License-Identifier: MIT
# The durability facts of a disk (issue 35) for a loop device: check prints
# its write cache with what it means, FUA, and its atomic write unit (from
# sysfs, each as /sys/block/loopN/queue says), and the atomic write unit
# statx reports on the volume; its JSON carries them as the disk's facts; a
# run records them (dev.loopN.fua, .device_cache, .atomic_write_*,
# volume.a.atomic_write). Root (a loop mount), else exit 77.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
loop_mount "$WORK/mnt" 64M
dev=$(findmnt -no SOURCE "$WORK/mnt")
disk=$(basename "$dev")
q=/sys/block/$disk/queue
wc=$(cat "$q/write_cache")
fua=$(cat "$q/fua")
awmax=$(cat "$q/atomic_write_unit_max_bytes" 2>/dev/null || echo unknown)
echo "$disk: write_cache '$wc', fua $fua, atomic_write_unit_max_bytes $awmax"

# 1. the text lines
expect_exit 0 "$DISKPROOF" check "$P" --data-dir "$WORK/mnt/d" --results "$WORK/r.db"
line=$(grep "^OK    write cache of disk $disk: " "$WORK/out") ||
	fail "no write cache line for $disk: $(cat "$WORK/out")"
case $wc in
"write back") want="write back (volatile: durable only after a flush or FUA)" ;;
"write through") want="write through (not volatile: no flushes sent)" ;;
*) fail "queue/write_cache says '$wc'" ;;
esac
[[ $line == *"$want"* ]] || fail "the write cache line does not say '$want': $line"
[ "$fua" = 1 ] && want="FUA yes" || want="FUA no"
[[ $line == *"; $want" ]] || fail "the write cache line does not end in '$want': $line"
line=$(grep "^OK    atomic writes of disk $disk: " "$WORK/out") ||
	fail "no atomic writes line for $disk: $(cat "$WORK/out")"
case $awmax in
0) [[ $line == *": none (queue/atomic_write_unit_max_bytes 0)" ]] ;;
unknown) [[ $line == *": unknown "* ]] ;;
*) [[ $line == *"to $awmax bytes"* ]] ;;
esac || fail "the atomic writes line does not say what sysfs says ($awmax): $line"
grep -qE "^OK    atomic writes on volume a: (none|unknown|[0-9]+ to [0-9]+ bytes)" "$WORK/out" ||
	fail "no statx atomic writes line for volume a: $(cat "$WORK/out")"
awk 'length > 120 { print; bad = 1 } END { exit bad }' <(grep -E "cache of disk|atomic writes" "$WORK/out") ||
	fail "a durability line is over 120 columns"

# 2. JSON: the disk line's facts
expect_exit 0 "$DISKPROOF" check "$P" --data-dir "$WORK/mnt/d" --results "$WORK/r.db" --format json
python3 - "$WORK/out" "$disk" "$fua" "$awmax" "$wc" <<'EOF' || fail "check's JSON facts"
import json, sys
out, disk, fua, awmax, wc = sys.argv[1:]
d = json.load(open(out))
f = [c["facts"] for c in d["checks"] if c["facts"] and c["facts"]["disk"] == disk]
assert f, "no facts for %s" % disk
f = f[0]
assert f["write_cache"] == wc, f
assert f["fua"] == fua, f
assert f["atomic_write_unit_max"] == awmax, f
assert f["device_cache"] == "unknown", f  # a loop device has no cache_type
EOF

# 3. a run records them
expect_verdict "$DISKPROOF" run "$P" --duration 1s --data-dir "$WORK/mnt/d" --quiet --results "$WORK/r.db"
val() { sqlite3 "$WORK/r.db" "select value from env where run_id = 1 and key = '$1'"; }
[ "$(val "dev.$disk.fua")" = "$fua" ] || fail "dev.$disk.fua: '$(val "dev.$disk.fua")', want $fua"
[ "$(val "dev.$disk.write_cache")" = "$wc" ] || fail "dev.$disk.write_cache"
[ "$(val "dev.$disk.atomic_write_unit_max")" = "$awmax" ] || fail "dev.$disk.atomic_write_unit_max"
[ "$(val "device.a.device_cache")" = unknown ] || fail "device.a.device_cache: '$(val device.a.device_cache)'"
val volume.a.atomic_write | grep -qE '^(none|unknown|[0-9]+-[0-9]+)$' ||
	fail "volume.a.atomic_write: '$(val volume.a.atomic_write)'"
echo "check and the run: write cache '$wc', FUA $fua, atomic writes $awmax, statx $(val volume.a.atomic_write)"
