#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr, $status, $output: set by bats' run
# The verifier sees what a linux-ext4 reviewer sees.  Each check is shown
# failing on a scratch commit that undoes one point of the v2 review (the
# defects v1 had), with the packaged kernel as the reference.  Reads the
# references that 15-verify.bats recorded.  v1's base, which refused ext2
# and ext3 roots, is judged in the fast tier on its real console
# (ci/canned/root-ext2-v1-base.console): a kernel build less here.

load helpers

setup_file() {
	ensure_applied
}

teardown() {
	ktree checkout -q -f ext4-rename
	ktree branch -q -D scratch 2>/dev/null || true
}

run_here() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	run --separate-stderr bash -c 'cd "$0" && "$1"/bisect-tests/run "${@:2}"' "$KTREE" "$REPO" "$@"
	printf '%s\n' "$stderr" | grep -E 'root |differs|not ok|verdict|failed' | sed 's/^/# /' >&3 || true
}

@test "ext4dev registered before ext4 (v1's order): the root probe and the packaged reference both say bad" {
	# shellcheck disable=SC2016 # perl code
	scratch_commit ext4-rename 'ext4: register ext4dev before ext4' perl -0pi -e \
		's/(\terr = register_filesystem\(&ext4_fs_type\);\n\tif \(err\)\n\t\tgoto out;\n)\tregister_as_ext4dev\(\);\n/\tregister_as_ext4dev();\n$1/' \
		fs/ext4/super.c
	ktree diff --quiet ext4-rename scratch && false
	run_here --variant builtin --against-packaged
	[ "$status" -eq 1 ]
	[[ "$output" == *"verdict=bad"* ]]
	[[ "$stderr" == *"root testfs: mounted as ext4dev, declared ext4"* ]]
	[[ "$stderr" == *"types registered as ext3,ext2,ext4dev,ext4, declared ext3,ext2,ext4,ext4dev"* ]]
	[[ "$stderr" == *"differs from packaged/"*"+ root-testfs: ext4dev"* ]]
}

# The modular kernel with the compat type is oldconfig's: the module
# variant's config made at the base and carried (verify's seed), as the
# ext4dev-era Debian machine boots it.
@test "without the ext4dev MODULE_ALIAS, modprobe ext4dev fails and the oldconfig variant (ext4 a module, carried from the base) says bad" {
	needs_verified
	scratch_commit ext4-rename 'ext4: drop the ext4dev module alias' \
		sed -i '/^MODULE_ALIAS("ext4dev");$/d' fs/ext4/super.c
	ktree diff --quiet ext4-rename scratch && false
	KBRANCH_OLDCONFIG=$KBRANCH_WORK/carry/seed/module.config run_here --variant oldconfig --against-packaged
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"not ok "*"modprobe_by_the_compat_name_loads_the_module"* ]]
}

# v1's finding in v3's terms: patch 2's plain "default y" left at the
# tip switches the compat type on in a config that never named ext4dev.
@test "EXT4DEV_COMPAT on by default at the tip: Debian's config made fresh there gains it against the packaged tree" {
	scratch_commit ext4-rename 'ext4: the compat type on for every config' \
		sed -i 's/^\tdefault y if EXT4DEV_FS != n$/\tdefault y/' fs/ext4/Kconfig
	ktree diff --quiet ext4-rename scratch && false
	run "$KBRANCH" verify --branch scratch --variant carried-debian
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q "^not ok [0-9]* - $(ktree rev-parse --short scratch) .*\[carried-debian\]" <<<"$output"
	grep -q "^# made fresh at the tip, it differs from the debian config made at the packaged tree, not in compat-differences: 'debian made fresh: + CONFIG_EXT4DEV_COMPAT=y'" <<<"$output"
	# nothing else: the listed lines count at a scratch commit on the tip too
	[ "$(grep -c 'made at the packaged tree' <<<"$output")" -eq 1 ]
}
