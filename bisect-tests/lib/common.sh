# shellcheck shell=bash
# Messages, progress lines and paths shared by the bisect-tests stages.

export BT_DIR
BT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KBRANCH_WORK=${KBRANCH_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/kbranch}
BT_START=$SECONDS

# Setup errors are not about the commit: git bisect run stops on 128.
die_setup() {
	printf 'bisect-tests: %s\n' "$*" >&2
	exit 128
}

say() {
	printf 'bisect-tests: %s\n' "$*" >&2
}

# One progress line per step, with the seconds since the run started.
step() {
	printf '[%4ss] %s\n' "$((SECONDS - BT_START))" "$*" >&2
}

# Run a command with all its output appended to a log file.
logged() {
	local log=$1
	shift
	mkdir -p "$(dirname "$log")"
	"$@" >>"$log" 2>&1
}

# Per-variant directories: the build is kept between commits, the run is not.
build_dir() {
	printf '%s/build/%s\n' "$KBRANCH_WORK" "$1"
}

run_dir() {
	printf '%s/runs/%s\n' "$KBRANCH_WORK" "$1"
}
