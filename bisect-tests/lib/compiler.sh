# shellcheck shell=bash
# The one choice of compiler for every kernel build here: bisect-tests'
# points, kbranch check's and preflight's builds and the gate's cross
# builds.  bisect-tests/lib/build.sh and branch-scripts/lib/kbuild.sh source
# it, so a build's compiler, and the config key it enters, never differ by
# who builds.

# Never ccache's depend mode, whatever the environment or ccache.conf say:
# it keys arch/x86/boot/compressed/piggy.S on its text and the headers
# -MMD lists, not on the vmlinux.bin.gz it .incbin's, so two kernels whose
# compressed sizes agree got the first one's payload: a Debian machine
# booted the packaged kernel's bzImage (#63, 6.1.192) at the tip (6.1.192+).
# The default mode preprocesses, sees the .incbin and does not cache it.
# (Depend mode was faster on a miss: 26 s against 32 to 42 s for fs/ext4.)
# A namespace of its own: what depend mode stored stays in the cache, and
# direct mode would still find it (it did: a direct_cache_hit of #63).
ccache_preprocessor_mode() {
	unset CCACHE_DEPEND
	export CCACHE_NODEPEND=1 CCACHE_NAMESPACE=kbranch-no-depend
}

# Paths under the work dir are hashed relative to the build dir: every
# build dir sits at build/<name> beside linux/, so one work dir's compiles
# are found by another's (a fresh work dir, as CI makes every run, missed
# all of them: its absolute path was in every key) and by a sibling build
# dir's whose config leaves the file alone.  A base_dir of the caller's
# own wins.
ccache_relative_paths() {
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KBRANCH_WORK}
}

# Sets CHOSEN_CC and CHOSEN_HOSTCC for a build with cross prefix $1 (""
# for this machine's own architecture): the environment's CC and HOSTCC win,
# CC only for this machine's architecture; else gcc, behind ccache (never
# in depend mode) when ccache is installed.  Variables, not output: the
# mode is exported into the caller's shell.
# shellcheck disable=SC2034 # CHOSEN_*: read by the caller
compiler_choose() {
	local cross=$1
	CHOSEN_HOSTCC=${HOSTCC:-gcc}
	if [ -z "$cross" ] && [ -n "${CC:-}" ]; then
		CHOSEN_CC=$CC
	elif command -v ccache >/dev/null; then
		CHOSEN_CC="ccache ${cross}gcc"
		ccache_preprocessor_mode
		ccache_relative_paths
	else
		CHOSEN_CC=${cross}gcc
	fi
}
