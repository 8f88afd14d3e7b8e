# shellcheck shell=bash
# Configuring and building outside bisect-tests/run (kbranch check,
# preflight, the carried configs), reusing bisect-tests' own config pipeline
# (fragments, merge_config.sh, declared expectations) so that a commit is
# configured the same way whoever builds it.

# The compiler choice is bisect-tests' too: one owner.
# shellcheck source=bisect-tests/lib/compiler.sh
source "$KB_REPO/bisect-tests/lib/compiler.sh"

# Configure the checked-out commit of $KTREE like variant $1 of
# bisect-tests, in work dir $2 (build dir $2/build/$1): bisect-tests/run's
# own config pipeline, through its interface.
bt_configure() {
	# Its CONFIG line (where the .config is) is for callers that read it.
	(cd "$KTREE" && KBRANCH_WORK=$2 "$KB_REPO/bisect-tests/run" --configure-only --variant "$1") |
		sed '/^CONFIG variant=/d'
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

# make in that build dir, under bisect-tests' lock for it, with the
# compiler bisect-tests would choose.
kbuild_make() {
	compiler_choose ""
	flock "$KBRANCH_WORK/build/builtin.lock" \
		make -C "$KTREE" O="$(kbuild_dir)" ARCH=x86_64 CC="$CHOSEN_CC" HOSTCC="$CHOSEN_HOSTCC" -j"$(nproc)" "$@"
}

# One declared expectation of the checked-out commit: declared kconfig.
declared() {
	(cd "$KTREE" && "$KB_REPO/bisect-tests/run" --print-declared "$1")
}
