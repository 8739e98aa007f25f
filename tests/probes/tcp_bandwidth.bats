#!/usr/bin/env bats
# tcp_bandwidth: the spec validates; loopback and remote (a --peer netns namespace
# peer) points run and are well formed; nothing of the peer survives the
# run; without a peer the remote points are skipped with how to give one.

load ../helpers
load net_helpers

setup() { OUT="$BATS_TEST_TMPDIR/out"; ip netns list >"$BATS_TEST_TMPDIR/netns.before" 2>/dev/null || :; }

@test "tcp_bandwidth: the spec validates" {
	run "$RUNNER" check specs/tcp_bandwidth.yaml $NET/bandwidth.yaml
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "tcp_bandwidth: loopback and remote (namespace peer) points, nothing left after" {
	need_netns
	run_bg --no-report -o "$OUT" --run-id t --peer netns $NET/bandwidth.yaml
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
	run check_net "$OUT/t/results/bandwidth.json" tcp_bandwidth
	echo "$output"
	[ "$status" -eq 0 ]
	run nothing_left "$RPID"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "tcp_bandwidth: without a peer the remote points are skipped, saying how to give one" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id t $NET/bandwidth.yaml
	echo "$output"
	# exit 0: a skipped point is said, not failed (loopback ok, remote skipped)
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/t/results/bandwidth.json" 'd["status"]')" = ok ]
	run check_skipped "$OUT/t/results/bandwidth.json" "give a \`runner serve\` peer with --peer HOST:PORT"
	echo "$output"
	[ "$status" -eq 0 ]
}
