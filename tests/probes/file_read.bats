#!/usr/bin/env bats
# The file_read probe and specs/file_read.yaml.

load ../helpers
load fs_helpers

setup() { fs_setup; }
teardown() { fs_teardown; }

FIX=tests/fixtures/specs/fs

# writing_in DIR PID: a child of PID has a file under DIR open that holds
# data already (says which, and its size)
writing_in() {
	local c f n
	for c in $(pgrep -P "$2"); do
		for f in $(find "/proc/$c/fd" -lname "$1/*" 2>/dev/null); do
			n=$(stat -L -c %s "$f" 2>/dev/null) || continue
			[ "$n" -gt 0 ] || continue
			echo "$c has $(readlink "$f") open, $n bytes written"
			return 0
		done
	done
	return 1
}

@test "file_read: probe-help lists the parameters and metrics" {
	run "$RUNNER" probe-help file_read
	[ "$status" -eq 0 ]
	for w in dir size block order cache direct cold warm p99_us resident evict fs_type; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
	run "$RUNNER" check specs/file_read.yaml
	[ "$status" -eq 0 ]
}

@test "file_read: a cached read is far faster than O_DIRECT; random O_DIRECT is not faster than sequential" {
	mem_run "$FIX/file_read.yaml" --set "file_read.params.dir=$FSDIR"
	mem_check file_read us '
sd = est("block=4KiB;cache=direct;dir=%s;order=sequential;seed=1;size=4MiB" % d["points"][0]["params_text"]["dir"])
rd = [est(k) for k in pts if "cache=direct" in k and "order=random" in k][0]
w = [est(k) for k in pts if "cache=warm" in k]
assert all(sd > 5 * x and rd > 5 * x for x in w), (sd, rd, w)
assert rd > 0.5 * sd, (rd, sd)
for k in pts:
    assert extra(k, "mib_per_s") > 0, k
    assert extra(k, "fs_type") > 0, k
# irq_cpu: the CPU that took the disk'"'"'s completion interrupts, when the disk
# has MSI interrupts (a virtio or NVMe disk); a cached read takes none
import os
st = os.stat(d["points"][0]["params_text"]["dir"])
path = os.path.realpath("/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)))
msi = False
while path.startswith("/sys/devices/") and not msi:
    msi = os.path.isdir(path + "/msi_irqs")
    path = os.path.dirname(path)
for k in pts:
    v = pts[k]["extra"]["irq_cpu"]["median"]
    if not msi:
        assert v is None, (k, v)
    elif "cache=direct" in k:
        assert 0 <= v < os.cpu_count(), (k, v)
'
	# the file is kept, named by size and seed, with nothing else beside it
	run ls -A "$FSDIR"
	[ "$output" = "sysmeter-4194304-0000000000000001.dat" ] || { echo "$output"; return 1; }
}

@test "file_read: a cold point is evicted and verified cold" {
	mem_run "$FIX/file_read.yaml" --set "file_read.params.dir=$FSDIR" \
		--set file_read.params.cache=cold --set file_read.params.order=random
	mem_check file_read us '
for k in pts:
    assert extra(k, "resident") <= 0.01, (k, extra(k, "resident"))
    assert extra(k, "evict") in (1, 2), (k, extra(k, "evict"))
'
}

@test "file_read: a cold point whose eviction fails is failed, not measured" {
	SYSMETER_FS_NO_EVICT=1 run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t \
		"$FIX/file_read.yaml" --set "file_read.params.dir=$FSDIR" \
		--set file_read.params.cache=cold --set file_read.params.order=random
	[ "$status" -eq 1 ]
	run fs_reasons "$BATS_TEST_TMPDIR/out/t/results/file_read.json"
	[[ "$output" == *"failed"*"still cached after no eviction"* ]] || { echo "$output"; return 1; }
	[[ "$output" != *"ok"* ]] || { echo "$output"; return 1; }
}

@test "file_read: a cold point on tmpfs (nothing to evict to) fails with the reason" {
	fs_tmpfs "$BATS_TEST_TMPDIR/mem" 80m
	run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t "$FIX/file_read.yaml" \
		--set "file_read.params.dir=$BATS_TEST_TMPDIR/mem" --set file_read.params.size=1MiB \
		--set file_read.params.cache=cold --set file_read.params.order=sequential
	[ "$status" -eq 1 ]
	run fs_reasons "$BATS_TEST_TMPDIR/out/t/results/file_read.json"
	[[ "$output" == *"(tmpfs) is still cached"*"cannot be evicted"* ]] || { echo "$output"; return 1; }
	# the point says what its directory is on (the runner, from mountinfo)
	python3 - "$BATS_TEST_TMPDIR/out/t/results/file_read.json" "$BATS_TEST_TMPDIR/mem" <<-'PY'
	import json, os, sys
	fs = json.load(open(sys.argv[1]))["points"][0]["filesystem"]
	assert fs["type"] == "tmpfs" and fs["mount"] == os.path.realpath(sys.argv[2]), fs
	PY
}

@test "file_read: not enough free space is refused with the directory, need and free" {
	fs_tmpfs "$BATS_TEST_TMPDIR/tiny" 8m
	run "$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t "$FIX/file_read.yaml" \
		--set "file_read.params.dir=$BATS_TEST_TMPDIR/tiny" --set file_read.params.size=32MiB \
		--set file_read.params.cache=warm --set file_read.params.order=sequential
	[ "$status" -eq 1 ]
	run fs_reasons "$BATS_TEST_TMPDIR/out/t/results/file_read.json"
	[[ "$output" == *"not enough free space in '$BATS_TEST_TMPDIR/tiny'"*"needs 96 MiB"*"MiB free"* ]] ||
		{ echo "$output"; return 1; }
	run ls -A "$BATS_TEST_TMPDIR/tiny"
	[ -z "$output" ] || { echo "left behind: $output"; return 1; }
}

@test "file_read: Ctrl-C while the file is written leaves no half-written file" {
	"$RUNNER" --no-report -o "$BATS_TEST_TMPDIR/out" --run-id t "$FIX/file_read.yaml" \
		--set "file_read.params.dir=$FSDIR" --set file_read.params.size=3GiB \
		--set file_read.params.cache=warm --set file_read.params.order=sequential \
		>/dev/null 2>&1 &
	pid=$!
	# Ctrl-C once the point's process has written data into its test file
	# (an unnamed O_TMPFILE, seen only through /proc), well before 3 GiB
	wait_until 60 writing_in "$FSDIR" "$pid"
	kill -INT "$pid"
	wait "$pid" || :
	run ls -A "$FSDIR"
	[ -z "$output" ] || { echo "left behind: $output"; return 1; }
}
