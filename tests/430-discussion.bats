#!/usr/bin/env bats
# 430-discussion: the report states only what the run's data supports.  The
# generated discussion's sentences are checked against numbers computed here
# from the fixture's JSON, and flip when a number in a copy is changed so
# that the comparison goes the other way; knees are brackets where the sweep
# is sparse and "not reached" only when no point is at DRAM latency; a chart
# draws one series per swept choice; the PDF holds no jargon, no raw byte
# count and no overfull box.

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIXTURE="$ROOT/tests/fixtures/runs/basic"
: "${RUNNER:=$ROOT/build/runner}"

have() { command -v "$1" >/dev/null 2>&1; }
have_tex() { have latexmk || have pdflatex; }

# A copy of the fixture in $1, its JSON edited by the python statements in
# $2 (r: the result of experiment $3, saved after).
edited_run() {
	cp -R "$FIXTURE" "$1"
	[ -z "${2:-}" ] && return 0
	python3 - "$1/results/$3.json" "$2" <<-'PY'
	import json, sys
	p = sys.argv[1]; r = json.load(open(p))
	def point(**kv):
	    return next(q for q in r["points"] if all(q["params_text"].get(k) == v for k, v in kv.items()))
	exec(sys.argv[2])
	json.dump(r, open(p, "w"))
	PY
}

md_of() {
	run "$RUNNER" report --format md "$1"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

# 3 significant digits, as the report prints them (units_format_number).
sig3() {
	python3 -c 'import math,sys; v=float(sys.argv[1]); d=max(0, 2-int(math.floor(math.log10(abs(v))))); print("%.*f" % (d, v))' "$1"
}

@test "discussion: the prediction sentence gives the result's own measured / predicted" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R"
	md_of "$R"
	ratio=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["points"][0]["prediction"]["ratio"])' "$R/results/syscall.json")
	grep -qx "Measured / predicted is $(sig3 "$ratio"), so the prediction held (within 25 %)." "$R/report.md"
	# far off: the same sentence says it did not hold, and which way
	edited_run "$BATS_TEST_TMPDIR/off" 'point(call="getpid")["prediction"]["ratio"] = 2.5' syscall
	md_of "$BATS_TEST_TMPDIR/off"
	grep -qx 'Measured / predicted is 2.50, so the prediction did not hold: the measurement took longer than the model allows.' "$BATS_TEST_TMPDIR/off/report.md"
}

@test "discussion: a minor fault per byte against RAM bandwidth per byte, and the sentence flips with the numbers" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R"
	md_of "$R"
	read -r fault ram <<<"$(python3 - "$R" <<-'PY'
	import json, sys
	d = sys.argv[1]
	pf = json.load(open(d + "/results/page_fault.json"))
	bw = json.load(open(d + "/results/ram_bandwidth.json"))
	minor = next(p for p in pf["points"] if p["params_text"]["kind"] == "minor")["estimate"] * 1000 / 4096
	read1 = next(p for p in bw["points"] if p["params_text"] == {"op": "read", "threads": "1"})["estimate"]
	print(minor, 1 / read1)
	PY
	)"
	python3 -c 'import sys; assert float(sys.argv[1]) < float(sys.argv[2])' "$fault" "$ram"
	grep -q "^A minor fault costs $(sig3 "$fault") ns per byte of its 4 KiB page, less than the $(sig3 "$ram") ns per byte of reading RAM" "$R/report.md"
	# a slower fault: more than
	F="$BATS_TEST_TMPDIR/flip"
	edited_run "$F" 'q = point(kind="minor"); q["estimate"] = 1.0; q["ci"] = [0.99, 1.01]' page_fault
	md_of "$F"
	grep -q "^A minor fault costs $(sig3 "$(python3 -c 'print(1000/4096)')") ns per byte of its 4 KiB page, more than the $(sig3 "$ram") ns per byte" "$F/report.md"
	! grep -q '^A minor fault costs .*less than' "$F/report.md" || false
	# without ram_bandwidth's result in the run, no comparison at all
	N="$BATS_TEST_TMPDIR/none"
	edited_run "$N"
	rm "$N/results/ram_bandwidth.json"
	md_of "$N"
	grep -q '^A minor fault costs\|^\*\*Discussion' "$N/report.md"
	! grep -q '^A minor fault costs' "$N/report.md" || false
}

@test "discussion: the cheapest read API is the data's, others as ratios, about the same within the CIs" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R"
	md_of "$R"
	# fixture: mmap 3.2019, read 4.0605, fread 4.6831 us at 64 KiB
	grep -qx 'At chunk=64KiB, mmap is the cheapest (3.20 µs); read takes 1.27 times as long; fread takes 1.46 times as long.' "$R/report.md"
	# mmap slower: read is the cheapest now
	F="$BATS_TEST_TMPDIR/flip"
	edited_run "$F" 'q = point(api="mmap"); q["estimate"] = 5.0; q["ci"] = [4.9, 5.1]' read_apis
	md_of "$F"
	grep -q '^At chunk=64KiB, read is the cheapest (4.06 µs); fread takes 1.15 times as long; mmap takes 1.23 times as long.$' "$F/report.md"
	# overlapping intervals within 5 %: about the same, no ratio
	O="$BATS_TEST_TMPDIR/overlap"
	edited_run "$O" 'q = point(api="fread"); q["estimate"] = 3.21; q["ci"] = [3.15, 3.3]' read_apis
	md_of "$O"
	grep -q '^At chunk=64KiB, mmap is the cheapest (3.20 µs); read takes 1.27 times as long; fread and it are about the same: their intervals overlap.$' "$O/report.md"
	# overlapping intervals further apart: not resolved with the rounds there were, never "the same"
	W="$BATS_TEST_TMPDIR/wide"
	edited_run "$W" 'q = point(api="fread"); q["estimate"] = 4.16; q["ci"] = [3.0, 5.0]; q["n_rounds"] = 3; m = point(api="mmap"); m["n_rounds"] = 3' read_apis
	md_of "$W"
	grep -q '^At chunk=64KiB, mmap is the cheapest (3.20 µs); read takes 1.27 times as long; fread and it are 30 % apart, a difference 3 rounds did not resolve: their intervals overlap.$' "$W/report.md"
}

@test "discussion: each sanity flag kind once, with its count" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R"
	md_of "$R"
	grep -q '^high\\_variation at 1 of 2 points: their samples spread widely' "$R/report.md"
	grep -q '^below\\_timer\\_resolution at 1 of 1 point: ' "$R/report.md"
	# the same flag on both points: counted, said once
	F="$BATS_TEST_TMPDIR/two"
	edited_run "$F" 'point(method="rdtscp")["sanity"] = list(point(method="clock_gettime")["sanity"])' timer_overhead
	md_of "$F"
	[ "$(grep -c '^high\\_variation at 2 of 2 points: ' "$F/report.md")" -eq 1 ]
}

# The run in $1's manifest edited by the python statements in $2 (m: its
# machine object).
edit_machine() {
	python3 - "$1/manifest.json" "$2" <<-'PY'
	import json, sys
	p = sys.argv[1]; man = json.load(open(p)); m = man["machine"]
	exec(sys.argv[2])
	json.dump(man, open(p, "w"))
	PY
}

# syscall's getpid point with a model of two terms: syscall_cycles (this
# point's own value of it, $2, so the test knows it) / core_hz, and 30 cycles;
# its estimate $3 (ns) when given.
SYSCALL_MODEL='
q = point(call="getpid")
q["params"]["syscall_cycles"] = CYC
if EST: q["estimate"] = EST; q["ci"] = [EST * 0.99, EST * 1.01]
q["prediction"] = {"value": None, "value_text": "", "hardware": None, "software": None,
                   "why": "kernel entry and exit", "ratio": None,
                   "formula": {"value": None, "hardware": "syscall_cycles / core_hz",
                               "software": "30cycles / core_hz"}}'
syscall_model() {
	edited_run "$1" "CYC = $2; EST = ${3:-0}$SYSCALL_MODEL" syscall
	edit_machine "$1" 'm["vulnerabilities"] = {
    "spectre_v2": "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected",
    "spec_rstack_overflow": "Mitigation: Safe RET", "meltdown": "Mitigation: PTI", "mds": "Not affected"}'
}

# The numbers the discussion must give, from the run's JSON: the largest
# term's value and share, the residue in ns and in %.
model_numbers() {
	python3 - "$1" <<-'PY'
	import json, sys
	d = sys.argv[1]
	hz = json.load(open(d + "/manifest.json"))["machine"]["core_clock"]["hz"]
	q = json.load(open(d + "/results/syscall.json"))["points"][0]
	hw = q["params"]["syscall_cycles"] / hz * 1e9; sw = 30 / hz * 1e9; pv = hw + sw
	est = q["estimate"]
	print(hw, "%.0f" % (hw / pv * 100), abs(est - pv), "%+.0f" % ((est - pv) / pv * 100), "+" if est > pv else "-")
	PY
}

@test "discussion: the model's largest term and its share, the residue in ns and %, and the confounder the run recorded" {
	R="$BATS_TEST_TMPDIR/run"
	syscall_model "$R" 100
	md_of "$R"
	read -r hw share res pct sign <<<"$(model_numbers "$R")"
	grep -qF "The largest of the model's 2 terms is the hardware term syscall\\_cycles / core\\_hz: 100 / 2.99 GHz = $(sig3 "$hw") ns, $share % of the prediction." "$R/report.md"
	[ "$sign" = + ]
	grep -qF "The measurement leaves the model (outside 25 %): the residue, measured - predicted, is +$(sig3 "$res") ns ($pct % of the prediction)." "$R/report.md"
	# the fixture is a KVM guest with PTI on; the vulnerabilities name 3 more
	grep -qF "What the run recorded that can account for it: the kernel's mitigations PTI, Retpolines, RSB filling, Safe RET (4 named in machine.pti and machine.vulnerabilities), on every system call's entry and exit; a virtual machine (machine.virtualization: kvm; hypervisor KVMKVMKVM)." "$R/report.md"
	# the model in the predictions' notes lists both terms with their shares
	grep -qxF "  - terms, share of the prediction: hardware syscall\\_cycles / core\\_hz $share %; software 30cycles / core\\_hz $((100 - share)) %" "$R/report.md"
	# within 25 %: the term, no residue and no confounder
	H="$BATS_TEST_TMPDIR/held"
	syscall_model "$H" 180
	md_of "$H"
	grep -qF "The largest of the model's 2 terms is the hardware term syscall\\_cycles / core\\_hz: 180 / 2.99 GHz" "$H/report.md"
	! grep -F 'syscall\_cycles / core\_hz: 180' "$H/report.md" | grep -q 'leaves the model\|can account for\|unexplained' || false
}

@test "discussion: the confounder sentence flips with the residue's sign and with what the machine recorded" {
	# faster than the model: a VM and mitigations only add time
	F="$BATS_TEST_TMPDIR/faster"
	syscall_model "$F" 100 20
	md_of "$F"
	read -r hw share res pct sign <<<"$(model_numbers "$F")"
	[ "$sign" = - ]
	grep -qF "the residue, measured - predicted, is -$(sig3 "$res") ns ($pct % of the prediction). Nothing the run recorded can account for a measurement faster than the model (what it recorded only adds time): the miss is unexplained." "$F/report.md"
	! grep -q 'What the run recorded that can account' "$F/report.md" || false
	# not a guest: the mitigations alone
	M="$BATS_TEST_TMPDIR/metal"
	syscall_model "$M" 100
	edit_machine "$M" 'm["virtualization"] = "none detected"; m["cpu"]["hypervisor"] = None'
	md_of "$M"
	grep -qF "What the run recorded that can account for it: the kernel's mitigations PTI, Retpolines, RSB filling, Safe RET (4 named in machine.pti and machine.vulnerabilities), on every system call's entry and exit." "$M/report.md"
	! grep -q 'a virtual machine (machine' "$M/report.md" || false
	# no guest, no mitigation: nothing recorded explains it
	N="$BATS_TEST_TMPDIR/none"
	syscall_model "$N" 100
	edit_machine "$N" 'm["virtualization"] = "none detected"; m["cpu"]["hypervisor"] = None
m["pti"]["state"] = "off"
m["vulnerabilities"] = {k: "Not affected" for k in m["vulnerabilities"]}'
	md_of "$N"
	grep -qF "is +$(sig3 "$(model_numbers "$N" | cut -d' ' -f3)") ns" "$N/report.md"
	grep -qF "Nothing the run recorded accounts for it: the miss is unexplained." "$N/report.md"
	! grep -q 'can account for it' "$N/report.md" || false
}

@test "discussion: a rate's model is a time per byte; its largest term's share is of that time" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R" '
for q in r["points"]:
    q["prediction"] = None
point(op="read", threads="1")["prediction"] = {"value": None, "value_text": "", "hardware": None,
    "software": None, "why": "a copy", "ratio": None,
    "formula": {"value": None, "hardware": "1 / (8B * core_hz)", "software": "1ns / 64B"}}' ram_bandwidth
	md_of "$R"
	read -r hwb share res pct <<<"$(python3 - "$R" <<-'PY'
	import json, sys
	d = sys.argv[1]
	hz = json.load(open(d + "/manifest.json"))["machine"]["core_clock"]["hz"]
	est = json.load(open(d + "/results/ram_bandwidth.json"))["points"][0]["estimate"]
	hw = 1 / (8 * hz); sw = 1e-9 / 64; pv = 1e-9 / (hw + sw)
	print("%.3g" % (hw * 1e9), "%.0f" % (hw / (hw + sw) * 100), abs(est - pv), "%+.0f" % ((est - pv) / pv * 100))
	PY
	)"
	grep -qF "At op=read, threads=1, the largest of the model's 2 terms is the hardware term 1 / (8B \\* core\\_hz): 1 / (8B \\* 2.99 GHz) = $hwb ns/B, $share % of the time per byte." "$R/report.md"
	grep -qF "the residue, measured - predicted, is -$(sig3 "$res") GB/s ($pct % of the prediction). What the run recorded that can account for it: a virtual machine" "$R/report.md"
}

@test "knees: a knee between sizes far apart is a bracket; Memory is not reached only when no point is at DRAM latency" {
	R="$BATS_TEST_TMPDIR/sparse"
	# keep 4, 32 KiB, 1, 64 MiB; the L1 knee interpolated at 45 KiB between them
	edited_run "$R" '
r["points"] = [q for q in r["points"] if q["params_text"]["size"] in ("4KiB", "32KiB", "1MiB", "64MiB")]
s = r["findings"]["knees"]["series"]
for k in s:
    s[k]["levels"] = [l for l in s[k]["levels"] if l["name"] == "L1"]
    s[k]["levels"][0]["knee_bytes"] = 46080
    s[k]["memory_reached"] = False
' ram_access
	md_of "$R"
	grep -q '^| stride=64 | L1 | between 32 KiB and 1 MiB | 1.55 ns | .* | 32 KiB | the 32 KiB reported lies in that bracket' "$R/report.md"
	! grep -q '45.0 KiB\|45 KiB' "$R/report.md" || false
	# the 64 MiB point (84.9 ns) is at DRAM latency: reached, without a plateau
	grep -q '^| stride=64 | Memory | 64 MiB, the largest measured | 84.9 ns | ' "$R/report.md"
	! grep -q 'not reached' "$R/report.md" || false
	grep -q '^| RAM access time: Memory, 64 MiB, the largest measured (stride=64) | – | 84.9 ns |' "$R/report.md"
	# below 50 ns at the largest size: not reached, and the note says what was measured
	N="$BATS_TEST_TMPDIR/notreached"
	cp -R "$R" "$N"
	python3 - "$N/results/ram_access.json" <<-'PY'
	import json, sys
	p = sys.argv[1]; r = json.load(open(p))
	for q in r["points"]:
	    if q["params_text"]["size"] == "64MiB":
	        q["estimate"] = 30.0; q["ci"] = [29.0, 31.0]
	json.dump(r, open(p, "w"))
	PY
	md_of "$N"
	grep -q '^| stride=64 | Memory | not reached | – | – | – | the largest size measured, 64 MiB, took 30.0 ns: below DRAM latency' "$N/report.md"
}

@test "summary: one row per cache level found, from the first series" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R"
	md_of "$R"
	[ "$(grep -c '^| RAM access time: L1' "$R/report.md")" -eq 1 ]
	for l in L1 L2 L3 RAM; do
		grep -q "^| RAM access time: $l.*(stride=64) |" "$R/report.md"
	done
}

@test "chart: a swept parameter the spec's chart series does not name still splits the series" {
	R="$BATS_TEST_TMPDIR/run"
	# series: pattern (one value): stride 64 and 4096 must still be two lines
	edited_run "$R" 'r["spec"]["chart"]["series"] = "pattern"' ram_access
	run "$RUNNER" report --format md "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	dat="$R/charts/ram_access.dat"
	[ "$(grep -c '^# series:' "$dat")" -eq 2 ]
	grep -q '^# series: .*stride=64' "$dat"
	grep -q '^# series: .*stride=4096' "$dat"
	# no block holds one size twice (a zig-zag joins two curves)
	python3 - "$dat" <<-'PY'
	import sys
	blocks = open(sys.argv[1]).read().split("\n\n\n")
	for b in blocks:
	    xs = [l.split()[0] for l in b.splitlines() if l and not l.startswith("#")]
	    assert len(xs) == len(set(xs)), xs
	PY
}

@test "secondary values: byte counts in human units, never a raw count of more than 6 digits" {
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R" '
r["probe"]["metrics"].append({"name": "mem_total", "unit": "bytes", "help": "RAM"})
for q in r["points"]:
    q.setdefault("extra", {})["mem_total"] = {"median": 25276063740}
' context_switch
	md_of "$R"
	grep -q '^| kind | .* | mem\\_total |$' "$R/report.md"
	grep -q '^| process | .* | 23.5GiB |$' "$R/report.md"
	! grep -q '25276063740' "$R/report.md" || false
}

@test "the PDF: no jargon, no raw byte count, no overfull box over 1pt" {
	have_tex || skip "no TeX installation"
	have pdftotext || skip "pdftotext not installed"
	R="$BATS_TEST_TMPDIR/run"
	edited_run "$R" '
r["probe"]["metrics"].append({"name": "mem_total", "unit": "bytes", "help": "RAM"})
for q in r["points"]:
    q.setdefault("extra", {})["mem_total"] = {"median": 25276063740}
' context_switch
	run "$RUNNER" report "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	txt=$(pdftotext "$R/report.pdf" -)
	for j in 'seed report' 'CS481' 'params.limit' 'rounds (CV)'; do
		! grep -qiF "$j" <<<"$txt" || { echo "jargon: $j"; false; }
	done
	# 7 digits or more: only the run's seed may be that long
	run bash -c 'grep -v "seed" | grep -oE "\b[0-9]{7,}\b"' <<<"$txt"
	[ -z "$output" ] || { echo "raw numbers: $output"; false; }
	run awk '/Overfull \\hbox \(/ { w = $3; sub(/\(/, "", w); sub(/pt/, "", w); if (w + 0 > 1) print }' "$R/report.log"
	[ -z "$output" ] || { echo "$output"; false; }
}
