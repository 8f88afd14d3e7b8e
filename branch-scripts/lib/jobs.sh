# shellcheck shell=bash
# Two points at once.  A point spends about half its time on one core
# (config, images, boots, Kconfig-only steps), so the variants of one commit
# run two at a time (KBRANCH_JOBS, default: the number of cores, at most 2):
# the other point's build takes the idle core.  Each point's TAP lines wait
# in a file and are printed in order; notes are recorded under a lock
# (note_record).

VERIFY_PIDS=()
VERIFY_POINTS=()
# How many points failed, summed by points_finish: counted, not returned,
# so that no caller tests points_finish in a condition.
POINTS_FAILED=0
# The exit status of die in a point (points_start): no verdict (0, 1 or
# bisect-tests/run's 125) and no signal's.
KB_POINT_DIED=99

verify_jobs() {
	local jobs=$KBRANCH_JOBS
	[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "KBRANCH_JOBS must be a positive number, not '$jobs'"
	[ "$jobs" -le 2 ] || jobs=2
	echo "$jobs"
}

# Start point $1 (a function and its arguments follow) in the background,
# once fewer than verify_jobs points run.
points_start() {
	local n=$1 out max
	shift
	out=$VERIFY_OUT/$n
	# Asked before the loop, not inside its test, where set -e would not
	# hold: a KBRANCH_JOBS that is no number stops verify here.
	max=$(verify_jobs)
	while [ "$(jobs -rp | wc -l)" -ge "$max" ]; do
		wait -n || true
	done
	(
		# Trapped, not ignored: bisect-tests/run gets Ctrl-C, and this
		# job ends only after it, so nothing builds while HEAD goes back.
		trap 'exit 130' INT
		trap 'exit 143' TERM
		rc=0
		# The point runs as a job of its own, whose status wait gives:
		# a function tested in a condition ("$@" || rc=$?) would run
		# without set -e.  die there exits with KB_POINT_DIED: the
		# point died, and leaves no rc file.
		# (An asynchronous job ignores SIGINT unless it traps it.)
		(
			trap 'exit 130' INT
			trap 'exit 143' TERM
			# shellcheck disable=SC2034 # read by die (lib/common.sh)
			KB_DIE_STATUS=$KB_POINT_DIED
			"$@" >"$out.tap"
		) &
		wait "$!" || rc=$?
		[ "$rc" = "$KB_POINT_DIED" ] || echo "$rc" >"$out.rc"
	) &
	VERIFY_PIDS+=("$!")
	VERIFY_POINTS+=("$n")
}

# Wait for the started points, print their TAP in order; adds how many
# failed to POINTS_FAILED.  A point that died (a setup problem, said on stderr) has no rc
# file: verify stops, as it would have without the parallel runs.
points_finish() {
	local pid n rc failed=0 died=0 line done_files=()
	for pid in "${VERIFY_PIDS[@]}"; do
		wait "$pid" || true
	done
	# In the order of their numbers, whatever order they started in.
	[ "${#VERIFY_POINTS[@]}" = 0 ] ||
		mapfile -t VERIFY_POINTS < <(printf '%s\n' "${VERIFY_POINTS[@]}" | sort -n)
	for n in "${VERIFY_POINTS[@]}"; do
		if [ -f "$VERIFY_OUT/$n.tap" ]; then
			while IFS= read -r line; do
				printf '%s\n' "$line"
			done <"$VERIFY_OUT/$n.tap"
		fi
		if [ ! -f "$VERIFY_OUT/$n.rc" ]; then
			died=1
			continue
		fi
		read -r rc <"$VERIFY_OUT/$n.rc"
		[ "$rc" = 0 ] || failed=$((failed + 1))
		done_files+=("$VERIFY_OUT/$n.tap" "$VERIFY_OUT/$n.rc")
	done
	[ "${#done_files[@]}" = 0 ] || rm -f "${done_files[@]}"
	# Notes recorded by the points that ran: read them again when next
	# asked.  (A reused point records in this shell, which forgets itself.)
	[ "${#VERIFY_PIDS[@]}" = 0 ] || note_forget
	VERIFY_PIDS=()
	VERIFY_POINTS=()
	[ "$died" = 0 ] || die "verify stopped: a point could not run (see above)"
	POINTS_FAILED=$((POINTS_FAILED + failed))
}
