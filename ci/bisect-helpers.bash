# shellcheck shell=bash
# shellcheck disable=SC2154 # $lines, $stderr: set by bats' run
# Shared by the kbranch bisect tests (31-bisect, 32-bisect-repeat,
# 33-bisect-acl): planted scratch commits on the series' tip, the tester's
# config, and kbranch bisect run with its last lines read.

# Progress of long runs goes to the TAP stream as comments, live.
progress() {
	sed -u 's/^/# /' >&3
}

# The tester's config at $KBRANCH_CI_SCRATCH/tester-debug.config:
# builtin's at the tip, with CONFIG_EXT4_DEBUG, which none of our
# variants sets.
tester_debug_config() {
	ktree checkout -q -f ext4-rename
	(cd "$KTREE" && "$REPO/bisect-tests/run" --configure-only --variant builtin)
	sed 's/^# CONFIG_EXT4_DEBUG is not set$/CONFIG_EXT4_DEBUG=y/' "$KBRANCH_WORK/build/builtin/.config" \
		>"$KBRANCH_CI_SCRATCH/tester-debug.config"
	grep -qx 'CONFIG_EXT4_DEBUG=y' "$KBRANCH_CI_SCRATCH/tester-debug.config"
}

# The tree as the tests found it: no bisect, on the branch, scratch
# branches $@ gone.
bisect_tree_reset() {
	local branch
	ktree bisect reset >/dev/null 2>&1 || true
	ktree checkout -q -f ext4-rename
	for branch in "$@"; do
		! ktree rev-parse -q --verify "refs/heads/$branch" >/dev/null || ktree branch -q -D "$branch"
	done
}

# A commit on the checked-out branch: subject $1, then a command run in
# the tree that makes the change.
planted() {
	local subject=$1
	shift
	(cd "$KTREE" && "$@")
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -a -m "$subject"
}

# A change no build sees.
note() {
	echo "$1" >>Documentation/filesystems/ext4/index.rst
}

# C lines $3... put in fs/ext4/super.c's function whose definition starts
# with $2 (not its forward declaration): $1 "after-declarations" (its
# first blank line) or "top" (one without declarations: after its brace).
in_function() {
	python3 - "$@" <<'PY'
import sys
where, function, lines = sys.argv[1], sys.argv[2], sys.argv[3:]
src = open('fs/ext4/super.c').read().split('\n')
i = next(n for n, l in enumerate(src) if l.startswith(function) and not l.endswith(';'))
if where == 'top':
    assert src[i + 1] == '{'
    j = i + 2
else:
    j = next(n for n in range(i, len(src)) if src[n] == '')
src[j:j] = lines
open('fs/ext4/super.c', 'w').write('\n'.join(src))
PY
}

# kbranch bisect; stdout in $output and $lines, progress to the TAP stream.
kbisect() {
	run --separate-stderr "$KBRANCH" bisect "$@"
	printf '%s\n' "$stderr" | progress
	printf '%s\n' "$output"
}

# The report's path, and the first bad commit and revert check lines: the
# last three lines kbranch bisect prints.
report_of() {
	printf '%s\n' "${lines[${#lines[@]} - 1]}"
}

first_bad_line() {
	printf '%s\n' "${lines[${#lines[@]} - 3]}"
}

revert_line() {
	printf '%s\n' "${lines[${#lines[@]} - 2]}"
}

# The bisect just run (kbisect) printed its report, named commit $1 with
# subject $2 as the first bad one, and its revert on the bad end passed:
# with --repeat, in the boots bisect_revert_boots asks, all passed.
bisect_confirmed() {
	local culprit=$1 subject=$2
	cat "$(report_of)"
	[ "$status" -eq 0 ]
	[ "$(first_bad_line)" = "first bad commit: $culprit $subject" ]
	[[ "$(revert_line)" =~ ^'revert check: passed'( \([0-9]+ boots; the culprit\'s step failed [0-9]+ of [0-9]+\))?$ ]]
}
