#!/bin/bash
# SPDX-License-Identifier: MIT
# The live view of "diskproof run": on a terminal (a tmux pane of a private
# server) a frame redrawn in place: read twice, two seconds apart, it names
# the phase and both volumes, its numbers move, and latencies are coloured;
# with NO_COLOR the pane holds no colour or attribute at all; with stderr
# on a pipe status lines (--status-interval) and no escape sequence; --quiet
# prints only the final summary. Uses tiny.ini on real files (the sim
# engine finishes in seconds of virtual time, too fast to read twice).
# Exit 77 without tmux or io_uring.
source "$(dirname "$0")/lib.sh"
set -e
command -v tmux >/dev/null || { echo "skipped: no tmux (apt-get install tmux)"; exit 77; }
skip_without_uring
P="$DP_SOURCE_DIR/tests/integration/profiles/tiny.ini"
SOCK="$WORK/tmux.sock"
T=(tmux -S "$SOCK" -f /dev/null)
trap '"${T[@]}" kill-server 2>/dev/null; rm -rf "$WORK"' EXIT

# start NAME ENV...: runs diskproof in a 100x40 pane with the given
# environment (and TERM set, NO_COLOR unset unless given)
start() {
	local name=$1
	shift
	"${T[@]}" new-session -d -s "$name" -x 100 -y 40 \
		"env -u NO_COLOR TERM=xterm $* '$DISKPROOF' run '$P' --duration 8s \
		--data-dir '$WORK/d' --results '$WORK/$name.db'; echo EXIT=\$? >'$WORK/$name.exit'; \
		sleep 60"
}

# wait_for NAME TEXT: until the pane shows TEXT (at most 20 s)
wait_for() {
	for _ in $(seq 100); do
		"${T[@]}" capture-pane -p -t "$1" | grep -q "$2" && return 0
		sleep 0.2
	done
	"${T[@]}" capture-pane -p -t "$1" >&2
	fail "the pane of $1 never showed \"$2\""
}

wait_exit() {
	for _ in $(seq 150); do
		[ -s "$WORK/$1.exit" ] && break
		sleep 0.2
	done
	grep -q "EXIT=0" "$WORK/$1.exit" || fail "$1: run did not exit 0: $(cat "$WORK/$1.exit" 2>/dev/null)"
}

# 1. colour: the frame, twice
start live
wait_for live "^measuring "
"${T[@]}" capture-pane -p -t live >one
"${T[@]}" capture-pane -e -p -t live >one.e
sleep 2.2
"${T[@]}" capture-pane -p -t live >two
for f in one two; do
	grep -qE "^(measuring|draining) +[0-9]+:[0-9]{2} of 0:08, [0-9]+:[0-9]{2} left" $f ||
		fail "no phase and times in $f: $(cat $f)"
	grep -qE "^volume +class +IOPS +avg ms +p99 ms +max 15s avg +errors +so far$" $f ||
		fail "no titles in $f"
	# the interval's IOPS, avg, p99, the highest 15 s average so far (the
	# sample so far, titled for what it is), errors, the running verdict
	grep -qE "^a +db_read +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0 +(ok|FAIL( [a-z0-9]+)+)$" $f ||
		fail "no row of volume a in $f: $(cat $f)"
	grep -qE "^b +db_read +[0-9]+ " $f || fail "no row of volume b in $f"
	grep -qE "^ +log_write +[0-9]+ " $f || fail "no log_write row in $f"
	grep -qE "^all +transactional [0-9]+ IOPS.* would (PASS|FAIL)$" $f || fail "no total in $f"
	# one frame on the screen, redrawn in place: not a scroll of frames
	[ "$(grep -c '^volume ' $f)" = 1 ] || fail "more than one frame in $f: $(cat $f)"
done
[ "$(grep -E '^(measuring|draining)' one)" != "$(grep -E '^(measuring|draining)' two)" ] ||
	fail "the elapsed time did not move: $(cat one two)"
[ "$(grep -A3 '^a ' one)" != "$(grep -A3 '^a ' two)" ] || fail "volume a's figures did not change"
# latencies coloured against the thresholds (green, yellow or red), titles dim
grep -qE $'\033\\[(32|33|31)m +[0-9]+\\.[0-9]{2}' one.e || fail "no coloured latency: $(cat -v one.e)"
wait_exit live
"${T[@]}" capture-pane -p -t live -S -200 | grep -q "verdicts: .* passed" || fail "no summary"

# 2. NO_COLOR (any non-empty value, even "0"): no SGR sequence at all
start nocolor NO_COLOR=0
wait_for nocolor "^measuring "
"${T[@]}" capture-pane -e -p -t nocolor >nc.e
grep -q "^a  *db_read" nc.e || fail "NO_COLOR: no frame: $(cat -v nc.e)"
grep -q $'\033' nc.e && fail "NO_COLOR: escape sequences on the screen: $(cat -v nc.e)"
wait_exit nocolor

# 3. a pipe: status lines, nothing redrawn; a 4 s run is shorter than the
# default --status-interval (60 s): a line at the start and one at the end
"$DISKPROOF" run "$P" --duration 4s --data-dir "$WORK/d" --results "$WORK/pipe.db" \
	2>&1 >"$WORK/pipe.out" | cat >"$WORK/pipe.err"
n=$(grep -cE '^\[0:0[0-9]/0:04 measuring\] db_read [0-9]+ IOPS [0-9.]+ ms( \| .*)? \| errors 0 \| would (PASS|FAIL)' "$WORK/pipe.err" || true)
[ "$n" = 2 ] || fail "expected a status line at the start and at the end, got $n: $(cat "$WORK/pipe.err")"
grep -q '^\[0:01/0:04 ' "$WORK/pipe.err" || fail "no status line at the start: $(cat "$WORK/pipe.err")"
grep -q '^\[0:04/0:04 ' "$WORK/pipe.err" || fail "no status line at the end: $(cat "$WORK/pipe.err")"
grep -q $'\033' "$WORK/pipe.err" && fail "escape sequences in piped progress"
grep -q "verdicts:" "$WORK/pipe.out" || fail "no summary on stdout"

# 4. --quiet: only the final summary
"$DISKPROOF" run "$P" --duration 2s --data-dir "$WORK/d" --results "$WORK/q.db" --quiet \
	>"$WORK/q.out" 2>"$WORK/q.err"
grep -q "db_read" "$WORK/q.err" && fail "--quiet printed progress: $(cat "$WORK/q.err")"
grep -q "verdicts:" "$WORK/q.out" || fail "--quiet: no summary"
# 5. a run that fails on a maximum shows it while it runs: the sim engine's
# 400 ms spikes against db_read_max = 100 ms judged on single I/Os. Frames
# soon say FAIL max on the db_read rows and "would FAIL", in 80 columns,
# with the maximum in red, mid-run; the run ends FAIL (exit 1) as it said.
sed 's/^seed = 7/seed = 7\nspike_every = 500\nspike_latency = 400ms/; s/^warmup = 30s/warmup = 0s/; s/^duration = 10m/duration = 30m/' \
	"$DP_SOURCE_DIR/tests/integration/profiles/sim.ini" >"$WORK/spike.ini"
printf '\n[thresholds]\nmax_basis = io\n' >>"$WORK/spike.ini"
"${T[@]}" new-session -d -s spike -x 80 -y 30 \
	"env -u NO_COLOR TERM=xterm '$DISKPROOF' run '$WORK/spike.ini' --results '$WORK/spike.db'; \
	echo EXIT=\$? >'$WORK/spike.exit'; sleep 60"
wait_for spike "^v1  *db_read .* FAIL max$"
"${T[@]}" capture-pane -p -t spike >sp
"${T[@]}" capture-pane -e -p -t spike >sp.e
grep -qE "^measuring +([0-9]|[12][0-9]):[0-9]{2} of 30:00" sp || fail "spike: not mid-run: $(cat sp)"
grep -qE "^volume +class +IOPS +avg ms +p99 ms +slowest I/O +errors +so far$" sp || fail "spike: no titles: $(cat sp)"
grep -qE "^v1 +db_read +[0-9]+ +[0-9.]+ +[0-9.]+ +4[0-9][0-9]\.[0-9]{2} +0 +FAIL max$" sp ||
	fail "spike: v1's db_read row does not show its maximum and FAIL max: $(cat sp)"
grep -qE "^all .* would FAIL$" sp || fail "spike: no running FAIL on the total: $(cat sp)"
awk 'length > 80 { exit 1 }' sp || fail "spike: the frame is wider than 80 columns: $(cat sp)"
# the maximum over its threshold is red
grep -qE $'\033\\[31m +4[0-9]{2}\\.[0-9]{2}' sp.e || fail "spike: the maximum is not red: $(cat -v sp.e)"
for _ in $(seq 150); do
	[ -s "$WORK/spike.exit" ] && break
	sleep 0.2
done
grep -q "EXIT=1" "$WORK/spike.exit" || fail "spike: run did not exit 1: $(cat "$WORK/spike.exit" 2>/dev/null)"
"${T[@]}" capture-pane -p -t spike -S -300 | grep -q "FAIL .*maximum" || fail "spike: no FAIL on a maximum in the summary"
echo "ok"
