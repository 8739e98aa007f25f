#!/usr/bin/env bats
# runner fleet --slurm: Debian's slurm-wlm and munge as a one-machine
# cluster (tests/fleet-slurm.bash: every daemon's file under the test's
# folder, munge with its own key and socket).  Debian's slurmd is not built
# with --enable-multiple-slurmd, so the cluster is one node and the fleet's
# array puts two tasks on it, one after the other (--exclusive).  The runner
# uses the fixture probes and --quick.

load helpers
load fleet-slurm

setup() {
	[ "$(id -u)" = 0 ] || skip "the test cluster's daemons run as root"
	for t in slurmctld slurmd sbatch squeue scontrol munged mungekey; do
		command -v "$t" >/dev/null || skip "$t not installed (tools/deps.sh --test-only: slurm-wlm munge)"
	done
	C="$BATS_TEST_TMPDIR/cluster"
	SHARED="$BATS_TEST_TMPDIR/shared"
	OUT="$BATS_TEST_TMPDIR/out"
	mkdir -p "$C" "$SHARED"
	fleet_slurm_up "$C" || skip "Slurm did not start here: $(head -c 600 "$C/why")"
}

teardown() {
	fleet_slurm_down "$C"
}

@test "fleet --slurm: a job array of two tasks, waited for, merged with each task's run" {
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --slurm --nodes 2 \
		--shared-dir "$SHARED" -o "$OUT" --run-id fl --quick --seed 5 --time-limit 120 \
		tests/fixtures/specs/stats/fixed.yaml
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	[ "${lines[${#lines[@]}-1]}" = "$OUT/fl" ]
	node=$(hostname -s)
	[ "$(json "$OUT/fl/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = "[\"$node\", \"$node-2\"]" ]
	[ "$(json "$OUT/fl/manifest.json" 'd["hosts"]["missing"]')" = '[]' ]
	[ "$(json "$OUT/fl/hosts/$node/manifest.json" 'd["seed_text"]')" = 5 ]
	[ "$(grep -c "^| – | $node\(-2\)\? | " "$OUT/fl/report.md")" = 2 ]
	# the shared stage is gone
	[ -z "$(ls -A "$SHARED")" ]
}

@test "fleet --slurm: a node list naming a node the cluster does not have is missing, the rest merged, exit 1" {
	node=$(hostname -s)
	SYSMETER_PROBE_DIR="$PWD/$BUILD/fixtures/probes" run "$RUNNER" fleet --slurm \
		--nodelist "$node,nosuchnode" --shared-dir "$SHARED" -o "$OUT" --run-id fl --quick \
		--time-limit 120 tests/fixtures/specs/stats/fixed.yaml
	echo "$output" | tail -20
	[ "$status" -eq 1 ]
	[[ "$output" == *"runner: fleet: nosuchnode: missing: sbatch refused the job"* ]]
	[ "$(json "$OUT/fl/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = "[\"$node\"]" ]
	grep -q '^| nosuchnode | sbatch refused the job |' "$OUT/fl/report.md"
}
