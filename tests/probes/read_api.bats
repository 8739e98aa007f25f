#!/usr/bin/env bats
# The read_api probe and specs/read_apis.yaml.

load ../helpers
load fs_helpers

setup() { fs_setup; }
teardown() { fs_teardown; }

@test "read_api: probe-help lists the parameters and metrics" {
	run "$RUNNER" probe-help read_api
	[ "$status" -eq 0 ]
	for w in chunk api read fread mmap bufsize mb_per_s stdio_buffer; do
		[[ "$output" == *"$w"* ]] || { echo "no '$w' in: $output"; return 1; }
	done
	run "$RUNNER" check specs/read_apis.yaml
	[ "$status" -eq 0 ]
}

@test "read_api: 1-byte read(2) costs a system call, fread buffers it, everything is read" {
	mem_run tests/fixtures/specs/fs/read_apis.yaml --set "read_apis.params.dir=$FSDIR"
	mem_check read_apis ns '
def k(chunk, api): return [x for x, p in pts.items() if p["params_text"]["chunk"] == chunk and p["params_text"]["api"] == api][0]
# a system call per byte against a copy from the stdio buffer
assert est(k("1", "read")) > 3 * est(k("1", "fread")), (est(k("1", "read")), est(k("1", "fread")))
assert est(k("1", "read")) > 3 * est(k("1", "mmap"))
# a bigger chunk costs more per call than a 1-byte one for every api
for a in ("read", "fread", "mmap"):
    assert est(k("64KiB", a)) > est(k("1", a)), a
for x, p in pts.items():
    c = {"1": 1, "64": 64, "64KiB": 65536}[p["params_text"]["chunk"]]
    for s in p["samples"]:
        assert s["extra"]["bytes_read"] == c * p["iterations"], (x, s["extra"])
assert extra(k("1", "fread"), "stdio_buffer") >= 512
'
}
