# shellcheck shell=bash
# Configs carried through the series the way a tester carries theirs: made
# at ext4dev-base with the old names, then "make olddefconfig" at every
# commit.  Checked under the names each commit's build tests (declared by
# uses= in bisect-tests/expectations).

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
	local src=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
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

# olddefconfig of config dir $1 at the checked-out commit.
carried_olddefconfig() {
	make -C "$KTREE" O="$1" ARCH=x86_64 olddefconfig >>"$1.log" 2>&1
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
	for way in "${ways[@]}"; do
		carried_olddefconfig "$dir/$way" || { echo "olddefconfig failed (log: $dir/$way.log)"; return 1; }
	done
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

# The tester's .config for the oldconfig variant: the builtin variant's
# config as generated at ext4dev-base, with the old names.
carry_oldconfig_seed() {
	bt_configure builtin "$(carry_dir)/seed" >&2 || return 1
	cat "$(carry_dir)/seed/build/builtin/.config"
}

carry_oldconfig_file() {
	printf '%s/oldconfig.config\n' "$(carry_dir)"
}

carry_oldconfig_start() {
	local file
	file=$(carry_oldconfig_file)
	mkdir -p "$(dirname "$file")"
	carry_oldconfig_seed >"$file" || die "cannot generate the base config for the oldconfig variant"
}

# After a commit's oldconfig run, its olddefconfig result is what the
# tester carries to the next commit.
carry_oldconfig_advance() {
	[ ! -f "$KBRANCH_WORK/build/oldconfig/.config" ] ||
		cp "$KBRANCH_WORK/build/oldconfig/.config" "$(carry_oldconfig_file)"
}

# --- Configs neither gain nor lose on the way to the tip ---------------------
# A config made fresh at commit k (the source's own config under k's names)
# and carried to the tip must equal, in the ext4 family, the same config
# made fresh at the tip; a difference is allowed only where
# bisect-tests/compat-differences lists it for k.

carry_family() {
	grep -E '^(# )?CONFIG_(EXT[234]|EXT4DEV|JBD2|FS_MBCACHE|FS_POSIX_ACL)[A-Z0-9_]*[= ]' "$1" | sort || true
}

# Debian's config as a tester would make it at the checked-out commit: in
# the names the commit's Kconfig has.
debian_config_here() {
	if [ "$(declared kconfig)" = EXT4DEV ]; then
		debian_config_at_base
	else
		xz -dc /usr/src/linux-config-6.1/config.amd64_none_amd64.xz
	fi
}

# Make <source>'s config fresh at the checked-out commit into dir $2.
carry_fresh() {
	local source=$1 out=$2
	rm -rf "$out"
	mkdir -p "$out"
	case "$source" in
	debian) debian_config_here >"$out/.config" && carried_olddefconfig "$out" ;;
	*) bt_configure "$source" "$out/work" >>"$out.log" 2>&1 && cp "$out/work/build/$source/.config" "$out/.config" ;;
	esac
}

# Is "<check> | <k> | <line>" listed in the reviewed differences?
carry_allowed() {
	local check=$1 k=$2 line=$3 c commits l
	while IFS='|' read -r c commits l _; do
		c=${c%% } l=${l# } l=${l% }
		[[ "$c" == \#* || -z "$c" ]] && continue
		if [ "$c" != "$check" ] || [ "$l" != "$line" ]; then
			continue
		fi
		[[ ",${commits// /}," == *",$k,"* ]] && return 0
	done <"$KBRANCH_REPO/bisect-tests/compat-differences"
	return 1
}

# At every commit: record the fresh config.  At the tip: carry each earlier
# one here and compare.  Prints each unlisted difference; returns 1 if any.
carry_fresh_step() {
	local source=$1 k=$2 is_tip=$3 dir f from line bad=0
	dir=$(carry_dir)/$source/fresh
	# A new run starts at the base: no fresh config of an earlier run stays.
	[ "$k" != 0 ] || rm -rf "$dir"
	carry_fresh "$source" "$dir/$k" || { echo "cannot make the $source config fresh at commit $k (log: $dir/$k.log)"; return 1; }
	[ "$is_tip" = 1 ] || return 0
	for f in "$dir"/*/.config; do
		from=$(basename "$(dirname "$f")")
		if [ "$from" = "$k" ] || [[ ! "$from" =~ ^[0-9]+$ ]]; then
			continue
		fi
		rm -rf "$dir/carried-$from"
		mkdir -p "$dir/carried-$from"
		cp "$f" "$dir/carried-$from/.config"
		carried_olddefconfig "$dir/carried-$from" || { echo "olddefconfig failed (log: $dir/carried-$from.log)"; return 1; }
		# Only what is switched on counts: an option that did not exist
		# at commit k is missing from its config, not lost.
		while IFS= read -r line; do
			[[ "$line" == '< CONFIG_'* ]] || continue
			line=${line:2}
			carry_allowed config-gained "$from" "$line" && continue
			echo "made fresh at commit $from and carried to the tip, it gains '$line', which the same config made at the tip lacks (not in compat-differences)"
			bad=1
		done < <(diff <(carry_family "$dir/carried-$from/.config") <(carry_family "$dir/$k/.config") || true)
	done
	return "$bad"
}
