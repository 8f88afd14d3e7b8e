# shellcheck shell=bash
# Helpers shared by every kbranch subcommand: messages, paths, the work-dir lock.

# shellcheck source=branch-scripts/lib/settings.sh
. "$(dirname "${BASH_SOURCE[0]}")/settings.sh"

KB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KTREE=$KBRANCH_WORK/linux
KB_BASE_TAG=ext4dev-base
KB_START=$SECONDS
export KB_REPO KTREE KB_BASE_TAG

# KB_DIE_STATUS: a subcommand whose callers need another code (bisect's
# bad input is 128, as git bisect run's setup errors are).
die() {
	printf 'kbranch: %s\n' "$*" >&2
	exit "${KB_DIE_STATUS:-1}"
}

# One progress line per step, with the seconds since the command started.
step() {
	printf '[%4ss] %s\n' "$((SECONDS - KB_START))" "$*" >&2
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

# A Debian version as the name of a git ref: '~' (6.12.118-1~deb12u1) is
# not allowed in one, and Debian versions never hold '_'.
version_ref() {
	printf '%s\n' "${1//\~/_}"
}

# The packaged import the base sits on, as its tag's version part: each
# import is a root commit, so only one packaged/* tag is its ancestor.
base_version() {
	kgit tag --merged "$KB_BASE_TAG" -l 'packaged/*' | sed -n '1s|^packaged/||p'
}

# Record the base's packaged version as verified in base/linux-source.version
# (kbranch verify, after a full pass), in Debian's spelling.
base_version_record() {
	local installed file=$KB_REPO/base/linux-source.version
	installed=$(base_version)
	installed=${installed//_/\~}
	if [ -n "$installed" ] && [ "$(cat "$file")" != "$installed" ]; then
		printf '%s\n' "$installed" >"$file"
		step "recorded linux-source $installed as verified in base/linux-source.version"
	fi
}

# A scratch worktree of the kernel tree gone, whatever state a killed run
# left it in (git locks a worktree while it is being made).
drop_worktree() {
	# git itself, not kgit: a function whose failure is ignored would run
	# without set -e (the identity kgit adds is not needed here).
	git -C "$KTREE" worktree unlock "$1" >/dev/null 2>&1 || true
	git -C "$KTREE" worktree remove --force --force "$1" >/dev/null 2>&1 || true
	rm -rf "$1"
	kgit worktree prune
}

require_tree() {
	git -C "$KTREE" rev-parse --verify -q "refs/tags/$KB_BASE_TAG" >/dev/null ||
		die "no imported tree at $KTREE; run 'kbranch import' first"
}

require_clean_tree() {
	[ -z "$(git -C "$KTREE" status --porcelain --untracked-files=normal)" ] ||
		die "kernel tree $KTREE has uncommitted changes; commit or stash them first"
	[ ! -d "$(git -C "$KTREE" rev-parse --git-path rebase-apply)" ] ||
		die "kernel tree $KTREE has a git am in progress; run 'git am --abort' there"
}

# One run per work dir at a time.  flock is released by the kernel when the
# holder dies, so a killed run never leaves a stale lock behind.  "kbranch
# all" holds it for the subcommands it runs (KB_LOCK_HELD).
take_lock() {
	[ "${KB_LOCK_HELD:-}" != "$KBRANCH_WORK" ] || return 0
	mkdir -p "$KBRANCH_WORK" 2>/dev/null || die "cannot create work dir $KBRANCH_WORK"
	if [ ! -w "$KBRANCH_WORK" ] || ! touch "$KBRANCH_WORK/lock" 2>/dev/null; then
		die "work dir $KBRANCH_WORK is not writable"
	fi
	exec 9<"$KBRANCH_WORK/lock"
	if ! flock -n 9; then
		die "work dir $KBRANCH_WORK is in use by $(cat "$KBRANCH_WORK/lock" 2>/dev/null || echo 'another process'); try again when it ends"
	fi
	printf 'pid %s (kbranch %s)\n' "$$" "${KB_SUBCOMMAND:-?}" >"$KBRANCH_WORK/lock" 2>/dev/null ||
		die "cannot write to work dir $KBRANCH_WORK (full or read-only?)"
	export KB_LOCK_HELD=$KBRANCH_WORK
	recover_interrupted
}

# A command that moves HEAD records where it was; if that record is still
# there when the lock is next taken, its run was killed: put HEAD back.
recover_interrupted() {
	local state=$KBRANCH_WORK/head.state orig
	[ -f "$state" ] && [ -d "$KTREE/.git" ] || return 0
	orig=$(cat "$state")
	clear_stale_git_locks
	git -C "$KTREE" am --abort >/dev/null 2>&1 || true
	git -C "$KTREE" checkout -q -f "$orig" >/dev/null 2>&1 ||
		die "cannot put $KTREE back at $orig after an interrupted run; check it by hand"
	rm -f "$state"
	step "recovered from an interrupted run: $KTREE is back at $orig"
}

# A git killed in the middle of a command leaves its lock files (index.lock,
# ORIG_HEAD.lock, refs/...lock) and every later git refuses to run.  Only
# called after a killed run, under the work dir lock: nothing else of ours
# is using the tree, so those locks are stale.
clear_stale_git_locks() {
	local lock
	while IFS= read -r lock; do
		rm -f "$lock"
		step "removed ${lock#"$KTREE/"}, left by the interrupted run"
	done < <(find "$KTREE/.git" -path "$KTREE/.git/objects" -prune -o -type f -name '*.lock' -print)
}

# Commands that check out other commits put HEAD back however they end;
# after a SIGKILL, the next run does (recover_interrupted).
restore_head_on_exit() {
	KB_ORIG=$(git -C "$KTREE" symbolic-ref -q --short HEAD || git -C "$KTREE" rev-parse HEAD)
	printf '%s\n' "$KB_ORIG" >"$KBRANCH_WORK/head.state"
	trap 'restore_head_now' EXIT
	# A trap can run while a command's output goes to a log: say it on
	# the stderr kbranch started with.
	exec {KB_STDERR}>&2
	trap 'interrupted INT' INT
	trap 'interrupted TERM' TERM
}

# Put HEAD back, then die of the same signal, so that whoever runs kbranch
# (a shell loop, kbranch all) sees the interruption and stops as well.
interrupted() {
	step "interrupted: putting $KTREE back at $KB_ORIG" 2>&"$KB_STDERR"
	# Points running in the background (verify) end first: nothing may
	# build from the tree while it moves.
	wait
	restore_head_now
	trap - EXIT "$1"
	kill "-$1" "$$"
}

restore_head_now() {
	# git itself, not kgit, in the tests below: a function tested in a
	# condition runs without set -e.
	[ ! -d "$KTREE/.git/rebase-apply" ] || git -C "$KTREE" am --abort >/dev/null 2>&1 || true
	# Nothing moved (a run that only read the notes): half a second saved.
	if [ "$(git -C "$KTREE" symbolic-ref -q --short HEAD || git -C "$KTREE" rev-parse HEAD)" = "$KB_ORIG" ] &&
		[ -z "$(git -C "$KTREE" status --porcelain --untracked-files=no)" ]; then
		rm -f "$KBRANCH_WORK/head.state"
		return 0
	fi
	git -C "$KTREE" checkout -q -f "$KB_ORIG" && rm -f "$KBRANCH_WORK/head.state"
}

# The exit status of "$@" (a function and its arguments), run as a job of
# its own under set -e, its output written to file $1.  For a function
# whose failure is an answer: tested in a condition (out=$(f) || rc=$?),
# it would run without set -e, and so would everything it calls.  Its
# caller must not be tested in a condition either: bash ignores set -e
# there even in a job that sets it again.  The traps: an asynchronous job
# ignores SIGINT unless it traps it, and so would the commands it runs.
exit_status_of() {
	local out=$1 rc=0
	shift
	(
		set -e
		trap 'exit 130' INT
		trap 'exit 143' TERM
		"$@"
	) <&0 >"$out" &
	wait "$!" || rc=$?
	printf '%s\n' "$rc"
}

# Run a command whose own error output would be many lines (tar, git on a
# full disk); on failure, die with "<what>: <its first error line>".
quietly() {
	local what=$1 err first
	shift
	err=$(mktemp)
	if ! "$@" >/dev/null 2>"$err"; then
		first=$(grep -m1 . "$err" || true)
		rm -f "$err"
		die "$what: ${first:-failed}"
	fi
	rm -f "$err"
}

# The person running this, who signs off: git's user.name and user.email as
# the kernel tree sees them (its own config, then the global one).  The
# patches carry the project's placeholder author, a users.noreply address
# under .example that nobody reads; a Signed-off-by from it certifies
# nothing, and replies to it go nowhere.  A placeholder is told by the kind
# of address (no-reply, or the .example domain RFC 2606 keeps for examples)
# rather than by being the series' author: a real person who wrote patches
# of the series may well send them.  Used by submit and pull-request.
require_runner() {
	local name email placeholders kind unset=
	name=$(git -C "$KTREE" config user.name) && [ -n "$name" ] || unset=user.name
	email=$(git -C "$KTREE" config user.email) && [ -n "$email" ] || unset=user.email
	[ -z "$unset" ] ||
		die "$unset is not set for $KTREE, and $KB_SUBCOMMAND signs off as you: git -C $KTREE config user.name 'Your Name'; git -C $KTREE config user.email you@your.domain"
	kind=$(address_kind "$email")
	[ "$kind" != placeholder ] ||
		die "user.email $email (git config in $KTREE) is a no-reply placeholder, like the patches' author, not yours: git -C $KTREE config user.email you@your.domain"
	# The placeholder's name with a real address is still not a person.
	placeholders=$(placeholder_identities | cut -f1)
	! grep -qxF -- "$name" <<<"$placeholders" ||
		die "user.name '$name' (git config in $KTREE) is the patches' placeholder author, not yours: git -C $KTREE config user.name 'Your Name'"
	# shellcheck disable=SC2034 # read by cmd/submit.sh and cmd/pull-request.sh
	RUNNER_NAME=$name RUNNER_EMAIL=$email RUNNER="$name <$email>"
}

# An address's kind: "placeholder" or "person".  A lookup that prints its
# answer rather than a test, so that no caller calls it in a condition,
# where set -e would not hold.
address_kind() {
	case ${1,,} in
	*noreply* | *no-reply* | *.example) echo placeholder ;;
	*) echo person ;;
	esac
}

# The series' authors that are placeholders, "name<TAB>email" a line:
# what submit and pull-request send and publish as the runner instead.
placeholder_identities() {
	local name email kind
	{ git -C "$KTREE" log --no-use-mailmap --format='%an%x09%ae' "$KB_BASE_TAG..$KBRANCH_BRANCH" 2>/dev/null || true; } | sort -u |
		while IFS=$'\t' read -r name email; do
			kind=$(address_kind "$email")
			[ "$kind" != placeholder ] || printf '%s\t%s\n' "$name" "$email"
		done
}
