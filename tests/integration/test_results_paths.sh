#!/bin/bash
# SPDX-License-Identifier: MIT
# test_results_paths.sh - the results file is only ever a regular file or a
# new path. Every command that takes --results (run, list, report, compare,
# delete, import, verify, init) and import's own argument refuse a block
# device, a character device (/dev/null), a FIFO, a socket, a directory and a
# symlink to any of them: exit 3, a message naming what the path is, nothing
# created beside it (-wal, -shm, -journal) and the device's bytes unchanged.
# -wal/-shm/-journal siblings that are not regular files are refused too.
# report -o / compare -o naming the results file (any spelling, a hard link,
# its -wal or -shm) are refused and the file keeps its runs; -o to a block
# device is refused, -o to /dev/stdout, /dev/null or a FIFO writes to it (a
# FIFO whose reader opens it after diskproof is waited for, up to 10 s; one
# without a reader is exit 3, said so).
# Root only (loop device); exit 77 otherwise.
source "$(dirname "$0")/lib.sh"
set -e
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for a loop device"; exit 77; }
command -v losetup >/dev/null || { echo "skipped: no losetup"; exit 77; }
LOOP=
SOCKPID=
cleanup() {
	set +e # undo everything, whatever is already undone
	[ -n "$SOCKPID" ] && kill "$SOCKPID" 2>/dev/null
	# what an unfixed build leaves beside the device and /dev/null
	for f in "$LOOP-wal" "$LOOP-shm" "$LOOP-journal" /dev/null-journal /dev/null-wal \
		/dev/null-shm; do
		[ -n "$LOOP" ] && [ -f "$f" ] && rm -f "$f"
	done
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
S="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
T="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"

dd if=/dev/urandom of=dev.img bs=1M count=4 status=none
LOOP=$(losetup -f --show dev.img 2>/dev/null) || { echo "skipped: no loop device"; exit 77; }
sum_dev() { head -c 1048576 "$LOOP" | sha256sum; }
BEFORE=$(sum_dev)

# a good results file with two runs, for the commands that read one
expect_exit 0 "$DISKPROOF" run "$S" --duration 5s --warmup 1s --results good.db --quiet
expect_exit 0 "$DISKPROOF" run "$S" --duration 5s --warmup 1s --results good.db --quiet
RUNS=$(sqlite3 good.db "select count(*) from run")

mkfifo fifo
python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); time.sleep(600)' \
	"$WORK/sock" &
SOCKPID=$!
for _ in $(seq 50); do [ -S sock ] && break; sleep 0.1; done
[ -S sock ] || fail "no socket"
mkdir dir
ln -s "$LOOP" link-dev
ln -s /dev/null link-null
ln -s "$WORK/fifo" link-fifo

# no sibling may appear beside a path, nor beside what a symlink names
no_siblings() {
	local p
	for p in "$@"; do
		for s in -wal -shm -journal; do
			[ ! -e "$p$s" ] && [ ! -L "$p$s" ] || fail "$p$s was created"
		done
	done
}

# check PATH WHAT CMD...: exit 3 within 10 s, the message says what PATH is
check() {
	local path=$1 what=$2
	shift 2
	expect_exit 3 timeout 10 "$@"
	grep -q "$path: is $what" "$WORK/err" || fail "message for $path ($*): $(cat "$WORK/err")"
	grep -q "must be a regular file" "$WORK/err" || fail "message for $path: $(cat "$WORK/err")"
}

for spec in "$LOOP:a block device" "/dev/null:a character device" "$WORK/fifo:a FIFO" \
	"$WORK/sock:a socket" "$WORK/dir:a directory" "$WORK/link-dev:a symbolic link to a block device" \
	"$WORK/link-null:a symbolic link to a character device" \
	"$WORK/link-fifo:a symbolic link to a FIFO"; do
	p=${spec%%:*}
	w=${spec#*:}
	check "$p" "$w" "$DISKPROOF" list --results "$p"
	check "$p" "$w" "$DISKPROOF" report --results "$p"
	check "$p" "$w" "$DISKPROOF" report 1 --results "$p" --format json
	check "$p" "$w" "$DISKPROOF" compare 1 2 --results "$p"
	check "$p" "$w" "$DISKPROOF" delete 1 --results "$p"
	check "$p" "$w" "$DISKPROOF" import good.db --results "$p"
	check "$p" "$w" "$DISKPROOF" import "$p" --results good.db
	check "$p" "$w" "$DISKPROOF" run "$S" --duration 5s --warmup 1s --results "$p" --quiet
	check "$p" "$w" "$DISKPROOF" run "$T" --data-dir "$WORK/data" --duration 1s --results "$p" --quiet
	check "$p" "$w" "$DISKPROOF" verify "$T" --data-dir "$WORK/data" --results "$p" --quiet
	check "$p" "$w" "$DISKPROOF" init "$T" --data-dir "$WORK/data" --results "$p" --quiet
done
[ ! -e "$WORK/data" ] || fail "a refused command created the data directory"
[ "$(sum_dev)" = "$BEFORE" ] || fail "the loop device's first MiB changed"
no_siblings "$LOOP" /dev/null "$WORK/fifo" "$WORK/sock" "$WORK/dir" "$WORK/link-dev" \
	"$WORK/link-null" "$WORK/link-fifo"
[ -z "$(ls -A dir)" ] || fail "something was created in the directory"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
[ "$(sqlite3 good.db "select count(*) from run")" = "$RUNS" ] || fail "good.db changed"

# siblings that are not regular files: refused, the device untouched
for s in -wal -shm -journal; do
	cp good.db sib.db
	ln -s "$LOOP" "sib.db$s"
	check "$WORK/sib.db$s" "a symbolic link to a block device" "$DISKPROOF" list --results sib.db
	check "$WORK/sib.db$s" "a symbolic link to a block device" \
		"$DISKPROOF" run "$S" --duration 5s --warmup 1s --results sib.db --quiet
	rm -f "sib.db$s"
	mkfifo "sib.db$s"
	check "$WORK/sib.db$s" "a FIFO" "$DISKPROOF" report --results sib.db
	rm -f sib.db*
done
[ "$(sum_dev)" = "$BEFORE" ] || fail "the loop device's first MiB changed (siblings)"

# a new path is still created, and a symlink to a regular file still works
expect_exit 0 "$DISKPROOF" run "$S" --duration 5s --warmup 1s --results new.db --quiet
ln -s good.db link-good
expect_exit 0 "$DISKPROOF" list --results link-good
[ -L link-good ] || fail "the symlink to the results file was replaced"

# -o naming the results file, in any spelling, or its -wal/-shm: refused
ln good.db hard.db
for o in good.db "$WORK/good.db" "./dir/../good.db" hard.db link-good good.db-wal good.db-shm \
	"$WORK/./good.db-journal"; do
	expect_exit 3 "$DISKPROOF" report 1 --results good.db -o "$o"
	grep -q "is the results file" "$WORK/err" || fail "report -o $o: $(cat "$WORK/err")"
	expect_exit 3 "$DISKPROOF" compare 1 2 --results good.db -o "$o"
	grep -q "is the results file" "$WORK/err" || fail "compare -o $o: $(cat "$WORK/err")"
done
[ "$(sqlite3 good.db "select count(*) from run")" = "$RUNS" ] || fail "-o replaced the results file"
# while another connection holds the file open, its -wal and -shm exist
python3 -c 'import sqlite3,sys,time; db=sqlite3.connect(sys.argv[1]); db.execute("select count(*) from run").fetchall(); db.execute("pragma wal_checkpoint"); time.sleep(30)' good.db &
HOLD=$!
for _ in $(seq 50); do [ -e good.db-shm ] && break; sleep 0.1; done
ln good.db-shm shm-alias 2>/dev/null || true
if [ -e shm-alias ]; then
	expect_exit 3 "$DISKPROOF" report 1 --results good.db -o shm-alias
	grep -Eq "is the results file|has 2 hard links" "$WORK/err" ||
		fail "report -o (-shm hard link): $(cat "$WORK/err")"
fi
kill $HOLD 2>/dev/null || true
wait $HOLD 2>/dev/null || true
rm -f shm-alias
[ "$(sqlite3 good.db "select count(*) from run")" = "$RUNS" ] || fail "-o replaced the results file"

# -o to a block device: refused, unchanged; to /dev/stdout, /dev/null, a FIFO: written
expect_exit 3 "$DISKPROOF" report 1 --results good.db -o "$LOOP"
grep -q "$LOOP: is a block device" "$WORK/err" || fail "-o block device: $(cat "$WORK/err")"
expect_exit 3 "$DISKPROOF" compare 1 2 --results good.db -o link-dev
[ -b "$LOOP" ] || fail "-o replaced the device node"
[ "$(sum_dev)" = "$BEFORE" ] || fail "-o wrote the loop device"
expect_exit 0 "$DISKPROOF" report 1 --results good.db --format json -o /dev/stdout
json 'd["run"]["id"]' | grep -qx 1 || fail "-o /dev/stdout"
[ -L /dev/stdout ] || fail "/dev/stdout was replaced"
ls /dev/stdout.tmp.* 2>/dev/null && fail "a temporary file was left in /dev"
expect_exit 0 "$DISKPROOF" report 1 --results good.db -o /dev/null
[ -c /dev/null ] || fail "/dev/null was replaced"
# a reader that opens the FIFO a moment after diskproof does (as `cat fifo &`
# may, on a busy machine) is waited for; one that never comes is named
bash -c 'sleep 1; exec cat fifo' >fifo.out &
CATPID=$!
at_exit "kill $CATPID 2>/dev/null"
expect_exit 0 timeout 60 "$DISKPROOF" compare 1 2 --results good.db --format json -o fifo
wait $CATPID
[ -p fifo ] || fail "the FIFO was replaced"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' fifo.out || fail "-o FIFO content"
expect_exit 3 timeout 60 "$DISKPROOF" report 1 --results good.db -o fifo
grep -q "no process opened the FIFO for reading within 10 s" "$WORK/err" ||
	fail "-o FIFO without a reader: $(cat "$WORK/err")"
[ -p fifo ] || fail "the FIFO was replaced"
expect_exit 3 "$DISKPROOF" report 1 --results good.db -o sock
expect_exit 3 "$DISKPROOF" report 1 --results good.db -o dir
[ -z "$(ls -A dir)" ] || fail "-o dir created something in it"
# -o a descriptor: never one of the results file's own (it is closed before
# the report is written), nor an inherited one open on the results file
for o in /dev/fd/3 /proc/self/fd/3 /dev/fd/4 /proc/self/fd/4; do
	"$DISKPROOF" report 1 --results good.db -o "$o" >/dev/null 2>&1 || true
	"$DISKPROOF" compare 1 1 --results good.db -o "$o" >/dev/null 2>&1 || true
	expect_exit 0 "$DISKPROOF" list --results good.db
done
expect_exit 3 "$DISKPROOF" report 1 --results good.db -o /dev/fd/3 3>>good.db
expect_exit 0 "$DISKPROOF" list --results good.db
"$DISKPROOF" report 1 --results good.db -o /dev/fd/3 3>fd3.out || fail "-o an inherited descriptor"
grep -q "^diskproof run 1" fd3.out || fail "-o /dev/fd/3 (inherited): $(head -2 fd3.out)"
echo "ok"
