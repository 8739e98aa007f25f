# Fleet test hosts: network namespaces of this machine, each with a veth pair
# to the root namespace (its own /30) and an sshd of its own on its address,
# with a host key and a client key made for the test.  Names are unique to
# the test's process (smfleet-PID-X), so they never meet the runner's own
# --peer netns namespaces or another test's.  fleet_hosts_down removes it
# all (call it from teardown, which bats runs also when a test fails or is
# interrupted; a trap of our own on EXIT would replace bats' own).
#
#   fleet_hosts_up DIR a b c      namespaces, veths, keys, inventory DIR/inventory
#   fleet_sshd_start DIR a        sshd in a's namespace (-D, in the background)
#   fleet_hosts_link DIR a b      a veth pair straight between a and b
#   fleet_hosts_down DIR

fleet_skip_unless_possible() {
	[ "$(id -u)" = 0 ] || skip "fleet hosts are network namespaces: needs root"
	command -v ansible-playbook >/dev/null || skip "ansible-playbook not installed (tools/deps.sh --test-only: ansible-core)"
	[ -x /usr/sbin/sshd ] || skip "/usr/sbin/sshd not installed (tools/deps.sh --test-only: openssh-server)"
	command -v ssh-keygen >/dev/null || skip "ssh-keygen not installed (openssh-client)"
	ip netns list >/dev/null 2>&1 || skip "ip netns does not work here"
}

# fleet_net_of N: the third octet of this test's addresses (10.251.X.0/24,
# one /30 per host)
fleet_hosts_up() {
	local dir=$1 i=0 h x
	shift
	x=$(( $$ % 250 ))
	mkdir -p "$dir"
	echo "$$" > "$dir/owner"
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" -C fleet-test-host
	ssh-keygen -q -t ed25519 -N '' -f "$dir/client_key" -C fleet-test-client
	cp "$dir/client_key.pub" "$dir/authorized_keys"
	chmod 600 "$dir/authorized_keys"
	mkdir -p /run/sshd
	: > "$dir/names"
	{
		for h in "$@"; do
			local ns="smfleet-$$-$h" hv="smf$$${h}h" nv="smf$$${h}n"
			local haddr="10.251.$x.$((i * 4 + 1))" naddr="10.251.$x.$((i * 4 + 2))"
			ip netns add "$ns"
			echo "$ns $hv" >> "$dir/names"
			ip link add "$hv" type veth peer name "$nv"
			ip link set "$nv" netns "$ns"
			ip addr add "$haddr/30" dev "$hv"
			ip link set "$hv" up
			ip -n "$ns" addr add "$naddr/30" dev "$nv"
			ip -n "$ns" link set "$nv" up
			ip -n "$ns" link set lo up
			mkdir -p "$dir/host-$h"
			cat > "$dir/sshd-$h.conf" <<CONF
ListenAddress $naddr
Port 22
HostKey $dir/host_key
PidFile $dir/sshd-$h.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
Subsystem sftp /usr/lib/openssh/sftp-server
CONF
			echo "$h ansible_host=$naddr sysmeter_fleet_dir=$dir/host-$h/sysmeter"
			i=$((i + 1))
		done
		echo
		echo "[all:vars]"
		echo "ansible_user=root"
		echo "ansible_ssh_private_key_file=$dir/client_key"
		echo "ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 -o ControlMaster=no'"
		echo "ansible_python_interpreter=/usr/bin/python3"
	} > "$dir/inventory"
}

# fleet_hosts_link DIR a b: a veth pair straight between a's and b's
# namespaces, 10.252.X.1/30 in a and .2 in b: a data network of their own
# that this (the controller's) namespace is not on, as two lab machines
# may share a switch.  LINK_A and LINK_B are set to the two addresses.  It
# goes with the namespaces (fleet_hosts_down).
fleet_hosts_link() {
	local a="smfleet-$$-$2" b="smfleet-$$-$3" x=$(( $$ % 250 ))
	LINK_A="10.252.$x.1" LINK_B="10.252.$x.2"
	echo "- smfl$$a" >> "$1/names"	# removed from here if it never moved
	ip link add "smfl$$a" type veth peer name "smfl$$b"
	ip link set "smfl$$a" netns "$a"
	ip link set "smfl$$b" netns "$b"
	ip -n "$a" addr add "$LINK_A/30" dev "smfl$$a"
	ip -n "$b" addr add "$LINK_B/30" dev "smfl$$b"
	ip -n "$a" link set "smfl$$a" up
	ip -n "$b" link set "smfl$$b" up
}

fleet_sshd_start() {
	local dir=$1 h=$2
	ip netns exec "smfleet-$$-$h" /usr/sbin/sshd -f "$dir/sshd-$h.conf" -D -E "$dir/sshd-$h.log" &
	echo $! > "$dir/sshd-$h.bgpid"
	wait_until 10 test -s "$dir/sshd-$h.pid"
}

fleet_hosts_down() {
	local dir=$1 ns hv p
	[ -f "$dir/names" ] || return 0
	for p in "$dir"/sshd-*.bgpid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	while read -r ns hv; do
		# every process in the namespace: the sshd and its sessions
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
		ip link del "$hv" 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done < "$dir/names"
	rm -f "$dir/names"
}
