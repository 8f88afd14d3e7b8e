#!/usr/bin/env bats
# A broken commit is caught by bisect-tests/run, and git bisect run through
# it names that commit.

load helpers

# Progress of long runs goes to the TAP stream as comments, live.
progress() {
	sed -u 's/^/# /' >&3
}

setup_file() {
	ensure_applied
}

# A copy of the series whose #ifdef rename (patch 3) misses
# fs/ext4/xattr.c: it still builds, boots and mounts, but compiles the ACL
# xattr handlers out.  broken-ifdef~2 is that commit.
make_broken_branch() {
	ktree checkout -q -f -B broken-ifdef "$(patch_rev 2)"
	ktree show "$(patch_rev 3)" -- . ':!fs/ext4/xattr.c' | ktree apply --index
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -C "$(patch_rev 3)"
	ktree -c user.name=ci -c user.email=ci@localhost cherry-pick "$(patch_rev 4)" ext4-rename >/dev/null
}

@test "a commit whose #ifdef rename misses one file is flagged at exactly that commit" {
	make_broken_branch
	ktree checkout -q --detach broken-ifdef~3
	run bash -c 'cd "$0" && "$1"/bisect-tests/run --variant builtin' "$KTREE" "$REPO" 2> >(progress)
	[ "$status" -eq 0 ]
	ktree checkout -q --detach broken-ifdef~2
	run --separate-stderr bash -c 'cd "$0" && "$1"/bisect-tests/run --variant builtin' "$KTREE" "$REPO"
	printf '%s\n' "$stderr" | progress
	[ "$status" -eq 1 ]
	[[ "$output" == *"verdict=bad"* ]]
	[[ "$stderr" == *ACL* || "$stderr" == *acl* ]]
}

@test "git bisect run bisect-tests/run between ext4dev-base and the broken branch names that commit" {
	local culprit
	culprit=$(ktree rev-parse broken-ifdef~2)
	ktree bisect reset >/dev/null 2>&1 || true
	ktree checkout -q -f broken-ifdef
	ktree bisect start broken-ifdef ext4dev-base >/dev/null
	run bash -c 'cd "$0" && git bisect run "$1"/bisect-tests/run' "$KTREE" "$REPO" 2> >(progress)
	echo "$output" | tail -n 20
	ktree bisect reset >/dev/null 2>&1
	ktree checkout -q -f ext4-rename
	[ "$status" -eq 0 ]
	[[ "$output" == *"$culprit is the first bad commit"* ]]
}
