#!/usr/bin/env bats
# The fs_contention probe and specs/contention.yaml.

load ../helpers
load fs_helpers

setup() { fs_setup; }
teardown() { fs_teardown; }

FIX=tests/fixtures/specs/fs

@test "fs_contention: probe-help and the default spec" {
	run "$RUNNER" probe-help fs_contention
	[ "$status" -eq 0 ]
	for w in readers mode process thread file own shared agg_mib_per_s slowest_us; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
	run "$RUNNER" check specs/contention.yaml specs/contention_background.yaml
	[ "$status" -eq 0 ]
}

# 1 and 4 readers, own and shared file, direct and warm: every reader read,
# a cached read is far faster than O_DIRECT at any N, 4 readers are not each
# faster than 1 alone, and none of the readers is left running.
contention_check() {
	mem_check contention us '
for k in pts:
    n = int(pts[k]["params_text"]["readers"])
    assert extra(k, "readers") == n, k
    assert extra(k, "slowest_us") >= extra(k, "fastest_us") > 0, k
    assert extra(k, "agg_mib_per_s") > 0, k
def at(n, f, c):
    return [k for k in pts if "readers=%d;" % n in k and "file=" + f in k and "cache=" + c in k][0]
for f in ("own", "shared"):
    for n in (1, 4):
        assert est(at(n, f, "direct")) > 5 * est(at(n, f, "warm")), (f, n)
    assert est(at(4, f, "direct")) > 0.5 * est(at(1, f, "direct")), f
'
	run pgrep -f "$FSDIR"
	[ "$status" -ne 0 ]
}

@test "fs_contention: 1 and 4 reader processes, own and shared file" {
	mem_run "$FIX/contention.yaml" --set "contention.params.dir=$FSDIR"
	contention_check
	# own: one file per reader (seeds 1..4); shared uses seed 1's
	run ls -A "$FSDIR"
	[ "$(echo "$output" | wc -l)" -eq 4 ] || { echo "$output"; return 1; }
}

@test "fs_contention: 1 and 4 reader threads" {
	mem_run "$FIX/contention.yaml" --set "contention.params.dir=$FSDIR" \
		--set contention.params.mode=thread
	contention_check
}

# background_check: specs/contention_background.yaml's quick points (1 and 4
# readers, direct and warm, timed one): the timed reader has company (every
# background reader read at least one block during its pass) exactly when
# there are background readers, everything read is counted, a cached read is
# far faster than O_DIRECT, and no reader is left.
background_check() {
	mem_check contention_background us '
assert d["probe"]["version"] == "1.1", d["probe"]["version"]
for k in pts:
    n = int(pts[k]["params_text"]["readers"])
    assert pts[k]["params_text"]["timed"] == "one", k
    for s in pts[k]["samples"]:
        bg = s["extra"]["bg_blocks"]
        assert (bg == 0) if n == 1 else (bg >= n - 1), (k, bg)
        # the value is the timed reader alone: slowest = fastest = its mean
        assert s["extra"]["slowest_us"] == s["extra"]["fastest_us"], (k, s["extra"])
def at(n, c):
    return [k for k in pts if "readers=%d;" % n in k and "cache=" + c in k][0]
for n in (1, 4):
    assert est(at(n, "direct")) > 5 * est(at(n, "warm")), n
# with background readers more blocks are read in all than the timed reader read
for c in ("direct", "warm"):
    assert extra(at(4, c), "bg_blocks") > 0, c
'
	run pgrep -f "$FSDIR"
	[ "$status" -ne 0 ]
}

@test "fs_contention: timed one: one reader timed against 0 and 3 background reader processes" {
	mem_run specs/contention_background.yaml --set "contention_background.params.dir=$FSDIR" \
		--set 'contention_background.params.size=4MiB'
	background_check
}

@test "fs_contention: timed one with reader threads" {
	mem_run specs/contention_background.yaml --set "contention_background.params.dir=$FSDIR" \
		--set 'contention_background.params.size=4MiB' --set contention_background.params.mode=thread
	background_check
}
