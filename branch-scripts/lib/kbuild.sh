# shellcheck shell=bash
# Configuring and building outside bisect-tests/run (kbranch check,
# preflight, the carried configs), reusing bisect-tests' own config pipeline
# (fragments, merge_config.sh, declared expectations) so that a commit is
# configured the same way whoever builds it.

# Configure the checked-out commit of $KTREE like variant $1 of
# bisect-tests, in work dir $2 (build dir $2/build/$1).
bt_configure() {
	KBRANCH_WORK=$2 bt_configure_here "$1"
}

# Load bisect-tests' stages for the checked-out commit of $KTREE.  Only in
# a subshell: the stages set globals of their own.
bt_load() {
	cd "$KTREE" || exit 128
	KTREE_DIR=$KTREE
	# shellcheck source=/dev/null # bisect-tests/lib/common.sh: its KBRANCH_WORK default is for its own subshell
	. "$KBRANCH_REPO/bisect-tests/lib/common.sh"
	# shellcheck source=bisect-tests/lib/expect.sh
	. "$KBRANCH_REPO/bisect-tests/lib/expect.sh"
	# shellcheck source=bisect-tests/lib/config.sh
	. "$KBRANCH_REPO/bisect-tests/lib/config.sh"
	# shellcheck source=bisect-tests/lib/build.sh
	. "$KBRANCH_REPO/bisect-tests/lib/build.sh"
	expect_load
}

bt_configure_here() (
	bt_load
	build_compilers
	mkdir -p "$(run_dir "$1")"
	config_generate "$1" && config_check "$1"
)

# The symbols the checked-out commit builds ext4, ACL and security from.
used_symbols() (
	bt_load
	printf '%s %s %s\n' "$(used_symbol fs)" "$(used_symbol acl)" "$(used_symbol sec)"
)

# kbranch check and preflight build in the builtin variant's build dir:
# W=1 and C=2 only recompile the directories they are given, so sharing it
# saves a cold build, and ccache keeps the switches back cheap.
kbuild_configure() {
	bt_configure builtin "$KBRANCH_WORK"
}

kbuild_dir() {
	printf '%s/build/builtin\n' "$KBRANCH_WORK"
}

# make in that build dir, under bisect-tests' build lock; CC honours the
# environment like bisect-tests.
kbuild_make() {
	local cc=${CC:-gcc}
	[ -n "${CC:-}" ] || ! command -v ccache >/dev/null || cc="ccache gcc"
	flock "$KBRANCH_WORK/build/lock" \
		make -C "$KTREE" O="$(kbuild_dir)" ARCH=x86_64 CC="$cc" HOSTCC="${HOSTCC:-gcc}" -j"$(nproc)" "$@"
}

# One declared expectation of the checked-out commit: declared kconfig.
declared() (
	bt_load
	expect "$1"
)
