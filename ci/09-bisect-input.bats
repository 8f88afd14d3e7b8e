#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2030,SC2031 # $status, $output, $stderr: set by bats' run, in a subshell
# kbranch bisect's bad input, in the fast tier: each is one line and exit
# 128, with nothing checked out and nothing built.  The tree is a small
# git tree with the series' shape (a commit named as the fixture is, and
# one named as patch 1), never a kernel.  Its flow beyond the input (the
# report, the culprit named, an interruption) runs with a stand-in for
# bisect-tests/run that builds nothing (fake_kbranch).

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

# A commit that adds fs/ext4/bug, subject $1: the stand-in run (fake_kbranch)
# is bad wherever that file is.
tbug() {
	touch "$tree/fs/ext4/bug"
	git -C "$tree" add fs/ext4/bug
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm "$1"
}

# A copy of kbranch whose bisect-tests/run is a stand-in, in
# $FAKE_KBRANCH: kbranch bisect runs $KB_REPO/bisect-tests/run, found
# beside its own files.  The stand-in passes every input check, and a
# commit is bad when its tree has fs/ext4/bug, or a file with
# $FAKE_RUN_BAD_WORD in it, else good; its run dir's console says so
# between the busybox guest's marks, in colour, and a bad one adds a
# kernel warning.  With $FAKE_RUN_SLEEP it says "fake run: started, pid
# <its pid>" in its log, then sleeps that long first.  No kernel, no
# build: the flow of kbranch bisect alone.
fake_kbranch() {
	local dest=$BATS_TEST_TMPDIR/kbranch-copy
	mkdir -p "$dest/bisect-tests/lib"
	cp -a "$REPO/branch-scripts" "$dest/"
	cp "$REPO/bisect-tests/expectations" "$dest/bisect-tests/"
	cp "$REPO/bisect-tests/lib/verdict.sh" "$dest/bisect-tests/lib/"
	cat >"$dest/bisect-tests/run" <<'RUN'
#!/usr/bin/env bash
case " $* " in *" --check-options "* | *" --configure-only "*) exit 0 ;; esac
if [ -n "${FAKE_RUN_SLEEP:-}" ]; then
	echo "fake run: started, pid $$"
	sleep "$FAKE_RUN_SLEEP"
fi
# Each run's commit, when asked; a spurious failure at $FAKE_RUN_LIE_AT.
[ -z "${FAKE_RUN_LOG:-}" ] || git rev-parse HEAD >>"$FAKE_RUN_LOG"
rdir=$KBRANCH_WORK/fake-run
mkdir -p "$rdir"
# The release is only in the RESULT line, as run reports it; so is the
# kernel, here the tree but for drivers/unbuilt, which no config builds.
release="release=6.1.0-g$(git rev-parse --short=12 HEAD) kernel=$(git ls-tree -r HEAD | grep -v '	drivers/unbuilt/' | sha256sum | cut -c1-16)"
printf 'CONFIG_EXT4_FS=y\n' >"$rdir/config"
if [[ " ${FAKE_RUN_FLAKY_AT:-} " == *" $(git rev-parse HEAD) "* ]]; then
	echo "bisect-tests: builtin: flaky: one boot of 6 failed"
	echo "RESULT variant=builtin build=ok boot=ok checks=flaky seconds=1 reason=flaky verdict=flaky"
	exit 125
fi
if [ -e fs/ext4/bug ] || [ "$(git rev-parse HEAD)" = "${FAKE_RUN_LIE_AT:-}" ] ||
	{ [ -n "${FAKE_RUN_BAD_WORD:-}" ] && git grep -q "$FAKE_RUN_BAD_WORD"; }; then
	printf '[    0.5] Linux version\r\n# ext4-checks: begin\nmount: \033[31mextended attributes lost\033[0m\n[    1.2] WARNING: CPU: 0 PID: 1 at fs/ext4/xattr.c:42\n# ext4-checks: reproducer status=1\n# ext4-checks: end status=1\n' >"$rdir/console.log"
	echo "RESULT variant=builtin build=ok boot=ok checks=fail seconds=1 run=$rdir config=$rdir/config $release verdict=bad"
	exit 1
fi
printf '# ext4-checks: begin\nmount: ok\n# ext4-checks: reproducer status=0\n' >"$rdir/console.log"
echo "RESULT variant=builtin build=ok boot=ok checks=ok seconds=1 run=$rdir config=$rdir/config $release verdict=good"
RUN
	chmod +x "$dest/bisect-tests/run"
	FAKE_KBRANCH=$dest/branch-scripts/kbranch
}

# A copy of kbranch whose bisect-tests/run weighs repeated boots with the
# real run's code (stage_repeated, verdict_result: run.real, sourced) but
# draws each boot from a fixed seed instead of booting: where fs/ext4/bug
# is, a boot fails one time in $SEEDED_BUG_ONE_IN; anywhere, the test
# fails one run in $SEEDED_LIE_ONE_IN.  A draw is a hash of the seed, the
# commit's subject (its sha has the time in it), the boot and what is
# drawn: the same every run, so a statistical case is a fixed case.
seeded_kbranch() {
	local dest=$BATS_TEST_TMPDIR/seeded-copy
	mkdir -p "$dest"
	cp -a "$REPO/branch-scripts" "$REPO/bisect-tests" "$dest/"
	mv "$dest/bisect-tests/run" "$dest/bisect-tests/run.real"
	cat >"$dest/bisect-tests/run" <<'RUN'
#!/usr/bin/env bash
case " $* " in *" --check-options "* | *" --configure-only "*) exit 0 ;; esac
# shellcheck source=/dev/null
source "$(dirname "$0")/run.real"
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) BT_REPEAT=$2; shift 2 ;;
	--repeat=*) BT_REPEAT=${1#*=}; shift ;;
	*) shift ;;
	esac
done
commit=$(git log -1 --format=%s)
# Whether draw $1 of boot $2 comes up, one time in $3.
drawn() {
	local r
	r=$(printf '%s %s %s %s\n' "$SEEDED_SEED" "$commit" "$1" "$2" | sha256sum | cut -c1-8)
	if [ $((16#$r % $3)) = 0 ]; then echo yes; else echo no; fi
}
seeded_boot() {
	local i=$2 bug=no lie=no
	BOOT=ok CHECKS=ok BT_BOOT_TAINTED=0
	[ ! -e fs/ext4/bug ] || [ -z "${SEEDED_BUG_ONE_IN:-}" ] || bug=$(drawn bug "$i" "$SEEDED_BUG_ONE_IN")
	[ -z "${SEEDED_LIE_ONE_IN:-}" ] || lie=$(drawn lie "$i" "$SEEDED_LIE_ONE_IN")
	[ "$bug/$lie" = no/no ] || CHECKS=fail
}
mkdir -p "$(run_dir builtin)"
stage_repeated builtin seeded_boot
verdict_result builtin ok "$BOOT" "$CHECKS" 1
RUN
	chmod +x "$dest/bisect-tests/run"
	SEEDED_KBRANCH=$dest/branch-scripts/kbranch
}

# The good end, files of code, then six commits: code, the bug, four
# that change only comments, each in a file of its own (their reverts
# apply on the bad end).
seeded_history() {
	local n
	for n in x 1 2 3 4; do printf 'int c%s;\n' "$n" >"$tree/fs/ext4/c$n.c"; done
	git -C "$tree" add fs/ext4
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'ext4: the good end'
	printf 'int cx = 1;\n' >"$tree/fs/ext4/cx.c"
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qam 'ext4: code'
	tbug 'ext4: the bug'
	for n in 1 2 3 4; do
		printf 'int c%s; /* note */\n' "$n" >"$tree/fs/ext4/c$n.c"
		git -C "$tree" -c user.name=t -c user.email=t@t commit -qam "ext4: comment $n"
	done
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

@test "kbranch bisect: --help prints kbranch help bisect's text, its usage in it, and exits 0; an unknown argument is that usage in one line, 128" {
	local usage
	run --separate-stderr "$KBRANCH" help bisect
	[ "$status" -eq 0 ]
	local reference=$output
	run --separate-stderr "$KBRANCH" bisect --help
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$reference" ]
	# The usage is the header's block that starts "kbranch bisect --good",
	# its lines joined.
	usage=$(sed -n '/^kbranch bisect --good/,/^$/p' <<<"$output" | tr -s ' \n' ' ' | sed 's/ $//')
	[[ "$usage" == 'kbranch bisect --good A --bad B '*' [--report FILE] [--retest[=A,B]] [--find-fix]' ]]
	run --separate-stderr "$KBRANCH" bisect -h
	[ "$status" -eq 0 ]
	[ "$output" = "$reference" ]
	bisect_refused --good HEAD~2 --bad HEAD --frobnicate yes
	[ "$stderr" = "kbranch: usage: $usage" ]
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

@test "kbranch bisect: a good that is the bad commit itself is refused as the same commit, not as 'not an ancestor'" {
	local sha
	sha=$(git -C "$tree" rev-parse HEAD)
	bisect_refused --good HEAD --bad ext4-rename --config "$BATS_TEST_TMPDIR/good.config"
	[ "$stderr" = "kbranch: --good HEAD and --bad ext4-rename are the same commit, $sha: nothing lies between them to bisect" ]
}

@test "kbranch bisect: a test script that is missing, or not executable, is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/nosuch.sh"
	[[ "$stderr" == *"--test "*"nosuch.sh: no such file"* ]]
	chmod -x "$BATS_TEST_TMPDIR/test.sh"
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh"
	[[ "$stderr" == *"test.sh: not executable"* ]]
}

@test "kbranch bisect: a reproducer with a syntax error is refused in seconds, read by the shell the guest runs it with: one line, 128, nothing built" {
	printf '#!/bin/sh\nif true; then\n\techo never closed\n' >"$BATS_TEST_TMPDIR/broken.sh"
	chmod +x "$BATS_TEST_TMPDIR/broken.sh"
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/broken.sh"
	[[ "$stderr" == "kbranch: --test $BATS_TEST_TMPDIR/broken.sh: busybox sh -n finds a syntax error, the guest could not run it: "* ]]
	# A bash array: the busybox guest runs the script with busybox sh,
	# which cannot read it; the Debian machine runs it with bash, its #!.
	printf '#!/bin/bash\nwords=(one two)\necho "${words[1]}"\n' >"$BATS_TEST_TMPDIR/bash.sh"
	chmod +x "$BATS_TEST_TMPDIR/bash.sh"
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/bash.sh"
	[[ "$stderr" == "kbranch: --test $BATS_TEST_TMPDIR/bash.sh: busybox sh -n finds a syntax error"* ]]
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --guest debian \
		--config "$BATS_TEST_TMPDIR/good.config" --test "$BATS_TEST_TMPDIR/bash.sh"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	# The same in bash with a loop never closed: refused there too.
	printf '#!/usr/bin/env bash\nfor w in one two; do [[ $w == one ]]\n' >"$BATS_TEST_TMPDIR/bash.sh"
	bisect_refused --good HEAD~2 --bad HEAD --guest debian --config "$BATS_TEST_TMPDIR/good.config" --test "$BATS_TEST_TMPDIR/bash.sh"
	[[ "$stderr" == "kbranch: --test $BATS_TEST_TMPDIR/bash.sh: bash -n finds a syntax error, the guest could not run it: "* ]]
}

# A reproducer asks for a dry run by naming KBRANCH_DRY_RUN: run once on
# the host before anything is built, a failure there is refused; one
# that does not name it is never run on the host.
@test "kbranch bisect: a reproducer that asks for a dry run is run once on the host first: its failure is one line, 128, nothing built; one that does not ask is not run there" {
	local marker=$BATS_TEST_TMPDIR/ran-on-host dry=$BATS_TEST_TMPDIR/dry-runs
	printf '#!/bin/sh
if [ -n "${KBRANCH_DRY_RUN:-}" ]; then
	command -v kbranch-no-such-tool >/dev/null || { echo "repro: kbranch-no-such-tool is missing"; exit 2; }
	exit 0
fi
mount -t ext4 /dev/vdb /mnt
' >"$BATS_TEST_TMPDIR/dry.sh"
	chmod +x "$BATS_TEST_TMPDIR/dry.sh"
	bisect_refused --good HEAD~2 --bad HEAD --test "$BATS_TEST_TMPDIR/dry.sh"
	[ "$stderr" = "kbranch: --test $BATS_TEST_TMPDIR/dry.sh: its dry run (KBRANCH_DRY_RUN=1, on the host, busybox sh) failed (exit 2): repro: kbranch-no-such-tool is missing" ]
	# Its dry run passing, the options pass: the guest runs the rest.
	sed -i 's/kbranch-no-such-tool/busybox/' "$BATS_TEST_TMPDIR/dry.sh"
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --test "$BATS_TEST_TMPDIR/dry.sh"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	# A dry run that never ends is stopped, and refused.
	printf '#!/bin/sh
[ -z "${KBRANCH_DRY_RUN:-}" ] || sleep 600
' >"$BATS_TEST_TMPDIR/hang.sh"
	chmod +x "$BATS_TEST_TMPDIR/hang.sh"
	run --separate-stderr bash -c 'source "$1/bisect-tests/lib/common.sh"; source "$1/bisect-tests/lib/tester.sh"; BT_DRY_RUN_SECONDS=1 BT_TEST_SCRIPT=$2; tester_script_dry_run busybox' _ "$REPO" "$BATS_TEST_TMPDIR/hang.sh"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"--test $BATS_TEST_TMPDIR/hang.sh: its dry run (KBRANCH_DRY_RUN=1, on the host) did not end in 1s" ]]
	# Its own exit 124, at once, is its failure, not a timeout.
	printf '#!/bin/sh\n[ -z "${KBRANCH_DRY_RUN:-}" ] || exit 124\n' >"$BATS_TEST_TMPDIR/hang.sh"
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --test "$BATS_TEST_TMPDIR/hang.sh"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"its dry run (KBRANCH_DRY_RUN=1, on the host, busybox sh) failed (exit 124):"* ]]
	# Only where the options are checked, once: not at a step's run.
	printf '#!/bin/sh\n[ -z "${KBRANCH_DRY_RUN:-}" ] || echo run >>%s\n' "$dry" >"$BATS_TEST_TMPDIR/count.sh"
	chmod +x "$BATS_TEST_TMPDIR/count.sh"
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --test "$BATS_TEST_TMPDIR/count.sh"
	[ "$status" -eq 0 ]
	run --separate-stderr "$REPO/bisect-tests/run" --where --test "$BATS_TEST_TMPDIR/count.sh"
	[ "$status" -eq 0 ]
	[ "$(cat "$dry")" = run ]
	# One that does not ask is read (-n), never run, on the host.
	printf '#!/bin/sh
touch %s
' "$marker" >"$BATS_TEST_TMPDIR/plain.sh"
	chmod +x "$BATS_TEST_TMPDIR/plain.sh"
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --test "$BATS_TEST_TMPDIR/plain.sh"
	[ "$status" -eq 0 ]
	[ ! -e "$marker" ]
}

@test "kbranch bisect: a tree without the series is refused" {
	git -C "$tree" checkout -q --orphan other
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'an unrelated root'
	tcommit 'an unrelated change'
	before=$(git -C "$tree" rev-parse HEAD)
	bisect_refused --good HEAD~1 --bad HEAD
	[[ "$stderr" == *"no commit of the ext4 series"* ]]
}

@test "kbranch bisect: a --repeat of 0, a negative number, a word, nothing, or past 9999 boots is refused: one line, 128" {
	local repeat
	for repeat in 0 -1 two '' 10000 99999999999999999999; do
		bisect_refused --good HEAD~2 --bad HEAD --repeat "$repeat"
		[ "$stderr" = "kbranch: --repeat $repeat: not a number of boots from 1 to 9999" ]
	done
}

@test "kbranch bisect: the config check takes a savedefconfig file and a full .config" {
	source "$REPO/bisect-tests/lib/tester.sh"
	[ "$(tester_is_kernel_config "$BATS_TEST_TMPDIR/good.config")" = yes ]
	printf 'CONFIG_EXT4_FS=y\n' >"$BATS_TEST_TMPDIR/defconfig"
	[ "$(tester_is_kernel_config "$BATS_TEST_TMPDIR/defconfig")" = yes ]
	printf '# just a comment\n' >"$BATS_TEST_TMPDIR/comment"
	[ "$(tester_is_kernel_config "$BATS_TEST_TMPDIR/comment")" = no ]
}

@test "kbranch bisect: a --guest that is not busybox or debian is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --guest qemu --test "$BATS_TEST_TMPDIR/test.sh"
	[[ "$stderr" == *"--guest qemu: not a guest (busybox or debian)"* ]]
}

@test "kbranch bisect: --guest debian with a busybox guest's variant, or --config with a variant, is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --guest debian --variant builtin
	[[ "$stderr" == *"--guest debian boots the Debian machine; builtin is a busybox guest's variant"* ]]
	bisect_refused --good HEAD~2 --bad HEAD --guest busybox --variant debian-ext4 --test "$BATS_TEST_TMPDIR/test.sh"
	[[ "$stderr" == *"--guest busybox: debian-ext4 is a Debian machine"* ]]
	bisect_refused --good HEAD~2 --bad HEAD --config "$BATS_TEST_TMPDIR/good.config" --variant debian-ext4
	[[ "$stderr" == *"--config is the variant: give it without --variant (--guest debian boots it in the Debian machine)"* ]]
}

@test "kbranch bisect: --packages without the Debian machine, or with a name that is not a package's, is refused" {
	bisect_refused --good HEAD~2 --bad HEAD --config "$BATS_TEST_TMPDIR/good.config" --packages acl
	[[ "$stderr" == *"--packages installs Debian packages in the Debian machine: give it with --guest debian"* ]]
	bisect_refused --good HEAD~2 --bad HEAD --guest debian --config "$BATS_TEST_TMPDIR/good.config" --packages 'acl;rm'
	[[ "$stderr" == *"--packages 'acl;rm': 'acl;rm' is not a Debian package name (comma-separated, as acl,xfsprogs)"* ]]
	bisect_refused --good HEAD~2 --bad HEAD --guest debian --config "$BATS_TEST_TMPDIR/good.config" --packages 'acl xfsprogs'
	[[ "$stderr" == *"'acl xfsprogs' is not a Debian package name"* ]]
	bisect_refused --good HEAD~2 --bad HEAD --guest debian --config "$BATS_TEST_TMPDIR/good.config" --packages acl,,attr
	[[ "$stderr" == *"--packages 'acl,,attr': '' is not a Debian package name"* ]]
}

@test "kbranch bisect: --packages with an empty name, first, last or between two, is refused alike: one line, 128" {
	local list
	for list in 'acl,' ',acl' 'acl,,xfsprogs'; do
		bisect_refused --good HEAD~2 --bad HEAD --guest debian --config "$BATS_TEST_TMPDIR/good.config" --packages "$list"
		[ "$stderr" = "kbranch: --packages '$list': '' is not a Debian package name (comma-separated, as acl,xfsprogs)" ]
	done
}

@test "bisect-tests/run --packages with an empty name, first, last or between two, is refused alike: one line, 128" {
	local list
	for list in 'acl,' ',acl' 'acl,,xfsprogs'; do
		run --separate-stderr "$REPO/bisect-tests/run" --check-options --guest debian \
			--config "$BATS_TEST_TMPDIR/good.config" --packages "$list"
		[ "$status" -eq 128 ]
		[ "$stderr" = "bisect-tests: --packages '$list': '' is not a Debian package name (comma-separated, as acl,xfsprogs)" ]
	done
}

@test "kbranch bisect: --guest debian with a config, a test and --repeat passes the input checks" {
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --guest debian \
		--config "$BATS_TEST_TMPDIR/good.config" --test "$BATS_TEST_TMPDIR/test.sh" --repeat 2
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	run --separate-stderr "$REPO/bisect-tests/run" --check-options --variant debian-ext4 --test "$BATS_TEST_TMPDIR/test.sh"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
}

@test "kbranch bisect: a second bisect on the same tree is refused while the first runs: one line, 128" {
	local lock
	lock=$(git -C "$tree" rev-parse --absolute-git-dir)/kbranch-bisect.lock
	# The first run's hold, as kbranch bisect takes it: flock on that file.
	(exec 9>>"$lock" && flock 9 && exec sleep 30) &
	local holder=$!
	until ! flock -n "$lock" true; do sleep 0.1; done
	bisect_refused --good HEAD~2 --bad HEAD --config "$BATS_TEST_TMPDIR/good.config"
	[[ "$stderr" == *"another kbranch bisect is running on $tree"* ]]
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	# Released, the same input goes past the lock (to the next check: no kernel tools here).
	run --separate-stderr "$KBRANCH" bisect --tree "$tree" --good HEAD~2 --bad HEAD --guest qemu
	[ "$status" -eq 128 ]
	[[ "$stderr" != *"another kbranch bisect"* ]]
	[[ "$stderr" == *"--guest qemu"* ]]
}

# The report and the progress line of a step whose config, carried from
# the tested ancestor's, differs from the one jumped there: the
# difference is on the step's own line, not only in the section at the end.
@test "kbranch bisect: a config that differs stepped and jumped is said on the step's progress line and report line" {
	local good bad
	good=$(git -C "$tree" rev-parse HEAD~1)
	bad=$(git -C "$tree" rev-parse HEAD)
	run --separate-stderr bash -c '
		set -euo pipefail
		source "$1/branch-scripts/lib/common.sh"
		source "$1/branch-scripts/cmd/bisect.sh"
		KB_START=$SECONDS KB_BISECT_TREE=$2 KB_BISECT_GOOD=$3 KB_BISECT_BAD=$4 KB_BISECT_N=1
		bisect_direction
		KB_BISECT_DIR=$5 KB_BISECT_OPT_TEXT=canned KB_BISECT_CULPRIT= KB_BISECT_CULPRIT_LINE= KB_BISECT_REVERT= KB_BISECT_CULPRIT_CONFIG=
		mkdir -p "$KB_BISECT_DIR"
		printf "%s carried from %s: the same as jumped\n" "${3:0:12}" "${3:0:12}" >"$KB_BISECT_DIR/config-steps"
		printf "%s carried from %s: DIFFERS from jumped: < CONFIG_EXT4_FS_POSIX_ACL y > CONFIG_EXT4_FS_POSIX_ACL n \n" "${4:0:12}" "${3:0:12}" >>"$KB_BISECT_DIR/config-steps"
		: >"$KB_BISECT_DIR/steps"
		bisect_record 1 good-end "$3" 0 good ok ok ok 1/1 0 10 5 /l1 - r1 "$(bisect_config_status "$3")"
		bisect_record 2 bad-end "$4" 1 bad ok ok fail 0/1 0 10 5 /l2 - r2 "$(bisect_config_status "$4")"
		say_step_result 2 bad-end "$4" "verdict=bad build=ok boot=ok checks=fail passes=0/1 tainted=0"
		bisect_report_text running
	' _ "$REPO" "$tree" "$good" "$bad" "$BATS_TEST_TMPDIR/run"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"step 2 (bad-end): ${bad:0:12}: bad ("*"; config: stepped DIFFERS from jumped (carried from ${good:0:12}): < CONFIG_EXT4_FS_POSIX_ACL y > CONFIG_EXT4_FS_POSIX_ACL n"* ]]
	grep -A3 "^  2\. bad-end *$bad" <<<"$output" | grep -qF "config: stepped DIFFERS from jumped (carried from ${good:0:12}): < CONFIG_EXT4_FS_POSIX_ACL y"
	grep -A3 "^  1\. good-end *$good" <<<"$output" | grep -qF "config: stepped = jumped (carried from ${good:0:12})"
}

@test "kbranch bisect, each step a stand-in's verdict: first bad commit names the culprit, not the bad end, on stdout and in the report; its revert passes, and the tree is put back" {
	local culprit report tip
	fake_kbranch
	tbug 'ext4: the bug'
	culprit=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: the bad end'
	tip=$(git -C "$tree" rev-parse HEAD)
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~2 --bad HEAD
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "first bad commit: $culprit ext4: the bug" ]
	[ "${lines[1]}" = "revert check: passed" ]
	report=${lines[2]}
	grep -qxF "first bad commit: $culprit ext4: the bug" "$report"
	[ "$(git -C "$tree" rev-parse HEAD)" = "$tip" ]
	[ "$(git -C "$tree" symbolic-ref --short HEAD)" = ext4-rename ]
	[ ! -e "$(git -C "$tree" rev-parse --absolute-git-dir)/BISECT_START" ]
}

# Ends that do not differ: nothing to bisect.  The tester hears which end
# and why, in one line, with exit 1; git bisect's state is undone.
@test "kbranch bisect: a bad end that passes is not bisected: exit 1, the end named, the report stopped at step 2, the tree put back" {
	local tip
	fake_kbranch
	tcommit 'ext4: a harmless commit'
	tcommit 'ext4: the would-be bad end'
	tip=$(git -C "$tree" rev-parse HEAD)
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~2 --bad HEAD
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the bad end ${tip:0:12} is not bad: build, boot and test passed"* ]]
	grep -q '^status: stopped at step 2' "${lines[-1]}"
	[ "$(git -C "$tree" rev-parse HEAD)" = "$tip" ]
	[ ! -e "$(git -C "$tree" rev-parse --absolute-git-dir)/BISECT_START" ]
}

# The bug in the bad end itself: its revert is the parent's tree, already
# tested as a step, and is booted again all the same.
@test "kbranch bisect: the revert check boots the reverted bad end even when its tree was tested before" {
	local culprit revert
	fake_kbranch
	tcommit 'ext4: a step'
	tbug 'ext4: the bug'
	culprit=$(git -C "$tree" rev-parse HEAD)
	FAKE_RUN_LOG=$BATS_TEST_TMPDIR/runs run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~3 --bad HEAD
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "first bad commit: $culprit ext4: the bug" ]
	[ "${lines[1]}" = "revert check: passed" ]
	# The last run was the revert: a commit on top of the bad end, not one
	# of the range, whose tree is the culprit's parent's.
	revert=$(tail -n 1 "$BATS_TEST_TMPDIR/runs")
	[ "$(git -C "$tree" rev-parse "$revert^")" = "$culprit" ]
	[ "$(git -C "$tree" rev-parse "$revert^{tree}")" = "$(git -C "$tree" rev-parse "$culprit~1^{tree}")" ]
	grep -qx "$(git -C "$tree" rev-parse "$culprit~1")" "$BATS_TEST_TMPDIR/runs"
	[[ "$stderr" != *"revert): "*"the result kept"* ]]
}

# A spurious failure at the step before the bug: git bisect names that
# step, its revert on the bad end is still bad, and the answer is
# inconclusive (3).  Kept, the wrong verdict comes back on a re-run;
# --retest boots every step again and names the bug, confirmed.
@test "kbranch bisect: a culprit its revert does not confirm is inconclusive (3); a kept wrong verdict comes back, and --retest corrects it, of all steps or of the one named" {
	local lie bug report
	fake_kbranch
	echo once >"$tree/fs/ext4/once"
	git -C "$tree" add fs/ext4/once
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'ext4: a step that failed once'
	lie=$(git -C "$tree" rev-parse HEAD)
	tbug 'ext4: the bug'
	bug=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: the bad end'
	FAKE_RUN_LIE_AT=$lie run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~4 --bad HEAD
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "first bad commit: $lie ext4: a step that failed once" ]
	[[ "${lines[1]}" == "revert check: failed: the bad end with ${lie:0:12} reverted is still bad, the culprit is not confirmed"* ]]
	[[ "$stderr" == *"bisect: inconclusive: git bisect named ${lie:0:12} between "*", but its revert did not confirm it (revert check: failed); see the report"* ]]
	report=${lines[2]}
	grep -qx 'status: done, inconclusive: the revert did not confirm the culprit (exit 3)' "$report"
	# The failure does not come again, but its verdict was kept.
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~4 --bad HEAD
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "first bad commit: $lie ext4: a step that failed once" ]
	[[ "$stderr" == *"${lie:0:12}: the result kept for this tree, config and test: bad"* ]]
	# --retest=<the step that lied> boots that step again, and only it.
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~4 --bad HEAD --retest="${lie:0:12}"
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "first bad commit: $bug ext4: the bug" ]
	[ "${lines[1]}" = "revert check: passed" ]
	[[ "$stderr" != *"${lie:0:12}: the result kept"* ]]
	[[ "$stderr" == *"(bad-end): "*": the result kept"* ]]
	grep -qx 'status: done' "${lines[2]}"
	# --retest boots every step again.
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~4 --bad HEAD --retest
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "first bad commit: $bug ext4: the bug" ]
	[[ "$stderr" != *"the result kept"* ]]
	# A name that is not a commit is bad input: one line, 128.
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~4 --bad HEAD --retest=nosuch
	[ "$status" -eq 128 ]
	[ "$stderr" = "kbranch: --retest=nosuch: nosuch is not a commit of $tree" ]
}

# The bug comes in, stays two commits, then a commit takes it out:
# --find-fix from the bug (bad, the older end) to the tip (good) names
# the fix, and its revert on the good end brings the bug back.
@test "kbranch bisect --find-fix: from a bad older end to a good newer one, names the commit that fixed it, confirmed by its revert" {
	local bug fix report
	fake_kbranch
	tbug 'ext4: the bug'
	bug=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: still broken'
	tcommit 'ext4: broken again'
	git -C "$tree" rm -q fs/ext4/bug
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'ext4: the fix'
	fix=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: the good end'
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --find-fix --bad "$bug" --good HEAD
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "first fixed commit: $fix ext4: the fix" ]
	[ "${lines[1]}" = "revert check: passed" ]
	report=${lines[2]}
	grep -qx "first fixed commit: $fix ext4: the fix" "$report"
	grep -q '^  git bisect fixed ' "$report"
	grep -q '^  git bisect broken ' "$report"
	# The ends are checked the other way round: the older must be bad.
	[[ "$stderr" == *"step 1 (bad-end): ${bug:0:12}: bad"* ]]
	# Given as for a regression (good older than bad), it is one line, 128.
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --find-fix --good "$bug" --bad HEAD
	[ "$status" -eq 128 ]
	[ "$stderr" = "kbranch: --bad $(git -C "$tree" rev-parse HEAD) is not an ancestor of --good $bug (--find-fix: the bad end is the older)" ]
}

# The bug and the step before it both flaky (no verdict, 125): git bisect
# cannot split them, and the answer is the two commits, inconclusive.
@test "kbranch bisect: steps left that are all flaky end inconclusive (3), with the commits git bisect could not split and why each was skipped" {
	local before bug report
	fake_kbranch
	tcommit 'ext4: a step that was flaky'
	before=$(git -C "$tree" rev-parse HEAD)
	tbug 'ext4: the bug'
	bug=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: the bad end'
	FAKE_RUN_FLAKY_AT="$before $bug" run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~3 --bad HEAD
	echo "$stderr"
	printf '%s\n' "$output"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"kbranch: inconclusive: the first bad commit is one of "*"${before:0:12}"*", which git bisect could not split: the steps between were skipped ("*"${bug:0:12}: it failed on one boot and passed on another, which tells neither a bug that hides nor a test that lies (flaky)"* ]]
	[[ "$stderr" == *"${bug:0:12}"*", which git bisect could not split"* ]]
	report=${lines[-1]}
	grep -q "^status: stopped at step [0-9]*, .*: inconclusive: the first bad commit is one of " "$report"
	[ ! -e "$(dirname "$report")/regression.eml" ]
	[ ! -e "$(git -C "$tree" rev-parse --absolute-git-dir)/BISECT_START" ]
}

# The mail of a confirmed culprit, read back field by field as a mail
# reader parses it.  The tree's scripts/get_maintainer.pl is a stand-in
# here (the real one, on the real tree: ci/31-bisect.bats).
@test "kbranch bisect: a confirmed culprit ends in a regression report ready to mail, each field read back; the consoles are kept without escapes" {
	local bug mail fields dir
	fake_kbranch
	mkdir -p "$tree/scripts"
	printf '#!/bin/sh\ncat >/dev/null\necho "Ted Maint <ted@example.org> (maintainer:EXT4 FILE SYSTEM)"\necho "Rae View <rae@example.org> (reviewer:EXT4 FILE SYSTEM)"\necho "linux-ext4@vger.kernel.org (open list:EXT4 FILE SYSTEM)"\n' >"$tree/scripts/get_maintainer.pl"
	chmod +x "$tree/scripts/get_maintainer.pl"
	git -C "$tree" add scripts
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'scripts: get_maintainer.pl'
	git -C "$tree" config user.name 'Tess Ter'
	git -C "$tree" config user.email tess@example.org
	printf '#!/bin/sh\nsetfacl -m u:1:r /mnt/f\n' >"$BATS_TEST_TMPDIR/test.sh"
	tbug 'ext4: the bug'
	bug=$(git -C "$tree" rev-parse HEAD)
	tcommit 'ext4: the bad end'
	run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~3 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh"
	echo "$stderr"
	[ "$status" -eq 0 ]
	dir=$(dirname "${lines[2]}")
	mail=$dir/regression.eml
	[[ "$stderr" == *"bisect: the regression report, ready to send: $mail (To/Cc: get_maintainer.pl; From: Tess Ter <tess@example.org>)"* ]]
	grep -qxF "regression report, ready to send: $mail (To/Cc: get_maintainer.pl; From: Tess Ter <tess@example.org>)" "${lines[2]}"
	fields=$(mail_fields "$mail")
	echo "$fields"
	# Sent as kernel mail is: every part 8bit, never quoted-printable's
	# "=" at the ends of lines; its prose filled to 72 columns.
	# A file on disk: LF line ends, as git send-email and mail clients read.
	[ "$(grep -c $'\r' "$mail" || true)" = 0 ]
	[ "$(grep -ic '^Content-Transfer-Encoding: 8bit$' "$mail")" -eq 3 ]
	[ "$(grep -ic '^Content-Transfer-Encoding:' "$mail")" -eq 3 ]
	[ -z "$(sed -n '/^Hello,$/,/^  commit /p' "$mail" | awk 'length > 72')" ]
	grep -qxF 'From: Tess Ter <tess@example.org>' <<<"$fields"
	grep -qxF 'To: t <t@t>, Ted Maint <ted@example.org>' <<<"$fields"
	grep -qxF 'Cc: regressions@lists.linux.dev, Rae View <rae@example.org>, linux-ext4@vger.kernel.org' <<<"$fields"
	grep -qxF 'Subject: [REGRESSION] bisected to "ext4: the bug"' <<<"$fields"
	grep -qxF 'attachments: config-delta config' <<<"$fields"
	grep -qxF "  commit $bug" <<<"$fields"
	grep -qxF '  Author: t <t@t>' <<<"$fields"
	grep -qxF "  culprit: ${bug:0:12} (\"ext4: the bug\")" <<<"$fields"
	grep -qxF '  Checks: ends: PASS  revert: PASS' <<<"$fields"
	grep -qE '^  builds: [0-9]+ \(at most [0-9]+: ' <<<"$fields"
	grep -qxF "  kernel: 6.1.0-g${bug:0:12}, x86_64, booted in QEMU (guest: busybox, 1 boot a step)" <<<"$fields"
	# The reproducer and what it printed at the bad end, inline, without
	# the terminal's escapes; the kernel's warning among it.
	grep -qxF '  setfacl -m u:1:r /mnt/f' <<<"$fields"
	grep -qxF '  mount: extended attributes lost' <<<"$fields"
	grep -qxF '  [    1.2] WARNING: CPU: 0 PID: 1 at fs/ext4/xattr.c:42' <<<"$fields"
	grep -qxF '  # ext4-checks: reproducer status=1' <<<"$fields"
	grep -qxF "  # first bad commit: [$bug] ext4: the bug" <<<"$fields"
	grep -qE '^  # good: \[[0-9a-f]{40}\] ' <<<"$fields"
	grep -qxF '  Reported-by: Tess Ter <tess@example.org>' <<<"$fields"
	grep -qxF "  Fixes: ${bug:0:12} (\"ext4: the bug\")" <<<"$fields"
	grep -qxF "#regzbot introduced: ${bug:0:12}" <<<"$fields"
	# The consoles kept with the steps have no escape or carriage return.
	[ -z "$(grep -rlP '\x1b|\r' "$dir/logs" || true)" ]
	grep -rqx 'mount: extended attributes lost' "$dir/logs"
}

# The stand-in's verdict follows a word (FAKE_RUN_BAD_WORD) wherever it
# is: in documentation, a defconfig, another architecture or a comment,
# git bisect names a commit that cannot have changed the kernel, and the
# revert of the commit that adds the word passes all the same.  Only a
# change the kernel's objects or its link can show is an answer.  Each
# kind named ($@) is a commit that adds the word, bisected on its own.
suspect_kinds() {
	local kind culprit report why
	fake_kbranch
	mkdir -p "$tree/Documentation" "$tree/arch/arm64/configs" "$tree/arch/arm64/kernel" "$tree/arch/x86/kernel" "$tree/drivers/unbuilt"
	printf 'int x;\n' >"$tree/fs/ext4/x.c"
	git -C "$tree" add fs/ext4/x.c
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qm 'ext4: x'
	for kind in "$@"; do
		case $kind in
		documentation) echo 'lost-acl' >"$tree/Documentation/ext4.rst" ;;
		defconfigs) echo '# lost-acl' >"$tree/arch/arm64/configs/defconfig" ;;
		architecture) echo 'int lost_acl; /* lost-acl */' >"$tree/arch/arm64/kernel/x.c" ;;
		comments) printf 'int x; /* lost-acl:\n * a comment */\n' >"$tree/fs/ext4/x.c" ;;
		unbuilt) echo 'int lost_acl = 1; /* lost-acl */' >"$tree/drivers/unbuilt/x.c" ;;
		makefile)
			mkdir -p "$tree/drivers/unbuilt"
			echo 'ldflags-y += -z noexecstack # lost-acl' >"$tree/drivers/unbuilt/Makefile"
			;;
		x86) echo 'int lost_acl = 1; /* lost-acl */' >"$tree/arch/x86/kernel/x.c" ;;
		code) printf 'int x = 1; /* lost-acl */\n' >"$tree/fs/ext4/x.c" ;;
		esac
		git -C "$tree" add -A
		git -C "$tree" -c user.name=t -c user.email=t@t commit -qm "ext4: $kind"
		culprit=$(git -C "$tree" rev-parse HEAD)
		tcommit 'ext4: the bad end'
		FAKE_RUN_BAD_WORD=lost-acl run --separate-stderr "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~2 --bad HEAD
		echo "$kind: $stderr"
		[ "${lines[0]}" = "first bad commit: $culprit ext4: $kind" ]
		report=${lines[2]}
		# A Makefile may change the final link, which the kernel's id
		# leaves out: its same id is no answer, and it is not suspect.
		if [ "$kind" = code ] || [ "$kind" = x86 ] || [ "$kind" = makefile ]; then
			[ "$status" -eq 0 ]
			[ -f "$(dirname "$report")/regression.eml" ]
			[ -z "$(grep '^suspect:' "$report" || true)" ]
			git -C "$tree" -c user.name=t -c user.email=t@t revert --no-edit "$culprit" >/dev/null
			continue
		fi
		[ "$status" -eq 3 ]
		[ ! -e "$(dirname "$report")/regression.eml" ]
		case $kind in
		documentation) why='it touches only documentation' ;;
		defconfigs) why='it touches only defconfigs' ;;
		architecture) why='it touches only other architectures than x86' ;;
		comments) why='it changes only comments' ;;
		unbuilt) why="it builds the same kernel as its parent (kernel=$(git -C "$tree" ls-tree -r "$culprit^" | grep -v '	drivers/unbuilt/' | sha256sum | cut -c1-16))" ;;
		esac
		grep -qxF "suspect: $why, so it cannot have changed the kernel the guest booted" "$report"
		grep -qxF "status: done, inconclusive: the culprit cannot have changed the guest's kernel: $why (exit 3)" "$report"
		[[ "$stderr" == *"but $why: a step's verdict was wrong"* ]]
		# The word out again, for the next kind.
		git -C "$tree" -c user.name=t -c user.email=t@t revert --no-edit "$culprit" >/dev/null
	done
}

@test "kbranch bisect: a culprit that touches only documentation, only defconfigs, only another architecture or only comments is suspect: inconclusive, 3, no mail" {
	suspect_kinds documentation defconfigs architecture comments
}

@test "kbranch bisect: a culprit that builds its parent's kernel is suspect: inconclusive, 3, no mail; a code change, in x86 too, is not, nor a Makefile's" {
	suspect_kinds unbuilt makefile x86 code
}

# kbranch bisect (fake_kbranch) on the tree from HEAD~2 to HEAD, started in
# a session and process group of its own, its stdout and stderr in
# $BATS_TEST_TMPDIR/out and err; its pid, the group's, in $pid; the tree's
# HEAD before, in $head.
bisect_in_background() {
	head=$(git -C "$tree" rev-parse HEAD)
	(exec setsid "$FAKE_KBRANCH" bisect --tree "$tree" --good HEAD~2 --bad HEAD \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err") &
	pid=$!
}

# Waits (10 s at most) for file $1 to hold a line that matches ERE $2.
wait_for_line() {
	for _ in $(seq 1 100); do
		if grep -qE "$2" "$1" 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "never seen in $1: $2"
	return 1
}

# The bisect stopped by SIGTERM in step 1: 143, one line on stderr besides
# the progress, the report's path last on stdout, the report's status
# naming the good end (step 1's) as checked out before the reset, the
# tree as it was.
stopped_by_term() {
	local status=0 report good
	good=$(git -C "$tree" rev-parse --short=12 "$head~2")
	wait "$pid" || status=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$status" -eq 143 ]
	[ "$(grep -vE '^\[ *[0-9]+s\] ' "$BATS_TEST_TMPDIR/err")" = "kbranch: interrupted by SIGTERM during step 1" ]
	report=$(tail -n 1 "$BATS_TEST_TMPDIR/out")
	grep '^status: ' "$report"
	grep -qx "status: stopped at step 0, $good checked out before the reset: interrupted by SIGTERM during step 1" "$report"
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ]
	[ "$(git -C "$tree" symbolic-ref --short HEAD)" = ext4-rename ]
	[ ! -e "$(git -C "$tree" rev-parse --absolute-git-dir)/BISECT_START" ]
}

@test "kbranch bisect: SIGTERM during a step stops the step's run and says so in one line, 143; the report says where, the tree is put back" {
	local log runpid start
	fake_kbranch
	export FAKE_RUN_SLEEP=60
	bisect_in_background
	wait_for_line "$BATS_TEST_TMPDIR/err" 'step 1 \(good-end\): .* \(log: '
	log=$(sed -n 's/.*step 1 (good-end): .* (log: \(.*\))$/\1/p' "$BATS_TEST_TMPDIR/err")
	wait_for_line "$log" '^fake run: started, pid [0-9]+$'
	runpid=$(sed -n 's/^fake run: started, pid //p' "$log")
	start=$SECONDS
	kill -TERM "$pid"
	stopped_by_term
	# The step's run is gone, its sleep with it, long before its 60 s.
	[ "$((SECONDS - start))" -lt 30 ]
	if kill -0 "$runpid" 2>/dev/null; then echo "the step's run is still there: $runpid"; return 1; fi
	# (A process killed may wait a moment as a zombie for init: not counted.)
	[ -z "$(ps -eo pgid=,stat=,args= | awk -v g="$runpid" '$1 == g && $2 !~ /^Z/')" ]
}

@test "kbranch bisect: SIGTERM to its whole process group during a git checkout is one line too, not bash's \"Terminated\" before it; 143, the report says where, the tree is put back" {
	local hooks
	fake_kbranch
	# The first checkout (the good end's) lasts 2 s, in a hook: the signal
	# finds git running in the foreground.
	hooks=$(git -C "$tree" rev-parse --absolute-git-dir)/hooks
	mkdir -p "$hooks"
	cat >"$hooks/post-checkout" <<HOOK
#!/bin/sh
[ ! -e "$BATS_TEST_TMPDIR/checkout" ] || exit 0
echo started >"$BATS_TEST_TMPDIR/checkout"
sleep 2
HOOK
	chmod +x "$hooks/post-checkout"
	bisect_in_background
	wait_for_line "$BATS_TEST_TMPDIR/checkout" '^started$'
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
	kill -TERM -- "-$pid"
	stopped_by_term
}

# The way a tester posts that report to the local list (ci/31-bisect.bats
# sends a real one through it): bad input is one line and sends nothing.
@test "kbranch list send refuses, in one line and sending nothing, a missing file, a file with no Message-ID or no From, and any mail when no list runs" {
	local mail=$BATS_TEST_TMPDIR/report.eml work=$BATS_TEST_TMPDIR/work
	mkdir -p "$work"
	printf 'From: Tess Ter <tess@example.org>\nTo: ted@example.org\nMessage-ID: <1@t>\nSubject: s\n\nbody\n' >"$mail"
	grep -v '^Message-ID' "$mail" >"$BATS_TEST_TMPDIR/noid.eml"
	grep -v '^From' "$mail" >"$BATS_TEST_TMPDIR/nofrom.eml"
	run --separate-stderr env KBRANCH_WORK="$work" KBRANCH_LIST_SMTP_PORT=2699 "$KBRANCH" list send "$mail" "$BATS_TEST_TMPDIR/none.eml"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kbranch: list send: $BATS_TEST_TMPDIR/none.eml: no such file: nothing sent" ]
	run --separate-stderr env KBRANCH_WORK="$work" KBRANCH_LIST_SMTP_PORT=2699 "$KBRANCH" list send "$mail" "$BATS_TEST_TMPDIR/noid.eml"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kbranch: list send: $BATS_TEST_TMPDIR/noid.eml has no Message-ID: nothing sent" ]
	run --separate-stderr env KBRANCH_WORK="$work" KBRANCH_LIST_SMTP_PORT=2699 "$KBRANCH" list send "$BATS_TEST_TMPDIR/nofrom.eml"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kbranch: list send: $BATS_TEST_TMPDIR/nofrom.eml has no From: nothing sent" ]
	run --separate-stderr env KBRANCH_WORK="$work" KBRANCH_LIST_SMTP_PORT=2699 "$KBRANCH" list send "$mail"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kbranch: list send: no list on 127.0.0.1:2699 ('kbranch list start'): nothing sent" ]
	[ -z "$(ls -A "$work")" ]
}

# The cases of a bug that hides and of a test that lies, with fixed
# seeds: the answer is the real culprit with 0, or inconclusive (3),
# never another commit with 0.  Seed 3 names the bug; seed 2 names a
# commit that only changes comments, whose revert fails.
@test "kbranch bisect, boots drawn from fixed seeds: a bug that shows one boot in four is named, or a wrong commit is inconclusive (3), not answered with 0" {
	local bug
	seeded_kbranch
	seeded_history
	bug=$(git -C "$tree" rev-parse HEAD~4)
	SEEDED_SEED=3 SEEDED_BUG_ONE_IN=4 run --separate-stderr "$SEEDED_KBRANCH" bisect --tree "$tree" \
		--good HEAD~6 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh" --repeat 8
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "first bad commit: $bug ext4: the bug" ]
	[[ "${lines[1]}" == "revert check: passed ("*" boots; the culprit's step failed "*" of "*")" ]]
	SEEDED_SEED=2 SEEDED_BUG_ONE_IN=4 run --separate-stderr "$SEEDED_KBRANCH" bisect --tree "$tree" \
		--good HEAD~6 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh" --repeat 8 --retest
	echo "$stderr"
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "first bad commit: $(git -C "$tree" rev-parse HEAD~3) ext4: comment 1" ]
	[[ "${lines[1]}" == "revert check: failed: "* ]]
}

# A test that fails one run in three, on kernels with no bug at all: with
# seed 100 the bad end is judged bad and its revert passed its 3 boots by
# chance, answered with 0 before the revert check weighed its boots.
# The revert's boots from the culprit's own step (its passes field, K/N):
# enough that a kernel failing half as often as that step would pass them
# all less than 1 time in 100; never fewer than --repeat, at most 200;
# one boot a step keeps one.
@test "kbranch bisect: the revert check's boots are weighed by the culprit's step: 2 of 8 failed asks 35, 2 of 2 asks 7, one boot a step keeps one, never fewer than --repeat, at most 200" {
	local passes repeat want
	KB_REPO=$REPO
	# shellcheck source=branch-scripts/cmd/bisect.sh
	source "$REPO/branch-scripts/cmd/bisect.sh"
	KB_BISECT_DIR=$BATS_TEST_TMPDIR KB_BISECT_CULPRIT=c0ffee
	while read -r passes repeat want; do
		printf '1\tbad-end\tc0ffee\t1\tbad\tok\tok\tfail\t%s\n' "$passes" >"$KB_BISECT_DIR/steps"
		KB_BISECT_REPEAT=$repeat
		echo "$passes --repeat $repeat: $(bisect_revert_boots), want $want"
		[ "$(bisect_revert_boots)" = "$want" ]
	done <<'CASES'
6/8 8 35
0/2 2 7
0/1 1 1
- 1 1
0/16 16 16
199/200 8 200
CASES
}

@test "kbranch bisect, boots drawn from fixed seeds: a test that fails one run in three on good kernels is inconclusive (3), its revert weighed by the culprit's step" {
	seeded_kbranch
	seeded_history
	rm "$tree/fs/ext4/bug"
	git -C "$tree" -c user.name=t -c user.email=t@t commit -qam 'ext4: the bad end, no bug'
	SEEDED_SEED=100 SEEDED_LIE_ONE_IN=3 run --separate-stderr "$SEEDED_KBRANCH" bisect --tree "$tree" \
		--good HEAD~7 --bad HEAD --test "$BATS_TEST_TMPDIR/test.sh" --repeat 3
	echo "$stderr"
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "first bad commit: $(git -C "$tree" rev-parse HEAD) ext4: the bad end, no bug" ]
	[[ "${lines[1]}" == "revert check: failed: "* ]]
	[[ "$stderr" == *"revert check: "*" boots, so that a kernel failing half as often as the culprit's step did would pass them all less than 1 time in 100"* ]]
}
