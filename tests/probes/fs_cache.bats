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

# The probe's cgroups under this test's own memory cgroup, where the probe
# makes them (its parent's directory, v1 or v2).  Only there: a machine
# shared with other containers may hold their sysmeter-N-fs cgroups beside
# ours (a container killed mid-test leaves one that no run of ours can see
# or remove), and those are not this run's.
fc_cgroups() {
	local v1 v2
	v1=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)$/\3/p' /proc/self/cgroup)
	v2=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
	{
		[ -n "$v1" ] && find "/sys/fs/cgroup/memory${v1%/}" -mindepth 1 -maxdepth 1 -type d
		[ -n "$v2" ] && find "/sys/fs/cgroup/unified${v2%/}" "/sys/fs/cgroup${v2%/}" \
			-mindepth 1 -maxdepth 1 -type d
	} 2>/dev/null | grep '/sysmeter-[0-9]*-fs$' | sort -u
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
# the reads that hit (faster than the split between a cached and an
# O_DIRECT read timed at setup) are the share cached before the pass:
# 2048 random reads of 16k-128k blocks barely change what is cached
h = {s: extra(k, "hit_share") for s, k in at.items()}
for s in at:
    assert abs(h[s] - r[s]) < 0.1, (s, h[s], r[s])
    assert extra(at[s], "cal_device_us") > 4 * extra(at[s], "cal_cached_us"), s
for k in pts:
    assert extra(k, "limit") == 256 << 20, k
    assert extra(k, "mem_total") > extra(k, "mem_available") > 0, k
# the file_cache finding: the size fitted to the curve lies between 128 and
# 512 MiB and near the most the probe counted cached (mincore)
f = d["findings"]["file_cache"]
assert f["fitted_to"] == "miss_share", f
assert 128 << 20 < f["knee_bytes"] < 512 << 20, f
assert abs(f["knee_bytes"] / f["most_cached_bytes"] - 1) < 0.3, f
assert f["limit_bytes"] == 256 << 20 and f["mem_available"] > 0, f
assert "times the limit" in f["summary"], f["summary"]
'
	run fc_cgroups
	[ -z "$output" ] || { echo "left: $output"; return 1; }
}

# fc_start ID: a run of one long point in the background (pid in $RPID),
# and its cgroup once the probe is in it ($CG, its process $PPID_FS).
fc_start() {
	"$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id "$1" "$FIX/file_cache_size.yaml" \
		--set "file_cache_size.params.dir=$FSDIR" --set file_cache_size.params.size=64MiB \
		--set file_cache_size.params.limit=32MiB --set file_cache_size.repetitions=1000 \
		--set file_cache_size.timeout=600s >"$BATS_TEST_TMPDIR/$1.log" 2>&1 &
	RPID=$!
	CG=
	for i in $(seq 100); do
		for CG in $(fc_cgroups) ""; do
			[ -n "$CG" ] && grep -q . "$CG/cgroup.procs" && break
		done
		[ -n "$CG" ] && break
		sleep 0.1
	done
	[ -n "$CG" ] || { kill "$RPID"; echo "no cgroup with a task appeared"; return 1; }
	PPID_FS=$(head -1 "$CG/cgroup.procs")
	[[ "$CG" == */sysmeter-$PPID_FS-fs ]] || { echo "$CG is not named after $PPID_FS"; return 1; }
}

@test "fs_cache: a point killed before its teardown leaves no cgroup: crash, Ctrl-C, a SIGKILLed runner" {
	# the probe's process dies: the runner removes its cgroup after the point
	fc_start crash
	kill -KILL "$PPID_FS"
	wait "$RPID" || :
	grep -q "killed by signal 9" "$BATS_TEST_TMPDIR/out/crash/results/file_cache_size.json"
	run fc_cgroups
	[ -z "$output" ] || { echo "left after a crash: $output"; return 1; }
	# Ctrl-C: the same
	fc_start int
	kill -INT "$RPID"
	wait "$RPID" || :
	run fc_cgroups
	[ -z "$output" ] || { echo "left after Ctrl-C: $output"; return 1; }
	# the runner itself killed: the cgroup stays, and the next run removes it
	fc_start sigkill
	kill -KILL "$RPID" "$PPID_FS"
	wait "$RPID" || :
	for i in $(seq 50); do kill -0 "$PPID_FS" 2>/dev/null || break; sleep 0.1; done
	[ -d "$CG" ]		# left behind, empty
	run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id n "$FIX/file_cache_size.yaml" \
		--set "file_cache_size.params.dir=$FSDIR" --set file_cache_size.params.size=64MiB
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ "$output" == *"removed $CG, left by point process $PPID_FS, which is gone"* ]] || {
		echo "$output"; return 1; }
	run fc_cgroups
	[ -z "$output" ] || { echo "left: $output"; return 1; }
}

@test "fs_cache: size_avail needs limit 0; the opt-in whole-machine spec validates and is not in specs/" {
	run "$RUNNER" check specs/opt-in/file_cache_machine.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	run "$RUNNER" check specs/file_cache_size.yaml --set 'file_cache_size.params.size_avail=0.5'
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"size_avail measures the whole machine's page cache: set limit: 0"* ]]
	# `runner specs/` (and so `make run`) does not reach the opt-in folder
	run "$RUNNER" check specs/
	[[ "$output" != *file_cache_machine* ]]
}

@test "fs_cache: whole machine: sizes follow MemAvailable, one shared file, cached sizes read from the cache" {
	mem_run specs/opt-in/file_cache_machine.yaml --set "file_cache_machine.params.dir=$FSDIR" \
		--set 'file_cache_machine.params.size_avail=[0.001, 0.002]' \
		--set 'file_cache_machine.params.file_mem=0.004'
	mem_check file_cache_machine us '
assert d["probe"]["version"] == "1.2", d["probe"]["version"]
for k, p in pts.items():
    f = float(p["params_text"]["size_avail"])
    for s in p["samples"]:
        x = s["extra"]
        assert x["limit"] == 0, (k, x)
        # the size is the fraction of MemAvailable at setup, in whole blocks
        assert x["file_bytes"] == (int(f * x["mem_available"]) // 4096) * 4096, (k, x)
        # a few MiB of a machine with GiBs available: the second read is cached
        assert x["resident"] >= 0.99, (k, x["resident"])
        assert x["hit_share"] >= 0.9, (k, x["hit_share"])
    assert est(k) < 50, (k, est(k))
'
	# both points read a prefix of one file: file_mem x MemTotal, rounded up to 64 MiB
	total=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
	want=$(python3 -c "import math,sys; s=64<<20; print(math.ceil(0.004*$total/s)*s)")
	run ls "$FSDIR"
	[ "$output" = "sysmeter-$want-0000000000000001.dat" ] || { echo "$output (want $want)"; false; }
}

@test "fs_cache: on a tmpfs a device read is a memory copy: no hit share, the time fit" {
	fs_tmpfs "$BATS_TEST_TMPDIR/mem" 160m
	mem_run "$FIX/file_cache_size.yaml" --set "file_cache_size.params.dir=$BATS_TEST_TMPDIR/mem" \
		--set 'file_cache_size.params.size=[4MiB, 8MiB, 16MiB]' --set file_cache_size.params.limit=0
	mem_check file_cache_size us '
for k, p in pts.items():
    x = p["extra"]
    # no O_DIRECT on this tmpfs, or one no slower than the cache: no split
    assert x.get("hit_share", {}).get("median") is None, (k, x.get("hit_share"))
    dev, cac = x["cal_device_us"].get("median"), x["cal_cached_us"].get("median")
    assert dev is None or dev < 4 * cac, (k, dev, cac)
assert d["findings"]["file_cache"].get("fitted_to") in (None, "time"), d["findings"]["file_cache"]
'
}

@test "fs_cache: whole machine without the disk space for its file: skipped with the reason" {
	fs_tmpfs "$BATS_TEST_TMPDIR/small" 16m
	run "$RUNNER" --quick --no-report -q -o "$BATS_TEST_TMPDIR/out" --run-id s \
		--set "file_cache_machine.params.dir=$BATS_TEST_TMPDIR/small" \
		--set 'file_cache_machine.params.size_avail=0.001' --set 'file_cache_machine.params.file_mem=0.004' \
		specs/opt-in/file_cache_machine.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	run fs_reasons "$BATS_TEST_TMPDIR/out/s/results/file_cache_machine.json"
	echo "$output"
	[[ "$output" == "skipped not enough free space in '$BATS_TEST_TMPDIR/small' for the whole-machine test file: "*" GiB needed"*" GiB free" ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/small")" ]
}
