#!/usr/bin/env bats
# runner fleet --ansible: Debian's ansible against hosts that are network
# namespaces of this machine, each with its own sshd on its veth address and
# a key made for the test (tests/fleet-hosts.bash).  The runner there uses
# the fixture probes (copied with the build) and --quick: nothing real is
# measured.

load helpers
load fleet-hosts

setup() {
	fleet_skip_unless_possible
	H="$BATS_TEST_TMPDIR/hosts"
	OUT="$BATS_TEST_TMPDIR/out"
	SPECS="$BATS_TEST_TMPDIR/specs"
	mkdir -p "$SPECS"
	cp tests/fixtures/specs/resume/b_three.yaml tests/fixtures/specs/stats/fixed.yaml "$SPECS/"
	# no ssh master left behind after the test (ansible's default persists one)
	export ANSIBLE_SSH_ARGS="-o ControlMaster=no" ANSIBLE_NOCOLOR=1
	export ANSIBLE_LOCAL_TEMP="$BATS_TEST_TMPDIR/ansible-local"
}

teardown() {
	fleet_hosts_down "$H"
}

@test "fleet --ansible: two hosts merged into one report, a third with its sshd stopped is missing (exit 1, the reason)" {
	fleet_hosts_up "$H" a b c
	fleet_sshd_start "$H" a
	fleet_sshd_start "$H" b
	# c has its namespace and address, and no sshd
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 120 "$SPECS/b_three.yaml" "$SPECS/fixed.yaml"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: c: missing: unreachable:"*"Connection refused"* ]]
	[ "${lines[${#lines[@]}-1]}" = "$OUT/fl" ]
	# the copy was real: each host ran the build from its own folder
	[ -x "$H/host-a/sysmeter/bin/runner" ]
	[ -f "$H/host-b/sysmeter/out/fl-b/manifest.json" ]
	cmp "$RUNNER" "$H/host-a/sysmeter/bin/runner"
	# one folder: the merged report and each host's run inside
	[ "$(json "$OUT/fl/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = '["a", "b"]' ]
	[ "$(json "$OUT/fl/hosts/a/manifest.json" 'd["seed_text"]')" = 7 ]
	[ "$(json "$OUT/fl/hosts/b/manifest.json" 'd["options"]["quick"]')" = true ]
	[ "$(json "$OUT/fl/manifest.json" '[m["name"] for m in d["hosts"]["missing"]]')" = '["c"]' ]
	[ "$(json "$OUT/fl/hosts.json" '[h["name"] for h in d["hosts"] if h["status"] == "ok" and "offset_s" in h["fleet"]["clock"]]')" = '["a", "b"]' ]
	md="$OUT/fl/report.md"
	[ "$(grep -c '^| base=40 | [ab] | ' "$md")" = 2 ]
	[ "$(grep -c '^| base=50 | [ab] | ' "$md")" = 2 ]
	grep -q "title 'a'" "$OUT/fl/charts/hosts-b_three.gp"
	grep -q "title 'b'" "$OUT/fl/charts/hosts-b_three.gp"
	grep -q '^| c | unreachable: .*Connection refused |' "$md"
	[ -s "$OUT/fl/report.pdf" ]
	# nothing of the controller's stage or the playbook's vars is left
	[ -z "$(ls -A "$OUT" | grep '^\.fleet-')" ]
	! grep -rq "client_key" "$OUT/fl" || false
	# every host's run in the results store beside the runs (out/sysmeter.db)
	[ "$(python3 -c 'import sqlite3, sys; print(sorted(r[0] for r in sqlite3.connect(sys.argv[1]).execute("select id from runs")))' "$OUT/sysmeter.db")" = "['fl-a', 'fl-b']" ]
}

@test "fleet --ansible: a host whose task fails is missing, named with the task and why; no host, no folder" {
	fleet_hosts_up "$H" a
	fleet_sshd_start "$H" a
	# an immutable file where the host's folder should be: the playbook
	# cannot make it, and says so
	mkdir -p "$H/host-a"
	printf 'not a folder\n' > "$H/host-a/sysmeter"
	chattr +i "$H/host-a/sysmeter" 2>/dev/null || skip "chattr +i not possible here"
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 60 "$SPECS/fixed.yaml"
	chattr -i "$H/host-a/sysmeter"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: a: missing: a fresh folder for the run:"* ]]
	[[ "$output" == *"no host gave a run"* ]]
	[ ! -e "$OUT/fl" ]
}

@test "fleet: bad usage is exit 2 before anything runs" {
	run "$RUNNER" fleet "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"give one of --ansible INVENTORY or --slurm"* ]]
	run "$RUNNER" fleet --ansible /nonexistent/inventory --slurm "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	run "$RUNNER" fleet --slurm "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--shared-dir"* ]]
	run "$RUNNER" fleet --ansible /dev/null --time-limit 0 "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	# a host name that cannot be a folder name is refused before any host is touched
	printf 'bad$(touch %s/pwned) ansible_host=127.0.0.1\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/inv"
	run "$RUNNER" fleet --ansible "$BATS_TEST_TMPDIR/inv" -o "$OUT" "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned" ]
}

# a spec whose only point never returns before its (long) timeout
hang_spec() {
	printf 'title: Hang\nprobe: hang\nrepetitions: 3\niterations: 1\ntimeout: 600s\nrounds: 1\n' > "$SPECS/hang.yaml"
}

# runner_in NS: a runner process runs in the namespace
runner_in() {
	local p
	for p in $(ip netns pids "$1"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = runner ] && return 0
	done
	return 1
}

no_runner_in() {
	! runner_in "$1"
}

@test "fleet --ansible --time-limit: a host's run that outlives it is ended there and the host is missing" {
	fleet_hosts_up "$H" a
	fleet_sshd_start "$H" a
	hang_spec
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --time-limit 3 "$SPECS/hang.yaml"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: a: missing: a run that gave no folder: time limit of 3 s reached"* ]]
	! runner_in "smfleet-$$-a" || false
}

@test "fleet --ansible: Ctrl-C stops the fleet and the host's runner (exit 130)" {
	fleet_hosts_up "$H" a
	fleet_sshd_start "$H" a
	hang_spec
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --time-limit 600 "$SPECS/hang.yaml" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_until 120 runner_in "smfleet-$$-a"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err" | tail -5
	[ "$rc" -eq 130 ]
	grep -q "interrupted: stopping the hosts' runs" "$BATS_TEST_TMPDIR/err"
	grep -q "runner: fleet: a: missing: interrupted before this host finished" "$BATS_TEST_TMPDIR/err"
	# the host's runner got SIGTERM from stop.yml and saved what it had
	wait_until 30 no_runner_in "smfleet-$$-a"
	[ "$(json "$H/host-a/sysmeter/out/fl-a/manifest.json" 'd["status"]')" = interrupted ]
	[ ! -e "$OUT/fl" ]
}
