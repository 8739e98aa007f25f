#!/bin/sh
# Seed a libFuzzer corpus folder for one tests/fuzz target from the tree:
# specs and spec fixtures, templates, the fixture runs, and the target's
# regression inputs (tests/fuzz/regress/<name>/).  Files are named by their
# checksum, so running it again adds only what is new; what libFuzzer
# added to the folder stays.
# Usage: tools/fuzz-seeds.sh fuzz_NAME DIR     (from the project root)
set -eu
name=$1 dir=$2
mkdir -p "$dir"
add() {   # add stdin as one seed
	tmp=$(mktemp)
	cat >"$tmp"
	sum=$(cksum <"$tmp" | cut -d' ' -f1)
	mv "$tmp" "$dir/seed-$sum"
}
case $name in
fuzz_spec)
	find specs tests/fixtures/specs -name '*.yaml' | while read -r f; do add <"$f"; done
	# a spec followed by NUL-separated --set assignments
	printf 'probe: params\n\0params.size=[4KiB, 8KiB]\0repetitions=5\0' | add ;;
fuzz_template)
	# the first byte picks the escaping: 1 Markdown, 2 LaTeX, 3 gnuplot
	for f in templates/*; do
		case $f in *.md) b='\001' ;; *.tex) b='\002' ;; *.gp) b='\003' ;; *) b='\000' ;; esac
		{ printf "$b"; cat "$f"; } | add
	done ;;
fuzz_results)
	# the manifest, a NUL, one results file
	for run in tests/fixtures/runs/*/; do
		[ -f "$run/manifest.json" ] || continue
		for r in "$run"results/*.json; do
			{ cat "$run/manifest.json"; printf '\0'; cat "$r"; } | add
		done
	done ;;
fuzz_serve)
	for l in 'SYSMETER 1 HELLO' 'AUTH - ECHO size=64 cpu=1' 'AUTH - SINK cpu=0 rcvbuf=65536' \
		'AUTH - CONN close=server'; do printf '%s' "$l" | add; done ;;
esac
reg=tests/fuzz/regress/${name#fuzz_}
if [ -d "$reg" ]; then
	for f in "$reg"/*; do [ -f "$f" ] && add <"$f"; done
fi
exit 0
