#!/usr/bin/env bats
# runner fleet --ansible: Debian's ansible against hosts that are network
# namespaces of this machine, each with its own sshd on its veth address and
# a key made for the test (tests/fleet-hosts.bash).  The runner there uses
# the fixture probes (copied with the build) and --quick: nothing real is
# measured, except by the --pairs test, whose one tcp_rtt point (--quick)
# crosses a veth pair between two of the hosts.

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
	[ -z "${CATCHER:-}" ] || kill "$CATCHER" 2>/dev/null || :
	fleet_hosts_down "$H"
}

@test "fleet --ansible: two hosts merged into one report, a third with its sshd stopped is missing (exit 1, the reason)" {
	fleet_hosts_up "$H" a b c
	fleet_sshd_start "$H" a
	fleet_sshd_start "$H" b
	# c has its namespace and address, and no sshd; a's sysmeter_fleet_dir
	# holds a file of its own, which the fleet leaves alone
	mkdir -p "$H/host-a/sysmeter/notes"
	echo mine > "$H/host-a/sysmeter/notes/mine.txt"
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 120 "$SPECS/b_three.yaml" "$SPECS/fixed.yaml"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: c: missing: unreachable:"*"Connection refused"* ]]
	[ "${lines[${#lines[@]}-1]}" = "$OUT/fl" ]
	# the copy was real: each host ran the build from its own folder
	[ -x "$H/host-a/sysmeter/fl/bin/runner" ]
	[ -f "$H/host-b/sysmeter/fl/out/fl-b/manifest.json" ]
	cmp "$RUNNER" "$H/host-a/sysmeter/fl/bin/runner"
	# in a folder of the fleet's own (FLEET_DIR/FLEET_ID, with its marker)
	[ -f "$H/host-a/sysmeter/fl/.sysmeter-fleet" ]
	[ "$(cat "$H/host-a/sysmeter/notes/mine.txt")" = mine ]
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

@test "fleet --ansible: a runner installed on a host (sysmeter_installed_runner) is run when it is this version, and refused by name with both versions when not" {
	fleet_hosts_up "$H" a b
	fleet_sshd_start "$H" a
	fleet_sshd_start "$H" b
	# a has this very runner installed elsewhere; b a runner of another version
	mkdir -p "$H/host-a/installed" "$H/host-b/installed"
	cp "$RUNNER" "$H/host-a/installed/runner"
	printf '#!/bin/sh\necho "runner (sysmeter) 0.0.1-other"\n' > "$H/host-b/installed/runner"
	chmod 755 "$H/host-b/installed/runner"
	sed -i -e "s|^a ansible_host=[^ ]*|& sysmeter_installed_runner=$H/host-a/installed/runner|" \
		-e "s|^b ansible_host=[^ ]*|& sysmeter_installed_runner=$H/host-b/installed/runner|" "$H/inventory"
	want=$("$RUNNER" --version | head -1)
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 120 "$SPECS/fixed.yaml"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: b: missing: refuse another version: runner version on b ($H/host-b/installed/runner) is 'runner (sysmeter) 0.0.1-other', expected '$want'"* ]]
	# b ran nothing; a ran its installed runner, and its run is merged
	[ ! -e "$H/host-b/sysmeter/fl/out" ]
	[ "$(json "$OUT/fl/hosts/a/manifest.json" 'd["command_line"][0]')" = "$H/host-a/installed/runner" ]
	[ "$(json "$OUT/fl/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = '["a"]' ]
	[ "$(json "$OUT/fl/hosts.json" '[h["reason"] for h in d["hosts"] if h["name"] == "b"][0]')" = \
		"refuse another version: runner version on b ($H/host-b/installed/runner) is 'runner (sysmeter) 0.0.1-other', expected '$want'" ]
	grep -q '^| b | refuse another version: runner version on b ' "$OUT/fl/report.md"
}

# catch_tokens DIR: copy every pair secret that appears on the hosts into
# DIR (once each, with its mode), until killed: the test then looks for
# their values where they must never be
catch_tokens() {
	local f to
	mkdir -p "$1"
	while :; do
		for f in "$H"/host-*/sysmeter/fl/serve.token "$H"/host-*/sysmeter/fl/peer.token; do
			[ -s "$f" ] || continue
			to="$1/$(basename "$(dirname "$(dirname "$(dirname "$f")")")")-$(basename "$f")"
			[ -e "$to" ] && continue
			stat -c %a "$f" > "$to.mode" && cp "$f" "$to"
		done
		sleep 0.05
	done
}

# addr_of HOST: the host's ansible_host in the test inventory
addr_of() {
	sed -n "s/^$1 ansible_host=\([^ ]*\).*/\1/p" "$H/inventory"
}

# pair_hosts_up: hosts a and b, each with its sshd, joined by a link of
# their own: a's peer reaches it on that link (sysmeter_peer_address); b is
# reached at its ansible_host, which a reaches through the link
pair_hosts_up() {
	fleet_hosts_up "$H" a b
	fleet_hosts_link "$H" a b
	sed -i "s|^a ansible_host=[^ ]*|& sysmeter_peer_address=$LINK_A|" "$H/inventory"
	ip -n "smfleet-$$-a" route add "$(addr_of b)/32" via "$LINK_B"
	fleet_sshd_start "$H" a
	fleet_sshd_start "$H" b
}

@test "fleet --ansible --pairs: each host measures against the other's runner serve, one fresh secret per pair, never in a result or the output" {
	pair_hosts_up
	cp tests/fixtures/specs/net/rtt.yaml "$SPECS/"
	catch_tokens "$BATS_TEST_TMPDIR/seen" 3>&- &
	CATCHER=$!
	SYSMETER_PROBE_DIR="$PWD/$BUILD/probes" run "$RUNNER" fleet --ansible "$H/inventory" --pairs \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 120 --set rtt.params.target=remote \
		"$SPECS/rtt.yaml"
	kill "$CATCHER"
	wait "$CATCHER" || :
	CATCHER=
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	[[ "$output" == *"runner: fleet: a: network peer b (runner serve at $(addr_of b):"* ]]
	[[ "$output" == *"runner: fleet: b: network peer a (runner serve at $LINK_A:"* ]]
	# each run measured its remote points against the other host's serve,
	# and recorded that machine
	[ "$(json "$OUT/fl/hosts/a/manifest.json" 'd["peer"]["address"].rsplit(":", 1)[0]')" = "$(addr_of b)" ]
	[ "$(json "$OUT/fl/hosts/b/manifest.json" 'd["peer"]["address"].rsplit(":", 1)[0]')" = "$LINK_A" ]
	for h in a b; do
		[ "$(json "$OUT/fl/hosts/$h/manifest.json" 'd["peer"]["machine"]["hostname"] == d["machine"]["hostname"] and d["peer"]["why_not"] is None')" = true ]
		[ "$(json "$OUT/fl/hosts/$h/results/rtt.json" '[(p["params"]["target"], p["status"]) for p in d["points"]]')" = '[["remote", "ok"]]' ]
	done
	# the serves saw those sessions come from the other host
	grep -q "session [0-9]* from $LINK_B:[0-9]*: ECHO" "$H/host-a/sysmeter/fl/serve.log"
	grep -q "session [0-9]* from $LINK_A:[0-9]*: ECHO" "$H/host-b/sysmeter/fl/serve.log"
	# the fleet's record and the report name each host's peer
	[ "$(json "$OUT/fl/hosts.json" '[(h["name"], h["fleet"]["peer"]["name"]) for h in d["hosts"]]')" = '[["a", "b"], ["b", "a"]]' ]
	grep -q '^| a | b |$' "$OUT/fl/report.md"
	grep -q '^| b | a |$' "$OUT/fl/report.md"
	grep -q '<tr><td>a</td><td>b</td></tr>' "$OUT/fl/report.html"
	grep -q '^a & b \\\\$' "$OUT/fl/report.tex"
	[ -s "$OUT/fl/report.pdf" ]
	# one secret per pair: a's serve and b's client share one, b's serve and
	# a's client the other; 64 hex digits, mode 0600 on the hosts
	S="$BATS_TEST_TMPDIR/seen"
	ls -l "$S"
	cmp "$S/host-a-serve.token" "$S/host-b-peer.token"
	cmp "$S/host-b-serve.token" "$S/host-a-peer.token"
	! cmp -s "$S/host-a-serve.token" "$S/host-b-serve.token" || false
	for t in "$S"/host-*.token; do
		grep -Eqx '[0-9a-f]{64}' "$t"
		[ "$(cat "$t.mode")" = 600 ]
	done
	# never in the results, the report, the hosts' folders or the output
	ta=$(cat "$S/host-a-serve.token") tb=$(cat "$S/host-b-serve.token")
	! grep -rqF -e "$ta" -e "$tb" "$OUT" "$H/host-a" "$H/host-b" || false
	[[ "$output" != *"$ta"* && "$output" != *"$tb"* ]]
	# and gone from the hosts; no serve left running
	[ -z "$(ls "$H"/host-*/sysmeter/fl/*.token 2>/dev/null)" ]
	! runner_in "smfleet-$$-a" || false
	! runner_in "smfleet-$$-b" || false
}

@test "fleet --ansible --pairs: a host whose peer is unreachable runs without one, says why, and its remote points are skipped" {
	fleet_hosts_up "$H" a b
	fleet_sshd_start "$H" a
	# b has no sshd: a is the only host that gets as far as the run
	cp tests/fixtures/specs/net/rtt.yaml "$SPECS/"
	SYSMETER_PROBE_DIR="$PWD/$BUILD/probes" run "$RUNNER" fleet --ansible "$H/inventory" --pairs \
		-o "$OUT" --run-id fl --quick --seed 7 --time-limit 120 --set rtt.params.target=remote \
		"$SPECS/rtt.yaml"
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: b: missing: unreachable:"* ]]
	[[ "$output" == *"runner: fleet: a: no network peer (its remote points are skipped): no other host of the fleet got as far as the run"* ]]
	[ "$(json "$OUT/fl/hosts/a/results/rtt.json" '[p["status"] for p in d["points"]]')" = '["skipped"]' ]
	[ "$(json "$OUT/fl/hosts.json" '[h["fleet"]["peer"]["name"] for h in d["hosts"] if h["name"] == "a"]')" = '[null]' ]
	grep -q '^| a | none (no other host of the fleet got as far as the run' "$OUT/fl/report.md"
	[ -z "$(ls "$H"/host-a/sysmeter/fl/*.token 2>/dev/null)" ]
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
	# --pairs: Ansible only, and two hosts or more
	run "$RUNNER" fleet --slurm --pairs --shared-dir "$BATS_TEST_TMPDIR" "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--pairs goes with --ansible"* ]]
	printf 'solo ansible_host=127.0.0.1\n' > "$BATS_TEST_TMPDIR/solo"
	run "$RUNNER" fleet --ansible "$BATS_TEST_TMPDIR/solo" --pairs -o "$OUT" "$SPECS/fixed.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--pairs needs two or more"* ]]
	[ ! -e "$OUT" ] || [ -z "$(ls -A "$OUT" | grep '^\.fleet-')" ]
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
	mkdir -p "$H/host-a/sysmeter"
	echo mine > "$H/host-a/sysmeter/mine.txt"
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" "$RUNNER" fleet --ansible "$H/inventory" \
		-o "$OUT" --run-id fl --time-limit 600 "$SPECS/hang.yaml" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	# the measuring run's folder, not just a runner (the version check is one
	# too): a run stopped before its folder exists writes nothing, by design
	wait_until 120 test -d "$H/host-a/sysmeter/fl/out/fl-a"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err" | tail -5
	[ "$rc" -eq 130 ]
	grep -q "interrupted: stopping the hosts' runs" "$BATS_TEST_TMPDIR/err"
	grep -q "runner: fleet: a: missing: interrupted before this host finished" "$BATS_TEST_TMPDIR/err"
	# the host's runner got SIGTERM from stop.yml and saved what it had
	wait_until 30 no_runner_in "smfleet-$$-a"
	[ "$(json "$H/host-a/sysmeter/fl/out/fl-a/manifest.json" 'd["status"]')" = interrupted ]
	# the host's fleet folder removed nothing else of sysmeter_fleet_dir
	[ "$(cat "$H/host-a/sysmeter/mine.txt")" = mine ]
	[ ! -e "$OUT/fl" ]
}

# both_running: a's and b's runs have started (each after every serve was up)
both_running() {
	[ -s "$H/host-a/sysmeter/fl/run.pid" ] && [ -s "$H/host-b/sysmeter/fl/run.pid" ] &&
		runner_in "smfleet-$$-a" && runner_in "smfleet-$$-b"
}

no_runner_in_both() {
	! runner_in "smfleet-$$-a" && ! runner_in "smfleet-$$-b"
}

@test "fleet --ansible --pairs: Ctrl-C stops the hosts' runs and their serves and removes the secrets (exit 130)" {
	pair_hosts_up
	hang_spec
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" "$RUNNER" fleet --ansible "$H/inventory" --pairs \
		-o "$OUT" --run-id fl --time-limit 600 "$SPECS/hang.yaml" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_until 120 both_running
	# the serves are up with their secrets while the runs go on
	[ -s "$H/host-a/sysmeter/fl/serve.token" ] && [ -s "$H/host-b/sysmeter/fl/peer.token" ]
	[ -s "$H/host-a/sysmeter/fl/serve.pid" ] && [ -s "$H/host-b/sysmeter/fl/serve.pid" ]
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	tail -5 "$BATS_TEST_TMPDIR/err"
	[ "$rc" -eq 130 ]
	grep -q "interrupted: stopping the hosts' runs" "$BATS_TEST_TMPDIR/err"
	# stop.yml ended every runner there, the serves too, and took the secrets
	wait_until 30 no_runner_in_both
	[ -z "$(ls "$H"/host-*/sysmeter/fl/*.token 2>/dev/null)" ]
	[ ! -e "$OUT/fl" ]
}
