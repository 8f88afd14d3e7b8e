#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# kbranch preflight's linux-next rules, one refusal per test, each on a
# kernel tree in miniature made for the test: no imported tree, no build
# (KBRANCH_PREFLIGHT_BUILD=0 leaves out only the tip's build; every other
# rule runs as it does on the real branch).

load helpers

FIXTURE_SUBJECT='ext4: the ext4dev-era fixture'

setup() {
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work KBRANCH_PREFLIGHT_BUILD=0
	KTREE=$KBRANCH_WORK/linux
	# The machine's git config and identity must not shape the commits
	# (a global commit.gpgsign, a GIT_COMMITTER_NAME from the caller).
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
	mini_tree
}

# What import and apply leave, in miniature: a packaged import (a root
# commit tagged packaged/<version>), the fixture on it tagged
# ext4dev-base, and the branch ext4-rename checked out at the base.
mini_tree() {
	mkdir -p "$KTREE"
	git init -q -b packaged "$KTREE"
	echo 'ext4dev' >"$KTREE/Kconfig"
	ktree add Kconfig
	as_tester commit -q -m 'Import linux-source'
	ktree tag "packaged/${VERSION//\~/_}"
	echo 'EXT4DEV_FS' >>"$KTREE/Kconfig"
	as_tester commit -q -a -m "$FIXTURE_SUBJECT"
	ktree tag ext4dev-base
	ktree checkout -q -b ext4-rename
}

as_tester() {
	ktree -c user.name='CI Tester' -c user.email=ci@localhost "$@"
}

# A commit on the current branch that changes a file ($2, notes if not
# given), with message $1 and its author's (and committer's) Signed-off-by.
signed_commit() {
	local file=${2:-notes}
	echo "$1" >>"$KTREE/$file"
	ktree add "$file"
	as_tester commit -q -m "$1" -m 'Signed-off-by: CI Tester <ci@localhost>'
}

# A commit with message $1 whose trailers are the tag line $2 and the
# Signed-off-by, the way a fix's message ends.
tagged_commit() {
	echo "$1" >>"$KTREE/notes"
	ktree add notes
	as_tester commit -q -m "$1" -m "$2"$'\n''Signed-off-by: CI Tester <ci@localhost>'
}

base_sha12() {
	ktree rev-parse --short=12 ext4dev-base
}

# A commit as preflight names it: abbreviated SHA1 and ("subject").
named() {
	ktree log -1 --format='%h ("%s")' "$1"
}

preflight() {
	run "$KBRANCH" preflight
	echo "$output"
}

# Fails unless preflight refused the branch with exactly these lines,
# "FAIL <commit>: <rule>", each given as commit then rule.
refused_with() {
	local expected=()
	[ "$status" -ne 0 ] || { echo "preflight passed"; return 1; }
	while [ "$#" -gt 0 ]; do
		expected+=("FAIL $(named "$1"): $2")
		shift 2
	done
	diff <(printf '%s\n' "${expected[@]}" | sort) <(grep '^FAIL' <<<"$output" | sort) ||
		{ echo "FAIL lines differ from the expected ones (< expected, > printed)"; return 1; }
}

@test "preflight passes a clean branch, with a well-formed Fixes: tag (the control for the refusals below)" {
	signed_commit 'ext4: rename the option'
	tagged_commit 'ext4: fix the rename' "Fixes: $(base_sha12) (\"$FIXTURE_SUBJECT\")"
	preflight
	[ "$status" -eq 0 ]
	[ "$(grep -c '^FAIL' <<<"$output")" -eq 0 ]
}

@test "preflight refuses Fixes: <sha>(\"subject\") without the space, as check_fixes does" {
	local tag
	tag="Fixes: $(base_sha12)(\"$FIXTURE_SUBJECT\")"
	tagged_commit 'ext4: fix without a space' "$tag"
	preflight
	refused_with HEAD "Fixes tag '$tag': missing space between the SHA1 and the subject"
}

@test "preflight refuses a FIXES: tag as not spelled Fixes:, and checks its value like any other" {
	local good bad
	good="FIXES: $(base_sha12) (\"$FIXTURE_SUBJECT\")"
	bad="FIXES: $(ktree rev-parse --short=8 ext4dev-base) (\"$FIXTURE_SUBJECT\")"
	tagged_commit 'ext4: fix in capitals' "$good"
	tagged_commit 'ext4: short fix in capitals' "$bad"
	preflight
	refused_with \
		HEAD^ "Fixes tag '$good': spelled 'FIXES:', not 'Fixes:'" \
		HEAD "Fixes tag '$bad': spelled 'FIXES:', not 'Fixes:'" \
		HEAD "Fixes tag '$bad': SHA1 should be at least 12 digits long"
}

@test "preflight refuses an indented Fixes: tag, and checks its value like any other" {
	local good bad
	good="  Fixes: $(base_sha12) (\"$FIXTURE_SUBJECT\")"
	bad=$'\t'"Fixes: $(base_sha12) (\"ext4: some other subject\")"
	tagged_commit 'ext4: fix, indented' "$good"
	tagged_commit 'ext4: wrong fix, indented' "$bad"
	preflight
	refused_with \
		HEAD^ "Fixes tag '$good': indented; a tag starts at the beginning of its line" \
		HEAD "Fixes tag '$bad': indented; a tag starts at the beginning of its line" \
		HEAD "Fixes tag '$bad': Subject does not match target commit subject"
}

@test "preflight refuses a merge, naming the merge commit" {
	signed_commit 'ext4: on the branch'
	ktree checkout -q -b side ext4dev-base
	signed_commit 'ext4: on a side branch' side-notes
	ktree checkout -q ext4-rename
	as_tester merge -q --no-ff -m 'Merge branch side' -m 'Signed-off-by: CI Tester <ci@localhost>' side
	preflight
	refused_with HEAD 'merge commit'
}

@test "preflight refuses an empty commit" {
	signed_commit 'ext4: a real change'
	as_tester commit -q --allow-empty -m 'ext4: nothing at all' -m 'Signed-off-by: CI Tester <ci@localhost>'
	preflight
	refused_with HEAD 'empty commit'
}

@test "preflight refuses a commit its committer did not sign off" {
	echo change >>"$KTREE/notes"
	ktree add notes
	GIT_COMMITTER_NAME='Other Committer' GIT_COMMITTER_EMAIL=other@localhost \
		as_tester commit -q -m 'ext4: applied by someone else' -m 'Signed-off-by: CI Tester <ci@localhost>'
	preflight
	refused_with HEAD 'no Signed-off-by from its committer Other Committer <other@localhost>'
}
