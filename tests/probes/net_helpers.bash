# Shared by tests/probes/tcp_*.bats and tests/6xx-serve.bats: a real
# namespace peer needs root and `ip netns`; without them the tests skip.
NET=tests/fixtures/specs/net

need_netns() {
	[ "$(id -u)" -eq 0 ] || skip "not root: --peer netns needs root"
	command -v ip >/dev/null || skip "no ip (iproute2)"
	ip netns list >/dev/null 2>&1 || skip "ip netns unavailable"
}

# run_bg ARGS...: the runner in the background (pid in RPID), output in $BATS_TEST_TMPDIR/log
run_bg() {
	"$RUNNER" "$@" >"$BATS_TEST_TMPDIR/log" 2>&1 &
	RPID=$!
}

# nothing_left PID: no veth, process, namespace peer or listener of the run PID survives
nothing_left() {
	local pid=$1 addr
	if ip -o link | grep -q "sm[hp]$pid[@:]"; then echo "veth left:"; ip -o link | grep "sm[hp]$pid"; return 1; fi
	if ps -eo ppid=,pid=,args= | awk -v p="$pid" '$1 == p' | grep .; then echo "child of the runner left"; return 1; fi
	addr=$(sed -n 's/.*serve at \([0-9.]*\):.*/\1/p' "$BATS_TEST_TMPDIR/log" | head -1)
	[ -n "$addr" ] || { echo "no 'serve at ADDR' in the run's output"; return 1; }
	# the namespace lives exactly as long as its serve: no serve, no namespace
	if pgrep -a -f "^runner serve --listen $addr:0"; then echo "serve (and its namespace) left"; return 1; fi
	if [ -n "$addr" ] && ss -ltnH | grep -q "$addr"; then echo "listener on $addr left"; return 1; fi
	if [ -n "$addr" ] && ip -o addr | grep -q "${addr%.*}\."; then echo "address left"; return 1; fi
	# the runner's namespace is unnamed (never in `ip netns list`); none may carry its pid
	if ip netns list | grep "$pid"; then echo "a namespace named after the run is left"; return 1; fi
}

# check_net FILE PROBE: every point ok, remote points labelled by their interface
check_net() {
	python3 - "$@" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); probe = sys.argv[2]
fin = lambda x: isinstance(x, (int, float)) and math.isfinite(x)
assert d["status"] == "ok", d["status"]
targets = set()
for p in d["points"]:
    t = p["params"]["target"]; targets.add(t)
    assert p["status"] == "ok", (p["params"], p["status"], p["reason"])
    assert fin(p["estimate"]) and p["estimate"] > 0, p["estimate"]
    for s in p["samples"]:
        assert s["valid"], s["note"]
        x = s["extra"]
        assert x["cpu_client"] == p["placement"]["cpu_requested"] or not p["placement"]["pinned"], x
        if probe != "tcp_connect":
            want = "(veth) mtu 1500" if t == "remote" else "lo (loopback) mtu 65536"
            assert want in s["note"], (t, s["note"])
        if probe == "tcp_rtt":
            assert x["p50_ns"] <= x["p99_ns"] <= x["max_ns"], x
        if probe == "tcp_bandwidth":
            assert fin(x["far_bps"]) and x["snd_cwnd"] > 0 and fin(x["retransmits"]), x
            assert x["mtu"] == (1500 if t == "remote" else 65536), x
        if probe == "tcp_connect":
            assert x["errors"] == 0 and x["ports"] > 1000, x
            assert abs(s["value"] - x["setup_ns"] - x["teardown_ns"]) < 1e-6 * s["value"], x
            assert fin(x["tw_before"]) and fin(x["tw_after"]), x
assert targets == {"loopback", "remote"}, targets
print("ok")
PY
}

# check_skipped FILE: remote points skipped saying how to give a peer, loopback ok
check_skipped() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2]
for p in d["points"]:
    if p["params"]["target"] == "remote":
        assert p["status"] == "skipped", p["status"]
        assert want in p["reason"], p["reason"]
    else:
        assert p["status"] == "ok", (p["status"], p["reason"])
print("ok")
PY
}
