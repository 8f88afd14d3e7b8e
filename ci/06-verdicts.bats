#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2034,SC2317 # $status, $output, $stderr: set by bats' run; globals read by the sourced run; stages replaced by canned ones
# The fast tier, part two: whose failure is it, and the exit code each
# answer gives git bisect run.  bisect-tests/run is sourced and its stages
# are driven on canned logs (ci/canned/), so a broken wire between a
# stage's finding and the exit code (a setup problem that does not exit
# 128, a skip that turns bad, a good that is not 0) fails here, in seconds.
# ci/25-failures.bats runs real failures through real builds.

load helpers

CANNED=$BATS_TEST_DIRNAME/canned

setup() {
	# shellcheck source=bisect-tests/run disable=SC1091
	source "$REPO/bisect-tests/run"
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	mkdir -p "$KBRANCH_WORK/build"
	BT_CC=gcc BT_HOSTCC=gcc
	KTREE_DIR=/root/.cache/kbranch/linux
	eval "real_$(declare -f stage_boot)"
}

# A git tree with the series' shape: the fixture, then one commit per
# patch of series.txt with its subject, changing the files the patch
# changes (their contents are the file names; the fixture's super.c names
# the symbol the canned link error is about).  Branch ext4-rename at its
# tip.  Made once per file (a few seconds), copied for each test.
setup_file() {
	(series_shaped_tree_make "$BATS_FILE_TMPDIR/tree")
}

series_shaped_tree() {
	cp -a "$BATS_FILE_TMPDIR/tree" "$BATS_TEST_TMPDIR/tree"
	cd "$BATS_TEST_TMPDIR/tree" || return 1
	unset BT_SERIES_FILES
}

series_shaped_tree_make() {
	local tree=$1 patch subject f
	git init -q "$tree"
	cd "$tree" || return 1
	git config user.name ci
	git config user.email ci@localhost
	mkdir -p fs/ext4
	echo 'int x = ext4_register_sysfs_compat();' >fs/ext4/super.c
	git add fs
	git commit -q -m 'fixture: recreate the ext4dev-era ext4 on the packaged tree'
	while read -r patch; do
		subject=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$REPO/patches/$patch")
		while read -r f; do
			mkdir -p "$(dirname "$f")"
			echo "$f $subject" >>"$f"
		done < <(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$REPO/patches/$patch")
		git add -A
		git commit -q -m "$subject"
	done < <(grep -v '^#' "$REPO/series.txt" | grep .)
	git branch -q ext4-rename
}

at_patch() {
	git checkout -q --detach "ext4-rename~$((4 - $1))"
}

@test "at patch 1, errors in fs/ext4 and in mdp.c are the series' (the range owns them): bad, not skip" {
	series_shaped_tree
	at_patch 1
	[ -z "$(git diff --name-only HEAD~1 HEAD -- '*.c')" ]
	[ "$(build_failure_ours "$CANNED/build-error-ext4-super.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-error-ext4-inode.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-error-mdp.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-link-error-ext4.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-link-error-vmlinux.log")" = yes ]
}

@test "at patch 1 of a tree without the rest of the range, mdp.c is not the series': skip" {
	series_shaped_tree
	at_patch 1
	git branch -q -D ext4-rename
	[ "$(build_failure_ours "$CANNED/build-error-mdp.log")" = no ]
}

@test "a link error against vmlinux.o is the series' when its symbol is in the series' files, else a skip" {
	series_shaped_tree
	at_patch 1
	[ "$(build_failure_ours "$CANNED/build-link-error-vmlinux.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-link-error-vmlinux-elsewhere.log")" = no ]
	# As ld really reports it without LTO: against the object.
	[ "$(build_failure_ours "$CANNED/build-link-error-ext4.log")" = yes ]
	[ "$(build_failure_ours "$CANNED/build-link-error-elsewhere.log")" = no ]
	[ "$(build_link_symbols "$CANNED/build-link-error-vmlinux.log")" = ext4_register_sysfs_compat ]
}

# --- The stages wired to the exit code, on canned logs ----------------------

# The config and build stages give the canned logs $1 (config) and $2
# (build; "-" for a build that passes); boot and checks pass.
canned_stages() {
	CANNED_CONFIG=$1 CANNED_BUILD=$2
	build_seed() { :; }
	config_generate() {
		[ "$CANNED_CONFIG" = - ] || { cp "$CANNED_CONFIG" "$(run_dir "$1")/config.log"; return 2; }
	}
	config_check() { :; }
	build_kernel() {
		[ "$CANNED_BUILD" = - ] || { cp "$CANNED_BUILD" "$(run_dir "$1")/build.log"; return 2; }
	}
	stage_boot() { BOOT=ok; }
	stage_checks() { CHECKS=ok; }
}

@test "run: a build failing outside the series is skip (125), with its reason and first error" {
	series_shaped_tree
	at_patch 2
	canned_stages - "$CANNED/build-error-elsewhere.log"
	run --separate-stderr run_variant builtin
	[ "$status" -eq 125 ]
	[[ "$output" == *"RESULT variant=builtin build=skip "*" verdict=skip" ]]
	[[ "$stderr" == *"skip: every error is in a file the series does not change; first error: "*"error:"* ]]
}

@test "run: a build failing in the series' files is bad (1)" {
	series_shaped_tree
	at_patch 1
	canned_stages - "$CANNED/build-error-ext4-super.log"
	run --separate-stderr run_variant builtin
	[ "$status" -eq 1 ]
	[[ "$output" == *"build=fail "*" verdict=bad" ]]
}

@test "run: flex missing at the config stage is a setup problem (128), one line, no verdict" {
	canned_stages "$CANNED/build-no-flex.log" -
	run --separate-stderr run_variant builtin
	[ "$status" -eq 128 ]
	[ -z "$output" ]
	[[ "$stderr" == *"builtin: kernel config failed for this machine, not the commit: a tool is missing: "*"flex: not found"* ]]
}

@test "run: a full disk during the build is a setup problem (128)" {
	canned_stages - "$CANNED/build-disk-full.log"
	run --separate-stderr run_variant builtin
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"build failed for this machine, not the commit: the disk is full"* ]]
}

@test "run: images that cannot be made are a setup problem (128), not a bad commit" {
	canned_stages - -
	stage_boot() { real_stage_boot "$@"; }
	initramfs_build() { :; }
	images_make() { echo 'mke2fs: No space left on device while writing out and closing file system' >"$1/images.log"; return 1; }
	run --separate-stderr run_variant builtin
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"making the images failed for this machine, not the commit: the disk is full"* ]]
}

@test "run: every stage passing is good (0)" {
	canned_stages - -
	run --separate-stderr run_variant builtin
	[ "$status" -eq 0 ]
	[[ "$output" == "RESULT variant=builtin build=ok boot=ok checks=ok "*" verdict=good" ]]
}

@test "run: a setup problem exits 128 with one line, before any stage" {
	must_fail_with_one_line "$REPO/bisect-tests/run" --variant no-such-variant
	[ "$status" -eq 128 ]
	cd "$BATS_TEST_TMPDIR"
	must_fail_with_one_line "$REPO/bisect-tests/run"
	[ "$status" -eq 128 ]
	# A key the expectations table has not (it once died on an unbound
	# variable, with 1, which kbranch would have read as bad).
	must_fail_with_one_line "$REPO/bisect-tests/run" --print-declared no-such-key
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"--print-declared no-such-key: no such key"* ]]
}

@test "verdicts combine: bad wins over skip and good, in any order; skip over good" {
	run verdict_combine 1 125
	[ "$status" -eq 1 ]
	run verdict_combine 125 1 0
	[ "$status" -eq 1 ]
	run verdict_combine 0 125
	[ "$status" -eq 125 ]
	run verdict_combine 0 0
	[ "$status" -eq 0 ]
}

# --- Boots that fail for the machine, and failures confirmed --------------

@test "a boot that fails for the machine is named: QEMU not started, nothing printed, killed before its timeout" {
	[[ "$(qemu_machine_fault 1 "$CANNED/console-kvm-unavailable.log" 0)" == "QEMU did not start: "*kvm* ]]
	: >"$BATS_TEST_TMPDIR/empty.log"
	[[ "$(qemu_machine_fault 124 "$BATS_TEST_TMPDIR/empty.log" 120)" == "QEMU printed nothing in 120s"* ]]
	[[ "$(qemu_machine_fault 137 "$CANNED/console-hang.log" 30)" == "QEMU was killed after 30s"* ]]
	[ -z "$(qemu_machine_fault 124 "$CANNED/console-hang.log" 120)" ]
	[ -z "$(qemu_machine_fault 0 "$CANNED/console-good.log" 9)" ]
	[ -z "$(qemu_machine_fault 0 "$CANNED/console-panic.log" 9)" ]
}

# A boot command for qemu_retrying: attempt n writes canned console $n.
canned_boots() {
	local console=$1
	shift
	CANNED_CONSOLES=("$@")
	canned_boot() {
		cp "${CANNED_CONSOLES[$((BT_BOOT_ATTEMPT - 1))]}" "$console"
		[ "${CANNED_CONSOLES[$((BT_BOOT_ATTEMPT - 1))]}" = "$CANNED/console-good.log" ]
	}
}

@test "a boot that fails for the machine is tried again, and one that then boots counts" {
	local console=$BATS_TEST_TMPDIR/console.log
	canned_boots "$console" "$CANNED/console-kvm-unavailable.log" "$CANNED/console-kvm-unavailable.log" "$CANNED/console-good.log"
	run --separate-stderr qemu_retrying "$console" canned_boot
	[ "$status" -eq 0 ]
	[ "$(grep -c 'failed for the machine, not the kernel: QEMU did not start' <<<"$stderr")" -eq 2 ]
	[ -f "$console.machine-fault.2" ]
	cmp -s "$console" "$CANNED/console-good.log"
}

@test "a machine that fails every attempt is a setup problem (128), never a verdict" {
	local console=$BATS_TEST_TMPDIR/console.log k
	canned_boots "$console" "$CANNED/console-kvm-unavailable.log" "$CANNED/console-kvm-unavailable.log" \
		"$CANNED/console-kvm-unavailable.log" "$CANNED/console-kvm-unavailable.log"
	run --separate-stderr qemu_retrying "$console" canned_boot
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"bisect-tests: QEMU failed 4 times for the machine, not the kernel: QEMU did not start"* ]]
	for k in 1 2 3 4; do
		[ -f "$console.machine-fault.$k" ]
	done
}

@test "a kernel that panics is not retried: its exit code goes to the verdict" {
	local console=$BATS_TEST_TMPDIR/console.log
	canned_boots "$console" "$CANNED/console-panic.log" "$CANNED/console-good.log"
	run --separate-stderr qemu_retrying "$console" canned_boot
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	cmp -s "$console" "$CANNED/console-panic.log"
}

# Boot and checks give the results $@ in turn (ok or fail each).
canned_attempts() {
	printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/attempts"
	stage_boot() { BOOT=ok; echo booted >"$(run_dir "$1")/console.log"; }
	stage_checks() {
		CHECKS=$(head -n 1 "$BATS_TEST_TMPDIR/attempts")
		sed -i 1d "$BATS_TEST_TMPDIR/attempts"
	}
}

@test "a failing check is confirmed by a second boot: fail, fail is bad (1)" {
	canned_stages - -
	canned_attempts fail fail
	run --separate-stderr run_variant builtin
	[ "$status" -eq 1 ]
	[[ "$output" == *"checks=fail "*"verdict=bad" ]]
	# The RESULT still names its run, whose id stays in the run dir.
	[[ "$output" == *" run=$KBRANCH_WORK/runs/builtin id=$(cat "$KBRANCH_WORK/runs/builtin/run-id") "* ]]
	[[ "$stderr" == *"booting again to confirm"* ]]
	[ -f "$KBRANCH_WORK/runs/builtin/first-attempt/console.log" ]
}

@test "fail, then pass is flaky: skip (125), with both attempts' logs" {
	canned_stages - -
	canned_attempts fail ok
	run --separate-stderr run_variant builtin
	[ "$status" -eq 125 ]
	[[ "$output" == *"checks=flaky "*"verdict=flaky" ]]
	[[ "$stderr" == *"flaky: failed, then passed on a second boot; the logs of both: $KBRANCH_WORK/runs/builtin/first-attempt and $KBRANCH_WORK/runs/builtin"* ]]
	[ -f "$KBRANCH_WORK/runs/builtin/first-attempt/console.log" ]
	[ -f "$KBRANCH_WORK/runs/builtin/console.log" ]
}

@test "a check that passes at once boots once" {
	canned_stages - -
	canned_attempts ok fail
	run --separate-stderr run_variant builtin
	[ "$status" -eq 0 ]
	[ ! -e "$KBRANCH_WORK/runs/builtin/first-attempt" ]
}
