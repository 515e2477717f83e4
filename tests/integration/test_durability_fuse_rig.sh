#!/bin/bash
# SPDX-License-Identifier: MIT
# The FUSE rig itself (tests/fuse/cachefs.c), without diskproof: a small
# Python writer makes O_DIRECT writes, some made durable with fsync or
# fdatasync, some not, some in a file closed and reopened, then the rig's cut
# drops its cache. Honest: every fsynced write is in the backing file and
# every unsynced one is lost (a close makes nothing durable). Lying: the
# fsynced writes are lost too, unless the rig was told to write them back
# after 200 ms and had the time to (then a page written again after its flush
# goes back as it is at the write-back). Reads through the mount before the cut
# see the cache. Root and /dev/fuse, else exit 77.
source "$(dirname "$0")/lib.sh"
set -e
leftovers_remove
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

# writer MNT: through the mount, with O_DIRECT and 4 KiB pages whose first
# bytes name their write:
#   a: pages 0-7 "a1" + fsync, then pages 0-3 "a2" and pages 8-9 "a3", unsynced
#   b: pages 0-1 "b1" + fdatasync, close; reopen, page 1 "b2", close (unsynced)
# then reads a back through the mount: the cache's a2/a1/a3 (checked there).
writer() {
	python3 - "$1" <<'EOF'
import mmap, os, sys
m = sys.argv[1]
def put(fd, page, tag):
    b = mmap.mmap(-1, 4096)
    b.write((tag * 2048).encode())
    assert os.pwrite(fd, b, page * 4096) == 4096
fl = os.O_RDWR | os.O_CREAT | os.O_DIRECT
a = os.open(m + "/a", fl, 0o644)
for p in range(8): put(a, p, "a1")
os.fsync(a)
for p in range(4): put(a, p, "a2")
for p in (8, 9): put(a, p, "a3")
b = os.open(m + "/b", fl, 0o644)
put(b, 0, "b1"); put(b, 1, "b1")
os.fdatasync(b)
os.close(b)
b = os.open(m + "/b", os.O_RDWR | os.O_DIRECT)
put(b, 1, "b2")
os.close(b)
got = [os.pread(a, 4096, p * 4096)[:2].decode() for p in range(10)]
want = ["a2"] * 4 + ["a1"] * 4 + ["a3"] * 2
assert got == want, "reads through the mount: %s, want %s" % (got, want)
assert os.fstat(a).st_size == 10 * 4096, os.fstat(a).st_size
os.close(a)
EOF
}

# pages FILE: the tag of each 4 KiB page of FILE, space-separated
pages() {
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
print(" ".join(d[i:i + 2].decode() for i in range(0, len(d), 4096)))' "$1"
}

expect_pages() { # expect_pages WHAT FILE TAGS
	local got
	got=$(pages "$2")
	[ "$got" = "$3" ] || fail "$1: $(basename "$2") holds pages [$got], want [$3]"
}

# honest: what fsync/fdatasync answered is kept, nothing else
cachefs_mount honest "$WORK/hb" "$WORK/hm"
writer "$WORK/hm" || fail "honest: the writer failed"
cachefs_cut
expect_pages "honest cut" "$WORK/hb/a" "a1 a1 a1 a1 a1 a1 a1 a1"
expect_pages "honest cut" "$WORK/hb/b" "b1 b1"
echo "honest: every fsynced write kept, every unsynced one lost"

# lying: fsync answered, nothing kept
cachefs_mount lying "$WORK/lb" "$WORK/lm"
writer "$WORK/lm" || fail "lying: the writer failed"
cachefs_cut
expect_pages "lying cut" "$WORK/lb/a" ""
expect_pages "lying cut" "$WORK/lb/b" ""
echo "lying: the fsynced writes are lost"

# lying, written back 200 ms after each flush: a cut 2 s later keeps them
cachefs_mount lying "$WORK/wb" "$WORK/wm" --writeback-after 200
writer "$WORK/wm" || fail "lying with write-back: the writer failed"
sleep 2
cachefs_cut
# (a page written again after its flush is written back as it is then: a2, b2;
# pages 8-9 were never flushed)
expect_pages "lying cut 2 s after the flush, write-back after 200 ms" "$WORK/wb/a" \
	"a2 a2 a2 a2 a1 a1 a1 a1"
expect_pages "lying cut 2 s after the flush, write-back after 200 ms" "$WORK/wb/b" "b1 b2"
echo "lying with write-back after 200 ms: kept after 2 s"
