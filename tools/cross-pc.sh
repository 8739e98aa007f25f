#!/bin/sh
# tools/cross-pc.sh TRIPLET DIR PKG...
# pkg-config files for a cross build, for the libraries whose Debian -dev
# package cannot be installed for two architectures at once (libgsl-dev is
# not "Multi-Arch: same": installing libgsl-dev:arm64 removes the host's).
# For each PKG the target's /usr/lib/TRIPLET/pkgconfig lacks, the host's
# .pc is copied into DIR with its library directory pointed at DIR/lib,
# where each -lNAME of it links to the target's runtime library
# (/usr/lib/TRIPLET/libNAME.so.N, from the co-installable runtime package).
# The headers are the host's: arch-independent for these libraries.
# Prints nothing; exits 1 naming what is missing.
set -eu
triplet=$1 dir=$2
shift 2
tlib=/usr/lib/$triplet
mkdir -p "$dir/lib"
for pkg in "$@"; do
	[ -f "$tlib/pkgconfig/$pkg.pc" ] && continue
	hostpc=$(pkg-config --variable=pcfiledir "$pkg" 2>/dev/null)/$pkg.pc || true
	[ -f "$hostpc" ] || { echo "cross-pc: no $pkg.pc for the host or $triplet" >&2; exit 1; }
	hostlib=$(pkg-config --variable=libdir "$pkg")
	sed "s|$hostlib|$dir/lib|g" "$hostpc" > "$dir/$pkg.pc.tmp"
	for l in $(pkg-config --libs-only-l "$pkg" | tr ' ' '\n' | sed -n 's/^-l//p' | sort -u); do
		[ "$l" = m ] && continue
		so=$(ls "$tlib/lib$l.so."* 2>/dev/null | sort | head -n 1)
		[ -n "$so" ] || { echo "cross-pc: $pkg needs lib$l for $triplet: no $tlib/lib$l.so.*" >&2; exit 1; }
		ln -sf "$so" "$dir/lib/lib$l.so"
	done
	mv "$dir/$pkg.pc.tmp" "$dir/$pkg.pc"
done
