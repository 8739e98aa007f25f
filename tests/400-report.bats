#!/usr/bin/env bats
# 400-report: `runner report RUN` renders a checked-in fixture run (charts,
# report.md, report.tex, report.pdf) from its JSON alone.  Golden Markdown,
# PDF text and first page, escaping (gnuplot, LaTeX, Markdown), template
# errors, user templates, and missing gnuplot / TeX.

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIXTURE="$ROOT/tests/fixtures/runs/basic"
GOLDEN="$ROOT/tests/fixtures/runs/basic.golden"
: "${RUNNER:=$ROOT/build/runner}"

# `&` in ${var//pat/rep} must stay literal (bash 5.2 made it the match)
shopt -u patsub_replacement 2>/dev/null || true

have() { command -v "$1" >/dev/null 2>&1; }
have_tex() { have latexmk || have pdflatex; }

# A string as a JSON string literal's inside.
json_escape() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	printf '%s' "$s"
}

# Replace every occurrence of the text $2 by $3 in file $1 (no jq needed:
# the fixture's JSON is laid out by us).
replace_in() {
	local content
	content=$(<"$1")
	[[ "$content" == *"$2"* ]] || { echo "replace_in: '$2' not in $1" >&2; return 1; }
	content=${content//"$2"/"$3"}
	printf '%s\n' "$content" >"$1"
}

# A fresh copy of the fixture run in $1.
copy_run() {
	cp -R "$FIXTURE" "$1"
}

# A PATH holding only the given tools (by symlink), to play "not installed".
path_with() {
	local dir="$BATS_TEST_TMPDIR/bin" t
	mkdir -p "$dir"
	for t in "$@"; do
		if have "$t"; then ln -sf "$(command -v "$t")" "$dir/$t"; fi
	done
	echo "$dir"
}

setup_file() {
	# the full render, once: the tests below read it
	export FULL="$BATS_FILE_TMPDIR/full"
	cp -R "$FIXTURE" "$FULL"
	"$RUNNER" report "$FULL" >"$BATS_FILE_TMPDIR/full.out" 2>"$BATS_FILE_TMPDIR/full.err"
	echo $? >"$BATS_FILE_TMPDIR/full.rc"
}

@test "report: renders the fixture run, exit 0, nothing on stdout, both reports hold every section" {
	[ "$(cat "$BATS_FILE_TMPDIR/full.rc")" -eq 0 ] || { cat "$BATS_FILE_TMPDIR/full.err"; false; }
	# the run folder is the argument: nothing to print
	[ ! -s "$BATS_FILE_TMPDIR/full.out" ]
	md="$FULL/report.md" tex="$FULL/report.tex"
	[ "$(head -1 "$md")" = "# Measurement report: testbox" ]
	grep -qx '9 experiments: 7 complete, 1 partial, 0 failed, 1 skipped\.' "$md"
	[ "$(grep '^## ' "$md" | tr '\n' '/')" = \
	  "## Machine/## CPU and OS services/## Memory/## Network/## File system/## Harness/## Summary/" ]
	[ "$(grep '^### ' "$md" | tr '\n' '/')" = \
	  "### Can these numbers be trusted here?/### Timer overhead/### System call/### Context switch/### RAM access time/### Page fault service time/### RAM bandwidth/### TCP round trip/### Read APIs/### Harness overhead/" ]
	grep -q '^\\documentclass' "$tex"
	grep -qx '\\begin{document}' "$tex"
	[ "$(tail -1 "$tex")" = '\end{document}' ]
	[ "$(grep -o '^\\subsection{[^}]*}' "$tex" | tr '\n' '/')" = \
	  '\subsection{Timer overhead}/\subsection{System call}/\subsection{Context switch}/\subsection{RAM access time}/\subsection{Page fault service time}/\subsection{RAM bandwidth}/\subsection{TCP round trip}/\subsection{Read APIs}/\subsection{Harness overhead}/' ]
	grep -q '^\\section{Summary}' "$tex"
}

@test "report: report.md matches the golden file" {
	have gnuplot || skip "gnuplot not installed (the golden has the charts)"
	diff -u "$GOLDEN/report.md" "$FULL/report.md"
}

@test "report: a chart per measured experiment, none for the skipped one" {
	have gnuplot || skip "gnuplot not installed"
	for e in ram_access timer_overhead syscall context_switch page_fault ram_bandwidth null_overhead read_apis; do
		[ -s "$FULL/charts/$e.gp" ]
		[ -s "$FULL/charts/$e.dat" ]
		[ "$(head -c 8 "$FULL/charts/$e.png" | od -An -c | tr -d ' \n')" = "211PNG\r\n032\n" ]
		[ "$(head -c 5 "$FULL/charts/$e.pdf")" = "%PDF-" ]
	done
	[ ! -e "$FULL/charts/tcp_rtt.gp" ]
	[ ! -e "$FULL/charts/tcp_rtt.png" ]
	# the failed point is not plotted, the measured one is
	grep -q '^0 2140' "$FULL/charts/context_switch.dat" || grep -q '^0 2\.1' "$FULL/charts/context_switch.dat"
	[ "$(grep -vc '^#\|^$' "$FULL/charts/context_switch.dat")" -eq 1 ]
	# one curve per series value, on a log2 size axis, from the spec's chart:
	grep -q "index 1" "$FULL/charts/ram_access.gp"
	grep -q "set logscale x 2" "$FULL/charts/ram_access.gp"
	grep -q "'64MiB'" "$FULL/charts/ram_access.gp"
	grep -q "yerrorlines" "$FULL/charts/ram_access.gp"
	grep -q "boxerrorbars" "$FULL/charts/timer_overhead.gp"
}

@test "report: no temporary files are left behind" {
	run find "$FULL" -name '.*' ! -name . ! -name .. -print
	[ -z "$output" ]
}

@test "report: report.pdf has every experiment title and the summary figures" {
	have_tex || skip "no TeX installation"
	have pdftotext || skip "pdftotext not installed"
	[ "$(head -c 5 "$FULL/report.pdf")" = "%PDF-" ]
	run pdftotext "$FULL/report.pdf" -
	[ "$status" -eq 0 ]
	for t in "RAM access time" "Timer overhead" "System call" "Context switch" \
		"Page fault service time" "RAM bandwidth" "TCP round trip" "Harness overhead" "Read APIs" \
		"Summary" "Machine" "CPU and OS services" "Memory" "Network" "File system"; do
		[[ "$output" == *"$t"* ]] || { echo "missing: $t"; false; }
	done
	# summary figures: predicted, measured and cycles of the system call,
	# a knee, a time in µs and the skipped experiment
	for f in "60.0 ns" "71.3 ns" "213" "84.9 ns" "85.2 ns" "2.14 µs" "79.3 µs" "skipped" \
		"killed by signal 11 (Segmentation fault)" "Connection refused" \
		"0.385 ns (TSC at 2.596 GHz, calibrated)"; do
		[[ "$output" == *"$f"* ]] || { echo "missing: $f"; false; }
	done
}

@test "report: the probe's secondary values follow the main table, null as –, help below" {
	md="$FULL/report.md"
	grep -qxF '| kind | round\_trip\_ns (ns) | pipe\_ns (ns) | futex\_ns (ns) | cpu\_a (cpu) | cpu\_b (cpu) |' "$md"
	# medians at 3 significant digits, whole numbers as such, null and the
	# failed point's missing extra as –
	grep -qxF '| process | 5310 | 512 | – | 0 | 0 |' "$md"
	grep -qxF '| thread | – | – | – | – | – |' "$md"
	grep -qxF -- '- pipe\_ns: single-task 1-byte pipe write+read (pipe mechanism; null otherwise)' "$md"
	# after the main table, before the chart; only where the probe declares metrics
	main=$(grep -n '^| thread | – | failed |' "$md" | cut -d: -f1)
	sec=$(grep -n '^\*\*Secondary values\*\*' "$md" | cut -d: -f1)
	chart=$(grep -n '^!\[Context switch\]' "$md" | cut -d: -f1)
	[ -n "$main" ]
	[ "$sec" -gt "$main" ]
	[ -z "$chart" ] || [ "$chart" -gt "$sec" ]
	[ "$(grep -c '^\*\*Secondary values\*\*' "$md")" -eq 1 ]
	have_tex || return 0
	have pdftotext || return 0
	run pdftotext "$FULL/report.pdf" -
	for t in "Secondary values" "round_trip_ns" "futex_ns" "(cpu)" \
		"pipe_ns: single-task 1-byte pipe write+read (pipe mechanism; null otherwise)"; do
		[[ "$output" == *"$t"* ]] || { echo "missing: $t"; false; }
	done
	run pdftotext -layout "$FULL/report.pdf" -
	[[ "$output" =~ process\ +5310\ +512\ +–\ +0\ +0 ]] || { echo "$output" | grep -n -A6 Secondary; false; }
}

@test "report: no secondary table when no metric has a value; whole numbers print as such" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	f="$R/results/context_switch.json"
	replace_in "$f" '"median": 0.0' '"median": 1.0'
	run "$RUNNER" report "$R" --format md
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qxF '| process | 5310 | 512 | – | 1 | 1 |' "$R/report.md"
	for m in '1.0' '5310.1378' '512.4'; do
		replace_in "$f" "\"median\": $m" '"median": null'
	done
	run "$RUNNER" report "$R" --format md
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	! grep -q 'Secondary values' "$R/report.md" || false
	! grep -q 'round\\_trip\\_ns' "$R/report.md" || false
}

@test "report: pdftoppm renders page 1 of report.pdf" {
	have_tex || skip "no TeX installation"
	have pdftoppm || skip "pdftoppm not installed"
	pdftoppm -r 50 -f 1 -l 1 -png "$FULL/report.pdf" "$BATS_TEST_TMPDIR/page"
	png=$(ls "$BATS_TEST_TMPDIR"/page*.png)
	[ -s "$png" ]
}

@test "report: no overfull box wider than 1pt in the LaTeX log" {
	have_tex || skip "no TeX installation"
	run awk '/Overfull \\hbox \(/ { w = $3; sub(/\(/, "", w); sub(/pt/, "", w); if (w + 0 > 1) print }' "$FULL/report.log"
	[ -z "$output" ] || { echo "$output"; false; }
}

@test "report: a main table with long cells is set smaller, never past the page" {
	have_tex || skip "no TeX installation"
	R="$BATS_TEST_TMPDIR/r"
	copy_run "$R"
	long='4096 (one page: a TLB entry per load, every load a miss)'
	replace_in "$R/results/ram_access.json" '"stride": "4096"' "\"stride\": \"$long\""
	run "$RUNNER" report "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the table's font line: \scriptsize with 1.8 pt between columns, as any
	# two swept parameters once got, passes the page by far
	grep -qF "$long &" "$R/report.tex"
	run grep -m1 -B1 '^\\begin{longtable}{@{}\*{2}{l}' "$R/report.tex"
	echo "$output"
	[[ "$output" == *'{\tiny\setlength{\tabcolsep}{1.5pt}'* ||
	   "$output" == *'{\scriptsize\setlength{\tabcolsep}{1pt}'* ]]
	run awk '/Overfull \\hbox \(/ { w = $3; sub(/\(/, "", w); sub(/pt/, "", w); if (w + 0 > 1) print }' "$R/report.log"
	[ -z "$output" ] || { echo "$output"; false; }
	# the fixture as it is: two swept columns of short cells fit in \footnotesize
	run grep -m1 -B1 '^\\begin{longtable}{@{}\*{2}{l}' "$FULL/report.tex"
	[[ "$output" == *'{\footnotesize\setlength{\tabcolsep}{3.5pt}'* ]] || { echo "$output"; false; }
}

@test "report: LaTeX specials, Markdown pipes and backquotes come out literal" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	evil='Specials \ { } $ & # ^ _ % ~ < > a|b `cmd` -- end'
	ev=$(json_escape "$evil")
	replace_in "$R/results/read_apis.json" '"title": "Read APIs"' "\"title\": \"$ev\""
	replace_in "$R/results/read_apis.json" '"description": "read(2)' "\"description\": \"$ev\\n\\nsecond paragraph. read(2)"
	replace_in "$R/manifest.json" '"title": "Read APIs"' "\"title\": \"$ev\""
	run "$RUNNER" report "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# Markdown: the pipe cannot split a table cell, the rest is escaped
	grep -qF '| Specials \\ { } $ & # ^ \_ % ~ \< \> a\|b \`cmd\` -- end (api=read) | ' "$R/report.md"
	grep -qxF '### Specials \\ { } $ & # ^ \_ % ~ \< \> a\|b \`cmd\` -- end' "$R/report.md"
	# the description keeps its paragraphs
	grep -q '^second paragraph\. read(2), fread(3)' "$R/report.md"
	if have_tex && have pdftotext; then
		run pdftotext -layout "$R/report.pdf" -
		[[ "$output" == *'Specials \ { } $ & # ^ _ % ~ < > a|b `cmd` -- end'* ]] ||
			{ echo "$output" | grep -n Specials; false; }
	fi
}

@test "report: a gnuplot system() or backquote in a title or label runs nothing" {
	have gnuplot || skip "gnuplot not installed"
	R="$BATS_TEST_TMPDIR/run"
	T="$BATS_TEST_TMPDIR/pwned"
	mkdir -p "$T"
	copy_run "$R"
	evil="a\`touch $T/bq\`b'; system(\"touch $T/sys\"); print '\" \`touch $T/bq2\` @x \$(touch $T/sh)"
	ev=$(json_escape "$evil")
	replace_in "$R/results/syscall.json" '"title": "System call"' "\"title\": \"$ev\""
	replace_in "$R/results/syscall.json" '"chart": null' \
		"\"chart\": {\"x\": null, \"y\": null, \"series\": null, \"logx\": null, \"logy\": null, \"xlabel\": \"$ev\", \"ylabel\": \"$ev\", \"title\": \"$ev\", \"kind\": null}"
	replace_in "$R/results/ram_access.json" '"stride": "64"' "\"stride\": \"64$ev\""
	replace_in "$R/results/timer_overhead.json" '"method": "rdtscp"' "\"method\": \"rdtscp$ev\""
	run "$RUNNER" report "$R" --format md
	[ "$status" -eq 0 ] || { echo "$output"; cat "$R/report.log"; false; }
	run ls -A "$T"
	[ -z "$output" ] || { echo "created: $output"; false; }
	# the charts were drawn (the scripts parsed), each quote closing the
	# string and coming back as "'"
	[ -s "$R/charts/syscall.png" ]
	[ -s "$R/charts/ram_access.png" ]
	[ -s "$R/charts/timer_overhead.png" ]
	q="'.\"'\".'"
	grep -qF "set title 'a${q}touch $T/bq${q}b${q}; system(\"touch $T/sys\");" "$R/charts/syscall.gp"
	! grep -q '`' "$R/charts/syscall.gp" "$R/charts/ram_access.gp" "$R/charts/timer_overhead.gp" || false
	! grep -qi '^ *set macros' "$R/charts/"*.gp || false
}

@test "report: a title, label or series value that starts with a quote or backquote still draws" {
	have gnuplot || skip "gnuplot not installed"
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	replace_in "$R/results/syscall.json" '"chart": null' \
		"\"chart\": {\"x\": null, \"y\": null, \"series\": null, \"logx\": null, \"logy\": null, \"xlabel\": \"'x\", \"ylabel\": \"\`y\", \"title\": \"'quoted start\", \"kind\": null}"
	replace_in "$R/results/ram_access.json" '"stride": "64"' "\"stride\": \"'64\""
	run "$RUNNER" report "$R" --format md
	[ "$status" -eq 0 ] || { echo "$output"; cat "$R/report.log"; false; }
	[ -s "$R/charts/syscall.png" ]
	[ -s "$R/charts/ram_access.png" ]
}

@test "report --format md: only the Markdown report and its PNG charts" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	run "$RUNNER" report "$R" --format md
	[ "$status" -eq 0 ]
	[ -s "$R/report.md" ]
	[ ! -e "$R/report.tex" ]
	[ ! -e "$R/report.pdf" ]
	if have gnuplot; then
		[ -s "$R/charts/syscall.png" ]
		[ ! -e "$R/charts/syscall.pdf" ]
		diff -u "$GOLDEN/report.md" "$R/report.md"
	fi
}

@test "report: rendering twice gives the same report.md" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	"$RUNNER" report "$R" --format md
	cp "$R/report.md" "$BATS_TEST_TMPDIR/first.md"
	"$RUNNER" report "$R" --format md
	# a real report (not two empty files), and the same one twice
	[ "$(head -1 "$R/report.md")" = "# Measurement report: testbox" ]
	grep -q '^## Summary$' "$R/report.md"
	cmp "$BATS_TEST_TMPDIR/first.md" "$R/report.md"
}

@test "report --templates: a user's report.md replaces the default, the rest stays" {
	R="$BATS_TEST_TMPDIR/run"
	U="$BATS_TEST_TMPDIR/tpl"
	copy_run "$R"
	mkdir -p "$U"
	printf '%s\n' '# {{run.host}}: {{n_experiments}} experiments' '{{#groups}}' \
		'{{#experiments}}' '- {{title}}: {{status}}' '{{/experiments}}' '{{/groups}}' >"$U/report.md"
	run "$RUNNER" report "$R" --format md,tex --templates "$U"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(head -1 "$R/report.md")" = "# testbox: 9 experiments" ]
	grep -qxF -- '- Context switch: partial' "$R/report.md"
	grep -qxF -- '- TCP round trip: skipped' "$R/report.md"
	grep -q '\\documentclass' "$R/report.tex"
}

@test "report: a broken template names template:line, exit 2" {
	R="$BATS_TEST_TMPDIR/run"
	U="$BATS_TEST_TMPDIR/tpl"
	copy_run "$R"
	mkdir -p "$U"
	printf '%s\n' '# {{run.host}}' '' '{{#groups}}' '## {{title}}' >"$U/report.md"
	run "$RUNNER" report "$R" --format md --templates "$U"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: template 'report.md':3: unclosed section 'groups'"* ]]
	printf '%s\n' '# {{run.hots}}' >"$U/report.md"
	run "$RUNNER" report "$R" --format md --templates "$U"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: template 'report.md':1: unknown name 'run.hots'"* ]]
}

@test "report: a run folder without a manifest is an error, exit 2" {
	run "$RUNNER" report "$BATS_TEST_TMPDIR/nothere"
	[ "$status" -eq 2 ]
	[[ "$output" == *"runner: run '$BATS_TEST_TMPDIR/nothere': $BATS_TEST_TMPDIR/nothere/manifest.json: No such file or directory"* ]]
}

# A run folder is untrusted input: each edit below once crashed a command,
# loaded a foreign shared object or read outside the folder (issue 15).
@test "an edited manifest is refused by report, rerun, resume, merge and compare with exit 2" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	cp "$R/manifest.json" "$BATS_TEST_TMPDIR/good.json"
	edit() {
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[1], 'w'))" "$R/manifest.json" "$1"
	}
	for change in 'd["options"]["set"] = [1]' \
		'd["experiments"][0]["name"] = "../../../../etc/passwd"' \
		'd["experiments"][0]["result"] = "../../../../etc/passwd"' \
		'd["experiments"][0]["probe"]["name"] = "/tmp/evil"' \
		'd["run_id"] = "../x"' 'd["experiments"] = {}' 'd["seed"] = "x"'; do
		cp "$BATS_TEST_TMPDIR/good.json" "$R/manifest.json"
		edit "$change"
		for cmd in "report $R --format md" "rerun $R" "resume $R" "merge $R $R" "compare $R $R"; do
			run timeout 60 "$RUNNER" $cmd
			echo "$change / $cmd: $status: $output"
			[ "$status" -eq 2 ]
			[[ "$output" == *"manifest.json: "* ]]
		done
	done
}

@test "report: without pdflatex, report.md and report.tex are written, a note says how to get the PDF, exit 0" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	P=$(path_with gnuplot)
	PATH="$P" run "$RUNNER" report "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"runner: note: pdflatex not found; install texlive-latex-base"* ]]
	[[ "$output" == *"make deps"* ]]
	[ -s "$R/report.md" ]
	[ -s "$R/report.tex" ]
	[ ! -e "$R/report.pdf" ]
}

@test "report: without gnuplot, the reports are written without pictures, exit 0" {
	R="$BATS_TEST_TMPDIR/run"
	copy_run "$R"
	P=$(path_with)
	PATH="$P" run "$RUNNER" report "$R" --format md,tex
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"runner: note: gnuplot not found; install gnuplot-nox (make deps)"* ]]
	[ -s "$R/charts/ram_access.gp" ]
	[ ! -e "$R/charts/ram_access.png" ]
	! grep -q '!\[' "$R/report.md" || false
	! grep -q 'sysmeterchart{' "$R/report.tex" || false
	# otherwise the same report as the golden one
	have gnuplot || return 0
	diff <(grep -v '^!\[' "$GOLDEN/report.md" | cat -s) <(cat -s "$R/report.md")
}

@test "report: the environment section says what each recorded fact does to the numbers" {
	cp -R "$FIXTURE" "$BATS_TEST_TMPDIR/env"
	python3 - "$BATS_TEST_TMPDIR/env/manifest.json" <<-'PY'
	import json, sys
	p = sys.argv[1]; d = json.load(open(p)); m = d["machine"]
	m.update(pti={"state": "on"}, pcid={"cpuid": False, "kernel": False}, clocksource="kvm-clock",
	         smt={"active": True}, load_avg=[1.6, 1.0, 0.5], cpus_online=2,
	         cmdline="BOOT_IMAGE=/vmlinuz root=/dev/vda1 pti=on clocksource=kvm-clock tsc=unstable quiet -- isolcpus=1")
	d["drift"] = {"canary": {"threshold": 0.1, "iterations": 1000}, "verdict": "drifted",
	              "spread": 1.8, "drifted_rounds": [0, 1], "flagged_points": 7}
	json.dump(d, open(p, "w"))
	PY
	run "$RUNNER" report --format md "$BATS_TEST_TMPDIR/env"
	[ "$status" -eq 0 ]
	sec=$(sed -n '/^### Can these numbers be trusted here?/,/^\*Measured\*/p' "$BATS_TEST_TMPDIR/env/report.md")
	echo "$sec"
	[[ "$sec" == *"**A virtual machine: kvm.** Other guests share"* ]]
	[[ "$sec" == *"**Kernel page-table isolation (PTI), without PCID.** Every kernel entry switches page tables and, without PCID, flushes the TLB"* ]]
	[[ "$sec" == *"**The kernel's clock is kvm-clock, not the TSC.**"* ]]
	[[ "$sec" == *"**Drift check: the host changed speed (the canary varied 1.80x).** 7 points"* ]]
	[[ "$sec" == *"**Load average 1.60 on 2 CPUs at the start.** Other work was running"* ]]
	[[ "$sec" == *"**SMT (hyperthreading) is on.**"* ]]
	# only the options that change measurements, and none of init's after --
	[[ "$sec" == *"**Kernel options: pti=on clocksource=kvm-clock tsc=unstable.**"* ]]
	[[ "$sec" != *"isolcpus"* ]]
	[[ "$sec" != *"BOOT\_IMAGE"* ]]
	# the machine table too: those options and how many there were; the whole line stays in the JSON
	grep -qxF '| Kernel command line | pti=on clocksource=kvm-clock tsc=unstable (3 of the kernel'"'"'s 6 options: those that change measurements; the whole line is in manifest.json) |' "$BATS_TEST_TMPDIR/env/report.md"
	! grep -q 'BOOT\\_IMAGE\|root=/dev/vda1' "$BATS_TEST_TMPDIR/env/report.md" || false
	[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["machine"]["cmdline"])' "$BATS_TEST_TMPDIR/env/manifest.json")" = "BOOT_IMAGE=/vmlinuz root=/dev/vda1 pti=on clocksource=kvm-clock tsc=unstable quiet -- isolcpus=1" ]
	# a fact not recorded gives no row: the fixture has no drift check
	[[ "$(sed -n '/^### Can these numbers/,/^\*Measured\*/p' "$FULL/report.md")" != *"Drift check"* ]]
}

@test "report: cycle columns count core cycles only where the core clock held over the run, else TSC ticks, and say which" {
	# the fixture: core clock 2.994 GHz that holds, TSC 2.596 GHz; syscall 60 ns
	grep -qx 'Cycle counts in this report are core cycles: time x the core clock measured on this machine (2.99 GHz), which held still over the run.' "$FULL/report.md"
	grep -q '^| 60.0 | 71.3 | .* | 213 |$' "$FULL/report.md"	# 71.2 ns x 2.994 GHz, one column
	grep -qx 'Values in ns; cycles: the measured value in cycles.' "$FULL/report.md"
	grep -q '^| Operation | Predicted | Measured | CI | Measured / predicted | Cycles |$' "$FULL/report.md"
	# the core clock moved between passes: TSC ticks, named as such
	cp -R "$FIXTURE" "$BATS_TEST_TMPDIR/moved"
	python3 - "$BATS_TEST_TMPDIR/moved/manifest.json" <<-'PY'
	import json, sys
	p = sys.argv[1]; d = json.load(open(p))
	d["drift"] = {"canary": {"threshold": 0.1, "iterations": 1000}, "verdict": "steady", "spread": 1.02,
	              "drifted_rounds": [], "core_clock": {"min_hz": 2.2e9, "max_hz": 3.0e9, "median_hz": 2.9e9,
	              "spread": 0.276, "iqr": 0.1, "takes": 6, "steady": False, "threshold": 0.05}}
	json.dump(d, open(p, "w"))
	PY
	run "$RUNNER" report --format md "$BATS_TEST_TMPDIR/moved"
	[ "$status" -eq 0 ]
	md="$BATS_TEST_TMPDIR/moved/report.md"
	grep -qx 'Counts in the ticks columns of this report are TSC ticks (time x the TSC.s 2.6 GHz), not core cycles: the core clock changed during the run.' "$md"
	grep -q '^| 60.0 | 71.3 | .* | 185 |$' "$md"	# 71.2 ns x 2.596 GHz
	grep -qx 'Values in ns; ticks: the measured value in ticks.' "$md"
	grep -q '^| Operation | Predicted | Measured | CI | Measured / predicted | TSC ticks |$' "$md"
	grep -q '(1.15x); between passes 2.2-3 GHz\.\*\* The core clock moved between passes of the run (the middle half of its takes spread 10 %)' "$md"
	# a core clock that did not hold when measured: ticks too
	cp -R "$FIXTURE" "$BATS_TEST_TMPDIR/loose"
	replace_in "$BATS_TEST_TMPDIR/loose/manifest.json" '"holds": true' '"holds": false'
	run "$RUNNER" report --format md "$BATS_TEST_TMPDIR/loose"
	[ "$status" -eq 0 ]
	grep -q '^| 60.0 | 71.3 | .* | 185 |$' "$BATS_TEST_TMPDIR/loose/report.md"
	grep -q 'not core cycles: the core clock did not hold still while it was measured\.$' "$BATS_TEST_TMPDIR/loose/report.md"
}

# Predictions as models (issue 23): a point's formulas are evaluated again
# by `runner report` from the run's machine facts, so two machines' facts
# (the Tiger Lake and Zen 3 of tests/fixtures/machine-facts/) give two
# predictions, each with its own numbers filled in, and a fact one machine
# lacks is named in the report rather than dropped.
predict_on() {	# DIR MACHINE-PYTHON
	copy_run "$1"
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	run, which = sys.argv[1], sys.argv[2]
	m = json.load(open(run + "/manifest.json"))
	mach = m["machine"]
	if which == "tigerlake":
	    mach["cpu"].update(vendor="GenuineIntel", family=6, model=140, microarchitecture="Willow Cove (Tiger Lake)")
	    mach["core_clock"].update(hz=4.7e9, holds=True)
	    mach["tsc_hz"] = 2.8e9
	    sizes = {1: 48 * 1024, 2: 1280 * 1024, 3: 12 * 1024 * 1024}
	    mach["memory_bus_bandwidth"] = 68.3e9
	    mach["memory_type"] = "LPDDR4x"
	    mach["memory_speed"] = 4266
	else:
	    mach["cpu"].update(vendor="AuthenticAMD", family=25, model=33, microarchitecture="Zen 3")
	    mach["core_clock"].update(hz=4.7e9, holds=False)
	    mach["tsc_hz"] = 3.8e9
	    sizes = {1: 32 * 1024, 2: 512 * 1024, 3: 32 * 1024 * 1024}
	for c in mach["caches"]:
	    if c["type"] != "Instruction":
	        c["size_bytes"] = sizes[c["level"]]
	json.dump(m, open(run + "/manifest.json", "w"))
	r = json.load(open(run + "/results/ram_access.json"))
	for p in r["points"]:
	    p["prediction"] = {"value": None, "hardware": None, "software": None, "machine": "*",
	                       "why": "an L1 hit and a page over the memory bus",
	                       "formula": {"value": None, "hardware": "l1_cycles / core_hz",
	                                   "software": "page_size / memory_bus_bandwidth"}}
	json.dump(r, open(run + "/results/ram_access.json", "w"))
	PY
	"$RUNNER" report "$1" --format md
}

@test "report: prediction formulas are filled in with each machine's facts (Tiger Lake, Zen 3)" {
	A="$BATS_TEST_TMPDIR/tgl" B="$BATS_TEST_TMPDIR/zen3"
	predict_on "$A" tigerlake
	predict_on "$B" zen3
	# Tiger Lake: 5 cycles (the table's Ice Lake / Tiger Lake row) at the core clock
	grep -F 'hardware: l1\_cycles / core\_hz → 5 cycles / 4.7 GHz = 1.06 ns' "$A/report.md"
	grep -F 'software: page\_size / memory\_bus\_bandwidth → 4KiB / 68.3 GB/s = 60.0 ns' "$A/report.md"
	grep -F 'l1\_cycles = 5 cycles (table: Ice Lake / Tiger Lake)' "$A/report.md"
	grep -F 'memory\_bus\_bandwidth = 68.3 GB/s (given: machine.memory\_bus\_bandwidth)' "$A/report.md"
	grep -F '| 1.06 ns | 60.0 ns | 61.0 ns |' "$A/report.md"
	# one model, listed once for all its points (each point's numbers are
	# in the table), not once per point
	n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['points']))" "$A/results/ram_access.json")
	[ "$n" -gt 3 ]
	[ "$(grep -c '^- every point: an L1 hit and a page over the memory bus$' "$A/report.md")" -eq 1 ]
	[ "$(grep -c '^  - hardware: l1\\_cycles' "$A/report.md")" -eq 1 ]
	[ "$(grep -c '^| size=' "$A/report.md")" -ge "$n" ]
	# Zen 3: 4 cycles; its core clock does not hold, so the TSC stands in
	grep -F 'hardware: l1\_cycles / core\_hz → 4 cycles / 3.8 GHz = 1.05 ns' "$B/report.md"
	grep -F "core\_hz = 3.8 GHz (the TSC frequency: the core clock did not hold)" "$B/report.md"
	# no memory bus given: the point says what it lacks, the table shows no total
	grep -F 'no prediction: missing memory\_bus\_bandwidth (give it with --machine FILE)' "$B/report.md"
	run grep -F 'memory\_bus\_bandwidth →' "$B/report.md"
	[ "$status" -ne 0 ]
	# and the prediction recorded in the results is the JSON's, not the report's: unchanged
	python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['points'][0]['prediction']; assert p['value'] is None" "$B/results/ram_access.json"
}
