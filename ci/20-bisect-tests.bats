#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr, $status, $lines: set by bats' run
# bisect-tests/run on the tip of the series in $KBRANCH_WORK/linux, building
# in $KBRANCH_WORK.  KBRANCH_EXPECT, when set, is passed through.

load helpers

setup_file() {
	ensure_applied
	git -C "$KBRANCH_WORK/linux" checkout -q -f ext4-rename
}

setup() {
	export KBRANCH_WORK
	BT=$(cd "$BATS_TEST_DIRNAME/../bisect-tests" && pwd)
}

# Run bisect-tests/run inside a tree; stdout in $output, stderr in $stderr.
run_bisect_tests() {
	local tree=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	run --separate-stderr bash -c 'cd "$1" && shift && exec "$@"' _ "$tree" "$BT/run" "$@"
}

last_line() {
	printf '%s\n' "${lines[${#lines[@]} - 1]}"
}

# The declaration for $KTREE's HEAD, as run would find it.
declared() {
	if [ -n "${KBRANCH_EXPECT:-}" ]; then
		printf '%s\n' "$KBRANCH_EXPECT"
		return
	fi
	git -C "$KTREE" log --format=%s -n 500 HEAD |
		bash -c 'source "$1/lib/common.sh"; source "$1/lib/expect.sh"; expect_lookup "$1/expectations"' _ "$BT"
}

assert_good() {
	local variant=$1
	run_bisect_tests "$KTREE" --variant "$variant"
	printf '%s\n' "$stderr" | tail -n 30
	[ "$status" -eq 0 ]
	[[ "$(last_line)" == "RESULT variant=$variant build=ok boot=ok checks=ok seconds="*" verdict=good" ]]
}

fake_tree() {
	local tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/fs/ext4"
	touch "$tree/Makefile"
	git -C "$tree" init -q
	git -C "$tree" add -A
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'an unrelated subject'
	printf '%s\n' "$tree"
}

@test "the builtin variant is good" {
	assert_good builtin
}

@test "the module variant is good" {
	assert_good module
}

@test "the minimal variant is good" {
	assert_good minimal
}

@test "a wrong declared filesystem type makes the commit bad" {
	local wrong
	wrong=$(declared | sed -E 's/fstype=ext4($| )/fstype=WRONG\1/; s/fstype=ext4dev/fstype=ext4/; s/fstype=WRONG/fstype=ext4dev/')
	KBRANCH_EXPECT=$wrong run_bisect_tests "$KTREE" --variant builtin
	[ "$status" -eq 1 ]
	[[ "$(last_line)" == "RESULT variant=builtin build=ok boot=ok checks=fail "*" verdict=bad" ]]
	[[ "$stderr" == *"not ok "*"registered_fs_types_match_the_declaration"* ]]
}

@test "a kernel without ext4 under the declared Kconfig name is bad before it is built" {
	local wrong
	# Declare that this commit builds ext4 from the ext4dev-era names.
	wrong=$(declared | sed -E 's/ uses=[A-Z0-9,]+//; s/$/ uses=EXT4DEV,EXT4DEV,EXT4DEV/')
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work KBRANCH_EXPECT=$wrong run_bisect_tests "$KTREE" --variant minimal
	[ "$status" -eq 1 ]
	[[ "$(last_line)" == "RESULT variant=minimal build=fail boot=skip checks=skip "*" verdict=bad" ]]
	[[ "$stderr" == *"config check failed: CONFIG_EXT4"* ]]
}

@test "a commit without declared expectations is a setup error" {
	local tree
	tree=$(fake_tree)
	KBRANCH_EXPECT='' run_bisect_tests "$tree"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"no expectations for HEAD"* ]]
}

@test "a directory that is not a kernel tree is a setup error" {
	run_bisect_tests "$BATS_TEST_TMPDIR"
	[ "$status" -eq 128 ]
}

@test "an unknown variant is a setup error" {
	run_bisect_tests "$KTREE" --variant nosuch
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"unknown variant 'nosuch'"* ]]
}

@test "a second run of one variant on the same work dir is a setup error that names it" {
	local tree work=$BATS_TEST_TMPDIR/work holder
	tree=$(fake_tree)
	mkdir -p "$work/build"
	# Another run is working on builtin in this work dir.
	flock "$work/build/builtin.lock" sleep 60 &
	holder=$!
	sleep 0.5
	KBRANCH_WORK=$work KBRANCH_EXPECT=$(declared) run_bisect_tests "$tree" --variant builtin
	kill "$holder"
	echo "$stderr"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"another bisect-tests run is using $work/build/builtin"* ]]
	[ ! -e "$work/build/builtin/.config" ]
}
