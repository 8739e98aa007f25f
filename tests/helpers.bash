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
