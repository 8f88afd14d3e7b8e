#!/usr/bin/env bats
# Testers and compatibility: old configs survive, ext4dev keeps mounting,
# results travel with the commits.  Reads what 15-verify.bats left behind
# (needs_verified says so in a test that needs it); the rest makes its own.

load helpers

setup_file() {
	ensure_applied
}

@test "a .config made at ext4dev-base keeps ext4, ACL and security labels at every commit" {
	needs_verified
	local tap=$KBRANCH_CI_SCRATCH/verify.tap
	[ "$(grep -c '^ok .*\[oldconfig\] build=ok boot=ok checks=ok' "$tap")" -eq \
	  $(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 )) ]
	# The carried config, at the tip, still says so under the new names.
	# It is the module variant's config (Debian's ext4 family) made at the
	# base: ext4 a module, as the ext4dev-era Debian machine boots it.
	local carried=$KBRANCH_WORK/carry/oldconfig.config
	grep -qx 'CONFIG_EXT4_FS=m' "$carried"
	grep -qx 'CONFIG_EXT4_FS_POSIX_ACL=y' "$carried"
	grep -qx 'CONFIG_EXT4_FS_SECURITY=y' "$carried"
	# An old config keeps the ext4dev type its system mounts.
	grep -qx 'CONFIG_EXT4DEV_COMPAT=y' "$carried"
	# ... and it started with the old ones only.
	grep -qx 'CONFIG_EXT4DEV_FS=m' "$KBRANCH_WORK/carry/seed/build/module/.config"
	run grep -q '^CONFIG_EXT4_FS=' "$KBRANCH_WORK/carry/seed/build/module/.config"
	[ "$status" -eq 1 ]
}

@test "Debian's config with the base's names keeps ext4=m, ACL and security labels at every commit" {
	needs_verified
	local tap=$KBRANCH_CI_SCRATCH/verify.tap
	[ "$(grep -c '^ok .*\[carried-debian\] olddefconfig keeps ext4=m acl=y security=y, stepped and jumped' "$tap")" -eq \
	  $(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 )) ]
	grep -qx 'CONFIG_EXT4_FS=m' "$KBRANCH_WORK/carry/debian/stepped/.config"
	grep -qx 'CONFIG_EXT4_FS=m' "$KBRANCH_WORK/carry/debian/jumped/.config"
	grep -qx 'CONFIG_EXT4DEV_FS=m' "$KBRANCH_WORK/carry/debian/base.config"
}

@test "the module and minimal variants' base configs keep what they had at every commit" {
	needs_verified
	local tap=$KBRANCH_CI_SCRATCH/verify.tap commits
	commits=$(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 ))
	[ "$(grep -c '^ok .*\[carried-module\] olddefconfig keeps ext4=m acl=y security=y' "$tap")" -eq "$commits" ]
	[ "$(grep -c '^ok .*\[carried-minimal\] olddefconfig keeps ext4=y acl=n security=n' "$tap")" -eq "$commits" ]
}

@test "the carried-config check fails when a commit drops the old option" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a verify of a planted Kconfig, about 2 minutes, past what CI's 90 minutes leave on a slow day (KBRANCH_CI_FULL=1 runs it)"
	# A Kconfig that no longer knows EXT4DEV_FS: a config from the base that
	# jumps to this commit (a bisect's first step) loses ext4.
	ktree checkout -q -f -B lost-compat ext4-rename
	sed -i '/^config EXT4DEV_FS$/,/^$/d' "$KTREE/fs/ext4/Kconfig"
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -a -m 'ext4: drop the EXT4DEV_FS compatibility option'
	ktree checkout -q -f ext4-rename
	run "$KBRANCH" verify --branch lost-compat --variant carried-minimal
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq $(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 )) ]
	grep -q "^not ok [0-9]* - $(ktree rev-parse --short lost-compat) .*\[carried-minimal\]" <<<"$output"
	grep -q '^# jumped from the base it has ext4=n acl=n security=n, the base config had ext4=y acl=n security=n$' <<<"$output"
	ktree branch -q -D lost-compat
}

@test "every verdict is a git note keyed by tree, variant, tests version and toolchain" {
	needs_verified
	local tip tree tools
	tip=$(ktree rev-parse ext4-rename)
	tree=$(ktree rev-parse "ext4-rename^{tree}")
	tools="gcc-$(gcc -dumpfullversion),qemu-[0-9.]*,busybox-[0-9.]*"
	run ktree notes --ref=kbranch show "$tip"
	[ "$status" -eq 0 ]
	grep -q "^kbranch-verify tree=$tree variant=builtin tests=[0-9a-f]* tools=$tools verdict=good " <<<"$output"
	# A carried config's verdict also names the chain of trees it came along.
	grep -q "^kbranch-verify tree=$tree variant=carried-debian tests=[0-9a-f]* tools=$tools verdict=good chain=[0-9a-f]\{16\} " <<<"$output"
}

@test "a warm re-run of the whole matrix runs nothing: every point passed before with these tests and tools" {
	needs_verified
	run "$KBRANCH" verify
	echo "$output"
	[ "$status" -eq 0 ]
	local commits planned refs per_commit want_refs debian carried
	commits=$(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 ))
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$output")
	refs=$(grep -c '^ok [0-9]* - packaged/.* reference recorded before' <<<"$output")
	# Every point reused: the references and variants the registry names
	# (the Debian machines' points keyed by their image and trees too).
	read -r per_commit want_refs debian carried < <(registry_counts)
	[ "$(grep -c '^ok .* passed before with these tests' <<<"$output")" -eq $((planned - refs)) ]
	[ "$refs" -eq "$want_refs" ]
	[ "$planned" -eq $((want_refs + commits * per_commit)) ]
	[ "$(grep -c '^ok .* passed before with these tests, in the same Debian image' <<<"$output")" -eq $((commits * debian)) ]
	# oldconfig and the carried configs too, keyed by their chain of trees
	[ "$(grep -c '^ok .* passed before with these tests, carried along the same commits' <<<"$output")" -eq $((commits * carried)) ]
	[ "$(grep -c 'build=' <<<"$output")" -eq 0 ]
}

@test "--rerun runs the series again and keeps a reference recorded with these tests and tools" {
	needs_verified
	# On a branch that is just the base: one point, not the whole series.
	ktree branch -f rerun-base ext4dev-base
	run "$KBRANCH" verify --rerun --variant minimal --branch rerun-base 2> >(sed -u 's/^/# /' >&3)
	ktree branch -q -D rerun-base
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^ok 1 - packaged/.* \[minimal\] reference recorded before' <<<"$output"
	grep -q '^ok 2 - .* \[minimal\] build=ok boot=ok checks=ok' <<<"$output"
	[ "$(grep -c 'passed before' <<<"$output")" -eq 0 ]
}

# The series with its first patch amended (a comment added), then commits
# with the trees of the series' second and third: those trees passed, but
# not along this chain.  (A branch's last commit is checked as a tip, a key
# of its own: the one under test is the inner one.)
make_detour_branch() {
	local c subject parent tree
	ktree checkout -q -f -B detour "$(patch_rev 1)"
	echo '# an amended first patch: no option changes' >>"$KTREE/fs/ext4/Kconfig"
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -a --amend --no-edit
	parent=$(ktree rev-parse detour)
	ktree checkout -q -f ext4-rename
	for c in "$(patch_rev 2)" "$(patch_rev 3)"; do
		subject=$(ktree log -1 --format=%s "$c")
		tree=$(ktree rev-parse "$c^{tree}")
		parent=$(ktree -c user.name=ci -c user.email=ci@localhost commit-tree "$tree" -p "$parent" -m "$subject")
	done
	ktree branch -f detour "$parent"
}

@test "a carried config's verdict is reused only along the same chain of trees" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a verify of a detour branch, about 3 minutes, past what CI's 90 minutes leave on a slow day (KBRANCH_CI_FULL=1 runs it)"
	needs_verified
	make_detour_branch
	[ "$(ktree rev-parse 'detour~1^{tree}')" = "$(ktree rev-parse "$(patch_rev 2)^{tree}")" ]
	run "$KBRANCH" verify --variant carried-minimal --branch detour
	ktree branch -q -D detour
	echo "$output"
	[ "$status" -eq 0 ]
	# the base: the same chain, not run again
	grep -q '^ok 1 - .* \[carried-minimal\] passed before with these tests, carried along' <<<"$output"
	# the amended patch, and the commit after it, whose tree passed on ext4-rename
	grep -q '^ok 2 - .* \[carried-minimal\] olddefconfig keeps' <<<"$output"
	grep -q '^ok 3 - .* \[carried-minimal\] olddefconfig keeps' <<<"$output"
	[ "$(grep -c 'passed before' <<<"$output")" -eq 1 ]
}

# Kconfig only, on the x86 and um defconfigs (the full run: README).
@test "defconfigs: made at the tip, or at ext4dev-base and carried there, each equals the packaged tree's result; a re-run makes none again" {
	local before
	before=$(tree_state)
	run "$KBRANCH" defconfigs --arch x86_64 --arch i386 --arch um
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ok [0-9]* - arch/.*equals the packaged tree.*it equals the tip'"'"'s$' <<<"$output")" -eq 4 ]
	[ "$(tree_state)" = "$before" ]
	# Results are kept by tree: nothing changed, no Kconfig run.  (The next
	# test changes the tip, and its results are made again.)
	run "$KBRANCH" defconfigs --arch x86_64 --arch i386 --arch um
	[ "$status" -eq 0 ]
	# Four roles, and two for each commit between the base and the tip.
	[ "$(grep -c 'results kept from an earlier run' <<<"$output")" -eq $((4 + 2 * ($(series_length) - 1))) ]
	[ "$(grep -c 'Kconfig runs (' <<<"$output")" -eq 0 ]
}

# Patch 2's plain "default y" left at the tip (v1's finding in v3's
# terms): a defconfig made at the tip, which never named ext4dev, switches
# the compat type on; and a tip defconfig that drops an ext4 line is
# caught too.
@test "defconfigs: a tip defconfig that gains the compat type, or one that loses ACLs, is caught with its line" {
	full_only "the defconfigs of a planted branch, about 2 minutes"
	scratch_commit ext4-rename 'ext4: the compat type on for every config, and i386 loses ACLs' sh -c \
		"sed -i 's/^\tdefault y if EXT4DEV_FS != n\$/\tdefault y/' fs/ext4/Kconfig &&
		 grep -qP '^\tdefault y\$' fs/ext4/Kconfig &&
		 sed -i '/^CONFIG_EXT4_FS_POSIX_ACL=y\$/d' arch/x86/configs/i386_defconfig"
	ktree checkout -q -f ext4-rename
	run "$KBRANCH" defconfigs --branch scratch --arch x86_64 --arch i386
	ktree branch -q -D scratch
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^not ok [0-9]* - arch/x86/configs/x86_64_defconfig (ARCH=x86_64) differs' <<<"$output"
	grep -qx '# tip: + CONFIG_EXT4DEV_COMPAT=y' <<<"$output"
	grep -qx '# tip: - CONFIG_EXT4_FS_POSIX_ACL=y' <<<"$output"
}

# v3 of the series, from this repository's history: its patch 1 made
# EXT4_FS select EXT4DEV_FS and its patches 2 and 3 defaulted the ext4dev
# type to y, so a defconfig of the ext4 era made at any of them kept the
# type at the tip (v3's review, R1).
V3_COMMIT=b3c1e0e
@test "defconfigs: v3, where a defconfig made at patches 1 to 3 keeps the ext4dev type at the tip, is caught with its lines" {
	local f
	ktree checkout -q -f -B v3 'ext4dev-base^{commit}'
	for f in $(git -C "$REPO" show "$V3_COMMIT:series.txt" | grep -v '^#' | grep .); do
		git -C "$REPO" show "$V3_COMMIT:patches/$f" | ktree -c user.name=ci -c user.email=ci@localhost am -q
	done
	run "$KBRANCH" defconfigs --branch v3 --arch x86_64
	ktree checkout -q -f ext4-rename
	ktree branch -q -D v3
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q '^not ok [0-9]* - arch/x86/configs/x86_64_defconfig (ARCH=x86_64) differs' <<<"$output"
	grep -qx '# made at patch 1: + CONFIG_EXT4DEV_FS=y' <<<"$output"
	grep -qx '# made at patch 2: + CONFIG_EXT4DEV_COMPAT=y' <<<"$output"
	grep -qx '# made at patch 3: + CONFIG_EXT4DEV_COMPAT=y' <<<"$output"
}

@test "kbranch results prints the commit x variant table from the notes" {
	needs_verified
	run "$KBRANCH" results
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^$(ktree rev-parse --short ext4-rename) .*\( good *\)\{7\}$" <<<"$output"
}
