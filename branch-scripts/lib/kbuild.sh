# shellcheck shell=bash
# Builds for kbranch check, reusing bisect-tests' config pipeline (fragments,
# merge_config.sh, declared expectations) so that a commit is configured the
# same way whoever builds it.  Runs in a subshell: the stages set globals.

# Configure the checked-out commit of $KTREE like the builtin variant, in a
# build dir of its own under $KBRANCH_WORK/check.
kbuild_configure() (
	cd "$KTREE" || exit 128
	KTREE_DIR=$KTREE
	# shellcheck disable=SC2030 # meant: only this subshell builds under check/
	KBRANCH_WORK=$KBRANCH_WORK/check
	# shellcheck source=bisect-tests/lib/common.sh
	. "$KBRANCH_REPO/bisect-tests/lib/common.sh"
	# shellcheck source=bisect-tests/lib/expect.sh
	. "$KBRANCH_REPO/bisect-tests/lib/expect.sh"
	# shellcheck source=bisect-tests/lib/config.sh
	. "$KBRANCH_REPO/bisect-tests/lib/config.sh"
	# shellcheck source=bisect-tests/lib/build.sh
	. "$KBRANCH_REPO/bisect-tests/lib/build.sh"
	expect_load
	build_compilers
	mkdir -p "$(run_dir builtin)"
	config_generate builtin && config_check builtin
)

kbuild_dir() {
	# shellcheck disable=SC2031 # the parent's KBRANCH_WORK is the one wanted
	printf '%s/check/build/builtin\n' "$KBRANCH_WORK"
}

# make in the check build dir; CC honours the environment like bisect-tests.
kbuild_make() {
	local cc=${CC:-gcc}
	[ -n "${CC:-}" ] || ! command -v ccache >/dev/null || cc="ccache gcc"
	make -C "$KTREE" O="$(kbuild_dir)" CC="$cc" HOSTCC="${HOSTCC:-gcc}" -j"$(nproc)" "$@"
}
