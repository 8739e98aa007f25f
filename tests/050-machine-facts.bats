#!/usr/bin/env bats
# Machine facts a program cannot read, given with --machine FILE (issue 23):
# they land in the manifest marked as given, override what was detected
# (kept under machine.detected), are copied into the run folder and
# replayed by rerun; a bad file is file:line:col and exit 2 with nothing
# written.  The facts that some machines state (memory type and speed from
# SMBIOS or EDAC, the default route's link speed) are detected with their
# source, or recorded as unknown with why.  runner serve tells its client
# its machine, which the manifest records as peer.machine and the report
# shows beside this one.

bats_require_minimum_version 1.5.0
load helpers

FACTS="$BATS_TEST_DIRNAME/fixtures/machine-facts"
SPEC=tests/fixtures/specs/cli/null.yaml

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$BATS_TEST_TMPDIR/token"
	chmod 600 "$BATS_TEST_TMPDIR/token"
}

teardown() {
	[ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	:
}

@test "machine facts: given facts land in the manifest marked as given, the detected ones kept" {
	run "$RUNNER" -q -o "$OUT" --run-id plain "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$RUNNER" -q -o "$OUT" --run-id tgl --machine "$FACTS/i7-1165g7.yaml" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	p="$OUT/plain/manifest.json"
	m="$OUT/tgl/manifest.json"
	# the new facts, in base units
	[ "$(json "$m" 'd["machine"]["memory_bus_bandwidth"]')" = 68300000000.0 ]
	[ "$(json "$m" 'd["machine"]["memory_type"]')" = LPDDR4x ]
	[ "$(json "$m" 'd["machine"]["memory_speed"]')" = 4266.0 ]
	[ "$(json "$m" 'd["machine"]["disk_seq_read"]')" = 3500000000.0 ]
	[ "$(json "$m" 'd["machine"]["disk_rand_read_iops"]')" = 500000.0 ]
	[ "$(json "$m" 'd["machine"]["nic_link_speed"]')" = 1000000000.0 ]
	# overrides, with what was detected kept
	[ "$(json "$m" 'd["machine"]["cpu_model"]')" = "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz" ]
	[ "$(json "$m" 'd["machine"]["detected"]["cpu_model"] == json.load(open("'"$p"'"))["machine"]["cpu_model"]')" = true ]
	[ "$(json "$m" 'd["machine"]["cpus_online"]')" = 8 ]
	[ "$(json "$m" 'd["machine"]["core_clock"]["hz"]')" = 4700000000.0 ]
	[ "$(json "$m" 'd["machine"]["core_clock"]["source"]')" = given ]
	[ "$(json "$m" 'd["machine"]["core_clock"]["holds"]')" = false ]
	[ "$(json "$m" '"core_clock" in d["machine"]["detected"]')" = true ]
	[ "$(json "$m" '[c["size_bytes"] for c in d["machine"]["caches"]]')" = "[49152, 32768, 1310720, 12582912]" ]
	[ "$(json "$m" 'd["machine"]["llc"]["size_bytes"]')" = 12582912 ]
	[ "$(json "$m" 'd["machine"]["cpu"]["model"]')" = 140 ]
	# marked as given: the file, its copy, the keys, each key's source
	[ "$(json "$m" 'd["machine"]["given"]["file"]')" = "$FACTS/i7-1165g7.yaml" ]
	[ "$(json "$m" 'd["machine"]["given"]["copy"]')" = machine-facts.yaml ]
	cmp "$FACTS/i7-1165g7.yaml" "$OUT/tgl/machine-facts.yaml"
	[ "$(json "$m" 'sorted(d["machine"]["given"]["keys"])')" = "$(json "$m" 'sorted(k for k, v in d["machine"]["sources"].items() if v["source"] == "given")')" ]
	[ "$(json "$m" 'len(d["machine"]["given"]["keys"])')" = 13 ]
	[ "$(json "$m" '"memory_bus_bandwidth" in d["machine"]["detected"]')" = false ]
	# the report marks them
	md="$OUT/tgl/report.md"
	grep -q '^| Memory bus bandwidth (given) | 68.3 GB/s |$' "$md"
	grep -q '^| Memory type, speed (given) | LPDDR4x; 4266 MT/s |$' "$md"
	grep -q '^| Disk reads (given) | sequential 3.5 GB/s; random 4 KiB 500000 IOPS |$' "$md"
	grep -q '^| NIC link speed (given) | 1 Gbit/s |$' "$md"
	grep -q '^| Core clock (given) | 4.7 GHz (given, not measured; base 2.8 GHz; max 4.7 GHz) |$' "$md"
	grep -q '^| CPU (given) | 11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz (8 CPUs online, given) |$' "$md"
	# a given clock is not a measured one: no core cycles from it
	grep -q 'not core cycles: the core clock was given (--machine), not measured' "$md"
	! grep -q '(given)' "$OUT/plain/report.md" || false
	[ "$(json "$p" '"given" in d["machine"] or "detected" in d["machine"]')" = false ]
	[ "$(json "$p" 'd["peer"]')" = null ]
}

@test "machine facts: units as written (GB/s, Gb/s, MT/s, k IOPS, GHz) and core_clock_hz" {
	f="$BATS_TEST_TMPDIR/facts.yaml"
	cat >"$f" <<-'EOF'
	memory_bus_bandwidth: 25.6GB/s
	memory_speed: 3200 MT/s
	nic_link_speed: 1Gb/s
	disk_rand_read_iops: 1000k IOPS
	disk_seq_read: 550MB/s
	core_clock_hz: 2.8 GHz
	memory_bytes: 16GiB
	EOF
	run "$RUNNER" -q -o "$OUT" --run-id u --no-report --machine "$f" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/u/manifest.json"
	[ "$(json "$m" 'd["machine"]["memory_bus_bandwidth"]')" = 25600000000.0 ]
	[ "$(json "$m" 'd["machine"]["memory_speed"]')" = 3200.0 ]
	[ "$(json "$m" 'd["machine"]["nic_link_speed"]')" = 1000000000.0 ]
	[ "$(json "$m" 'd["machine"]["disk_rand_read_iops"]')" = 1000000.0 ]
	[ "$(json "$m" 'd["machine"]["disk_seq_read"]')" = 550000000.0 ]
	[ "$(json "$m" 'd["machine"]["core_clock"]["hz"]')" = 2800000000.0 ]
	[ "$(json "$m" 'd["machine"]["memory_bytes"]')" = 17179869184 ]
	[ "$(json "$m" 'd["machine"]["given"]["keys"]')" = '["memory_bus_bandwidth", "memory_speed", "nic_link_speed", "disk_rand_read_iops", "disk_seq_read", "core_clock", "memory_bytes"]' ]
	# the other fixture is valid too (runner check reads it)
	run "$RUNNER" check --machine "$FACTS/ryzen7-5800x.yaml" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"ryzen7-5800x.yaml: ok (machine facts: 13 keys)"* ]]
}

# bad NAME TEXT EXPECTED: a facts file with TEXT is refused with exit 2 and
# the message EXPECTED (FILE: prefix added), and nothing is written
bad() {
	local f="$BATS_TEST_TMPDIR/$1.yaml"
	printf '%s' "$2" >"$f"
	run "$RUNNER" -q -o "$OUT" --run-id "$1" --machine "$f" "$SPEC"
	[ "$status" -eq 2 ] || { echo "$1: status $status: $output"; return 1; }
	[ "$output" = "runner: $f:$3" ] || { echo "$1: got: $output"; echo "want: runner: $f:$3"; return 1; }
	[ ! -e "$OUT" ] || { echo "$1: $OUT was written"; return 1; }
	run "$RUNNER" check --machine "$f" "$SPEC"
	[ "$status" -eq 2 ] || { echo "$1: check: status $status"; return 1; }
}

@test "machine facts: a bad file is file:line:col, exit 2, and nothing measured or written" {
	bad unknown $'memory_type: DDR4\nmemory_bus_bandwith: 1GB/s\n' \
		"2:1: unknown key 'memory_bus_bandwith' (did you mean 'memory_bus_bandwidth'?)"
	bad type $'cpus_online: many\n' \
		"1:14: cpus_online: expected a whole number of at least 1, got 'many'"
	bad negative $'memory_bus_bandwidth: -51.2 GB/s\n' \
		"1:23: memory_bus_bandwidth: must be positive, got '-51.2 GB/s'"
	bad zero $'nic_link_speed: 0\n' "1:17: nic_link_speed: must be positive, got '0'"
	bad unit $'memory_bus_bandwidth: 51.2 GHz\n' \
		"1:23: memory_bus_bandwidth: expected a rate in bytes per second like 51.2 GB/s, got '51.2 GHz'"
	bad syntax $'memory_type: DDR4\ncaches: [{level: 1\n' \
		"3:1: yaml: did not find expected ',' or '}' while parsing a flow mapping"
	bad nested $'caches:\n  - {level: 1, type: Data, size_bytes: 48KiB, wayz: 12}\n' \
		"2:47: caches[0]: unknown key 'wayz' (did you mean 'ways'?)"
	bad missing_size $'caches:\n  - {level: 1, type: Data}\n' "2:5: caches[0]: size_bytes missing"
	bad twice $'core_clock: {hz: 2GHz}\ncore_clock_hz: 3GHz\n' \
		"2:1: 'core_clock_hz' given twice (core_clock_hz is core_clock: {hz})"
	bad list $'- memory_type\n' \
		"1:1: expected a mapping of machine facts (memory_bus_bandwidth: 51.2 GB/s, ...), got a list"
	# a file that is not there
	run "$RUNNER" -q -o "$OUT" --machine "$BATS_TEST_TMPDIR/none.yaml" "$SPEC"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $BATS_TEST_TMPDIR/none.yaml: cannot read: No such file or directory" ]
	[ ! -e "$OUT" ]
}

@test "machine facts: every number in a plausible range, named at file:line:col when not (issue 33)" {
	bad tiny_clock $'core_clock_hz: 1e-300\n' \
		"1:16: core_clock_hz: out of range: expected 1 MHz to 100 GHz, got '1e-300'"
	bad huge_clock $'core_clock: {hz: 4.7 GHz, max_hz: 1e300}\n' \
		"1:35: core_clock.max_hz: out of range: expected 1 MHz to 100 GHz, got '1e300'"
	bad cpus $'cpus_online: 1000000\n' "1:14: cpus_online: out of range: expected 1 to 65536, got '1000000'"
	bad family $'cpu: {family: 9999}\n' "1:15: cpu.family: out of range: expected 0 to 270, got '9999'"
	bad cache $'caches:\n  - {level: 3, type: Unified, size_bytes: 64GiB}\n' \
		"2:43: caches[0].size_bytes: out of range: expected 256 B to 16 GiB, got '64GiB'"
	bad line $'caches:\n  - {level: 1, type: Data, size_bytes: 48KiB, line_bytes: 1}\n' \
		"2:59: caches[0].line_bytes: out of range: expected 8 B to 4 KiB, got '1'"
	bad memory $'memory_bytes: 1e30\n' "1:15: memory_bytes: out of range: expected 1 MiB to 4096 TiB, got '1e30'"
	bad bus $'memory_bus_bandwidth: 1 B/s\n' \
		"1:23: memory_bus_bandwidth: out of range: expected 1 MB/s to 100 TB/s, got '1 B/s'"
	bad mts $'memory_speed: 1e9 MT/s\n' "1:15: memory_speed: out of range: expected 10 to 100000 MT/s, got '1e9 MT/s'"
	bad iops $'disk_rand_read_iops: 1e12\n' \
		"1:22: disk_rand_read_iops: out of range: expected 1 to 1000M IOPS, got '1e12'"
	bad nic $'nic_link_speed: 1e20\n' "1:17: nic_link_speed: out of range: expected 1 kbit/s to 10 Tbit/s, got '1e20'"
	# what held before holds: NaN, infinity, negative, not UTF-8
	bad nan $'core_clock_hz: .nan\n' "1:16: core_clock_hz: expected a frequency like 2.8 GHz, got '.nan'"
	bad inf $'disk_seq_read: inf\n' \
		"1:16: disk_seq_read: expected a rate in bytes per second like 51.2 GB/s, got 'inf'"
	bad minus $'cpus_online: -4\n' "1:14: cpus_online: expected a whole number of at least 1, got '-4'"
	bad utf8 $'cpu_model: \xff\n' "1:1: yaml: invalid leading UTF-8 octet"
	# the ends of each range are in it
	f="$BATS_TEST_TMPDIR/ends.yaml"
	printf 'core_clock_hz: 100 GHz\ncpus_online: 65536\nmemory_bytes: 4096TiB\nnic_link_speed: 1 kbit/s\ncaches:\n  - {level: 1, type: Data, size_bytes: 256, line_bytes: 4KiB}\n' >"$f"
	run "$RUNNER" check --machine "$f" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "machine facts: text of the file quoted in a message is escaped and short (issue 33)" {
	f="$BATS_TEST_TMPDIR/esc.yaml"
	printf '"\\e[2Jrm -rf": 1\n' >"$f"
	run -2 "$RUNNER" check --machine "$f" "$SPEC"
	echo "$output"
	[ "$output" = "runner: $f:1:1: unknown key '\\x1b[2Jrm -rf' (machine facts: docs/results-format.md)" ]
	# a file that is not a mapping: 60 characters at most, then ...
	printf '%s\n' "$(printf 'x%.0s' {1..200})" >"$f"
	run -2 "$RUNNER" check --machine "$f" "$SPEC"
	echo "$output"
	[ "$output" = "runner: $f:1:1: expected a mapping of machine facts (memory_bus_bandwidth: 51.2 GB/s, ...), got '$(printf 'x%.0s' {1..60})...'" ]
}

@test "machine facts: a FIFO, a device or a folder as --machine FILE is refused at once, not waited on (issue 33)" {
	mkfifo "$BATS_TEST_TMPDIR/fifo.yaml"
	# timeout only guards against the hang this fixes: 124 would be it
	run timeout 20 "$RUNNER" -q -o "$OUT" --machine "$BATS_TEST_TMPDIR/fifo.yaml" "$SPEC"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $BATS_TEST_TMPDIR/fifo.yaml: not a regular file" ]
	[ ! -e "$OUT" ]
	run timeout 20 "$RUNNER" check --machine "$BATS_TEST_TMPDIR/fifo.yaml" "$SPEC"
	[ "$status" -eq 2 ]
	run timeout 20 "$RUNNER" check --machine /dev/zero "$SPEC"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: /dev/zero: not a regular file" ]
	run timeout 20 "$RUNNER" check --machine "$BATS_TEST_TMPDIR" "$SPEC"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $BATS_TEST_TMPDIR: not a regular file" ]
	# a symbolic link the user gives is theirs: followed
	ln -s "$FACTS/i7-1165g7.yaml" "$BATS_TEST_TMPDIR/mine.yaml"
	run -0 "$RUNNER" check --machine "$BATS_TEST_TMPDIR/mine.yaml" "$SPEC"
}

@test "machine facts: a run folder's machine-facts.yaml that is a FIFO or a symbolic link is refused, not waited on or read through (issue 33)" {
	run "$RUNNER" -q -o "$OUT" --run-id a --no-report --machine "$FACTS/i7-1165g7.yaml" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# a symbolic link planted in the folder, to a file the folder's author
	# wants to see (its text must not reach a message or the new run)
	printf 'SECRET-6f1d-not-for-the-terminal and more of it, past sixty characters\n' >"$BATS_TEST_TMPDIR/secret"
	cp -a "$OUT/a" "$BATS_TEST_TMPDIR/link"
	ln -sf "$BATS_TEST_TMPDIR/secret" "$BATS_TEST_TMPDIR/link/machine-facts.yaml"
	run timeout 20 "$RUNNER" rerun -q -o "$OUT" --run-id l --no-report "$BATS_TEST_TMPDIR/link"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $BATS_TEST_TMPDIR/link/machine-facts.yaml: a symbolic link: not followed" ]
	[ ! -e "$OUT/l" ]
	# to a valid facts file: refused as well, not copied into the new run
	ln -sf "$FACTS/ryzen7-5800x.yaml" "$BATS_TEST_TMPDIR/link/machine-facts.yaml"
	run -2 timeout 20 "$RUNNER" rerun -q -o "$OUT" --run-id l --no-report "$BATS_TEST_TMPDIR/link"
	[ ! -e "$OUT/l" ]
	# a FIFO: rerun refuses it at once; report and resume never read it
	cp -a "$OUT/a" "$BATS_TEST_TMPDIR/fifo"
	rm "$BATS_TEST_TMPDIR/fifo/machine-facts.yaml"
	mkfifo "$BATS_TEST_TMPDIR/fifo/machine-facts.yaml"
	run timeout 20 "$RUNNER" rerun -q -o "$OUT" --run-id f --no-report "$BATS_TEST_TMPDIR/fifo"
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "runner: $BATS_TEST_TMPDIR/fifo/machine-facts.yaml: not a regular file" ]
	[ ! -e "$OUT/f" ]
	run timeout 20 "$RUNNER" report "$BATS_TEST_TMPDIR/fifo"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run timeout 20 "$RUNNER" resume -q --no-report "$BATS_TEST_TMPDIR/fifo"
	echo "$output"
	[ "$status" -ne 124 ]
	[[ "$output" == *"the run is complete, nothing to do"* ]]
}

@test "machine facts: rerun gives the run's facts again; rerun --machine replaces them" {
	run "$RUNNER" -q -o "$OUT" --run-id a --no-report --machine "$FACTS/i7-1165g7.yaml" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$RUNNER" rerun -q -o "$OUT" --run-id b --no-report "$OUT/a"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/b/manifest.json"
	[ "$(json "$m" 'd["machine"]["given"]["file"]')" = "$OUT/a/machine-facts.yaml" ]
	[ "$(json "$m" 'd["machine"]["memory_bus_bandwidth"]')" = 68300000000.0 ]
	[ "$(json "$m" 'd["machine"]["cpu_model"]')" = "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz" ]
	cmp "$FACTS/i7-1165g7.yaml" "$OUT/b/machine-facts.yaml"
	# a given fact is not a change of machine
	[ "$(json "$m" '[c for c in d["origin"]["changes"] if "cpu_model" in c or "cpus_online" in c]')" = "[]" ]
	run "$RUNNER" rerun -q -o "$OUT" --run-id c --no-report --machine "$FACTS/ryzen7-5800x.yaml" "$OUT/a"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(json "$OUT/c/manifest.json" 'd["machine"]["memory_bus_bandwidth"]')" = 51200000000.0 ]
	[ "$(json "$OUT/c/manifest.json" 'd["machine"]["memory_type"]')" = DDR4 ]
	# the copy gone: said, nothing measured
	rm "$OUT/a/machine-facts.yaml"
	run "$RUNNER" rerun -q -o "$OUT" --run-id d --no-report "$OUT/a"
	[ "$status" -eq 2 ]
	[[ "$output" == *"give them again with --machine FILE"* ]]
	[ ! -e "$OUT/d" ]
}

@test "machine facts: detected with their source (SMBIOS, EDAC, sysfs) or unknown with why" {
	# this host: each fact has a value and a source, or null and why
	run "$RUNNER" -q -o "$OUT" --run-id here --no-report "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/here/manifest.json"
	for k in memory_type memory_speed memory_bus_bandwidth disk_seq_read disk_rand_read_iops nic_link_speed; do
		[ "$(json "$m" '(d["machine"]["'$k'"] is None) == (d["machine"]["sources"]["'$k'"]["source"] is None) != (d["machine"]["sources"]["'$k'"]["why_not"] is None)')" = true ] ||
			{ echo "$k: $(json "$m" 'd["machine"]["sources"]["'$k'"]')"; false; }
	done
	# a fake machine: an SMBIOS table with two DDR4-3200 modules, a link at 10 Gbit/s
	root="$BATS_TEST_TMPDIR/root"
	mkdir -p "$root/sys/firmware/dmi/tables" "$root/proc/net" "$root/sys/class/net/eth9"
	python3 - "$root/sys/firmware/dmi/tables/DMI" <<-'PY'
	import struct, sys
	def dev(size_mb, mtype, speed):
	    b = bytearray(0x28)
	    b[0], b[1] = 17, 0x28
	    struct.pack_into("<H", b, 0x0c, size_mb)
	    b[0x12] = mtype
	    struct.pack_into("<H", b, 0x15, speed)
	    struct.pack_into("<H", b, 0x20, speed)
	    return bytes(b) + b"DIMM A\0\0"
	t = dev(16384, 0x1a, 3200) + dev(0, 0x02, 0) + dev(16384, 0x1a, 3200) + bytes([127, 4, 0, 0, 0, 0])
	open(sys.argv[1], "wb").write(t)
	PY
	printf 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth9\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n' >"$root/proc/net/route"
	echo 10000 >"$root/sys/class/net/eth9/speed"
	SYSMETER_MACHINE_ROOT="$root" run "$RUNNER" -q -o "$OUT" --run-id fake --no-report "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m="$OUT/fake/manifest.json"
	[ "$(json "$m" 'd["machine"]["memory_type"]')" = DDR4 ]
	[ "$(json "$m" 'd["machine"]["sources"]["memory_type"]["source"]')" = smbios ]
	[ "$(json "$m" 'd["machine"]["memory_speed"]')" = 3200.0 ]
	[ "$(json "$m" 'd["machine"]["nic_link_speed"]')" = 10000000000.0 ]
	[ "$(json "$m" 'd["machine"]["sources"]["nic_link_speed"]["source"]')" = "sysfs (/sys/class/net/eth9/speed)" ]
	# a virtual machine's: "RAM" of no speed, a link speed of -1, EDAC's type instead
	python3 -c 'import struct,sys; b=bytearray(0x28); b[0]=17; b[1]=0x28; struct.pack_into("<H",b,0x0c,1024); b[0x12]=7; open(sys.argv[1],"wb").write(bytes(b)+b"\0\0"+bytes([127,4,0,0,0,0]))' \
		"$root/sys/firmware/dmi/tables/DMI"
	echo -1 >"$root/sys/class/net/eth9/speed"
	SYSMETER_MACHINE_ROOT="$root" run "$RUNNER" -q -o "$OUT" --run-id vm --no-report "$SPEC"
	m="$OUT/vm/manifest.json"
	[ "$(json "$m" 'd["machine"]["memory_type"]')" = null ]
	[[ "$(json "$m" 'd["machine"]["sources"]["memory_type"]["why_not"]')" == *"memory type 0x07 (RAM), not a kind of DRAM: a virtual machine's firmware"* ]]
	[ "$(json "$m" 'd["machine"]["memory_speed"]')" = null ]
	[ "$(json "$m" 'd["machine"]["nic_link_speed"]')" = null ]
	[[ "$(json "$m" 'd["machine"]["sources"]["nic_link_speed"]["why_not"]')" == "eth9, the default route's interface: the kernel reports no link speed (-1)"* ]]
	mkdir -p "$root/sys/devices/system/edac/mc/mc0/dimm0"
	echo Registered-DDR4 >"$root/sys/devices/system/edac/mc/mc0/dimm0/dimm_mem_type"
	SYSMETER_MACHINE_ROOT="$root" run "$RUNNER" -q -o "$OUT" --run-id edac --no-report "$SPEC"
	[ "$(json "$OUT/edac/manifest.json" 'd["machine"]["memory_type"]')" = DDR4 ]
	[ "$(json "$OUT/edac/manifest.json" 'd["machine"]["sources"]["memory_type"]["source"]')" = edac ]
}

# start_serve ARGS...: runner serve on 127.0.0.1:0 in the background; ADDR
start_serve() {
	"$RUNNER" serve --listen 127.0.0.1:0 --ready-file "$BATS_TEST_TMPDIR/ready" "$@" \
		2>"$BATS_TEST_TMPDIR/serve.log" &
	SPID=$!
	wait_until 10 test -s "$BATS_TEST_TMPDIR/ready"
	ADDR=$(cat "$BATS_TEST_TMPDIR/ready")
}

@test "machine facts: runner serve tells its machine; the manifest has peer.machine, the report a Peer table" {
	start_serve --token "$BATS_TEST_TMPDIR/token"
	run "$RUNNER" -q -o "$OUT" --run-id p --peer "$ADDR" --token "$BATS_TEST_TMPDIR/token" \
		--machine "$FACTS/ryzen7-5800x.yaml" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; cat "$BATS_TEST_TMPDIR/serve.log"; false; }
	m="$OUT/p/manifest.json"
	[ "$(json "$m" 'd["peer"]["address"]')" = "$ADDR" ]
	[ "$(json "$m" 'd["peer"]["why_not"]')" = null ]
	[ "$(json "$m" 'd["peer"]["machine"]["hostname"]')" = "$(hostname)" ]
	[ "$(json "$m" 'd["peer"]["machine"]["cpu_model"] == d["machine"]["detected"]["cpu_model"]')" = true ]
	[ "$(json "$m" 'd["peer"]["machine"]["cpus_online"]')" = "$(getconf _NPROCESSORS_ONLN)" ]
	[ "$(json "$m" 'd["peer"]["machine"]["memory_bytes"] > 0')" = true ]
	[ "$(json "$m" 'sorted(d["peer"]["machine"])')" = '["arch", "core_clock_hz", "cpu", "cpu_model", "cpus_online", "hostname", "kernel", "memory_bytes"]' ]
	grep -q 'INFO: 0 bytes: machine facts sent' "$BATS_TEST_TMPDIR/serve.log"
	md="$OUT/p/report.md"
	grep -q '^### Peer$' "$md"
	grep -q '^| | This machine | Peer |$' "$md"
	grep -q "^| Host | $(hostname) | $(hostname) |\$" "$md"
	grep -q '^| CPU | AMD Ryzen 7 5800X 8-Core Processor (given) | ' "$md"
	grep -q '^| CPUs online | 16 (given) | '"$(getconf _NPROCESSORS_ONLN)"' |$' "$md"
	# a wrong token: no machine, and why
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$BATS_TEST_TMPDIR/other"
	chmod 600 "$BATS_TEST_TMPDIR/other"
	run "$RUNNER" -q -o "$OUT" --run-id w --no-report --peer "$ADDR" --token "$BATS_TEST_TMPDIR/other" "$SPEC"
	[ "$(json "$OUT/w/manifest.json" 'd["peer"]["machine"]')" = null ]
	[[ "$(json "$OUT/w/manifest.json" 'd["peer"]["why_not"]')" == *"authentication failed"* ]]
}

@test "machine facts: a peer that predates INFO is recorded as one, the run goes on" {
	# a version-1 peer without INFO: the challenge, then the old refusal
	python3 - "$BATS_TEST_TMPDIR/ready" <<-'PY' &
	import socket, sys
	s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
	open(sys.argv[1] + ".tmp", "w").write("127.0.0.1:%d\n" % s.getsockname()[1])
	import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
	s.settimeout(30)
	c, _ = s.accept(); f = c.makefile("rwb")
	f.readline(); f.write(b"SYSMETER 1 CHALLENGE 00112233445566778899aabbccddeeff open\n"); f.flush()
	f.readline(); f.write(b"ERR unknown mode 'INFO' (ECHO, SINK, CONN)\n"); f.flush()
	c.close()
	PY
	SPID=$!
	wait_until 10 test -s "$BATS_TEST_TMPDIR/ready"
	run "$RUNNER" -q -o "$OUT" --run-id old --no-report --peer "$(cat "$BATS_TEST_TMPDIR/ready")" "$SPEC"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(json "$OUT/old/manifest.json" 'd["peer"]["machine"]')" = null ]
	[[ "$(json "$OUT/old/manifest.json" 'd["peer"]["why_not"]')" == *"unknown mode 'INFO'"*"(a runner serve older than INFO)" ]]
}

@test "machine facts: with a laptop's or a desktop's facts file, the shipped specs' predictions follow that machine" {
	# a real probe, briefly: the syscall and RAM bandwidth specs' formulas
	# read the given core clock and the family's row of constants (RAM
	# bandwidth is built on the DRAM latency ram_access measures, so it runs
	# too, over its largest sizes only)
	for m in i7-1165g7 ryzen7-5800x; do
		run "$RUNNER" --quick --no-report -q -o "$OUT" --run-id "$m" --machine "$FACTS/$m.yaml" \
			--set 'ram_access.params.size=[64MiB, 128MiB]' --set ram_access.params.stride=64 \
			specs/syscall.yaml specs/ram_access.yaml specs/ram_bandwidth.yaml
		echo "$output"
		[ "$status" -eq 0 ]
	done
	python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
want = {"i7-1165g7": ("Ice Lake / Tiger Lake", 4.7e9, 68.3e9), "ryzen7-5800x": ("Zen 3", 4.7e9, 51.2e9)}
for m, (row, hz, bus) in want.items():
    for exp in ("syscall", "ram_bandwidth"):
        d = json.load(open("%s/%s/results/%s.json" % (out, m, exp)))
        for p in d["points"]:
            pr = p["prediction"]
            assert pr and pr.get("value") and not pr.get("missing"), (m, exp, p["params_text"], pr)
            src = {s["name"]: s for s in pr["sources"]}
            if exp == "syscall":
                assert "given: machine.core_clock" in src["core_hz"]["source"], (m, src["core_hz"])
                assert any(row in s["source"] for s in pr["sources"]), (m, row, pr["sources"])
                f = pr["filled"]["hardware"]
                assert "4.7 GHz" in f, (m, f)
            else:	# Little's law over the family's line fills and the measured DRAM latency
                assert row in src["line_fills"]["source"], (m, src["line_fills"])
                assert "given: machine.core_clock" in src["core_hz"]["source"], (m, src["core_hz"])
                assert "measured: ram_access" in src["@ram_access"]["source"], (m, src["@ram_access"])
# the two machines' predictions differ where their facts do (Zen 3's row
# against Tiger Lake's: line fills)
def pred(m, exp):
    d = json.load(open("%s/%s/results/%s.json" % (out, m, exp)))
    return [p["prediction"]["value"] for p in d["points"]]
assert pred("i7-1165g7", "ram_bandwidth") != pred("ryzen7-5800x", "ram_bandwidth")
print("ok")
PY
}
