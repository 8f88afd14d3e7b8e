# shellcheck shell=bash
# Configuring and building outside bisect-tests/run (kbranch check,
# preflight, the carried configs), reusing bisect-tests' own config pipeline
# (fragments, merge_config.sh, declared expectations) so that a commit is
# configured the same way whoever builds it.

# The compiler choice is bisect-tests' too: one owner.
# shellcheck source=bisect-tests/lib/compiler.sh
source "$KB_REPO/bisect-tests/lib/compiler.sh"
# A CONFIG line's fields are read as a RESULT line's are.
# shellcheck source=bisect-tests/lib/verdict.sh
source "$KB_REPO/bisect-tests/lib/verdict.sh"

# Configure the checked-out commit of $KTREE like variant $1 of
# bisect-tests, in work dir $2: bisect-tests/run's own config pipeline,
# through its interface.  Its output but the CONFIG line (bt_where's).
bt_configure() {
	(cd "$KTREE" && KBRANCH_WORK=$2 "$KB_REPO/bisect-tests/run" --configure-only --variant "$1") |
		sed '/^CONFIG variant=/d'
}

# Where variant $1's .config, build dir and lock are in work dir $2, as
# the fields of bisect-tests/run's CONFIG line (config=, dir=, lock=):
# the layout is bisect-tests', never spelled here.
bt_where() {
	KBRANCH_WORK=$2 "$KB_REPO/bisect-tests/run" --where --variant "$1" | sed -n 's/^CONFIG //p'
}

# Field $3 (config, dir or lock) of variant $1 in work dir $2.
bt_where_field() {
	result_field "$(bt_where "$1" "$2")" "$3"
}

# Configure like variant $1 in work dir $2 (bt_configure, its output on
# stderr) and copy the .config made into file $3.
bt_config_into() {
	local config
	bt_configure "$1" "$2" >&2
	config=$(bt_where_field "$1" "$2" config)
	cp "$config" "$3"
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
	bt_where_field builtin "$KBRANCH_WORK" dir
}

# make in that build dir, under bisect-tests' lock for it, with the
# compiler bisect-tests would choose.
kbuild_make() {
	local dir lock
	compiler_choose ""
	dir=$(kbuild_dir)
	lock=$(bt_where_field builtin "$KBRANCH_WORK" lock)
	flock "$lock" make -C "$KTREE" O="$dir" ARCH=x86_64 CC="$CHOSEN_CC" HOSTCC="$CHOSEN_HOSTCC" -j"$(nproc)" "$@"
}

# One declared expectation of the checked-out commit: declared kconfig.
declared() {
	(cd "$KTREE" && "$KB_REPO/bisect-tests/run" --print-declared "$1")
}
