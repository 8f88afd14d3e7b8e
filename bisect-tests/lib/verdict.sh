# shellcheck shell=bash
# One RESULT line per variant, and the git bisect run exit code for them all.

verdict_of() {
	local build=$1 boot=$2 checks=$3
	case "$build/$boot/$checks" in
	*fail*) printf 'bad\n' ;;
	skip/*) printf 'skip\n' ;;
	ok/ok/flaky) printf 'flaky\n' ;;
	ok/ok/ok) printf 'good\n' ;;
	*) printf 'bad\n' ;;
	esac
}

# Prints the RESULT line, last of the variant's block; returns 0, 1 or 125.
verdict_result() {
	local variant=$1 build=$2 boot=$3 checks=$4 seconds=$5 verdict
	verdict=$(verdict_of "$build" "$boot" "$checks")
	printf 'RESULT variant=%s build=%s boot=%s checks=%s seconds=%s verdict=%s\n' \
		"$variant" "$build" "$boot" "$checks" "$seconds" "$verdict"
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
