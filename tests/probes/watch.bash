# Watching the process groups of a run, for the probes that create tasks
# (task_create, ctx_switch): no child of a point may survive it.

# run_watched ARGS...: run the runner in the background and, while it runs,
# note the process group of each point (the runner's children lead their
# own), every process seen in those groups and, per look, how many of them
# were zombies.  When a new group appears, the groups before it must be
# empty already (the runner reaps a point whole before the next).  Sets
# status and output like `run`.
run_watched() {
	local log="$BATS_TEST_TMPDIR/log" groups="$BATS_TEST_TMPDIR/groups" rpid g st
	: >"$groups"
	: >"$BATS_TEST_TMPDIR/seen"
	: >"$BATS_TEST_TMPDIR/early"
	echo 0 >"$BATS_TEST_TMPDIR/zombies"
	"$RUNNER" "$@" >"$log" 2>&1 &
	rpid=$!
	while st=$(ps -o stat= -p "$rpid" 2>/dev/null) && [ "${st#Z}" = "$st" ]; do
		ps -eo pid=,ppid=,pgid=,stat=,comm= >"$BATS_TEST_TMPDIR/ps"
		for g in $(awk -v r="$rpid" '$2 == r && $1 == $3 { print $1 }' "$BATS_TEST_TMPDIR/ps"); do
			grep -qx "$g" "$groups" && continue
			for old in $(cat "$groups"); do
				awk -v g="$old" '$3 == g' "$BATS_TEST_TMPDIR/ps" >>"$BATS_TEST_TMPDIR/early"
			done
			echo "$g" >>"$groups"
		done
		for g in $(cat "$groups"); do
			awk -v g="$g" '$3 == g' "$BATS_TEST_TMPDIR/ps" >>"$BATS_TEST_TMPDIR/seen"
			awk -v g="$g" '$3 == g && $4 ~ /^Z/' "$BATS_TEST_TMPDIR/ps" | wc -l \
				>>"$BATS_TEST_TMPDIR/zombies"
		done
		sleep 0.05
	done
	status=0
	wait "$rpid" || status=$?
	output=$(cat "$log")
}

# no_strays: none of the watched groups has a member left, not even a zombie,
# and none had one when the next point started.
no_strays() {
	local g left
	if [ -s "$BATS_TEST_TMPDIR/early" ]; then
		echo "left when the next point started:"; cat "$BATS_TEST_TMPDIR/early"
		return 1
	fi
	for g in $(cat "$BATS_TEST_TMPDIR/groups"); do
		left=$(ps -eo pid=,ppid=,pgid=,stat=,comm= | awk -v g="$g" '$3 == g')
		if [ -n "$left" ]; then
			echo "stray in group $g:"; echo "$left"
			return 1
		fi
	done
}

# max_zombies: the most zombies seen at once in a point's group while it ran
# (a probe that reaps each child at once has at most one, briefly).
max_zombies() {
	sort -n "$BATS_TEST_TMPDIR/zombies" | tail -1
}
