# shellcheck shell=bash
# Configs carried through the series the way a tester carries theirs: made
# at ext4dev-base with the old names, then "make olddefconfig" at every
# commit.  Checked under the names each commit's build tests (declared by
# uses= in bisect-tests/expectations).  Kconfig runs through lib/kconfig.sh,
# which the caller sources too.

# What compat-differences allows: bisect-tests' one reader of it.
# shellcheck source=bisect-tests/lib/compat.sh
source "$KB_REPO/bisect-tests/lib/compat.sh"

CARRY_DIR_NAME=carry

carry_dir() {
	printf '%s/%s\n' "$KBRANCH_WORK" "$CARRY_DIR_NAME"
}

config_of() {
	sed -n "s/^$1=//p" "$2" | grep . || echo n
}

# Kconfig-only carried configs, verify's carried-<source> variants: a
# config made at ext4dev-base with the old names, taken to each commit with
# "make olddefconfig" both ways a tester gets there: stepped (from the
# previous commit's result, as when one builds commit after commit) and
# jumped (straight from the base, as the first step of a git bisect does).
# Each must keep what the base config had for ext4, ACL and security labels.
# The sources: Debian's own config and the module and minimal variants'.

# Debian's own amd64 config for this kernel, written in the base's names.
debian_config_at_base() {
	local src="$KBRANCH_DEBIAN_CONFIG"
	[ -f "$src" ] || { echo "no $src; install linux-config-6.1" >&2; return 1; }
	xz -dc "$src" | sed -E 's/^(# )?CONFIG_EXT4_FS(_POSIX_ACL|_SECURITY)?([= ])/\1CONFIG_EXT4DEV_FS\2\3/'
}

# The .config a tester of <source> has at ext4dev-base (checked out).
carried_seed() {
	local source=$1 seed
	seed=$(carry_dir)/seed
	case "$source" in
	debian) debian_config_at_base ;;
	*) bt_configure "$source" "$seed" >&2 && cat "$seed/build/$source/.config" ;;
	esac
}

# ext4, ACL and security labels in config $1, under the names the
# checked-out commit builds from.
carried_values() {
	local fs acl sec
	read -r fs acl sec < <(used_symbols)
	printf 'ext4=%s acl=%s security=%s\n' "$(config_of "$fs" "$1")" \
		"$(config_of "$acl" "$1")" "$(config_of "$sec" "$1")"
}

# olddefconfig of the .config in each dir given, at the checked-out commit,
# from one parse of Kconfig (kconfig_batch, lib/kconfig.sh).
carried_olddefconfig() {
	local d
	kconfig_env x86_64 arch/x86/configs/x86_64_defconfig
	for d in "$@"; do
		printf 'olddefconfig %s %s\n' "$d/.config" "$d/.config"
	done | kconfig_batch x86_64 "$(carry_olddefconfig_log)"
}

carry_olddefconfig_log() {
	printf '%s/olddefconfig.log\n' "$(carry_dir)"
}

# Take carried config <source> to the checked-out commit.  Prints what it
# keeps; or what it lost and which way (returns 1); or why there is nothing
# to carry (returns 128, a setup error: no verdict).
carried_step() {
	local source=$1 is_base=$2 dir want have way ways=(stepped jumped)
	dir=$(carry_dir)/$source
	mkdir -p "$dir/stepped" "$dir/jumped"
	# At the base both ways are the same olddefconfig: run it once.
	[ "$is_base" = 0 ] || ways=(stepped)
	if [ "$is_base" = 1 ]; then
		if ! carried_seed "$source" >"$dir/base.config" 2>"$dir/seed.log"; then
			echo "cannot make its base config: $(tail -n 1 "$dir/seed.log")"
			return 128
		fi
		cp "$dir/base.config" "$dir/stepped/.config"
	fi
	cp "$dir/base.config" "$dir/jumped/.config"
	carried_olddefconfig "${ways[@]/#/$dir/}" || { echo "olddefconfig failed (log: $(carry_olddefconfig_log))"; return 1; }
	have=$(carried_values "$dir/stepped/.config")
	if [ "$is_base" = 1 ]; then
		# A base config without ext4 would make every later check vacuous.
		[[ "$have" != ext4=n* ]] || { echo "its base config has no ext4 ($have)"; return 128; }
		printf '%s\n' "$have" >"$dir/want"
	fi
	want=$(cat "$dir/want")
	for way in "${ways[@]}"; do
		have=$(carried_values "$dir/$way/.config")
		[ "$have" = "$want" ] || { echo "$way from the base it has $have, the base config had $want"; return 1; }
	done
	echo "$want"
}

# The tester's .config for a carried variant $1: its reference variant's
# config as generated at ext4dev-base, with the old names.
carry_oldconfig_seed() {
	local reference
	reference=$(variant_reference "$1")
	bt_configure "$reference" "$(carry_dir)/seed" >&2 || return 1
	cat "$(carry_dir)/seed/build/$reference/.config"
}

# The .config a carried variant $1 takes to the next commit, relative to
# the carry dir (carry_state_files) and as a path.
carry_oldconfig_name() {
	printf '%s.config\n' "$1"
}

carry_oldconfig_file() {
	printf '%s/%s\n' "$(carry_dir)" "$(carry_oldconfig_name "$1")"
}

carry_oldconfig_start() {
	local variant=$1 file
	file=$(carry_oldconfig_file "$variant")
	mkdir -p "$(dirname "$file")"
	carry_oldconfig_seed "$variant" >"$file" || die "cannot generate the base config for the $variant variant"
}

# After a commit's run of carried variant $1, the .config it built ($2,
# its RESULT's config=) is what the tester carries to the next commit.
carry_oldconfig_advance() {
	[ ! -f "$2" ] || cp "$2" "$(carry_oldconfig_file "$1")"
}

# --- Configs neither gain nor lose on the way to the tip ---------------------
# A config made fresh at commit k (the source's own config under k's names)
# and carried to the tip must equal, in the ext4 family, the same config
# made fresh at the tip; a difference is allowed only where
# bisect-tests/compat-differences lists it for k.

# The ext4 family, for every check that compares configs: ext2/3/4 (ext4
# serves ext2 and ext3), the old names, their ACL and security options, and
# what only they select (JBD2, FS_MBCACHE, FS_POSIX_ACL): what the rename can change.
CARRY_FAMILY='CONFIG_(EXT[234]|EXT4DEV|JBD2|FS_MBCACHE|FS_POSIX_ACL)[A-Z0-9_]*'
carry_family() {
	grep -E "^(# )?${CARRY_FAMILY}[= ]" "$1" | sort || true
}

# Debian's config as a tester would make it at the checked-out commit: in
# the names the commit's Kconfig has.
debian_config_here() {
	if [ "$(declared kconfig)" = EXT4DEV ]; then
		debian_config_at_base
	else
		xz -dc "$KBRANCH_DEBIAN_CONFIG"
	fi
}

# olddefconfig of config file $2 into file $3, through dir $1.
olddefconfig_into() {
	local dir=$1 in=$2 out=$3
	mkdir -p "$dir"
	cp "$in" "$dir/.config"
	carried_olddefconfig "$dir" && cp "$dir/.config" "$out"
}

# Make <source>'s config fresh at the checked-out commit into dir $2, in
# the source's kept work dir.
carry_fresh() {
	local source=$1 out=$2 work
	work=$(carry_dir)/$source
	rm -rf "$out"
	mkdir -p "$out"
	case "$source" in
	debian) debian_config_here >"$out/debian.config" && olddefconfig_into "$work/kconfig" "$out/debian.config" "$out/.config" ;;
	*) bt_configure "$source" "$work/fresh-work" >>"$out.log" 2>&1 && cp "$work/fresh-work/build/$source/.config" "$out/.config" ;;
	esac
}

# At every commit: record the fresh config.  At the tip: carry each earlier
# one here and compare.  Prints each unlisted difference; returns 1 if any.
carry_fresh_step() {
	local source=$1 k=$2 is_tip=$3 variant=$4 dir f from line bad=0 carried
	dir=$(carry_dir)/$source/fresh
	# A new run starts at the base: no fresh config of an earlier run stays.
	[ "$k" != 0 ] || rm -rf "$dir"
	carry_fresh "$source" "$dir/$k" || { echo "cannot make the $source config fresh at commit $k (log: $dir/$k.log)"; return 1; }
	[ "$is_tip" = 1 ] || return 0
	carried=()
	for f in "$dir"/*/.config; do
		from=$(basename "$(dirname "$f")")
		if [ "$from" = "$k" ] || [[ ! "$from" =~ ^[0-9]+$ ]]; then
			continue
		fi
		rm -rf "$dir/carried-$from"
		mkdir -p "$dir/carried-$from"
		cp "$f" "$dir/carried-$from/.config"
		carried+=("$dir/carried-$from")
	done
	[ "${#carried[@]}" = 0 ] || carried_olddefconfig "${carried[@]}" ||
		{ echo "olddefconfig failed (log: $(carry_olddefconfig_log))"; return 1; }
	for f in "${carried[@]}"; do
		from=${f##*/carried-}
		# Only what is switched on counts: an option that did not exist
		# at commit k is missing from its config, not lost.
		while IFS= read -r line; do
			[[ "$line" == '< CONFIG_'* ]] || continue
			line=${line:2}
			compat_listed config-gained "$variant" "$from" "$line" && continue
			echo "made fresh at commit $from and carried to the tip, it gains '$line', which the same config made at the tip lacks (not in compat-differences)"
			bad=1
		done < <(diff <(carry_family "$f/.config") <(carry_family "$dir/$k/.config") || true)
	done
	return "$bad"
}

# --- Carried results keyed by their chain -------------------------------------
# A carried config's verdict at a commit depends on the config it started
# from, every tree it was carried through, the tests and the tools.  Its
# note is keyed by a hash of all of them, and its state after that commit
# is kept under the same key, so that a re-run skips what passed and a
# changed commit re-runs only itself and what follows it.

# At the tip a carried-* point also compares the configs made at every
# earlier commit: the same chain as an inner commit is another check.
carry_chain_key() {
	local variant=$1 commit=$2 is_tip=$3 source=$1
	[ "$(variant_kind "$variant")" = kconfig ] || is_tip=-
	[ "$(variant_source "$variant" || true)" != debian ] ||
		source+=-$(sha256sum <"$KBRANCH_DEBIAN_CONFIG" 2>/dev/null | cut -c1-12)
	{
		printf '%s %s %s tip=%s\n' "$source" "$(tests_version)" "$(toolchain)" "$is_tip"
		kgit log --reverse --format=%T "$KB_BASE_TAG^..$commit"
	} | sha256sum | cut -c1-16
}

# Kept states mirror the carry dir's layout (state-v2: the first layout
# kept names of their own), so that one cp puts a state back.
carry_state_dir() {
	printf '%s/state-v2/%s/%s\n' "$(carry_dir)" "$1" "$2"
}

# The files that make up a carried variant's state after commit k,
# relative to the carry dir.
carry_state_files() {
	local variant=$1 k=$2 dir
	if [ "$(variant_kind "$variant")" = carried ]; then
		carry_oldconfig_name "$variant"
		return
	fi
	dir=$(variant_source "$variant")
	printf '%s\n' "$dir/base.config" "$dir/want" "$dir/stepped/.config" "$dir/fresh/$k/.config"
	! variant_has "$variant" shapes || shapes_state_file "$variant"
}

carry_save() {
	local variant=$1 key=$2 k=$3 state file from
	state=$(carry_state_dir "$variant" "$key")
	from=$(carry_dir)
	rm -rf "$state.tmp"
	while read -r file; do
		mkdir -p "$state.tmp/$(dirname "$file")"
		cp "$from/$file" "$state.tmp/$file" || return 1
	done < <(carry_state_files "$variant" "$k")
	rm -rf "$state"
	mv "$state.tmp" "$state"
}

# Put back the state kept for key; fails (restoring nothing) without one.
# A warm re-run restores one at every carried point: one process.
carry_restore() {
	local variant=$1 key=$2 k=$3 state
	state=$(carry_state_dir "$variant" "$key")
	[ -d "$state" ] || return 1
	# A new chain starts at the base: no fresh config of another one stays.
	[ "$k" != 0 ] || [ "$(variant_kind "$variant")" != kconfig ] || rm -rf "$(carry_dir)/$(variant_source "$variant")/fresh"
	cp -R "$state/." "$(carry_dir)/"
}

# --- At the tip, the packaged tree's answer, line for line -------------------
# A carried config's packaged form is the same config under the new names,
# made at packaged/<version>: Debian's config as Debian ships it, a
# variant's config from its fragments (oldconfig's is builtin's).  At the
# tip every carried config must equal it in the ext4 family, except lines
# that bisect-tests/compat-differences lists as config-packaged there.

carry_packaged_file() {
	printf '%s/packaged/%s/%s.config\n' "$(carry_dir)" "$CARRY_PACKAGED_KEY" "$1"
}

# Whose packaged forms the carried variants compare with: a kconfig
# variant's source=, a carried variant's reference.
carry_packaged_sources() {
	local name kind reference _
	while read -r name kind reference _; do
		case $kind in
		kconfig) variant_source "$name" ;;
		carried) printf '%s\n' "$reference" ;;
		esac
	done < <(variant_registry)
}

# The packaged forms are kept per version, tests, tools and Debian config.
carry_packaged_key() {
	local version=$1
	CARRY_PACKAGED_KEY=$version-$({
		printf '%s %s\n' "$(tests_version)" "$(toolchain)"
		sha256sum <"$KBRANCH_DEBIAN_CONFIG" 2>/dev/null
	} | sha256sum | cut -c1-12)
}

carry_packaged_missing() {
	local source
	for source in $(carry_packaged_sources); do
		[ -s "$(carry_packaged_file "$source")" ] || return 0
	done
	return 1
}

# Make the missing packaged forms (after carry_packaged_key), with
# packaged/<version> checked out: Kconfig only, so verify runs it beside the
# references' builds.
carry_packaged_forms() {
	local source out
	for source in $(carry_packaged_sources); do
		out=$(carry_packaged_file "$source")
		[ ! -s "$out" ] || continue
		mkdir -p "$(dirname "$out")"
		case "$source" in
		debian) xz -dc "$KBRANCH_DEBIAN_CONFIG" >"$out.in" &&
			olddefconfig_into "$(carry_dir)/debian/kconfig" "$out.in" "$out.tmp" ;;
		*) bt_configure "$source" "$(carry_dir)/packaged-work" >>"$out.log" 2>&1 &&
			cp "$(carry_dir)/packaged-work/build/$source/.config" "$out.tmp" ;;
		esac || die "cannot make the packaged form of the $source config (log: $out.log)"
		mv "$out.tmp" "$out"
	done
}

# Each ext4-family line in which config $4 differs from reference $5, as
# "<$3>: + line" (only ours) or "<$3>: - line" (only the reference), unless
# compat-differences lists it under check $1 for step $2.
family_differences() {
	local check=$1 k=$2 label=$3 ours=$4 ref=$5 line
	while IFS= read -r line; do
		case "$line" in
		'< '*) line="$label: + ${line:2}" ;;
		'> '*) line="$label: - ${line:2}" ;;
		*) continue ;;
		esac
		compat_listed "$check" - "$k" "$line" || printf '%s\n' "$line"
	done < <(diff <(carry_family "$ours") <(carry_family "$ref") || true)
}

# Each unlisted config-packaged difference of config $4 (carried $5) from
# source $2's packaged form at step $1, said in a sentence.  Returns 1 if any.
carry_vs_packaged() {
	local k=$1 source=$2 label=$3 config=$4 way=$5 line bad=0
	while IFS= read -r line; do
		echo "$way, it differs from the $source config made at the packaged tree, not in compat-differences: '$line'"
		bad=1
	done < <(family_differences config-packaged "$k" "$label" "$config" "$(carry_packaged_file "$source")")
	return "$bad"
}

# At the tip: carried stepped and jumped from the base, and made fresh
# there, each against the packaged form.  Listed lines are looked up under
# the tip's declared step (a scratch commit on top inherits its parent's).
carry_tip_vs_packaged() {
	local source=$1 k=$2 dir bad=0 step
	dir=$(carry_dir)/$source
	step=$(declared step)
	carry_vs_packaged "$step" "$source" "$source from the base" "$dir/stepped/.config" "stepped from the base" || bad=1
	carry_vs_packaged "$step" "$source" "$source from the base" "$dir/jumped/.config" "jumped from the base" || bad=1
	carry_vs_packaged "$step" "$source" "$source made fresh" "$dir/fresh/$k/.config" "made fresh at the tip" || bad=1
	return "$bad"
}
