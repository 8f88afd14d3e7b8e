#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2034 # $status, $output: set by bats' run; globals read by the sourced libs
# The fast tier's canned inputs (ci/canned/) stay true to the programs
# they stand for, and the oracle judges canned observations by variant.
# No kernel built or booted: the guest program is compiled in each test
# that needs it (under 1 s).  The whole file takes about 5 s, 25 s in a
# cold ci/test, where it runs before 10-branch.bats imports a tree and the
# kselftest harness comes from the linux-source tarball (read to its end).

load helpers

CANNED=$BATS_TEST_DIRNAME/canned

# The kselftest harness the guest program compiles with: the imported
# tree's, or, before any tree is imported, the linux-source tarball's,
# taken out once per file by the first test that compiles (the whole
# tarball is read: seconds that a run of another test, as the mutation
# list makes them, does not pay).  Sets HARNESS.
harness() {
	local tars top
	HARNESS=$KTREE/tools/testing/selftests
	[ ! -f "$HARNESS/kselftest_harness.h" ] || return 0
	tars=(/usr/src/linux-source-*.tar.xz)
	[ -f "${tars[0]}" ] || { echo "no kernel tree and no /usr/src/linux-source-*.tar.xz" >&2; return 1; }
	top=$(basename "${tars[0]}" .tar.xz)
	HARNESS=$BATS_FILE_TMPDIR/$top/tools/testing/selftests
	[ ! -f "$HARNESS/kselftest_harness.h" ] || return 0
	tar -xJf "${tars[0]}" -C "$BATS_FILE_TMPDIR" "$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/testing/selftests/kselftest.h"
}

# The guest program, compiled as lib/initramfs.sh compiles it.
guest_program() {
	harness
	gcc -static -O2 -Wall -I"$HARNESS" -o "$BATS_TEST_TMPDIR/ext4-checks" "$BT/guest/ext4-checks.c"
	printf '%s\n' "$BATS_TEST_TMPDIR/ext4-checks"
}

setup() {
	BT=$REPO/bisect-tests
	# shellcheck source=bisect-tests/lib/common.sh
	source "$BT/lib/common.sh"
	# shellcheck source=bisect-tests/lib/expect.sh
	source "$BT/lib/expect.sh"
	# shellcheck source=bisect-tests/lib/facts.sh
	source "$BT/lib/facts.sh"
	# shellcheck source=bisect-tests/lib/ktap.sh
	source "$BT/lib/ktap.sh"
	# shellcheck source=bisect-tests/lib/qemu.sh
	source "$BT/lib/qemu.sh"
	# shellcheck source=bisect-tests/lib/rootboot.sh
	source "$BT/lib/rootboot.sh"
	# shellcheck source=bisect-tests/lib/observe.sh
	source "$BT/lib/observe.sh"
	KBRANCH_WORK=$BATS_TEST_TMPDIR/work
}

# The facts (bisect-tests/lib/facts.sh) of console $1, made in the test's
# directory; their path.
facts_made() {
	facts_of "$1" >"$BATS_TEST_TMPDIR/${1##*/}.facts"
	printf '%s\n' "$BATS_TEST_TMPDIR/${1##*/}.facts"
}

declare_tip() {
	KBRANCH_EXPECT="$(sed -n 's/^ext4: stop requiring the test_fs flag to mount ext4 | //p' "$BT/expectations")" expect_load
}

# Variant $1's run dir holds observation $2 (and, where it has root-probe
# lines, the consoles they come from); its packaged reference is builtin's,
# recorded by a real run of the packaged kernel (the packaged minimal
# kernel differs from it only in lines both sides here share).
canned_observation() {
	local v=$1 observed=$2 kind
	mkdir -p "$(run_dir "$v")" "$KBRANCH_WORK/reference/canned"
	cp "$observed" "$(run_dir "$v")/observed.txt"
	while read -r kind; do
		: >"$(run_dir "$v")/root-$kind.console"
	done < <(sed -n 's/^root-\([a-z0-9]*\): .*/\1/p' "$observed")
	cp "$CANNED/observe-packaged-builtin" "$KBRANCH_WORK/reference/canned/$v.observed"
	observe_packaged_version() { echo canned; }
}


# compat_lookup's answer for one line: yes or no.
listed() {
	compat_lookup "$@"
	printf '%s\n' "$COMPAT_LISTED"
}

@test "observations: at the tip, builtin's compat type, its test and its warning are listed differences" {
	declare_tip
	canned_observation builtin "$CANNED/observe-tip-builtin"
	run observe_compare builtin builtin
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "observations: the same from the minimal variant, which has no compat type, is bad, each line named" {
	declare_tip
	# The minimal variant has no root-probe boots.
	grep -v '^root-' "$CANNED/observe-tip-builtin" >"$BATS_TEST_TMPDIR/minimal"
	canned_observation minimal "$BATS_TEST_TMPDIR/minimal"
	run observe_compare minimal minimal
	[ "$status" -eq 1 ]
	local line
	for line in '+ fs: ext3 ext2 ext4 ext4dev' '- fs: ext3 ext2 ext4' \
		'+ log: EXT4-fs (vda): mounted as ext4dev, which is deprecated; mount it as ext4' \
		'+ log: EXT4-fs (vda): blkid reports ext4dev while the test_fs flag is set; tune2fs -E ^test_fs clears it' \
		'+ log: EXT4-fs (vdb): mounted as ext4dev, which is deprecated; mount it as ext4' \
		'+ test: global.the_compat_type_mounts_the_flagged_image_and_warns ok' \
		'- test: global.the_compat_type_mounts_the_flagged_image_and_warns skip'; do
		[[ "$output" == *"minimal: differs from packaged/canned: $line"* ]] || { echo "not named: $line"; return 1; }
	done
}

@test "observations: the main boot's log is the guest's copy of the whole kernel log, ext4's INFO lines with it" {
	local want='log: EXT4-fs (vda): mounted filesystem with ordered data mode. Quota mode: disabled.' facts
	facts=$(facts_made "$CANNED/console-good.log")
	run observe_main_log "$facts"
	[ "$status" -eq 0 ]
	grep -qxF "$want" <<<"$output"
	# What the console shows outside the copy (loglevel 5) lacks it.
	run observe_log_lines "$facts" log
	[ "$status" -eq 0 ]
	run grep -qxF "$want" <<<"$output"
	[ "$status" -eq 1 ]
}

@test "observations: a copy of the kernel log cut short is itself an unlisted difference" {
	local begin="${BT_MARK}kernel log begin" cut
	observe_kernel_log "$(facts_made "$CANNED/console-good.log")" >"$BATS_TEST_TMPDIR/whole"
	# A line the console printed in between is no part of the copy.
	awk -v b="$begin" '{ print } index($0, b) == 1 { print "[    9.999999] random: stray console line\r" }' \
		"$CANNED/console-good.log" >"$BATS_TEST_TMPDIR/stray.log"
	observe_kernel_log "$(facts_made "$BATS_TEST_TMPDIR/stray.log")" | cmp - "$BATS_TEST_TMPDIR/whole"
	# One line of the copy lost on the way.
	awk -v b="$begin" 'index($0, b) == 1 { print; getline; next } { print }' \
		"$CANNED/console-good.log" >"$BATS_TEST_TMPDIR/cut.log"
	cut=$(facts_made "$BATS_TEST_TMPDIR/cut.log")
	run observe_kernel_log "$cut"
	[ "$status" -eq 1 ]
	run observe_main_log "$cut"
	[ "$status" -eq 0 ]
	[ "$output" = "bisect-tests: no complete copy of the kernel log from the guest in $cut
$BT_OBSERVE_INCOMPLETE" ]
	[ "$(listed packaged builtin 4 "+ $BT_OBSERVE_INCOMPLETE")" = no ]
}

@test "the guest's copy of the kernel log, printed on the host, reads back whole and without levels" {
	local facts
	dmesg >/dev/null 2>&1 || skip "this host's kernel log cannot be read (klogctl needs CAP_SYSLOG)"
	"$(guest_program)" --print kernel-log >"$BATS_TEST_TMPDIR/klog"
	facts=$(facts_made "$BATS_TEST_TMPDIR/klog")
	observe_kernel_log "$facts" >"$BATS_TEST_TMPDIR/lines"
	[ "$(grep -c '' "$BATS_TEST_TMPDIR/lines")" = "$(facts_get "$facts" klog-lines)" ]
	[ "$(grep -c '^<[0-9]*>' "$BATS_TEST_TMPDIR/klog")" -gt 0 ]
	run grep -q '^<[0-9]*>' "$BATS_TEST_TMPDIR/lines"
	[ "$status" -eq 1 ]
}

@test "canned: tests.list is what the guest program lists" {
	"$(guest_program)" --list >"$BATS_TEST_TMPDIR/tests.list"
	diff -u "$CANNED/tests.list" "$BATS_TEST_TMPDIR/tests.list"
}

@test "canned: expect-builtin is the /expect that console-good.log's guest echoed: one run" {
	facts_get "$(facts_made "$CANNED/console-good.log")" expect >"$BATS_TEST_TMPDIR/echoed"
	[ -s "$BATS_TEST_TMPDIR/echoed" ]
	diff -u "$CANNED/expect-builtin" "$BATS_TEST_TMPDIR/echoed"
}

@test "canned: the consoles, list and expect are what ci/canned/regenerate makes of that run" {
	local f run=$BATS_TEST_TMPDIR/run out=$BATS_TEST_TMPDIR/out
	mkdir -p "$run" "$out"
	cp "$CANNED/console-good.log" "$run/console.log"
	cp "$CANNED/tests.list" "$run/tests.list"
	cp "$CANNED/expect-builtin" "$run/expect"
	"$CANNED/regenerate" --into "$out" "$run"
	for f in console-good.log tests.list expect-builtin console-hang.log console-guest-fail.log; do
		cmp "$CANNED/$f" "$out/$f"
	done
}

# A console with one of everything the guest and the kernel print, CRLF
# lines as QEMU's serial console gives them.
every_kind_of_line() {
	local m=$BT_MARK
	printf '%s\r\n' 'SeaBIOS (version 1.16.2)' '[    0.000000] Linux version 6.1.0' \
		"${m}begin" "${m}block filesystems=ext3 ext2 ext4 " "${m}expect compat=0" \
		'TAP version 13' '#  RUN           global.skipped ...' \
		'[    0.500000] EXT4-fs (vdd2): VFS: Can'"'"'t find ext4 filesystem' \
		'ok 1 # SKIP compat=0: no compat type declared or configured' \
		'#  RUN           global.failed ...' 'not ok 2 global.failed' \
		'#  RUN           hostile_image.bad_magic.is_not_mounted_read_write ...' \
		'ok 3 hostile_image.bad_magic.is_not_mounted_read_write' '# PASSED: 2 / 3 tests passed.' \
		"${m}crash image not written: mount: No such device" "${m}kernel log begin" \
		'<5>[    0.000000] Linux version 6.1.0' '[    0.600000] random: stray console line' \
		'<3>[    0.500000] EXT4-fs (vdd2): VFS: Can'"'"'t find ext4 filesystem' \
		"${m}kernel log end lines=2" "${m}end status=1" '[    0.700000] reboot: Restarting system' \
		"${m}mount /proc: No such file or directory" "${m}root fstype=ext4"
}

@test "facts: a console is read once, in its order, each line into the record that names it" {
	every_kind_of_line >"$BATS_TEST_TMPDIR/console"
	facts_of "$BATS_TEST_TMPDIR/console" >"$BATS_TEST_TMPDIR/facts"
	diff -u - "$BATS_TEST_TMPDIR/facts" <<-'FACTS'
	kernel SeaBIOS (version 1.16.2)
	kernel [    0.000000] Linux version 6.1.0
	marker begin
	fs ext3 ext2 ext4
	expect compat=0
	ktap TAP version 13
	ktap #  RUN           global.skipped ...
	kernel [    0.500000] EXT4-fs (vdd2): VFS: Can't find ext4 filesystem
	ktap ok 1 # SKIP compat=0: no compat type declared or configured
	test global.skipped skip compat=0: no compat type declared or configured
	ktap #  RUN           global.failed ...
	ktap not ok 2 global.failed
	test global.failed fail
	ktap #  RUN           hostile_image.bad_magic.is_not_mounted_read_write ...
	ktap ok 3 hostile_image.bad_magic.is_not_mounted_read_write
	test hostile_image.bad_magic.is_not_mounted_read_write ok
	ktap # PASSED: 2 / 3 tests passed.
	crash-failed mount: No such device
	klog [    0.000000] Linux version 6.1.0
	kernel [    0.600000] random: stray console line
	klog [    0.500000] EXT4-fs (vdd2): VFS: Can't find ext4 filesystem
	klog-lines 2
	end status=1
	kernel [    0.700000] reboot: Restarting system
	note mount /proc: No such file or directory
	root ext4
	FACTS
}

@test "one parser: only lib/facts.sh matches what the guest prints, and only the guest reads /expect" {
	run grep -rlF "$BT_MARK" "$BT/lib" "$BT/run"
	[ "$status" -eq 0 ]
	[ "$output" = "$BT/lib/facts.sh" ]
	# /expect is written (lib/initramfs.sh) and packed; the stages read the
	# guest's echo of it.
	run grep -rlE '(rdir|run)/expect\b' "$BT/lib" "$BT/run"
	[ "$status" -eq 0 ]
	[ "$output" = "$BT/lib/initramfs.sh" ]
}

@test "hostile kinds: the images made are the guest program's hostile_image variants, a kind added there alone among them" {
	local rdir=$BATS_TEST_TMPDIR/run more=$BATS_TEST_TMPDIR/more
	# shellcheck source=bisect-tests/lib/images.sh
	source "$BT/lib/images.sh"
	mkdir -p "$rdir" "$more"
	harness
	cp "$(guest_program)" "$rdir/init"
	diff -u <("$rdir/init" --list | sed -n 's/^hostile_image\.\([^.]*\)\..*/\1/p' | sed '1i control') \
		<(images_partitions "$rdir")
	[ "$(images_hostile_expect "$rdir" | grep -c '^hostile_[a-z_]*=/dev/vd[d-z][1-4]$')" -eq 7 ]
	images_hostile_expect "$rdir" | grep -qx 'control=/dev/vdd1'
	# One more variant in the C program, and nothing else.
	sed '/^FIXTURE_VARIANT_ADD(hostile_image, bad_magic)/i FIXTURE_VARIANT_ADD(hostile_image, zeroed_super) {\n\t.err = EINVAL,\n\t.msg = "VFS: Can'"'"'t find ext4 filesystem",\n};\n' \
		"$BT/guest/ext4-checks.c" >"$more/ext4-checks.c"
	gcc -static -O2 -Wall -I"$HARNESS" -o "$more/init" "$more/ext4-checks.c"
	"$more/init" --list | grep -qx 'hostile_image.zeroed_super.is_not_mounted_read_write'
	images_partitions "$more" | grep -qx zeroed_super
	images_hostile_expect "$more" | grep -qx 'hostile_zeroed_super=/dev/vdd2'
	[ "$(images_hostile_disks "$more")" -eq 3 ]
	[ "$(images_hostile_disks "$rdir")" -eq 2 ]
	# This file cannot damage an image that way yet: making it says so.
	run images_hostile "$more/hostile-zeroed_super.img" zeroed_super "$more/images.log"
	[ "$status" -eq 0 ]
	[ "$output" = "bisect-tests: images: the guest's hostile kind zeroed_super has no images_damage_zeroed_super in lib/images.sh" ]
	[ ! -e "$more/hostile-zeroed_super.img" ]
}

# Prints each malformed line of compat-differences $1, with why, as its
# one reader (bisect-tests/lib/compat.sh) splits it.
compat_differences_malformed() {
	local c variants steps line n v kinds names words w
	declare -A kind=() fact=([ext4=y]=1 [ext4=m]=1 [compat=y]=1 [compat=n]=1 [acl=y]=1 [acl=n]=1 [security=y]=1 [security=n]=1)
	while read -r v kinds; do
		kind[$v]=${kinds%% *}
		# The traits of the kernels packaged lines are about.
		case ${kind[$v]} in
		built | carried) for w in $(awk '{ print $3 }' <<<"$kinds" | tr ',' ' '); do [ "$w" = - ] || fact[$w]=1; done ;;
		esac
	done < <("$BT/run" --list-variants)
	while IFS='|' read -r n c variants steps line; do
		[ -n "$line" ] || { echo "$n: fewer than five fields"; continue; }
		[[ "$steps" =~ ^[0-4](,[0-4])*$ ]] || echo "$n: steps '$steps' are not a list of 0..4"
		case $c in
		config-packaged | defconfig)
			[ "$variants" = - ] || echo "$n: a $c line names its config in its label: variants '-', not '$variants'" ;;
		config-gained | config-shape)
			IFS=, read -ra names <<<"$variants"
			for v in "${names[@]}"; do
				[ "${kind[$v]:-none}" = kconfig ] || echo "$n: '$v' is no variant a $c line can be about"
			done
			[ -n "$variants" ] && [ "$variants" != - ] || echo "$n: a $c line names no variant" ;;
		packaged)
			IFS=, read -ra names <<<"$variants"
			for v in "${names[@]}"; do
				IFS=+ read -ra words <<<"$v"
				for w in "${words[@]}"; do
					[ -n "${fact[$w]:-}" ] || echo "$n: '$w' is not what a packaged line names a kernel by"
				done
			done
			[ -n "$variants" ] && [ "$variants" != - ] || echo "$n: a $c line names no kernel" ;;
		*) echo "$n: unknown check '$c'" ;;
		esac
	done < <(compat_entries "$1")
}

@test "compat_entries: comments and blank lines left out; an entry is its file line number, its check, its variants and steps without spaces, its literal line less one space each side, and not its why" {
	printf '%s\n' '# packaged | builtin | 4 | + commented out | why' '' \
		'packaged | builtin, module | 2, 4 | + fs: ext4  | why' \
		'config-packaged | - | 4 | tip: + CONFIG_X=y | why' >"$BATS_TEST_TMPDIR/compat"
	run compat_entries "$BATS_TEST_TMPDIR/compat"
	[ "$status" -eq 0 ]
	[ "$output" = "3|packaged|builtin,module|2,4|+ fs: ext4 
4|config-packaged|-|4|tip: + CONFIG_X=y" ]
}

@test "compat_lookup: a line is listed under its own check, with its exact text, at the steps it names, for a Kconfig-only variant it names as a whole name (not minimal for carried-minimal, nor min), or for a kernel with every word of one of its alternatives" {
	printf '%s\n' '# packaged | ext4=y | 4 | + commented out | why' \
		'config-gained | carried-minimal | 0,1 | CONFIG_EXT4DEV_FS=y | why' \
		'packaged | ext4=y | 0,1 | + fs: ext3 ext2 ext4dev | why' \
		'packaged | ext4=m+compat=y, rootboots | 2,4 | + fs: ext4  | why' \
		'config-packaged | - | 4 | tip: + CONFIG_X=y | why' >"$BATS_TEST_TMPDIR/compat"
	mapfile -t COMPAT_ENTRIES < <(compat_entries "$BATS_TEST_TMPDIR/compat")
	# A variant is a whole name among the line's: the registry has names
	# inside names (minimal in carried-minimal, module in carried-module).
	[ "$(listed config-gained carried-minimal 0 CONFIG_EXT4DEV_FS=y)" = yes ]
	[ "$(listed config-gained minimal 0 CONFIG_EXT4DEV_FS=y)" = no ]
	[ "$(listed config-gained carried 0 CONFIG_EXT4DEV_FS=y)" = no ]
	[ "$(listed config-gained min 0 CONFIG_EXT4DEV_FS=y)" = no ]
	# A kernel is its words, as variant_facts prints them (one a line) or
	# on one line; a word is whole (ext4=y is not ext4=yes).
	[ "$(listed packaged $'ext4=y\ncompat=n\nacl=n' 0 "+ fs: ext3 ext2 ext4dev")" = yes ]
	[ "$(listed packaged "compat=y ext4=y" 1 "+ fs: ext3 ext2 ext4dev")" = yes ]
	[ "$(listed packaged "ext4=m compat=y" 0 "+ fs: ext3 ext2 ext4dev")" = no ]
	[ "$(listed packaged "ext4=yes" 0 "+ fs: ext3 ext2 ext4dev")" = no ]
	[ "$(listed packaged "minimal" 0 "+ fs: ext3 ext2 ext4dev")" = no ]
	# Every word of one alternative: ext4=m and compat=y, or rootboots.
	[ "$(listed packaged $'ext4=m\ncompat=y' 2 "+ fs: ext4 ")" = yes ]
	[ "$(listed packaged "ext4=m compat=n" 2 "+ fs: ext4 ")" = no ]
	[ "$(listed packaged "ext4=y compat=y" 2 "+ fs: ext4 ")" = no ]
	[ "$(listed packaged "ext4=y compat=n rootboots" 4 "+ fs: ext4 ")" = yes ]
	[ "$(listed packaged "compat=y" 4 "+ fs: ext4 ")" = no ]
	# Only at its steps.
	[ "$(listed packaged "ext4=m compat=y" 3 "+ fs: ext4 ")" = no ]
	[ "$(listed packaged "rootboots" 0 "+ fs: ext4 ")" = no ]
	[ "$(listed config-gained carried-minimal 2 CONFIG_EXT4DEV_FS=y)" = no ]
	[ "$(listed packaged "ext4=y" 4 "+ fs: ext3 ext2 ext4dev")" = no ]
	# Only under its check (packaged is not config-packaged), and its
	# exact text; a comment lists nothing.
	[ "$(listed config-gained "ext4=m compat=y" 4 "+ fs: ext4 ")" = no ]
	[ "$(listed config-packaged - 4 "tip: + CONFIG_X=y")" = yes ]
	[ "$(listed packaged - 4 "tip: + CONFIG_X=y")" = no ]
	[ "$(listed packaged "ext4=m compat=y" 4 "+ fs: ext4")" = no ]
	[ "$(listed packaged "ext4=m compat=y" 4 "+ fs: ext4  ")" = no ]
	[ "$(listed packaged "ext4=y" 4 "+ commented out")" = no ]
}

@test "variant_facts: a kernel is what its fragment asks (ext4, compat, acl, security; n where it says nothing) and its traits; a variant without a fragment is nothing" {
	[ "$(variant_facts builtin | sort | tr '\n' ' ')" = "acl=y compat=y ext4=y kunit rootboots security=y " ]
	# Debian's ext4 family, which says nothing of the compat type.
	[ "$(variant_facts module | sort | tr '\n' ' ')" = "acl=y compat=n ext4=m security=y " ]
	[ "$(variant_facts minimal | sort | tr '\n' ' ')" = "acl=n compat=n ext4=y security=n " ]
	# The old config keeps what it had at the base: the compat type too.
	[ "$(variant_facts oldconfig | sort | tr '\n' ' ')" = "acl=y compat=y ext4=m security=y " ]
	[ -z "$(variant_facts tester-0123456789ab)" ]
}

@test "compat-differences has one reader: no code of bisect-tests or kbranch but lib/compat.sh names its path, and compat_lookup reads the repository's file there, once per shell" {
	# The repository's own file, read when the shell has not read it.
	unset COMPAT_ENTRIES
	compat_lookup config-gained carried-minimal 0 CONFIG_EXT4DEV_FS=y
	[ "$COMPAT_LISTED" = yes ]
	compat_lookup config-gained carried-minimal 2 CONFIG_EXT4DEV_FS=y
	[ "$COMPAT_LISTED" = no ]
	# Once: a shell that has read it asks its entries, not the file again.
	: >"$BATS_TEST_TMPDIR/empty"
	compat_file() { printf '%s\n' "$BATS_TEST_TMPDIR/empty"; }
	[ "$(listed config-gained carried-minimal 0 CONFIG_EXT4DEV_FS=y)" = yes ]
	[ "$(unset COMPAT_ENTRIES; listed config-gained carried-minimal 0 CONFIG_EXT4DEV_FS=y)" = no ]
	# No other code names the file's path.
	run grep -rnE '/compat-differences' "$BT/run" "$BT/lib" "$BT/debian" "$BT/guest" "$REPO/branch-scripts"
	[ "$status" -eq 0 ]
	run grep -vE '^[^:]*:[0-9]+:[[:space:]]*#|/compat\.sh:' <<<"$output"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "compat-differences: every line names its check, the variants that may show it, and its steps" {
	run compat_differences_malformed "$BT/compat-differences"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# A line without its variants, and packaged lines that name variants,
	# as the file had them before, or an unknown word: each caught.
	printf '%s\n' 'packaged | 2,3,4 | + fs: ext3 ext2 ext4 ext4dev | why' \
		'packaged | * | 4 | + fs: ext3 ext2 ext4 ext4dev | why' \
		'packaged | builtin,oldconfig | 2,3,4 | + fs: ext3 ext2 ext4 ext4dev | why' \
		'packaged | ext4=m+compat=maybe | 2 | + alias: ext4dev | why' >"$BATS_TEST_TMPDIR/old"
	run compat_differences_malformed "$BATS_TEST_TMPDIR/old"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1: steps '+fs:ext3ext2ext4ext4dev' are not a list of 0..4"* ]]
	[[ "$output" == *"2: '*' is not what a packaged line names a kernel by"* ]]
	[[ "$output" == *"3: 'builtin' is not what a packaged line names a kernel by"* ]]
	[[ "$output" == *"3: 'oldconfig' is not what a packaged line names a kernel by"* ]]
	[[ "$output" == *"4: 'compat=maybe' is not what a packaged line names a kernel by"* ]]
}

# A new built variant needs nothing but its registry line and its
# fragment: here one whose fragment is module's, added to a copy.
@test "a new built variant is one registry line and its fragment: listed, placed by run --where, allowed by every packaged line exactly what module (the same fragment) is, with no line added, and counted as one more point a commit and one more reference" {
	local copy where line step before after answer allowed dummy per_commit refs debian carried
	copy=$(repo_copy)
	cp "$copy/bisect-tests/configs/module.config" "$copy/bisect-tests/configs/dummy.config"
	printf '%s\n' "dummy | built | dummy | - | a second ext4.ko kernel (ci/03-canned's)" >>"$copy/bisect-tests/configs/variants"
	run "$copy/bisect-tests/run" --list-variants
	[ "$status" -eq 0 ]
	grep -qx 'dummy built dummy -' <<<"$output"
	where=$BATS_TEST_TMPDIR/where
	run env KBRANCH_WORK="$where" "$copy/bisect-tests/run" --where --variant dummy
	[ "$status" -eq 0 ]
	[ "$output" = "CONFIG variant=dummy config=$where/build/dummy/.config dir=$where/build/dummy lock=$where/build/dummy.lock" ]
	run env BT="$copy/bisect-tests" bash -c "$(declare -f compat_differences_malformed compat_entries); compat_differences_malformed \"\$BT/compat-differences\""
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# What the copy's registry and fragments say of each kernel, asked of
	# the copy's bisect-tests in a shell of its own; the copy's
	# compat-differences is the repository's, which listed reads.
	facts() {
		# shellcheck source=bisect-tests/lib/common.sh disable=SC1091
		bash -c 'source "$1/lib/common.sh" && source "$1/lib/compat.sh" && variant_facts "$2"' _ "$copy/bisect-tests" "$1"
	}
	dummy=$(facts dummy)
	[ -n "$dummy" ]
	[ "$dummy" = "$(facts module)" ]
	allowed=0
	while IFS='|' read -r _ _ _ _ line; do
		for step in 0 1 2 3 4; do
			answer=$(listed packaged "$dummy" "$step" "$line")
			[ "$answer" = "$(listed packaged "$(variant_facts module)" "$step" "$line")" ]
			[ "$answer" = no ] || allowed=$((allowed + 1))
		done
	done < <(compat_entries "$(compat_file)" | awk -F'|' '$2 == "packaged"')
	# module's aliases before the rename and the log lines of the image
	# without test_fs, at their steps.
	[ "$allowed" -ge 10 ]
	# The counts verify's tests expect, from the registry.
	before=$(registry_counts)
	after=$(REPO=$copy registry_counts)
	read -r per_commit refs debian carried <<<"$before"
	[ "$after" = "$((per_commit + 1)) $((refs + 1)) $debian $carried" ]
}

# A Debian machine builds no kernel: it boots its kernel= variant's, in
# that variant's build dir and under its lock, so a commit builds each
# kernel once for the busybox guest and the machines.
@test "a Debian machine boots its kernel= variant's kernel: run --where places it in that build dir and lock; at the packaged tree a carried kernel is its reference's" {
	local v kernel where
	where=$BATS_TEST_TMPDIR/where
	while read -r v kernel; do
		[ "$(variant_kernel "$v")" = "$kernel" ]
		run env KBRANCH_WORK="$where" "$BT/run" --where --variant "$v"
		[ "$status" -eq 0 ]
		[ "$output" = "CONFIG variant=$v config=$where/build/$kernel/.config dir=$where/build/$kernel lock=$where/build/$kernel.lock" ]
	done < <("$BT/run" --list-variants | awk '$2 == "debian" { print $1, $4 }' | sed -E 's/ .*kernel=([a-z0-9-]+).*/ \1/')
	# Every machine boots a kernel that is built: no Debian variant left
	# without one.
	[ "$("$BT/run" --list-variants | awk '$2 == "debian"' | grep -vc 'kernel=')" -eq 0 ]
	# A kernel the registry builds is its own; one carried from the base
	# is, at the packaged tree, the variant it is compared with.
	[ "$(kernel_of builtin)" = builtin ]
	[ "$(BT_HAS_BASE=yes kernel_of debian-ext4dev)" = oldconfig ]
	[ "$(BT_HAS_BASE=no kernel_of debian-ext4dev)" = "$(variant_field oldconfig reference)" ]
	[ "$(BT_HAS_BASE=no kernel_of debian-ext4dev-builtin)" = builtin ]
}
