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

# The variant registry (configs/variants) as "name kind reference" lines,
# in its order; with kinds given, only those.
variant_registry() {
	local name kind ref _
	while IFS='|' read -r name kind ref _; do
		name=${name// /} kind=${kind// /} ref=${ref// /}
		[[ -z "$name" || "$name" == \#* ]] && continue
		if [ "$#" -eq 0 ] || [[ " $* " == *" $kind "* ]]; then
			printf '%s %s %s\n' "$name" "$kind" "$ref"
		fi
	done <"$BT_DIR/configs/variants"
}

# The names of the variants of the given kinds (bash only: it runs before
# the tools are checked).
variants_of() {
	local name _
	while read -r name _; do
		printf '%s\n' "$name"
	done < <(variant_registry "$@")
}
