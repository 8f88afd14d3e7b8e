#!/usr/bin/env bats
# shellcheck disable=SC2154 # $output, $status: set by bats' run
# Every shape of config (branch-scripts/lib/shapes.sh, run by kbranch
# verify's carried-minimal point): random ext4-family configs made at
# ext4dev-base, their minimal forms (savedefconfig) and their fragments
# (merge_config.sh), stepped and jumped to every commit, each against what
# the packaged tree makes of it.  Kconfig only: about 40 s of CPU a commit
# (a minute at the base); the first test reads 15-verify.bats' run when it
# has one.

load helpers

setup_file() {
	ensure_applied
}

teardown() {
	ktree checkout -q -f ext4-rename
	ktree branch -q -D scratch 2>/dev/null || true
}

SHAPES_OK="$(grep -Evc '^[[:space:]]*(#|$)' "$REPO/bisect-tests/configs/shapes.seeds") random ext4-family configs, their minimal forms and fragments have what the packaged tree makes of them"

# The carried-minimal points of a verify run of the series: 15-verify's,
# or one run here when that one did not judge the shapes, once for the file.
shapes_tap() {
	local tap
	for tap in "$KBRANCH_CI_SCRATCH/verify.tap" "$KBRANCH_CI_SCRATCH/shapes.tap"; do
		if grep -q "\[carried-minimal\] .*$SHAPES_OK" "$tap" 2>/dev/null; then
			printf '%s\n' "$tap"
			return 0
		fi
	done
	"$KBRANCH" verify --variant carried-minimal --rerun >"$tap" 2>&1 || true
	printf '%s\n' "$tap"
}

@test "shapes: random ext4-family configs, their minimal forms and fragments keep the packaged tree's ext4 family at every commit, but for the ext4dev type where EXT4DEV_FS is kept" {
	local tap commits
	tap=$(shapes_tap)
	commits=$(($(ktree rev-list --count ext4dev-base..ext4-rename) + 1))
	grep '\[carried-minimal\]' "$tap" | sed 's/^/# /' >&3
	[ "$(grep -c "^ok .*\[carried-minimal\] olddefconfig keeps ext4=y acl=n security=n; $SHAPES_OK" "$tap")" -eq "$commits" ]
	# The listed EXT4DEV_COMPAT=y (compat-differences: config-shape) is
	# seen from patch 2 on, where the option exists, and nowhere else: no
	# shape loses ACL or security labels (v2's minimal forms did).
	[ "$(grep -c "^ok .*\[carried-minimal\] .*$SHAPES_OK but for 6 listed differences" "$tap")" -eq "$(($(series_length) - 1))" ]
	grep -q "^ok .* ext4: rename the ext4dev module and filesystem type to ext4 \[carried-minimal\] .* but for 6 listed" "$tap"
	[ "$(grep -c '^config-shape ' "$REPO/bisect-tests/compat-differences")" -eq 6 ]
	[ "$(grep '^config-shape ' "$REPO/bisect-tests/compat-differences" | grep -vc 'CONFIG_EXT4DEV_COMPAT=y')" -eq 0 ]
}

# The seeds file keeps the seeds of 1 to 200 that cover every three
# ext4-family values they make together (shapes-cover).  Made here again
# from the pin 15-verify's shapes left, with kconfig-batch at the base;
# without one seed that alone has a triple, the check says what it misses.
@test "shapes: the seeds kept cover every three ext4-family values seeds 1 to 200 make together at ext4dev-base" {
	local pin=$KBRANCH_WORK/carry/minimal/shapes/base/pin.config all=$BATS_TEST_TMPDIR/random kept
	shapes_tap >/dev/null
	[ -s "$pin" ]
	mkdir "$all"
	ktree checkout -q -f ext4dev-base
	seq 1 200 | sed "s|.*|randconfig $pin $all/& &|" |
		bash -c 'set -euo pipefail; . "$1/branch-scripts/lib/common.sh"; . "$1/branch-scripts/lib/kconfig.sh"; kconfig_batch x86_64 "$2"' \
			- "$REPO" "$BATS_TEST_TMPDIR/kconfig.log"
	[ "$(find "$all" -type f | wc -l)" -eq 200 ]
	mapfile -t kept < <(grep -Ev '^[[:space:]]*(#|$)' "$REPO/bisect-tests/configs/shapes.seeds")
	[ "${#kept[@]}" -lt 200 ]
	run "$REPO/branch-scripts/libexec/shapes-cover" check "$all" "${kept[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "${#kept[@]} of 200 seeds: 0 ext4-family triples missed" ]
	# The file is what pick makes: the same seeds, seed 199 kept first.
	[ "$("$REPO/branch-scripts/libexec/shapes-cover" pick "$all" 199)" = "$(printf '%s\n' "${kept[@]}")" ]
	# The first seed kept alone has some triple: without it, the check fails and names it.
	run "$REPO/branch-scripts/libexec/shapes-cover" check "$all" "${kept[@]:1}"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^missed: [A-Z0-9_]*=[ymn-] [A-Z0-9_]*=[ymn-] [A-Z0-9_]*=[ymn-]$' <<<"$output"
}

# v2's Kconfig planted back on top of the series: the old ACL and security options
# depending on EXT4DEV_FS, which a minimal form leaves out when EXT3_FS
# selects it.  Only the scratch point is new: about a minute.
@test "shapes: the old ACL and security options depending on EXT4DEV_FS, as in v2, are caught: minimal forms with EXT3_FS and the old ACL option lose ACL and security labels" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a carried-minimal verify of a planted Kconfig, about 2 minutes, past what CI's 90 minutes leave on a slow day (KBRANCH_CI_FULL=1 runs it)"
	local way line shapes
	scratch_commit ext4-rename 'ext4: the old ACL and security options depend on EXT4DEV_FS' \
		sed -i '/^config EXT4DEV_FS_\(POSIX_ACL\|SECURITY\)$/,/^$/s/^\t\(bool .*\)$/\t\1\n\tdepends on EXT4DEV_FS/' fs/ext4/Kconfig
	[ "$(ktree diff ext4-rename scratch | grep -c '^+.*depends on EXT4DEV_FS$')" -eq 2 ]
	run "$KBRANCH" verify --branch scratch --variant carried-minimal
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "^not ok [0-9]* - $(ktree rev-parse --short scratch) .*\[carried-minimal\]" <<<"$output"
	for way in 'minimal jumped' 'minimal stepped' 'fragment jumped'; do
		for line in CONFIG_EXT4_FS_POSIX_ACL=y CONFIG_EXT4_FS_SECURITY=y; do
			grep -q "^# $way: - $line: [0-9]* of [0-9]* seeds lose it, against what the packaged tree makes of their packaged form" <<<"$output"
		done
	done
	# The example that showed the defect is one of them: seed 199's minimal form is
	# CONFIG_EXT3_FS=y and CONFIG_EXT4DEV_FS_POSIX_ACL=y, without EXT4DEV_FS.
	shapes=$KBRANCH_WORK/carry/minimal/shapes
	grep -qx 'CONFIG_EXT3_FS=y' "$shapes/base/minimal/199"
	grep -qx 'CONFIG_EXT4DEV_FS_POSIX_ACL=y' "$shapes/base/minimal/199"
	run grep -q '^CONFIG_EXT4DEV_FS=' "$shapes/base/minimal/199"
	[ "$status" -eq 1 ]
	grep -qx "$(printf 'minimal jumped: - CONFIG_EXT4_FS_POSIX_ACL=y\t199')" "$shapes/differences.all"
}

# The ext4dev type both ways (v3's review): where a commit has it, a shape
# whose base form names an ext4dev option keeps it, and no other gets it.
# Two planted commits on the tip, one verify (about 8 minutes): the type on by default for
# every config (the widening), then, on top, EXT4DEV_FS without the default
# that keeps the savedefconfig form of an ext4dev-era config (EXT3_FS and
# an old ACL or security option) one of that era (the narrowing).
@test "shapes: the ext4dev type on for every config, and off for ext4dev-era minimal forms, are each caught at their commit" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a carried-minimal verify of two planted commits, about 8 minutes, past what CI's 90 minutes leave (KBRANCH_CI_FULL=1 runs it; ci/05-fast.bats judges the check on canned shapes)"
	local widened narrowed
	scratch_commit ext4-rename 'ext4: the compat type on for every config' \
		sed -i 's/^\tdefault y if EXT4DEV_FS != n$/\tdefault y/' fs/ext4/Kconfig
	widened=$(ktree rev-parse --short scratch)
	scratch_commit scratch 'ext4: EXT4DEV_FS without its default for old minimal configs' sh -c \
		"git checkout ext4-rename -- fs/ext4/Kconfig && sed -i '/^\tdefault EXT3_FS if EXT4DEV_FS_POSIX_ACL || EXT4DEV_FS_SECURITY\$/d' fs/ext4/Kconfig"
	narrowed=$(ktree rev-parse --short scratch)
	[ "$(ktree diff scratch~2 scratch~1 | grep -c '^+.*default y$')" -eq 1 ]
	[ "$(ktree diff scratch~2 scratch | grep -c '^-.*default EXT3_FS if')" -eq 1 ]
	run "$KBRANCH" verify --branch scratch --variant carried-minimal
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "^not ok [0-9]* - $widened .*\[carried-minimal\]" <<<"$output"
	grep -q "^not ok [0-9]* - $narrowed .*\[carried-minimal\]" <<<"$output"
	grep -q '^# minimal jumped: the ext4dev type is on, though the base form names no ext4dev option: [0-9]* of [0-9]* seeds do' <<<"$output"
	grep -q '^# minimal jumped: the ext4dev type is off, though the base form names an ext4dev option: [0-9]* of [0-9]* seeds do' <<<"$output"
	# Only the widening switches the type on where it does not belong; at
	# the narrowed commit, the jumped shapes only lose it.
	[ -z "$(sed -n "/^not ok [0-9]* - $narrowed /,\$p" <<<"$output" | grep 'jumped: the ext4dev type is on')" ]
}

@test "shapes: a commit whose old security option no longer selects the new one is caught by the random configs carried from the base" {
	full_only "a carried-minimal verify of a planted commit, about 3 minutes"
	scratch_commit ext4-rename 'ext4: EXT4DEV_FS_SECURITY stops selecting EXT4_FS_SECURITY' \
		sed -i '/^config EXT4DEV_FS_SECURITY$/,/^$/{/^\tselect EXT4_FS_SECURITY if EXT4_FS$/d}' fs/ext4/Kconfig
	ktree diff --quiet ext4-rename scratch && false
	run "$KBRANCH" verify --branch scratch --variant carried-minimal
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "^not ok [0-9]* - $(ktree rev-parse --short scratch) .*\[carried-minimal\]" <<<"$output"
	# A config stepped there names EXT4_FS_SECURITY=y itself since patch 3:
	# only the ones jumped from the base lose it.
	grep -q '^# random jumped: - CONFIG_EXT4_FS_SECURITY=y: [0-9]* of [0-9]* seeds lose it' <<<"$output"
	# The minimal config itself has no security labels: only the shapes see it.
	[ "$(grep '^# ' <<<"$output" | grep -vc -e ' seeds lose it' -e '^# ext4=y acl=n security=n$')" -eq 0 ]
}
