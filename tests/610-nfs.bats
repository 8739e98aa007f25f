#!/usr/bin/env bats
# --nfs, the run's NFS server (issue 12): `--nfs netns` starts nfs-ganesha
# and rpcbind in a private namespace, serves NFSv3 and v4 reads to the
# probes and leaves nothing behind (after the run, after Ctrl-C, after a
# SIGKILL of the runner); without root or ganesha the NFS points skip with
# the reason; `--nfs nfs://HOST/EXPORT` is handed on as given; rerun
# replays it.  The fixture probe nfs_info checks what it is given.  Its
# access (issue 21): read-only, a writable twin squashed to nobody, the
# probes' address and privileged ports only; reclaiming a killed run's
# folder touches nothing else.

load helpers

NFSSPECS=tests/fixtures/specs/nfs

setup() {
	OUT="$BATS_TEST_TMPDIR/out"
}

teardown() {
	if [ -n "${RPID:-}" ] && kill -0 "$RPID" 2>/dev/null; then
		kill -INT "$RPID" 2>/dev/null
		wait "$RPID" 2>/dev/null || :
	fi
	:
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "not root: --nfs netns needs root"
	command -v ip >/dev/null || skip "no ip (iproute2)"
}

need_ganesha() {
	need_root
	[ -x /usr/bin/ganesha.nfsd ] || [ -x /usr/sbin/ganesha.nfsd ] ||
		skip "nfs-ganesha not installed (make deps)"
	[ -x /usr/sbin/rpcbind ] || [ -x /sbin/rpcbind ] || skip "rpcbind not installed (make deps)"
}

# run_bg ARGS...: the runner in the background (pid in RPID), output in $BATS_TEST_TMPDIR/log
run_bg() {
	"$RUNNER" "$@" >"$BATS_TEST_TMPDIR/log" 2>&1 &
	RPID=$!
}

# server_up: wait for the manifest to name the server; sets URL, ADDR, DIR, AREA
server_up() {
	local m="$OUT/t/manifest.json"
	wait_until 25 sh -c "python3 -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))[\"nfs\"][\"url\"])' '$m' 2>/dev/null"
	URL=$(json "$m" 'd["nfs"]["url"]')
	DIR=$(json "$m" 'd["nfs"]["local_dir"]')
	ADDR=${URL#nfs://}
	ADDR=${ADDR%%/*}
	AREA=${DIR%/export}
}

# start_of PID: the process's start time (/proc/PID/stat field 22); fails when gone
start_of() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	[ "$1" != Z ] || return 1
	echo "${20}"
}

# ns_procs NETNS: "PID:START" of every process in the network namespace NETNS ("net:[N]")
ns_procs() {
	local p pid
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/net" 2>/dev/null)" = "$1" ] || continue
		pid=${p#/proc/}
		echo "$pid:$(start_of "$pid")"
	done
}

# server_procs: PROCS, every process in the server's namespace (ganesha's)
server_procs() {
	local g
	g=$(pgrep -f "$AREA/ganesha.conf" | head -1)
	[ -n "$g" ] || { echo "no ganesha.nfsd for $AREA"; return 1; }
	PROCS=$(ns_procs "$(readlink "/proc/$g/ns/net")")
	echo "$PROCS" | grep -q . || return 1
	# ganesha and rpcbind are among them
	for c in ganesha.nfsd rpcbind; do
		local found=
		for pp in $PROCS; do
			[ "$(cat "/proc/${pp%%:*}/comm" 2>/dev/null)" = "$c" ] && found=1
		done
		[ -n "$found" ] || { echo "no $c in the namespace"; return 1; }
	done
}

# procs_gone: none of PROCS runs any more (an exiting one may take a moment)
procs_gone() {
	local pp
	for pp in $PROCS; do
		[ "$(start_of "${pp%%:*}")" != "${pp#*:}" ] || return 1
	done
}

# nothing_left: no process of the server's namespace (so no namespace), no
# veth, no process naming the area, no area
nothing_left() {
	local pp
	for pp in $PROCS; do
		if [ "$(start_of "${pp%%:*}")" = "${pp#*:}" ]; then
			echo "process ${pp%%:*} left: $(tr '\0' ' ' <"/proc/${pp%%:*}/cmdline")"
			return 1
		fi
	done
	if ip -o link | grep -q "sn[hp]$RPID[@:]"; then echo "veth left:"; ip -o link | grep "sn[hp]$RPID"; return 1; fi
	if pgrep -a -f "$AREA"; then echo "a process naming $AREA is left"; return 1; fi
	if [ -e "$AREA" ]; then echo "$AREA left:"; ls -la "$AREA"; return 1; fi
}

# nfs_read ADDR EXPORT NAME 3|4: the file's bytes over NFSv3 (MOUNT found
# through rpcbind, MNT, LOOKUP, READ; RFC 1813) or NFSv4.0 (one COMPOUND:
# PUTROOTFH, LOOKUP, LOOKUP, READ with the anonymous stateid; RFC 7530): a
# client with nothing shared with the runner, from a privileged port (as root)
nfs_read() {
	python3 - "$@" <<'PY'
import os, random, socket, struct, sys

def privileged(host, port):     # the server answers privileged ports only
    for p in random.sample(range(600, 1024), 424):
        try:
            return socket.create_connection((host, port), timeout=5, source_address=("", p))
        except OSError as e:
            if e.errno not in (98, 99):     # EADDRINUSE, EADDRNOTAVAIL
                raise
    sys.exit("no privileged port free")

def call(host, port, prog, vers, proc, args):
    xid = int.from_bytes(os.urandom(4), "big")
    cred = struct.pack(">II", 0, 8) + b"sysmeter" + struct.pack(">III", 0, 0, 0)
    msg = (struct.pack(">IIIIII", xid, 0, 2, prog, vers, proc)
           + struct.pack(">II", 1, len(cred)) + cred + struct.pack(">II", 0, 0) + args)
    s = privileged(host, port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.sendall(struct.pack(">I", 0x80000000 | len(msg)) + msg)
    def take(n):
        b = b""
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                sys.exit("RPC %d v%d: connection closed" % (prog, vers))
            b += c
        return b
    data, last = b"", False
    while not last:
        (mark,) = struct.unpack(">I", take(4))
        last = mark & 0x80000000
        data += take(mark & 0x7fffffff)
    s.close()
    rxid, mtype, rstat, _, vlen = struct.unpack(">IIIII", data[:20])
    at = 20 + (vlen + 3) // 4 * 4
    if rxid != xid or mtype != 1 or rstat != 0 or struct.unpack(">I", data[at:at + 4])[0] != 0:
        sys.exit("RPC %d v%d: refused" % (prog, vers))
    return data[at + 4:]

def xstr(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)

def u32(b, at):
    return struct.unpack(">I", b[at:at + 4])[0]

host, export, name, vers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
out = b""
if vers == "3":
    mport = u32(call(host, 111, 100000, 2, 3, struct.pack(">IIII", 100005, 3, 6, 0)), 0)
    r = call(host, mport, 100005, 3, 1, xstr(export.encode()))
    if u32(r, 0):
        sys.exit("MNT %s: mountstat3 %d" % (export, u32(r, 0)))
    fh = r[8:8 + u32(r, 4)]
    r = call(host, 2049, 100003, 3, 3, xstr(fh) + xstr(name.encode()))
    if u32(r, 0):
        sys.exit("LOOKUP %s: nfsstat3 %d" % (name, u32(r, 0)))
    fh = r[8:8 + u32(r, 4)]
    while True:
        r = call(host, 2049, 100003, 3, 6, xstr(fh) + struct.pack(">QI", len(out), 65536))
        if u32(r, 0):
            sys.exit("READ: nfsstat3 %d" % u32(r, 0))
        at = 8 + (84 if u32(r, 4) else 0)      # status, post_op_attr
        _, eof, n = struct.unpack(">III", r[at:at + 12])
        out += r[at + 12:at + 12 + n]
        if eof or n == 0:
            break
else:
    comps = export.strip("/").split("/") + [name]
    ops = [struct.pack(">I", 24)] + [struct.pack(">I", 15) + xstr(c.encode()) for c in comps]
    while True:
        read = struct.pack(">I", 25) + b"\0" * 16 + struct.pack(">QI", len(out), 65536)
        r = call(host, 2049, 100003, 4, 1,
                 xstr(b"") + struct.pack(">II", 0, len(ops) + 1) + b"".join(ops) + read)
        if u32(r, 0):
            sys.exit("COMPOUND: nfsstat4 %d" % u32(r, 0))
        at = 4 + 4 + (u32(r, 4) + 3) // 4 * 4 + 4  # status, tag, count of results
        while u32(r, at) != 25:                 # PUTROOTFH, LOOKUPs: op, status
            at += 8
        eof, n = u32(r, at + 8), u32(r, at + 12)
        out += r[at + 16:at + 16 + n]
        if eof or n == 0:
            break
sys.stdout.buffer.write(out)
PY
}

# nfs_op ADDR EXPORT read|create|remove NAME [unprivileged]: one NFSv3 call
# (after MNT through rpcbind) from a privileged port, or from any port (as
# every process on this host can); prints "OP NAME: nfsstat3 N", or where
# it was refused: "MNT EXPORT: mountstat3 N", "RPC PROG: denied (auth_stat
# N)" (5: AUTH_TOOWEAK), "RPC PROG: connection closed"
nfs_op() {
	python3 - "$@" <<'PY'
import os, random, socket, struct, sys

host, export, op, name = sys.argv[1:5]
priv = len(sys.argv) < 6

def connect(port):
    if not priv:
        return socket.create_connection((host, port), timeout=5)
    for p in random.sample(range(600, 1024), 424):
        try:
            return socket.create_connection((host, port), timeout=5, source_address=("", p))
        except OSError as e:
            if e.errno not in (98, 99):
                raise
    sys.exit("no privileged port free")

def call(port, prog, vers, proc, args):
    xid = int.from_bytes(os.urandom(4), "big")
    cred = struct.pack(">II", 0, 8) + b"sysmeter" + struct.pack(">III", 0, 0, 0)
    msg = (struct.pack(">IIIIII", xid, 0, 2, prog, vers, proc)
           + struct.pack(">II", 1, len(cred)) + cred + struct.pack(">II", 0, 0) + args)
    s = connect(port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.sendall(struct.pack(">I", 0x80000000 | len(msg)) + msg)
    data, last = b"", False
    while not last:
        head = s.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            print("RPC %d: connection closed" % prog); sys.exit(0)
        (mark,) = struct.unpack(">I", head)
        last = mark & 0x80000000
        data += s.recv(mark & 0x7fffffff, socket.MSG_WAITALL)
    s.close()
    _, _, rstat, a, b = struct.unpack(">IIIII", data[:20])
    if rstat != 0:
        print("RPC %d: denied (auth_stat %d)" % (prog, b) if a == 1 else "RPC %d: denied" % prog)
        sys.exit(0)
    at = 20 + (b + 3) // 4 * 4
    if struct.unpack(">I", data[at:at + 4])[0] != 0:
        print("RPC %d: accept_stat %d" % (prog, struct.unpack(">I", data[at:at + 4])[0]))
        sys.exit(0)
    return data[at + 4:]

def xstr(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)

def u32(b, at):
    return struct.unpack(">I", b[at:at + 4])[0]

mport = u32(call(111, 100000, 2, 3, struct.pack(">IIII", 100005, 3, 6, 0)), 0)
r = call(mport, 100005, 3, 1, xstr(export.encode()))
if u32(r, 0):
    print("MNT %s: mountstat3 %d" % (export, u32(r, 0))); sys.exit(0)
root = r[8:8 + u32(r, 4)]
where = xstr(root) + xstr(name.encode())
if op == "create":      # UNCHECKED, mode 0644
    r = call(2049, 100003, 3, 8, where + struct.pack(">IIIIIIII", 0, 1, 0o644, 0, 0, 0, 0, 0))
elif op == "remove":
    r = call(2049, 100003, 3, 12, where)
else:
    r = call(2049, 100003, 3, 3, where)
    if u32(r, 0) == 0:
        r = call(2049, 100003, 3, 6, xstr(r[8:8 + u32(r, 4)]) + struct.pack(">QI", 0, 64))
print("%s %s: nfsstat3 %d" % (op.upper(), name, u32(r, 0)))
PY
}

# an NFS point of the fixture: ok, and what the probe got
check_ok_point() {
	[ "$(json "$1" 'd["points"][0]["status"]')" = ok ] || { json "$1" 'd["points"][0]["reason"]'; return 1; }
}

@test "nfs: --nfs netns serves the export over NFSv3 and v4; the probe gets it, manifest and report name it; nothing is left" {
	need_ganesha
	run_bg --no-report -o "$OUT" --run-id t --nfs netns --set hold.repetitions=20 "$NFSSPECS/hold.yaml"
	server_up
	[[ "$URL" =~ ^nfs://10\.77\.[0-9]+\.[0-9]+/sysmeter$ ]]
	[[ "$DIR" == /var/tmp/sysmeter-nfs.*/export ]]
	[ "$(stat -f -c %T "$DIR")" != tmpfs ]
	server_procs
	# real reads, v3 and v4, of a file written on this host into the export
	head -c 300000 /dev/urandom >"$DIR/data.bin"
	for v in 3 4; do
		nfs_read "$ADDR" /sysmeter data.bin $v >"$BATS_TEST_TMPDIR/got$v"
		cmp "$DIR/data.bin" "$BATS_TEST_TMPDIR/got$v"
	done
	if command -v rpcinfo >/dev/null; then
		rpcinfo -p "$ADDR" >"$BATS_TEST_TMPDIR/rpcinfo"
		grep -q ' 3 *tcp *2049 *nfs' "$BATS_TEST_TMPDIR/rpcinfo"
		grep -q ' 4 *tcp *2049 *nfs' "$BATS_TEST_TMPDIR/rpcinfo"
		grep -q ' 3 *tcp .*mountd' "$BATS_TEST_TMPDIR/rpcinfo"
	fi
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
	check_ok_point "$OUT/t/results/hold.json"
	[[ "$(cat "$BATS_TEST_TMPDIR/log")" == *"runner: --nfs netns: nfs-ganesha at $URL in a namespace (veth snh$RPID/snp$RPID), exporting $DIR"* ]]
	m="$OUT/t/manifest.json"
	[ "$(json "$m" 'd["options"]["nfs"]')" = netns ]
	[ "$(json "$m" 'd["nfs"]["label"]')" = "nfs-ganesha in a namespace on this host" ]
	[ "$(json "$m" 'd["nfs"]["error"]')" = null ]
	run nothing_left
	echo "$output"
	[ "$status" -eq 0 ]
	# the report's machine table
	command -v gnuplot >/dev/null || skip "no gnuplot for the report"
	run "$RUNNER" report --format md "$OUT/t"
	[ "$status" -eq 0 ]
	grep -q '^| NFS server | nfs-ganesha in a namespace on this host |$' "$OUT/t/report.md"
}

@test "nfs: the export is read-only, its writable twin squashed to nobody; a client from another port or address of the old /30 is refused" {
	need_ganesha
	run_bg --no-report -o "$OUT" --run-id t --nfs netns --set hold.repetitions=20 "$NFSSPECS/hold.yaml"
	server_up
	server_procs
	echo data >"$DIR/data.bin"
	# as the probes come (root on this host, the veth's host end, a
	# privileged port): they read, they do not write
	run nfs_op "$ADDR" /sysmeter read data.bin
	[ "$output" = "READ data.bin: nfsstat3 0" ]
	run nfs_op "$ADDR" /sysmeter create new.bin
	echo "$output"
	[ "$output" = "CREATE new.bin: nfsstat3 30" ]	# NFS3ERR_ROFS
	run nfs_op "$ADDR" /sysmeter remove data.bin
	[ "$output" = "REMOVE data.bin: nfsstat3 30" ]
	[ -e "$DIR/data.bin" ]
	[ ! -e "$DIR/new.bin" ]
	# the writable export: whoever writes is nobody
	run nfs_op "$ADDR" /sysmeter-rw create new.bin
	[ "$output" = "CREATE new.bin: nfsstat3 0" ]
	[ "$(stat -c %u:%g "$AREA/rw/area/new.bin")" = 65534:65534 ]
	# from the host's address but not a privileged port, as any process of
	# this host can: refused (AUTH_TOOWEAK)
	run nfs_op "$ADDR" /sysmeter read data.bin unprivileged
	echo "$output"
	[ "$output" = "RPC 100003: denied (auth_stat 5)" ]
	run nfs_op "$ADDR" /sysmeter-rw create other.bin unprivileged
	[ "$output" = "RPC 100003: denied (auth_stat 5)" ]
	if command -v setpriv >/dev/null; then	# a user who is not root
		run setpriv --reuid=65534 --regid=65534 --clear-groups \
			bash -c "cd /; $(declare -f nfs_op); nfs_op $ADDR /sysmeter read data.bin unprivileged"
		[ "$output" = "RPC 100003: denied (auth_stat 5)" ]
	fi
	[ ! -e "$AREA/rw/area/other.bin" ]
	# from the namespace's own address (in the veth's /30, not the probes'): refused
	g=$(pgrep -f "$AREA/ganesha.conf" | head -1)
	run nsenter -t "$g" -n bash -c "$(declare -f nfs_op); nfs_op $ADDR /sysmeter read data.bin"
	echo "$output"
	[ "$output" = "MNT /sysmeter: mountstat3 13" ]	# MNT3ERR_ACCES
	kill -INT "$RPID"
	wait "$RPID" || :
}

@test "nfs: a killed run's folder is reclaimed; one of another user, of another mode, without the marker or behind a link is left alone" {
	need_ganesha
	dead=$(sh -c 'echo $$')		# a runner that is gone
	area() {	# a folder as a killed runner leaves it: root's, 0755, the marker
		local d
		d=$(mktemp -d "/var/tmp/${1:-sysmeter-nfs.}XXXXXX")
		printf '%s 12345\nsysmeter --nfs netns scratch area\n' "$dead" >"$d/owner"
		chmod 644 "$d/owner"
		touch "$d/keep"
		chmod 755 "$d"
		echo "$d"
	}
	ours=$(area)
	users=$(area) && chown -R 65534:65534 "$users"		# planted by another user
	wide=$(area) && chmod 777 "$wide"
	nomark=$(area) && rm "$nomark/owner"
	badmark=$(area) && chown 65534 "$badmark/owner"
	target=$(area sysmeter-elsewhere.) && link=$(mktemp -u /var/tmp/sysmeter-nfs.XXXXXX)
	ln -s "$target" "$link"
	touch -h -d '2 hours ago' "$ours" "$users" "$wide" "$nomark" "$badmark" "$target" "$link"
	SYSMETER_GANESHA=/bin/false run "$RUNNER" --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/info.yaml"
	echo "$output"
	left=0
	for d in "$users" "$wide" "$nomark" "$badmark" "$target"; do
		[ -e "$d/keep" ] || { echo "$d was removed"; left=1; }
	done
	rm -rf "$users" "$wide" "$nomark" "$badmark" "$target" "$link"
	[ "$status" -eq 0 ]
	[ "$left" -eq 0 ]
	[[ "$output" == *"runner: --nfs netns: removed $ours, left by runner $dead (gone)"* ]]
	[ ! -e "$ours" ]
	[ "$(grep -c 'runner: --nfs netns: removed ' <<<"$output")" -eq 1 ]
}

@test "nfs: Ctrl-C while a point runs stops the run and removes server, namespace, veth and export" {
	need_ganesha
	run_bg --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/hold.yaml"
	server_up
	server_procs
	wait_until 20 grep -q '"running"' "$OUT/t/results/hold.json"
	kill -INT "$RPID"
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 130 ]
	[ "$(json "$OUT/t/manifest.json" 'd["status"]')" = interrupted ]
	run nothing_left
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "nfs: a runner killed with SIGKILL leaves no process, namespace or veth; the next --nfs netns removes its folder" {
	need_ganesha
	run_bg --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/hold.yaml"
	server_up
	server_procs
	kill -KILL "$RPID"
	wait "$RPID" 2>/dev/null || :
	# rpcbind runs as _rpc (no death signal): the PID namespace ends it
	wait_until 5 procs_gone
	wait_until 5 sh -c "! ip -o link | grep -q 'sn[hp]$RPID[@:]'"
	run nothing_left
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "$AREA left:"* ]]       # only the folder, and the next run takes it
	killed=$RPID AREA_KILLED=$AREA
	run "$RUNNER" --no-report -o "$OUT" --run-id u --nfs netns "$NFSSPECS/info.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"runner: --nfs netns: removed $AREA_KILLED, left by runner $killed (gone)"* ]]
	[ ! -e "$AREA_KILLED" ]
	check_ok_point "$OUT/u/results/info.json"
}

@test "nfs: Ctrl-C while the server starts (a ganesha that never answers) ends the run at once and leaves nothing" {
	need_ganesha
	# a "ganesha" that names its config (ganesha.nfsd -F -f CONF ...) and sleeps
	printf '#!/bin/bash\nexec -a "fake-ganesha $3" sleep 600\n' >"$BATS_TEST_TMPDIR/ganesha"
	chmod +x "$BATS_TEST_TMPDIR/ganesha"
	SYSMETER_GANESHA=$BATS_TEST_TMPDIR/ganesha run_bg --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/info.yaml"
	area_of_run() { grep -l "^$RPID " /var/tmp/sysmeter-nfs.*/owner 2>/dev/null; }
	wait_until 10 area_of_run
	AREA=$(dirname "$(area_of_run)")
	wait_until 10 pgrep -f "^fake-ganesha $AREA/ganesha.conf"
	g=$(pgrep -f "^fake-ganesha $AREA/ganesha.conf")
	PROCS=$(ns_procs "$(readlink "/proc/$g/ns/net")")
	[ "$(readlink "/proc/$g/ns/net")" != "$(readlink /proc/self/ns/net)" ]
	kill -INT "$RPID"
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 130 ]
	grep -q 'runner: --nfs netns: interrupted while starting' "$BATS_TEST_TMPDIR/log"
	[ "$(json "$OUT/t/manifest.json" 'd["nfs"]["error"]')" = "--nfs netns: interrupted while starting" ]
	run nothing_left
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "nfs: without ganesha the NFS points skip, naming the packages and make deps; the run exits 0" {
	need_root
	SYSMETER_GANESHA=/nonexistent run "$RUNNER" --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/info.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	msg="--nfs netns: nfs-ganesha is not installed (no /nonexistent, from SYSMETER_GANESHA; apt-get install nfs-ganesha nfs-ganesha-vfs rpcbind, or make deps)"
	[[ "$output" == *"runner: $msg"* ]]
	res="$OUT/t/results/info.json"
	[ "$(json "$res" 'd["points"][0]["status"]')" = skipped ]
	[ "$(json "$res" 'd["points"][0]["reason"]')" = "$msg" ]
	m="$OUT/t/manifest.json"
	[ "$(json "$m" 'd["nfs"]')" = "{\"url\": null, \"label\": null, \"local_dir\": null, \"error\": \"$msg\"}" ]
	command -v gnuplot >/dev/null || skip "no gnuplot for the report"
	run "$RUNNER" report --format md "$OUT/t"
	[ "$status" -eq 0 ]
	grep -qF "| NFS server | none (${msg//_/\\_}) |" "$OUT/t/report.md"    # Markdown-escaped
}

@test "nfs: a ganesha that exits at once skips the points with its exit status; nothing is left" {
	need_ganesha
	SYSMETER_GANESHA=/bin/false run_bg --no-report -o "$OUT" --run-id t --nfs netns "$NFSSPECS/info.yaml"
	status=0; wait "$RPID" || status=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$status" -eq 0 ]
	reason=$(json "$OUT/t/results/info.json" 'd["points"][0]["reason"]')
	[[ "$reason" == "--nfs netns: nfs-ganesha exited with status 1"* ]]
	! grep -l "^$RPID " /var/tmp/sysmeter-nfs.*/owner 2>/dev/null || false
	! ip -o link | grep "sn[hp]$RPID[@:]" || false
}

@test "nfs: --nfs netns not as root skips the NFS points with the reason and the command" {
	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	[ "$(id -u)" -eq 0 ] || skip "not root: cannot drop to another user"
	D=$(mktemp -d /tmp/sysmeter-nobody.XXXXXX)
	chmod 755 "$D"
	mkdir "$D/b" "$D/o"
	cp "$RUNNER" "$D/b/runner"
	cp "$FIXTURE_DIR/nfs_info.so" "$D/b/"
	cp "$NFSSPECS/info.yaml" "$D/info.yaml"
	chmod -R a+rX "$D"
	chmod 777 "$D/o"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env -u SYSMETER_PROBE_DIR \
		"$D/b/runner" --probe-dir "$D/b" --no-report -q -o "$D/o" --run-id t --nfs netns "$D/info.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	reason=$(json "$D/o/t/results/info.json" 'd["points"][0]["reason"]')
	rm -rf "$D"
	[ "$reason" = "--nfs netns needs root (it creates a network namespace and a veth pair and runs nfs-ganesha); run as root: sudo runner --nfs netns SPECS..." ]
}

@test "nfs: --nfs nfs://HOST/EXPORT reaches the probe as given, labelled with its host; rerun passes it again" {
	run "$RUNNER" --no-report -v -o "$OUT" --run-id a --nfs nfs://127.0.0.1/some/export "$NFSSPECS/info.yaml"
	echo "$output"
	[[ "$output" == *"nfs_url nfs://127.0.0.1/some/export, nfs_local_dir (null), nfs_label 127.0.0.1 (given with --nfs), nfs_error (null)"* ]]
	m="$OUT/a/manifest.json"
	[ "$(json "$m" 'd["options"]["nfs"]')" = nfs://127.0.0.1/some/export ]
	[ "$(json "$m" 'd["nfs"]')" = '{"url": "nfs://127.0.0.1/some/export", "label": "127.0.0.1 (given with --nfs)", "local_dir": null, "error": null}' ]
	run "$RUNNER" rerun --no-report -v -o "$OUT" --run-id b "$OUT/a"
	echo "$output"
	[[ "$output" == *"nfs_url nfs://127.0.0.1/some/export, nfs_local_dir (null)"* ]]
	[ "$(json "$OUT/b/manifest.json" 'd["nfs"]')" = "$(json "$m" 'd["nfs"]')" ]
	# without --nfs the probe hears of no server, and the manifest has none
	run "$RUNNER" --no-report -o "$OUT" --run-id c "$NFSSPECS/info.yaml"
	[ "$status" -eq 0 ]
	[ "$(json "$OUT/c/results/info.json" 'd["points"][0]["reason"]')" = "no NFS server" ]
	[ "$(json "$OUT/c/manifest.json" 'd["nfs"]')" = null ]
	[ "$(json "$OUT/c/manifest.json" 'd["options"]["nfs"]')" = null ]
}

@test "nfs: --nfs with anything but netns or nfs://HOST/EXPORT is bad usage" {
	for bad in nfs://host nfs:///x http://h/x 'nfs://h/'; do
		run "$RUNNER" --no-report -o "$OUT" --nfs "$bad" "$NFSSPECS/info.yaml"
		[ "$status" -eq 2 ]
		[ "$output" = "runner: --nfs '$bad': expected netns or nfs://HOST/EXPORT" ]
	done
	[ ! -e "$OUT" ]
}
