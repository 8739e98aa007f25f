#!/bin/sh
# Install what sysmeter needs on Debian/Ubuntu with apt-get (sudo when not
# root).  Only missing packages are installed; one apt-get at a time.
#   tools/deps.sh              everything (build, run, report/PDF)
#   tools/deps.sh --test-only  also what `make test` needs (bats, pdf tools, chromium
#                              for report.html: large, about 350 MB installed)
#   tools/deps.sh [--test-only] --arch arm64
#                              also the aarch64 cross compiler, LIB_PKGS for
#                              arm64 (dpkg --add-architecture arm64) and
#                              qemu-user-static (make CROSS=..., make test-arm64)
set -eu
# The libraries the runner and probes link: the one list, installed for the
# host and, with --arch, as <pkg>:<arch> for the cross build.
LIB_PKGS="libyaml-dev libjansson-dev libgsl-dev libssl-dev libnfs-dev libcmark-dev libsqlite3-dev libpq-dev"
BUILD_PKGS="gcc libc6-dev make pkg-config $LIB_PKGS"
RUN_PKGS="gnuplot-nox texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern latexmk poppler-utils iproute2 netbase nfs-ganesha nfs-ganesha-vfs rpcbind ansible-core"
TEST_PKGS="bats bats-support bats-assert poppler-utils python3 procps groff-base man-db mount strace git postgresql chromium openssh-server openssh-client slurm-wlm munge"
want="$BUILD_PKGS $RUN_PKGS"
arch=""
while [ $# -gt 0 ]; do
	case "$1" in
	--test-only) want="$BUILD_PKGS $TEST_PKGS $RUN_PKGS" ;;
	--arch) [ $# -ge 2 ] || { echo "deps: --arch needs a value (arm64)" >&2; exit 2; }
		arch="$2"; shift ;;
	*) echo "deps: unknown option: $1" >&2; exit 2 ;;
	esac
	shift
done
case "$arch" in
"") ;;
arm64)
	want="$want gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static"
	# libgsl-dev and libpq-dev are not "Multi-Arch: same": their arm64 copies
	# would remove the host's.  Their runtime libraries are; tools/cross-pc.sh
	# links them.
	for p in $LIB_PKGS; do
		case "$p" in
		libgsl-dev) want="$want libgsl27:$arch libgslcblas0:$arch" ;;
		libpq-dev) want="$want libpq5:$arch" ;;
		*) want="$want $p:$arch" ;;
		esac
	done ;;
*) echo "deps: --arch $arch: only arm64 is supported" >&2; exit 2 ;;
esac
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: this is not a Debian/Ubuntu system; install by hand: $want" >&2
	exit 1
fi
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# nfs-ganesha's VFS layer reads /etc/mtab; a booted Debian has it (a link to
# /proc/self/mounts made by systemd-tmpfiles), a minimal root or chroot not.
mtab() {
	[ -e /etc/mtab ] && return 0
	if [ "$(id -u)" -eq 0 ]; then ln -s ../proc/self/mounts /etc/mtab
	elif command -v sudo >/dev/null 2>&1; then sudo ln -s ../proc/self/mounts /etc/mtab
	else echo "deps: no /etc/mtab; as root: ln -s ../proc/self/mounts /etc/mtab" >&2
	fi
}
if [ -z "$missing" ]; then
	mtab
	exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "deps: not root and no sudo; install:$missing" >&2; exit 1; }
	SUDO=sudo
fi
echo "deps: installing:$missing" >&2
# A foreign architecture's packages need dpkg to know it (multiarch).
if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	$SUDO dpkg --add-architecture "$arch"
fi
# Never two apt-get at once: wait for a running one (dpkg lock) to finish.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
mtab
