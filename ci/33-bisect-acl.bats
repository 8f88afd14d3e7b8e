#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $lines, $stderr: set by bats' run
# kbranch bisect with an old-era tester's config (made at ext4dev-base,
# CONFIG_EXT4DEV_FS_POSIX_ACL) and a reproducer that runs setfacl: a
# planted Kconfig step on the series' tip (branch scratch-acl of the CI
# work tree, never sent) stops the old ACL option from selecting the new
# one, and the config carried there loses ACLs.  The guest's setfacl and
# getfacl are the host's (the acl package), with their libraries.

load helpers
load bisect-helpers

setup_file() {
	ensure_applied
	export KBRANCH_WORK
	# The tester's config: builtin's, made at ext4dev-base in that era's names.
	ktree checkout -q -f --detach ext4dev-base
	local made
	made=$(cd "$KTREE" && "$REPO/bisect-tests/run" --configure-only --variant builtin)
	# The .config where run says it made it, read by run's own reader.
	# shellcheck source=bisect-tests/lib/verdict.sh
	source "$REPO/bisect-tests/lib/verdict.sh"
	cp "$(result_field "$(sed -n 's/^CONFIG //p' <<<"$made")" config)" "$KBRANCH_CI_SCRATCH/tester-old-era.config"
	ktree checkout -q -f ext4-rename
	grep -qx 'CONFIG_EXT4DEV_FS_POSIX_ACL=y' "$KBRANCH_CI_SCRATCH/tester-old-era.config"
	cat >"$KBRANCH_CI_SCRATCH/acl-repro.sh" <<'EOF'
#!/bin/sh
# The tester's reproducer: a POSIX ACL set on ext4 reads back.
mount -t ext4 /dev/vdb /mnt || { echo "repro: cannot mount"; exit 125; }
touch /mnt/f
setfacl -m u:1000:r /mnt/f || { echo "repro: setfacl failed"; umount /mnt; exit 1; }
getfacl /mnt/f | grep -q '^user:1000:r--' || { echo "repro: the ACL did not read back"; exit 1; }
umount /mnt
EOF
	chmod +x "$KBRANCH_CI_SCRATCH/acl-repro.sh"
}

setup() {
	export KBRANCH_WORK
}

teardown_file() {
	bisect_tree_reset scratch-acl
}

# The old ACL option keeps its prompt but no longer selects the new one.
drop_acl_select() {
	python3 - <<'PY'
src = open('fs/ext4/Kconfig').read().split('\n')
i = src.index('config EXT4DEV_FS_POSIX_ACL')
j = next(n for n in range(i, len(src)) if src[n].strip() == 'select EXT4_FS_POSIX_ACL')
del src[j]
open('fs/ext4/Kconfig', 'w').write('\n'.join(src))
PY
}

@test "kbranch bisect: an old-era config losing ACLs at a Kconfig step is found by a reproducer that runs setfacl, with the option it loses" {
	# A build dir of its own for the old-era config (seeded from the
	# oldconfig variant's), five builds and boots: about 3.5 minutes here,
	# past the few minutes ci/test's hour leaves.
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "an old-era config's own build dir and five builds, about 3.5 minutes (KBRANCH_CI_FULL=1 runs it)"
	local culprit report
	command -v setfacl >/dev/null || skip "the host has no setfacl (the acl package), which the guest's reproducer borrows"
	ktree checkout -q -f -B scratch-acl ext4-rename
	planted 'scratch: a note in the ext4 docs' note 'scratch note 1'
	planted 'ext4: planted: the ext4dev ACL option stops selecting EXT4_FS_POSIX_ACL' drop_acl_select
	planted 'scratch: a second note' note 'scratch note 2'
	ktree checkout -q -f ext4-rename
	culprit=$(ktree rev-parse scratch-acl~1)
	kbisect --good ext4-rename --bad scratch-acl \
		--config "$KBRANCH_CI_SCRATCH/tester-old-era.config" --test "$KBRANCH_CI_SCRATCH/acl-repro.sh"
	bisect_confirmed "$culprit" 'ext4: planted: the ext4dev ACL option stops selecting EXT4_FS_POSIX_ACL'
	report=$(report_of)
	grep -qx '  CONFIG_EXT4_FS_POSIX_ACL: y -> n' "$report"
	# Carried from the good end's config, the new option was written there
	# and stays: stepping and jumping differ at this Kconfig step, and the
	# report says so.
	grep -qE "^  ${culprit:0:12} carried from [0-9a-f]{12}: DIFFERS from jumped: .*CONFIG_EXT4_FS_POSIX_ACL" "$report"
	grep -qE '^commits in the range: 3; builds: [1-5] ' "$report"
	grep -rq 'repro: setfacl failed' "$(dirname "$report")"/logs/*-bad-end-*.consoles
}
