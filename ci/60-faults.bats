#!/usr/bin/env bats
# Faults and bad input: interrupted runs recover by themselves, one run per
# work dir, and bad input is a one-line error that touches nothing.

load helpers

setup_file() {
	ensure_applied
}

# The signal tests stay on kill-park (park_at_base_tree) from one to the
# next; every other test starts at the tip.
setup() {
	case "$BATS_TEST_DESCRIPTION" in
	*" during a build"* | *" during a boot"*) ;;
	*) leave_park ;;
	esac
}

teardown() {
	rm -f "$KTREE/.git/hooks/applypatch-msg"
	mountpoint -q "$KBRANCH_CI_SCRATCH/small" && umount "$KBRANCH_CI_SCRATCH/small" || true
	ktree checkout -q -f "$(ktree symbolic-ref -q --short HEAD | grep -x kill-park || echo ext4-rename)" 2>/dev/null || true
}

teardown_file() {
	leave_park
}

# git am runs this hook for every patch: a slow hook makes an apply slow
# enough to be interrupted in the middle, deterministically.
slow_down_git_am() {
	printf '#!/bin/sh\nsleep 2\n' >"$KTREE/.git/hooks/applypatch-msg"
	chmod +x "$KTREE/.git/hooks/applypatch-msg"
}

# Start a command in its own process group; wait until its output says $2.
# A non-interactive shell starts background commands with SIGINT ignored,
# and bash cannot trap a signal ignored at entry: give the command the
# default SIGINT it gets from a terminal's Ctrl-C.
start_and_wait_for() {
	local log=$1 pattern=$2
	shift 2
	setsid env --default-signal=INT "$@" >"$log" 2>&1 &
	BG_PID=$!
	local i
	for i in $(seq 1 1500); do
		grep -q "$pattern" "$log" && return 0
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.2
	done
	echo "never saw '$pattern' in $log:"
	cat "$log"
	return 1
}

# Wait for the background command; its exit status in $BG_STATUS.
wait_bg() {
	BG_STATUS=0
	wait "$BG_PID" || BG_STATUS=$?
}

@test "a second run on the same work dir names the holder and touches nothing" {
	local before log=$KBRANCH_CI_SCRATCH/holder.log
	slow_down_git_am
	before=$(tree_state)
	start_and_wait_for "$log" 'applying \[1/' "$KBRANCH" apply
	must_fail_with_one_line "$KBRANCH" apply
	[[ "$stderr" == *"is in use by pid $BG_PID (kbranch apply)"* ]]
	wait_bg
	[ "$BG_STATUS" -eq 0 ]
	rm -f "$KTREE/.git/hooks/applypatch-msg"
	[ "$(tree_state)" = "$before" ]
}

@test "SIGINT during apply puts the tree back at once" {
	local before log=$KBRANCH_CI_SCRATCH/sigint.log
	slow_down_git_am
	before=$(tree_state)
	start_and_wait_for "$log" 'applying \[2/' "$KBRANCH" apply
	kill -INT -- "-$BG_PID"
	wait_bg
	[ "$BG_STATUS" -ne 0 ]
	grep -q 'interrupted: putting .* back at ext4-rename' "$log"
	[ "$(tree_state)" = "$before" ]
	[ ! -d "$KTREE/.git/rebase-apply" ]
}

@test "SIGKILL during apply: the next run recovers by itself and finishes" {
	local tip log=$KBRANCH_CI_SCRATCH/sigkill.log
	tip=$(ktree rev-parse ext4-rename)
	slow_down_git_am
	start_and_wait_for "$log" 'applying \[2/' "$KBRANCH" apply
	kill -KILL -- "-$BG_PID"
	wait_bg
	rm -f "$KTREE/.git/hooks/applypatch-msg"
	run "$KBRANCH" apply
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"recovered from an interrupted run"* ]]
	[ "$(ktree rev-parse ext4-rename)" = "$tip" ]
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
	[ -z "$(ktree status --porcelain)" ]
}

# What a SIGKILL can leave in the middle of git am's ref update, made by
# hand so that the test does not depend on when the kill lands.
@test "git lock files left by a killed run are cleared by the next run" {
	local tip
	tip=$(ktree rev-parse ext4-rename)
	ktree checkout -q --detach ext4dev-base
	printf 'ext4-rename\n' >"$KBRANCH_WORK/head.state"
	: >"$KTREE/.git/ORIG_HEAD.lock"
	: >"$KTREE/.git/index.lock"
	run "$KBRANCH" apply
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed .git/ORIG_HEAD.lock, left by the interrupted run"* ]]
	[[ "$output" == *"removed .git/index.lock, left by the interrupted run"* ]]
	[ ! -e "$KTREE/.git/ORIG_HEAD.lock" ]
	[ ! -e "$KTREE/.git/index.lock" ]
	[ "$(ktree rev-parse ext4-rename)" = "$tip" ]
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
}

# What a SIGKILL leaves while an import puts the fixture on a new version
# in its scratch worktree: the directory, and git's entry for it, locked
# while git checks it out.  Made by hand, as above.
@test "a killed import's scratch worktree is dropped by the next import, entry and directory" {
	local wt=$KBRANCH_WORK/linux.import.4242/base-wt
	ktree worktree add -q --lock --no-checkout --detach "$wt" ext4dev-base
	run "$KBRANCH" import
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$KBRANCH_WORK/linux.import.4242" ]
	[ -z "$(ktree worktree list --porcelain | grep -F "$KBRANCH_WORK/linux.import." || true)" ]
}

# HEAD on branch kill-park, a commit of its own with the base's tree: a
# run that moves HEAD to the base and back changes no file, so each test
# rebuilds only what it means to (a checkout of the tip in between would
# rebuild ext4 twice a test), and putting HEAD back is still seen.
park_at_base_tree() {
	ktree rev-parse -q --verify refs/heads/kill-park >/dev/null ||
		ktree branch kill-park "$(ktree commit-tree -p 'ext4dev-base^{commit}' -m 'ci: park on the base tree' "ext4dev-base^{tree}")"
	ktree checkout -q -f kill-park
}

# kbranch verify of the base commit alone, sent signal $1 once the builtin
# variant's $2 stage is under way ($3 seconds in).  SIGINT puts the tree
# back at once; after SIGKILL the next run does.  Either way the next run
# builds in the same build dir, boots and passes.
interrupt_verify_during() {
	local signal=$1 stage=$2 after=$3 log=$KBRANCH_CI_SCRATCH/$1-$2.log before
	ktree branch -f kill-probe ext4dev-base
	park_at_base_tree
	before=$(tree_state)
	# Something to rebuild, so that a build is under way.
	[ "$stage" != build ] || touch "$KTREE/fs/ext4/super.c"
	start_and_wait_for "$log" "builtin: $stage (" "$KBRANCH" verify --rerun --variant builtin --branch kill-probe
	sleep "$after"
	kill "-$signal" -- "-$BG_PID"
	wait_bg
	cat "$log"
	[ "$BG_STATUS" -ne 0 ]
	if [ "$signal" = INT ]; then
		grep -q 'interrupted: putting .* back at kill-park' "$log"
		[ "$(tree_state)" = "$before" ]
		# An interrupted run judges nothing: no failed stage, no verdict.
		grep -q 'bisect-tests: interrupted: no verdict for this commit' "$log"
		[ -z "$(grep -E 'failed|=fail|verdict=' "$log" || true)" ]
	fi
	run "$KBRANCH" verify --rerun --variant builtin --branch kill-probe
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$signal" = INT ] || [[ "$output" == *"recovered from an interrupted run"* ]]
	# The reference, recorded with these tests, is not run again: the base is.
	grep -q '^ok 1 - packaged/.* \[builtin\] reference recorded before' <<<"$output"
	grep -q "^ok 2 - $(ktree rev-parse --short "ext4dev-base^{commit}") .* \[builtin\] build=ok boot=ok checks=ok" <<<"$output"
	[ "$(tree_state)" = "$before" ]
	ktree branch -q -D kill-probe
}

# The tip again, for the tests after the signal tests; kill-park goes.
leave_park() {
	ktree rev-parse -q --verify refs/heads/kill-park >/dev/null || return 0
	ktree checkout -q -f ext4-rename
	ktree branch -q -D kill-park
}

@test "SIGKILL during a build: the next run recovers, rebuilds and passes" {
	full_only "a build killed and run again, about 2 minutes"
	interrupt_verify_during KILL build 3
}

@test "SIGINT during a build: the tree is put back, and the next run rebuilds and passes" {
	interrupt_verify_during INT build 3
}

# A boot takes about 2 s: signal it as soon as it starts.
@test "SIGKILL during a boot: the next run recovers, boots and passes" {
	interrupt_verify_during KILL boot 0
}

@test "SIGINT during a boot: the tree is put back, and the next run boots and passes" {
	interrupt_verify_during INT boot 0
}

@test "series entries with spaces, shell metacharacters or ../ are refused" {
	local copy entry before
	before=$(tree_state)
	for entry in 'my patch.patch' '$(touch /tmp/pwned).patch' '../base/x.patch' 'a;b.patch'; do
		copy=$(repo_copy)
		printf '%s\n' "$entry" >>"$copy/series.txt"
		must_fail_with_one_line "$copy/branch-scripts/kbranch" apply
		[[ "$stderr" == *"bad patch name"* ]]
	done
	[ ! -e /tmp/pwned ]
	[ "$(tree_state)" = "$before" ]
}

@test "an empty series is refused" {
	local copy
	copy=$(repo_copy)
	printf '# nothing\n' >"$copy/series.txt"
	must_fail_with_one_line "$copy/branch-scripts/kbranch" apply
	[[ "$stderr" == *"lists no patches"* ]]
}

@test "a patch that adds a binary file is refused" {
	local copy
	copy=$(repo_copy)
	printf 'GIT binary patch\nliteral 4\n' >>"$copy/patches/$(sed -n '/^[^#]/{p;q}' "$copy/series.txt")"
	must_fail_with_one_line "$copy/branch-scripts/kbranch" apply
	[[ "$stderr" == *"adds a binary file"* ]]
}

@test "import into a full work dir fails with one line and leaves nothing behind" {
	local small=$KBRANCH_CI_SCRATCH/small
	mkdir -p "$small"
	mount -t tmpfs -o size=16m tmpfs "$small"
	KBRANCH_WORK=$small/work must_fail_with_one_line "$KBRANCH" import
	[[ "$stderr" == *"cannot extract"* ]]
	[ -z "$(ls -A "$small/work" | grep -v '^lock$')" ]
}

@test "a read-only work dir is a one-line error" {
	local small=$KBRANCH_CI_SCRATCH/small
	mkdir -p "$small"
	mount -t tmpfs -o size=1m,ro tmpfs "$small"
	KBRANCH_WORK=$small must_fail_with_one_line "$KBRANCH" import
	[[ "$stderr" == *"not writable"* ]]
}

@test "a missing tool is a setup error for git bisect (128), with its name" {
	# A PATH with everything but qemu-system-x86_64.
	local bin=$KBRANCH_CI_SCRATCH/noqemu f
	mkdir -p "$bin"
	find -H /usr/bin /usr/sbin /bin /sbin -maxdepth 1 ! -type d ! -name qemu-system-x86_64 \
		-exec ln -sf -t "$bin" {} +
	run --separate-stderr env PATH="$bin" bash -c 'cd "$0" && "$1"/bisect-tests/run' "$KTREE" "$REPO"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"qemu-system-x86_64 is missing"* ]]
}
