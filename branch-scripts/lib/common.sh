# shellcheck shell=bash
# Helpers shared by every kbranch subcommand: messages, paths, the work-dir lock.

KBRANCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KBRANCH_WORK=${KBRANCH_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/kbranch}
KTREE=$KBRANCH_WORK/linux
KBRANCH_BRANCH=ext4-rename
KBRANCH_BASE_TAG=ext4dev-base
KBRANCH_START=$SECONDS
export KBRANCH_REPO KBRANCH_WORK KTREE KBRANCH_BRANCH KBRANCH_BASE_TAG

die() {
	printf 'kbranch: %s\n' "$*" >&2
	exit 1
}

# One progress line per step, with the seconds since the command started.
step() {
	printf '[%4ss] %s\n' "$((SECONDS - KBRANCH_START))" "$*" >&2
}

# Run a command with its output going to a log file; on failure, name the log.
logged() {
	local log=$1
	shift
	mkdir -p "$(dirname "$log")"
	"$@" >>"$log" 2>&1 || { printf 'kbranch: failed: %s (log: %s)\n' "$*" "$log" >&2; return 1; }
}

# git in the kernel tree, with an identity that never depends on the caller's setup.
kgit() {
	git -C "$KTREE" -c user.name=kbranch -c user.email=kbranch@localhost "$@"
}

require_tree() {
	git -C "$KTREE" rev-parse --verify -q "refs/tags/$KBRANCH_BASE_TAG" >/dev/null ||
		die "no imported tree at $KTREE; run 'kbranch import' first"
}

require_clean_tree() {
	[ -z "$(kgit status --porcelain --untracked-files=normal)" ] ||
		die "kernel tree $KTREE has uncommitted changes; commit or stash them first"
	[ ! -d "$(kgit rev-parse --git-path rebase-apply)" ] ||
		die "kernel tree $KTREE has a git am in progress; run 'git am --abort' there"
}

# One run per work dir at a time.  flock is released by the kernel when the
# holder dies, so a killed run never leaves a stale lock behind.
take_lock() {
	mkdir -p "$KBRANCH_WORK" || die "cannot create work dir $KBRANCH_WORK"
	exec 9<>"$KBRANCH_WORK/lock" || die "cannot open lock file in $KBRANCH_WORK"
	if ! flock -n 9; then
		die "work dir $KBRANCH_WORK is in use by pid $(cat "$KBRANCH_WORK/lock" 2>/dev/null || echo '?')"
	fi
	printf '%s\n' "$$" >"$KBRANCH_WORK/lock"
}

# Commands that check out other commits put HEAD back however they end.
restore_head_on_exit() {
	KBRANCH_ORIG=$(kgit symbolic-ref -q --short HEAD || kgit rev-parse HEAD)
	trap 'kgit checkout -q -f "$KBRANCH_ORIG"' EXIT
}
