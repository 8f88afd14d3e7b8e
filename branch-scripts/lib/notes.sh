# shellcheck shell=bash
# Verdicts travel with the commits as git notes under refs/notes/kbranch,
# one line per run, keyed by the commit's tree, the variant, the version of
# the tests and the toolchain, so a result stays valid for a rebased commit
# with the same tree and becomes stale when the tests or the tools change.
# A carried config's result depends on every commit it was carried
# through: those lines also carry chain=, a hash of the trees from the base
# to the commit (carry_chain_key in lib/carry.sh).

KBRANCH_NOTES=refs/notes/kbranch

# The variant registry, bisect-tests/configs/variants, through bisect-tests'
# own interface: "name kind reference" lines, in table order.
variant_registry() {
	"$KBRANCH_REPO/bisect-tests/run" --list-variants
}

# What kbranch verify runs and records, in table order: every variant.
# shellcheck disable=SC2034 # read by cmd/verify and cmd/results
mapfile -t KBRANCH_VARIANTS < <(variant_registry | cut -d' ' -f1)

# The packaged reference variant $1 is compared with ("-": none).
variant_reference() {
	variant_registry | awk -v v="$1" '$1 == v { print $3 }'
}

# The version of the tests: a hash of everything under bisect-tests/,
# taken once per run (note_prime), as are the tools: what a run's verdicts
# were reached with.
tests_version() {
	[ -n "${KBRANCH_TESTS_VERSION:-}" ] || KBRANCH_TESTS_VERSION=$(cd "$KBRANCH_REPO" &&
		find bisect-tests -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
	printf '%s\n' "$KBRANCH_TESTS_VERSION"
}

note_prime() {
	tests_version >/dev/null
	toolchain >/dev/null
}

# The tools a verdict was reached with, exactly (notes travel between
# machines): the compiler, QEMU and the guest's busybox.
toolchain() {
	[ -n "${KBRANCH_TOOLCHAIN:-}" ] || KBRANCH_TOOLCHAIN=$(printf 'gcc-%s,qemu-%s,busybox-%s' \
		"$(gcc -dumpfullversion 2>/dev/null || echo none)" \
		"$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')" \
		"$(busybox 2>/dev/null | sed -n '1s/^BusyBox v\([^ ]*\).*/\1/p')")
	printf '%s\n' "$KBRANCH_TOOLCHAIN"
}

# The key every line starts with, up to its verdict.
note_key() {
	local commit=$1 variant=$2
	printf ' tree=%s variant=%s tests=%s tools=%s verdict=' "$(kgit rev-parse "$commit^{tree}")" \
		"$variant" "$(tests_version)" "$(toolchain)"
}

# Under a lock: kbranch verify records from two points at once, and git
# refuses a notes update while another holds the ref's lock file.
note_record() {
	local commit=$1 variant=$2 verdict=$3 result=$4 lock
	unset KBRANCH_NOTE_LINES
	{
		flock -w 60 "$lock" || die "notes: $KBRANCH_WORK/notes.lock held for over a minute"
		kgit notes --ref="$KBRANCH_NOTES" append -m \
			"kbranch-verify$(note_key "$commit" "$variant")$verdict $result date=$(date -u +%FT%TZ)" \
			"$commit"
	} {lock}>"$KBRANCH_WORK/notes.lock"
}

# Every recorded line, from the notes of every commit, read once per run
# (note_record forgets it): one git process, not one per note.
note_lines() {
	# "notes list" prints "<blob> <object>": cat-file shows <object> as
	# the header of each blob's lines.
	[ -n "${KBRANCH_NOTE_LINES+x}" ] || KBRANCH_NOTE_LINES=$(kgit notes --ref="$KBRANCH_NOTES" list 2>/dev/null |
		kgit cat-file --batch='%(rest)' 2>/dev/null | awk '
			NF == 1 && length($1) >= 40 && $1 ~ /^[0-9a-f]+$/ { object = $1; next }
			NF > 0 { print object " " $0 }')
	[ -z "$KBRANCH_NOTE_LINES" ] || printf '%s\n' "$KBRANCH_NOTE_LINES"
}

# Has this tree already passed this variant with these tests and tools
# (and, given a chain key $3, carried along the same chain)?
note_passed() {
	local commit=$1 variant=$2 chain=${3:-} key lines
	key=$(note_key "$commit" "$variant")
	note_lines >/dev/null
	lines=$(note_lines | grep -F "$key" || true)
	[ -z "$chain" ] || lines=$(grep -F " chain=$chain " <<<"$lines" || true)
	# A bad or skipped verdict for the same tree wins over any good one: the
	# tree is run again rather than called good.
	grep -qF "${key}good " <<<"$lines" && ! grep -qE "verdict=(bad|skip) " <<<"$lines"
}

# A reused verdict is recorded on the commit being verified too, so that
# the published notes cover the published commits.
note_reuse() {
	local commit=$1 variant=$2 chain=${3:-} key
	key=$(note_key "$commit" "$variant")good
	kgit notes --ref="$KBRANCH_NOTES" show "$commit" 2>/dev/null | grep -F "$key " |
		grep -qF "${chain:+ chain=$chain }" && return 0
	note_record "$commit" "$variant" good "${chain:+chain=$chain }reused=1"
}

# The newest recorded verdict of one commit and variant, any tests version.
note_latest() {
	local commit=$1 variant=$2
	kgit notes --ref="$KBRANCH_NOTES" show "$commit" 2>/dev/null |
		grep " variant=$variant " | tail -n 1
}
