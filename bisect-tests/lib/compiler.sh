# shellcheck shell=bash
# The one choice of compiler for every kernel build here: bisect-tests'
# points, kbranch check's and preflight's builds and the gate's cross
# builds.  bisect-tests/lib/build.sh and branch-scripts/lib/kbuild.sh source
# it, so a build's compiler, and the config key it enters, never differ by
# who builds.

# ccache's depend mode: a miss runs the compiler alone, where the default
# runs the preprocessor first to hash its output; kbuild's -MMD gives ccache
# the headers to key on.  Measured here (fs/ext4, cold cache, -j2): 26 s in
# depend mode, 32 to 42 s in the default, 24 to 38 s without ccache (the
# machine's speed varied that much between runs); hits alike.
# A CCACHE_DEPEND in the environment wins; a depend_mode in ccache.conf
# does not (ccache ranks the environment above its config files).
ccache_depend_mode() {
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
}

# Sets CHOSEN_CC and CHOSEN_HOSTCC for a build with cross prefix $1 (""
# for this machine's own architecture): the environment's CC and HOSTCC win,
# CC only for this machine's architecture; else gcc, behind ccache (in
# depend mode) when ccache is installed.  Variables, not output: the
# depend mode is exported into the caller's shell.
# shellcheck disable=SC2034 # CHOSEN_*: read by the caller
compiler_choose() {
	local cross=$1
	CHOSEN_HOSTCC=${HOSTCC:-gcc}
	if [ -z "$cross" ] && [ -n "${CC:-}" ]; then
		CHOSEN_CC=$CC
	elif command -v ccache >/dev/null; then
		CHOSEN_CC="ccache ${cross}gcc"
		ccache_depend_mode
	else
		CHOSEN_CC=${cross}gcc
	fi
}
