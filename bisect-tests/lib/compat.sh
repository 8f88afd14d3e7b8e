# shellcheck shell=bash
# The one reader of bisect-tests/compat-differences, the reviewed
# differences from the packaged kernel (the file's header says what each
# field means).  bisect-tests (observe.sh) and kbranch (carry.sh, shapes.sh)
# ask it; neither splits the file's lines itself.

compat_file() {
	printf '%s/../compat-differences\n' "${BASH_SOURCE[0]%/*}"
}

# Each entry of compat-differences file $1 (compat_file: the repository's) as
# "<file line number>|<check>|<variants>|<steps>|<line>": comments and blank
# lines left out, the spaces around a field dropped (all of them in the
# variants and steps lists; one each side of the literal line, which keeps
# its own).
compat_entries() {
	awk -F'|' '
		{ check = $1; sub(/ $/, "", check) }
		check == "" || check ~ /^#/ { next }
		{
			variants = $2; steps = $3; line = $4
			gsub(/ /, "", variants); gsub(/ /, "", steps)
			sub(/^ /, "", line); sub(/ $/, "", line)
			printf "%d|%s|%s|%s|%s\n", NR, check, variants, steps, line
		}' "$1"
}

# Is <line> listed under <check>, naming <variant> among its variants (a
# config-packaged or defconfig line: "-", its label names the config) and
# <step> among its steps?  COMPAT_LISTED says yes or no: set, not
# returned, so that no caller asks in a condition, where set -e would not
# hold.  No line is allowed for a variant it does not name, nor at a step
# it does not list.  The entries are read once per shell (COMPAT_ENTRIES)
# and split here without a fork: a carried config's every differing line
# asks.
# shellcheck disable=SC2034 # COMPAT_LISTED is read by the caller
compat_lookup() {
	local check=$1 variant=$2 step=$3 line=$4 entry rest variants steps
	[ -n "${COMPAT_ENTRIES+set}" ] || mapfile -t COMPAT_ENTRIES < <(compat_entries "$(compat_file)")
	COMPAT_LISTED=no
	for entry in "${COMPAT_ENTRIES[@]}"; do
		rest=${entry#*|}
		[[ "$rest" == "$check|"* ]] || continue
		rest=${rest#*|} variants=${rest%%|*}
		rest=${rest#*|} steps=${rest%%|*}
		[ "${rest#*|}" = "$line" ] || continue
		[[ ",$variants," == *",$variant,"* ]] || continue
		[[ ",$steps," != *",$step,"* ]] || { COMPAT_LISTED=yes; return 0; }
	done
}
