#!/usr/bin/env bats
# runner serve, the network peer: refuses a wrong token and another
# protocol version (naming both), survives garbage and a bounded connection
# flood, needs a token off loopback; a peer killed mid-run fails that point
# only; a veth shaped to 100 Mbit/s measures 85-100 Mbit/s.

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
	grep -q "refused: busy" "$BATS_TEST_TMPDIR/serve.log"
}

@test "serve: a token file group or others can read is refused, on both ends, with the chmod that fixes it" {
	T="$BATS_TEST_TMPDIR/token"
	chmod 644 "$T"
	run "$RUNNER" serve --listen 127.0.0.1:0 --token "$T"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: serve: token file '$T': mode 0644 is readable by group and others: chmod 600 $T" ]
	chmod 660 "$T"
	run "$RUNNER" serve --listen 127.0.0.1:0 --token "$T"
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

@test "serve: a peer killed mid-run fails that point with a clear message; the run goes on and leaves nothing" {
	need_netns
	run_bg --no-report -o "$OUT" --run-id t --peer netns $NET/killed.yaml
	# the namespace's serve: the runner's child running `runner serve`
	wait_until 20 sh -c "pgrep -P $RPID -f 'runner serve' >/dev/null && pgrep -P \$(pgrep -P $RPID -f 'runner serve' | head -1) >/dev/null"
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
