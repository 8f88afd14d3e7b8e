#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2034,SC2317,SC1091 # $status, $output: set by bats' run; note_record replaced
# The fast tier: one verdict per kbranch verify point gives both its TAP
# line and its note, and a verdict that could not be recorded is not ok.
# cmd/verify.sh's functions, sourced; the note store is replaced by one
# that records into a file, or fails.

load helpers

setup() {
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	# shellcheck source=branch-scripts/lib/common.sh
	source "$REPO/branch-scripts/lib/common.sh"
	# shellcheck source=branch-scripts/lib/notes.sh
	source "$REPO/branch-scripts/lib/notes.sh"
	# shellcheck source=branch-scripts/cmd/verify.sh
	source "$REPO/branch-scripts/cmd/verify.sh"
	COMMIT_DESC[c0ffee]='c0ffee ext4: a commit'
	RESULT='build=ok boot=ok checks=ok seconds=9 verdict=good'
	RECORDED=$BATS_TEST_TMPDIR/recorded
	note_record() { printf '%s\n' "$*" >>"$RECORDED"; }
}

# verify.sh defines a run() of its own, in place of bats' run: capture by hand.
finish() {
	status=0
	output=$(point_finish "$@") || status=$?
}

# A whole verify point (verify_point) at commit c0ffee in variant builtin,
# as point N, where bisect-tests/run exits $2 with RESULT fields $3.
point() {
	local n=$1
	RUN_ANSWER="$2 $3"
	verify_one() { printf '%s\n' "$RUN_ANSWER"; }
	status=0
	output=$(verify_point "$n" c0ffee builtin 0 1 0) || status=$?
}

@test "points: a good verdict is ok and recorded good; skip and flaky are not ok, untestable, 125; bad is not ok, 1" {
	finish 3 c0ffee builtin good 'build=ok' "$RESULT"
	[ "$status" -eq 0 ]
	[ "$output" = 'ok 3 - c0ffee ext4: a commit [builtin] build=ok boot=ok checks=ok 9s' ]
	finish 4 c0ffee builtin flaky 'build=ok' "$RESULT"
	[ "$status" -eq 125 ]
	[[ "$output" == 'not ok 4 - '*' # untestable (flaky verdict)' ]]
	finish 5 c0ffee builtin bad 'build=ok' "$RESULT"
	[ "$status" -eq 1 ]
	[[ "$output" == 'not ok 5 - '* ]]
	# A skip as a point reaches one: bisect-tests/run's 125 and its RESULT
	# line (a build that failed outside the series' files), through
	# verify_point to its TAP line, its note and its exit code.
	point 6 125 'variant=builtin build=skip boot=skip checks=skip seconds=4 verdict=skip'
	[ "$status" -eq 125 ]
	[ "$output" = 'not ok 6 - c0ffee ext4: a commit [builtin] build=skip boot=skip checks=skip 4s # untestable (skip verdict)' ]
	[ "$(cut -d' ' -f1-3 "$RECORDED")" = "$(printf '%s\n' 'c0ffee builtin good' 'c0ffee builtin flaky' 'c0ffee builtin bad' 'c0ffee builtin skip')" ]
}

@test "points: a good verdict that could not be recorded is not ok, and says so" {
	note_record() { return 1; }
	finish 3 c0ffee builtin good 'build=ok' "$RESULT"
	[ "$status" -eq 1 ]
	[ "$output" = "not ok 3 - c0ffee ext4: a commit [builtin]: its verdict (good) could not be recorded in refs/notes/kbranch" ]
}

@test "points: a KBRANCH_JOBS that is no number stops verify before any point starts, in one line" {
	# In a shell of its own, under set -e as kbranch runs it (verify.sh's
	# run() stands in bats' way here).
	local err=$BATS_TEST_TMPDIR/err status=0
	KBRANCH_JOBS=x VERIFY_OUT=$BATS_TEST_TMPDIR bash -c 'set -euo pipefail
		. "$1/branch-scripts/lib/common.sh"
		. "$1/branch-scripts/lib/jobs.sh"
		points_start 1 touch "$2"
		wait' _ "$REPO" "$BATS_TEST_TMPDIR/started" 2>"$err" || status=$?
	cat "$err"
	[ "$status" -eq 1 ]
	[ "$(cat "$err")" = "kbranch: KBRANCH_JOBS must be a positive number, not 'x'" ]
	[ ! -e "$BATS_TEST_TMPDIR/started" ]
}
