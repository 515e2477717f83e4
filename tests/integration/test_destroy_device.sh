#!/bin/bash
# SPDX-License-Identifier: MIT
# --destroy-data on a raw block device (a loop device of its own; root, else
# skipped) rewrites it whole, even when it already holds diskproof's layout:
# pages zeroed in the middle of a database (verify: exit 4) are written again
# by init --destroy-data DEV (without --force: the device carries no foreign
# signature), by init --destroy-data DEV --force, and by run --destroy-data
# DEV; each time the journals are written anew (generation 1 on every page,
# clean), the command says it re-created the device, and verify exits 0.
source "$(dirname "$0")/lib.sh"
set -e
PT="$DP_BINARY_DIR/tests/pagetool"
skip_without_uring
loop_device disk.img 64M
DEV=$LOOP_DEV
cat >dev.ini <<INI
[test]
duration = 1s
warmup = 0s
[sizing]
database_size = 16MiB
log_size = 2MiB
[workload]
log_segment_size = 256KiB
[engine]
streams = 4
[volume d]
path = $DEV
databases = 2
INI
r() { "$DISKPROOF" "$@" ./dev.ini --results "$WORK/r.db"; }
expect_exit 0 "$DISKPROOF" plan ./dev.ini --format json
for k in 0 1; do
	joff[k]=$(json "d['volumes'][0]['databases'][$k]['journal_offset']")
	jsize[k]=$(json "d['volumes'][0]['databases'][$k]['journal_size']")
done

# 1 MiB of zeros 4 MiB into db1's region (pages 128-159): verify exit 4
damage() {
	dd if=/dev/zero of="$DEV" bs=1M seek=4 count=1 oflag=direct conv=notrunc status=none
	expect_exit 4 r verify
	grep -q "32 not a diskproof page" "$WORK/out" || fail "damage: $(cat "$WORK/out")"
}
# after a --destroy-data: re-created (said), journals anew, verify 0
remade() { # WHAT OUTPUT-FILE
	grep -q "re-created as --destroy-data asked: $DEV (the whole device)" "$2" ||
		fail "$1: not said: $(cat "$2")"
	for k in 0 1; do
		"$PT" journal "$DEV" "${joff[k]}" "${jsize[k]}" >j 2>jh ||
			fail "$1: no journal for db$((k + 1))"
		[ "$(wc -l <j)" = 512 ] && [ -z "$(awk '$2 != 1 || NF != 2' j)" ] ||
			fail "$1: db$((k + 1))'s journal not reset: $(sort -k2 -n j | tail -2)"
	done
	expect_exit 0 r verify
	[ "$(grep -c "no problems; journal clean" "$WORK/out")" = 2 ] ||
		fail "$1: verify: $(cat "$WORK/out")"
}

expect_exit 0 r init --destroy-data "$DEV" --quiet
expect_verdict r run --quiet
[ -n "$("$PT" journal "$DEV" "${joff[0]}" "${jsize[0]}" 2>/dev/null | awk '$2 > 1')" ] ||
	fail "set-up: the run wrote no page of db1"
# without a flag the layout is kept, damage and all
damage
expect_exit 0 r init
grep -q "every file was there already" "$WORK/out" || fail "plain init: $(cat "$WORK/out")"
expect_exit 4 r verify

# init --destroy-data DEV: no --force needed (no foreign signature)
expect_exit 0 r init --destroy-data "$DEV"
grep -q "wrote 36 MiB" "$WORK/out" || fail "init --destroy-data: $(cat "$WORK/out")"
remade "init --destroy-data" "$WORK/out"

# the issue's own command: init --destroy-data DEV --force
expect_verdict r run --quiet
damage
expect_exit 0 r init --destroy-data "$DEV" --force
grep -q "wrote 36 MiB" "$WORK/out" || fail "init --destroy-data --force: $(cat "$WORK/out")"
remade "init --destroy-data --force" "$WORK/out"

# run --destroy-data DEV: rewritten before the load, no integrity error
expect_verdict r run --quiet
damage
expect_verdict r run --destroy-data "$DEV"
cp "$WORK/err" run.err
id=$(sqlite3 r.db "select max(id) from run")
ie=$(sqlite3 r.db "select coalesce(sum(integrity_errors),0) from summary where run_id=$id and scope='run'")
[ "$ie" = 0 ] || fail "run --destroy-data found $ie integrity errors"
sqlite3 r.db "select message from event where run_id=$id and kind='destroy_data'" |
	grep -q "$DEV (the whole device)" || fail "run stored no destroy_data event"
grep -q "re-created as --destroy-data asked: $DEV (the whole device)" run.err ||
	fail "run --destroy-data: not said: $(cat run.err)"
expect_exit 0 r verify
echo ok
