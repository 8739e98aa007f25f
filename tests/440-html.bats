#!/usr/bin/env bats
# 440-html: report.html, the run's report as one offline page, written by
# the run beside report.md and report.pdf (and by `runner report`), with
# gnuplot's SVG charts.  The page is read as HTML (links, anchors, images,
# escaping) and loaded in a real headless Chromium through the DevTools
# protocol (tests/chromium_page.py): no console error, no dialog, no request
# outside the run folder, every chart drawn, a click in the contents lands
# on its section.  The run uses fixture probes only (gate, ok_fixed) and
# --quick: nothing of the machine is measured.

bats_require_minimum_version 1.5.0
load helpers

PAGE_TOOL="$BATS_TEST_DIRNAME/chromium_page.py"
XSS='<script>alert(1)</script>'

# The two specs of the run: one whose texts try to become HTML (title,
# description, a swept text value, a chart label), one plain in another
# group, so the contents have two groups.
write_specs() {
	mkdir -p "$1"
	cat >"$1/xss.yaml" <<-'EOF'
	title: "<script>alert(1)</script> & \"quotes\""
	group: fixtures
	probe: gate
	description: |
	  A fixture whose texts try to become HTML: <script>alert(3)</script>,
	  <img src=x onerror="alert(4)"> and a [link](javascript:alert(5)).
	params:
	  hold: ["<script>alert(2)</script>", "a&b\"c'd"]
	  base: [100, 200]
	chart: {xlabel: "<script>alert(6)</script>"}
	repetitions: 3
	warmup: 0
	rounds: 1
	EOF
	cat >"$1/fixed.yaml" <<-'EOF'
	title: Fixed values
	group: cpu
	probe: ok_fixed
	params:
	  base: [50, 100, 400]
	repetitions: 3
	warmup: 0
	min_sample_time: 1ms
	rounds: 2
	EOF
}

setup_file() {
	export RUN="$BATS_FILE_TMPDIR/out/h" SPECS="$BATS_FILE_TMPDIR/specs"
	write_specs "$SPECS"
	local rc=0
	"$RUNNER" --quick -q -o "$BATS_FILE_TMPDIR/out" --run-id h "$SPECS/xss.yaml" "$SPECS/fixed.yaml" \
		>"$BATS_FILE_TMPDIR/run.out" 2>"$BATS_FILE_TMPDIR/run.err" || rc=$?
	echo "$rc" >"$BATS_FILE_TMPDIR/run.rc"
	# the page in the browser, once: the browser tests below read its account
	export VISIT="$BATS_FILE_TMPDIR/visit"
	mkdir -p "$VISIT"
	if command -v chromium >/dev/null 2>&1 && [ -s "$RUN/report.html" ]; then
		rc=0
		python3 "$PAGE_TOOL" "$RUN/report.html" "$VISIT" >"$VISIT/facts.json" 2>"$VISIT/err" || rc=$?
		echo "$rc" >"$VISIT/rc"
	fi
}

# The page's links, ids, images and scripts as an HTML parser sees them
# (Python's html.parser, no browser): JSON.
html_facts() {
	python3 - "$1" <<-'EOF'
	import json, sys
	from html.parser import HTMLParser
	class P(HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.ids, self.dup, self.hrefs, self.imgs, self.scripts, self.external = [], [], [], [], 0, []
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if "id" in a:
	            (self.dup if a["id"] in self.ids else self.ids).append(a["id"])
	        if tag == "a" and a.get("href"):
	            self.hrefs.append(a["href"])
	        if tag == "img":
	            self.imgs.append(a.get("src"))
	        if tag == "script":
	            self.scripts += 1
	        for k in ("src", "href"):
	            v = a.get(k) or ""
	            if "//" in v or v.startswith("data:") or v.startswith("javascript:"):
	                self.external.append(v)
	p = P()
	p.feed(open(sys.argv[1], encoding="utf-8").read())
	print(json.dumps({"ids": p.ids, "dup": p.dup, "hrefs": p.hrefs, "imgs": p.imgs,
	                  "scripts": p.scripts, "external": p.external}))
	EOF
}

# The header rows of every table of a report, one line each, cells joined
# by "|": report.md's (Markdown escapes undone; the machine table's empty
# header left out) or report.html's (<thead>, entities undone).
table_heads() {
	python3 - "$1" <<-'EOF'
	import html, re, sys
	from html.parser import HTMLParser
	path = sys.argv[1]
	text = open(path, encoding="utf-8").read()
	if path.endswith(".md"):
	    lines = text.split("\n")
	    for i, l in enumerate(lines[:-1]):
	        if l.startswith("|") and re.match(r"^(\|-*:?-+:?)+\|$", lines[i + 1]):
	            cells = [re.sub(r"\\(.)", r"\1", c).strip() for c in l.strip("|").split(" |")]
	            if any(cells):
	                print("|".join(cells))
	else:
	    class P(HTMLParser):
	        row, cell, inhead = None, None, False
	        def handle_starttag(self, tag, a):
	            if tag == "thead": self.inhead = True
	            if tag == "tr" and self.inhead: self.row = []
	            if tag == "th" and self.row is not None: self.cell = ""
	        def handle_endtag(self, tag):
	            if tag == "th" and self.cell is not None:
	                self.row.append(self.cell.strip()); self.cell = None
	            if tag == "tr" and self.row is not None:
	                print("|".join(self.row)); self.row = None
	            if tag == "thead": self.inhead = False
	        def handle_data(self, d):
	            if self.cell is not None: self.cell += d
	    P(convert_charrefs=True).feed(text)
	EOF
}

# Skip, with the reason, where Chromium is not installed or cannot start
# here (no /dev/shm, no user namespace, ...).
need_browser() {
	command -v chromium >/dev/null 2>&1 ||
		skip "chromium not installed (tools/deps.sh --test-only installs it)"
	[ -f "$VISIT/rc" ] || { echo "the page was not visited: no report.html"; return 1; }
	if [ "$(cat "$VISIT/rc")" -eq 77 ]; then
		skip "$(cat "$VISIT/err")"
	fi
	[ "$(cat "$VISIT/rc")" -eq 0 ] || { cat "$VISIT/err"; return 1; }
}

facts() {
	json "$VISIT/facts.json" "$1"
}

@test "html: the run writes report.html beside report.md, with an SVG chart per experiment" {
	[ "$(cat "$BATS_FILE_TMPDIR/run.rc")" -eq 0 ] || { cat "$BATS_FILE_TMPDIR/run.err"; false; }
	[ -s "$RUN/report.md" ]
	[ -s "$RUN/report.html" ]
	head -1 "$RUN/report.html" | grep -qx '<!DOCTYPE html>'
	[ "$(tail -1 "$RUN/report.html")" = '</html>' ]
	# the same sections as report.md: its headings, in its order
	md=$(grep -E '^#{2,3} ' "$RUN/report.md" | sed -E 's/^#+ //' | tr '\n' '/')
	html=$(grep -oE '<h[23] id="[^"]*">[^<]*' "$RUN/report.html" | sed -E 's/.*>//; s/ $//' |
		python3 -c 'import html, sys; print(html.unescape(sys.stdin.read()), end="")' | tr '\n' '/')
	md=$(python3 -c 'import sys; print(sys.argv[1].replace("\\", ""), end="")' "$md")
	[ "$html" = "Contents/$md" ] || { echo "html: $html"; echo "md:   Contents/$md"; false; }
	have_gnuplot=$(command -v gnuplot || true)
	[ -n "$have_gnuplot" ] || skip "gnuplot not installed: no charts to check"
	for e in xss fixed; do
		[ -s "$RUN/charts/$e.svg" ]
		head -c 200 "$RUN/charts/$e.svg" | grep -q '<svg'
	done
	# every <img> is a chart of this folder that exists
	imgs=$(html_facts "$RUN/report.html" | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["imgs"]))')
	[ "$(echo "$imgs" | sort | tr '\n' ' ')" = "charts/fixed.svg charts/xss.svg " ]
	while read -r src; do
		[ -s "$RUN/$src" ] || { echo "no $src"; false; }
	done <<<"$imgs"
}

@test "html: the same tables as report.md, with the same columns (a run folder with every kind of table)" {
	R="$BATS_TEST_TMPDIR/basic"
	cp -R "$BATS_TEST_DIRNAME/fixtures/runs/basic" "$R"
	run "$RUNNER" report "$R" --format md,html
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	table_heads "$R/report.md" >"$BATS_TEST_TMPDIR/md.heads"
	table_heads "$R/report.html" >"$BATS_TEST_TMPDIR/html.heads"
	# the fixture has points, secondary values, predictions, cache levels
	# and the summary
	grep -q '^kind|round_trip_ns (ns)|' "$BATS_TEST_TMPDIR/md.heads"
	grep -q '^point|predicted hardware|' "$BATS_TEST_TMPDIR/md.heads"
	grep -q '^series|level|size found|' "$BATS_TEST_TMPDIR/md.heads"
	grep -q '^Operation|Predicted|Measured|CI|' "$BATS_TEST_TMPDIR/md.heads"
	diff -u "$BATS_TEST_TMPDIR/md.heads" "$BATS_TEST_TMPDIR/html.heads"
	# two rounds (not --quick, which keeps one) give the rerun and rounds
	# columns; ok_fixed's values are made up, nothing is measured
	"$RUNNER" -q -o "$BATS_TEST_TMPDIR/out" --run-id two "$SPECS/fixed.yaml" >/dev/null
	table_heads "$BATS_TEST_TMPDIR/out/two/report.md" >"$BATS_TEST_TMPDIR/md.heads"
	table_heads "$BATS_TEST_TMPDIR/out/two/report.html" >"$BATS_TEST_TMPDIR/html.heads"
	grep -q '^base|predicted|measured|mean|median|std|CI|rerun|n|outliers|rounds (CV)|' "$BATS_TEST_TMPDIR/md.heads"
	diff -u "$BATS_TEST_TMPDIR/md.heads" "$BATS_TEST_TMPDIR/html.heads"
}

@test "html: every internal link has its anchor, the contents link every experiment, nothing is fetched from elsewhere" {
	f=$(html_facts "$RUN/report.html")
	q() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$f"; }
	[ "$(q "$f" 'd["dup"]')" = "[]" ]
	[ "$(q "$f" '[h for h in d["hrefs"] if h.startswith("#") and h[1:] not in d["ids"]]')" = "[]" ]
	[ "$(q "$f" 'len([h for h in d["hrefs"] if h.startswith("#")]) > 5')" = True ]
	for a in exp-xss exp-fixed group-cpu group-fixtures machine summary; do
		grep -q "<a href=\"#$a\">" "$RUN/report.html" || { echo "no link to #$a"; false; }
		grep -q " id=\"$a\"" "$RUN/report.html" || { echo "no id $a"; false; }
	done
	# offline: no script, no URL with a host, no data: or javascript: target
	[ "$(q "$f" 'd["scripts"]')" = 0 ]
	[ "$(q "$f" 'd["external"]')" = "[]" ]
}

@test "html: a spec's <script> is text: title, description, parameter value, chart label" {
	p="$RUN/report.html"
	! grep -qi '<script' "$p" || { grep -ni '<script' "$p"; false; }
	! grep -qi 'javascript:' "$p" || false
	! grep -qi '<img src=x' "$p" || false
	grep -qF '<h3 id="exp-xss">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; ' "$p"
	grep -qF '<td>&lt;script&gt;alert(2)&lt;/script&gt;</td>' "$p"
	grep -qF '<td>a&amp;b&quot;c&#39;d</td>' "$p"
	grep -qF '&lt;script&gt;alert(3)&lt;/script&gt;' "$p"
	grep -qF '&lt;img src=x onerror=&quot;alert(4)&quot;&gt;' "$p"
	if command -v gnuplot >/dev/null 2>&1; then
		# gnuplot writes text into the SVG as XML text
		! grep -qi '<script' "$RUN"/charts/*.svg || false
		python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "$RUN"/charts/*.svg
	fi
}

@test "html in chromium: loads with no console error, no dialog, nothing fetched outside the run folder" {
	need_browser
	[ "$(facts 'd["console"]')" = "[]" ]
	[ "$(facts 'd["dialogs"]')" = "[]" ]
	[ "$(facts 'd["failed"]')" = "[]" ]
	[ "$(facts 'd["scripts"]')" = 0 ]
	[ "$(facts 'd["requests"][0].endswith("/report.html")')" = true ]
	[ "$(facts 'len(d["requests"])')" -ge 3 ]	# the page and its two charts
	[ "$(facts 'd["outside"]')" = "[]" ]
	# the title shows as text
	facts 'd["text"]' | grep -qF "$XSS & \"quotes\""
	facts 'd["text"]' | grep -qF "<script>alert(2)</script>"
}

@test "html in chromium: every chart is drawn, and the screenshot shows the page and a chart" {
	need_browser
	command -v gnuplot >/dev/null 2>&1 || skip "gnuplot not installed: no charts"
	[ "$(facts 'len(d["images"])')" -eq 2 ]
	[ "$(facts '[i["src"] for i in d["images"] if not (i["complete"] and i["natural_width"] > 100 and i["natural_height"] > 100)]')" = "[]" ]
	[ -s "$VISIT/page.png" ] && [ -s "$VISIT/chart.png" ]
	[ "$(head -c 8 "$VISIT/page.png" | od -An -c | tr -d ' \n')" = "211PNG\r\n032\n" ]
	# not blank: text, tables and a chart make many colours; a chart's
	# picture has its lines and bars, not one background colour
	[ "$(facts 'd["page_png"]["width"]')" -eq 1280 ]
	[ "$(facts 'd["page_png"]["colours"]')" -gt 20 ]
	[ "$(facts 'd["chart_png"]["colours"]')" -gt 8 ]
}

@test "html in chromium: every link in the page has its target, and a click in the contents lands on it" {
	need_browser
	[ "$(facts 'd["missing_ids"]')" = "[]" ]
	[ "$(facts 'd["duplicate_ids"]')" = "[]" ]
	[ "$(facts 'len(d["hrefs"]) > 5')" = true ]
	[ "$(facts 'd["click"]["href"]')" = "#exp-xss" ]
	[ "$(facts 'd["click"]["hash"]')" = "#exp-xss" ]
	# scrolled to its section: the heading at the top of the window
	[ "$(facts '0 <= d["click"]["top"] <= 40')" = true ]
}

@test "runner merge writes report.html too, saying it is merged, each experiment with its run" {
	"$RUNNER" --quick -q --no-report -o "$BATS_TEST_TMPDIR/out" --run-id later "$SPECS/fixed.yaml" >/dev/null
	run "$RUNNER" merge -q -o "$BATS_TEST_TMPDIR/out" --run-id m "$RUN" "$BATS_TEST_TMPDIR/out/later"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	p="$BATS_TEST_TMPDIR/out/m/report.html"
	[ -s "$p" ]
	grep -qF '<strong>Merged report</strong>' "$p"
	grep -qF '<p class="from">From run later, ' "$p"
	grep -qF '<p class="from">From run h, ' "$p"
	grep -qF '<a href="#exp-xss">' "$p"
	grep -qF '<a href="#exp-fixed">' "$p"
}

@test "report --format html: only report.html and the SVG charts; a bad format names html" {
	R="$BATS_TEST_TMPDIR/r"
	cp -R "$RUN" "$R"
	rm -rf "$R/report."* "$R/charts"
	run "$RUNNER" report "$R" --format html
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -s "$R/report.html" ]
	[ ! -e "$R/report.md" ] && [ ! -e "$R/report.tex" ] && [ ! -e "$R/report.pdf" ]
	if command -v gnuplot >/dev/null 2>&1; then
		[ -s "$R/charts/xss.svg" ]
		[ ! -e "$R/charts/xss.png" ] && [ ! -e "$R/charts/xss.pdf" ]
	fi
	run "$RUNNER" report "$R" --format md,htm
	[ "$status" -eq 2 ]
	[ "$output" = "runner: --format 'md,htm': expected a list of md, tex, pdf, html" ]
}

@test "report.html that cannot be written is an error (exit 3), and nothing half written stays" {
	R="$BATS_TEST_TMPDIR/r"
	cp -R "$RUN" "$R"
	rm -f "$R/report.html"
	mkdir "$R/report.html"	# the rename onto it fails
	run "$RUNNER" report "$R" --format html
	[ "$status" -eq 3 ]
	[[ "$output" == "runner: run '$R': cannot write report.html: "* ]]
	[ -d "$R/report.html" ]
	[ -z "$(find "$R" -maxdepth 1 -name 'report.html?*')" ]
}

@test "report --templates: a user's report.html replaces the default, escaped all the same" {
	R="$BATS_TEST_TMPDIR/r" U="$BATS_TEST_TMPDIR/tpl"
	cp -R "$RUN" "$R"
	mkdir "$U"
	printf '<h1>{{run.title}}</h1>\n{{#experiments}}<p id="{{anchor}}">{{title}}</p>\n{{/experiments}}' \
		>"$U/report.html"
	run "$RUNNER" report "$R" --format html --templates "$U"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qxF '<p id="exp-xss">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;</p>' "$R/report.html"
	grep -qxF '<p id="exp-fixed">Fixed values</p>' "$R/report.html"
}
