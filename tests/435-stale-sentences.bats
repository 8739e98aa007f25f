#!/usr/bin/env bats
# 435-stale-sentences: no sentence written on another machine (issue 35's
# list).  The phrases below were each found in a report of this project
# where the run's own data said otherwise; the test keeps the list.  The
# shipped specs' method texts must state none of them, and neither may a
# report of a real full run (the model fixture) once its method texts are
# today's: what remains there is generated from the run's data.

load helpers

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIX="$ROOT/tests/fixtures/model-runs/amd-zen5-bhyve-pti"

# One extended regex per line: the stale sentence, and the list's item.
stale_phrases() {
	cat <<'LIST'
tens of (microseconds|µs|us)
measured here: [0-9]
on this Intel guest
cycles are TSC ticks
memory bandwidth bounds loopback
~0\.2-0\.5 us
cost what the hardware and kernel code cost\.$
the host changed speed while these points ran
median with a 95 % confidence interval
user_ms. against the wall time
seen on an EPYC guest
about 185 mappings and 7 MiB resident
a few hundred KiB resident
is about the same as .*: their CIs overlap
LIST
}

# A literal block of a spec file (KEY: |, default description).
spec_description() {
	awk -v key="${2:-description}" '$0 == key ": |" {on = 1; next} on && /^[^ ]/ {exit}
		on {sub(/^  /, ""); print}' "$1"
}

@test "stale sentences: the shipped specs' method and discussion texts state none of the listed sentences" {
	bad=0
	while IFS= read -r re; do
		for f in "$ROOT"/specs/*.yaml "$ROOT"/specs/opt-in/*.yaml; do
			if { spec_description "$f"; spec_description "$f" discussion; } | tr '\n' ' ' |
				grep -Eq -- "$re"; then
				echo "$f: '$re'"
				bad=1
			fi
		done
	done < <(stale_phrases)
	[ "$bad" -eq 0 ]
}

@test "stale sentences: a real run's report with today's method texts says none of them" {
	[ -f "$FIX/manifest.json" ] || skip "no model fixture"
	R="$BATS_TEST_TMPDIR/run"
	cp -R "$FIX" "$R"
	# today's method texts in the run's results, as a run of today's specs records them
	for f in "$R"/results/*.json; do
		name=$(basename "$f" .json)
		[ -f "$ROOT/specs/$name.yaml" ] || continue
		spec_description "$ROOT/specs/$name.yaml" >"$BATS_TEST_TMPDIR/desc"
		spec_description "$ROOT/specs/$name.yaml" discussion >"$BATS_TEST_TMPDIR/disc"
		python3 - "$f" "$BATS_TEST_TMPDIR/desc" "$BATS_TEST_TMPDIR/disc" <<-'PY'
		import json, sys
		r = json.load(open(sys.argv[1]))
		r["description"] = open(sys.argv[2]).read()
		if r.get("discussion"):
		    r["discussion"] = open(sys.argv[3]).read()
		json.dump(r, open(sys.argv[1], "w"))
		PY
	done
	run "$RUNNER" report --format md -q "$R"
	[ "$status" -eq 0 ]
	tr '\n' ' ' <"$R/report.md" | sed 's/\\//g' >"$BATS_TEST_TMPDIR/flat"
	bad=0
	while IFS= read -r re; do
		if grep -Eo -- ".{0,60}$re.{0,40}" "$BATS_TEST_TMPDIR/flat"; then
			echo "report.md says '$re'"
			bad=1
		fi
	done < <(stale_phrases)
	# the per-line ones (a sentence that ends a line in the Markdown)
	grep -E 'cost what the hardware and kernel code cost\.$' "$R/report.md" && bad=1
	# the summary keeps what the finding says of a cgroup's file cache (item 12)
	grep -q "the file cache found (a memory cgroup's, not the machine's)" "$R/report.md" || {
		echo "the summary's file cache row lost its cgroup"; bad=1; }
	[ "$bad" -eq 0 ]
}
