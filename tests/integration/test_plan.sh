#!/bin/bash
# SPDX-License-Identifier: MIT
# diskproof plan: the layout of examples/five-disks.ini (15 databases, three on
# each of 5 volumes, logs apart, the target IOPS from the mailboxes) printed
# as text and JSON without creating anything; usage errors exit 2; a run
# whose databases outnumber the open-file limit is refused (exit 3) before
# anything is written. As root, on a 64 MiB tmpfs: capacity sizing (whole
# pages, within the share, the same again once files exist, never shrinking a
# database made before), and a profile
# asking for more than the free space refused by plan (exit 3, layout still
# printed) and by run and init before anything is written. The tmpfs parts
# exit 77 (skipped) where mounting is not possible.
source "$(dirname "$0")/lib.sh"
set -e
EX="$DP_SOURCE_DIR/examples/five-disks.ini"

# What the example's [sizing] says, computed here independently.
read -r MAILBOXES MBSIZE IOPS HEADROOM < <(python3 - "$EX" <<'PY'
import configparser, sys
c = configparser.ConfigParser(inline_comment_prefixes=(';',))
c.read(sys.argv[1])
s = c['sizing']
units = {'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30, 'TiB': 1 << 40}
size = s['mailbox_size']
print(s['mailboxes'], int(size[:-3]) * units[size[-3:]], s['iops_per_mailbox'],
      s.get('headroom', '0'))
PY
)
WANT_IOPS=$(python3 -c "import math,sys; m,i,h=map(float,sys.argv[1:]); \
x=m*i*(1+h/100); print(round(x) if abs(x-round(x))<1e-6 else math.ceil(x))" \
	"$MAILBOXES" "$IOPS" "$HEADROOM")
WANT_SIZE=$(python3 -c "import sys; t=int(sys.argv[1])*int(sys.argv[2]); \
per=-(-t//15); print(-(-per//32768)*32768)" "$MAILBOXES" "$MBSIZE")
[ "$WANT_IOPS" = 300 ] || fail "the example's figures changed: $WANT_IOPS IOPS"

# 1. the example as it is: 666.7 GiB databases, which this disk is unlikely
# to have room for (exit 3), but the whole layout is printed either way
set +e
"$DISKPROOF" plan "$EX" --data-dir "$WORK/d" >out 2>err
rc=$?
set -e
[ $rc = 0 ] || [ $rc = 3 ] || fail "plan exited $rc: $(cat err)"
[ "$(grep -c '^  db[0-9]' out)" = 15 ] || fail "not 15 database lines: $(cat out)"
[ "$(grep -c '^volume disk[1-5] ' out)" = 5 ] || fail "not 5 volumes: $(cat out)"
for v in 1 2 3 4 5; do
	[ "$(sed -n "/^volume disk$v /,/^\$/p" out | grep -c '^  db[0-9]')" = 3 ] ||
		fail "volume disk$v does not hold 3 databases"
	grep -q "^volume disk$v  $WORK/d/disk$v, logs in $WORK/d/disk$v-log\$" out ||
		fail "volume disk$v's paths"
done
grep -q "^target     $WANT_IOPS transactional IOPS" out || fail "target: $(grep target out)"
grep -q "= $MAILBOXES mailboxes x $IOPS IOPS x (1 + $HEADROOM % headroom)" out ||
	fail "target derivation not shown"
grep -q "^  db1   $WORK/d/disk1/db1.edb  666.7 GiB  log $WORK/d/disk1-log/db1.log  64 MiB\$" out ||
	fail "db1's line: $(grep '^  db1 ' out)"
grep -q "^engine     io_uring (direct I/O), 30 streams (2 per database), " out ||
	fail "engine line: $(grep '^engine' out)"
grep -q "^space (per filesystem):" out || fail "no space summary"
if [ $rc = 3 ]; then
	grep -q ": NOT ENOUGH " out || fail "exit 3 without a short filesystem"
	grep -q "not enough free space: the databases and logs need .* more, .* is free" err ||
		fail "no space message: $(cat err)"
fi
[ ! -e "$WORK/d" ] || fail "plan created $WORK/d"

# the same as JSON
set +e
"$DISKPROOF" plan "$EX" --data-dir "$WORK/d" --format json >out 2>err
[ $? = $rc ] || fail "json: another exit code"
set -e
[ "$(json 'd["target_iops"]')" = "$WANT_IOPS" ] || fail "json target_iops"
[ "$(json 'len(d["volumes"])')" = 5 ] || fail "json volumes"
[ "$(json 'sum(len(v["databases"]) for v in d["volumes"])')" = 15 ] || fail "json databases"
[ "$(json 'set(db["size"] for v in d["volumes"] for db in v["databases"]) == {'"$WANT_SIZE"'}')" = True ] ||
	fail "json database sizes, want $WANT_SIZE each"
[ "$(json 'd["streams"]')" = 30 ] || fail "json streams"
[ "$(json 'd["engine"]')" = io_uring ] || fail "json engine"
[ "$(json 'd["sizing"]["mailboxes"]')" = "$MAILBOXES" ] || fail "json mailboxes"
[ "$(json 'd["volumes"][4]["log_path"]')" = "$WORK/d/disk5-log" ] || fail "json log_path"
[ ! -e "$WORK/d" ] || fail "plan --format json created $WORK/d"

# small databases: room enough, exit 0; --db-size wins over the mailboxes
expect_exit 0 "$DISKPROOF" plan "$EX" --data-dir "$WORK/d" --db-size 1MiB --streams 45
grep -q "^  db15  $WORK/d/disk5/db15.edb  1 MiB  " out || fail "--db-size: $(grep db15 out)"
grep -q "^sizing     --db-size 1 MiB for every database" out || fail "--db-size not said"
grep -q "^target     $WANT_IOPS transactional IOPS" out || fail "target lost with --db-size"
grep -q "^engine     io_uring (direct I/O), 45 streams, " out || fail "--streams"
grep -q ": ok  (volumes disk1, disk2, disk3, disk4, disk5)" out || fail "space not ok: $(cat out)"
[ ! -e "$WORK/d" ] || fail "plan created $WORK/d"

# a built-in profile, and the sim engine (no files, no space)
expect_exit 0 "$DISKPROOF" plan mariadb-oltp --data-dir "$WORK/d" --db-size 8MiB
grep -q "^workload   jetstress model, 16 KiB pages" out || fail "mariadb-oltp page size"
expect_exit 0 "$DISKPROOF" plan sim-quick --format json
[ "$(json 'd["engine"]')" = sim ] && [ "$(json 'd["filesystems"]')" = "[]" ] ||
	fail "sim-quick plan"
[ ! -e "$WORK/d" ] && [ ! -e "$WORK/diskproof-data" ] || fail "plan created files"

# 2. usage and profile errors: exit 2
expect_exit 2 "$DISKPROOF" plan "$EX" --format xml
grep -q 'unknown format "xml"' err || fail "bad --format: $(cat err)"
expect_exit 2 "$DISKPROOF" plan "$EX" --label x
expect_exit 2 "$DISKPROOF" plan quick extra
cat >conflict.ini <<'INI'
[sizing]
mailboxes = 100
mailbox_size = 1GiB
iops_per_mailbox = 0.1
database_size = 2GiB
[volume v]
path = ./v
INI
expect_exit 2 "$DISKPROOF" plan ./conflict.ini
grep -q "conflict.ini:5: \[sizing\] database_size: conflicts with mailboxes (line 2)" err ||
	fail "conflict not named: $(cat err)"
expect_exit 0 "$DISKPROOF" --help
grep -q "^  plan \[PROFILE\]" out || fail "plan not in --help"

# 3. more databases than open files: refused before anything is written
cat >many.ini <<'INI'
[sizing]
database_size = 64KiB
log_size = 128KiB
[workload]
log_segment_size = 64KiB
[volume m]
path = ./m
databases = 200
INI
set +e
(ulimit -n 128 && "$DISKPROOF" run ./many.ini --data-dir "$WORK/many" --results "$WORK/r.db") \
	>out 2>err
rc=$?
set -e
[ $rc = 3 ] || fail "open-file limit: exit $rc: $(cat err)"
grep -q "200 database(s) need about 464 open files .* the limit is 128" err ||
	fail "open-file message: $(cat err)"
[ ! -e "$WORK/many" ] && [ ! -e "$WORK/r.db" ] || fail "written despite the file limit"

# 4. on a 64 MiB tmpfs: capacity sizing, and too little space
[ "$(id -u)" = 0 ] || { echo "skipped: the tmpfs parts need root"; exit 77; }
mkdir -p "$WORK/fs"
if ! mount -t tmpfs -o size=64m tmpfs "$WORK/fs" 2>"$WORK/mount.err"; then
	echo "skipped: cannot mount a tmpfs: $(cat "$WORK/mount.err")"
	exit 77
fi
trap 'umount "$WORK/fs" 2>/dev/null || umount -l "$WORK/fs"; rm -rf "$WORK"' EXIT
cat >cap.ini <<INI
[sizing]
capacity = 50
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[volume a]
path = $WORK/fs/a
databases = 2
[volume b]
path = $WORK/fs/b
log_path = $WORK/fs/b-log
INI
expect_exit 0 "$DISKPROOF" plan ./cap.ini --format json
FREE=$(json 'd["filesystems"][0]["free"]')
[ "$(json 'len(d["filesystems"])')" = 1 ] || fail "capacity: one filesystem"
python3 - "$WORK/out" <<'PY' || fail "capacity sizes: $(cat "$WORK/out")"
import json, sys
d = json.load(open(sys.argv[1]))
free = d["filesystems"][0]["free"]
dbs = [db for v in d["volumes"] for db in v["databases"]]
sizes = {db["size"] for db in dbs}
assert len(dbs) == 3 and len(sizes) == 1, sizes
size = sizes.pop()
logs = sum(db["log_size"] for db in dbs)
journal = lambda s: 2 * (64 + 4 * s // 32768)
budget = free * 50 // 100
assert size % 32768 == 0, size                            # whole pages
assert 3 * (size + journal(size)) + logs <= budget         # within the share
assert 3 * (size + 32768 + journal(size + 32768)) + logs > budget  # rounded down only
PY
SIZES=$(json '[db["size"] for v in d["volumes"] for db in v["databases"]]')
[ -z "$(ls -A "$WORK/fs")" ] || fail "plan wrote to the tmpfs"
# files already at the plan's paths count as free: the sizes do not change
mkdir -p "$WORK/fs/a"
dd if=/dev/zero of="$WORK/fs/a/db1.edb" bs=1M count=4 status=none
expect_exit 0 "$DISKPROOF" plan ./cap.ini --format json
[ "$(json '[db["size"] for v in d["volumes"] for db in v["databases"]]')" = "$SIZES" ] ||
	fail "capacity sizes changed once a file was there"
[ "$(json 'd["filesystems"][0]["free"]')" -lt "$FREE" ] || fail "the file took no space"
# a database made larger before (the free space shrank since) is kept as it is
dd if=/dev/zero of="$WORK/fs/a/db1.edb" bs=1M count=12 status=none
expect_exit 0 "$DISKPROOF" plan ./cap.ini --format json
[ "$(json '[db["size"] for v in d["volumes"] for db in v["databases"]]')" = \
	"[12582912, 12582912, 12582912]" ] || fail "made databases shrunk: $(cat out)"
rm -rf "${WORK:?}/fs/a"

# too big for the tmpfs: plan prints it all and exits 3; run and init refuse
# before writing anything (no directory, no results file)
cat >big.ini <<INI
[sizing]
database_size = 40MiB
log_size = 1MiB
[workload]
log_segment_size = 256KiB
[volume big]
path = $WORK/fs/data/big
databases = 2
INI
expect_exit 3 "$DISKPROOF" plan ./big.ini
grep -q "^  db2   $WORK/fs/data/big/db2.edb  40 MiB  " out || fail "layout not printed: $(cat out)"
grep -q ": NOT ENOUGH  (volume big)" out || fail "not marked short: $(cat out)"
grep -q "volume big ($WORK/fs): not enough free space: the databases and logs need 82 MiB more, 64 MiB is free" err ||
	fail "plan's message: $(cat err)"
expect_exit 3 "$DISKPROOF" run ./big.ini --results "$WORK/r.db"
grep -q "volume big ($WORK/fs): not enough free space: the databases and logs need 82 MiB more, 64 MiB is free" err ||
	fail "run's message: $(cat err)"
expect_exit 3 "$DISKPROOF" init ./big.ini --results "$WORK/r.db"
grep -q "volume big (.*): not enough free space" err || fail "init's message: $(cat err)"
[ -z "$(ls -A "$WORK/fs")" ] && [ ! -e "$WORK/r.db" ] || fail "written despite no space"

# one free-space model: a sparse foreign file at db1's path passes the check
# before anything is made (its 40 MiB count as there), but --destroy-data
# rewrites it whole: the check just before writing says so, in the same
# words, and nothing is truncated or written
mkdir -p "$WORK/fs/data/big"
truncate -s 40M "$WORK/fs/data/big/db1.edb"
expect_exit 3 "$DISKPROOF" init ./big.ini --results "$WORK/r.db" \
	--destroy-data "$WORK/fs/data/big/db1.edb"
grep -q "volume big ($WORK/fs/data/big): not enough free space: the databases and logs need 82 MiB more, 64[.0]* MiB is free" err ||
	fail "init's message before writing: $(cat err)"
[ "$(stat -c %s "$WORK/fs/data/big/db1.edb")" = 41943040 ] || fail "truncated despite no space"
[ ! -e "$WORK/fs/data/big/db2.edb" ] || fail "written despite no space"
rm -rf "${WORK:?}/fs/data"
echo "ok"
