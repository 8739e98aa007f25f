#!/usr/bin/env bats
# Descriptions are Markdown (issue 13): rendered by libcmark into the PDF
# (code, lists, paragraphs, emphasis), never compiled as LaTeX: raw HTML
# and a code block that tries to leave verbatim stay text.

load helpers

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	command -v pdftotext >/dev/null || skip "pdftotext (poppler-utils) is not installed"
	command -v latexmk >/dev/null || skip "latexmk is not installed"
}

@test "markdown: backticks, lists and paragraphs render in the PDF and the Markdown report" {
	cat >"$BATS_TEST_TMPDIR/md.yaml" <<-'YAML'
	probe: ok_fixed
	params: {noise: 0}
	repetitions: 3
	iterations: 100
	description: |
	  What is timed: one `pread()` call, *twice*.

	  - first item
	  - second item

	  A second paragraph with 50% & $5 and a_b.
	YAML
	run "$RUNNER" -q -o "$OUT" --run-id m "$BATS_TEST_TMPDIR/md.yaml"
	[ "$status" -eq 0 ]
	txt=$(pdftotext "$OUT/m/report.pdf" -)
	echo "$txt" | head -40
	# no backtick is left, nor the opening quote LaTeX makes of one in text
	! grep -q -e '`' -e '‘' <<<"$txt" || false
	grep -q 'What is timed: one pread() call, twice.' <<<"$txt"
	grep -q '• first item' <<<"$txt"
	grep -q 'A second paragraph with 50% & \$5 and a_b.' <<<"$txt"
	grep -q '^What is timed: one `pread()` call, \*twice\*\.$' "$OUT/m/report.md"
	grep -q '^  - first item$' "$OUT/m/report.md"
}

@test "markdown: raw HTML and a code block holding \\end{verbatim} stay text" {
	# The code block tries to leave verbatim and \input a file.  Not
	# /etc/passwd: pdflatex stops at its first "_" (Debian's _apt), so its
	# lines could never reach the PDF to be caught; this file, found through
	# TEXINPUTS, compiles cleanly: its word in the PDF means the \input ran.
	echo 'Leakedwordfromthesecretfile' >"$BATS_TEST_TMPDIR/sysmetersecret.tex"
	cat >"$BATS_TEST_TMPDIR/evil.yaml" <<-'YAML'
	probe: ok_fixed
	params: {noise: 0}
	repetitions: 3
	iterations: 100
	description: |
	  Inline <b onmouseover="x">html</b> and \input{/etc/hostname}.

	  ```
	  \end{verbatim}\input{sysmetersecret}\begin{verbatim}
	  ```
	YAML
	TEXINPUTS="$BATS_TEST_TMPDIR:" run "$RUNNER" -q -o "$OUT" --run-id e "$BATS_TEST_TMPDIR/evil.yaml"
	[ "$status" -eq 0 ]
	txt=$(pdftotext "$OUT/e/report.pdf" -)
	echo "$txt" | head -30
	grep -q 'Inline <b onmouseover="x">html</b> and \\input{/etc/hostname}.' <<<"$txt"
	! grep -q 'Leakedwordfromthesecretfile' <<<"$txt" || false
	grep -q 'input{sysmetersecret}' <<<"$txt"
	# in the Markdown report the tag is escaped text, the code block unchanged
	! grep -q '[^\\]<b onmouseover' "$OUT/e/report.md" || false
	grep -q 'Inline \\<b onmouseover="x"\\>html\\</b\\>' "$OUT/e/report.md"
	grep -q '^\\end{verbatim}\\input{sysmetersecret}\\begin{verbatim}$' "$OUT/e/report.md"
}

@test "discussion: the user's Markdown after the results, in both reports" {
	cat >"$BATS_TEST_TMPDIR/d.yaml" <<-'YAML'
	probe: ok_fixed
	params: {noise: 0}
	repetitions: 3
	iterations: 100
	description: The fixture.
	discussion: |
	  The figure is **exactly** the base, as `ok_fixed` promises.
	YAML
	run "$RUNNER" -q -o "$OUT" --run-id d "$BATS_TEST_TMPDIR/d.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/d/results/d.json" 'd["discussion"]')" = 'The figure is **exactly** the base, as `ok_fixed` promises.' ]
	md="$OUT/d/report.md"
	grep -q '^The figure is \*\*exactly\*\* the base, as `ok_fixed` promises.$' "$md"
	# after the results table
	[ "$(grep -n '^\*\*Discussion\.\*\*$' "$md" | cut -d: -f1)" -gt "$(grep -n '^| predicted | measured' "$md" | cut -d: -f1)" ]
	# a page may begin at the heading: pdftotext puts a form feed before it
	txt=$(pdftotext "$OUT/d/report.pdf" - | tr -d '\f')
	grep -q 'The figure is exactly the base, as ok_fixed promises.' <<<"$txt"
	grep -q '^Discussion\.' <<<"$txt"
}

@test "front matter: --title, --author, --course on the report (escaped), kept in the manifest, changed by runner report" {
	run "$RUNNER" -q -o "$OUT" --run-id f --title 'Lab 3: costs & $x_{y}$' \
		--author 'Ada L. <ada@x>, Alan T.' --course 'CS 481 #2, 50% done' tests/fixtures/specs/stats/fixed.yaml
	[ "$status" -eq 0 ]
	[ "$(head -1 "$OUT/f/report.md")" = '# Lab 3: costs & $x\_{y}$' ]
	grep -q '^Ada L\. \\<ada@x\\>, Alan T\.$' "$OUT/f/report.md"
	txt=$(pdftotext "$OUT/f/report.pdf" -)
	[ "$(head -3 <<<"$txt")" = 'Lab 3: costs & $x_{y}$
Ada L. <ada@x>, Alan T.
CS 481 #2, 50% done' ]
	[ "$(json "$OUT/f/manifest.json" 'd["report"]["course"]')" = 'CS 481 #2, 50% done' ]
	run "$RUNNER" report "$OUT/f" --title 'Final' --format md
	[ "$status" -eq 0 ]
	[ "$(head -1 "$OUT/f/report.md")" = '# Final' ]
	[ "$(json "$OUT/f/manifest.json" 'd["report"]["author"]')" = 'Ada L. <ada@x>, Alan T.' ]
	# without them: the host's report, by sysmeter
	run "$RUNNER" -q -o "$OUT" --run-id g tests/fixtures/specs/stats/fixed.yaml
	[[ "$(head -1 "$OUT/g/report.md")" == "# Measurement report: "* ]]
}
