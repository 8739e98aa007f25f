# Shared by the file-system probes' bats files (file_read, read_api,
# fs_cache, fs_contention): a run of a fixture spec with the test's own file
# directory, and the tmpfs mounts some tests need (unmounted in teardown).

load mem_helpers

fs_setup() {
	FSDIR="$BATS_TEST_TMPDIR/files"
	FS_MOUNTS=()
	mkdir -p "$FSDIR"
}

fs_teardown() {
	local m
	for m in "${FS_MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || :
	done
}

# fs_tmpfs DIR SIZE: mount a tmpfs of SIZE at DIR (skip without root).
fs_tmpfs() {
	[ "$(id -u)" -eq 0 ] || skip "mounting a tmpfs needs root"
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2" sysmeter-test "$1" || skip "cannot mount a tmpfs"
	FS_MOUNTS+=("$1")
}

# fs_fail_reason RESULTS_JSON: every point's status and reason, one a line.
fs_reasons() {
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["points"]:
    print(p["status"], p.get("reason"))' "$1"
}
