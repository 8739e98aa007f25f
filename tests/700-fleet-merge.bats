#!/usr/bin/env bats
# runner merge --hosts: the runs of the same specs on several hosts, side by
# side in one folder and one report; the missing hosts; a host that differs.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	SPECS="$BATS_TEST_TMPDIR/specs"
	mkdir -p "$SPECS"
	cp tests/fixtures/specs/resume/b_three.yaml tests/fixtures/specs/stats/fixed.yaml "$SPECS/"
}

# host_run ID HOSTNAME [runner options]: a run whose manifest names HOSTNAME
host_run() {
	local id=$1 host=$2
	shift 2
	"$RUNNER" --no-report -q -o "$OUT" --run-id "$id" --seed 1 "$@" "$SPECS/b_three.yaml" "$SPECS/fixed.yaml" >/dev/null
	python3 - "$OUT/$id/manifest.json" "$host" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["machine"]["hostname"] = sys.argv[2]
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
}

@test "merge --hosts: every host's run kept, one table row and one chart series per host, the missing host and why" {
	host_run ra alpha
	host_run rb beta
	cat > "$BATS_TEST_TMPDIR/hosts.json" <<JSON
{"schema": "sysmeter.hosts/1", "hosts": [
 {"name": "gamma", "status": "missing", "reason": "unreachable: Connection refused"},
 {"name": "bee", "status": "ok", "run": "$OUT/rb", "clock": {"offset_s": 0.25, "uncertainty_s": 0.01}}]}
JSON
	run "$RUNNER" merge --hosts -q -o "$OUT" --run-id fl --hosts-file "$BATS_TEST_TMPDIR/hosts.json" "$OUT/ra" "$OUT/rb"
	[ "$status" -eq 0 ]
	[ "${lines[${#lines[@]}-1]}" = "$OUT/fl" ]
	# each host's run whole, under the name the hosts file gives or its hostname
	cmp "$OUT/ra/results/fixed.json" "$OUT/fl/hosts/alpha/results/fixed.json"
	cmp "$OUT/rb/manifest.json" "$OUT/fl/hosts/bee/manifest.json"
	[ "$(json "$OUT/fl/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = '["alpha", "bee"]' ]
	[ "$(json "$OUT/fl/manifest.json" 'd["hosts"]["missing"]')" = '[{"name": "gamma", "reason": "unreachable: Connection refused"}]' ]
	[ "$(json "$OUT/fl/hosts.json" '[(h["name"], h["status"]) for h in d["hosts"]]')" = '[["alpha", "ok"], ["bee", "ok"], ["gamma", "missing"]]' ]
	md="$OUT/fl/report.md"
	grep -q '^## Missing hosts' "$md"
	grep -q '^| gamma | unreachable: Connection refused |' "$md"
	grep -q '^| bee | rb | complete | +0.250 s (± 0.010 s) |' "$md"
	# per experiment: one row per point and host, and a series per host in the chart
	[ "$(grep -c '^| base=40 | \(alpha\|bee\) | 39\.. ns |' "$md")" = 2 ]
	[ "$(grep -c '^| – | \(alpha\|bee\) | .* ns |' "$md")" = 2 ]
	grep -q "title 'alpha'" "$OUT/fl/charts/hosts-b_three.gp"
	grep -q "title 'bee'" "$OUT/fl/charts/hosts-b_three.gp"
	grep -q '^### Machine: alpha' "$md"
	grep -q '^### Machine: bee' "$md"
	grep -q 'No host differs clearly' "$md"
	grep -q 'Missing hosts' "$OUT/fl/report.tex"
	if command -v pdflatex >/dev/null; then [ -s "$OUT/fl/report.pdf" ]; fi
	# the HTML report: the same hosts, the missing one, a chart per experiment as SVG
	html="$OUT/fl/report.html"
	grep -q '<h2 id="missing">Missing hosts</h2>' "$html"
	grep -q '<tr><td>gamma</td><td>unreachable: Connection refused</td></tr>' "$html"
	grep -q '<h3>Machine: bee</h3>' "$html"
	if command -v gnuplot >/dev/null; then
		grep -q '<img src="charts/hosts-b_three.svg"' "$html"
		[ -s "$OUT/fl/charts/hosts-b_three.svg" ]
	fi
}

@test "merge --hosts names the host whose result differs clearly, by the CIs" {
	host_run r1 h1
	host_run r2 h2
	host_run r3 h3 --set fixed.params.base=150
	run "$RUNNER" merge --hosts -q --no-report -o "$OUT" --run-id fl "$OUT/r1" "$OUT/r2" "$OUT/r3"
	[ "$status" -eq 0 ]
	run "$RUNNER" report "$OUT/fl" --format md
	[ "$status" -eq 0 ]
	md="$OUT/fl/report.md"
	grep -q '^| – | h3 | 150 ns | .* | differs |' "$md"
	! grep -q '^| – | h[12] | .* | differs |' "$md"  || false
	grep -q 'Differs clearly from the other hosts:\*\* h3 (at 1 of 1 points)' "$md"
	# b_three is the same everywhere: nobody named there
	[ "$(grep -c 'No host differs clearly' "$md")" = 1 ]
}

@test "a host that comes back later is merged into the fleet's folder: it leaves the missing list" {
	host_run ra alpha
	echo '{"schema": "sysmeter.hosts/1", "hosts": [{"name": "late", "status": "missing", "reason": "unreachable"}]}' \
		> "$BATS_TEST_TMPDIR/hosts.json"
	run "$RUNNER" merge --hosts -q --no-report -o "$OUT" --run-id fl --hosts-file "$BATS_TEST_TMPDIR/hosts.json" "$OUT/ra"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/fl/manifest.json" '[m["name"] for m in d["hosts"]["missing"]]')" = '["late"]' ]
	host_run rl late
	run "$RUNNER" merge --hosts -q --no-report -o "$OUT" --run-id fl2 "$OUT/fl" "$OUT/rl"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/fl2/manifest.json" '[r["name"] for r in d["hosts"]["runs"]]')" = '["alpha", "late"]' ]
	[ "$(json "$OUT/fl2/manifest.json" 'd["hosts"]["missing"]')" = '[]' ]
	cmp "$OUT/ra/results/b_three.json" "$OUT/fl2/hosts/alpha/results/b_three.json"
}

@test "merge --hosts refuses bad input with exit 2 and writes nothing" {
	host_run ra alpha
	echo '{"schema": "sysmeter.hosts/1", "hosts": [{"name": "../x", "status": "missing", "reason": "r"}]}' > "$BATS_TEST_TMPDIR/bad.json"
	run "$RUNNER" merge --hosts -q -o "$OUT" --run-id fl --hosts-file "$BATS_TEST_TMPDIR/bad.json" "$OUT/ra"
	[ "$status" -eq 2 ]
	[[ "$output" == *"hosts[0]"* ]]
	run "$RUNNER" merge -q -o "$OUT" --hosts-file "$BATS_TEST_TMPDIR/bad.json" "$OUT/ra" "$OUT/ra"
	[ "$status" -eq 2 ]
	run "$RUNNER" merge --hosts -q -o "$OUT" --run-id fl "$BATS_TEST_TMPDIR"
	[ "$status" -eq 2 ]
	[ ! -e "$OUT/fl" ]
	[ -z "$(ls -A "$OUT" | grep '^\.merge-')" ]
}
