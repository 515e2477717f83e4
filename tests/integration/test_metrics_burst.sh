#!/bin/bash
# SPDX-License-Identifier: MIT
# test_metrics_burst.sh - run --metrics under a burst: 200 clients (one
# python loop that begins every connection at once, then sends and reads as
# each is ready) each connect, GET /metrics and read the whole answer:
#  - at least 95 % have a 200 with a complete body within 3 s of the burst's
#    start (a listen backlog of 16 answered 28-38 % on a busy machine: the
#    connections the queue had no room for were dropped, their clients
#    retried a second later, then three);
#  - the listen queue never overflowed (TcpExt ListenOverflows and
#    ListenDrops stay 0): no scrape was dropped, which is the fault itself,
#    however fast the retries happen to be answered.
# It runs in a network namespace of its own (unshare -n), so the counters
# are the test's and port 9464 is free there: no machine-wide resource. The
# run serves for as long as the burst takes (a sim run of a virtual day,
# stopped with SIGINT afterwards: exit 130). Exit 77 without root or unshare.
if [ -z "${DP_TEST_NETNS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skipped: needs root (a network namespace)"; exit 77; }
	command -v unshare >/dev/null && command -v ip >/dev/null ||
		{ echo "skipped: no unshare or ip"; exit 77; }
	unshare -n true 2>/dev/null || { echo "skipped: cannot make a network namespace"; exit 77; }
	DP_TEST_NETNS=1 exec unshare -n bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
set -e
ip link set lo up
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
PORT=9464

# overflows: the namespace's listen queue overflows and drops so far
overflows() {
	python3 - <<'PY'
lines = [l.split() for l in open("/proc/net/netstat") if l.startswith("TcpExt:")]
v = dict(zip(lines[0][1:], map(int, lines[1][1:])))
print(v.get("ListenOverflows", 0) + v.get("ListenDrops", 0))
PY
}

"$DISKPROOF" run "$SIM" --duration 24h --warmup 0s --results "$WORK/r.db" --metrics "$PORT" \
	--quiet >"$WORK/run.out" 2>"$WORK/run.err" &
PID=$!
at_exit "kill -INT $PID"
for _ in $(seq 300); do
	kill -0 $PID 2>/dev/null || fail "the run ended: $(cat "$WORK/run.err")"
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1).close()" \
		2>/dev/null && break
	sleep 0.1
done
before=$(overflows)
python3 - "$PORT" <<'PY' || fail "burst: see above"
import errno, selectors, socket, sys, time
port, n, limit = int(sys.argv[1]), 200, 3.0
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
sel = selectors.DefaultSelector()
got, done = {}, {}
socks = [socket.socket() for _ in range(n)]
for s in socks:
    s.setblocking(False)
t0 = time.monotonic()
for i, s in enumerate(socks):  # every connection begun at once, none waiting on another
    e = s.connect_ex(("127.0.0.1", port))
    if e not in (0, errno.EINPROGRESS):
        continue
    sel.register(s, selectors.EVENT_WRITE, i)
    got[i] = b""
while sel.get_map() and time.monotonic() - t0 < limit:
    for key, ev in sel.select(timeout=0.05):
        s, i = key.fileobj, key.data
        try:
            if ev & selectors.EVENT_WRITE:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    raise OSError("connect failed")
                s.sendall(req)
                sel.modify(s, selectors.EVENT_READ, i)
                continue
            c = s.recv(65536)
            if c:
                got[i] += c
                continue
        except OSError:
            pass
        sel.unregister(s)
        s.close()
        head, _, body = got[i].partition(b"\r\n\r\n")
        length = [int(l.split(b":")[1]) for l in head.split(b"\r\n")
                  if l.lower().startswith(b"content-length:")]
        if head.startswith(b"HTTP/1.1 200") and length and len(body) == length[0]:
            done[i] = time.monotonic() - t0
answered = len(done)
print("answered within %.0f s: %d of %d (%.0f %%); slowest %.2f s"
      % (limit, answered, n, 100.0 * answered / n, max(done.values(), default=float("nan"))))
sys.exit(0 if answered >= 0.95 * n else 1)
PY
drops=$(($(overflows) - before))
[ "$drops" = 0 ] || fail "the listen queue overflowed: $drops connections dropped"
kill -INT $PID
set +e
wait $PID
rc=$?
set -e
[ $rc = 130 ] || fail "the run, stopped with SIGINT, exited $rc: $(cat "$WORK/run.err")"
echo "ok"
