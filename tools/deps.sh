#!/bin/sh
# Install what sysmeter needs on Debian/Ubuntu with apt-get (sudo when not
# root).  Only missing packages are installed; one apt-get at a time.
#   tools/deps.sh              everything (build, run, report/PDF)
#   tools/deps.sh --test-only  also what `make test` needs (bats, pdf tools)
set -eu
BUILD_PKGS="gcc libc6-dev make pkg-config libyaml-dev libjansson-dev libgsl-dev libssl-dev libnfs-dev libcmark-dev libsqlite3-dev libpq-dev"
RUN_PKGS="gnuplot-nox texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern latexmk poppler-utils iproute2 netbase nfs-ganesha nfs-ganesha-vfs rpcbind ansible-core"
TEST_PKGS="bats bats-support bats-assert poppler-utils python3 procps groff-base man-db mount strace git postgresql openssh-server openssh-client slurm-wlm munge"
case "${1:-}" in
--test-only) want="$BUILD_PKGS $TEST_PKGS $RUN_PKGS" ;;
*) want="$BUILD_PKGS $RUN_PKGS" ;;
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
# Never two apt-get at once: wait for a running one (dpkg lock) to finish.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
mtab
