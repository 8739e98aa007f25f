#!/usr/bin/env bats
# runner serve, the network peer: refuses a wrong token and another
# protocol version (naming both), survives garbage and a bounded connection
# flood, needs a token off loopback; a peer killed mid-run fails that point
# only; a veth shaped to 100 Mbit/s measures 85-100 Mbit/s.  Hardening
# (issue 21): byte budgets that an announced length cannot overflow, counts
# of the bytes that came, strangers that cannot hold the sessions, slots
# free as soon as sessions end, token files only their owner can read, an
# ERR line for every refusal, a log that a flood cannot grow without bound.

load helpers
load probes/net_helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	ip netns list >"$BATS_TEST_TMPDIR/netns.before" 2>/dev/null || :
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$BATS_TEST_TMPDIR/token"
	chmod 600 "$BATS_TEST_TMPDIR/token"
}

teardown() {
	[ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	[ -n "${NS:-}" ] && { ip netns del "$NS" 2>/dev/null; ip link del "${NS}h" 2>/dev/null; }
	:
}

# start_serve ARGS...: runner serve on 127.0.0.1:0 in the background; ADDR
start_serve() {
	"$RUNNER" serve --listen 127.0.0.1:0 --ready-file "$BATS_TEST_TMPDIR/ready" "$@" \
		2>"$BATS_TEST_TMPDIR/serve.log" &
	SPID=$!
	wait_until 5 test -s "$BATS_TEST_TMPDIR/ready"
	ADDR=$(cat "$BATS_TEST_TMPDIR/ready")
}

# client ADDR TOKEN|- VERSION REQUEST: one handshake; prints the server's last line
client() {
	python3 - "$@" <<'PY'
import hmac, hashlib, socket, sys
addr, tok, ver, req = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
h, p = addr.rsplit(":", 1)
s = socket.create_connection((h, int(p)), timeout=5)
f = s.makefile("rwb")
f.write(b"SYSMETER %s HELLO\n" % ver.encode()); f.flush()
line = f.readline().decode().strip()
w = line.split()
if len(w) < 3 or w[2] != "CHALLENGE":
    print(line); sys.exit(0)
mac = "-"
if tok != "-":
    key = open(tok, "rb").read().rstrip(b"\n")
    mac = hmac.new(key, ("%s %s" % (w[3], req)).encode(), hashlib.sha256).hexdigest()
f.write(("AUTH %s %s\n" % (mac, req)).encode()); f.flush()
print(f.readline().decode().strip())
PY
}

# serve_py ARGS... <<'PY' ... PY: python3 running the script on stdin with
# clients of the protocol defined: conn(addr, src=None), line(s) (one line,
# byte by byte: nothing of the data phase read; "" at a close or timeout),
# hello(s, token|"-", request) (the handshake: the server's last line),
# frame(len) (a SINK header), take(s, n)
SERVE_PY='
import hashlib, hmac, os, socket, struct, sys, time
MAGIC = 0x314b4e49534d5953
def conn(addr, src=None, timeout=10):
    h, p = addr.rsplit(":", 1)
    return socket.create_connection((h, int(p)), timeout=timeout,
                                    source_address=(src, 0) if src else None)
def line(s):
    b = b""
    try:
        while not b.endswith(b"\n"):
            c = s.recv(1)
            if not c:
                break
            b += c
    except OSError:
        pass
    return b.decode(errors="replace").rstrip("\n")
def hello(s, tok, req):
    s.sendall(b"SYSMETER 1 HELLO\n")
    l = line(s)
    w = l.split()
    if len(w) < 5 or w[2] != "CHALLENGE":
        return l
    mac = "-"
    if tok != "-":
        key = open(tok, "rb").read().rstrip(b"\n")
        mac = hmac.new(key, ("%s %s" % (w[3], req)).encode(), hashlib.sha256).hexdigest()
    s.sendall(("AUTH %s %s\n" % (mac, req)).encode())
    return line(s)
def frame(n):
    return struct.pack("<QQ", MAGIC, n)
def take(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return b
'
serve_py() {
	python3 -c "$SERVE_PY
exec(compile(sys.stdin.read(), \"test\", \"exec\"))" "$@"
}

@test "serve: the right token is accepted, a wrong or missing one refused" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run client "$ADDR" "$BATS_TEST_TMPDIR/token" 1 "ECHO size=64"
	echo "$output"
	[[ "$output" == "OK cpu="* ]]
	echo "0123456789abcdef0123456789abcdef" >"$BATS_TEST_TMPDIR/wrong"
	chmod 600 "$BATS_TEST_TMPDIR/wrong"
	run client "$ADDR" "$BATS_TEST_TMPDIR/wrong" 1 "ECHO size=64"
	echo "$output"
	[ "$output" = "ERR authentication failed (wrong or missing token)" ]
	run client "$ADDR" - 1 "ECHO size=64"
	[ "$output" = "ERR authentication failed (wrong or missing token)" ]
	grep -q "refused: authentication failed" "$BATS_TEST_TMPDIR/serve.log"
	# the measuring side signs through the runner (probe_host.peer_sign): the serve accepts it
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t --peer "$ADDR" --token "$BATS_TEST_TMPDIR/token" \
		--set rtt.params.target=remote $NET/rtt.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	run "$RUNNER" --no-report -q -o "$OUT" --run-id w --peer "$ADDR" --token "$BATS_TEST_TMPDIR/wrong" \
		--set rtt.params.target=remote $NET/rtt.yaml
	[ "$status" -eq 1 ]
	[[ "$(json "$OUT/w/results/rtt.json" 'd["points"][0]["reason"]')" == *"refused: ERR authentication failed"* ]]
}

@test "serve: another protocol version is refused with both versions named" {
	start_serve
	run client "$ADDR" - 7 "ECHO size=64"
	echo "$output"
	[ "$output" = "SYSMETER 1 ERR protocol version 7 not supported (this peer speaks 1)" ]
	grep -q "client speaks protocol version 7, this peer 1" "$BATS_TEST_TMPDIR/serve.log"
}

@test "serve: a non-loopback listener needs a token" {
	run "$RUNNER" serve --listen 10.255.255.1:0
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"is not a loopback address: give a shared secret with --token FILE"* ]]
}

@test "serve: garbage and a connection flood end their sessions, never the server" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	python3 - "$ADDR" <<'PY'
import os, random, socket, sys, time
h, p = sys.argv[1].rsplit(":", 1)
rnd = random.Random(7)
msgs = [os.urandom(300), b"\n" * 5, b"SYSMETER 1 HELLO\n" + os.urandom(500), b"x" * 5000 + b"\n",
        b"SYSMETER 1 HELLO\nAUTH " + b"f" * 64 + b" ECHO size=99999999999\n",
        b"SYSMETER 1 HELLO\nAUTH - SINK cpu=1 cpu=2\n", b"\x00\xff" * 100]
for m in msgs + [bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400))) for _ in range(40)]:
    s = socket.create_connection((h, int(p)), timeout=5)
    try:    # the session may end (and reset) before all is sent: fine
        s.sendall(m)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096): pass
    except OSError: pass
    s.close()
# a flood: 60 connections held open at once, 3 s at most
t = time.time(); held = []
for _ in range(60):
    held.append(socket.create_connection((h, int(p)), timeout=5))
busy = 0
for s in held:
    s.settimeout(0.5)
    try:
        if b"busy" in s.recv(100): busy += 1
    except OSError: pass
assert busy > 0, "no connection was refused as busy"
for s in held: s.close()
assert time.time() - t < 10
print("busy", busy)
PY
	kill -0 "$SPID"
	wait_until 10 sh -c "! pgrep -P $SPID >/dev/null"
	run client "$ADDR" "$BATS_TEST_TMPDIR/token" 1 "ECHO size=64"
	echo "$output"
	[[ "$output" == "OK cpu="* ]]
	# the busy refusals are logged, or counted among the lines left out
	grep -Eq "refused: busy|log lines? left out" "$BATS_TEST_TMPDIR/serve.log"
}

@test "serve: a SINK frame of 2^64-1 bytes after one of 1 is refused with an ERR line; the log counts the bytes that came" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run serve_py "$ADDR" "$BATS_TEST_TMPDIR/token" <<'PY'
addr, tok = sys.argv[1], sys.argv[2]
s = conn(addr, timeout=3)
assert hello(s, tok, "SINK").startswith("OK "), "no OK"
s.sendall(frame(1) + b"x")
ack = take(s, 40)
assert struct.unpack("<Q", ack[:8])[0] == 1, ack
# 1 + (2^64 - 1) is 0 in 64 bits: the budget must not wrap
s.sendall(frame(2**64 - 1))
print(line(s))
try:
    s.sendall(b"y" * 65536)
except OSError:
    pass
s.close()
# a frame of 100 bytes of which 10 come: 10 bytes moved
s = conn(addr, timeout=3)
assert hello(s, tok, "SINK").startswith("OK "), "no OK"
s.sendall(frame(100) + b"z" * 10)
time.sleep(0.3)
s.close()
PY
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "ERR frame of 18446744073709551615 bytes refused: the session's byte limit is 68719476736 and 1 are used" ]
	wait_until 10 grep -q "SINK: 10 bytes: client closed the connection in a frame" "$BATS_TEST_TMPDIR/serve.log"
	cat "$BATS_TEST_TMPDIR/serve.log"
	grep -q "SINK: 1 bytes: frame of 18446744073709551615 bytes refused" "$BATS_TEST_TMPDIR/serve.log"
}

@test "serve: 16 silent connections and strangers reconnecting at once do not keep an authenticated client out" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run serve_py "$ADDR" "$BATS_TEST_TMPDIR/token" <<'PY'
import threading
addr, tok = sys.argv[1], sys.argv[2]
# 16 silent connections from the client's own address, held
held = [conn(addr) for _ in range(16)]
# and from another address, 16 more reopened as soon as they are closed
done = False
def churn():
    socks = []
    while not done:
        socks = [x for x in socks if x.fileno() >= 0]
        while len(socks) < 16:
            try:
                socks.append(conn(addr, src="127.0.0.2", timeout=1))
            except OSError:
                break
        for x in list(socks):
            x.setblocking(False)
            try:
                if x.recv(200) is not None:
                    x.close()
            except BlockingIOError:
                pass
            except OSError:
                x.close()
        time.sleep(0.001)
    for x in socks:
        x.close()
t = threading.Thread(target=churn)
t.start()
time.sleep(0.3)
ok = 0
for i in range(10):
    s = conn(addr)
    r = hello(s, tok, "ECHO size=64")
    if r.startswith("OK "):
        s.sendall(b"e" * 64)
        if take(s, 64) == b"e" * 64:
            ok += 1
    else:
        print("attempt %d: %s" % (i, r))
    s.close()
done = True
t.join()
print("served %d of 10" % ok)
PY
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "served 10 of 10" ]
	kill -0 "$SPID"
}

@test "serve: a client arriving just after 16 sessions ended is served (no false ERR busy)" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run serve_py "$ADDR" "$BATS_TEST_TMPDIR/token" "$SPID" <<'PY'
addr, tok, spid = sys.argv[1], sys.argv[2], sys.argv[3]
def kids():
    with open("/proc/%s/task/%s/children" % (spid, spid)) as f:
        return f.read().split()
def ended(pid):       # exited: a zombie, or gone (reaped)
    try:
        st = open("/proc/%s/stat" % pid).read()
    except OSError:
        return True
    return st.rsplit(")", 1)[1].split()[0] == "Z"
for cycle in range(5):
    held = []
    for i in range(16):
        s = conn(addr)
        r = hello(s, tok, "CONN close=client")
        assert r.startswith("OK "), (cycle, i, r)
        held.append(s)
    s = conn(addr)
    print(hello(s, tok, "CONN close=client"))
    s.close()
    pids = kids()
    assert len(pids) == 16, pids
    for s in held:
        s.close()
    end = time.time() + 10
    while not all(ended(p) for p in pids):      # as soon as they have exited
        assert time.time() < end, "sessions did not end"
    s = conn(addr)
    print(hello(s, tok, "CONN close=client").split(" ")[0])
    s.close()
PY
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 10 ]
	for i in 0 2 4 6 8; do
		[ "${lines[$i]}" = "ERR busy: 16 sessions running (at most 16), try later" ]
		[ "${lines[$((i + 1))]}" = "OK" ]
	done
}

@test "serve: a token file group or others can read is refused, on both ends, with the chmod that fixes it" {
	T="$BATS_TEST_TMPDIR/token"
	chmod 644 "$T"
	# (a serve that took it would serve: timeout ends it, and the test fails)
	run timeout 10 "$RUNNER" serve --listen 127.0.0.1:0 --token "$T"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: serve: token file '$T': mode 0644 is readable by group and others: chmod 600 $T" ]
	chmod 660 "$T"
	run timeout 10 "$RUNNER" serve --listen 127.0.0.1:0 --token "$T"
	[ "$output" = "runner: serve: token file '$T': mode 0660 is readable and writable by group: chmod 600 $T" ]
	# the measuring side reads it with the same rule
	chmod 600 "$T"
	start_serve --token "$T"
	chmod 604 "$T"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t --peer "$ADDR" --token "$T" \
		--set rtt.params.target=remote $NET/rtt.yaml
	[ "$status" -eq 1 ]
	reason=$(json "$OUT/t/results/rtt.json" 'd["points"][0]["reason"]')
	echo "$reason"
	[[ "$reason" == *"token file '$T': mode 0604 is readable by others: chmod 600 $T"* ]]
}

@test "serve: every refusal is one ERR line before the close (time, long line, handshakes from one address)" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run serve_py "$ADDR" <<'PY'
addr = sys.argv[1]
# a control line past 255 bytes, before and after the challenge
s = conn(addr)
s.sendall(b"x" * 300)
print(line(s))
s = conn(addr)
s.sendall(b"SYSMETER 1 HELLO\n")
assert line(s).startswith("SYSMETER 1 CHALLENGE ")
s.sendall(b"AUTH " + b"f" * 300 + b"\n")
print(line(s))
# a ninth handshake from one address pushes out the oldest
held = [conn(addr, src="127.0.0.3") for _ in range(9)]
print(line(held[0]))
for x in held:
    x.close()
# silent, and silent after the challenge: the handshake time runs out
a = conn(addr, timeout=20)
b = conn(addr, timeout=20)
b.sendall(b"SYSMETER 1 HELLO\n")
assert line(b).startswith("SYSMETER 1 CHALLENGE ")
print(line(a))
print(line(b))
PY
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "SYSMETER 1 ERR control line longer than 255 bytes" ]
	[ "${lines[1]}" = "ERR control line longer than 255 bytes" ]
	[ "${lines[2]}" = "SYSMETER 1 ERR busy: too many handshakes from 127.0.0.3 (at most 8), try later" ]
	[ "${lines[3]}" = "SYSMETER 1 ERR handshake not finished within 5 s" ]
	[ "${lines[4]}" = "ERR handshake not finished within 5 s" ]
	grep -q "refused: handshake not finished within 5 s" "$BATS_TEST_TMPDIR/serve.log"
}

@test "serve: a flood of refusals is logged at most 20 lines a second, the rest counted exactly" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run serve_py "$ADDR" <<'PY'
addr = sys.argv[1]
for i in range(300):
    s = conn(addr)
    s.sendall(b"GET / HTTP/1.0\n")
    assert line(s).startswith("SYSMETER 1 ERR "), i
    s.close()
PY
	[ "$status" -eq 0 ]
	kill "$SPID"
	wait "$SPID" || :
	SPID=
	log="$BATS_TEST_TMPDIR/serve.log"
	shown=$(grep -c "refused: bad hello" "$log")
	left=$(sed -n 's/^runner: serve: \([0-9]*\) log lines\{0,1\} left out (at most 20 a second)$/\1/p' "$log" |
		awk '{ n += $1 } END { print n + 0 }')
	echo "shown $shown, left out $left"
	[ "$shown" -lt 300 ]
	[ "$left" -gt 0 ]
	[ $((shown + left)) -eq 300 ]
}

# point_connected: a process of the run other than the runner itself has an
# established TCP connection to the serve named in the run's output
point_connected() {
	local at
	at=$(sed -n 's/.*serve at \([0-9.]*:[0-9]*\) .*/\1/p' "$BATS_TEST_TMPDIR/log" | head -1)
	[ -n "$at" ] || return 1
	ss -tnpH state established "dst $at" | grep -o 'pid=[0-9]*' | cut -d= -f2 |
		while read -r p; do
			[ "$p" != "$RPID" ] && [ "$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)" = "$RPID" ] &&
				echo "$p"
		done | grep -q .
}

@test "serve: a peer killed mid-run fails that point with a clear message; the run goes on and leaves nothing" {
	need_netns
	run_bg --no-report -o "$OUT" --run-id t --peer netns $NET/killed.yaml
	# Killed while the first point's round trips run: once its process (a
	# child of the runner, not the runner, which asks the serve for its
	# machine first) holds a connection to the serve, and its handshake had
	# time to end (ms; the point's one round, 80000 round trips, takes a
	# second or more).  A serve with any session was not enough: a fresh
	# root's ASan suite killed it between two rounds, before the next one
	# had connected ("setup: connect ...: Connection refused").
	wait_until 20 point_connected
	sleep 0.2
	kill -9 "$(pgrep -P "$RPID" -f 'runner serve' | head -1)"
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 1 ]
	res="$OUT/t/results/killed.json"
	[ "$(json "$res" '[p["status"] for p in d["points"]]')" = '["failed", "ok"]' ]
	reason=$(json "$res" 'd["points"][0]["reason"]')
	echo "$reason"
	[[ "$reason" =~ (round\ trip\ [0-9]+\ to\ 10\.200\.[0-9.]+:[0-9]+:\ (the\ peer\ closed\ the\ connection|Connection\ reset\ by\ peer)) ]]
	run nothing_left "$RPID"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "serve: remote points skip with the reason and the command when --peer netns cannot run (not root)" {
	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	[ "$(id -u)" -eq 0 ] || skip "not root: cannot drop to another user"
	OUT=$(mktemp -d /tmp/sysmeter-nobody.XXXXXX)
	chmod 755 "$OUT"
	# the checkout may be where nobody cannot read (/root/... on a fresh machine): the runner,
	# its probes (found beside it) and the spec go where it can
	mkdir "$OUT/b" "$OUT/o"
	cp "$RUNNER" "$OUT/b/runner"
	cp -R "$(dirname "$RUNNER")/probes" "$OUT/b/probes"
	cp "$NET/rtt.yaml" "$OUT/rtt.yaml"
	chmod -R a+rX "$OUT"
	chmod 777 "$OUT/o"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env -u SYSMETER_PROBE_DIR \
		"$OUT/b/runner" --no-report -q -o "$OUT/o" --run-id t --peer netns "$OUT/rtt.yaml"
	echo "$output"
	[ "$status" -eq 0 ]	# skipped points are no failure
	run check_skipped "$OUT/o/t/results/rtt.json" "--peer netns needs root"
	[ "$status" -eq 0 ]
	[[ "$(json "$OUT/o/t/results/rtt.json" 'd["points"][1]["reason"]')" == *"sudo runner --peer netns"* ]]
	rm -rf "$OUT"
}

@test "serve: a veth shaped with tbf to 100 Mbit/s measures 85-100 Mbit/s" {
	need_netns
	command -v tc >/dev/null || skip "no tc (iproute2)"
	NS=smt$$
	ip netns add "$NS"
	ip link add "${NS}h" type veth peer name "${NS}p" netns "$NS"
	ip addr add 10.201.$(($$ % 250)).1/30 dev "${NS}h"
	ip link set "${NS}h" up
	ip -n "$NS" addr add 10.201.$(($$ % 250)).2/30 dev "${NS}p"
	ip -n "$NS" link set "${NS}p" up
	ip -n "$NS" link set lo up
	tc qdisc add dev "${NS}h" root tbf rate 100mbit burst 32kb latency 100ms
	ip netns exec "$NS" "$RUNNER" serve --listen 10.201.$(($$ % 250)).2:0 --token "$BATS_TEST_TMPDIR/token" \
		--ready-file "$BATS_TEST_TMPDIR/ready" 2>"$BATS_TEST_TMPDIR/serve.log" &
	SPID=$!
	wait_until 5 test -s "$BATS_TEST_TMPDIR/ready"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t --peer "$(cat "$BATS_TEST_TMPDIR/ready")" \
		--token "$BATS_TEST_TMPDIR/token" $NET/shaped.yaml
	echo "$output"
	json "$OUT/t/results/shaped.json" '[(p["status"], p["reason"]) for p in d["points"]]' || :
	[ "$status" -eq 0 ]
	mbit=$(json "$OUT/t/results/shaped.json" 'd["points"][0]["estimate"] * 8 / 1e6')
	echo "measured $mbit Mbit/s"
	python3 -c "import sys; m = float(sys.argv[1]); sys.exit(0 if 85 <= m <= 100 else 1)" "$mbit"
}
