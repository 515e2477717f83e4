#!/bin/bash
# SPDX-License-Identifier: MIT
# run --metrics: clients that connect and send nothing, or send a request
# and never read the answer, do not keep a scraper out: with 20 of them
# holding connections, a GET /metrics is answered within 3 s (a Prometheus
# scrape times out after 10 s), and the run's verdict and exit are its own.
source "$(dirname "$0")/lib.sh"
set -e
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# sim's 40 virtual minutes last some seconds of wall time
"$DISKPROOF" run "$SIM" --duration 40m --results "$WORK/r.db" --metrics "$PORT" --quiet \
	--metrics-linger 0 >run.out 2>run.err &
PID=$!
at_exit "kill $PID"
python3 - "$PORT" <<'PY' || fail "scrape behind idle clients: see above"
import socket, sys, time
port = int(sys.argv[1])
for _ in range(100):  # the server is up
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        time.sleep(0.05)
hold = []
for i in range(20):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if i % 2:  # asks, then never reads
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    hold.append(s)
time.sleep(0.2)
t0 = time.time()
s = socket.create_connection(("127.0.0.1", port), timeout=3)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
d = b""
try:
    while True:
        c = s.recv(65536)
        if not c:
            break
        d += c
except socket.timeout:
    sys.exit("no answer within 3 s (%d bytes)" % len(d))
if not d.startswith(b"HTTP/1.1 200"):
    sys.exit("answer: %r" % d[:100])
print("answered in %.2f s" % (time.time() - t0))
PY
set +e
wait $PID
rc=$?
set -e
[ "$rc" = 0 ] || fail "the run exited $rc: $(cat run.err)"
[ "$(sqlite3 r.db "select status||' '||verdict from run")" = "passed PASS" ] || fail "stored"
echo ok
