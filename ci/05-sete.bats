#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# The fast tier: set -e holds where kbranch runs work whose failure is an
# answer, not a stop: a verify point (lib/jobs.sh's points_start) and a
# function run by exit_status_of (lib/common.sh).  Each case runs in a
# shell of its own under set -euo pipefail, as kbranch runs, not under
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
