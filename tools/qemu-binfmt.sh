#!/bin/sh
# Make the kernel run aarch64 programs through qemu-user (binfmt_misc), so
# that an aarch64 runner under emulation can also exec its aarch64 helper
# programs (probes/bin/*, itself for `serve`) while host tools (gnuplot,
# latexmk) run natively.  Uses Debian's qemu-user-static registration
# (/usr/lib/binfmt.d/qemu-aarch64.conf, flags OPF: F opens the interpreter
# now, so it works in a chroot afterwards too).  Needs root (or sudo) once
# per boot; does nothing when qemu-aarch64 is already registered.
set -eu
B=/proc/sys/fs/binfmt_misc
CONF=/usr/lib/binfmt.d/qemu-aarch64.conf
[ -e "$B/qemu-aarch64" ] && exit 0
[ -f "$CONF" ] || { echo "qemu-binfmt: no $CONF: install qemu-user-static (make deps-arm64)" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "qemu-binfmt: qemu-aarch64 is not registered in $B, and registering it needs root" >&2; exit 1; }
	SUDO=sudo
fi
if [ ! -e "$B/register" ]; then
	$SUDO mount -t binfmt_misc binfmt_misc "$B" ||
		{ echo "qemu-binfmt: cannot mount binfmt_misc on $B (a container without it?)" >&2; exit 1; }
fi
grep -v '^#' "$CONF" | $SUDO tee "$B/register" >/dev/null
[ -e "$B/qemu-aarch64" ] || { echo "qemu-binfmt: registering qemu-aarch64 failed" >&2; exit 1; }
