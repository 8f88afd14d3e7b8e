#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2034,SC2317,SC2030,SC2031 # $status, $output, $stderr: set by bats' run; globals read by the sourced run; stages replaced by canned ones
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
# tip.  Made once per file (a few seconds) by the first test that needs
# it, copied for each test: a run of one test that does not (the mutation
# list runs one at a time) does not pay for it.
series_shaped_tree() {
	if [ ! -d "$BATS_FILE_TMPDIR/tree" ]; then
		rm -rf "$BATS_FILE_TMPDIR/tree.new"
		(series_shaped_tree_make "$BATS_FILE_TMPDIR/tree.new")
		mv "$BATS_FILE_TMPDIR/tree.new" "$BATS_FILE_TMPDIR/tree"
	fi
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
		# The Subject: header unfolded (git format-patch folds a long one).
		subject=$(awk '/^Subject: / { s = $0; while ((getline) > 0 && /^[ \t]/) s = s $0; sub(/^Subject: \[PATCH[^]]*\] /, "", s); print s; exit }' "$REPO/patches/$patch")
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
	git checkout -q --detach "$(patch_rev "$1")"
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

# The oldconfig variant's .config at this commit: ext4, ACLs and security
# labels under the names patch 2 builds from, and the compat type as $1.
oldconfig_config() {
	mkdir -p "$(build_dir oldconfig)" "$(run_dir oldconfig)"
	printf '%s\n' CONFIG_EXT4_FS=m CONFIG_EXT4DEV_FS_POSIX_ACL=y CONFIG_EXT4DEV_FS_SECURITY=y "$1" >"$(build_dir oldconfig)/.config"
}

@test "config check: the carried config keeps the compat type where the commit has it (its fragment says so); without it at patch 2 it is bad, named; at patch 1, which has no such type, it is not asked" {
	series_shaped_tree
	at_patch 2
	expect_load
	oldconfig_config CONFIG_EXT4DEV_COMPAT=y
	run config_check oldconfig
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	oldconfig_config '# CONFIG_EXT4DEV_COMPAT is not set'
	run config_check oldconfig
	[ "$status" -eq 1 ]
	[ "$output" = "bisect-tests: config check failed: CONFIG_EXT4DEV_COMPAT=n in $(build_dir oldconfig)/.config, variant oldconfig needs CONFIG_EXT4DEV_COMPAT=y" ]
	at_patch 1
	expect_load
	run config_check oldconfig
	[ "$status" -eq 0 ]
	[ -z "$output" ]
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

@test "qemu_machine_fault names QEMU not started, nothing printed, killed before its timeout; a hang at its timeout, a panic and a good boot are not the machine's" {
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

@test "qemu_retrying: a machine that fails every attempt is 128, each attempt's console kept" {
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

# A boot function for stage_repeated (lib/tester.sh) that answers from
# $CANNED_BOOTS ("pass fail bootfail ..."), one word a boot, in order.
canned_boot() {
	local word
	word=$(cut -d' ' -f"$2" <<<"$CANNED_BOOTS")
	BOOT=ok CHECKS=ok BT_BOOT_TAINTED=0
	case $word in
	fail) CHECKS=fail ;;
	bootfail) BOOT=fail ;;
	esac
}

@test "--repeat N is weighed: none failed is good, two or more bad; one is weighed again with N boots more, then still one is flaky (125), two bad; one boot alone that fails is bad" {
	local boots checks want
	while IFS=: read -r BT_REPEAT CANNED_BOOTS want boots; do
		stage_repeated tester-x canned_boot 2>/dev/null
		checks=$(verdict_of ok "$BOOT" "$CHECKS")
		echo "$BT_REPEAT boots, $CANNED_BOOTS: $checks$BT_RESULT_EXTRA"
		[ "$checks" = "$want" ]
		[[ "$BT_RESULT_EXTRA" == " passes="*"/$boots boots="* ]]
	done <<'EOF'
3:pass pass pass:good:3
3:fail fail fail:bad:3
3:pass fail fail:bad:3
3:pass bootfail fail:bad:3
3:pass fail pass pass pass pass:flaky:6
3:fail pass pass pass fail pass:bad:6
2:pass fail fail pass:bad:4
1:fail:bad:1
1:pass:good:1
EOF
	[ "$(verdict_exit flaky)" = 125 ]
}

@test "a check that passes at once boots once" {
	canned_stages - -
	canned_attempts ok fail
	run --separate-stderr run_variant builtin
	[ "$status" -eq 0 ]
	[ ! -e "$KBRANCH_WORK/runs/builtin/first-attempt" ]
}

# --- Failed boots, through run_variant: the real stage_boot, qemu_boot and
# timeout(1), QEMU replaced by a stand-in that replays canned consoles ---

# Boot attempt n replays line n of "$@": "<console> <exit code> [ignore-term]"
# (the stand-in prints the canned console, then exits with the code, or
# with ignore-term waits for timeout(1) to kill it, as a hung QEMU that
# does not die of SIGTERM is: 137 after KBRANCH_BOOT_TIMEOUT + 5 s).
canned_qemu() {
	printf '%s\n' "$@" >"$BATS_TEST_TMPDIR/boots"
	cat >"$BATS_TEST_TMPDIR/qemu" <<'QEMU'
#!/bin/bash
read -r console rc how < <(sed -n 1p "${0%/*}/boots")
sed -i 1d "${0%/*}/boots"
cat "$console"
if [ "${how:-}" = ignore-term ]; then
	trap '' TERM
	sleep 60
fi
exit "$rc"
QEMU
	chmod +x "$BATS_TEST_TMPDIR/qemu"
	qemu_command() { echo "$BATS_TEST_TMPDIR/qemu"; }
	qemu_drives() { :; }
	canned_stages - -
	stage_boot() { real_stage_boot "$@"; }
	initramfs_build() { :; }
	images_make() { :; }
	stage_checks() { CHECKS=ok; }
}

@test "run: a boot that hangs is booted again: hang, hang is bad (1), the first attempt's console kept" {
	canned_qemu "$CANNED/console-hang.log 124" "$CANNED/console-hang.log 124"
	run --separate-stderr run_variant builtin
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$output" == *" boot=fail "*"verdict=bad" ]]
	[[ "$stderr" == *"builtin: boot failed: hung: no exit within 120s"* ]]
	[[ "$stderr" == *"boot=fail checks=skip; booting again to confirm"* ]]
	cmp "$KBRANCH_WORK/runs/builtin/first-attempt/console.log" "$CANNED/console-hang.log"
	[ ! -s "$BATS_TEST_TMPDIR/boots" ]
}

@test "run: a kernel that panics is booted again: panic, panic is bad (1)" {
	canned_qemu "$CANNED/console-panic.log 0" "$CANNED/console-panic.log 0"
	run --separate-stderr run_variant builtin
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"builtin: boot failed: kernel panic: "* ]]
	[[ "$stderr" == *"booting again to confirm"* ]]
	[ ! -s "$BATS_TEST_TMPDIR/boots" ]
}

@test "run: a boot that hangs once, then boots, is flaky: skip (125), not bad" {
	canned_qemu "$CANNED/console-hang.log 124" "$CANNED/console-good.log 0"
	run --separate-stderr run_variant builtin
	echo "$stderr"
	[ "$status" -eq 125 ]
	[[ "$output" == *" boot=ok checks=flaky "*"verdict=flaky" ]]
}

@test "run: QEMU killed by timeout(1) at its own timeout is a hang, the kernel's: bad (1), not retried as the machine's" {
	KBRANCH_BOOT_TIMEOUT=1
	canned_qemu "$CANNED/console-hang.log 0 ignore-term" "$CANNED/console-hang.log 0 ignore-term"
	run --separate-stderr run_variant builtin
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"builtin: boot failed: hung: no exit within 1s"* ]]
	[[ "$stderr" != *"for the machine"* ]]
	[ ! -s "$BATS_TEST_TMPDIR/boots" ]
}

@test "run: QEMU that never runs the kernel, at every attempt, is 128 with its line: no verdict" {
	local k
	canned_qemu "$CANNED/console-kvm-unavailable.log 1" "$CANNED/console-kvm-unavailable.log 1" \
		"$CANNED/console-kvm-unavailable.log 1" "$CANNED/console-kvm-unavailable.log 1"
	run --separate-stderr run_variant builtin
	echo "$stderr"
	[ "$status" -eq 128 ]
	[ -z "$output" ]
	[[ "$stderr" == *"QEMU failed 4 times for the machine, not the kernel: QEMU did not start: qemu-system-x86_64: "* ]]
	for k in 1 2 3 4; do
		[ -f "$KBRANCH_WORK/runs/builtin/console.log.machine-fault.$k" ]
	done
}

# --- The run's own shell stopped by set -e: never the commit's ------------

# bisect-tests/run as run executes it (its traps, its main), the stages
# those of stand-ins file $1 defines; the rest of "$@" its arguments.
run_main_with() {
	local stubs=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	run --separate-stderr bash -c 'source "$1"; source "$2"; shift 2; run_traps; main "$@"' _ \
		"$REPO/bisect-tests/run" "$stubs" "$@"
	echo "exit $status: $stderr"
}

@test "run: a disk that fills after the setup check, under a write of run's own shell, is 128 naming it; not bad" {
	local work=$BATS_TEST_TMPDIR/fullwork
	mkdir -p "$work"
	mount -t tmpfs -o size=1m tmpfs "$work"
	mkdir "$work/build"
	# The setup check passed (stood in for here); the disk fills before the
	# run's first write, its run-id.
	run dd if=/dev/zero of="$work/filler" bs=64K
	[ "$status" -eq 1 ]
	printf '%s\n' 'check_setup() { :; }' 'expect_load() { :; }' 'build_compilers() { :; }' >"$BATS_TEST_TMPDIR/stubs"
	KBRANCH_WORK=$work run_main_with "$BATS_TEST_TMPDIR/stubs" --variant builtin
	umount "$work"
	[ "$status" -eq 128 ]
	[ -z "$output" ]
	[[ "$stderr" == *"bisect-tests: work dir $work cannot be written: No space left on device; no verdict for this commit" ]]
}

@test "run: an error of run's own shell with the machine sound is 128, said as ours; not bad" {
	cat >"$BATS_TEST_TMPDIR/stubs" <<'STUBS'
check_setup() { :; }
expect_load() { :; }
build_compilers() { :; }
# A bug of ours: a command of run's own shell that fails.
stage_build() { false; }
STUBS
	run_main_with "$BATS_TEST_TMPDIR/stubs" --variant builtin
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"bisect-tests: stopped by an error of bisect-tests itself (exit 1), not of the commit: no verdict for this commit" ]]
}

@test "run: its answers pass the exit trap unchanged: good 0, bad 1, skip 125" {
	local verdict
	for verdict in 0 1 125; do
		printf '%s\n' 'check_setup() { :; }' 'expect_load() { :; }' 'build_compilers() { :; }' \
			"run_variant_code() { VARIANT_CODE=$verdict; }" >"$BATS_TEST_TMPDIR/stubs"
		run_main_with "$BATS_TEST_TMPDIR/stubs" --variant builtin
		[ "$status" -eq "$verdict" ]
		[ -z "$stderr" ]
	done
}

@test "a build error in a file only the fixture changes is not the series': skip" {
	local n
	series_shaped_tree
	n=$(series_length)
	# The fixture also changes kernel/sys.c, where the canned error is.
	git checkout -q "ext4-rename~$n"
	mkdir -p kernel
	echo 'fixture' >kernel/sys.c
	git add kernel/sys.c
	git commit -q --amend --no-edit
	git rebase -q --onto HEAD "ext4-rename~$n" ext4-rename
	# On a packaged import, as the real fixture is: a root commit's files
	# are no diff at all.
	git checkout -q --orphan packaged
	git rm -rqf .
	touch Makefile
	git add Makefile
	git commit -q -m 'Import linux-source 6.1 as packaged by Debian'
	git rebase -q --onto packaged --root ext4-rename
	at_patch 2
	[ "$(git diff --name-only "ext4-rename~$((n + 1))" "ext4-rename~$n" -- kernel/sys.c)" = kernel/sys.c ]
	[ "$(build_failure_ours "$CANNED/build-error-elsewhere.log")" = no ]
}

# --- The build dir's lock, shared by a kernel and its guests ---------------

# Hold variant $2's build lock for $1 seconds, the lock file naming holder
# $3, as a run of $3 does; the holder's pid in HOLDER.
hold_lock() {
	local file
	file=$(build_lock_file "$2")
	printf '%s\n' "$3" >"$file"
	flock "$file" sleep "$1" &
	HOLDER=$!
	sleep 0.3
}

@test "build lock: a kernel's run waits for a Debian machine booting it, and the machine for the kernel's run; a second run of one variant is a setup error, 128" {
	# A guest of module holds module's build dir: module's run waits for it.
	hold_lock 2 module debian-ext4
	run build_lock module
	[ "$status" -eq 0 ]
	[[ "$output" == *"module: waiting for the debian-ext4 run, which boots the same kernel ($KBRANCH_WORK/build/module)"* ]]
	[ "$(cat "$(build_lock_file module)")" = module ]
	wait "$HOLDER"
	# module's run holds it: the guest waits.
	hold_lock 2 module module
	run build_lock debian-ext4
	[ "$status" -eq 0 ]
	[[ "$output" == *"debian-ext4: waiting for the module run"* ]]
	wait "$HOLDER"
	# Another run of module itself, or a holder that names no guest of it.
	hold_lock 5 module module
	run build_lock module
	[ "$status" -eq 128 ]
	[[ "$output" == *"another bisect-tests run is using $KBRANCH_WORK/build/module"* ]]
	kill "$HOLDER"
	hold_lock 5 module debian-ext4dev
	run build_lock module
	[ "$status" -eq 128 ]
	kill "$HOLDER"
}
