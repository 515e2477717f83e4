#!/bin/bash
# SPDX-License-Identifier: MIT
# run --metrics' linger over a network with a delay (Prometheus on another
# host): a scraper whose timeout runs out before the answer reaches it
# closes first (its FIN comes back at once), and the answer it never had
# arrives after (its kernel resets it then, a delay later). The server sees
# a clean close with no error yet: that is no read, the linger goes on
# (before: it ended, and Prometheus never had the verdict). A scrape that
# reads the answer ends it. The delay: the run in one network namespace,
# the client in another, joined by a veth pair whose way back to the
# client holds the answer's segments behind a queue of datagrams (htb at
# 8 kbit/s, the ACKs through at once). Needs root, ip netns, tc htb and
# u32 (exit 77 otherwise); some 15 s.
source "$(dirname "$0")/lib.sh"
set -e
need_root "network namespaces"
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skipped: no ip or tc"; exit 77; }
SIM="$DP_SOURCE_DIR/tests/integration/profiles/sim.ini"
S=dpml-s$$ C=dpml-c$$ A=dpml-a$$ B=dpml-b$$
ip netns add $S 2>netns.err || { echo "skipped: ip netns add: $(cat netns.err)"; exit 77; }
at_exit "ip netns delete $S"
ip netns add $C
at_exit "ip netns delete $C"
ip link add $A netns $S type veth peer name $B netns $C
ip -n $S addr add 10.46.0.1/24 dev $A
ip -n $C addr add 10.46.0.2/24 dev $B
ip -n $S link set $A up
ip -n $C link set $B up
# the answer whole in the server's send buffer (a 200 KiB text)
ip netns exec $S sysctl -qw net.ipv4.tcp_wmem="4096 4194304 8388608"
tc() { ip netns exec $S tc "$@"; }
{ tc qdisc add dev $A root handle 1: htb default 10 &&
	tc class add dev $A parent 1: classid 1:10 htb rate 1gbit &&
	tc class add dev $A parent 1: classid 1:20 htb rate 8kbit burst 2k cburst 2k &&
	tc filter add dev $A parent 1: prio 1 protocol ip u32 match u16 0 0xffc0 at 2 flowid 1:10 &&
	tc filter add dev $A parent 1: prio 2 protocol ip u32 match ip protocol 17 0xff flowid 1:20 &&
	tc filter add dev $A parent 1: prio 3 protocol ip u32 match ip dport 5552 0xfff0 flowid 1:20
} 2>tc.err || { echo "skipped: tc htb/u32: $(cat tc.err)"; exit 77; }

ip netns exec $S "$DISKPROOF" run "$SIM" --duration 2s --warmup 1s --results "$WORK/net.db" \
	--metrics 10.46.0.1:9464 --metrics-linger 60s >net.out 2>net.err &
PID=$!
at_exit "kill $PID 2>/dev/null"
for _ in $(seq 600); do
	grep -q "serving final metrics" net.err && break
	kill -0 $PID 2>/dev/null || fail "the run ended: $(cat net.err)"
	sleep 0.1
done
# the scraper times out (0.5 s) with nothing read: the filler datagrams, a
# dozen seconds' worth at 8 kbit/s, hold the answer back
ip netns exec $C python3 - $S <<'PY' >client.out
import socket, subprocess, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.46.0.2", 5555))
s.connect(("10.46.0.1", 9464))
subprocess.run(["ip", "netns", "exec", sys.argv[1], "python3", "-c",
                "import socket\nu = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "[u.sendto(b'x' * 1400, ('10.46.0.2', 9)) for i in range(12)]"], check=True)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
time.sleep(0.5)
s.setblocking(False)
try:
    print(len(s.recv(1 << 20)))
except BlockingIOError:
    print(0)
s.close()
PY
[ "$(cat client.out)" = 0 ] || fail "the delay did not hold the answer back: $(cat client.out) bytes read"
sleep 2
kill -0 $PID 2>/dev/null || fail "a scraper that timed out with nothing read ended the linger: $(cat net.err)"
# the scrape that reads it ends the linger (the filler gone by now)
sleep 12
ip netns exec $C curl -sf --max-time 30 http://10.46.0.1:9464/metrics >final.txt ||
	fail "no final text"
grep -q '^diskproof_run_info{.*phase="finished"' final.txt || fail "not the final text: $(head -3 final.txt)"
set +e
wait $PID
RC=$?
set -e
[ "$RC" = 0 ] || fail "exit $RC: $(cat net.err)"
grep -q "not scraped" net.err && fail "a scraped linger said it was not: $(cat net.err)"
echo ok
