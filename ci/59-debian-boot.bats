#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr: set by bats' run
# Debian 12 machines booted through the series:
# the variants of kind debian, each the kernel of the variant its trait
# kernel= names, installed the Debian way in the machines of its scenario
# files (bisect-tests/debian/scenarios), judged by their expect lines.
# Costs (bisect-tests/debian/README): a Debian boot is 10 to 20 s under
# TCG; a point is its kernel's make (nothing to do where that variant
# built it) plus about 10 s of install per machine.

load helpers

RUN=$REPO/bisect-tests/run
DEBIAN_VARIANTS=(debian-ext4dev debian-ext4dev-builtin debian-ext4)

# The tests check commits out detached; the next file finds the branch
# checked out, as the others leave it.
teardown() {
	ktree checkout -q -f ext4-rename
}

# bisect-tests/run for the given variants at the kernel tree's HEAD;
# progress as comments.
bt_run() {
	local v args=()
	for v in "$@"; do args+=(--variant "$v"); done
	# debian-ext4dev boots oldconfig's kernel: the module variant's config
	# made at the base (kbranch verify's seed), carried to HEAD.
	# shellcheck disable=SC2016 # expanded by the inner bash
	run --separate-stderr env KBRANCH_OLDCONFIG="$KBRANCH_WORK/carry/seed/module.config" \
		bash -c 'cd "$1" && shift && "$@"' _ "$KTREE" "$RUN" "${args[@]}"
	printf '%s\n' "$stderr" | grep -E '^\[ *[0-9]+s\]|^bisect-tests: ' | sed 's/^/# /' >&3
}

# The scenarios a variant boots, from the registry.
scenarios_of() {
	"$RUN" --list-variants | awk -v v="$1" '$1 == v { print $4 }' | tr ',' '\n' | sed -n 's/^scenario=//p'
}

@test "every debian variant's scenarios declare each machine at every step of the series and the packaged tree" {
	local v scen machine step steps
	steps=$(sed -n 's/.* step=\([a-z0-9]*\).*/\1/p' "$REPO/bisect-tests/expectations")
	# One per commit: the packaged import, the fixture and the series.
	[ "$(wc -w <<<"$steps")" -eq "$(($(series_length) + 2))" ]
	for v in "${DEBIAN_VARIANTS[@]}"; do
		"$RUN" --list-variants | grep -q "^$v debian "
		[ -n "$(scenarios_of "$v")" ]
		for scen in $(scenarios_of "$v"); do
			for machine in $(sed -n 's/^machine \([a-z0-9-]*\) .*/\1/p' "$REPO/bisect-tests/debian/scenarios/$scen"); do
				for step in $steps; do
					awk -F' *[|] *' -v m="$machine" -v s="$step" '
						$1 ~ /^expect / && $2 == m { st = $1; sub(/^expect +/, "", st); if (index("," st ",", "," s ",")) f = 1 }
						END { exit !f }' "$REPO/bisect-tests/debian/scenarios/$scen" ||
						{ echo "$scen: no expect line for $machine at step $step"; return 1; }
				done
			done
		done
	done
}

@test "module.config is Debian's ext4 family, as linux-config-6.1 ships it" {
	local family='CONFIG_(EXT[234]|EXT4DEV|JBD2|FS_MBCACHE|FS_POSIX_ACL)[A-Z0-9_]*'
	diff <(xz -dc /usr/src/linux-config-6.1/config.amd64_none_amd64.xz | grep -E "^(# )?${family}[= ]") \
		<(grep -v '^# [^C]' "$REPO/bisect-tests/configs/module.config" | grep -vx '#')
}

# A tester who bisects with the ext4dev-era machine by hand (git bisect
# run bisect-tests/run --variant debian-ext4dev) gives no config: the
# kernel it boots is then the module variant's config made at the base
# and carried, the same as verify's (which gives its seed).
@test "without KBRANCH_OLDCONFIG, the ext4dev-era machine's kernel is the module config made at ext4dev-base and carried: verify's, made in a worktree of the base" {
	needs_verified
	ensure_applied
	local own=$BATS_TEST_TMPDIR/work config
	ktree checkout -q --detach ext4-rename
	mkdir -p "$own"
	# shellcheck disable=SC2016 # expanded by the inner bash
	run --separate-stderr env -u KBRANCH_OLDCONFIG KBRANCH_WORK="$own" \
		bash -c 'cd "$1" && shift && "$@"' _ "$KTREE" "$RUN" --configure-only --variant debian-ext4dev
	echo "$output" "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"debian-ext4dev: no KBRANCH_OLDCONFIG: carrying oldconfig's reference config made at ext4dev-base"* ]]
	config=$(sed -n 's/^CONFIG variant=debian-ext4dev config=\([^ ]*\) .*/\1/p' <<<"$output")
	[ "$config" = "$own/build/oldconfig/.config" ]
	# Made at the base, in its names, from the module variant's fragment.
	grep -qx 'CONFIG_EXT4DEV_FS=m' "$own"/carry-seed/*.config
	# Carried to the tip, the ext4 family and the compat type are verify's.
	diff <(grep -E '^(# )?CONFIG_(EXT[234]|EXT4DEV|JBD2|FS_MBCACHE)' "$config") \
		<(grep -E '^(# )?CONFIG_(EXT[234]|EXT4DEV|JBD2|FS_MBCACHE)' "$KBRANCH_WORK/build/oldconfig/.config")
	grep -qx 'CONFIG_EXT4DEV_COMPAT=y' "$config"
	# The base's worktree is the work dir's, and the tree is left at the tip.
	[ "$(ktree rev-parse HEAD)" = "$(ktree rev-parse ext4-rename)" ]
	[ "$(git -C "$own/carry-seed/base-tree" rev-parse HEAD)" = "$(ktree rev-parse "ext4dev-base^{commit}")" ]
	ktree worktree remove --force "$own/carry-seed/base-tree"
}

# The ext4dev-era machine, which v2 left in the initramfs shell, at the
# tip, and the same check failing on a commit that drops the ext4dev type
# (the check can fail).  The machines boot the oldconfig variant's
# kernel, which ci/15-verify.bats's verify left built at the tip: the
# image and four machines' boots, a few minutes.
@test "at the tip the ext4dev-era Debian machines boot and mount what says ext4dev, and are told to mount as ext4: Debian 12's initramfs, klibc 1.5.3's and 1.5.15's fstype, dracut" {
	needs_verified
	ensure_applied
	ktree checkout -q --detach ext4-rename
	bt_run debian-ext4dev
	[ "$status" -eq 0 ] || { printf '%s\n' "$output" "$stderr"; return 1; }
	grep -q 'RESULT variant=debian-ext4dev build=ok boot=ok checks=ok .*verdict=good' <<<"$output"
	grep -q 'ext4dev-era/upgraded: root=ext4dev data=ext4dev modules=ok failed=none' <<<"$stderr"
	# The era's initramfs probes: klibc 1.5.3's fstype (ext4dev), 1.5.15's
	# (ext4, from modules.dep), dracut (libblkid's ext4dev); fsck finds no
	# checker for the flagged root either way.
	grep -q 'era-probes/klibc153: root=ext4dev data=ext4dev modules=ok failed=none fsck=missing' <<<"$stderr"
	grep -q 'era-probes/klibc1515: root=ext4 data=ext4dev modules=ok failed=none fsck=missing' <<<"$stderr"
	grep -q 'era-probes/dracut: root=ext4dev data=ext4dev modules=ok failed=none' <<<"$stderr"
}

@test "a commit that drops the ext4dev type is bad for each ext4dev-era machine, with the initramfs's own lines" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "rebuilds ext4 in the oldconfig variant and boots the ext4dev-era machines twice each, several minutes (KBRANCH_CI_FULL=1 runs it)"
	ensure_applied
	scratch_commit ext4-rename "ci: the ext4dev type is gone" \
		sed -i 's/^\(\t\.name\t*= \)"ext4dev",$/\1"ext4dev-gone",/' fs/ext4/super.c
	[ "$(ktree diff HEAD^ --stat | wc -l)" -gt 1 ]
	bt_run debian-ext4dev
	[ "$status" -eq 1 ]
	grep -q 'ext4dev-era/upgraded at step 4: root=ext4dev/ext4 declared, seen: root not mounted: the initramfs shell' <<<"$stderr"
	grep -q 'era-probes/klibc153 at step 4: root=ext4dev declared, seen: root not mounted: the initramfs shell' <<<"$stderr"
	grep -q 'era-probes/klibc1515 at step 4: data=ext4dev/ext4 declared, seen: fstab /srv/data ext4dev: failed' <<<"$stderr"
	grep -q "era-probes/dracut at step 4: root=ext4dev declared, seen: root not mounted: dracut's emergency shell" <<<"$stderr"
	grep -q 'mount: mounting /dev/vda on /root failed: No such device' <<<"$stderr"
	grep -q 'booting again to confirm' <<<"$stderr"
	grep -q 'RESULT variant=debian-ext4dev build=ok boot=fail .* verdict=bad' <<<"$output"
	ktree checkout -q --detach ext4-rename
}

@test "at ext4dev-base every Debian machine holds what its scenario declares" {
	# The three kernels the machines boot, built again at the base, and
	# every machine booted: past what CI's 90 minutes leave.
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "builds the module, oldconfig and builtin kernels at the base and boots every Debian machine, over 10 minutes (KBRANCH_CI_FULL=1 runs it)"
	ensure_applied
	ktree checkout -q --detach ext4dev-base
	bt_run "${DEBIAN_VARIANTS[@]}"
	[ "$status" -eq 0 ] || { printf '%s\n' "$output" "$stderr"; return 1; }
	[ "$(grep -c 'verdict=good' <<<"$output")" -eq 3 ]
}

@test "at the tip every Debian machine holds what its scenario declares" {
	# Every machine of the three variants, on verify's builds at the tip:
	# the ext4dev-era ones are booted in every run, above.
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "boots every Debian machine at the tip, about 10 machines, several minutes (KBRANCH_CI_FULL=1 runs it)"
	ensure_applied
	ktree checkout -q --detach ext4-rename
	bt_run "${DEBIAN_VARIANTS[@]}"
	[ "$status" -eq 0 ] || { printf '%s\n' "$output" "$stderr"; return 1; }
}
