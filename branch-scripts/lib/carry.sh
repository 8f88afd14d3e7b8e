# shellcheck shell=bash
# Configs carried through the series the way a tester carries theirs: made
# at ext4dev-base with the old names, then "make olddefconfig" at every
# commit.  Checked under the names each commit's build tests (declared by
# uses= in bisect-tests/expectations).  Kconfig runs through lib/kconfig.sh,
# which the caller sources too.
#
# Kconfig-only carried configs, verify's carried-<source> variants: a
# config made at ext4dev-base with the old names, taken to each commit with
# "make olddefconfig" both ways a tester gets there: stepped (from the
# previous commit's result, as when one builds commit after commit) and
# jumped (straight from the base, as the first step of a git bisect does).
# Each must keep what the base config had for ext4, ACL and security labels.
# The sources: Debian's own config and the module and minimal variants'.
#
# One file per job, in the order a point uses them: config (make them),
# check (take them to a commit and judge them), state (keep them per
# chain of trees), packaged (the packaged tree's answer at the tip).

# What compat-differences allows: bisect-tests' one reader of it.
# shellcheck source=bisect-tests/lib/compat.sh
source "$KB_REPO/bisect-tests/lib/compat.sh"
# shellcheck source=branch-scripts/lib/carry-config.sh
source "$KB_REPO/branch-scripts/lib/carry-config.sh"
# shellcheck source=branch-scripts/lib/carry-check.sh
source "$KB_REPO/branch-scripts/lib/carry-check.sh"
# shellcheck source=branch-scripts/lib/carry-state.sh
source "$KB_REPO/branch-scripts/lib/carry-state.sh"
# shellcheck source=branch-scripts/lib/carry-packaged.sh
source "$KB_REPO/branch-scripts/lib/carry-packaged.sh"
