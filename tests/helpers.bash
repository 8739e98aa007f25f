# Shared set-up for the bats files: where the runner and probes are, a
# private output folder per test, and a JSON query helper (python3; jq is
# not a dependency).
: "${BUILD:=build}"
: "${RUNNER:=$PWD/$BUILD/runner}"
: "${SYSMETER_PROBE_DIR:=$PWD/$BUILD/probes:$PWD/$BUILD/fixtures/probes}"
case "$SYSMETER_PROBE_DIR" in
*fixtures*) ;;
*) SYSMETER_PROBE_DIR="$SYSMETER_PROBE_DIR:${FIXTURE_DIR:-$PWD/$BUILD/fixtures/probes}" ;;
esac
export RUNNER SYSMETER_PROBE_DIR

# jq-like: json FILE 'python expression over d'
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=eval(sys.argv[2]); print(json.dumps(r) if isinstance(r,(dict,list,bool)) or r is None else r)' "$1" "$2"
}

# wait_until SECONDS COMMAND...: run COMMAND every 50 ms until it succeeds;
# fail (status 1, saying what was awaited) once SECONDS have passed.  Wait
# for a condition (a file appearing, a process state) this way, never with
# a fixed sleep that races.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "wait_until: gave up waiting for: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

# proc_stat PID: "STATE PPID PGID" of a process from /proc (fails when gone)
proc_stat() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	echo "$1 $2 $3"
}

# exited PID: the process is gone or a zombie (kill -0 still sees zombies)
exited() {
	local st
	st=$(proc_stat "$1") || return 0
	[ "${st%% *}" = Z ]
}

# skip_if_emulated: a test that judges timing or physics (one cost against
# another, a cache against DRAM) means nothing when an emulator runs the
# instructions: `make test-arm64` runs the aarch64 build under qemu-user
# with SYSMETER_EMULATED=1, and such tests skip there.
skip_if_emulated() {
	[ -z "${SYSMETER_EMULATED:-}" ] || skip "emulated CPU"
}
