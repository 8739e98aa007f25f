#!/usr/bin/env bats
# nfs_read (issue 12): reads through libnfs from the run's NFS server.  The
# server tests use `--nfs netns` (root, nfs-ganesha installed: else they
# skip and say why); the others need no server.

load ../helpers
load fs_helpers

FIX=tests/fixtures/specs/nfs

setup() { fs_setup; OUT="$BATS_TEST_TMPDIR/out"; SRV=; }
teardown() {
	if [ -n "$SRV" ]; then kill -INT "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; fi
	fs_teardown
}

# serve: `runner nfs-serve` in the background; URL and EXPORT_DIR once it answers.
serve() {
	"$RUNNER" nfs-serve -q --ready-file "$BATS_TEST_TMPDIR/ready" >/dev/null 2>"$BATS_TEST_TMPDIR/serve.err" &
	SRV=$!
	wait_until 30 test -s "$BATS_TEST_TMPDIR/ready" || { cat "$BATS_TEST_TMPDIR/serve.err"; return 1; }
	URL=$(sed -n 1p "$BATS_TEST_TMPDIR/ready")
	EXPORT_DIR=$(sed -n 2p "$BATS_TEST_TMPDIR/ready")
}

need_server() {
	[ "$(id -u)" -eq 0 ] || skip "--nfs netns needs root"
	command -v ganesha.nfsd >/dev/null || skip "nfs-ganesha is not installed (make deps)"
	command -v rpcbind >/dev/null || skip "rpcbind is not installed (make deps)"
}

@test "nfs_read: probe-help lists the parameters and metrics" {
	run "$RUNNER" probe-help nfs_read
	[ "$status" -eq 0 ]
	for w in url size block order cache version client_cache placement seed p50_us getattr_us resident evict cpu server_cpu; do
		[[ "$output" == *"$w"* ]] || { echo "missing $w"; return 1; }
	done
}

@test "nfs_read: without a server every point is skipped with the reason, the run goes on" {
	run "$RUNNER" --no-report -q -o "$OUT" --run-id s "$FIX/nfs_read.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/s/results/nfs_read.json" 'sorted(set(p["status"] for p in d["points"]))')" = '["skipped"]' ]
	json "$OUT/s/results/nfs_read.json" 'd["points"][0]["reason"]' | grep -q 'no NFS server'
}

@test "nfs_read: a server that does not answer fails the point with libnfs's message; the run goes on" {
	spec="$BATS_TEST_TMPDIR/two.yaml"
	printf '%s\n' 'name: nfs_read' 'probe: nfs_read' 'params: {url: "nfs://127.0.0.1/nowhere", size: 1MiB}' \
		'rounds: 1' 'repetitions: 2' 'timeout: 60s' >"$spec"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id f "$spec" tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 1 ]
	[ "$(json "$OUT/f/results/nfs_read.json" 'd["points"][0]["status"]')" = failed ]
	json "$OUT/f/results/nfs_read.json" 'd["points"][0]["reason"]' | grep -q 'mount 127.0.0.1:/nowhere (NFSv3): '
	[ "$(json "$OUT/f/results/fixed.json" 'd["status"]')" = ok ]
}

@test "nfs_read: over v3 and v4, sequential and random, every block holds the file's data; remote is slower than a cached local read" {
	need_server
	run "$RUNNER" --no-report -q -o "$OUT" --run-id n --nfs netns "$FIX/nfs_read.yaml" \
		tests/fixtures/specs/fs/file_read.yaml --set "file_read.params.dir=$FSDIR" \
		--set file_read.params.cache=warm --set file_read.params.size=4MiB
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	python3 - "$OUT/n/results/nfs_read.json" "$OUT/n/results/file_read.json" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1])); l = json.load(open(sys.argv[2]))
	assert r["status"] == "ok", [(p["params_text"], p["reason"]) for p in r["points"]]
	seen = set()
	for p in r["points"]:
	    t = p["params_text"]
	    seen.add((t["version"], t["order"]))
	    # the probe compares every block with the seeded data of the local file and sums it
	    assert not [f for f in p["sanity"] if f["flag"] == "probe_sanity"], p["sanity"]
	    assert p["extra"]["server_cpu"]["median"] >= 0, p["extra"]
	    assert p["extra"]["getattr_us"]["median"] > 0, p["extra"]
	    local = [q["estimate"] for q in l["points"] if q["params_text"]["order"] == t["order"]][0]
	    assert p["estimate"] > 3 * local, (t, p["estimate"], local)
	assert seen == {("3", "sequential"), ("3", "random"), ("4", "sequential"), ("4", "random")}, seen
	PY
}

@test "nfs_read: a cold point is evicted on the server and verified (mincore on the served file)" {
	need_server
	run "$RUNNER" --no-report -q -o "$OUT" --run-id c --nfs netns "$FIX/nfs_read.yaml" \
		--set nfs_read.params.cache=cold --set nfs_read.params.version=3
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	json "$OUT/c/results/nfs_read.json" 'all(p["extra"]["resident"]["median"] <= 0.01 and p["extra"]["evict"]["median"] == 1 for p in d["points"])' | grep -qx true
}

@test "nfs_read: placement same runs the reader on the server's CPU, cross on another; any elsewhere is refused with the reason" {
	need_server
	[ "$(nproc)" -ge 2 ] || skip "cross placement needs 2 CPUs"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id p --nfs netns "$FIX/nfs_read.yaml" \
		--set nfs_read.params.version=3 --set nfs_read.params.order=random \
		--set 'nfs_read.params.placement=[same, cross]'
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	python3 - "$OUT/p/results/nfs_read.json" <<-'PY'
	import json, sys
	for p in json.load(open(sys.argv[1]))["points"]:
	    assert p["status"] == "ok", (p["params_text"], p["reason"])
	    e = p["extra"]
	    same = p["params_text"]["placement"] == "same"
	    assert (e["cpu"]["min"] == e["cpu"]["max"] == e["server_cpu"]["median"]) == same, (p["params_text"], e)
	PY
	# a server elsewhere (a URL given): its CPU is not known
	run "$RUNNER" --no-report -q -o "$OUT" --run-id q "$FIX/nfs_read.yaml" \
		--set 'nfs_read.params.url=nfs://127.0.0.1/x' --set nfs_read.params.placement=same
	json "$OUT/q/results/nfs_read.json" 'd["points"][0]["reason"]' | grep -q 'placement same needs the server on this host'
}

@test "nfs_read: a wrong export on a live server fails the point with libnfs's message; the run goes on" {
	need_server
	serve
	bad="${URL%/*}/no-such-export"
	printf '%s\n' 'name: nfs_read' 'probe: nfs_read' "params: {url: \"$bad\", size: 1MiB}" \
		'rounds: 1' 'repetitions: 2' 'timeout: 60s' >"$BATS_TEST_TMPDIR/bad.yaml"
	run "$RUNNER" --no-report -q -o "$OUT" --run-id w "$BATS_TEST_TMPDIR/bad.yaml" tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 1 ]
	[ "$(json "$OUT/w/results/nfs_read.json" 'd["points"][0]["status"]')" = failed ]
	json "$OUT/w/results/nfs_read.json" 'd["points"][0]["reason"]' | grep -q "mount .*:/no-such-export (NFSv3): "
	[ "$(json "$OUT/w/results/fixed.json" 'd["status"]')" = ok ]
}

@test "nfs_read: a server elsewhere is read cold only when the spec says how it is made cold (recorded)" {
	need_server
	serve
	# given by URL the server is "elsewhere": the probe writes its file over
	# NFS, so it gets the writable export (/sysmeter is read-only)
	URL=$URL-rw
	run "$RUNNER" --no-report -q -o "$OUT" --run-id c1 "$FIX/nfs_read.yaml" --nfs "$URL" \
		--set nfs_read.params.cache=cold --set nfs_read.params.version=3 --set nfs_read.params.order=random
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/c1/results/nfs_read.json" 'd["points"][0]["status"]')" = skipped ]
	json "$OUT/c1/results/nfs_read.json" 'd["points"][0]["reason"]' | grep -q 'params.cold_by'
	run "$RUNNER" --no-report -q -o "$OUT" --run-id c2 "$FIX/nfs_read.yaml" --nfs "$URL" \
		--set nfs_read.params.cache=cold --set nfs_read.params.version=3 --set nfs_read.params.order=random \
		--set 'nfs_read.params.cold_by="echo 3 > /proc/sys/vm/drop_caches on the server before each run"'
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	f="$OUT/c2/results/nfs_read.json"
	[ "$(json "$f" 'd["points"][0]["status"]')" = ok ]
	[ "$(json "$f" 'd["points"][0]["extra"]["evict"]["median"]')" = 3.0 ]
	json "$f" 'd["points"][0]["params_text"]["cold_by"]' | grep -q 'drop_caches on the server'
}
