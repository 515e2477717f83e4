#!/bin/bash
# SPDX-License-Identifier: MIT
# The scrape does not grow with 169 buckets per database (issue 32): a sim
# run of 40 databases on 2 volumes (5 classes each) writes its final text
# with --metrics-file, and
#  - each database and class has 23 buckets (one an octave, 22 bounds and
#    +Inf), each volume and class the 170 fine ones (169 and +Inf), the
#    coarse bounds being fine ones;
#  - the volume's buckets, count and sum are its databases' summed, exactly
#    (at every coarse bound), so either metric gives the same totals;
#  - the text is under 1,000,000 bytes. Computed: 200 database-class
#    series of 29 lines (23 buckets, _sum, _count, max, ios, bytes, errors)
#    of about 95 bytes are 550 KB, 10 volume-class histograms of 172 lines
#    of about 90 bytes 155 KB, the verdict gauges (scope database too) some
#    80 KB: 0.8 MB. 169 buckets per database would add 200 x 146 lines of
#    over 90 bytes, 2.6 MB, and fail it;
#  - promtool check metrics passes clean (where promtool is installed).
source "$(dirname "$0")/lib.sh"
set -e
sed -e 's/^databases = 2$/databases = 20/' "$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" >p.ini
grep -c '^databases = 20$' p.ini | grep -qx 2 || fail "profile not changed: $(cat p.ini)"
"$DISKPROOF" run p.ini --duration 1m --warmup 1s --results "$WORK/r.db" \
	--metrics-file "$WORK/m.prom" --quiet >run.out 2>run.err || fail "run: $(cat run.err)"
grep -q '^diskproof_run_databases 40$' m.prom || fail "not 40 databases"
python3 - m.prom <<'PY' || fail "metrics size check"
import re, sys, collections
text = open(sys.argv[1]).read()
db = collections.defaultdict(dict); vol = collections.defaultdict(dict)
dsum = collections.Counter(); vsum = {}
for line in text.splitlines():
    m = re.match(r'diskproof_io_latency_seconds_bucket\{volume="([^"]+)",database="([^"]+)",'
                 r'class="([a-z_]+)",le="([^"]+)"\} (\d+)$', line)
    if m:
        db[m[1], m[2], m[3]][m[4]] = int(m[5])
        continue
    m = re.match(r'diskproof_volume_latency_seconds_bucket\{volume="([^"]+)",class="([a-z_]+)",'
                 r'le="([^"]+)"\} (\d+)$', line)
    if m:
        vol[m[1], m[2]][m[3]] = int(m[4])
        continue
    m = re.match(r'diskproof_io_latency_seconds_sum\{volume="([^"]+)",database="[^"]+",'
                 r'class="([a-z_]+)"\} ([0-9.]+)$', line)
    if m:
        dsum[m[1], m[2]] += round(float(m[3]) * 1e9)
    m = re.match(r'diskproof_volume_latency_seconds_sum\{volume="([^"]+)",class="([a-z_]+)"\} '
                 r'([0-9.]+)$', line)
    if m:
        vsum[m[1], m[2]] = round(float(m[3]) * 1e9)
assert len(db) == 40 * 5, ("database-class histograms", len(db))
assert len(vol) == 2 * 5, ("volume-class histograms", len(vol))
assert all(len(b) == 23 for b in db.values()), sorted({len(b) for b in db.values()})
assert all(len(b) == 170 for b in vol.values()), sorted({len(b) for b in vol.values()})
coarse = set(next(iter(db.values())))
fine = set(next(iter(vol.values())))
assert coarse < fine, sorted(coarse - fine)
for (v, c), b in vol.items():
    for le in coarse:
        s = sum(x[le] for (dv, _, dc), x in db.items() if (dv, dc) == (v, c))
        assert b[le] == s, (v, c, le, b[le], s)
    assert b["+Inf"] > 0, (v, c)
    assert vsum[v, c] == dsum[v, c], (v, c, vsum[v, c], dsum[v, c])
n = len(text.encode())
print("scrape: %d bytes, %d lines" % (n, text.count("\n")))
assert n < 1000000, "the scrape is %d bytes: over 1,000,000" % n
PY
if command -v promtool >/dev/null; then
	promtool check metrics <m.prom >lint 2>&1 || fail "promtool: $(cat lint)"
	[ ! -s lint ] || fail "promtool said: $(cat lint)"
fi
echo ok
