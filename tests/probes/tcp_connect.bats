#!/usr/bin/env bats
# tcp_connect: the spec validates; loopback and remote (a --peer netns namespace
# peer) points run and are well formed; nothing of the peer survives the
# run; without a peer the remote points are skipped with how to give one.

load ../helpers
load net_helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; ip netns list >"$BATS_TEST_TMPDIR/netns.before" 2>/dev/null || :; }

@test "tcp_connect: the spec validates" {
	run "$RUNNER" check specs/tcp_connect.yaml specs/tcp_teardown.yaml $NET/connect.yaml
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "tcp_connect: loopback and remote (namespace peer) points, nothing left after" {
	need_netns
	run_bg --no-report -o "$OUT" --run-id t --peer netns $NET/connect.yaml
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
	run check_net "$OUT/t/results/connect.json" tcp_connect
	echo "$output"
	[ "$status" -eq 0 ]
	run nothing_left "$RPID"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "tcp_connect: without a peer the remote points are skipped, saying how to give one" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t $NET/connect.yaml
	echo "$output"
	# exit 0: a skipped point is said, not failed (loopback ok, remote skipped)
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/t/results/connect.json" 'd["status"]')" = ok ]
	run check_skipped "$OUT/t/results/connect.json" "give a \`runner serve\` peer with --peer HOST:PORT"
	echo "$output"
	[ "$status" -eq 0 ]
}

# check_phases FILE TARGETS: tcp_teardown's points: setup and teardown of
# every target in TARGETS (comma-separated) ok, each point's value its own
# phase's half, both halves positive, each with its prediction.
check_phases() {
	python3 - "$@" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); want = set(sys.argv[2].split(","))
fin = lambda x: isinstance(x, (int, float)) and math.isfinite(x)
assert d["probe"]["version"] == "1.1", d["probe"]["version"]
seen = set()
for p in d["points"]:
    t, ph = p["params"]["target"], p["params"]["phase"]
    if t not in want:
        continue
    seen.add((t, ph))
    assert p["status"] == "ok", (t, ph, p["status"], p["reason"])
    assert fin(p["estimate"]) and p["estimate"] > 0, (t, ph, p["estimate"])
    assert p["prediction"] and p["prediction"]["value"] > 0 and p["prediction"]["why"], (t, ph)
    for s in p["samples"]:
        x = s["extra"]
        assert s["valid"] and x["errors"] == 0, (t, ph, s["note"])
        assert x["setup_ns"] > 0 and x["teardown_ns"] > 0, (t, ph, x)
        own = x["setup_ns"] if ph == "setup" else x["teardown_ns"]
        assert abs(s["value"] - own) <= 1e-6 * own, (t, ph, s["value"], x)
assert seen == {(t, ph) for t in want for ph in ("setup", "teardown")}, seen
print("ok")
PY
}

@test "tcp_connect: phase splits the cycle: setup and teardown points, each its own half, remote skipped without a peer" {
	# tcp_rtt and syscall beside it: the predictions are built from the round
	# trip and the system call this run measured
	run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id t specs/syscall.yaml specs/tcp_rtt.yaml \
		specs/tcp_teardown.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	res="$OUT/t/results/tcp_teardown.json"
	run check_phases "$res" loopback
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(json "$res" '[p["status"] for p in d["points"] if p["params"]["target"] == "remote"]')" = '["skipped", "skipped"]' ]
}

@test "tcp_connect: setup and teardown to the namespace peer, nothing left after" {
	need_netns
	run_bg --quick --no-report -o "$OUT" --run-id t --peer netns specs/syscall.yaml specs/tcp_rtt.yaml \
		specs/tcp_teardown.yaml
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
	run check_phases "$OUT/t/results/tcp_teardown.json" loopback,remote
	echo "$output"
	[ "$status" -eq 0 ]
	run nothing_left "$RPID"
	echo "$output"
	[ "$status" -eq 0 ]
}
