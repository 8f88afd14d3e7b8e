#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr: set by bats' run
# The fast tier, part three: the machine's faults are never the commit's.
# bisect-tests/run itself is run, in a git tree with a kernel tree's shape
# (a Makefile and fs/ext4), against a work dir that is full (a tmpfs the
# test fills), read-only (a read-only bind mount), not writable by the
# user (nobody), or named by a setting the tools cannot take: each is 128
# with one line naming it, before anything is written.  Nothing is built:
# every one of them stops before the config stage.

load helpers

setup() {
	host=$(mktemp -d /var/tmp/kbranch-host.XXXXXX)
	chmod 0755 "$host"
	tree=$host/tree
	mkdir -p "$tree/fs/ext4"
	touch "$tree/Makefile"
	# The tip's subject: bisect-tests/expectations declares it.
	git -C "$tree" init -q
	git -C "$tree" add Makefile
	git -C "$tree" -c user.name=ci -c user.email=ci@localhost commit -q -m 'ext4: stop requiring the test_fs flag to mount ext4'
}

teardown() {
	local m
	for m in "$host/work" "$host/full"; do
		! mountpoint -q "$m" || umount "$m"
	done
	rm -rf "$host"
}

# bisect-tests/run in the tree, with the settings "$@" (NAME=value).
run_with() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	must_fail_with_one_line env "$@" bash -c 'cd "$1" && exec "$2"' _ "$tree" "$REPO/bisect-tests/run"
	echo "exit $status: $stderr"
}

# What an earlier run leaves in a work dir: a variant's build dir and lock.
earlier_run() {
	mkdir -p "$1/build/minimal" "$1/runs/minimal"
	touch "$1/build/minimal.lock"
}

@test "run: a setting the tools cannot take is 128, one line naming it, before the work dir is touched" {
	local work=$host/work setting
	for setting in KBRANCH_BOOT_TIMEOUT=abc KBRANCH_BOOT_TIMEOUT=0 KBRANCH_KVM=yes \
		KBRANCH_FAULT_QEMU=101 "KBRANCH_WORK=$host/a work" "KBRANCH_WORK=$host/a:work" KBRANCH_WORK=work; do
		run_with KBRANCH_WORK="$work" "$setting"
		[ "$status" -eq 128 ]
		[[ "$stderr" == "bisect-tests: ${setting%%=*} "* ]]
		[ ! -e "$work" ]
		[ ! -e "$host/a work" ]
		[ ! -e "$tree/work" ]
	done
}

@test "run: a work dir on a full disk is 128, one line naming it, fresh or with earlier runs in it" {
	local full=$host/full
	mkdir -p "$full"
	mount -t tmpfs -o size=2m tmpfs "$full"
	earlier_run "$full/old"
	mkdir "$full/new"
	# Filled to the last block: dd stops at ENOSPC.
	run dd if=/dev/zero of="$full/filler" bs=64K
	[ "$status" -eq 1 ]
	[[ "$output" == *"No space left on device"* ]]
	run_with KBRANCH_WORK="$full/new"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $full/new cannot be written: No space left on device" ]
	run_with KBRANCH_WORK="$full/old"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $full/old cannot be written: No space left on device" ]
	# Nothing lost: the earlier run's files are all there.
	[ -d "$full/old/build/minimal" ]
	[ -f "$full/old/build/minimal.lock" ]
}

@test "run: a read-only work dir is 128, one line naming it, with earlier runs in it or none" {
	local work=$host/work
	earlier_run "$work"
	mkdir -p "$work/empty"
	mount --bind "$work" "$work"
	mount -o remount,bind,ro "$work"
	run_with KBRANCH_WORK="$work"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $work cannot be written: Read-only file system" ]
	run_with KBRANCH_WORK="$work/empty"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $work/empty cannot be written: Read-only file system" ]
}

@test "run: a work dir the user cannot write is 128, one line naming it, with earlier runs in it or none" {
	local work=$host/work
	# The user is nobody: root writes where it likes.  bisect-tests and
	# the tree are nobody's to read; the work dir is root's, 0755.
	cp -a "$REPO/bisect-tests" "$host/bisect-tests"
	chown -R nobody: "$tree" "$host/bisect-tests"
	earlier_run "$work"
	mkdir "$work/fresh"
	chmod -R 0755 "$work"
	# shellcheck disable=SC2016 # expanded by the inner bash
	must_fail_with_one_line setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME="$host" KBRANCH_WORK="$work" bash -c 'cd "$1" && exec "$2"' _ "$tree" "$host/bisect-tests/run"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $work cannot be written: Permission denied" ]
	# shellcheck disable=SC2016 # expanded by the inner bash
	must_fail_with_one_line setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME="$host" KBRANCH_WORK="$work/fresh/sub" bash -c 'cd "$1" && exec "$2"' _ "$tree" "$host/bisect-tests/run"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: work dir $work/fresh/sub cannot be written: Permission denied" ]
}

@test "run: git missing from PATH is named as missing, 128, not taken for a tree without git" {
	local bin=$host/bin tool
	mkdir -p "$bin"
	for tool in bash sed grep cat dirname env; do
		ln -s "$(command -v "$tool")" "$bin/$tool"
	done
	run_with PATH="$bin" KBRANCH_WORK="$host/work"
	[ "$status" -eq 128 ]
	[ "$stderr" = "bisect-tests: git is missing; install it first" ]
}

# bisect-tests/run in the tree, in the background, with a stand-in make
# that blocks until killed (so the config stage's job waits on it, as a
# build does) and everything else the machine's: signal $1 once the
# config stage is under way, to the run alone or, with $2 "group", to its
# whole process group.  RUN_STATUS, RUN_ERR: its exit status and stderr;
# RUN_PID: its pid, its session's id too.
signal_during_config() {
	local signal=$1 target=${2:-run} bin=$host/bin pid
	mkdir -p "$bin"
	printf '#!/bin/sh\ncase "$*" in *--version*) echo "GNU Make 4.3" ;; *) exec sleep 317 ;; esac\n' >"$bin/make"
	chmod +x "$bin/make"
	(cd "$tree" && exec setsid env --default-signal=INT PATH="$bin:$PATH" KBRANCH_WORK="$host/work" \
		"$REPO/bisect-tests/run" --variant minimal) >"$host/run.out" 2>"$host/run.err" &
	pid=$!
	RUN_PID=$pid
	for _ in $(seq 1 100); do
		grep -q 'minimal: config (' "$host/run.err" && pgrep -s "$pid" -f 'sleep 317' >/dev/null && break
		sleep 0.1
	done
	RUN_STOP_SECONDS=$SECONDS
	if [ "$target" = group ]; then
		kill "-$signal" -- "-$pid"
	else
		kill "-$signal" "$pid"
	fi
	# How long the run took to stop: the stage's make (sleep 317) stopped
	# with it, not waited for.  Past 30 s, it is killed, and so is make.
	for _ in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	RUN_STOP_SECONDS=$((SECONDS - RUN_STOP_SECONDS))
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL -- "-$pid"
		pkill -KILL -s "$pid" || true
	fi
	RUN_STATUS=0
	wait "$pid" || RUN_STATUS=$?
	RUN_ERR=$(cat "$host/run.err")
	echo "exit $RUN_STATUS after ${RUN_STOP_SECONDS}s: $RUN_ERR"
}

# The processes of session $1 still running (a zombie is not), one a line.
session_left() {
	ps -o pid=,stat=,args= -s "$1" | awk '$2 !~ /^Z/' || true
}

@test "run: SIGTERM during a stage is 143 and SIGINT 130, one line, no verdict, the stage's make gone" {
	signal_during_config TERM
	[ "$RUN_STATUS" -eq 143 ]
	[ "$(grep -v '^\[ *[0-9]*s\] ' <<<"$RUN_ERR")" = "bisect-tests: interrupted: no verdict for this commit" ]
	[ ! -s "$host/run.out" ]
	[ -z "$(session_left "$RUN_PID")" ]
	[ "$RUN_STOP_SECONDS" -lt 30 ]
	signal_during_config INT
	[ "$RUN_STATUS" -eq 130 ]
	[ "$RUN_STOP_SECONDS" -lt 30 ]
	[ "$(grep -v '^\[ *[0-9]*s\] ' <<<"$RUN_ERR")" = "bisect-tests: interrupted: no verdict for this commit" ]
	[ ! -s "$host/run.out" ]
}

# A kill -9 of the group (a service manager's stop, a test harness) cannot
# be trapped: only a stage's job in the run's own group dies with it.  One
# left running would hold the work dir's lock and build dir from the next run.
@test "run: SIGKILL to the run's process group during a stage leaves nothing of the run behind" {
	local left
	signal_during_config KILL group
	[ "$RUN_STATUS" -eq 137 ]
	for _ in $(seq 1 50); do
		left=$(session_left "$RUN_PID")
		[ -n "$left" ] || break
		sleep 0.1
	done
	echo "left: $left"
	pkill -KILL -s "$RUN_PID" || true
	[ -z "$left" ]
}
