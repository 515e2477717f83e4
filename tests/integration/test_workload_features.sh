#!/bin/bash
# SPDX-License-Identifier: MIT
# InnoDB's flushing keys on sim (batch.c), each against the same profile
# without it, at the same transaction rate (open loop), asserted on the
# run's JSON and samples:
# - doublewrite = on: the data volume's write bytes twice those without it
#   (within 5 %), a flush (db_flush) per batch; a run without flushes has
#   no db_flush class at all;
# - data_flush = per_batch with batches of one page (flush_depth = 1): as
#   many flushes as page writes;
# - data_flush = rate: the rate's flushes per second (within 5 %);
# - cleaner_interval = 2s: writes only in the pass's 1-s sample, none in
#   the other, cleaner_pages a pass.
source "$(dirname "$0")/lib.sh"
set -e

# profile NAME FLUSH_DEPTH EXTRA-KEYS...
profile() {
	local name=$1 depth=$2
	shift 2
	{
		cat <<EOT
[test]
type = performance
duration = 20s

[sizing]
database_size = 256MiB

[workload]
page_size = 16KiB
flush_depth = $depth
bdm = off
copies = 1
arrival = rate
rate = 400
EOT
		printf '%s\n' "$@"
		cat <<EOT

[thresholds]
sample_interval = 1s
EOT
		cat <<EOT

[engine]
name = sim
streams = 8

[volume v]
path = $WORK/data-$name
databases = 1
EOT
	} >"$WORK/$name.ini"
	expect_exit 0 "$DISKPROOF" run "$WORK/$name.ini" --results "$WORK/$name.db" --quiet
	"$DISKPROOF" report --format json --results "$WORK/$name.db" >"$WORK/out"
	cp "$WORK/out" "$WORK/$name.json"
}

# within A B PCT: |A / B - 1| <= PCT %
within() {
	python3 -c 'import sys; a, b, p = map(float, sys.argv[1:]); sys.exit(0 if b and abs(a / b - 1) * 100 <= p else 1)' "$@"
}

C='d["summary"]["classes"]'
profile off 8
[ "$(json "'db_flush' in $C")" = False ] || fail "a run without flushes reports db_flush"
off_bytes=$(json "$C[\"db_write\"][\"bytes\"]")
off_tps=$(json 'd["summary"]["transactions"]["per_second"]')

profile dw 8 "doublewrite = on" "doublewrite_size = 512KiB"
dw_bytes=$(json "$C[\"db_write\"][\"bytes\"]")
dw_tps=$(json 'd["summary"]["transactions"]["per_second"]')
dw_flushes=$(json "$C[\"db_flush\"][\"ios\"]")
dw_writes=$(json "$C[\"db_write\"][\"ios\"]")
echo "doublewrite: $dw_bytes bytes written against $off_bytes without, $dw_flushes flushes, $dw_writes writes"
within "$dw_tps" "$off_tps" 1 || fail "doublewrite: $dw_tps transactions/s against $off_tps: not the same load"
within "$dw_bytes" "$((2 * off_bytes))" 5 || fail "doublewrite: $dw_bytes bytes written, not twice $off_bytes"
# a batch: one doublewrite write and its flush, then its pages in place
[ "$dw_flushes" -gt 0 ] && [ "$dw_flushes" -lt "$((dw_writes / 2))" ] ||
	fail "doublewrite: $dw_flushes flushes for $dw_writes writes"

profile batch1 1 "data_flush = per_batch"
f=$(json "$C[\"db_flush\"][\"ios\"]")
w=$(json "$C[\"db_write\"][\"ios\"]")
echo "per_batch, batches of one page: $f flushes, $w page writes"
[ "$f" -ge "$((w - 1))" ] && [ "$f" -le "$((w + 1))" ] || fail "per_batch: $f flushes for $w one-page batches"
# per database too
fd=$(json 'd["databases"][0]["classes"]["db_flush"]["ios"]')
[ "$fd" = "$f" ] || fail "per_batch: the database's $fd flushes, the run's $f"

profile rate 8 "data_flush = rate" "data_flush_rate = 20"
r=$(json "$C[\"db_flush\"][\"iops\"]")
echo "data_flush = rate 20/s: $r flushes/s"
within "$r" 20 5 || fail "data_flush_rate = 20: $r flushes/s"

# a dirty list that never fills in 20 s: no commit waits for room
profile clean 8 "cleaner_interval = 2s" "cleaner_pages = 100" "dirty_pages = 16384"
w=$(json "$C[\"db_write\"][\"iops\"]")
echo "cleaner, 100 pages every 2 s: $w writes/s"
python3 -c 'import sys; sys.exit(0 if 45 <= float(sys.argv[1]) <= 50 else 1)' "$w" ||
	fail "cleaner: $w writes/s, not 100 pages every 2 s"
# in bursts: a 1-s sample with the pass's 100 writes every 2 s, none in the
# samples between (a sample without I/O is not stored)
sqlite3 "$WORK/clean.db" "select t_ms, ios from sample where scope = 'run' and class = 'db_write'
	and warmup = 0 order by t_ms" >"$WORK/clean.samples"
python3 - "$WORK/clean.samples" <<'PY' || fail "cleaner: writes not in bursts: $(tr '\n' ' ' <"$WORK/clean.samples")"
import sys
v = [tuple(map(int, l.split("|"))) for l in open(sys.argv[1]).read().split()]
print("samples (t_ms|writes):", " ".join(f"{t}|{n}" for t, n in v))
gaps = {b[0] - a[0] for a, b in zip(v, v[1:])}
sys.exit(0 if len(v) >= 9 and gaps == {2000} and all(90 <= n <= 100 for _, n in v) else 1)
PY
