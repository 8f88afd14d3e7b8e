# shellcheck shell=bash
# Messages, progress lines and paths shared by the bisect-tests stages.

export BT_DIR
BT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bisect-tests/lib/settings.sh
. "$BT_DIR/lib/settings.sh"
BT_START=$SECONDS

# Setup errors are not about the commit: git bisect run stops on 128.
die_setup() {
	printf 'bisect-tests: %s\n' "$*" >&2
	exit 128
}

say() {
	printf 'bisect-tests: %s\n' "$*" >&2
}

# say, for each line of $1: what a check printed as its problems.
say_each() {
	local line
	while IFS= read -r line; do
		say "$line"
	done <<<"$1"
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

# Run "$@" as a job of its own and put its exit status in JOB_STATUS:
# for work whose failure is an answer (a stage, a judge).  Tested in a
# condition, a function would run without set -e; in a job whose status
# wait reads, set -e holds in it.  INT and TERM end the job as they end
# the run (130, 143); its die_setup (128) ends the run too.  BT_JOB_PID
# names the running job, which run's interrupted stops before the run
# dies (job_interrupt): a signal sent to the run alone would leave it
# (make, QEMU) going.  The job stays in the run's process group: a signal
# to the group (Ctrl-C, a hangup, a kill -9 of the group) reaches every
# process of it, and none is left holding the work dir.
job_status() {
	JOB_STATUS=0
	(trap 'exit 130' INT; trap 'exit 143' TERM; "$@") &
	BT_JOB_PID=$!
	wait "$BT_JOB_PID" || JOB_STATUS=$?
	BT_JOB_PID=
	[ "$JOB_STATUS" != 128 ] || exit 128
}

# Stop job $1 and everything under it at once, and wait for it.  Each
# process gets INT, on which make and QEMU stop and after which no shell
# says "Terminated" (bash does for a child TERM killed: the run's own line
# must be the only one); a process that ignores INT, as a shell's
# background commands do (SIGINT, bit 2 of SigIgn), gets TERM.
job_interrupt() {
	local job=$1 pid mask signal
	for pid in $(job_tree_pids "$job"); do
		mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null || true)
		signal=INT
		[ -z "$mask" ] || [ "$((16#$mask & 2))" = 0 ] || signal=TERM
		kill "-$signal" "$pid" 2>/dev/null || true
	done
	wait "$job" 2>/dev/null || true
}

# Process $1 and every process under it, one pid a line.
job_tree_pids() {
	local child
	printf '%s\n' "$1"
	for child in $(pgrep -P "$1" || true); do
		job_tree_pids "$child"
	done
}

# Per-variant directories: the build is kept between commits, the run is not.
# The build dir of variant $1's kernel: a guest's (kind debian) is its
# kernel= variant's, one build for every guest that boots it.
build_dir() {
	printf '%s/build/%s\n' "$KBRANCH_WORK" "$(kernel_of "$1")"
}

# The variant whose kernel variant $1 boots: its kernel= (variant_kernel),
# except where that one is carried and HEAD has no base to carry it from
# (the packaged tree, where a guest's reference is recorded): then the
# variant it is compared with, as the carried one is.  BT_HAS_BASE (no
# at the packaged tree) is set by expect_load.
kernel_of() {
	local kernel name kind reference _
	kernel=$(variant_kernel "$1")
	while read -r name kind reference _; do
		[ "$name" = "$kernel" ] || continue
		[ "$kind" != carried ] || [ "${BT_HAS_BASE:-yes}" = yes ] || kernel=$reference
	done < <(variant_registry)
	printf '%s\n' "$kernel"
}

run_dir() {
	printf '%s/runs/%s\n' "$KBRANCH_WORK" "$1"
}

# The variant registry (configs/variants) as "name kind reference traits"
# lines, in its order; with kinds given, only those.
variant_registry() {
	local name kind ref traits _
	while IFS='|' read -r name kind ref traits _; do
		name=${name// /} kind=${kind// /} ref=${ref// /} traits=${traits// /}
		[[ -z "$name" || "$name" == \#* ]] && continue
		if [ "$#" -eq 0 ] || [[ " $* " == *" $kind "* ]]; then
			printf '%s %s %s %s\n' "$name" "$kind" "$ref" "${traits:--}"
		fi
	done <"$BT_DIR/configs/variants"
	# A tester's config (--config, lib/tester.sh) is a variant of its own:
	# carried, or of kind debian in the Debian guest.
	[ -z "${BT_TESTER_VARIANT:-}" ] || tester_registry_line "$@"
}

# The names of the variants of the given kinds (bash only: it runs before
# the tools are checked).
variants_of() {
	local name _
	while read -r name _; do
		printf '%s\n' "$name"
	done < <(variant_registry "$@")
}

# variant_field and variant_trait, the readers of those lines.
# shellcheck source=bisect-tests/lib/registry.sh
source "${BASH_SOURCE[0]%/*}/registry.sh"

# Does variant $1 build ext4 as a module?  yes or no, read from its
# .config, where a tester's config says it as well as ours (an answer
# printed: a function asked in a condition would run without set -e).
variant_modular() {
	local value
	value=$(config_value "$(used_symbol fs)" "$(build_dir "$1")/.config")
	if [ "$value" = m ]; then echo yes; else echo no; fi
}
