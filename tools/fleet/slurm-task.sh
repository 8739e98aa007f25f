#!/bin/sh
# sysmeter fleet: one Slurm task (`runner fleet --slurm` submits it with
# sbatch).  Runs the runner of the build in the shared folder on this node
# and leaves, in STAGE/jobs/$SLURM_JOB_ID/, the node's name, its clock, its
# machine id and the runner's exit code; the run folder itself goes to
# STAGE/jobs/$SLURM_JOB_ID/out/FLEET_ID-JOB (run ids stay unique in a
# results store).  This script is constant: every
# value arrives as an argument and is only ever quoted.
#   slurm-task.sh STAGE FLEET_ID TIME_LIMIT RUNNER_ARGS...
set -u
stage=$1 id=$2 limit=$3
shift 3
job=${SLURM_JOB_ID:?not run by Slurm}
d="$stage/jobs/$job"
mkdir -p "$d" || exit 1
printf '%s\n' "${SLURMD_NODENAME:-$(hostname -s)}" > "$d/node"
date +%s.%N > "$d/clock"
cat /etc/machine-id > "$d/machine_id" 2>/dev/null
cd "$stage/build" || exit 1
timeout --kill-after=30 "$limit" ./bin/runner -o "$d/out" --run-id "$id-$job" "$@"
echo $? > "$d/rc.tmp" && mv "$d/rc.tmp" "$d/rc"
