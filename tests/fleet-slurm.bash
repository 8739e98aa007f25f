# A one-machine Slurm cluster for the fleet tests: munged with its own key
# and socket, slurmctld and slurmd with every file (config, state, spool,
# pids, logs) under DIR, on ports of their own.  One node (this machine's
# name) with its CPUs; the fleet's job array puts two tasks on it.
#   fleet_slurm_up DIR     (exports SLURM_CONF; returns 1 with DIR/why when
#                           a daemon does not start)
#   fleet_slurm_down DIR

fleet_slurm_up() {
	local dir=$1 node cpus port
	node=$(hostname -s)
	cpus=$(nproc)
	port=$(( 20000 + $$ % 20000 ))
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 700 "$dir/munge"
	mungekey --create --keyfile="$dir/munge/munge.key" 2>"$dir/why" || return 1
	munged --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
		--seed-file="$dir/munge/munged.seed" --force 2>>"$dir/why" || return 1
	cat > "$dir/slurm.conf" <<CONF
ClusterName=smfleet$$
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=smfleet Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF="$dir/slurm.conf"
	slurmctld -f "$SLURM_CONF" 2>>"$dir/why" || return 1
	slurmd -f "$SLURM_CONF" 2>>"$dir/why" || return 1
	# the node is up once sinfo says idle
	local end=$((SECONDS + 30))
	until sinfo -h -o '%t' 2>/dev/null | grep -q '^idle'; do
		if [ "$SECONDS" -ge "$end" ]; then
			{ echo "the node did not become idle in 30 s:"; sinfo 2>&1; tail -5 "$dir/slurmd.log" "$dir/slurmctld.log"; } >> "$dir/why" 2>&1
			return 1
		fi
		sleep 0.2
	done
}

fleet_slurm_down() {
	local dir=$1 f p
	# each daemon gone before the test's folder is removed (slurmctld
	# writes its state on the way out)
	for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		kill "$p" 2>/dev/null && wait_until 20 exited "$p"
		rm -f "$f"
	done
	return 0
}
