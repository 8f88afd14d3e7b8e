# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # VERSION is for the .bats files; status and stderr are set by bats' run
# Shared by the ci/*.bats files: where things are, and helpers that keep
# each test reading like a sentence.

bats_require_minimum_version 1.5.0

REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
KBRANCH=$REPO/branch-scripts/kbranch
: "${KBRANCH_WORK:?ci/test sets KBRANCH_WORK}"
: "${KBRANCH_CI_SCRATCH:=$BATS_RUN_TMPDIR}"
KTREE=$KBRANCH_WORK/linux
VERSION=$(cat "$REPO/base/linux-source.version")

ktree() {
	git -C "$KTREE" "$@"
}

# Everything about the kernel tree that a failed command must not change.
tree_state() {
	{
		ktree rev-parse HEAD
		ktree symbolic-ref -q HEAD || echo detached
		ktree for-each-ref --format='%(refname) %(objectname)' refs/heads refs/tags
		ktree status --porcelain
	} 2>&1
}

# A private copy of this repository, so a test may break its series.
repo_copy() {
	local dest=$KBRANCH_CI_SCRATCH/repo.$BATS_TEST_NUMBER.$RANDOM
	mkdir -p "$dest"
	cp -a "$REPO/branch-scripts" "$REPO/base" "$REPO/patches" "$REPO/series.txt" "$REPO/cover-letter.txt" "$dest/"
	[ ! -d "$REPO/bisect-tests" ] || cp -a "$REPO/bisect-tests" "$dest/"
	printf '%s\n' "$dest"
}

# Fails unless the command fails with exactly one line of error on stderr
# (progress lines, "[  12s] ...", are not errors).
must_fail_with_one_line() {
	run --separate-stderr "$@"
	[ "$status" -ne 0 ] || { echo "succeeded: $*"; return 1; }
	[ "$(printf '%s\n' "$stderr" | grep -vcE '^$|^\[ *[0-9]+s\] ')" -eq 1 ] || {
		echo "expected one line of error, got:"; printf '%s\n' "$stderr"; return 1; }
}

ensure_applied() {
	[ -d "$KTREE/.git" ] || "$KBRANCH" import 2>&1 | sed "s/^/# /" >&3
	ktree rev-parse -q --verify refs/heads/ext4-rename >/dev/null || "$KBRANCH" apply 2>&1 | sed "s/^/# /" >&3
}

# What verify runs, counted from the registry (bisect-tests/run
# --list-variants): "<variants a commit> <references> <debian variants>
# <carried variants>", the Debian machines left out when
# KBRANCH_VERIFY_DEBIAN=0, as verify leaves them.  A test that counts
# points reads these, so that a new variant is a registry line, not an
# edit of the tests.
registry_counts() {
	"$REPO/bisect-tests/run" --list-variants | awk -v debian="${KBRANCH_VERIFY_DEBIAN:-1}" '
		$2 == "debian" && debian == 0 { next }
		{ n++ } $3 != "-" { refs[$3] = 1 } $2 == "debian" { d++ } $2 == "carried" || $2 == "kconfig" { c++ }
		END { r = 0; for (x in refs) r++; print n, r, d + 0, c + 0 }'
}

# Skips the test, naming what it lacks, unless 15-verify.bats's whole-matrix
# verify ran in this work dir (its TAP in the scratch dir, its notes and
# carried configs in the tree): 25 cold minutes, too much for another file
# to make again, so a file run alone says what to run first.
needs_verified() {
	[ -f "$KBRANCH_CI_SCRATCH/verify.tap" ] ||
		skip "needs the whole-matrix verify of ci/15-verify.bats in this work dir (run it first)"
}

# A test that costs minutes runs when KBRANCH_CI_FULL=1 (kbranch all and
# a by-hand run do): ci/test must fit in its 90 minutes on a slow day.
# $1 says what it costs.
full_only() {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "$1 (KBRANCH_CI_FULL=1 runs it)"
}

# The number of patches in series.txt.
series_length() {
	grep -v '^#' "$REPO/series.txt" | grep -c .
}

# Patch $1 of the series, as a revision of branch ext4-rename.
patch_rev() {
	printf 'ext4-rename~%d\n' "$(($(series_length) - $1))"
}

# Branch "scratch" at $1 plus one commit: $2 is its subject, the rest a
# command run in the kernel tree that makes the change.
scratch_commit() {
	local at=$1 subject=$2
	shift 2
	ktree checkout -q -f -B scratch "$at"
	(cd "$KTREE" && "$@")
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -a -m "$subject"
}

# The headers, the attachments' names and the text of mail $1, as a mail
# reader parses them.
mail_fields() {
	python3 -c '
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
for h in ("From", "To", "Cc", "Subject"):
    print("%s: %s" % (h, m[h]))
print("attachments: " + " ".join(p.get_filename() for p in m.iter_attachments()))
print(m.get_body(("plain",)).get_content())' "$1"
}
