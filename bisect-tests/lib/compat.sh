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

# What a busybox guest's kernel is, in the words packaged lines name:
# ext4=y|m, compat=y|n, acl=y|n and security=y|n as variant $1's fragment
# (configs/<name>.config) asks, and its traits (configs/variants).  A
# packaged line names kernels by these, never a variant by name, so that a
# new variant is allowed exactly what its fragment makes it (a fragment
# that does not set an option: n).  One word per line; nothing for a
# variant without a fragment (a tester's), which no packaged line is about.
variant_facts() {
	local fragment traits
	fragment=${BASH_SOURCE[0]%/*}/../configs/$1.config
	[ -f "$fragment" ] || return 0
	awk '
		BEGIN { v["EXT4_FS"] = "n"; v["EXT4DEV_COMPAT"] = "n"; v["EXT4_FS_POSIX_ACL"] = "n"; v["EXT4_FS_SECURITY"] = "n" }
		/^CONFIG_[A-Z0-9_]*=/ { name = substr($0, 8); sub(/=.*/, "", name); if (name in v) v[name] = substr($0, index($0, "=") + 1) }
		END { printf "ext4=%s\ncompat=%s\nacl=%s\nsecurity=%s\n", v["EXT4_FS"], v["EXT4DEV_COMPAT"], v["EXT4_FS_POSIX_ACL"], v["EXT4_FS_SECURITY"] }' "$fragment"
	traits=$(variant_field "$1" traits)
	[ "$traits" = - ] || tr ',' '\n' <<<"$traits"
}

# Is <line> listed under <check>, for <who>, at <step>?  <who> is one or
# more words (space- or newline-separated): a packaged line is about the
# kernel (variant_facts), a config-gained or config-shape line about the
# Kconfig-only variant named, a config-packaged or defconfig line "-" (its
# label names the config).  A line's variants field lists alternatives,
# each one word or words joined by "+", all of which <who> must have:
# "ext4=m+compat=y".  COMPAT_LISTED says yes or no: set, not returned, so
# that no caller asks in a condition, where set -e would not hold.  No line
# is allowed for a kernel or variant it does not name, nor at a step it
# does not list.  The entries are read once per shell (COMPAT_ENTRIES) and
# split here without a fork: a carried config's every differing line asks.
# shellcheck disable=SC2034 # COMPAT_LISTED is read by the caller
compat_lookup() {
	local check=$1 who=" ${2//$'\n'/ } " step=$3 line=$4 entry rest variants steps alternative word alternatives words
	[ -n "${COMPAT_ENTRIES+set}" ] || mapfile -t COMPAT_ENTRIES < <(compat_entries "$(compat_file)")
	COMPAT_LISTED=no
	for entry in "${COMPAT_ENTRIES[@]}"; do
		rest=${entry#*|}
		[[ "$rest" == "$check|"* ]] || continue
		rest=${rest#*|} variants=${rest%%|*}
		rest=${rest#*|} steps=${rest%%|*}
		[ "${rest#*|}" = "$line" ] || continue
		[[ ",$steps," == *",$step,"* ]] || continue
		IFS=, read -ra alternatives <<<"$variants"
		for alternative in "${alternatives[@]}"; do
			IFS=+ read -ra words <<<"$alternative"
			for word in "${words[@]}"; do
				[[ "$who" == *" $word "* ]] || continue 2
			done
			COMPAT_LISTED=yes
			return 0
		done
	done
}
