# shellcheck shell=bash
# One RESULT line per variant, and the git bisect run exit code for them all.
# kbranch sources this file too (lib/point.sh): the vocabulary below is
# both sides' one table.

# The verdict vocabulary: each word a RESULT line and a note say, the exit
# code git bisect run reads for it, and the TAP result kbranch verify
# prints for it, "<code> <tap>".  A word not in the table is bad.
#   good   0    ok
#   bad    1    not ok
#   skip   125  not ok, untestable (the build failed outside the series,
#               or the test said it cannot test this kernel)
#   flaky  125  not ok, untestable (failed, then passed on a second boot)
verdict_row() {
	case "$1" in
	good) echo '0 ok' ;;
	skip | flaky) echo '125 untestable' ;;
	*) echo '1 not-ok' ;;
	esac
}

# The exit code of verdict $1.
verdict_exit() {
	local row
	row=$(verdict_row "$1")
	printf '%s\n' "${row%% *}"
}

# The TAP result of verdict $1: ok, untestable or not-ok.
verdict_tap() {
	local row
	row=$(verdict_row "$1")
	printf '%s\n' "${row#* }"
}

# The word for exit code $1, for a run that printed no RESULT line: the
# table read backwards (skip for 125), bad for any code not in it.
verdict_of_exit() {
	local word code
	for word in good skip bad; do
		code=$(verdict_exit "$word")
		[ "$code" != "$1" ] || { echo "$word"; return 0; }
	done
	echo bad
}

verdict_of() {
	local build=$1 boot=$2 checks=$3
	case "$build/$boot/$checks" in
	*fail*) printf 'bad\n' ;;
	skip/*) printf 'skip\n' ;;
	ok/ok/flaky) printf 'flaky\n' ;;
	ok/ok/untestable) printf 'skip\n' ;;
	ok/ok/ok) printf 'good\n' ;;
	*) printf 'bad\n' ;;
	esac
}

# Why a verdict is no verdict on the commit, as the RESULT line's reason=
# says it: one word for the states verdict_of reads (build/boot/checks),
# nothing for good and bad.  An untestable step names who could not test
# it (BT_UNTESTABLE: the test, by default, or the Debian machine).
verdict_reason() {
	local build=$1 boot=$2 checks=$3
	case "$build/$boot/$checks" in
	*fail*) ;;
	skip/*) printf 'outside-series\n' ;;
	*/flaky) printf 'flaky\n' ;;
	*/untestable) printf '%s\n' "${BT_UNTESTABLE:-test-said-125}" ;;
	esac
}

# The sentence for reason $1, both sides' one: run says it, a report
# prints it; an unknown word is said as it is.
verdict_reason_text() {
	case "$1" in
	outside-series) echo 'every error is in a file the series does not change' ;;
	flaky) echo 'it failed on one boot and passed on another, which tells neither a bug that hides nor a test that lies' ;;
	test-said-125) echo 'the test exited 125: it cannot test this kernel' ;;
	machine-cannot-test) echo 'the Debian machine cannot mount its root at this step' ;;
	*) printf 'reason %s\n' "$1" ;;
	esac
}

# Prints the RESULT line, last of the variant's block; returns 0, 1 or 125.
# BT_RESULT_EXTRA, when set (lib/tester.sh), adds its fields before the
# verdict.  Given a run dir $6, the line also says where this run's logs are, the
# run's id (the run dir holds the last run only: its run-id file says
# whether it is still this one's), the .config it built and the release
# its build made, the objects it compiled (0: the build dir had them
# all) and the options the Debian guest added to a tester's config.  A
# verdict that is no verdict on the commit says why (reason=).
verdict_result() {
	local variant=$1 build=$2 boot=$3 checks=$4 seconds=$5 rdir=${6:-} verdict where='' reason
	verdict=$(verdict_of "$build" "$boot" "$checks")
	if [ -n "$rdir" ] && [ -f "$rdir/run-id" ]; then
		where=" run=$rdir id=$(cat "$rdir/run-id")"
		[ ! -f "$rdir/kernel.config" ] || where+=" config=$rdir/kernel.config"
		[ ! -f "$rdir/kernel.release" ] || where+=" release=$(cat "$rdir/kernel.release")"
		[ ! -f "$rdir/build.log" ] || where+=" compiled=$(verdict_compiled "$rdir/build.log")"
		[ ! -f "$rdir/kernel.id" ] || where+=" kernel=$(cat "$rdir/kernel.id")"
		[ ! -f "$rdir/guest-added" ] || where+=" guest-added=$rdir/guest-added"
	fi
	reason=$(verdict_reason "$build" "$boot" "$checks")
	[ -z "$reason" ] || where+=" reason=$reason"
	printf 'RESULT variant=%s build=%s boot=%s checks=%s seconds=%s%s verdict=%s\n' \
		"$variant" "$build" "$boot" "$checks" "$seconds" "$where${BT_RESULT_EXTRA:-}" "$verdict"
	return "$(verdict_exit "$verdict")"
}

# The objects (C and assembly) build log $1 says were compiled.
verdict_compiled() {
	grep -cE '^  (CC|AS)( \[M\])? ' "$1" || true
}

# The RESULT line's readers, both sides' one: the fields of the last
# RESULT line of a run's output on stdin ("" when it printed none), and
# field $2 of those fields $1, the first of a key ("" when it has none).
result_of_run() {
	sed -n 's/^RESULT //p' | tail -n 1
}

result_field() {
	local word
	for word in $1; do
		[ "${word%%=*}" != "$2" ] || { printf '%s\n' "${word#*=}"; return 0; }
	done
}

# bad beats skip beats good.
verdict_combine() {
	local code worst=0
	for code in "$@"; do
		case $code in
		1) worst=1 ;;
		125) [ "$worst" = 1 ] || worst=125 ;;
		esac
	done
	return "$worst"
}
