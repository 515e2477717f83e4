#!/bin/bash
# SPDX-License-Identifier: MIT
# "max" means one thing per name (issue 30, item 5): the slowest single I/O
# and the highest sample average are named for what they are in the text
# report ("slowest ms", "max 15s avg", the databases' "slowest"), the HTML
# headings ("slowest I/O ms", "max 15s avg ms"), and keep their documented
# keys in JSON (max_ms, max_sample_avg_ms, run.sample_s) and CSV (max_ms).
# compare and fleet name them the same way (issue 30): compare's per-scope
# tables, trend and two-run gate say "slowest ms" (the per-interval maxima
# are the slowest I/Os), its runs-as-replicates table "judged max" with a
# note naming the basis; fleet's runs table "slowest" with a note that each
# run's verdict judges its max on its max_basis, its totals "slowest ms",
# its HTML "slowest I/O ms"; no bare "max ms" anywhere, JSON keys kept.
# Each HTML chart draws the threshold that judges its figure: the average
# charts the average threshold, the per-second slowest I/O charts the
# maximum threshold only when it judges the slowest I/O (max_basis = io),
# none with max_basis = sample. Sim runs, 20 s.
source "$(dirname "$0")/lib.sh"
set -e
P="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
cp "$P" sample.ini
sed -e 's/^\[engine\]/[thresholds]\nmax_basis = io\n\n[engine]/' "$P" >io.ini
grep -q "^max_basis = io" io.ini || fail "io.ini"

for basis in sample io; do
	rm -f r.db
	expect_verdict "$DISKPROOF" run ./$basis.ini --duration 20s --warmup 5s --results r.db --quiet
	"$DISKPROOF" report latest --results r.db --wide >t.txt
	"$DISKPROOF" report latest --results r.db --format json >j.json
	"$DISKPROOF" report latest --results r.db --format csv >c.csv
	"$DISKPROOF" report latest --results r.db --format html -o h.html
	grep -qE "^volume +class .* p99\.99 ms +slowest ms +max 15s avg +verdict$" t.txt ||
		fail "$basis: text table titles: $(grep '^volume' t.txt)"
	grep -q "slowest ms: the slowest single I/O; max 15s avg: the highest average over one 15 s sample" t.txt ||
		fail "$basis: no footnote naming both"
	grep -qE "^database +volume +streams +IOPS +avg +p99 +slowest +avg +slowest " t.txt ||
		fail "$basis: database table titles: $(grep '^database' t.txt)"
	grep -qE " max ms| smp ms" t.txt && fail "$basis: a bare max or smp title is left"
	head -1 c.csv | grep -q ",max_ms," || fail "$basis: CSV key max_ms"
	python3 - j.json h.html "$basis" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
html = open(sys.argv[2]).read()
basis = sys.argv[3]
if d["run"]["sample_s"] != 15:
    sys.exit("sample_s %s" % d["run"]["sample_s"])
c = d["summary"]["classes"]["db_read"]
if not (c["max_ms"] >= c["max_sample_avg_ms"] > 0):
    sys.exit("max_ms %s max_sample_avg_ms %s" % (c["max_ms"], c["max_sample_avg_ms"]))
for h in ("slowest I/O ms", "max 15s avg ms"):
    if "<th class=\"num\">%s</th>" % h not in html:
        sys.exit("no HTML heading %s" % h)
if re.search(r'<th class="num">max ms</th>', html):
    sys.exit("a bare 'max ms' heading is left")
thr = {v["criterion"]: v["threshold"] for v in d["verdicts"] if v["scope"] == "run"}

def charts(cls):
    for m in re.finditer(r'<svg ([^>]*class="%s"[^>]*)>' % cls, html):
        a = dict(re.findall(r'([a-z-]+)="([^"]*)"', m.group(1)))
        body = html[m.end():html.index("</svg>", m.end())]
        yield a, body, re.findall(r'<line class="threshold"[^>]*/><text[^>]*>([^<]*)</text>', body)

n = 0
for a, body, lines in charts("tail"):
    c = a.get("data-class")
    want = []
    if basis == "io" and c + "_max_ms" in thr:
        want = ["max threshold %g ms (slowest I/O)" % thr[c + "_max_ms"]]
    if lines != want:
        sys.exit("%s tail chart %s: threshold lines %s, want %s" % (basis, c, lines, want))
    if 'data-name="slowest I/O"' not in body:
        sys.exit("tail chart %s: no series named slowest I/O" % c)
    n += 1
if n < 2:
    sys.exit("%d tail charts" % n)
n = 0
for m in re.finditer(r'<svg [^>]*aria-label="([a-z_]+) average latency over time"[^>]*>', html):
    c = m.group(1)
    n += 1
    body = html[m.end():html.index("</svg>", m.end())]
    lines = re.findall(r'<line class="threshold"[^>]*/><text[^>]*>([^<]*)</text>', body)
    want = ["avg threshold %g ms" % thr[c + "_avg_ms"]] if c + "_avg_ms" in thr else []
    if lines != want:
        sys.exit("average chart %s: threshold lines %s, want %s" % (c, lines, want))
if n < 3:
    sys.exit("%d average charts" % n)
PY
done

# compare and fleet over the two runs of the last r.db (max_basis = io) and
# another sample-basis run
expect_verdict "$DISKPROOF" run ./sample.ini --duration 20s --warmup 5s --results r.db --quiet
"$DISKPROOF" compare 1 2 --all --fail-on-regression=5 --results r.db >cmp.txt || true
grep -qE '^  db_read +IOPS ' cmp.txt || fail "compare: no per-scope table: $(head -20 cmp.txt)"
grep -qE '^  +slowest ms +[0-9.]+ +[0-9.]+ ' cmp.txt || fail "compare: no slowest ms row"
grep -q "max ms" cmp.txt && fail "compare: a bare max ms: $(grep 'max ms' cmp.txt)"
"$DISKPROOF" compare 1 2 1 --results r.db >trend.txt || true
grep -qE '^  db_read slowest ms +[0-9.]+' trend.txt || fail "compare trend: $(grep db_read trend.txt)"
grep -qE '^  db_read judged max +' cmp.txt || fail "compare replicates: $(grep db_read cmp.txt)"
grep -q "judged max: each run's maximum as its verdict judged it" cmp.txt || fail "compare replicates: no note"
grep -q "max ms" trend.txt && fail "compare trend: a bare max ms"
"$DISKPROOF" compare 1 2 --results r.db --format json >cmp.json || true
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=json.dumps(d); assert "max_ms" in s, "key max_ms"' cmp.json ||
	fail "compare JSON: the key max_ms"
"$DISKPROOF" fleet 1 2 --results r.db >fleet.txt
grep -qE '^host +run .* avg +p99 +slowest +avg ms ' fleet.txt || fail "fleet: runs table: $(grep '^host' fleet.txt)"
grep -q "slowest: the slowest single I/O; each run's verdict judges its maximum on its max_basis" fleet.txt ||
	fail "fleet: no note on the max basis"
grep -qE '^  class .* p99\.9 ms +slowest ms$' fleet.txt || fail "fleet totals: $(grep '  class' fleet.txt)"
grep -qE 'max ms|read max' fleet.txt && fail "fleet: a bare max"
"$DISKPROOF" fleet 1 2 --results r.db --format html -o fleet.html
grep -q '<th>db read slowest ms</th>' fleet.html && grep -q '<th>slowest I/O ms</th>' fleet.html ||
	fail "fleet HTML: headings"
grep -q '<th>[^<]*max ms</th>' fleet.html && fail "fleet HTML: a bare max ms heading"
"$DISKPROOF" fleet 1 2 --results r.db --format json >fleet.json
[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(all("db_read_max_ms" in h for h in d["hosts"]))' fleet.json)" = True ] ||
	fail "fleet JSON: the key db_read_max_ms"
echo ok
