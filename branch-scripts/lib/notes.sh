# shellcheck shell=bash
# Verdicts travel with the commits as git notes under refs/notes/kbranch,
# one line per run, keyed by the commit's tree, the variant and the version
# of the tests, so a result stays valid for a rebased commit with the same
# tree and becomes stale when the tests change.

KBRANCH_NOTES=refs/notes/kbranch

# What kbranch verify runs and records, in table order.  oldconfig is a
# tester's .config made at the base and carried commit to commit, built and
# booted; carried-* are Kconfig-only carried configs (lib/carry.sh).
# shellcheck disable=SC2034 # read by cmd/verify and cmd/results
KBRANCH_VARIANTS=(builtin module minimal oldconfig carried-debian carried-module carried-minimal)

# The version of the tests: a hash of everything under bisect-tests/.
tests_version() {
	(cd "$KBRANCH_REPO" && find bisect-tests -type f -print0 | sort -z | xargs -0 sha256sum) |
		sha256sum | cut -c1-12
}

note_record() {
	local commit=$1 variant=$2 verdict=$3 result=$4 tree
	tree=$(kgit rev-parse "$commit^{tree}")
	kgit notes --ref="$KBRANCH_NOTES" append -m \
		"kbranch-verify tree=$tree variant=$variant tests=$(tests_version) verdict=$verdict $result date=$(date -u +%FT%TZ)" \
		"$commit"
}

# Every recorded line, from the notes of every commit.
note_lines() {
	local blob object
	kgit notes --ref="$KBRANCH_NOTES" list 2>/dev/null | while read -r blob object; do
		kgit cat-file blob "$blob" | sed "s/^/$object /"
	done
}

# Has this tree already passed this variant with these tests?
note_passed() {
	local commit=$1 variant=$2 tree
	local key lines
	tree=$(kgit rev-parse "$commit^{tree}")
	key=" tree=$tree variant=$variant tests=$(tests_version) verdict="
	lines=$(note_lines | grep -F "$key" || true)
	# A bad or skipped verdict for the same tree wins over any good one: the
	# tree is run again rather than called good.
	grep -qF "${key}good " <<<"$lines" && ! grep -qE "verdict=(bad|skip) " <<<"$lines"
}

# A reused verdict is recorded on the commit being verified too, so that
# the published notes cover the published commits.
note_reuse() {
	local commit=$1 variant=$2 tree
	tree=$(kgit rev-parse "$commit^{tree}")
	kgit notes --ref="$KBRANCH_NOTES" show "$commit" 2>/dev/null |
		grep -qF " tree=$tree variant=$variant tests=$(tests_version) verdict=good " && return 0
	note_record "$commit" "$variant" good "reused=1"
}

# The newest recorded verdict of one commit and variant, any tests version.
note_latest() {
	local commit=$1 variant=$2
	kgit notes --ref="$KBRANCH_NOTES" show "$commit" 2>/dev/null |
		grep " variant=$variant " | tail -n 1
}
