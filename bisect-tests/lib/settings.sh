# shellcheck shell=bash
# bisect-tests/run's settings: every KBRANCH_* name it reads, with its
# default and why.  They come from the environment (git bisect run passes
# it through); nothing else in bisect-tests reads a KBRANCH_* name that is
# not here (ci/02-docs.bats checks), and every one is in docs/tester.md.

# Builds, runs, images and caches: one dir per user, outside any tree.
: "${KBRANCH_WORK:=${XDG_CACHE_HOME:-$HOME/.cache}/kbranch}"
# A declaration that replaces the expectations table's for HEAD (tests,
# and a tester whose commits this branch does not declare); empty: none.
: "${KBRANCH_EXPECT:=}"
# The tester's .config that a carried variant takes through olddefconfig;
# empty: its reference's config made at ext4dev-base (lib/config.sh).
: "${KBRANCH_OLDCONFIG:=}"
# Seconds a boot may take before it is a hang: a TCG boot that mounts ext4
# takes about 2 s, a Debian machine under 60; a loaded machine ten times.
: "${KBRANCH_BOOT_TIMEOUT:=120}"
# 1: QEMU with KVM; 0: TCG, which every machine has.
: "${KBRANCH_KVM:=0}"
# The series' branch: with HEAD on it, the series' files are those of the
# whole range up to its tip (a bisect's bad end comes first).
: "${KBRANCH_BRANCH:=ext4-rename}"
# Tests only: N % of boot attempts fail as a broken machine does, or
# "first" (each boot's first attempt); 0: none.
: "${KBRANCH_FAULT_QEMU:=0}"
# Debian's own amd64 config for this kernel (linux-config-6.1), the ext4
# family the Debian machines take (kbranch rebase to another series of
# linux-source moves it).
: "${KBRANCH_DEBIAN_CONFIG:=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}"

# Each setting as the tools can take it, checked before anything runs: a
# timeout that is no number makes timeout(1) exit 125 at every boot, and a
# work dir with a space or a colon breaks make's O= and every tool given a
# path in it; failures a bisect would read as the commit's.  128 instead.
settings_check() {
	[[ "$KBRANCH_BOOT_TIMEOUT" =~ ^[1-9][0-9]{0,5}$ ]] ||
		die_setup "KBRANCH_BOOT_TIMEOUT must be a number of seconds (1 to 999999), not '$KBRANCH_BOOT_TIMEOUT'"
	[[ "$KBRANCH_KVM" =~ ^[01]$ ]] ||
		die_setup "KBRANCH_KVM must be 0 or 1, not '$KBRANCH_KVM'"
	[[ "$KBRANCH_FAULT_QEMU" =~ ^([0-9]|[1-9][0-9]|100|first)$ ]] ||
		die_setup "KBRANCH_FAULT_QEMU must be a percentage (0 to 100) or 'first', not '$KBRANCH_FAULT_QEMU'"
	[[ "$KBRANCH_WORK" == /* ]] ||
		die_setup "KBRANCH_WORK must be an absolute path, not '$KBRANCH_WORK'"
	[[ "$KBRANCH_WORK" != *[[:space:]:\\\$\#\'\"]* ]] ||
		die_setup "KBRANCH_WORK '$KBRANCH_WORK' has a character make and the tools cannot take in a path (a space, : \\ \$ # ' or \")"
}
