#!/bin/bash
# SPDX-License-Identifier: MIT
# "diskproof clean" removes exactly diskproof's files and nothing else: every
# database, log and journal it made goes; a foreign file where a database
# goes, a file it never made and a symbolic link (and its target) stay byte
# for byte; a directory goes only when empty; without a terminal and without
# --yes it refuses (exit 2) and removes nothing.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -e
skip_without_uring

D="$WORK/data"
clean() {
	"$DISKPROOF" clean quick --data-dir "$D" --db-size 4MiB "$@"
}

# What init lays out for quick: db1, db2 on vol1 and db3, db4 on vol2, the
# logs beside them. Journals are written by a run: make one per database by
# running, so that .gen files are checked too.
expect_exit 0 "$DISKPROOF" init quick --data-dir "$D" --db-size 4MiB --quiet
expect_verdict "$DISKPROOF" run quick --data-dir "$D" --db-size 4MiB --duration 1s --warmup 0s \
	--results "$WORK/r.db" --quiet
for f in vol1/db1 vol1/db2 vol2/db3 vol2/db4; do
	for ext in edb log gen; do
		[ -f "$D/$f.$ext" ] || fail "set-up: $f.$ext was not made"
	done
done

# foreign files: one the plan never names, one where a database goes
echo "my notes" >"$D/vol1/notes.txt"
head -c 4194304 /dev/urandom >"$D/vol2/db3.edb"
foreign=$(sha256sum "$D/vol2/db3.edb")
notes=$(sha256sum "$D/vol1/notes.txt")

# no terminal, no --yes: the list, a refusal, nothing removed
expect_exit 2 clean </dev/null
grep -q "not a terminal" err || fail "refusal does not say why"
grep -q "will remove 11 files" out || fail "listing: $(cat out)"
grep -q "db3.edb: not diskproof's: left alone" out || fail "foreign file not listed as kept"
for f in vol1/db1 vol1/db2 vol2/db4; do
	for ext in edb log gen; do
		[ -f "$D/$f.$ext" ] || fail "$f.$ext was touched without confirmation"
	done
done

# --yes: exactly diskproof's files go
expect_exit 0 clean --yes </dev/null
for f in vol1/db1 vol1/db2 vol2/db4; do
	for ext in edb log gen; do
		[ ! -e "$D/$f.$ext" ] || fail "$f.$ext was not removed"
	done
done
for f in vol2/db3.log vol2/db3.gen; do
	[ ! -e "$D/$f" ] || fail "$f (diskproof's, beside a foreign db3.edb) was not removed"
done
[ "$(sha256sum "$D/vol2/db3.edb")" = "$foreign" ] || fail "foreign db3.edb was changed"
[ "$(sha256sum "$D/vol1/notes.txt")" = "$notes" ] || fail "notes.txt was changed"
grep -q "kept directory $D/vol1: not empty" out || fail "vol1 not reported as kept"
grep -q "removed 11 files" out || fail "summary: $(cat out)"

# again: only foreign things left, nothing to remove
expect_exit 0 clean </dev/null
grep -q "nothing to remove" out || fail "second clean: $(cat out)"

# a symbolic link where a database goes: neither it nor its target is touched;
# the rest goes and so do the directories left empty
rm -rf "$D"
expect_exit 0 "$DISKPROOF" init quick --data-dir "$D" --db-size 4MiB --quiet
mkdir -p "$WORK/elsewhere"
mv "$D/vol1/db1.edb" "$WORK/elsewhere/target.edb"
ln -s "$WORK/elsewhere/target.edb" "$D/vol1/db1.edb"
target=$(sha256sum "$WORK/elsewhere/target.edb")
expect_exit 0 clean --yes
grep -q "db1.edb: a symbolic link, not followed: left alone" out || fail "link not reported"
[ -L "$D/vol1/db1.edb" ] || fail "the link was removed"
[ "$(sha256sum "$WORK/elsewhere/target.edb")" = "$target" ] || fail "link target was changed"
for f in db1.log db2.edb db2.log; do
	[ ! -e "$D/vol1/$f" ] || fail "vol1/$f was not removed"
done
[ -d "$D/vol1" ] || fail "vol1 removed while the link is in it"
[ ! -e "$D/vol2" ] || fail "empty vol2 was not removed"
grep -q "removed directory $D/vol2" out || fail "vol2 removal not reported"

# a diskproof file of another database is not this one's to remove
rm -rf "$D"
expect_exit 0 "$DISKPROOF" init quick --data-dir "$D" --db-size 4MiB --quiet
cp "$D/vol1/db2.edb" "$WORK/db2.copy"
mv "$WORK/db2.copy" "$D/vol1/db1.edb"
expect_exit 0 clean --yes
grep -q "db1.edb: diskproof's, but database 2's database, not database 1's" out ||
	fail "another database's file: $(cat out)"
[ -f "$D/vol1/db1.edb" ] || fail "another database's file was removed"

expect_exit 2 "$DISKPROOF" clean quick extra --data-dir "$D"
grep -q "got also \"extra\"" err || fail "second PROFILE not reported"

# nothing of diskproof's there: empty directories it did not make (a mount
# point waiting for its disk, say) stay, without a question asked
mkdir -p "$WORK/empty/vol1" "$WORK/empty/vol2"
expect_exit 0 "$DISKPROOF" clean quick --data-dir "$WORK/empty" </dev/null
grep -q "nothing to remove" out || fail "empty: $(cat out)"
[ -d "$WORK/empty/vol1" ] && [ -d "$WORK/empty/vol2" ] ||
	fail "clean removed empty directories it never made: $(cat out)"
[ -z "$(ls -A "$WORK/empty/vol1" "$WORK/empty/vol2" | grep -v :)" ] ||
	fail "clean left files behind in the empty directories"
echo "ok"
