# shellcheck shell=bash
# Failures of the machine, not of the commit: every stage's log is read
# here before its failure becomes a verdict.  What this finds is a setup
# problem (128, git bisect run stops), never bad nor skip: a missing flex
# makes "make allnoconfig" fail at any commit, and a full disk makes any
# stage fail.

# The reason the log $1 shows a host problem, or nothing.  A disk too
# full to hold the log's own last lines is seen by its free space.
setup_problem() {
	local log=$1 avail
	avail=$(df --output=avail -B1 "$(dirname "$log")" 2>/dev/null | tail -n 1 | tr -d ' ')
	if [[ "$avail" =~ ^[0-9]+$ ]] && [ "$avail" -lt 1048576 ]; then
		echo "the disk is full: $avail bytes free on $(df --output=target "$(dirname "$log")" | tail -n 1)"
		return 0
	fi
	[ -f "$log" ] || return 0
	if grep -qE 'No space left on device|Disk quota exceeded' "$log"; then
		echo "the disk is full: $(grep -m1 -E 'No space left|quota exceeded' "$log")"
	elif grep -qE 'Read-only file system' "$log"; then
		echo "the disk is read-only: $(grep -m1 -E 'Read-only file system' "$log")"
	elif grep -qE 'Killed signal terminated program|cc1: out of memory|virtual memory exhausted|terminated with signal 9|Cannot allocate memory' "$log"; then
		echo "a tool was killed (out of memory?): $(grep -m1 -E 'Killed signal|out of memory|memory exhausted|signal 9|Cannot allocate' "$log")"
	elif grep -qE '(^|[ /:])(flex|bison|bc|gcc|cc|ld|perl|openssl|cpio|mke2fs|debugfs|depmod|gen_init_cpio|busybox): (command )?not found|No such file or directory.*(flex|bison|bc)$' "$log"; then
		echo "a tool is missing: $(grep -m1 -E 'not found|No such file' "$log")"
	elif grep -qE 'gelf\.h: No such file|libelf\.h: No such file|openssl/[a-z]+\.h: No such file' "$log"; then
		echo "a build library is missing: $(grep -m1 -E '\.h: No such file' "$log")"
	fi
}

# After stage $2 of variant $1 failed: stop with 128 when log $3 shows a
# host problem; return otherwise, for the stage to give its verdict.
setup_check() {
	local variant=$1 stage=$2 log=$3 why
	why=$(setup_problem "$log")
	[ -z "$why" ] || die_setup "$variant: $stage failed for this machine, not the commit: $why (log: $log)"
}

# Why the work dir cannot take the run's files, or nothing: its build/
# made, and 1 MiB written and synced there (the free space setup_problem
# asks of a stage's disk).  Asked before the run's first write (its lock,
# its run-id), which fails in run's own shell: an exit 1 that git bisect
# run would read as bad.
work_dir_problem() {
	local err probe=$KBRANCH_WORK/build/.write-probe.$$
	if ! err=$(mkdir -p "$KBRANCH_WORK/build" 2>&1); then
		printf '%s\n' "${err##*: }"
	elif ! err=$(dd if=/dev/zero of="$probe" bs=64K count=16 conv=fsync status=none 2>&1); then
		printf '%s\n' "${err##*: }"
	fi
	rm -f "$probe"
}

# 128, naming the reason, unless the work dir takes the run's files.
work_dir_check() {
	local why
	why=$(work_dir_problem)
	[ -z "$why" ] || die_setup "work dir $KBRANCH_WORK cannot be written: $why"
}
