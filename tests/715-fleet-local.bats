#!/usr/bin/env bats
# runner fleet --ansible against this machine itself, over Ansible's local
# connection (ansible_connection=local: no ssh, no namespace, no root):
# what the fleet does with the values it hands to Ansible, with the folder
# a host gives it (sysmeter_fleet_dir) and with a host's failure text.  The
# runner there uses the fixture probes, --quick and --no-report.

load helpers

setup() {
	command -v ansible-playbook >/dev/null ||
		skip "ansible-playbook not installed (tools/deps.sh --test-only: ansible-core)"
	HOST="$BATS_TEST_TMPDIR/host"		# the host's sysmeter_fleet_dir
	OUT="$BATS_TEST_TMPDIR/out"
	SPECS="$BATS_TEST_TMPDIR/specs"
	HERE="$BATS_TEST_TMPDIR/cwd"		# the fleet's working folder
	PROBES="$PWD/$BUILD/fixtures/probes"
	mkdir -p "$SPECS" "$HOST" "$HERE"
	cp tests/fixtures/specs/stats/fixed.yaml "$SPECS/"
	export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$BATS_TEST_TMPDIR/ansible-local"
	export ANSIBLE_REMOTE_TEMP="$BATS_TEST_TMPDIR/ansible-remote"
	printf 'loc ansible_connection=local ansible_python_interpreter=/usr/bin/python3 sysmeter_fleet_dir=%s\n' \
		"$HOST" > "$BATS_TEST_TMPDIR/inventory"
}

teardown() {
	[ -z "${SLEEPER:-}" ] || kill "$SLEEPER" 2>/dev/null || :
}

# fleet ARGS...: runner fleet on this machine, from $HERE (where a command
# with a relative path, run by a template, would leave its file)
fleet() {
	(cd "$HERE" && SYSMETER_PROBE_DIR="$PROBES" "$RUNNER" fleet --ansible "$BATS_TEST_TMPDIR/inventory" \
		--quick --seed 7 --time-limit 120 --no-report "$@")
}

@test "fleet --ansible: a value holding {{ }} (--filter, --set, a spec's file name, the run id, -o) reaches the host's runner as it is and runs nothing here" {
	spec="$SPECS/{{ lookup('pipe','touch pwned-spec') }}.yaml"
	{ echo "name: fx"; cat "$SPECS/fixed.yaml"; } > "$spec"
	id="{{ lookup('pipe','touch pwned-id') }}"
	out="$OUT/o{{ lookup('pipe','touch pwned-out') }}"
	# a legitimate value with {{, quotes, a backslash and non-ASCII text
	set="fixed.title=T{{ lookup('pipe','touch pwned-set') }} {{ '\"' }} \\ é 😀"
	filter="{{ lookup('pipe','touch pwned-filter') }}"
	run fleet -o "$out" --run-id "$id" --set "$set" --filter fixed --filter fx --filter "$filter" \
		"$SPECS/fixed.yaml" "$spec"
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	[ "${lines[${#lines[@]}-1]}" = "$out/$id" ]
	# no template ran on this machine (a lookup's command runs here)
	[ -z "$(find "$BATS_TEST_TMPDIR" -name 'pwned-*')" ]
	# the host's runner got the very bytes, in its own folder named by the id
	python3 - "$out/$id/hosts/loc/manifest.json" "$HOST/$id" "$id-loc" "$set" "$filter" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
root, run_id, set_, filter_ = sys.argv[2:]
want = [root + "/bin/runner", "-o", root + "/out", "--run-id", run_id, "-q", "--no-report",
        "--seed", "7", "--quick", "--set", set_, "--filter", "fixed", "--filter", "fx",
        "--filter", filter_, "specs/0/fixed.yaml",
        "specs/1/{{ lookup('pipe','touch pwned-spec') }}.yaml"]
got, skip = [], False
for a in m["command_line"]:     # the probe folders copied: as many as the search path has
    if skip or a == "--probe-dir":
        skip = not skip
        continue
    got.append(a)
assert got == want, (got, want)
PY
	[ "$(json "$out/$id/hosts/loc/results/fixed.json" 'd["spec"]["title"]')" = "${set#fixed.title=}" ]
	[ -f "$out/$id/hosts/loc/results/fx.json" ]
}

@test "fleet --ansible: the fleet works in sysmeter_fleet_dir/FLEET_ID, a folder of its own with its marker, and touches nothing else there" {
	echo mine > "$HOST/mine.txt"
	mkdir "$HOST/keep"
	echo kept > "$HOST/keep/f"
	run fleet -o "$OUT/1" --run-id fl "$SPECS/fixed.yaml"
	echo "$output" | tail -5
	[ "$status" -eq 0 ]
	[ "$(cat "$HOST/mine.txt")" = mine ]
	[ "$(cat "$HOST/keep/f")" = kept ]
	[ -f "$HOST/fl/.sysmeter-fleet" ]
	[ -f "$HOST/fl/out/fl-loc/manifest.json" ]
	# a later fleet of the same id replaces that folder (it has the marker)
	echo stale > "$HOST/fl/stale"
	run fleet -o "$OUT/2" --run-id fl "$SPECS/fixed.yaml"
	[ "$status" -eq 0 ]
	[ ! -e "$HOST/fl/stale" ]
	[ -f "$HOST/fl/out/fl-loc/manifest.json" ]
	[ "$(cat "$HOST/mine.txt")" = mine ]
	# a folder of the fleet's name that no fleet made is refused, left as it is
	mkdir "$HOST/theirs"
	echo theirs > "$HOST/theirs/t"
	run fleet -o "$OUT/3" --run-id theirs "$SPECS/fixed.yaml"
	echo "$output" | tail -5
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: loc: missing: a fresh folder for the run: cannot make $HOST/theirs: mkdir: cannot create directory"*"File exists (the fleet makes that folder, or replaces one that holds its .sysmeter-fleet marker"* ]]
	[ "$(ls -A "$HOST/theirs")" = t ]
	[ "$(cat "$HOST/theirs/t")" = theirs ]
	[ "$(cat "$HOST/mine.txt")" = mine ]
	[ "$(cat "$HOST/keep/f")" = kept ]
}

@test "fleet --ansible: a host's failure text with ESC and a newline in it is said on one line, escaped" {
	# a runner of another version, installed at a path with ESC and a
	# newline in it, that prints ESC in its version: the refusal names both
	dir="$BATS_TEST_TMPDIR/bad"$'\e[31m\n'"dir"
	mkdir -p "$dir"
	printf '#!/bin/sh\nprintf "runner (sysmeter) \\033[32mgreen\\n"\n' > "$dir/runner"
	chmod 755 "$dir/runner"
	cat > "$BATS_TEST_TMPDIR/inventory" <<YAML
all:
  hosts:
    loc:
      ansible_connection: local
      ansible_python_interpreter: /usr/bin/python3
      sysmeter_fleet_dir: "$HOST"
      sysmeter_installed_runner: "$BATS_TEST_TMPDIR/bad\\e[31m\\ndir/runner"
YAML
	want=$("$RUNNER" --version | head -1)
	run fleet -o "$OUT" --run-id fl "$SPECS/fixed.yaml"
	[ "$status" -eq 1 ]
	said=$(printf '%s\n' "$output" | grep -a '^runner: fleet: ')
	printf '%s\n' "$said"
	[[ "$said" != *$'\e'* ]]
	line=$(printf '%s\n' "$said" | grep -a '^runner: fleet: loc: missing: ')
	[ "$line" = "runner: fleet: loc: missing: refuse another version: runner version on loc ($BATS_TEST_TMPDIR/bad\\x1b[31m\\x0adir/runner) is 'runner (sysmeter) \\x1b[32mgreen', expected '$want'" ]
}

# stop_fleet ID: tools/fleet/stop.yml on this machine, as the fleet runs
# it after Ctrl-C (the extra-vars with the fleet's id)
stop_fleet() {
	printf 'fleet_id: !unsafe "%s"\n' "$1" > "$BATS_TEST_TMPDIR/vars.yml"
	ansible-playbook -i "$BATS_TEST_TMPDIR/inventory" -e "@$BATS_TEST_TMPDIR/vars.yml" \
		tools/fleet/stop.yml >/dev/null
}

@test "fleet stop.yml: stops the run and removes the secrets in the fleet's own folder only (the one with its marker)" {
	mkdir -p "$HOST/fl"
	setsid sleep 300 &
	pid=$! SLEEPER=$!
	echo "$pid" > "$HOST/fl/run.pid"
	echo secret > "$HOST/fl/serve.token"
	# no marker: not the fleet's folder, nothing done there
	stop_fleet fl
	kill -0 "$pid"
	[ -f "$HOST/fl/serve.token" ]
	# the fleet's folder: its run's process group gets SIGTERM, the secret goes
	echo "sysmeter fleet" > "$HOST/fl/.sysmeter-fleet"
	stop_fleet fl
	wait_until 30 exited "$pid"
	[ ! -e "$HOST/fl/serve.token" ]
	[ -f "$HOST/fl/run.pid" ]
}
