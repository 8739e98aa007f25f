#!/usr/bin/env bats
# The fs_cache probe and specs/file_cache_size.yaml.

load ../helpers
load fs_helpers

setup() {
	fs_setup
	[ "$(id -u)" -eq 0 ] || skip "a memory cgroup of its own needs root"
	[ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ] ||
		grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
		skip "no cgroup memory controller"
}
teardown() { fs_teardown; }

FIX=tests/fixtures/specs/fs

# the probe's cgroups left anywhere near the top of the hierarchy
fc_cgroups() {
	find /sys/fs/cgroup/memory /sys/fs/cgroup -maxdepth 4 -type d -name 'sysmeter-fs-*' \
		2>/dev/null | sort -u
}

@test "fs_cache: probe-help and the default spec" {
	run "$RUNNER" probe-help fs_cache
	[ "$status" -eq 0 ]
	for w in limit order random reads resident mem_available; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
	run "$RUNNER" check specs/file_cache_size.yaml
	[ "$status" -eq 0 ]
}

@test "fs_cache: with a 256 MiB limit the knee lies between 128 MiB and 512 MiB; no cgroup left" {
	mem_run "$FIX/file_cache_size.yaml" --set "file_cache_size.params.dir=$FSDIR"
	mem_check file_cache_size us '
at = {pts[k]["params_text"]["size"]: k for k in pts}
e = {s: est(k) for s, k in at.items()}
r = {s: extra(k, "resident") for s, k in at.items()}
# 64 and 128 MiB fit: both cached, the same level
assert e["128MiB"] < 10 * e["64MiB"], e
assert r["128MiB"] > 0.9, r
# 512 MiB does not: about half of it is read from the device
assert r["512MiB"] < 0.8, r
assert e["512MiB"] > 5 * e["128MiB"], e
for k in pts:
    assert extra(k, "limit") == 256 << 20, k
    assert extra(k, "mem_total") > extra(k, "mem_available") > 0, k
# the file_cache finding: the size fitted to the curve lies between 128 and
# 512 MiB and near the most the probe counted cached (mincore)
f = d["findings"]["file_cache"]
assert 128 << 20 < f["knee_bytes"] < 512 << 20, f
assert abs(f["knee_bytes"] / f["most_cached_bytes"] - 1) < 0.3, f
assert f["limit_bytes"] == 256 << 20 and f["mem_available"] > 0, f
assert "times the limit" in f["summary"], f["summary"]
'
	run fc_cgroups
	[ -z "$output" ] || { echo "left: $output"; return 1; }
}

@test "fs_cache: a killed point's cgroup is removed by the next setup" {
	"$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id k "$FIX/file_cache_size.yaml" \
		--set "file_cache_size.params.dir=$FSDIR" --set file_cache_size.params.size=64MiB \
		--set file_cache_size.params.limit=32MiB --set file_cache_size.repetitions=1000 >/dev/null 2>&1 &
	pid=$!
	cg=
	for i in $(seq 100); do
		cg=$(fc_cgroups | head -1)
		[ -n "$cg" ] && grep -q . "$cg/cgroup.procs" && break
		sleep 0.1
	done
	[ -n "$cg" ] || { kill "$pid"; echo "no cgroup appeared"; return 1; }
	kill -KILL $(cat "$cg/cgroup.procs")
	kill "$pid" 2>/dev/null || :
	wait "$pid" || :
	[ -d "$cg" ]		# left behind, empty
	run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id n "$FIX/file_cache_size.yaml" \
		--set "file_cache_size.params.dir=$FSDIR" --set file_cache_size.params.size=64MiB
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run fc_cgroups
	[ -z "$output" ] || { echo "left: $output"; return 1; }
}
