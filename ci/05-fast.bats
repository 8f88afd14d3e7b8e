#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2034,SC2030,SC2031 # $status, $output: set by bats' run; globals read by the sourced libs
# The fast tier: every verdict path of bisect-tests judged on canned build
# logs and consoles (ci/canned/), with no kernel built or booted.  Runs
# first, in seconds.

load helpers

CANNED=$BATS_TEST_DIRNAME/canned

setup() {
	BT=$REPO/bisect-tests
	# shellcheck source=bisect-tests/lib/common.sh
	source "$BT/lib/common.sh"
	# shellcheck source=bisect-tests/lib/expect.sh
	source "$BT/lib/expect.sh"
	# shellcheck source=bisect-tests/lib/setup.sh
	source "$BT/lib/setup.sh"
	# shellcheck source=bisect-tests/lib/build.sh
	source "$BT/lib/build.sh"
	# shellcheck source=bisect-tests/lib/facts.sh
	source "$BT/lib/facts.sh"
	# shellcheck source=bisect-tests/lib/qemu.sh
	source "$BT/lib/qemu.sh"
	# shellcheck source=bisect-tests/lib/ktap.sh
	source "$BT/lib/ktap.sh"
	# shellcheck source=bisect-tests/lib/rootboot.sh
	source "$BT/lib/rootboot.sh"
	# shellcheck source=bisect-tests/lib/verdict.sh
	source "$BT/lib/verdict.sh"
	# The tree the canned build logs were written in.
	KTREE_DIR=/root/.cache/kbranch/linux
	# What the series changes, as build_series_files would find it.
	BT_SERIES_FILES=$(printf '%s\n' fs/Kconfig fs/Makefile fs/ext4/Kconfig fs/ext4/Makefile \
		fs/ext4/acl.h fs/ext4/super.c scripts/selinux/mdp/mdp.c arch/arm64/configs/defconfig)
}

# The facts (bisect-tests/lib/facts.sh) of canned console $1, made in the
# test's directory; their path.
canned_facts() {
	facts_of "$CANNED/$1" >"$BATS_TEST_TMPDIR/$1.facts"
	printf '%s\n' "$BATS_TEST_TMPDIR/$1.facts"
}

# Declare the tip of the series, as bisect-tests/expectations does.
declare_tip() {
	KBRANCH_EXPECT="$(sed -n 's/^ext4: stop requiring the test_fs flag to mount ext4 | //p' "$BT/expectations")" expect_load
}

declare_base() {
	KBRANCH_EXPECT="$(sed -n 's/^fixture: recreate the ext4dev-era ext4 on the packaged tree | //p' "$BT/expectations")" expect_load
}

@test "verdicts: ok/ok/ok is good, a failed stage is bad, a skipped build is skip" {
	[ "$(verdict_of ok ok ok)" = good ]
	[ "$(verdict_of ok fail skip)" = bad ]
	[ "$(verdict_of ok ok fail)" = bad ]
	[ "$(verdict_of fail skip skip)" = bad ]
	[ "$(verdict_of skip skip skip)" = skip ]
	run verdict_result builtin ok ok ok 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"verdict=good" ]]
	run verdict_result builtin skip skip skip 3
	[ "$status" -eq 125 ]
	run verdict_result builtin ok fail skip 3
	[ "$status" -eq 1 ]
	run verdict_combine 0 125 1 0
	[ "$status" -eq 1 ]
	run verdict_combine 0 125 0
	[ "$status" -eq 125 ]
}

# What a caller reads from a run instead of from its dirs: where its logs
# are, the .config it built, the release its build made (none when the
# build did not run).
@test "verdicts: the RESULT line names the run's dir and id, the .config built and the release made, each only when there is one" {
	local rdir=$BATS_TEST_TMPDIR/run
	mkdir -p "$rdir"
	echo 7 >"$rdir/run-id"
	run verdict_result builtin fail skip skip 3 "$rdir"
	[ "$status" -eq 1 ]
	[ "$output" = "RESULT variant=builtin build=fail boot=skip checks=skip seconds=3 run=$rdir id=7 verdict=bad" ]
	touch "$rdir/kernel.config"
	echo 6.1.0-g0123456789ab >"$rdir/kernel.release"
	run verdict_result builtin ok ok ok 3 "$rdir"
	[ "$status" -eq 0 ]
	[ "$output" = "RESULT variant=builtin build=ok boot=ok checks=ok seconds=3 run=$rdir id=7 config=$rdir/kernel.config release=6.1.0-g0123456789ab verdict=good" ]
	[ "$(result_field "$(result_of_run <<<"$output")" release)" = 6.1.0-g0123456789ab ]
}

@test "verdicts: the RESULT line counts the objects its build compiled and names its kernel's id and the guest's additions to a tester's config, each only when there is one" {
	local rdir=$BATS_TEST_TMPDIR/run
	mkdir -p "$rdir"
	echo 7 >"$rdir/run-id"
	printf '  CC      fs/ext4/super.o\n  CC [M]  fs/ext4/inode.o\n  AS      arch/x86/entry/entry_64.o\n  LD      vmlinux\n' >"$rdir/build.log"
	run verdict_result builtin ok ok ok 3 "$rdir"
	[ "$status" -eq 0 ]
	[ "$output" = "RESULT variant=builtin build=ok boot=ok checks=ok seconds=3 run=$rdir id=7 compiled=3 verdict=good" ]
	: >"$rdir/build.log"
	echo 'CONFIG_NET: n -> y' >"$rdir/guest-added"
	echo 0123456789abcdef >"$rdir/kernel.id"
	run verdict_result builtin ok ok ok 3 "$rdir"
	[ "$status" -eq 0 ]
	[ "$output" = "RESULT variant=builtin build=ok boot=ok checks=ok seconds=3 run=$rdir id=7 compiled=0 kernel=0123456789abcdef guest-added=$rdir/guest-added verdict=good" ]
}

# The RESULT line of build/boot/checks $1/$2/$3 ends in "$4 verdict=$5"
# and its code is $6.
result_ends() {
	run verdict_result builtin "$1" "$2" "$3" 3
	[ "$status" -eq "$6" ]
	[ "$output" = "RESULT variant=builtin build=$1 boot=$2 checks=$3 seconds=3$4 verdict=$5" ]
}

@test "verdicts: a RESULT that is no verdict on the commit names its reason, one word whose sentence both sides read from one table; good and bad name none" {
	result_ends skip skip skip ' reason=outside-series' skip 125
	result_ends ok ok flaky ' reason=flaky' flaky 125
	result_ends ok ok untestable ' reason=test-said-125' skip 125
	BT_UNTESTABLE=machine-cannot-test result_ends ok ok untestable ' reason=machine-cannot-test' skip 125
	result_ends ok fail flaky '' bad 1
	result_ends ok ok ok '' good 0
	# Every reason verdict_reason can name has its own sentence.
	[ "$(verdict_reason_text outside-series)" = "every error is in a file the series does not change" ]
	[[ "$(verdict_reason_text flaky)" == "it failed on one boot and passed on another"* ]]
	[ "$(verdict_reason_text test-said-125)" = "the test exited 125: it cannot test this kernel" ]
	[ "$(verdict_reason_text machine-cannot-test)" = "the Debian machine cannot mount its root at this step" ]
	[ "$(verdict_reason_text nonsense)" = "reason nonsense" ]
}

@test "verdicts: one table maps each word to its exit code and TAP result, for bisect-tests and kbranch alike; no other code maps them" {
	[ "$(verdict_exit good) $(verdict_exit bad) $(verdict_exit skip) $(verdict_exit flaky)" = "0 1 125 125" ]
	[ "$(verdict_tap good) $(verdict_tap bad) $(verdict_tap skip) $(verdict_tap flaky)" = "ok not-ok untestable untestable" ]
	[ "$(verdict_of_exit 0) $(verdict_of_exit 1) $(verdict_of_exit 125) $(verdict_of_exit 2)" = "good bad skip bad" ]
	# The only case arms that map a verdict word to a code, or a code to a
	# word, are verdict_row's.
	run grep -rnE "(good|skip|flaky)( *\| *[a-z]+)*\) *(return|echo|printf)[^;]*\b(0|1|125)\b|\b(0|125)\) *(echo|printf)[^;]*\b(good|skip|bad)\b" \
		"$REPO/branch-scripts" "$REPO/bisect-tests"
	[ "$status" -eq 0 ]
	[ "$(cut -d: -f1 <<<"$output" | sort -u)" = "$REPO/bisect-tests/lib/verdict.sh" ]
	[ "$(grep -c . <<<"$output")" -eq 2 ]
}

@test "build failure in a file the series changes is bad" {
	[ "$(build_failure_ours "$CANNED/build-error-ext4-super.log")" = yes ]
}

@test "build failure beside a C file the series changes (fs/ext4/inode.c) is bad" {
	[ "$(build_failure_ours "$CANNED/build-error-ext4-inode.log")" = yes ]
}

@test "build failure in scripts/selinux/mdp/mdp.c, which the series changes, is bad" {
	[ "$(build_failure_ours "$CANNED/build-error-mdp.log")" = yes ]
}

@test "link error in an object of a changed file is bad" {
	[ "$(build_failure_ours "$CANNED/build-link-error-ext4.log")" = yes ]
}

@test "build failure only in a file the series does not change is a skip, with its reason" {
	[ "$(build_failure_ours "$CANNED/build-error-elsewhere.log")" = no ]
	[ -z "$(setup_problem "$CANNED/build-error-elsewhere.log")" ]
}

@test "a build failure that names no file is bad" {
	[ "$(build_failure_ours "$CANNED/build-error-unplaced.log")" = yes ]
}

@test "setup problems in a build log are named: full disk, OOM-killed compiler, a tool that cannot allocate memory, missing tool, missing library, read-only disk" {
	[[ "$(setup_problem "$CANNED/build-disk-full.log")" == "the disk is full"* ]]
	[[ "$(setup_problem "$CANNED/build-oom.log")" == "a tool was killed"* ]]
	printf '%s\n' '  CC      fs/ext4/super.o' 'make[3]: fork: Cannot allocate memory' >"$BATS_TEST_TMPDIR/nomem.log"
	[[ "$(setup_problem "$BATS_TEST_TMPDIR/nomem.log")" == *"(out of memory?): make[3]: fork: Cannot allocate memory" ]]
	printf '%s\n' 'cp: cannot create regular file '"'"'x'"'"': Read-only file system' >"$BATS_TEST_TMPDIR/ro.log"
	[[ "$(setup_problem "$BATS_TEST_TMPDIR/ro.log")" == "the disk is read-only: "* ]]
	[[ "$(setup_problem "$CANNED/build-no-flex.log")" == "a tool is missing"* ]]
	[[ "$(setup_problem "$CANNED/build-no-libelf.log")" == "a build library is missing"* ]]
	[ -z "$(setup_problem "$CANNED/build-error-ext4-super.log")" ]
}

@test "a log on a disk with less than 1 MiB free is a full disk, whatever the log says" {
	local disk=$BATS_TEST_TMPDIR/disk
	mkdir -p "$disk"
	mount -t tmpfs -o size=2m tmpfs "$disk"
	cp "$CANNED/build-error-ext4-super.log" "$disk/build.log"
	[ -z "$(setup_problem "$disk/build.log")" ]
	run dd if=/dev/zero of="$disk/filler" bs=64K
	[ "$status" -eq 1 ]
	run setup_problem "$disk/build.log"
	umount "$disk"
	[ "$status" -eq 0 ]
	[[ "$output" == "the disk is full: "*" bytes free on $disk" ]]
}

@test "a console that reaches the guest's end marker is no boot failure" {
	[ -z "$(qemu_failure 0 "$(canned_facts console-good.log)")" ]
}

@test "a boot that times out is a hang" {
	[[ "$(qemu_failure 124 "$(canned_facts console-hang.log)")" == "hung: "* ]]
}

@test "a kernel panic is named with its line" {
	[[ "$(qemu_failure 0 "$(canned_facts console-panic.log)")" == "kernel panic: "*"Kernel panic"* ]]
}

@test "QEMU that never starts the kernel (KVM unavailable) is a setup problem, not a verdict" {
	[[ "$(qemu_setup_problem "$CANNED/console-kvm-unavailable.log")" == *"failed to initialize kvm"* ]]
	[ -z "$(qemu_setup_problem "$CANNED/console-good.log")" ]
	[ -z "$(qemu_setup_problem "$CANNED/console-panic.log")" ]
}

# Scratch images as a guest that did its work leaves them (made here with
# debugfs, no kernel), in run dir $1, beside a guest program that prints
# its side of the contract; the crash image is left needing recovery.
host_images() {
	local r=$1 img
	mkdir -p "$r"
	printf '#!/bin/sh\ncase $2 in pattern) echo p ;; crash) echo c ;; esac\n' >"$r/init"
	chmod +x "$r/init"
	for img in flagged plain crash; do
		truncate -s 8M "$r/$img.img"
		mke2fs -q -F -t ext4 "$r/$img.img"
	done
	printf 'p\n' >"$r/p"
	printf 'c\n' >"$r/c"
	printf 'user value' >"$r/user"
	printf 'trusted value' >"$r/trusted"
	printf 'write %s pattern\nwrite /dev/null xattrs\nea_set -f %s /xattrs user.kbranch\nea_set -f %s /xattrs trusted.kbranch\n' \
		"$r/p" "$r/user" "$r/trusted" | debugfs -w -f - "$r/flagged.img" >/dev/null 2>&1
	printf 'write %s crash-pattern\nfeature needs_recovery\n' "$r/c" | debugfs -w -f - "$r/crash.img" >/dev/null 2>&1
	printf 'marker crash-written\n' >"$r/facts"
}

@test "host read back: images as the guest left them pass in silence; each problem is named, and fails" {
	local r
	# shellcheck source=bisect-tests/lib/hostcheck.sh
	source "$BT/lib/hostcheck.sh"
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	r=$(run_dir builtin)
	host_images "$r"
	run hostcheck_run builtin
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	host_images "$r"
	printf 'rm pattern\nea_rm /xattrs trusted.kbranch\n' | debugfs -w -f - "$r/flagged.img" >/dev/null 2>&1
	: >"$r/facts"
	run hostcheck_run builtin
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "bisect-tests: host read back of /pattern differs: $r/host/pattern" ]
	[ "${lines[1]}" = "bisect-tests: host read back of /xattrs trusted.kbranch differs: $r/host/trusted.kbranch" ]
	[[ "${lines[2]}" == "bisect-tests: crash image: the guest never printed '${BT_MARK}crash image written', see $r/console.log" ]]
}

@test "images: made once from the guest's hostile kinds and copied into the run; none named, none made, and it fails" {
	local r
	# shellcheck source=bisect-tests/lib/images.sh
	source "$BT/lib/images.sh"
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	r=$(run_dir builtin)
	mkdir -p "$r"
	printf '#!/bin/sh\nprintf "%%s\\n" bad_magic journal_sb\n' >"$r/init"
	chmod +x "$r/init"
	images_make "$r"
	[ "$(cd "$r" && echo *.img)" = "crash.img flagged.img hostile-bad_magic.img hostile-control.img hostile-disk0.img hostile-journal_sb.img plain.img" ]
	[ "$(images_list "$r" | wc -l)" -eq 4 ]
	rm "$r"/*.img
	printf '#!/bin/sh\n' >"$r/init"
	run images_make "$r"
	[ "$status" -eq 1 ]
	[ "$output" = "bisect-tests: images: the guest program $r/init names no hostile kinds" ]
	[ -z "$(cd "$r" && find . -name '*.img')" ]
}

@test "guest checks: all ok passes; one not ok fails; a run cut short fails; a guest that ends with a status other than 0 fails" {
	ktap_guest_ok "$(canned_facts console-good.log)"
	sed 's/ext4-checks: end status=0/ext4-checks: end status=1/' "$CANNED/console-good.log" >"$BATS_TEST_TMPDIR/console-end1.log"
	run ktap_guest_ok "$(facts_of "$BATS_TEST_TMPDIR/console-end1.log" >"$BATS_TEST_TMPDIR/end1.facts"; echo "$BATS_TEST_TMPDIR/end1.facts")"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest checks did not complete: end status=1"* ]]
	run ktap_guest_ok "$(canned_facts console-guest-fail.log)"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest check failed: not ok"* ]]
	run ktap_guest_ok "$(canned_facts console-hang.log)"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest checks did not complete: "* ]]
}

@test "root probe: the packaged kernel's behaviour at the tip is good" {
	declare_tip
	local seen
	seen=$(rootboot_observed "$(canned_facts root-testfs-ext4.console)")
	[ "$seen" = "type=ext4 order=ext3,ext2,ext4,ext4dev lines=none" ]
	[ -z "$(rootboot_judge testfs "$seen" 1)" ]
}

@test "root probe: ext4dev registered before ext4 mounts a test_fs root as ext4dev, and is bad" {
	declare_tip
	local seen
	seen=$(rootboot_observed "$(canned_facts root-testfs-v1-tip.console)")
	[[ "$seen" == "type=ext4dev order=ext3,ext2,ext4dev,ext4 lines=deprecated" ]]
	run rootboot_judge testfs "$seen" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"mounted as ext4dev, declared ext4"* ]]
	[[ "$output" == *"declared ext3,ext2,ext4,ext4dev"* ]]
	[[ "$output" == *"deprecated line"* ]]
}

@test "root probe: an ext2 root the base cannot mount is bad" {
	declare_base
	local seen
	seen=$(rootboot_observed "$(canned_facts root-ext2-v1-base.console)")
	[[ "$seen" == "type=none "* ]]
	run rootboot_judge ext2 "$seen" 0
	[ "$status" -eq 0 ]
	[[ "$output" == *"root ext2: mounted as none, declared ext2"* ]]
}

@test "root probe: without ext4dev configured, the declared order drops it" {
	declare_tip
	[ "$(rootboot_want_order 0)" = ext3,ext2,ext4 ]
	[ "$(rootboot_want_order 1)" = ext3,ext2,ext4,ext4dev ]
	declare_base
	[ "$(rootboot_want_order 0)" = ext3,ext2,ext4dev ]
}

@test "a missing tool is a setup error (128) before anything is built" {
	local tree=$BATS_TEST_TMPDIR/tree bin=$BATS_TEST_TMPDIR/bin tool
	mkdir -p "$tree/fs/ext4" "$bin"
	touch "$tree/Makefile"
	git -C "$tree" init -q
	# A PATH with everything run needs except QEMU.
	for tool in git make timeout mke2fs e2fsck debugfs depmod python3 flock bash sed grep cat dirname; do
		ln -s "$(command -v "$tool")" "$bin/$tool"
	done
	# shellcheck disable=SC2016 # expanded by the inner bash
	run env PATH="$bin" bash -c 'cd "$1" && "$2"' _ "$tree" "$BT/run"
	[ "$status" -eq 128 ]
	[[ "$output" == *"qemu-system-x86_64 is missing"* ]]
}

@test "QEMU is given only the run's images, kernel and initramfs, and no network" {
	local bin=$BATS_TEST_TMPDIR/bin argv=$BATS_TEST_TMPDIR/qemu.args f
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	# shellcheck source=bisect-tests/lib/images.sh
	source "$BT/lib/images.sh"
	mkdir -p "$bin" "$(run_dir builtin)"
	# A guest program that names five hostile kinds: two hostile disks.
	printf '#!/bin/sh\n[ "$*" = "--print hostile-kinds" ] && printf "k%%s\\n" 1 2 3 4 5\n' >"$(run_dir builtin)/init"
	chmod +x "$(run_dir builtin)/init"
	[ "$(images_hostile_disks "$(run_dir builtin)")" -eq 2 ]
	# A stand-in that records its command line: what QEMU would be given;
	# it prints a firmware banner, as a QEMU that started does.
	printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s"\necho SeaBIOS\n' "$argv" >"$bin/qemu-system-x86_64"
	chmod +x "$bin/qemu-system-x86_64"
	PATH=$bin:$PATH qemu_boot builtin
	PATH=$bin:$PATH qemu_boot_root builtin "$(run_dir builtin)/root-ext4.img" "$(run_dir builtin)/root.console"
	grep -qx -- '-nic' "$argv"
	[ "$(grep -cx -- 'none' "$argv")" -eq 2 ]
	[ "$(grep -c '^file=' "$argv")" -eq $((3 + 2 + 1)) ]
	while IFS= read -r f; do
		[[ "$f" == "file=$(run_dir builtin)/"* ]] || { echo "outside the run dir: $f"; return 1; }
	done < <(grep '^file=' "$argv")
	grep -qx "$(build_dir builtin)/arch/x86/boot/bzImage" "$argv"
	grep -qx "$(run_dir builtin)/initramfs.cpio" "$argv"
	[ "$(grep -c '^/' "$argv")" -eq 3 ]
}

# The docs' claims name the tests that back them: ci/<file> «test name».
# The pages: README and docs/*.md.
doc_pages() {
	printf '%s\n' "$REPO/README.md" "$REPO"/docs/*.md
}

# Every «...» in the pages, with its ci/<file>.bats when it has one; a
# page's lines are joined, so a name may be wrapped.
docs_quoted() {
	local page
	while IFS= read -r page; do
		tr '\n' ' ' <"$page" | tr -s ' ' | grep -oE '(ci/[0-9a-z-]+\.bats )?«[^»]*»'
	done < <(doc_pages)
}

docs_refs() {
	docs_quoted | grep '^ci/'
}

# The names of the tests in .bats file $1, as bats reads them (\" is ").
test_names() {
	sed -n 's/^@test "\(.*\)" {$/\1/p' "$1" | sed 's/\\"/"/g'
}

# The rows of the faults table (docs/faults.md), its header aside.
faults_rows() {
	grep '^| ' "$REPO/docs/faults.md" | grep -v '^| fault or bad input'
}

# Each exit code's item in the pages ("- `N` ..." and its indented lines),
# as one line, its lines joined by a space.
exit_code_items() {
	awk '/^- `(0|1|125|128|130|143)`/ { if (b) print b; b = $0; next }
		b && /^  / { sub(/^ +/, ""); b = b " " $0; next } b { print b; b = "" } END { if (b) print b }' "$@"
}

@test "README and docs/: every faults row and every exit code names a test, every test is named with its file, and every named test exists" {
	local ref file name row pages=() bad=0
	mapfile -t pages < <(doc_pages)
	[ -f "$REPO/docs/faults.md" ]
	[ -f "$REPO/docs/tester.md" ]
	# A name without its file would escape the check that it exists; the
	# one allowed is the form's own description, ci/<file> «test name».
	while IFS= read -r ref; do
		[[ "$ref" == ci/* || "$ref" == '«test name»' ]] || { echo "a test named without its ci/<file>.bats: $ref"; bad=1; }
	done < <(docs_quoted)
	[ "$(faults_rows | wc -l)" -gt 30 ]
	while IFS= read -r row; do
		[[ "$row" == *'ci/'*'.bats «'* ]] || { echo "faults row without a test: $row"; bad=1; }
	done < <(faults_rows)
	# Every code bisect-tests/run exits with has its item, and each names a test.
	[ "$(exit_code_items "${pages[@]}" | cut -d'`' -f2 | sort -n | tr '\n' ' ')" = "0 1 125 128 130 143 " ]
	while IFS= read -r row; do
		[[ "$row" == *'ci/'*'.bats «'* ]] || { echo "exit code without a test: $row"; bad=1; }
	done < <(exit_code_items "${pages[@]}")
	[ "$(docs_refs | wc -l)" -gt 30 ]
	while IFS= read -r ref; do
		file=${ref%% «*} name=${ref#* «} name=${name%»}
		[ -f "$REPO/$file" ] && test_names "$REPO/$file" | grep -qxF -- "$name" || { echo "no such test: $ref"; bad=1; }
	done < <(docs_refs)
	[ "$bad" = 0 ]
}

@test "pinned test list: every test once, and only the skips /expect explains" {
	local good
	good=$(canned_facts console-good.log)
	ktap_pinned "$good" "$CANNED/tests.list"
	# A test that never reported.
	grep -v 'global.the_guest_has_no_network' "$good" >"$BATS_TEST_TMPDIR/missing"
	run ktap_pinned "$BATS_TEST_TMPDIR/missing" "$CANNED/tests.list"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest test global.the_guest_has_no_network: reported 0 times, want once"* ]]
	# With the compat type configured, its tests may not skip.
	sed 's/^expect compat=0$/expect compat=1/' "$good" >"$BATS_TEST_TMPDIR/compat"
	run ktap_pinned "$BATS_TEST_TMPDIR/compat" "$CANNED/tests.list"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest test global.the_compat_type_mounts_the_flagged_image_and_warns was skipped, which /expect does not explain (SKIP compat=0: "* ]]
	# A test the program does not have.
	grep -v 'global.the_guest_has_no_network' "$CANNED/tests.list" >"$BATS_TEST_TMPDIR/tests.list"
	run ktap_pinned "$good" "$BATS_TEST_TMPDIR/tests.list"
	[ "$status" -eq 1 ]
	[[ "$output" == *"guest test global.the_guest_has_no_network is not in the program's list"* ]]
}

@test "a skip is allowed only where the guest's /expect says what its reason names: a feature absent (0 or none)" {
	local good
	good=$(canned_facts console-good.log)
	# The canned run skips, each naming its /expect line.
	[ "$(grep -c '^test [^ ]* skip [a-z_]*=[a-z0-9]*: ' "$good")" -ge 2 ]
	# A reason naming a line /expect does not have; a line of /expect
	# that says a feature is there; no line at all.
	for why in 'compat=1: no compat type' 'acl=1: no POSIX ACLs' 'no compat type declared or configured' ''; do
		sed "s/^\(test global.the_compat_type_mounts_the_flagged_image_and_warns skip\).*/\1${why:+ $why}/" \
			"$good" >"$BATS_TEST_TMPDIR/facts"
		run ktap_pinned "$BATS_TEST_TMPDIR/facts" "$CANNED/tests.list"
		[ "$status" -eq 1 ]
		[[ "$output" == *"guest test global.the_compat_type_mounts_the_flagged_image_and_warns was skipped, which /expect does not explain"* ]]
	done
	# The rule alone, on the canned run's /expect.
	[ "$(ktap_skip_explained "$good" 'compat=0: no compat type')" = yes ]
	[ "$(ktap_skip_explained "$good" 'module=ext4: built in')" = no ]
}

@test "configs at the tip against the packaged form: a listed difference passes, any other is printed and bad" {
	KB_REPO=$REPO
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	# shellcheck source=branch-scripts/lib/carry.sh
	source "$REPO/branch-scripts/lib/carry.sh"
	CARRY_PACKAGED_KEY=canned
	mkdir -p "$(dirname "$(carry_packaged_file debian)")"
	printf '%s\n' CONFIG_EXT4_FS=m CONFIG_EXT4_FS_POSIX_ACL=y CONFIG_JBD2=m CONFIG_FS_MBCACHE=m >"$(carry_packaged_file debian)"
	# Debian's config made at the base, at the tip: its sticky old names and
	# the ext4dev type its machines mount.
	printf '%s\n' CONFIG_EXT4_FS=m CONFIG_EXT4_FS_POSIX_ACL=y CONFIG_JBD2=m CONFIG_FS_MBCACHE=m \
		CONFIG_EXT4DEV_FS=m CONFIG_EXT4DEV_COMPAT=y CONFIG_NET=y >"$BATS_TEST_TMPDIR/listed"
	run carry_vs_packaged 4 debian "debian from the base" "$BATS_TEST_TMPDIR/listed" "stepped from the base"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# v2's default: the compat type off (an ext4dev-era machine's root
	# lost); and a lost JBD2 line.
	sed -e 's/^CONFIG_EXT4DEV_COMPAT=y$/# CONFIG_EXT4DEV_COMPAT is not set/' -e '/^CONFIG_JBD2=m$/d' \
		"$BATS_TEST_TMPDIR/listed" >"$BATS_TEST_TMPDIR/v2"
	run carry_vs_packaged 4 debian "debian from the base" "$BATS_TEST_TMPDIR/v2" "stepped from the base"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "$output" == *"stepped from the base, it differs from the debian config made at the packaged tree, not in compat-differences: 'debian from the base: + # CONFIG_EXT4DEV_COMPAT is not set'"* ]]
	[[ "$output" == *"'debian from the base: - CONFIG_JBD2=m'"* ]]
	# The same line listed for another step does not count at this one.
	run carry_vs_packaged 1 debian "debian from the base" "$BATS_TEST_TMPDIR/listed" "stepped from the base"
	[ "$status" -eq 1 ]
}

@test "a config is made again when anything make's config targets read changes, and reused only when nothing did" {
	# shellcheck source=bisect-tests/lib/config.sh
	source "$BT/lib/config.sh"
	KTREE_DIR=$BATS_TEST_TMPDIR/tree
	BT_CC=gcc BT_HOSTCC=gcc
	mkdir -p "$KTREE_DIR/fs/ext4" "$KTREE_DIR/scripts/kconfig" "$KTREE_DIR/kernel/configs" "$KTREE_DIR/drivers"
	printf 'config EXT4_FS\n\ttristate "ext4"\n' >"$KTREE_DIR/fs/ext4/Kconfig"
	printf 'source "fs/ext4/Kconfig"\n' >"$KTREE_DIR/Kconfig"
	printf 'int main(void) { return 0; }\n' >"$KTREE_DIR/scripts/kconfig/conf.c"
	printf '#!/bin/sh\necho 1\n' >"$KTREE_DIR/scripts/cc-version.sh"
	printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$KTREE_DIR/Makefile"
	printf 'CONFIG_SLOB=y\n' >"$KTREE_DIR/kernel/configs/tiny.config"
	printf 'a driver, which no config target reads\n' >"$KTREE_DIR/drivers/foo.c"
	printf 'CONFIG_EXT4_FS=y\n' >"$BATS_TEST_TMPDIR/fragment"
	local key changed f
	key=$(config_key "$BATS_TEST_TMPDIR/fragment")
	[ "$(config_key "$BATS_TEST_TMPDIR/fragment")" = "$key" ]
	echo 'int foo;' >>"$KTREE_DIR/drivers/foo.c"
	[ "$(config_key "$BATS_TEST_TMPDIR/fragment")" = "$key" ]
	for f in fs/ext4/Kconfig Kconfig scripts/kconfig/conf.c scripts/cc-version.sh Makefile kernel/configs/tiny.config; do
		cp "$KTREE_DIR/$f" "$BATS_TEST_TMPDIR/saved"
		echo '# changed' >>"$KTREE_DIR/$f"
		changed=$(config_key "$BATS_TEST_TMPDIR/fragment")
		cp "$BATS_TEST_TMPDIR/saved" "$KTREE_DIR/$f"
		[ "$changed" != "$key" ] || { echo "a change to $f kept the key"; return 1; }
	done
	# An environment that make's config targets read is another key, and
	# so is another compiler (here: its name).
	[ "$(KCONFIG_ALLCONFIG=/dev/null config_key "$BATS_TEST_TMPDIR/fragment")" != "$key" ]
	BT_CC="ccache gcc"
	[ "$(config_key "$BATS_TEST_TMPDIR/fragment")" != "$key" ]
	BT_CC=gcc
	echo '# CONFIG_EXT4_FS_POSIX_ACL is not set' >>"$BATS_TEST_TMPDIR/fragment"
	[ "$(config_key "$BATS_TEST_TMPDIR/fragment")" != "$key" ]
	# What was kept under a key is what comes back; no key, no config.
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	printf 'CONFIG_EXT4_FS=y\n' >"$BATS_TEST_TMPDIR/made"
	config_keep "$key" "$BATS_TEST_TMPDIR/made"
	[ "$(config_from_cache "$key" "$BATS_TEST_TMPDIR/back" "$BATS_TEST_TMPDIR/log")" = yes ]
	cmp "$BATS_TEST_TMPDIR/made" "$BATS_TEST_TMPDIR/back"
	[ "$(config_from_cache "0000" "$BATS_TEST_TMPDIR/none" "$BATS_TEST_TMPDIR/log")" = no ]
}

@test "compiler: one choice for every build (bisect-tests, kbranch check and preflight, the gate's cross builds)" {
	local fake=$BATS_TEST_TMPDIR/bin
	mkdir -p "$fake"
	printf '#!/bin/sh\n' >"$fake/ccache"
	chmod +x "$fake/ccache"
	# shellcheck source=bisect-tests/lib/compiler.sh
	source "$BT/lib/compiler.sh"
	# With ccache: gcc behind it, never in depend mode (it cached
	# piggy.o without the payload it .incbin's), even when the
	# environment asks; the environment's CC and HOSTCC win, CC only for
	# this machine's own architecture.
	unset CC HOSTCC CCACHE_NODEPEND
	CCACHE_DEPEND=1
	PATH=$fake:$PATH compiler_choose ""
	[ "$CHOSEN_CC" = "ccache gcc" ]
	[ "$CHOSEN_HOSTCC" = gcc ]
	[ -z "${CCACHE_DEPEND:-}" ]
	[ "$CCACHE_NODEPEND" = 1 ]
	[ "$CCACHE_NAMESPACE" = kbranch-no-depend ]
	PATH=$fake:$PATH compiler_choose aarch64-linux-gnu-
	[ "$CHOSEN_CC" = "ccache aarch64-linux-gnu-gcc" ]
	CC=clang HOSTCC=cc PATH=$fake:$PATH compiler_choose ""
	[ "$CHOSEN_CC" = clang ]
	[ "$CHOSEN_HOSTCC" = cc ]
	CC=clang PATH=$fake:$PATH compiler_choose aarch64-linux-gnu-
	[ "$CHOSEN_CC" = "ccache aarch64-linux-gnu-gcc" ]
	# Without ccache: gcc alone, and no ccache mode set.
	unset CCACHE_NODEPEND
	PATH=/usr/bin/not-there compiler_choose ""
	[ "$CHOSEN_CC" = gcc ]
	[ -z "${CCACHE_NODEPEND:-}" ]
	# No other file makes the choice: none names ccache before a compiler.
	run grep -rnE '"ccache |CC=(gcc|\$\{?CC)' "$REPO/bisect-tests/lib" "$REPO/bisect-tests/run" "$REPO/branch-scripts"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(grep -v '/compiler.sh:' <<<"$output")" ]
}

@test "gate: a warning is known by file, message and line text, not line number; only the series' dirs' rebuilt targets count" {
	# shellcheck source=branch-scripts/lib/gate.sh
	source "$REPO/branch-scripts/lib/gate.sh"
	KTREE=$BATS_TEST_TMPDIR/tree
	mkdir -p "$KTREE/fs/ext4"
	printf 'int a;\nstatic int unused_one;\n\nstatic int unused_one;\n' >"$KTREE/fs/ext4/super.c"
	cat >"$BATS_TEST_TMPDIR/build.log" <<-LOG
	  CC [M]  fs/ext4/super.o
	  CC      fs/jbd2/journal.o
	  HOSTCC  scripts/selinux/mdp/mdp
	  HOSTCC  scripts/basic/fixdep
	$KTREE/fs/ext4/super.c:2:12: warning: 'unused_one' defined but not used [-Wunused-variable]
	fs/ext4/super.c:4:12: warning: 'unused_one' defined but not used [-Wunused-variable]
	../fs/ext4/super.c:1:5: error: something else
	$KTREE/Documentation/admin-guide/ext4.rst:7: WARNING: Title underline too short.
	LOG
	run rebuilt_targets "$BATS_TEST_TMPDIR/build.log" fs/ext4 scripts/selinux/mdp
	[ "$status" -eq 0 ]
	[ "$output" = $'fs/ext4/super.o\nscripts/selinux/mdp/mdp' ]
	run identities "$BATS_TEST_TMPDIR/build.log"
	echo "$output"
	[ "$status" -eq 0 ]
	# The same warning at two line numbers, on the same text: one identity.
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[1]}" = "fs/ext4/super.c: error: something else  [line: int a;]" ]
	[ "${lines[2]}" = "fs/ext4/super.c: warning: 'unused_one' defined but not used [-Wunused-variable]  [line: static int unused_one;]" ]
	[ "${lines[0]}" = "Documentation/admin-guide/ext4.rst: WARNING: Title underline too short.  [line: ]" ]
}

# kbranch all's order and its refusal, with each subcommand replaced by a
# script that records it and fails where told (the subcommands themselves
# are tested on the real tree in the other files).
@test "kbranch all runs the gate before the pull request, and a failed gate step stops the pull request, named" {
	local fake=$BATS_TEST_TMPDIR/repo
	mkdir -p "$fake/branch-scripts"
	cat >"$fake/branch-scripts/kbranch" <<-'SH'
	#!/usr/bin/env bash
	echo "$1" >>"$KBRANCH_WORK/ran"
	[[ " $FAIL " != *" $1 "* ]]
	SH
	chmod +x "$fake/branch-scripts/kbranch"
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work KB_REPO=$fake
	mkdir -p "$KBRANCH_WORK"
	# cmd/all.sh's run, in a shell of its own (bats has a run too).
	all() {
		bash -c 'set -euo pipefail; . "$1/branch-scripts/lib/common.sh"; KB_REPO=$2; . "$1/branch-scripts/cmd/all.sh"; run' \
			all "$REPO" "$fake" 2>&1
	}
	FAIL="" run all
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$KBRANCH_WORK/ran")" = "import apply verify preflight check submit pull-request " ]
	rm "$KBRANCH_WORK/ran"
	FAIL="preflight check" run all
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(tr '\n' ' ' <"$KBRANCH_WORK/ran")" = "import apply verify preflight check submit " ]
	grep -qx 'kbranch all: pull request not written: the gate failed (preflight check)' <<<"$output"
	grep -q 'pull-request  *REFUSED  *the gate failed: preflight check' <<<"$output"
}

# notes.sh, with fixed tests and tools versions, over a scratch kernel
# tree (not yet made: $KTREE).
notes_scratch() {
	KBRANCH_WORK=$BATS_TEST_TMPDIR
	# shellcheck source=branch-scripts/lib/common.sh
	source "$REPO/branch-scripts/lib/common.sh"
	KTREE=$BATS_TEST_TMPDIR/notes-tree
	KB_TESTS_VERSION=abc123
	KB_TOOLCHAIN=gcc-1,qemu-2,busybox-3
	# shellcheck source=branch-scripts/lib/notes.sh
	source "$REPO/branch-scripts/lib/notes.sh"
}

# The reuse rules of kbranch verify's notes, on a scratch repository with
# lines written as note_record writes them.
@test "notes: a tree passed once is reused; a bad or skipped line for the same key wins; a chain matches only itself; a reuse is recorded once" {
	notes_scratch
	git init -q "$KTREE"
	kgit commit -q --allow-empty -m one
	kgit commit -q --allow-empty -m 'same tree'
	local one two
	one=$(kgit rev-parse HEAD~1)
	two=$(kgit rev-parse HEAD)
	note_record "$one" builtin good 'build=ok boot=ok checks=ok'
	note_record "$one" carried-minimal good 'chain=aaaa kconfig=kept'
	note_passed "$two" builtin
	! note_passed "$two" module || false
	note_passed "$two" carried-minimal aaaa
	! note_passed "$two" carried-minimal bbbb || false
	# Another tests version or toolchain is another key.
	KB_TESTS_VERSION=def456
	note_forget
	! note_passed "$two" builtin || false
	KB_TESTS_VERSION=abc123
	note_forget
	# The reuse is recorded on the commit verified, once.
	note_reuse "$two" builtin
	note_reuse "$two" builtin
	[ "$(kgit notes --ref="$KB_NOTES" show "$two" | grep -c 'variant=builtin .*verdict=good reused=1')" -eq 1 ]
	# A bad line for the same key, on any commit, wins over every good one.
	note_record "$one" builtin bad 'build=ok boot=fail checks=skip'
	! note_passed "$two" builtin || false
	note_record "$one" carried-minimal skip 'chain=aaaa kconfig=lost'
	! note_passed "$two" carried-minimal aaaa || false
}

@test "notes: one reader of a line's fields, and one pass over the notes gives the verdicts and the latest line" {
	notes_scratch
	# A line's fields: the first of a key with a value wins; the first word
	# is a field too when it is one (a RESULT line's fields alone).
	note_parse 'kbranch-verify tree=t variant=builtin empty= verdict=good seconds=9 verdict=bad a=b=c'
	[ "$NOTE_TAG" = kbranch-verify ]
	[ "${NOTE_FIELDS[verdict]}" = good ]
	[ "${NOTE_FIELDS[a]}" = b=c ]
	[ -z "${NOTE_FIELDS[empty]+set}" ]
	[ "$(note_get 'build=ok boot=ok' build)" = ok ]
	run note_get 'kbranch-verify variant=builtin' seconds
	[ "$status" -eq 1 ]
	git init -q "$KTREE"
	kgit commit -q --allow-empty -m one
	local one
	one=$(kgit rev-parse HEAD)
	note_record "$one" builtin bad 'build=ok boot=fail checks=skip'
	note_record "$one" builtin good 'build=ok boot=ok checks=ok run=/r id=2'
	note_record "$one" module good 'build=ok boot=ok checks=ok'
	[ "$(note_get "$(note_latest "$one" builtin)" id)" = 2 ]
	run note_latest "$one" minimal
	[ "$status" -eq 1 ]
	note_index
	[ "$(note_get "${KB_NOTE_LATEST[$one builtin]}" id)" = 2 ]
	[ "${KB_NOTE_LATEST[$one builtin]}" = "$(note_latest "$one" builtin)" ]
	note_index_key "$one" builtin
	[ "${KB_NOTE_VERDICTS[$NOTE_IKEY]}" = " bad  good " ]
	# No other place in kbranch splits a note line: no positional read of
	# its words, no match of a "key=" in it, no grep for a variant.
	run grep -rnE 'read -r [a-z]+ tag |=~ .*[a-z]=\(|grep .*variant=' "$REPO/branch-scripts"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "bench: every line of its tables is printed and kept in the run's figures file" {
	# shellcheck source=branch-scripts/lib/common.sh
	source "$REPO/branch-scripts/lib/common.sh"
	# shellcheck source=branch-scripts/cmd/bench.sh
	source "$REPO/branch-scripts/cmd/bench.sh"
	BENCH_FIGURES=$BATS_TEST_TMPDIR/figures.txt
	local out
	out=$(report "whole matrix, warm re-run, nothing changed (target < 5 s)" "0.8 s")
	[[ "$out" == "whole matrix, warm re-run"*" 0.8 s" ]]
	[ "$(cat "$BENCH_FIGURES")" = "$out" ]
}

# The Debian machines are guests: a commit builds one kernel per variant
# of kind built or carried, at most 4 (bench's target), and a machine
# added to the registry builds none.
@test "bench: builds per commit are the variants that build a kernel, at most 4; a Debian machine added to the registry adds none" {
	local copy n
	# shellcheck source=branch-scripts/lib/common.sh
	source "$REPO/branch-scripts/lib/common.sh"
	# shellcheck source=branch-scripts/cmd/bench.sh
	source "$REPO/branch-scripts/cmd/bench.sh"
	KB_REPO=$REPO
	n=$(builds_per_commit)
	[[ "$n" =~ ^([0-9]+)\ \(([a-z0-9,-]+)\; ]]
	[ "${BASH_REMATCH[1]}" -le 4 ]
	[ "${BASH_REMATCH[2]}" = "$("$REPO/bisect-tests/run" --list-variants | awk '$2 == "built" || $2 == "carried" { print $1 }' | paste -sd, -)" ]
	copy=$(repo_copy)
	printf '%s\n' "debian-more | debian | debian-more | kernel=minimal,scenario=ext4-era | another machine (ci/05-fast's)" >>"$copy/bisect-tests/configs/variants"
	[ "$(KB_REPO=$copy builds_per_commit)" = "$n" ]
	printf '%s\n' "built-more | built | built-more | - | another kernel (ci/05-fast's)" >>"$copy/bisect-tests/configs/variants"
	[[ "$(KB_REPO=$copy builds_per_commit)" == "$((BASH_REMATCH[1] + 1)) ("* ]]
}

@test "verify with a variant registry it cannot read is one line, before any tree is touched" {
	local copy
	copy=$(repo_copy)
	rm "$copy/bisect-tests/configs/variants"
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work must_fail_with_one_line "$copy/branch-scripts/kbranch" verify
	[[ "$stderr" == *"verify: no variants: 'bisect-tests/run --list-variants' cannot read"* ]]
}

# Four configs of three options: no two of them have every triple, and
# the greedy pick keeps the seed it is told to keep first.
@test "shapes-cover: pick keeps what covers every three values; check names a triple a list misses" {
	local dir=$BATS_TEST_TMPDIR/random cover=$REPO/branch-scripts/libexec/shapes-cover
	mkdir "$dir"
	printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\n' >"$dir/1"
	printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_C=y\n' >"$dir/2"
	printf 'CONFIG_A=m\n# CONFIG_B is not set\nCONFIG_C=y\n' >"$dir/3"
	printf '# CONFIG_A is not set\nCONFIG_B=y\n' >"$dir/4"
	[ "$("$cover" pick "$dir")" = "$(printf '1\n3\n4')" ]
	[ "$("$cover" pick "$dir" 2)" = "$(printf '2\n3\n4')" ]
	run "$cover" check "$dir" 1 3 4
	[ "$status" -eq 0 ]
	[ "$output" = '3 of 4 seeds: 0 ext4-family triples missed' ]
	run "$cover" check "$dir" 1 2 3
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = 'missed: A=n B=y C=-' ]
	run "$cover" check "$dir" 1 9
	[ "$status" -eq 1 ]
	[ "$output" = "shapes-cover: no config for seed 9 in $dir" ]
}

# The ext4dev type both ways, on canned shapes: a base form that sets an
# ext4dev option is of that era ("is not set" names one but sets nothing);
# a fragment merged onto the last result is judged by the full config it
# made at the base, which names what EXT3_FS selected.
@test "shapes: the ext4dev type is judged both ways: off where the base form sets an ext4dev option, on where it sets none, each named with its seed" {
	# shellcheck source=branch-scripts/lib/shapes.sh
	source "$REPO/branch-scripts/lib/shapes.sh"
	local seed
	SHAPES_DIR=$BATS_TEST_TMPDIR/shapes
	mkdir -p "$SHAPES_DIR/base/minimal" "$SHAPES_DIR/jumped/minimal"
	printf 'CONFIG_EXT3_FS=y\nCONFIG_EXT4DEV_FS_POSIX_ACL=y\n' >"$SHAPES_DIR/base/minimal/1"
	printf 'CONFIG_EXT3_FS=y\n# CONFIG_EXT4DEV_FS_SECURITY is not set\n' >"$SHAPES_DIR/base/minimal/2"
	printf 'CONFIG_EXT4DEV_FS=m\n' >"$SHAPES_DIR/base/minimal/3"
	printf 'CONFIG_EXT3_FS=y\n' >"$SHAPES_DIR/base/minimal/4"
	printf 'CONFIG_EXT4_FS=y\n' >"$SHAPES_DIR/jumped/minimal/1"
	printf 'CONFIG_EXT4_FS=y\nCONFIG_EXT4DEV_COMPAT=y\n' >"$SHAPES_DIR/jumped/minimal/2"
	printf 'CONFIG_EXT4_FS=m\nCONFIG_EXT4DEV_COMPAT=y\n' >"$SHAPES_DIR/jumped/minimal/3"
	printf 'CONFIG_EXT4_FS=y\n# CONFIG_EXT4DEV_COMPAT is not set\n' >"$SHAPES_DIR/jumped/minimal/4"
	mkdir -p "$SHAPES_DIR/base/fragment" "$SHAPES_DIR/base/fragment-full" "$SHAPES_DIR/stepped/fragment" "$SHAPES_DIR/jumped/fragment"
	printf 'CONFIG_EXT3_FS=m\n' >"$SHAPES_DIR/base/fragment/5"
	printf 'CONFIG_EXT3_FS=m\nCONFIG_EXT4DEV_FS=m\n' >"$SHAPES_DIR/base/fragment-full/5"
	printf 'CONFIG_EXT4_FS=m\nCONFIG_EXT4DEV_COMPAT=y\n' | tee "$SHAPES_DIR/stepped/fragment/5" >"$SHAPES_DIR/jumped/fragment/5"
	for seed in 1 2 3 4; do
		printf '%s\tminimal %s\tminimal jumped\n' "$SHAPES_DIR/jumped/minimal/$seed" "$seed"
	done >"$SHAPES_DIR/index"
	printf '%s\tfragment 5\tfragment stepped\n%s\tfragment 5\tfragment jumped\n' \
		"$SHAPES_DIR/stepped/fragment/5" "$SHAPES_DIR/jumped/fragment/5" >>"$SHAPES_DIR/index"
	run shapes_type_findings
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\t1\n%s\t2\n%s\t5' \
		'minimal jumped: the ext4dev type is off, though the base form names an ext4dev option' \
		'minimal jumped: the ext4dev type is on, though the base form names no ext4dev option' \
		'fragment jumped: the ext4dev type is on, though the base form names no ext4dev option')" ]
	# A base form it cannot read (a state kept by older tooling) is no verdict.
	rm "$SHAPES_DIR/base/fragment-full/5"
	run shapes_type_findings
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot read $SHAPES_DIR/base/fragment-full/5"* ]]
}

@test "RESULT lines: one reader for both sides (verdict.sh): the last line of a run, the first of a key, nothing for a key it lacks" {
	# shellcheck source=bisect-tests/lib/verdict.sh
	source "$REPO/bisect-tests/lib/verdict.sh"
	local fields
	fields=$(printf '%s\n' 'RESULT variant=a verdict=bad' 'make: noise' 'RESULT variant=b build=ok verdict=good verdict=bad' | result_of_run)
	[ "$fields" = 'variant=b build=ok verdict=good verdict=bad' ]
	[ "$(result_field "$fields" verdict)" = good ]
	[ "$(result_field "$fields" build)" = ok ]
	[ -z "$(result_field "$fields" boot)" ]
	[ -z "$(printf 'no result\n' | result_of_run)" ]
	# No other place reads a RESULT line.
	run grep -rn --exclude=verdict.sh "s/^RESULT \|RESULT //p" "$REPO/branch-scripts" "$REPO/bisect-tests"
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "tester: a config without what the busybox guest needs names each option it lacks; one with them all, none" {
	# shellcheck source=bisect-tests/lib/common.sh
	source "$REPO/bisect-tests/lib/common.sh"
	# shellcheck source=bisect-tests/lib/tester.sh
	source "$REPO/bisect-tests/lib/tester.sh"
	local config=$BATS_TEST_TMPDIR/config
	grep -E '^CONFIG_' "$REPO/bisect-tests/configs/busybox-guest.needs" >"$config"
	[ -z "$(tester_guest_needs_missing "$config")" ]
	# Every need is a line of base.config: our own variants have them all.
	while read -r need; do
		grep -qx "$need" "$REPO/bisect-tests/configs/base.config"
	done <"$config"
	sed -i -e '/^CONFIG_DEVTMPFS=/d' -e 's/^CONFIG_VIRTIO_BLK=y/CONFIG_VIRTIO_BLK=m/' "$config"
	[ "$(tester_guest_needs_missing "$config")" = 'CONFIG_DEVTMPFS=n (needs y), CONFIG_VIRTIO_BLK=m (needs y)' ]
}

# Build dir $1 made of real ELF files, as kbuild leaves them: vmlinux.o
# (objects linked with ld -r) whose release says -g$2 and whose code
# returns $3, and a module listed in modules.order whose code returns $4.
fake_kernel_build() {
	local dir=$1 sha=$2 code=$3 modcode=$4
	mkdir -p "$dir/fs/ext4"
	printf 'const char release[] = "6.1.0-g%s";\nint main(void) { return %s; }\n' "$sha" "$code" >"$dir/v.c"
	printf 'const char vermagic[] = "6.1.0-g%s SMP";\nint ext4_x(void) { return %s; }\n' "$sha" "$modcode" >"$dir/m.c"
	# Built where they are, as kbuild builds each commit in one build dir:
	# the objects name their sources by the same paths.
	(cd "$dir" && gcc -g -c -o v.o v.c && ld -r --build-id=sha1 -o vmlinux.o v.o &&
		gcc -g -c -o m.o m.c && ld -r --build-id=sha1 -o fs/ext4/ext4.ko m.o)
	echo fs/ext4/ext4.ko >"$dir/modules.order"
}

@test "tester: a kernel's id is its vmlinux.o and modules but for the release's commit, build ids and debug info; any code change, in either, changes it" {
	# shellcheck source=bisect-tests/lib/tester.sh
	source "$REPO/bisect-tests/lib/tester.sh"
	local d=$BATS_TEST_TMPDIR id_a id_b id_c id_d
	fake_kernel_build "$d/a" 111111111111 1 7
	fake_kernel_build "$d/b" 222222222222 1 7
	fake_kernel_build "$d/c" 333333333333 2 7
	fake_kernel_build "$d/d" 444444444444 1 8
	# The two same-code builds really differ as files (release, build id).
	! cmp -s "$d/a/vmlinux.o" "$d/b/vmlinux.o" || false
	! cmp -s "$d/a/fs/ext4/ext4.ko" "$d/b/fs/ext4/ext4.ko" || false
	for x in a b c d; do
		tester_kernel_hash "$d/$x" "6.1.0-g$(printf '%s' "$x" | tr abcd 1234 | sed 's/.*/&&&&&&&&&&&&/')" "$d/$x.parts" "$d/$x.id"
	done
	id_a=$(cat "$d/a.id") id_b=$(cat "$d/b.id") id_c=$(cat "$d/c.id") id_d=$(cat "$d/d.id")
	[[ "$id_a" =~ ^[0-9a-f]{16}$ ]]
	[ "$id_a" = "$id_b" ]
	[ "$id_a" != "$id_c" ]
	[ "$id_a" != "$id_d" ]
	# A part that cannot be read fails the hash (run calls it as a job,
	# set -e and pipefail held), so its caller writes no id.
	rm "$d/b/fs/ext4/ext4.ko"
	run bash -euo pipefail -c 'source "$1/bisect-tests/lib/tester.sh"; tester_kernel_hash "$2" 6.1.0-g222222222222 "$2.parts" "$2.id2"' _ "$REPO" "$d/b"
	[ "$status" -ne 0 ]
}

@test "boundary: run --where prints each variant's CONFIG line (config=, dir=, lock=), makes nothing and needs no tree; kbranch's build dir and lock are what it says" {
	local work=$BATS_TEST_TMPDIR/where-work
	run --separate-stderr env KBRANCH_WORK="$work" "$BT/run" --where --variant builtin --variant minimal
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "CONFIG variant=builtin config=$work/build/builtin/.config dir=$work/build/builtin lock=$work/build/builtin.lock" ]
	[ "${lines[1]}" = "CONFIG variant=minimal config=$work/build/minimal/.config dir=$work/build/minimal lock=$work/build/minimal.lock" ]
	[ ! -e "$work" ]
	# kbranch asks it, and builds where it says.
	KB_REPO=$REPO KBRANCH_WORK=$work
	# shellcheck source=branch-scripts/lib/kbuild.sh
	source "$REPO/branch-scripts/lib/kbuild.sh"
	[ "$(kbuild_dir)" = "$work/build/builtin" ]
	[ "$(bt_where_field builtin "$work" lock)" = "$work/build/builtin.lock" ]
	[ ! -e "$work" ]
	run --separate-stderr env KBRANCH_WORK="$work" "$BT/run" --where --variant nosuch
	[ "$status" -eq 128 ]
}

# bisect-tests/debian/guest/era-fstype.c, built for era $1, in $2.
era_fstype() {
	gcc -static -Os -Wall -Wextra -Werror -DKLIBC_ERA="$1" -o "$2/fstype" "$BT/debian/guest/era-fstype.c"
}

@test "era fstype: klibc 1.5.3's says ext4dev for a test_fs ext4 and ext3 for a plain one; 1.5.15's says ext4dev where the kernel has ext4dev (/proc/filesystems or modules.dep) and the flag, or has no ext4; other filesystems are the image's fstype's" {
	local d=$BATS_TEST_TMPDIR img era proc dep want fake=$BATS_TEST_TMPDIR/root
	mke2fs -q -F -t ext4 -E test_fs "$d/test_fs.img" 8M
	mke2fs -q -F -t ext4 "$d/plain.img" 8M
	mke2fs -q -F -t ext2 "$d/ext2.img" 8M
	mkdir -p "$d/1503" "$d/1515" "$fake/proc" "$fake/lib/modules/$(uname -r)"
	era_fstype 1503 "$d/1503"
	era_fstype 1515 "$d/1515"
	for era in 1503 1515; do
		printf '#!/bin/sh\necho FSTYPE=image-own\n' >"$d/$era/fstype.klibc"
		chmod +x "$d/$era/fstype.klibc"
	done
	# era | image | /proc/filesystems | modules.dep | FSTYPE
	while IFS='|' read -r era img proc dep want; do
		printf '%s' "$proc" | tr , '\n' | sed 's/^/\t/' >"$fake/proc/filesystems"
		printf '%s' "$dep" | tr , '\n' | sed 's|^\(..*\)$|kernel/fs/ext4/\1.ko:|' >"$fake/lib/modules/$(uname -r)/modules.dep"
		run env KBRANCH_FSTYPE_ROOT="$fake" "$d/$era/fstype" "$d/$img.img"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "FSTYPE=$want" ] || { echo "$era $img proc=$proc dep=$dep: ${lines[0]}, not $want"; return 1; }
	done <<-'TABLE'
	1503|test_fs|ext4|ext4|ext4dev
	1503|plain|ext4dev|ext4dev|ext3
	1503|ext2|ext4dev||image-own
	1515|test_fs|||ext4dev
	1515|test_fs|ext4||ext4
	1515|test_fs|ext4,ext4dev||ext4dev
	1515|test_fs||ext4,ext4dev|ext4dev
	1515|test_fs|ext4|ext4dev|ext4dev
	1515|plain|ext4,ext4dev||ext4
	1515|plain|ext4dev||ext4dev
	1515|ext2|ext4dev||image-own
	TABLE
	run "$d/1515/fstype" "$d/test_fs.img"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "FSSIZE=8388608" ]
}

@test "debian judge: fsck= is judged from the report's fsck root line (ran, missing: no checker for the type, none: no fsck), and a mismatch names the line" {
	local obs=$BATS_TEST_TMPDIR/observed
	# shellcheck source=bisect-tests/lib/debian-boot.sh
	source "$BT/lib/debian-boot.sh"
	printf '%s\n' 'end: report' 'root: ext4dev /dev/vda ro,relatime' \
		'fsck root: missing (fsck from util-linux 2.38.1 fsck: fsck.ext4dev: not found)' >"$obs"
	debian_judge "$obs" "root=ext4dev fsck=missing" "the era's fstype"
	[ "$DEBIAN_JUDGE_CODE" = 0 ]
	debian_judge "$obs" "root=ext4dev fsck=ran" "the era's fstype"
	[ "$DEBIAN_JUDGE_CODE" = 1 ]
	[ "$DEBIAN_PROBLEMS" = "fsck=ran declared, seen: fsck root: missing (fsck from util-linux 2.38.1 fsck: fsck.ext4dev: not found) (the era's fstype)" ]
	# A report without the line: the initramfs had no fsck.
	printf '%s\n' 'end: report' 'root: ext4 /dev/vda ro,relatime' >"$obs"
	debian_judge "$obs" "root=ext4 fsck=none" "no fsck"
	[ "$DEBIAN_JUDGE_CODE" = 0 ]
	debian_judge "$obs" "root=ext4 fsck=ran" "no fsck"
	[ "$DEBIAN_JUDGE_CODE" = 1 ]
}

@test "debian stop: dracut's emergency shell ends a boot as the initramfs shell does, and its root is judged not mounted" {
	local obs=$BATS_TEST_TMPDIR/observed console=$BATS_TEST_TMPDIR/console.log
	# shellcheck source=bisect-tests/lib/debian-boot.sh
	source "$BT/lib/debian-boot.sh"
	printf '%s\r\n' '[   20.1] systemd[1]: Failed to mount sysroot.mount - /sysroot.' \
		'Generating "/run/initramfs/rdsosreport.txt"' 'Entering emergency mode. Exit the shell to continue.' >"$console"
	[ "$(debian_stop_reason "$console")" = "dracut's emergency shell" ]
	printf '%s\n' "end: dracut's emergency shell" 'root: none' >"$obs"
	debian_judge "$obs" "root=none" "no ext4dev type"
	[ "$DEBIAN_JUDGE_CODE" = 0 ]
	debian_judge "$obs" "root=ext4dev" "the compat type"
	[ "$DEBIAN_JUDGE_CODE" = 2 ]
}
