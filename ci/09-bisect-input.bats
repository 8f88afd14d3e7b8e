#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr: set by bats' run
# kbranch bisect's bad input, in the fast tier: each is one line and exit
# 128, with nothing checked out and nothing built.  The tree is a small
# git tree with the series' shape (a commit named as the fixture is, and
# one named as patch 1), never a kernel.

load helpers

setup() {
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/fs/ext4"
	echo 'obj-y += x.o' >"$tree/Makefile"
	git -C "$tree" init -q -b ext4-rename
	tcommit 'fixture: recreate the ext4dev-era ext4 on the packaged tree'
	tcommit 'ext4: rename the ext4dev Kconfig options to ext4'
	tcommit 'ext4: a commit of the tester'
	printf 'CONFIG_EXT4_FS=y\n# CONFIG_EXT4_DEBUG is not set\n' >"$BATS_TEST_TMPDIR/good.config"
	printf '#!/bin/sh\nexit 0\n' >"$BATS_TEST_TMPDIR/test.sh"
	chmod +x "$BATS_TEST_TMPDIR/test.sh"
	before=$(git -C "$tree" rev-parse HEAD)
}

tcommit() {
	echo "$1" >>"$tree/fs/ext4/history"
	git -C "$tree" add -A
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm "$1"
}

# kbranch bisect on the tree, which must fail with one line and 128 and
# leave the tree and the work dir as they were.
bisect_refused() {
	must_fail_with_one_line "$KBRANCH" bisect --tree "$tree" "$@"
	echo "$stderr"
	[ "$status" -eq 128 ]
	[ "$(git -C "$tree" rev-parse HEAD)" = "$before" ]
	[ -z "$(git -C "$tree" status --porcelain)" ]
	[ ! -e "$KBRANCH_WORK/build" ]
	[ ! -e "$KBRANCH_WORK/bisect" ]
}

@test "kbranch bisect: a --config that is not a kernel config is refused: one line, 128, nothing built" {
	printf 'hello\nthis is a shopping list\n' >"$BATS_TEST_TMPDIR/list.txt"
	bisect_refused --good HEAD~2 --bad HEAD --config "$BATS_TEST_TMPDIR/list.txt"
	[[ "$stderr" == *"not a kernel config"* ]]
}

@test "kbranch bisect: a kernel config with one line that is not an option is refused" {
	cp "$BATS_TEST_TMPDIR/good.config" "$BATS_TEST_TMPDIR/mixed.config"
	echo 'make[1]: Entering directory' >>"$BATS_TEST_TMPDIR/mixed.config"
	bisect_refused --good HEAD~2 --bad HEAD --config "$BATS_TEST_TMPDIR/mixed.config"
	[[ "$stderr" == *"not a kernel config"* ]]
}

@test "kbranch bisect: a good that is not an ancestor of bad is refused" {
	bisect_refused --good HEAD --bad HEAD~2 --config "$BATS_TEST_TMPDIR/good.config"
	[[ "$stderr" == *"is not an ancestor of --bad"* ]]
}

@test "kbranch bisect: a test script that is missing, or not executable, is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/nosuch.sh"
	[[ "$stderr" == *"--test "*"nosuch.sh: no such file"* ]]
	chmod -x "$BATS_TEST_TMPDIR/test.sh"
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh"
	[[ "$stderr" == *"test.sh: not executable"* ]]
}

@test "kbranch bisect: a tree without the series is refused" {
	git -C "$tree" checkout -q --orphan other
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'an unrelated root'
	tcommit 'an unrelated change'
	before=$(git -C "$tree" rev-parse HEAD)
	bisect_refused --good HEAD~1 --bad HEAD
	[[ "$stderr" == *"no commit of the ext4 series"* ]]
}

@test "kbranch bisect: a --repeat that is not a positive number is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --repeat 0
	[[ "$stderr" == *"--repeat 0: not a positive number"* ]]
}

@test "kbranch bisect: the config check takes a savedefconfig file and a full .config" {
	source "$REPO/bisect-tests/lib/tester.sh"
	tester_is_kernel_config "$BATS_TEST_TMPDIR/good.config"
	printf 'CONFIG_EXT4_FS=y\n' >"$BATS_TEST_TMPDIR/defconfig"
	tester_is_kernel_config "$BATS_TEST_TMPDIR/defconfig"
	printf '# just a comment\n' >"$BATS_TEST_TMPDIR/comment"
	run tester_is_kernel_config "$BATS_TEST_TMPDIR/comment"
	[ "$status" -eq 1 ]
}

@test "kbranch bisect: --test or --repeat with a Debian machine variant is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --variant debian-ext4 --repeat 2
	[[ "$stderr" == *"--test and --repeat run in our busybox guest; debian-ext4 is a Debian machine"* ]]
}
