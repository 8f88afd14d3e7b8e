#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $lines, $stderr: set by bats' run
# kbranch bisect --guest debian: the tester's config, with what the Debian
# machine needs merged onto it, booted in the Debian 12 machine of
# bisect-tests/debian (systemd, initramfs-tools), and the tester's
# reproducer run there after systemd reached its target.  The planted
# regression is a scratch commit on the series' tip in a scratch clone of
# the CI tree (never sent), kept at one path in the work dir so that the
# tester's build dir stays warm from one run to the next: the first run
# is a cold build of about 10 minutes, so it runs with KBRANCH_CI_FULL=1.

load helpers
load bisect-helpers

setup_file() {
	export KBRANCH_WORK
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || return 0
	ensure_applied
	tester_debug_config
	# The reproducer: run in the booted Debian machine, after
	# multi-user.target; creates a file on the plain scratch disk.
	cat >"$KBRANCH_CI_SCRATCH/debian-repro.sh" <<'SH'
#!/bin/sh
echo "debian $(cat /etc/debian_version); multi-user.target $(systemctl is-active multi-user.target)"
mkdir -p /mnt/scratch
mount -t ext4 /dev/vdb /mnt/scratch || { echo "repro: mount failed"; exit 1; }
touch /mnt/scratch/planted-probe || { echo "repro: create failed"; umount /mnt/scratch; exit 1; }
umount /mnt/scratch
echo "repro: created"
SH
	chmod +x "$KBRANCH_CI_SCRATCH/debian-repro.sh"
	# A reproducer that needs a package the machine does not have
	# (setfacl, from acl): it cannot test without it (125).
	cat >"$KBRANCH_CI_SCRATCH/debian-acl-repro.sh" <<'SH'
#!/bin/sh
command -v setfacl >/dev/null || { echo "repro: no setfacl in this machine"; exit 125; }
mkdir -p /mnt/scratch
mount -t ext4 /dev/vdb /mnt/scratch || { echo "repro: mount failed"; exit 1; }
touch /mnt/scratch/f
setfacl -m u:1000:r /mnt/scratch/f || { echo "repro: setfacl failed"; umount /mnt/scratch; exit 1; }
acl=$(getfacl -c /mnt/scratch/f | grep '^user:1000:')
umount /mnt/scratch
[ "$acl" = "user:1000:r--" ] || { echo "repro: the ACL read back as '$acl'"; exit 1; }
echo "repro: ACL set and read back: $acl"
SH
	chmod +x "$KBRANCH_CI_SCRATCH/debian-acl-repro.sh"
}

setup() {
	export KBRANCH_WORK
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] ||
		skip "builds the tester's kernel for the Debian machine and boots it, a cold build of about 10 minutes (KBRANCH_CI_FULL=1 runs it)"
	CLONE=$KBRANCH_WORK/scratch-trees/bisect-debian
}

# The scratch clone at the series' tip (made once, reset each time), with
# branch planted: a note, then ext4_create refusing names that begin with
# "planted-" (EPERM): the machine boots, only the reproducer sees it.
planted_clone() {
	if [ ! -d "$CLONE/.git" ]; then
		mkdir -p "$(dirname "$CLONE")"
		git clone -q --shared "$KTREE" "$CLONE"
	fi
	git -C "$CLONE" checkout -q -f --detach
	git -C "$CLONE" fetch -q "$KTREE" "+refs/heads/ext4-rename:refs/heads/ext4-rename" "+refs/tags/*:refs/tags/*"
	git -C "$CLONE" checkout -q -f -B planted ext4-rename
	git -C "$CLONE" clean -qfdx
	(cd "$CLONE" && note 'scratch note for the Debian bisect')
	git -C "$CLONE" -c user.name=ci -c user.email=ci@localhost commit -q -a -m 'scratch: a note in the ext4 docs'
	(cd "$CLONE" && python3 - <<'PY'
src = open('fs/ext4/namei.c').read()
at = src.index('static int ext4_create(')
call = '\terr = dquot_initialize(dir);\n'
i = src.index(call, at)
src = src[:i] + '\tif (dentry->d_name.len >= 8 && !memcmp(dentry->d_name.name, "planted-", 8))\n\t\treturn -EPERM; /* ci: planted */\n' + src[i:]
open('fs/ext4/namei.c', 'w').write(src)
PY
	)
	git -C "$CLONE" -c user.name=ci -c user.email=ci@localhost commit -q -a -m 'ext4: planted: refuse to create "planted-*" files'
	git -C "$CLONE" checkout -q -f ext4-rename
}

@test "kbranch bisect --guest debian: a regression only a reproducer in the booted Debian machine sees is named, with the options the guest added" {
	local culprit report dir
	planted_clone
	culprit=$(git -C "$CLONE" rev-parse planted)
	kbisect --tree "$CLONE" --good ext4-rename --bad planted --guest debian \
		--config "$KBRANCH_CI_SCRATCH/tester-debug.config" --test "$KBRANCH_CI_SCRATCH/debian-repro.sh" --repeat 2
	bisect_confirmed "$culprit" 'ext4: planted: refuse to create "planted-*" files'
	report=$(report_of)
	# Two boots a step, each running the reproducer: bad 0/2, good 2/2.
	grep -qE '^ +good \(exit 0\): .* passes=2/2 tainted=[0-9]+,[0-9]+ ' "$report"
	grep -qE '^ +bad \(exit 1\): .* passes=0/2 ' "$report"
	grep -q 'repeat: 2; guest: debian' "$report"
	# The guest's options, listed: systemd's cgroups and AF_UNIX, which
	# the tester's config (builtin's) has not.
	grep -q "^options the guest merged onto the tester's config" "$report"
	grep -q '^  CONFIG_CGROUPS: n -> y$' "$report"
	grep -q '^  CONFIG_UNIX: n -> y$' "$report"
	# Each step says its config carried stepwise is the jumped one.
	grep -q '^     config: stepped = jumped (carried from ' "$report"
	# The reproducer ran in the Debian machine, after its target, and
	# saw the bug there: its words in the report each boot wrote.
	dir=$(dirname "$report")
	grep -q '^reproducer-output: debian 12\.[0-9]*; multi-user.target active' "$dir"/logs/2-bad-end-*.consoles/boots/1/report.txt
	[ "$(grep -l '^reproducer-output: repro: create failed' "$dir"/logs/2-bad-end-*.consoles/boots/*/report.txt | wc -l)" -eq 2 ]
	[ "$(grep -l '^reproducer: 0' "$dir"/logs/1-good-end-*.consoles/boots/*/report.txt | wc -l)" -eq 2 ]
}

# The tester's reproducer needs setfacl, which the machine's own list
# does not hold: without --packages it cannot test (125), with --packages
# acl the machine's image has it and the test passes at the tip.  The
# tester's build dir is the one the test above left, so only the image
# (about 40 s) is new.
@test "bisect-tests/run --guest debian --packages acl: the tester's reproducer runs setfacl in the Debian machine; without it, 125" {
	local dir
	planted_clone
	git -C "$CLONE" checkout -q -f ext4-rename
	cd "$CLONE"
	run --separate-stderr "$REPO/bisect-tests/run" --guest debian \
		--config "$KBRANCH_CI_SCRATCH/tester-debug.config" --test "$KBRANCH_CI_SCRATCH/debian-acl-repro.sh"
	printf '%s\n' "$stderr" | tail -n 5
	[ "$status" -eq 125 ]
	dir=$(sed -n 's/^RESULT .* run=\([^ ]*\).*/\1/p' <<<"$output")
	grep -q '^reproducer-output: repro: no setfacl in this machine' "$dir"/boots/1/report.txt
	run --separate-stderr "$REPO/bisect-tests/run" --guest debian --packages acl \
		--config "$KBRANCH_CI_SCRATCH/tester-debug.config" --test "$KBRANCH_CI_SCRATCH/debian-acl-repro.sh"
	printf '%s\n' "$stderr" | tail -n 5
	[ "$status" -eq 0 ]
	dir=$(sed -n 's/^RESULT .* run=\([^ ]*\).*/\1/p' <<<"$output")
	grep -q '^reproducer-output: repro: ACL set and read back: user:1000:r--' "$dir"/boots/1/report.txt
}
