#!/bin/sh
# check-layout.sh - the runner's include rule (docs/architecture.md).
#
# runner/ is one folder per pipeline stage.  A file may include:
#   - headers of its own folder;
#   - the ABI headers at the top (probe.h, probe_time.h, probe_barrier.h, probe_wire.h) and any lib/ header;
#   - the ONE public header (<stage>/<stage>.h) of an EARLIER stage.
# Stage order: lib spec plan machine stats exec results report store serve engine models cli main.c
# (main.c is last and may include any public header).  The report reads the
# run's files and nothing else, so of the stages it includes results/ only.
# Modules (a .c with its .h) must not include each other in a cycle.  Prints every violation as FILE:LINE: what, and
# exits 1 when there is one.
#
# Usage: tools/check-layout.sh [RUNNER_DIR]   (default: runner/ of this tree)
set -u
root=${1:-$(dirname "$0")/../runner}
[ -d "$root" ] || { echo "check-layout: '$root': no such folder" >&2; exit 2; }
cd "$root" || exit 2

STAGES="lib spec plan machine stats exec results report store serve engine models cli"
# Stages that may include fewer earlier stages than the order allows:
# "stage:allowed,allowed" (lib/ is always allowed).
ONLY="report:results"
# Headers public besides <stage>/<stage>.h, until their owners finish:
# exec/loader.h is being reworked with the probe ABI (issue 8 §2).
EXTRA_PUBLIC="exec/loader.h"

files=$(find . -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "check-layout: no sources under '$root'" >&2; exit 2; }

# FILE LINE HEADER for every #include "..." (system includes are not ours).
for f in $files; do
	awk -v f="$f" '/^[ \t]*#[ \t]*include[ \t]*"/ {
		h = $0; sub(/^[^"]*"/, "", h); sub(/".*$/, "", h); print f, FNR, h }' "$f"
done > "${TMPDIR:-/tmp}/check-layout.$$"
trap 'rm -f "${TMPDIR:-/tmp}/check-layout.$$"' EXIT

bad=0
awk -v stages="$STAGES" -v extra="$EXTRA_PUBLIC" -v only="$ONLY" '
BEGIN {
	m = split(only, o, " ")
	for (i = 1; i <= m; i++) {
		split(o[i], kv, ":")
		limited[kv[1]] = "," kv[2] ","
	}
	n = split(stages, s, " ")
	for (i = 1; i <= n; i++)
		rank[s[i]] = i
	rank["main.c"] = n + 1
	split(extra, e, " ")
	for (i in e)
		public[e[i]] = 1
	top["probe.h"] = 1
	top["probe_time.h"] = 1
	top["probe_barrier.h"] = 1
	top["probe_wire.h"] = 1
}
function folder(p) { return p ~ /\// ? substr(p, 1, index(p, "/") - 1) : p }
{
	file = $1; line = $2; hdr = $3
	from = folder(file); to = folder(hdr)
	if (hdr in top)
		next
	if (!(hdr ~ /\//)) {
		printf "%s:%s: includes \"%s\": name the folder (\"%s/%s\")\n", file, line, hdr, from, hdr
		bad = 1
		next
	}
	if (!(to in rank) || to == "main.c") {
		printf "%s:%s: includes \"%s\": \"%s\" is not a stage\n", file, line, hdr, to
		bad = 1
		next
	}
	if (from != "main.c" && !(from in rank)) {
		printf "%s: is in \"%s\", which is not a stage (%s)\n", file, from, stages
		bad = 1
		next
	}
	if (to == from || to == "lib")
		next
	if (rank[to] > rank[from]) {
		printf "%s:%s: includes \"%s\": %s is a later stage than %s\n", file, line, hdr, to, from
		bad = 1
	} else if ((from in limited) && index(limited[from], "," to ",") == 0) {
		printf "%s:%s: includes \"%s\": %s may include only %s (and lib)\n", file, line, hdr,
		       from, substr(limited[from], 2, length(limited[from]) - 2)
		bad = 1
	}
	if (hdr != to "/" to ".h" && !(hdr in public)) {
		printf "%s:%s: includes \"%s\": private to %s/ (its public header is %s/%s.h)\n",
		       file, line, hdr, to, to, to
		bad = 1
	}
}
END { exit bad }' "${TMPDIR:-/tmp}/check-layout.$$" || bad=1

# Cycles, inside a folder as well as between folders: headers that include
# each other, and source files that call each other.  File A calls file B
# when A names a function that B defines and exports (a definition starts a
# line: "int spec_load(", never "static").  A header that only shares a
# struct makes no such tie; run.c -> resume.c -> rerun.c -> run.c, each
# calling the next, does.  tsort reports a loop in either set of pairs.
t="${TMPDIR:-/tmp}/check-layout.$$"
for f in $files; do
	case $f in *.c) ;; *) continue ;; esac
	awk -v f="$f" '/^[A-Za-z_][A-Za-z0-9_ \t\*]*[ \t\*][A-Za-z_][A-Za-z0-9_]*\(/ &&
		!/^(static|extern|typedef|return)[ \t]/ && !/;[ \t]*$/ {
		s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ \t\*]+/); print "D", w[n], f }' "$f"
	# the names it uses, outside comments and strings
	awk '{ line = $0; out = ""
	       while (line != "") {
		       if (incom) { i = index(line, "*/"); if (!i) break
				    line = substr(line, i + 2); incom = 0; continue }
		       i = index(line, "/*"); if (!i) { out = out line; break }
		       out = out substr(line, 1, i - 1); line = substr(line, i + 2); incom = 1
	       }
	       print out }' "$f" | sed -e 's/"\([^"\\]\|\\.\)*"//g' -e 's|//.*||' |
		grep -o '[A-Za-z_][A-Za-z0-9_]*' | sort -u |
		awk -v f="$f" '{ print "U", $1, f }'
done > "$t.calls"
awk 'NR == FNR { if ($1 == "D" && $2 != "main") def[$2] = $3; next }
     $1 == "U" && ($2 in def) && def[$2] != $3 { print $3, def[$2] }' "$t.calls" "$t.calls" |
	sort -u > "$t.edges"
if ! awk '$1 ~ /\.h$/ { print $1, $3 }' "$t" | tsort >/dev/null 2>"$t.cyc"; then
	echo "headers include each other in a cycle:"
	sed -e 's/^tsort: [^:]*: /    /' -e 's/^tsort: /        /' "$t.cyc"
	bad=1
fi
if ! tsort "$t.edges" >/dev/null 2>"$t.cyc"; then
	echo "source files call each other in a cycle:"
	sed -e 's/^tsort: [^:]*: /    /' -e 's/^tsort: /        /' "$t.cyc"
	bad=1
fi
rm -f "$t.calls" "$t.edges"
rm -f "${TMPDIR:-/tmp}/check-layout.$$.cyc"
exit $bad
