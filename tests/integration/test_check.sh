#!/bin/bash
# SPDX-License-Identifier: MIT
# diskproof check: the preflight of tiny.ini on this machine prints one
# "OK|WARN|FAIL  what: detail" line per finding (engine, io_uring, direct I/O
# and filesystem of every volume, free space, disks, CPU governor, NUMA,
# memory, open files) and exits 0 with no FAIL, without creating anything;
# a volume under /proc (no file can be made there) FAILs direct I/O and free
# space: exit 3; databases bigger than the disk FAIL free space: exit 3; the
# sim engine skips the volume checks; an unknown profile or option exits 2;
# output to a pipe, or with NO_COLOR, has no escape sequences.
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

# every line after the title is a finding or the tally
lines_ok() {
	sed 1d "$WORK/out" | grep -vE '^(OK  |WARN|FAIL)  [^:]+: .+$' |
		grep -vE '^[0-9]+ failed, [0-9]+ warning\(s\)$' && fail "malformed lines above"
	return 0
}

# 1. this machine, a fresh data directory: nothing FAILs, nothing is made
expect_exit 0 "$DISKPROOF" check "$P" --data-dir "$WORK/d"
lines_ok
for what in "engine" "io_uring" "direct I/O on volume a" "direct I/O on volume b" \
	"filesystem of volume a" "free space" "CPU frequency governor" "NUMA" \
	"NUMA volume a" "memory" "open files"; do
	grep -qE "^(OK  |WARN)  $what: " "$WORK/out" || fail "no \"$what\" line: $(cat "$WORK/out")"
done
grep -q "^OK    direct I/O on volume a: .* written and read back with O_DIRECT" "$WORK/out" ||
	fail "direct I/O not exercised"
grep -q "^0 failed" "$WORK/out" || fail "tally"
[ ! -e "$WORK/d" ] || fail "check created $WORK/d"
[ -z "$(ls -A "$WORK" | grep -vxE 'out|err|probe.err|tty|\.owner')" ] || fail "check left files: $(ls -A "$WORK")"
# a disk line when the volume has a block device beneath it
dev=$(findmnt -no SOURCE -T "$WORK" 2>/dev/null || true)
if [ -b "$dev" ]; then
	grep -qE "^OK    disk [^:]+: model .*, firmware .*, rotational .*, scheduler .*, nr_requests .*, write cache .*, NUMA node .*" \
		"$WORK/out" || fail "no disk line for $dev: $(cat "$WORK/out")"
fi
# a pipe gets no colour
grep -q $'\033' "$WORK/out" && fail "escape sequences in piped output"

# 2. a volume where no file can be made: direct I/O and free space FAIL
expect_exit 3 "$DISKPROOF" check "$P" --data-dir /proc/diskproof-check
lines_ok
grep -q "^FAIL  direct I/O on volume a: /proc: " "$WORK/out" || fail "no direct I/O FAIL"
grep -q "^FAIL  free space: " "$WORK/out" || fail "no free space FAIL"
grep -q "^WARN  filesystem of volume a: proc on proc" "$WORK/out" || fail "proc not warned"
grep -qE "^[1-9][0-9]* failed" "$WORK/out" || fail "tally"

# 3. databases bigger than any test machine's disk: free space FAILs
expect_exit 3 "$DISKPROOF" check "$P" --data-dir "$WORK/d" --db-size 16TiB
grep -q "^FAIL  free space: .*: not enough" "$WORK/out" || fail "free space not FAILed"

# 4. the sim engine touches nothing: no volume checks
expect_exit 0 "$DISKPROOF" check sim-quick
lines_ok
grep -q "^OK    engine: sim: .*volume checks are skipped" "$WORK/out" || fail "sim line"
grep -q "direct I/O on" "$WORK/out" && fail "volume checks on sim"

# 5. --engine like run: psync needs no io_uring, which is then only informative
expect_exit 0 "$DISKPROOF" check "$P" --data-dir "$WORK/d" --engine psync
grep -q "^OK    engine: psync, direct I/O" "$WORK/out" || fail "--engine psync"

# 6. [engine] affinity: hard pins the workers to their disks' node (the only
# one, where NUMA is not exposed otherwise); a wrong value is a profile error
sed 's/^name = io_uring$/name = io_uring\naffinity = hard/' "$P" >hard.ini
grep -q "^affinity = hard" hard.ini || fail "sed did not add affinity"
expect_exit 0 "$DISKPROOF" check ./hard.ini --data-dir "$WORK/d"
grep -q "^OK    NUMA: .*affinity = hard" "$WORK/out" || fail "affinity not shown: $(cat "$WORK/out")"
if grep -q "^OK    NUMA: 1 node" "$WORK/out"; then
	grep -qE "^OK    NUMA volume a: .* on CPUs [0-9,-]+ \(node 0, hard\)" "$WORK/out" ||
		fail "hard placement on the only node: $(grep NUMA "$WORK/out")"
fi
sed 's/^affinity = hard/affinity = firm/' hard.ini >firm.ini
expect_exit 2 "$DISKPROOF" check ./firm.ini
grep -q 'affinity: "firm" is not one of soft, hard or none' "$WORK/err" ||
	fail "bad affinity message: $(cat "$WORK/err")"
rm -f hard.ini firm.ini

# 7. usage and profile errors
expect_exit 2 "$DISKPROOF" check no-such-profile
expect_exit 2 "$DISKPROOF" check "$P" --label x
grep -q 'unknown option "--label"' "$WORK/err" || fail "--label accepted"
expect_exit 2 "$DISKPROOF" check "$P" "$P"
"$DISKPROOF" --help | grep -q "^  check \[PROFILE\]" || fail "check not in --help"

# 8. NO_COLOR: no escape sequences even where colour would be allowed
NO_COLOR=1 script -qec "\"$DISKPROOF\" check sim-quick" /dev/null >"$WORK/tty" 2>&1 || true
grep -q "OK    engine: sim" "$WORK/tty" || fail "no output under script: $(cat "$WORK/tty")"
grep -q $'\033' "$WORK/tty" && fail "NO_COLOR: escape sequences"
script -qec "\"$DISKPROOF\" check sim-quick" /dev/null >"$WORK/tty" 2>&1 || true
grep -q $'\033\[32mOK' "$WORK/tty" || fail "no colour on a terminal: $(cat -v "$WORK/tty")"
echo "ok"
