# shellcheck shell=bash
# Configuring and building outside bisect-tests/run (kbranch check,
# preflight, the carried configs), reusing bisect-tests' own config pipeline
# (fragments, merge_config.sh, declared expectations) so that a commit is
# configured the same way whoever builds it.

# Configure the checked-out commit of $KTREE like variant $1 of
# bisect-tests, in work dir $2 (build dir $2/build/$1): bisect-tests/run's
# own config pipeline, through its interface.
bt_configure() {
	(cd "$KTREE" && KBRANCH_WORK=$2 "$KB_REPO/bisect-tests/run" --configure-only --variant "$1")
}

# The symbols the checked-out commit builds ext4, ACL and security from.
used_symbols() {
	(cd "$KTREE" && "$KB_REPO/bisect-tests/run" --print-declared used-symbols)
}

# kbranch check and preflight build in the builtin variant's build dir:
# W=1 and C=2 only recompile the directories they are given, so sharing it
# saves a cold build, and ccache keeps the switches back cheap.
kbuild_configure() {
	bt_configure builtin "$KBRANCH_WORK"
}

kbuild_dir() {
	printf '%s/build/builtin\n' "$KBRANCH_WORK"
}

# ccache's depend mode, as bisect-tests uses it (bisect-tests/lib/build.sh
# says why): a miss costs the compile alone.  A CCACHE_DEPEND in the
# environment wins (and outranks a depend_mode in ccache.conf).
ccache_depend_mode() {
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
}

# make in that build dir, under bisect-tests' lock for it; CC honours the
# environment like bisect-tests.
kbuild_make() {
	local cc=${CC:-gcc}
	[ -n "${CC:-}" ] || ! command -v ccache >/dev/null || { cc="ccache gcc"; ccache_depend_mode; }
	flock "$KBRANCH_WORK/build/builtin.lock" \
		make -C "$KTREE" O="$(kbuild_dir)" ARCH=x86_64 CC="$cc" HOSTCC="${HOSTCC:-gcc}" -j"$(nproc)" "$@"
}

# One declared expectation of the checked-out commit: declared kconfig.
declared() {
	(cd "$KTREE" && "$KB_REPO/bisect-tests/run" --print-declared "$1")
}
