# shellcheck shell=bash
# The one reader of a variant's registry line ("name kind reference
# traits", as bisect-tests/run --list-variants prints configs/variants),
# for bisect-tests and kbranch alike.  The file that sources this defines
# variant_registry, which prints those lines: bisect-tests reads the
# table, kbranch what --list-variants said once.

# Field $2 (kind, reference or traits) of variant $1; fails when no line
# names $1.
variant_field() {
	local name kind reference traits
	while read -r name kind reference traits; do
		[ "$name" = "$1" ] || continue
		case $2 in
		kind) printf '%s\n' "$kind" ;;
		reference) printf '%s\n' "$reference" ;;
		traits) printf '%s\n' "$traits" ;;
		esac
		return 0
	done < <(variant_registry)
	return 1
}

# Has variant $1 trait $2?  yes or no: a lookup, so that no caller asks
# it in a condition, where set -e would not hold.
variant_trait() {
	local traits
	traits=$(variant_field "$1" traits)
	if [[ ",$traits," == *",$2,"* ]]; then echo yes; else echo no; fi
}

# The variant whose kernel variant $1 boots: its trait kernel= (a guest,
# kind debian), else itself (also a name the registry does not know).
variant_kernel() {
	local name kind reference traits kernel=$1
	while read -r name kind reference traits; do
		[ "$name" = "$1" ] || continue
		kernel=$(tr ',' '\n' <<<"$traits" | sed -n 's/^kernel=//p')
		[ -n "$kernel" ] || kernel=$1
	done < <(variant_registry)
	printf '%s\n' "$kernel"
}
