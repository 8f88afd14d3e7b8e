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

# Debian's own amd64 config for this kernel, written in the base's names.
debian_config_at_base() {
	local src=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
	[ -f "$src" ] || die "no $src; install linux-config-6.1"
	xz -dc "$src" | sed -E 's/^(# )?CONFIG_EXT4_FS(_POSIX_ACL|_SECURITY)?([= ])/\1CONFIG_EXT4DEV_FS\2\3/'
}

# Take Debian's config one commit further; print what it lost, if anything.
carry_debian_step() {
	local is_base=$1 dir fs acl sec log
	dir=$(carry_dir)/debian
	log=$dir.log
	mkdir -p "$dir"
	[ "$is_base" = 0 ] || debian_config_at_base >"$dir/.config"
	make -C "$KTREE" O="$dir" ARCH=x86_64 olddefconfig >>"$log" 2>&1 || { echo "olddefconfig failed (log: $log)"; return 0; }
	read -r fs acl sec < <(used_symbols)
	[ "$(config_of "$fs" "$dir/.config")" = m ] || echo "$fs=$(config_of "$fs" "$dir/.config"), Debian has ext4=m"
	[ "$(config_of "$acl" "$dir/.config")" = y ] || echo "$acl=$(config_of "$acl" "$dir/.config"), Debian has ACL=y"
	[ "$(config_of "$sec" "$dir/.config")" = y ] || echo "$sec=$(config_of "$sec" "$dir/.config"), Debian has security labels=y"
}

# The tester's .config for the oldconfig variant: the builtin variant's
# config as generated at ext4dev-base, with the old names.
carry_oldconfig_seed() {
	bt_configure_builtin "$(carry_dir)/seed" >&2 || return 1
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
