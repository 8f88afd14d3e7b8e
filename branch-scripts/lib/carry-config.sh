# shellcheck shell=bash
# The carried configs, made: a tester's config at ext4dev-base with the old
# names (Debian's own, or a variant's), the same config made fresh at a
# commit, and olddefconfig, which takes a config to the checked-out commit
# (lib/carry.sh says what is carried; Kconfig runs through
# lib/kconfig.sh).

CARRY_DIR_NAME=carry

carry_dir() {
	printf '%s/%s\n' "$KBRANCH_WORK" "$CARRY_DIR_NAME"
}

config_of() {
	sed -n "s/^$1=//p" "$2" | grep . || echo n
}

# Debian's own amd64 config for this kernel, written in the base's names.
debian_config_at_base() {
	local src="$KBRANCH_DEBIAN_CONFIG"
	[ -f "$src" ] || { echo "no $src; install linux-config-6.1" >&2; return 1; }
	xz -dc "$src" | sed -E 's/^(# )?CONFIG_EXT4_FS(_POSIX_ACL|_SECURITY)?([= ])/\1CONFIG_EXT4DEV_FS\2\3/'
}

# The .config a tester of <source> has at ext4dev-base (checked out).  Its
# caller runs it as a job of its own (exit_status_of): set -e holds in it.
carry_seed() {
	local source=$1 seed
	seed=$(carry_dir)/seed
	case "$source" in
	debian) debian_config_at_base ;;
	*)
		bt_config_into "$source" "$seed" "$seed/$source.config"
		cat "$seed/$source.config"
		;;
	esac
}

# ext4, ACL and security labels in config $1, under the names the
# checked-out commit builds from.
carry_values() {
	local fs acl sec
	read -r fs acl sec < <(used_symbols)
	printf 'ext4=%s acl=%s security=%s\n' "$(config_of "$fs" "$1")" \
		"$(config_of "$acl" "$1")" "$(config_of "$sec" "$1")"
}

# olddefconfig of the .config in each dir given, at the checked-out commit,
# from one parse of Kconfig (kconfig_batch, lib/kconfig.sh).
carry_olddefconfig() {
	local d
	kconfig_env x86_64 arch/x86/configs/x86_64_defconfig
	for d in "$@"; do
		printf 'olddefconfig %s %s\n' "$d/.config" "$d/.config"
	done | kconfig_batch x86_64 "$(carry_olddefconfig_log)"
}

carry_olddefconfig_log() {
	printf '%s/olddefconfig.log\n' "$(carry_dir)"
}

# The tester's .config for a carried variant $1: its reference variant's
# config as generated at ext4dev-base, with the old names.
carry_oldconfig_seed() {
	local reference
	reference=$(variant_reference "$1")
	bt_config_into "$reference" "$(carry_dir)/seed" "$(carry_dir)/seed/$reference.config"
	cat "$(carry_dir)/seed/$reference.config"
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
	local variant=$1 file rc
	file=$(carry_oldconfig_file "$variant")
	mkdir -p "$(dirname "$file")"
	rc=$(exit_status_of "$file" carry_oldconfig_seed "$variant")
	[ "$rc" = 0 ] || die "cannot generate the base config for the $variant variant"
}

# After a commit's run of carried variant $1, the .config it built ($2,
# its RESULT's config=) is what the tester carries to the next commit.
carry_oldconfig_advance() {
	[ ! -f "$2" ] || cp "$2" "$(carry_oldconfig_file "$1")"
}

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
	local names
	names=$(declared kconfig)
	if [ "$names" = EXT4DEV ]; then
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
	carry_olddefconfig "$dir"
	cp "$dir/.config" "$out"
}

# Make <source>'s config fresh at the checked-out commit into dir $2, in
# the source's kept work dir.  Its callers run it as a job of its own
# (exit_status_of), so that set -e holds in it.
carry_fresh() {
	local source=$1 out=$2 work
	work=$(carry_dir)/$source
	rm -rf "$out"
	mkdir -p "$out"
	case "$source" in
	debian)
		debian_config_here >"$out/debian.config"
		olddefconfig_into "$work/kconfig" "$out/debian.config" "$out/.config"
		;;
	*)
		bt_config_into "$source" "$work/fresh-work" "$out/.config" 2>>"$out.log"
		;;
	esac
}
