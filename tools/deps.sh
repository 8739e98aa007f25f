#!/bin/sh
# Install what sysmeter needs on Debian/Ubuntu with apt-get (sudo when not
# root).  Only missing packages are installed; one apt-get at a time.
#   tools/deps.sh              everything (build, run, report/PDF)
#   tools/deps.sh --test-only  also what `make test` needs (bats, pdf tools)
set -eu
BUILD_PKGS="gcc libc6-dev make pkg-config libyaml-dev libjansson-dev libgsl-dev libssl-dev libnfs-dev libcmark-dev"
RUN_PKGS="gnuplot-nox texlive-latex-base texlive-latex-recommended texlive-fonts-recommended lmodern latexmk poppler-utils iproute2 netbase nfs-ganesha nfs-ganesha-vfs rpcbind"
TEST_PKGS="bats bats-support bats-assert poppler-utils python3 procps groff-base man-db mount"
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
[ -z "$missing" ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "deps: not root and no sudo; install:$missing" >&2; exit 1; }
	SUDO=sudo
fi
echo "deps: installing:$missing" >&2
# Never two apt-get at once: wait for a running one (dpkg lock) to finish.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
