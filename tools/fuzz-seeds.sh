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
	# a control byte (bit 0: the handshake with the harness's token; the
	# others: how the stream is cut), then the stream: control lines, whole
	# handshakes (open, and signed for the harness's nonce and token), and
	# a budget (used, max) with SINK frame headers, as u64s
	for l in 'SYSMETER 1 HELLO' 'AUTH - ECHO size=64 cpu=1' 'AUTH - SINK cpu=0 rcvbuf=65536' \
		'AUTH - CONN close=server'; do printf '\006%s' "$l" | add; done
	printf '\010SYSMETER 1 HELLO\nAUTH - CONN close=client\n' | add
	printf '\011SYSMETER 1 HELLO\nAUTH %s ECHO size=64\n' \
		2f9209e5a6bd5fd8f06ae2dcb323c9441f43c8e144f7a14c6af4748de29621d6 | add
	printf '\013SYSMETER 1 HELLO\nAUTH %s SINK cpu=0 rcvbuf=65536\nSYMSINK1\001\000\000\000\000\000\000\000x' \
		ef96dd1c12d232b439efba0b7155c6d54a610172606abad6a719a9b73e95f6d7 | add
	# used 0, max 1 MiB; frames of 1, 2^64-1, end
	printf '\000\000\000\000\000\000\000\000\000\000\000\020\000\000\000\000\000SYMSINK1\001\000\000\000\000\000\000\000SYMSINK1\377\377\377\377\377\377\377\377SYMSINK1\000\000\000\000\000\000\000\000' | add ;;
esac
reg=tests/fuzz/regress/${name#fuzz_}
if [ -d "$reg" ]; then
	for f in "$reg"/*; do [ -f "$f" ] && add <"$f"; done
fi
exit 0
