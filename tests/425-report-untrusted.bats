#!/usr/bin/env bats
# 425-report-untrusted: a run folder, and the store, may hold anyone's text.
# A description's images are never embedded nor loaded and its links keep
# only http:, https: and mailto: targets, in report.md, report.tex/pdf and
# report.html alike; report.html has a Content-Security-Policy; a very long
# parameter value still gives a PDF; LaTeX's scratch folder .report-tex/
# goes whatever happens; `runner history` shows a store's host and kernel
# escaped, one line a run.  Fixture probes only: nothing is measured.

bats_require_minimum_version 1.5.0
load helpers

PAGE_TOOL="$BATS_TEST_DIRNAME/chromium_page.py"

have() { command -v "$1" >/dev/null 2>&1; }

need_pdf() {
	have latexmk || have pdflatex || skip "no TeX installation"
	have pdftotext || skip "pdftotext (poppler-utils) is not installed"
}

# A 4x4 red PNG at $1 (a picture pdflatex would embed if it were asked to).
write_png() {
	python3 - "$1" <<-'EOF'
	import struct, sys, zlib
	def chunk(t, d):
	    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
	raw = b"".join(b"\0" + b"\xff\0\0" * 4 for _ in range(4))
	png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
	       chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
	open(sys.argv[1], "wb").write(png)
	EOF
}

# The spec whose description holds a local image, a remote image, a
# javascript: link, a file: link, a relative link, an https link and a
# mailto: link.
write_images_spec() {
	cat >"$1" <<-EOF
	probe: ok_fixed
	params: {noise: 0}
	repetitions: 3
	iterations: 100
	description: |
	  A local ![localalt]($2) picture and a remote
	  ![remotealt](http://127.0.0.1:9/remote.png) one, a [jslink](javascript:alert(1)),
	  a [filelink](file:///etc/passwd), a [rellink](../../x.md),
	  a [weblink](https://example.org/a_b?x=1&y=2#frag) and [maillink](mailto:a@example.org).
	EOF
}

# The images, links and scripts of an HTML page (Python's parser): JSON.
html_facts() {
	python3 - "$1" <<-'EOF'
	import json, sys
	from html.parser import HTMLParser
	class P(HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.imgs, self.hrefs, self.scripts, self.csp = [], [], 0, []
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if tag == "img":
	            self.imgs.append(a.get("src"))
	        if tag == "a" and a.get("href") is not None:
	            self.hrefs.append(a["href"])
	        if tag == "script":
	            self.scripts += 1
	        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
	            self.csp.append(a.get("content"))
	p = P()
	p.feed(open(sys.argv[1], encoding="utf-8").read())
	print(json.dumps({"imgs": p.imgs, "hrefs": p.hrefs, "scripts": p.scripts, "csp": p.csp}))
	EOF
}

# Every check of the three reports of run folder $1 (pictures at $2).
check_reports() {
	local r=$1 png=$2 f
	# Markdown: the pictures as text, no image syntax, no other link target
	! grep -F '![' "$r/report.md" | grep -v '^!\[[a-z]*\](charts/[a-z]*\.png)$' || false
	grep -qF "localalt (image: $png)" "$r/report.md"
	grep -qF 'remotealt (image: http://127.0.0.1:9/remote.png)' "$r/report.md"
	! grep -E 'javascript:|file:|\]\(\.\./' "$r/report.md" || false
	grep -qF '[weblink](https://example.org/a_b?x=1&y=2#frag)' "$r/report.md"
	# LaTeX: no picture but the charts, no file path, links only to the web
	! grep -n 'includegraphics' "$r/report.tex" | grep -v 'sysmeterchart\|newcommand' || false
	! grep -F "$png}" "$r/report.tex" || false
	! grep -E '\\(href|url)\{(javascript|file|\.\./)' "$r/report.tex" || false
	grep -qF '\href{https://example.org/a\_b?x=1\&y=2\#frag}{weblink}' "$r/report.tex" ||
		grep -qF '\href{https://example.org/a_b?x=1\&y=2\#frag}{weblink}' "$r/report.tex"
	grep -qF '\href{mailto:a@example.org}{maillink}' "$r/report.tex"
	# HTML: only the charts are pictures, no link but the web and the page's own
	f=$(html_facts "$r/report.html")
	q() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$f"; }
	[ "$(q "$f" '[i for i in d["imgs"] if not i.startswith("charts/")]')" = "[]" ]
	[ "$(q "$f" '[h for h in d["hrefs"] if not (h.startswith("#") or h.startswith("https://") or h.startswith("mailto:"))]')" = "[]" ]
	[ "$(q "$f" '"https://example.org/a_b?x=1&y=2#frag" in d["hrefs"]')" = True ]
	[ "$(q "$f" 'd["scripts"]')" = 0 ]
	grep -qF 'localalt (image: '"$png"')' "$r/report.html"
	grep -qF 'remotealt (image: http://127.0.0.1:9/remote.png)' "$r/report.html"
	! grep -Ei 'javascript:|file:' "$r/report.html" || false
	# the page's policy: nothing loads but its own pictures and inline CSS
	[ "$(q "$f" 'd["csp"]')" = "[\"default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\"]" ]
	# the PDF: built, no raster picture (the charts are vector), the alt texts
	if [ -n "$WITH_PDF" ]; then
		[ -s "$r/report.pdf" ]
		[ ! -e "$r/.report-tex" ]
		if have pdfimages; then
			[ "$(pdfimages -list "$r/report.pdf" | tail -n +3 | wc -l)" -eq 0 ]
		fi
		txt=$(pdftotext "$r/report.pdf" - | tr '\n' ' ')
		[[ "$txt" == *"localalt (image: $png)"* ]] || { echo "$txt"; false; }
		[[ "$txt" == *"remotealt (image: http://127.0.0.1:9/remote.png)"* ]]
		[[ "$txt" == *"jslink, a filelink, a rellink, a weblink and maillink."* ]]
	fi
}

@test "description: images are text and links keep http(s)/mailto targets only, in md, tex/pdf and html; the PDF is built" {
	need_pdf
	png="$BATS_TEST_TMPDIR/local.png"
	write_png "$png"
	write_images_spec "$BATS_TEST_TMPDIR/img.yaml" "$png"
	run "$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id i "$BATS_TEST_TMPDIR/img.yaml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	WITH_PDF=1 check_reports "$BATS_TEST_TMPDIR/out/i" "$png"
	# `runner report` of the folder (as of one from elsewhere): the same
	rm -f "$BATS_TEST_TMPDIR/out/i/report."*
	run "$RUNNER" report "$BATS_TEST_TMPDIR/out/i"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	WITH_PDF=1 check_reports "$BATS_TEST_TMPDIR/out/i" "$png"
}

@test "description: without TeX the Markdown and HTML follow the same rule" {
	png="$BATS_TEST_TMPDIR/local.png"
	write_png "$png"
	write_images_spec "$BATS_TEST_TMPDIR/img.yaml" "$png"
	run "$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id i --no-report "$BATS_TEST_TMPDIR/img.yaml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$RUNNER" report "$BATS_TEST_TMPDIR/out/i" --format md,tex,html
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	WITH_PDF= check_reports "$BATS_TEST_TMPDIR/out/i" "$png"
}

@test "description: a character pdflatex cannot typeset (an emoji) is '?' in the PDF, which is built" {
	need_pdf
	cat >"$BATS_TEST_TMPDIR/u.yaml" <<-'EOF'
	probe: ok_fixed
	params: {noise: 0}
	repetitions: 3
	iterations: 100
	description: |
	  An emoji 😀, an arrow →, µs and é.

	      code 😀 é
	EOF
	run "$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id u "$BATS_TEST_TMPDIR/u.yaml"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	txt=$(pdftotext "$BATS_TEST_TMPDIR/out/u/report.pdf" -)
	grep -qF 'An emoji ?, an arrow →, µs and é.' <<<"$txt"
	grep -qF 'code ? é' <<<"$txt"
	# the Markdown report keeps the text as written
	grep -qF 'An emoji 😀, an arrow →, µs and é.' "$BATS_TEST_TMPDIR/out/u/report.md"
}

@test "html in chromium: the page's policy stops a remote picture a template or a slip would add" {
	have chromium || skip "chromium not installed (tools/deps.sh --test-only installs it)"
	write_images_spec "$BATS_TEST_TMPDIR/img.yaml" /nonexistent.png
	"$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id c --no-report "$BATS_TEST_TMPDIR/img.yaml"
	"$RUNNER" report "$BATS_TEST_TMPDIR/out/c" --format html
	p="$BATS_TEST_TMPDIR/out/c/report.html"
	# what an unescaped template value would let in: a remote picture
	sed -i 's|<body>|<body><img src="http://127.0.0.1:9/tracker.png" alt="t">|' "$p"
	grep -qF 'tracker.png' "$p"
	rc=0
	python3 "$PAGE_TOOL" "$p" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/facts.json" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	[ "$rc" -ne 77 ] || skip "$(cat "$BATS_TEST_TMPDIR/err")"
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	f="$BATS_TEST_TMPDIR/facts.json"
	# blocked by the policy before it left the browser: the only complaint
	# is the policy's, and the charts of the folder still load
	json "$f" 'd["requests"], d["failed"], d["console"]'
	[ "$(json "$f" 'len(d["console"])')" -eq 1 ]
	json "$f" 'd["console"][0]' | grep -q "tracker.png' violates the following Content Security Policy directive: \"img-src 'self'\". The action has been blocked"
	[ "$(json "$f" '[i["src"] for i in d["images"] if i["complete"] and i["natural_width"] > 0]')" != "[]" ] ||
		! have gnuplot || false
}

@test "a 5000-character parameter value: a PDF, the value cut with … in the table, whole in the JSON and report.md" {
	need_pdf
	long="/nonexistent/$(printf 'x%.0s' $(seq 5000))/END"
	cat >"$BATS_TEST_TMPDIR/long.yaml" <<-'EOF'
	probe: gate
	params: {noise: 0}
	repetitions: 3
	warmup: 0
	rounds: 1
	EOF
	run "$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id l --set "long.params.hold=[short, $long]" \
		"$BATS_TEST_TMPDIR/long.yaml"
	[ "$status" -eq 0 ] || { echo "${output:0:2000}"; false; }
	R="$BATS_TEST_TMPDIR/out/l"
	[ -s "$R/report.pdf" ]
	[ ! -e "$R/.report-tex" ]
	# whole where nothing must wrap
	[ "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(sorted(p["params"]["hold"] for p in d["points"]) == sorted(["short", sys.argv[2]]))' \
		"$R/results/long.json" "$long")" = True ]
	grep -qF "| $long |" "$R/report.md"
	# the table's cell: its first 42 characters and its last 21, … between
	# them (the break points TeX may use set aside: an l column ignores them)
	sed 's/\\hskip0pt plus1fil\\penalty1000\\hskip0pt plus-1fil\\relax{}//g' "$R/report.tex" \
		>"$BATS_TEST_TMPDIR/plain.tex"
	grep -qF "${long:0:42}\dots{}${long: -21} &" "$BATS_TEST_TMPDIR/plain.tex" ||
		{ grep -n 'dots{}' "$BATS_TEST_TMPDIR/plain.tex" | cut -c1-200; false; }
	txt=$(pdftotext "$R/report.pdf" -)
	grep -qF "${long:0:42}" <<<"$txt"
	grep -qF "${long: -21}" <<<"$txt"
	# nothing runs off the page
	run awk '/Overfull \\hbox \(/ { w = $3; sub(/\(/, "", w); sub(/pt/, "", w); if (w + 0 > 1) print }' "$R/report.log"
	[ -z "$output" ] || { echo "$output"; false; }
}

@test ".report-tex/ is removed when LaTeX fails" {
	need_pdf
	"$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id t --no-report tests/fixtures/specs/stats/fixed.yaml
	R="$BATS_TEST_TMPDIR/out/t"
	U="$BATS_TEST_TMPDIR/tpl"
	mkdir "$U"
	printf '\\documentclass{article}\n\\begin{document}\n\\undefinedcommandofatest\n\\end{document}\n' \
		>"$U/report.tex"
	run "$RUNNER" report "$R" --templates "$U"
	[ "$status" -eq 2 ]
	[[ "$output" == *"report.tex:3: Undefined control sequence (see $R/report.log)"* ]] || { echo "$output"; false; }
	[ ! -e "$R/.report-tex" ]
	[ ! -e "$R/report.pdf" ]
}

@test "a .report-tex in a run folder that is a symbolic link is not followed, nor what it points at emptied" {
	need_pdf
	"$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id t --no-report tests/fixtures/specs/stats/fixed.yaml
	R="$BATS_TEST_TMPDIR/out/t"
	# a run folder from elsewhere whose .report-tex points at the user's files
	mkdir "$BATS_TEST_TMPDIR/victim"
	echo keep >"$BATS_TEST_TMPDIR/victim/precious.txt"
	ln -s "$BATS_TEST_TMPDIR/victim" "$R/.report-tex"
	run "$RUNNER" report "$R"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -s "$R/report.pdf" ]
	[ ! -e "$R/.report-tex" ] && [ ! -L "$R/.report-tex" ]
	[ "$(ls "$BATS_TEST_TMPDIR/victim")" = precious.txt ]
}

@test "history: a stored host and kernel with ESC, a newline and U+202E are shown escaped, one line a run" {
	OUT="$BATS_TEST_TMPDIR/out"
	cat >"$BATS_TEST_TMPDIR/fx.yaml" <<-'EOF'
	probe: ok_fixed
	params: {base: 100}
	repetitions: 3
	rounds: 2
	EOF
	"$RUNNER" "$BATS_TEST_TMPDIR/fx.yaml" -o "$OUT" --run-id r1 --no-report --no-store -q >/dev/null
	python3 - "$OUT/r1/manifest.json" <<-'EOF'
	import json, sys
	m = json.load(open(sys.argv[1]))
	m["machine"]["hostname"] = "evil\x1b[31mred\nline\u202egnp.exe"
	m["machine"]["kernel"] = "6.1\x1b]0;title\x07\r\u2066k"
	json.dump(m, open(sys.argv[1], "w"))
	EOF
	run "$RUNNER" store import --store "$BATS_TEST_TMPDIR/s.db" "$OUT/r1"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run --separate-stderr "$RUNNER" history fx --store "$BATS_TEST_TMPDIR/s.db"
	[ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
	# no ESC, BEL, CR, no bidi control reaches the terminal: printable text
	# and newlines only
	python3 - "$output$stderr" <<-'EOF'
	import sys, unicodedata
	bad = [hex(ord(c)) for c in sys.argv[1] if c != "\n" and (unicodedata.category(c) == "Cc" or
	       "\u202a" <= c <= "\u202e" or "\u2066" <= c <= "\u2069" or c in "\u200e\u200f\u061c")]
	sys.exit("raw on the terminal: %s" % bad if bad else 0)
	EOF
	# the run's row is one line, with the values escaped
	row=$(grep '^  r1 ' <<<"$output")
	[[ "$row" == *'evil\x1b[31mred\x0aline\u202egnp.exe'* ]] || { echo "$output"; false; }
	[[ "$row" == *'6.1\x1b]0;title\x07\x0d\u2066k'* ]]
	[[ "$row" =~ \[[0-9.]+,\ [0-9.]+\] ]]
	[ "$(grep -c '^  line' <<<"$output")" -eq 0 ]
}
