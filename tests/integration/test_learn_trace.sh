#!/bin/bash
# SPDX-License-Identifier: MIT
# test_learn_trace.sh - the BPF tracing source of `diskproof fingerprint`
# (docs/learn.md, "The BPF source") against a known load on loop devices:
# data (loop A) gets 3,000 O_DIRECT reads of 4 KiB at random 4 KiB-aligned
# offsets, log (loop B) 400 O_DIRECT writes of 64 KiB one after the other,
# inside one fingerprint's window; loop C, watched by a second fingerprint
# at the same time, gets nothing. Checked: the trace section's counts match
# the load and diskstats' counts of the same window within 3 %, the size
# buckets (4 KiB reads, 64 KiB writes), the sequential fraction (random
# reads under 5 %, the writes over 95 %), and loop C's trace counts zero
# (the filter keeps other devices' requests out; a filter that let every
# device in would count A's and B's). Then --no-trace and a user without
# privileges (nobody): no trace section, the reason said, exit 0.
# Root, a kernel with BTF and a diskproof built with the source, else 77.
source "$(dirname "$0")/lib.sh"
set -e
need_root "loop devices and BPF"
[ -r /sys/kernel/btf/vmlinux ] || { echo "skipped: no kernel BTF (/sys/kernel/btf/vmlinux)"; exit 77; }
command -v losetup >/dev/null || { echo "skipped: no losetup"; exit 77; }
command -v setpriv >/dev/null || { echo "skipped: no setpriv"; exit 77; }

# loop NAME: a 256 MiB direct-I/O loop device over $WORK/NAME.img
loop() {
	truncate -s 256MiB "$WORK/$1.img"
	losetup --direct-io=on --find --show "$WORK/$1.img" || { echo "skipped: losetup" >&2; exit 77; }
}
A=$(loop a) && at_exit "losetup -d $A"
B=$(loop b) && at_exit "losetup -d $B"
C=$(loop c) && at_exit "losetup -d $C"
udevadm settle 2>/dev/null || sleep 1

"$DISKPROOF" fingerprint --data "$C" --duration 1s -o probe.json 2>probe.err || true
if grep -q "not built into this diskproof" probe.err; then
	echo "skipped: $(grep 'BPF tracing' probe.err)"
	exit 77
fi
grep -q "BPF tracing: used" probe.err || fail "the BPF source did not start: $(cat probe.err)"

"$DISKPROOF" fingerprint --data "$A" --log "$B" --duration 8s -o ab.json 2>ab.err &
FA=$!
"$DISKPROOF" fingerprint --data "$C" --duration 8s -o c.json 2>c.err &
FC=$!
sleep 2 # both attached and their windows open
python3 - "$A" "$B" <<'PY'
import mmap, os, random, sys
rnd = random.Random(34)
buf = mmap.mmap(-1, 65536)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
blocks = 256 * 1024 * 1024 // 4096
for off in rnd.sample(range(blocks), 3000):
    os.preadv(fd, [memoryview(buf)[:4096]], off * 4096)
os.close(fd)
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_DIRECT)
for i in range(400):
    os.pwritev(fd, [buf], (1024 + i * 16) * 4096)
os.close(fd)
PY
wait $FA || fail "fingerprint of A and B: $(cat ab.err)"
wait $FC || fail "fingerprint of C: $(cat c.err)"
cat ab.err

python3 - ab.json c.json "$DP_SOURCE_DIR/docs/schema/fingerprint.schema.json" <<'PY' || fail "the trace does not match the load (above)"
import json, sys
ab, c = (json.load(open(f)) for f in sys.argv[1:3])
bad = []
def check(what, ok, got):
    print("%-52s %s  (%s)" % (what, "ok" if ok else "FAIL", got))
    if not ok:
        bad.append(what)
def near(a, b, pct):
    return abs(a - b) <= pct / 100 * max(a, b)
print("trace_source:", ab.get("trace_source"))
d, l = ab["data"], ab["log"]
check("data has a trace section", "trace" in d, list(d))
check("log has a trace section", "trace" in l, list(l))
dt, lt = d["trace"], l["trace"]
check("data traced reads >= the 3000 of the load", dt["ops"]["read"] >= 3000, dt["ops"]["read"])
check("data traced reads within 3 % of diskstats'", near(dt["ops"]["read"], d["counters"]["reads"], 3),
      "%d vs %d" % (dt["ops"]["read"], d["counters"]["reads"]))
check("data traced reads within 3 % of the load", near(dt["ops"]["read"], 3000, 3), dt["ops"]["read"])
check("data reads of 4 KiB: 97 % or more", dt["read_sizes"].get("4096", 0) >= 0.97 * dt["ops"]["read"],
      dt["read_sizes"])
seq = dt["figures"]["sequential_pct"]["value"]
check("data random reads: sequential under 5 %", seq is not None and seq < 5, seq)
check("data working set: 200 to 256 regions of 1 MiB", 200 <= dt["regions"] <= 256, dt["regions"])
check("log traced writes within 3 % of the load (400)", near(lt["ops"]["write"], 400, 3), lt["ops"]["write"])
check("log traced writes within 3 % of diskstats'", near(lt["ops"]["write"], l["counters"]["writes"], 3),
      "%d vs %d" % (lt["ops"]["write"], l["counters"]["writes"]))
check("log writes of 64 KiB: 97 % or more", lt["write_sizes"].get("65536", 0) >= 0.97 * lt["ops"]["write"],
      lt["write_sizes"])
seq = lt["figures"]["sequential_pct"]["value"]
check("log sequential writes: over 95 %", seq is not None and seq > 95, seq)
check("log: no reads traced (A's are not B's)", lt["ops"]["read"] == 0, lt["ops"]["read"])
check("data: no writes traced (B's are not A's)", dt["ops"]["write"] == 0, dt["ops"]["write"])
svc = dt["figures"]["read_service_ms"]["value"]
check("data read service time measured (> 0)", svc is not None and svc > 0, svc)
ct = c["data"].get("trace", {"ops": {"read": -1, "write": -1}})
check("idle C traced nothing while A and B worked", ct["ops"]["read"] == 0 and ct["ops"]["write"] == 0,
      ct["ops"])
try:
    import jsonschema
    schema = json.load(open(sys.argv[3]))
    for doc in (ab, c):
        jsonschema.validate(doc, schema)
    check("both fingerprints valid against fingerprint.schema.json", True, "jsonschema")
except ImportError:
    print("no python3-jsonschema: the schema is not checked")
except jsonschema.ValidationError as e:
    check("both fingerprints valid against fingerprint.schema.json", False, e.message)
sys.exit(1 if bad else 0)
PY

# --no-trace: diskstats only, said in the fingerprint
"$DISKPROOF" fingerprint --data "$C" --duration 1s --no-trace -o off.json 2>off.err ||
	fail "fingerprint --no-trace: $(cat off.err)"
grep -q '"trace_source": "off (--no-trace)"' off.json || fail "--no-trace not recorded: $(head -20 off.json)"
! grep -q '"trace": {' off.json || fail "--no-trace wrote a trace section"
# without privileges: diskstats only, the reason said, exit 0
chmod 755 "$WORK"
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	"$DISKPROOF" fingerprint --data "$C" --duration 1s >nobody.json 2>nobody.err ||
	fail "fingerprint as nobody: $(cat nobody.err)"
grep -q "BPF tracing: needs root (CAP_BPF, CAP_PERFMON); diskstats only" nobody.err ||
	fail "as nobody, the reason is not said: $(cat nobody.err)"
! grep -q '"trace": {' nobody.json || fail "as nobody, a trace section"
echo "PASS"
