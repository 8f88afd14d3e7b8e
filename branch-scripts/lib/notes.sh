# shellcheck shell=bash
# Verdicts travel with the commits as git notes under refs/notes/kbranch,
# one line per run, keyed by the commit's tree, the variant, the version of
# the tests and the toolchain, so a result stays valid for a rebased commit
# with the same tree and becomes stale when the tests or the tools change.
# A carried config's result depends on every commit it was carried
# through: those lines also carry chain=, a hash of the trees from the base
# to the commit (carry_chain_key in lib/carry-state.sh).

KB_NOTES=refs/notes/kbranch

# The variant registry, bisect-tests/configs/variants, through bisect-tests'
# own interface: "name kind reference" lines, in table order.  Asked once:
# a warm re-run looks variants up at every point.
KB_REGISTRY=$("$KB_REPO/bisect-tests/run" --list-variants 2>/dev/null) || KB_REGISTRY=
variant_registry() {
	[ -z "$KB_REGISTRY" ] || printf '%s\n' "$KB_REGISTRY"
}

# What kbranch verify runs and records, in table order: every variant,
# the Debian machines (kind debian) unless KBRANCH_VERIFY_DEBIAN=0.
# shellcheck disable=SC2034 # read by cmd/verify.sh and cmd/results.sh
mapfile -t KB_VARIANTS < <(variant_registry |
	awk -v debian="$KBRANCH_VERIFY_DEBIAN" '$2 != "debian" || debian != 0 { print $1 }')

# variant_field and variant_trait: bisect-tests' reader of those lines.
# shellcheck source=bisect-tests/lib/registry.sh
source "$KB_REPO/bisect-tests/lib/registry.sh"

# The packaged reference variant $1 is compared with ("-": none).
variant_reference() {
	variant_field "$1" reference
}

variant_kind() {
	variant_field "$1" kind
}

# The config a kconfig variant carries: its source= trait; nothing for a
# variant without one (a lookup, not a test, so that callers need not call
# it in a condition, where set -e would not hold).
variant_source() {
	local trait
	for trait in $(variant_field "$1" traits | tr ',' ' '); do
		[[ "$trait" != source=* ]] || { printf '%s\n' "${trait#source=}"; return 0; }
	done
}

# The version of the tests: a hash of everything under bisect-tests/,
# taken once per run (note_prime), as are the tools: what a run's verdicts
# were reached with.
tests_version() {
	[ -n "${KB_TESTS_VERSION:-}" ] || KB_TESTS_VERSION=$(cd "$KB_REPO" &&
		find bisect-tests -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
	printf '%s\n' "$KB_TESTS_VERSION"
}

note_prime() {
	tests_version >/dev/null
	toolchain >/dev/null
}

# The tools a verdict was reached with, exactly (notes travel between
# machines): the compiler, QEMU and the guest's busybox.
toolchain() {
	[ -n "${KB_TOOLCHAIN:-}" ] || KB_TOOLCHAIN=$(printf 'gcc-%s,qemu-%s,busybox-%s' \
		"$(gcc -dumpfullversion 2>/dev/null || echo none)" \
		"$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')" \
		"$(busybox 2>/dev/null | sed -n '1s/^BusyBox v\([^ ]*\).*/\1/p')")
	printf '%s\n' "$KB_TOOLCHAIN"
}

# A commit's tree: from the run's table when the caller filled it
# (note_learn_trees), else from git.
note_tree() {
	local commit=$1
	if [ -n "${KB_TREE_OF[$commit]:-}" ]; then
		printf '%s\n' "${KB_TREE_OF[$commit]}"
	else
		kgit rev-parse "$commit^{tree}"
	fi
}

# Fill the table of trees for commits $@ with one git process: a warm
# re-run asks for each commit's tree several times a point.
declare -gA KB_TREE_OF=()
note_learn_trees() {
	local commit tree
	[ "$#" -gt 0 ] || return 0
	while read -r commit tree; do
		KB_TREE_OF[$commit]=$tree
	done < <(kgit log --no-walk=unsorted --format='%H %T' "$@")
}

# The key every line starts with, up to its verdict.
note_key() {
	local commit=$1 variant=$2
	printf ' tree=%s variant=%s tests=%s tools=%s verdict=' "$(note_tree "$commit")" \
		"$variant" "$(tests_version)" "$(toolchain)"
}

# Under a lock: kbranch verify records from two points at once, and git
# refuses a notes update while another holds the ref's lock file.  The
# lock's fd is closed before returning: left open (as a {var}> redirection
# of a group leaves it), it kept the lock, and the same shell's next
# record waited a minute for itself and died.
note_record() {
	local commit=$1 variant=$2 verdict=$3 result=$4 line lock
	note_forget
	line="kbranch-verify$(note_key "$commit" "$variant")$verdict $result date=$(date -u +%FT%TZ)"
	exec {lock}>"$KBRANCH_WORK/notes.lock"
	if ! flock -w 60 "$lock"; then
		exec {lock}>&-
		die "notes: $KBRANCH_WORK/notes.lock held for over a minute"
	fi
	kgit notes --ref="$KB_NOTES" append -m "$line" "$commit" || { exec {lock}>&-; return 1; }
	exec {lock}>&-
}

# Every recorded line, from the notes of every commit, read once per run
# (note_record forgets it): one git process, not one per note.
note_lines() {
	# "notes list" prints "<blob> <object>": cat-file shows <object> as
	# the header of each blob's lines.
	[ -n "${KB_NOTE_LINES+x}" ] || KB_NOTE_LINES=$(kgit notes --ref="$KB_NOTES" list 2>/dev/null |
		kgit cat-file --batch='%(rest)' 2>/dev/null | awk '
			NF == 1 && length($1) >= 40 && $1 ~ /^[0-9a-f]+$/ { object = $1; next }
			NF > 0 { print object " " $0 }')
	[ -z "$KB_NOTE_LINES" ] || printf '%s\n' "$KB_NOTE_LINES"
}

# Read the notes again when next asked: something was recorded.
note_forget() {
	unset KB_NOTE_LINES KB_NOTE_INDEXED
}

# The latest line of every commit and variant: filled by note_index.
# shellcheck disable=SC2034 # read by cmd/report.sh
declare -gA KB_NOTE_LATEST=()

# The notes' lines as three lookups, made in one pass per read of the notes
# (in this shell: call it before any subshell asks): the verdicts recorded
# under each key (tree, variant, tests, tools, chain), the commits that
# carry a line of a key and verdict, and the latest line of every commit
# and variant (KB_NOTE_LATEST[<commit> <variant>], read by cmd/report.sh).
# A warm re-run asks at every point; lookups cost no process.
# shellcheck disable=SC2034 # KB_NOTE_LATEST is read by cmd/report.sh
note_index() {
	[ -z "${KB_NOTE_INDEXED:-}" ] || return 0
	declare -gA KB_NOTE_VERDICTS=() KB_NOTE_ON=() KB_NOTE_LATEST=()
	local object line verdict
	while read -r object line; do
		note_parse "$line"
		[ -z "${NOTE_FIELDS[variant]:-}" ] || KB_NOTE_LATEST[$object ${NOTE_FIELDS[variant]}]=$line
		[ "$NOTE_TAG" = kbranch-verify ] || continue
		note_ikey "${NOTE_FIELDS[tree]:-}" "${NOTE_FIELDS[variant]:-}" "${NOTE_FIELDS[tests]:-}" \
			"${NOTE_FIELDS[tools]:-}" "${NOTE_FIELDS[chain]:-}"
		verdict=${NOTE_FIELDS[verdict]:-}
		KB_NOTE_VERDICTS[$NOTE_IKEY]+=" $verdict "
		KB_NOTE_ON[$object $NOTE_IKEY $verdict]=1
	done < <(note_lines)
	KB_NOTE_INDEXED=1
}

# The index's key of tree $1, variant $2, tests $3, tools $4, chain $5
# (may be empty), in NOTE_IKEY: set, not printed, so that no subshell is
# made for it.
note_ikey() {
	NOTE_IKEY="tree=$1 variant=$2 tests=$3 tools=$4 ${5:+chain=$5}"
}

# The index's key of commit $1, variant $2, chain $3 (may be empty).
note_index_key() {
	local tree=${KB_TREE_OF[$1]:-$(kgit rev-parse "$1^{tree}")}
	tests_version >/dev/null
	toolchain >/dev/null
	note_ikey "$tree" "$2" "$KB_TESTS_VERSION" "$KB_TOOLCHAIN" "${3:-}"
}

# Has this tree already passed this variant with these tests and tools
# (and, given a chain key $3, carried along the same chain)?  A bad or
# skipped verdict for the same key wins over any good one: the tree is
# run again rather than called good.
note_passed() {
	note_pass_check "$@"
	[ "$NOTE_PASSED" = yes ]
}

# note_passed's answer in NOTE_PASSED (yes or no): set, not printed (no
# subshell), and tested by the caller, not called in a condition, where
# set -e would not hold.
note_pass_check() {
	local commit=$1 variant=$2 chain=${3:-} verdicts
	note_index
	note_index_key "$commit" "$variant" "$chain"
	verdicts=${KB_NOTE_VERDICTS[$NOTE_IKEY]:-}
	NOTE_PASSED=no
	if [[ "$verdicts" == *" good "* && "$verdicts" != *" bad "* && "$verdicts" != *" skip "* ]]; then
		NOTE_PASSED=yes
	fi
}

# A reused verdict is recorded on the commit being verified too, so that
# the published notes cover the published commits.
note_reuse() {
	local commit=$1 variant=$2 chain=${3:-}
	note_index
	note_index_key "$commit" "$variant" "$chain"
	[ -z "${KB_NOTE_ON[$commit $NOTE_IKEY good]:-}" ] || return 0
	note_record "$commit" "$variant" good "${chain:+chain=$chain }reused=1"
}

# The one reader of a note line (and of a RESULT line, its source): its
# first word in NOTE_TAG, each "key=value" word in NOTE_FIELDS, the first
# of a key with a value winning.  Set, not printed: no process per line.
declare -gA NOTE_FIELDS=()
note_parse() {
	local rest="$1 " word
	NOTE_TAG=${1%% *}
	NOTE_FIELDS=()
	while [ -n "$rest" ]; do
		word=${rest%% *}
		rest=${rest#* }
		[[ "$word" == ?*=?* ]] || continue
		[ -n "${NOTE_FIELDS[${word%%=*}]+set}" ] || NOTE_FIELDS[${word%%=*}]=${word#*=}
	done
}

# The value of field $2 in a note line $1; fails when the line has none.
note_get() {
	note_parse "$1"
	[ -n "${NOTE_FIELDS[$2]:-}" ] || return 1
	printf '%s\n' "${NOTE_FIELDS[$2]}"
}

# The fields of note line $1 as "note.key=value" words, tab separated:
# libexec/kcidb-report reads facts, and gets a note's fields from here
# rather than parsing the line a second time.
note_fact_fields() {
	local key IFS=$'\t' words=()
	note_parse "$1"
	for key in "${!NOTE_FIELDS[@]}"; do
		words+=("note.$key=${NOTE_FIELDS[$key]}")
	done
	printf '%s' "${words[*]}"
}

# The value of field $2 in a note line $1; nothing when the line has none.
# A lookup that never fails, for callers that would otherwise swallow
# note_get's failure in a condition, where set -e does not hold.
note_value() {
	note_parse "$1"
	[ -z "${NOTE_FIELDS[$2]:-}" ] || printf '%s\n' "${NOTE_FIELDS[$2]}"
}

# The newest line of one commit and variant, any tests version, read from
# that commit's note alone (no whole index for one question); fails when
# there is none.
note_latest() {
	local latest
	latest=$(note_newest "$@")
	[ -n "$latest" ] || return 1
	printf '%s\n' "$latest"
}

# note_latest's lookup: nothing when there is none.
note_newest() {
	local commit=$1 variant=$2 line latest=
	while IFS= read -r line; do
		note_parse "$line"
		[ "${NOTE_FIELDS[variant]:-}" != "$variant" ] || latest=$line
	done < <(kgit notes --ref="$KB_NOTES" show "$commit" 2>/dev/null)
	[ -z "$latest" ] || printf '%s\n' "$latest"
}
