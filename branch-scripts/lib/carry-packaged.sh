# shellcheck shell=bash
# At the tip, the packaged tree's answer, line for line.  A carried
# config's packaged form is the same config under the new names, made at
# packaged/<version>: Debian's config as Debian ships it, a variant's
# config from its fragments (oldconfig's is builtin's).  At the tip every
# carried config must equal it in the ext4 family (lib/carry-check.sh),
# except lines that bisect-tests/compat-differences lists as config-packaged
# there.

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

# Whether a packaged form is missing: "yes" or "no".  A lookup, not a
# test: a function called in a condition runs without set -e.
carry_packaged_missing() {
	local source file
	for source in $(carry_packaged_sources); do
		file=$(carry_packaged_file "$source")
		[ -s "$file" ] || { echo yes; return 0; }
	done
	echo no
}

# Make the missing packaged forms (after carry_packaged_key), with
# packaged/<version> checked out: Kconfig only, so verify runs it beside the
# references' builds.
carry_packaged_forms() {
	local source out rc
	for source in $(carry_packaged_sources); do
		out=$(carry_packaged_file "$source")
		[ ! -s "$out" ] || continue
		mkdir -p "$(dirname "$out")"
		rc=$(exit_status_of /dev/null carry_packaged_make "$source" "$out")
		[ "$rc" = 0 ] || die "cannot make the packaged form of the $source config (log: $out.log)"
		mv "$out.tmp" "$out"
	done
}

# The packaged form of <source> into $2.tmp.  Run as a job of its own
# (exit_status_of), so that set -e holds in it and its failure is read.
carry_packaged_make() {
	local source=$1 out=$2
	case "$source" in
	debian)
		xz -dc "$KBRANCH_DEBIAN_CONFIG" >"$out.in"
		olddefconfig_into "$(carry_dir)/debian/kconfig" "$out.in" "$out.tmp"
		;;
	*)
		bt_config_into "$source" "$(carry_dir)/packaged-work" "$out.tmp" 2>>"$out.log"
		;;
	esac
}
