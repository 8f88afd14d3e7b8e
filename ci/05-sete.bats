#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# The fast tier: set -e holds where kbranch runs work whose failure is an
# answer, not a stop: a verify point (lib/jobs.sh's points_start) and a
# function run by exit_status_of (lib/common.sh); and where bisect-tests
# does: a stage run by job_status (bisect-tests/lib/common.sh) and a judge
# run by bisect-tests/run's judged.  Each case runs in a shell of its own
# under set -euo pipefail, as kbranch and bisect-tests/run run, not under
# bats' own errexit.

load helpers

# Runs the bash script $1 under set -euo pipefail with common.sh and
# jobs.sh sourced (the notes' cache, which points_finish forgets, left
# out); its output and status are bats' run's.
in_kbranch_shell() {
	run bash -c 'set -euo pipefail
		. "$1/branch-scripts/lib/common.sh"
		. "$1/branch-scripts/lib/jobs.sh"
		note_forget() { :; }
		eval "$2"' _ "$REPO" "$1"
}

setup() {
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work KBRANCH_JOBS=2 VERIFY_OUT=$BATS_TEST_TMPDIR/points
	mkdir -p "$VERIFY_OUT"
}

@test "set -e: a point stops at its first failing command, and its status is its rc" {
	in_kbranch_shell '
		point() { echo "ok 1 - begun"; false; echo "not reached"; }
		points_start 1 point
		wait
		cat "$VERIFY_OUT/1.tap" "$VERIFY_OUT/1.rc"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' 'ok 1 - begun' 1)" ]
}

@test "set -e: a point's verdict codes (0, 1, 125) are its rc, and points_finish counts the failed ones" {
	in_kbranch_shell '
		good() { echo "ok 1"; }
		bad() { echo "not ok 2"; return 1; }
		skipped() { echo "not ok 3 # untestable"; return 125; }
		points_start 1 good
		points_start 2 bad
		points_start 3 skipped
		points_finish
		echo "failed $POINTS_FAILED"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' 'ok 1' 'not ok 2' 'not ok 3 # untestable' 'failed 2')" ]
}

@test "points: started out of order (Kconfig-only points first), their TAP comes in the order of their numbers" {
	in_kbranch_shell '
		slow() { sleep 0.3; echo "ok $1"; }
		points_start 12 slow 12
		points_start 9 slow 9
		points_start 10 slow 10
		points_finish'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' 'ok 9' 'ok 10' 'ok 12')" ]
}

@test "set -e: a point that dies leaves no rc file, and points_finish stops verify in one line" {
	in_kbranch_shell '
		point() { echo "ok 1 - begun"; die "cannot set up"; }
		points_start 1 point
		points_finish'
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "$(printf '%s\n' 'kbranch: cannot set up' 'ok 1 - begun' 'kbranch: verify stopped: a point could not run (see above)')" ]
}

@test "set -e: a point that dies inside a command substitution died too" {
	in_kbranch_shell '
		setup_value() { die "no value"; }
		point() { local v; v=$(setup_value); echo "not reached $v"; }
		points_start 1 point
		wait
		[ ! -e "$VERIFY_OUT/1.rc" ] || echo "an rc file"
		cat "$VERIFY_OUT/1.tap"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "kbranch: no value" ]
}

@test "set -e: exit_status_of runs a function under set -e, gives its status and writes its output to a file" {
	in_kbranch_shell '
		judge() { read -r line; echo "said $line"; false; echo "not reached"; }
		rc=$(echo input | exit_status_of "$BATS_TEST_TMPDIR/said" judge)
		echo "rc $rc"
		cat "$BATS_TEST_TMPDIR/said"
		rc=$(exit_status_of /dev/null true)
		echo "rc $rc"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' 'rc 1' 'said input' 'rc 0')" ]
}

# Runs the bash script $1 under set -euo pipefail, as bisect-tests/run
# runs, with run sourced (its functions defined, nothing run).
in_run_shell() {
	run bash -c 'set -euo pipefail
		shopt -s inherit_errexit
		. "$1/bisect-tests/run"
		eval "$2"' _ "$REPO" "$1"
}

@test "set -e: job_status runs a stage under set -e, its status in JOB_STATUS; a stage's 128 ends the run with 128" {
	in_run_shell '
		stage() { echo begun; false; echo "not reached"; }
		job_status stage
		echo "status $JOB_STATUS"
		machine() { die_setup "a tool is missing"; }
		job_status machine
		echo "not reached either"'
	echo "$output"
	[ "$status" -eq 128 ]
	[ "$output" = "$(printf '%s\n' begun 'status 1' 'bisect-tests: a tool is missing')" ]
}

@test "set -e: judged runs a judge under set -e: one that stops at a failing command sets bad=1, one that passes leaves it" {
	in_run_shell '
		passes() { echo passed; }
		stops() { echo judging; false; echo "not reached"; }
		bad=0
		judged passes
		echo "bad=$bad"
		judged stops
		echo "bad=$bad"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' passed bad=0 judging bad=1)" ]
}
