# shellcheck shell=bash
# kbranch's settings: every KBRANCH_* name it reads, with its default and
# why.  They come from the environment; kbranch's own globals are KB_*.
# Nothing in branch-scripts reads a KBRANCH_* name that is not here
# (ci/02-docs.bats checks), and every one is in docs/.

# The work dir: the kernel tree, builds, runs, notes' lock, the list.
: "${KBRANCH_WORK:=${XDG_CACHE_HOME:-$HOME/.cache}/kbranch}"
# The series' branch in the kernel tree.
: "${KBRANCH_BRANCH:=ext4-rename}"
# Points verify runs at once: a point spends half its time on one core
# (config, images, boots), so two keep both cores busy; more only queue.
: "${KBRANCH_JOBS:=$(nproc)}"
# 0: preflight leaves out the tip's build (its tests judge the rules alone).
: "${KBRANCH_PREFLIGHT_BUILD:=1}"
# The local list's ports on 127.0.0.1.
: "${KBRANCH_LIST_SMTP_PORT:=2525}"
: "${KBRANCH_LIST_HTTP_PORT:=8780}"
# The largest message the list takes (exim4's message_size_limit).
: "${KBRANCH_LIST_MAX_SIZE:=10M}"
# Debian's own amd64 config for this kernel (linux-config-6.1): the
# carried-debian source (kbranch rebase to another series moves it).
: "${KBRANCH_DEBIAN_CONFIG:=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}"
# 0: verify leaves out the Debian machines (variants of kind debian): they
# build nothing (they boot the variants' kernels), but each boots in 10 to
# 20 s under TCG, about ten a commit (ci/test sets 0 unless
# KBRANCH_CI_FULL=1, to stay within its 90 minutes).
: "${KBRANCH_VERIFY_DEBIAN:=1}"
# kbranch bot: how long an incomplete series is waited for before its one
# reply says what it lacks (the robot waits hours; tests say 0), how
# often a started bot reads the archive, and how long one command of a
# test (git am, checkpatch) may take before the series is an error.
: "${KBRANCH_BOT_WAIT:=3600}"
: "${KBRANCH_BOT_INTERVAL:=60}"
: "${KBRANCH_BOT_TIMEOUT:=600}"
# 1: the bot builds, boots and checks each series (bisect-tests/run, the
# builtin variant, in its own work dir); 0: apply and checkpatch only.
# A build may take KBRANCH_BOT_BUILD_TIMEOUT seconds (a first one is cold).
: "${KBRANCH_BOT_BUILD:=1}"
: "${KBRANCH_BOT_BUILD_TIMEOUT:=3600}"
export KBRANCH_WORK KBRANCH_BRANCH KBRANCH_DEBIAN_CONFIG
