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
# empty: a carried variant is a setup error.
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
