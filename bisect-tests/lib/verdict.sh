# shellcheck shell=bash
# One RESULT line per variant, and the git bisect run exit code for them all.

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

# Prints the RESULT line, last of the variant's block; returns 0, 1 or 125.
# BT_RESULT_EXTRA, when set (lib/tester.sh), adds its fields before the
# verdict.  Given a run dir $6, the line also says where this run's logs are, the
# run's id (the run dir holds the last run only: its run-id file says
# whether it is still this one's) and the .config it built.
verdict_result() {
	local variant=$1 build=$2 boot=$3 checks=$4 seconds=$5 rdir=${6:-} verdict where=''
	verdict=$(verdict_of "$build" "$boot" "$checks")
	if [ -n "$rdir" ] && [ -f "$rdir/run-id" ]; then
		where=" run=$rdir id=$(cat "$rdir/run-id")"
		[ ! -f "$rdir/kernel.config" ] || where+=" config=$rdir/kernel.config"
	fi
	printf 'RESULT variant=%s build=%s boot=%s checks=%s seconds=%s%s verdict=%s\n' \
		"$variant" "$build" "$boot" "$checks" "$seconds" "$where${BT_RESULT_EXTRA:-}" "$verdict"
	case $verdict in
	good) return 0 ;;
	skip | flaky) return 125 ;;
	*) return 1 ;;
	esac
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
