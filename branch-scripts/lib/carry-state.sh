# shellcheck shell=bash
# Carried results keyed by their chain.  A carried config's verdict at a
# commit depends on the config it started from, every tree it was carried
# through, the tests and the tools.  Its note is keyed by a hash of all of
# them, and its state after that commit is kept under the same key, so that
# a re-run skips what passed and a changed commit re-runs only itself and
# what follows it.

# At the tip a carried-* point also compares the configs made at every
# earlier commit: the same chain as an inner commit is another check.
carry_chain_key() {
	local variant=$1 commit=$2 is_tip=$3 source=$1 kind from
	# Looked up first, not inside the tests: set -e holds in them there.
	kind=$(variant_kind "$variant")
	from=$(variant_source "$variant")
	[ "$kind" = kconfig ] || is_tip=-
	[ "$from" != debian ] || source+=-$(sha256sum <"$KBRANCH_DEBIAN_CONFIG" 2>/dev/null | cut -c1-12)
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
	local variant=$1 k=$2 dir kind shapes
	kind=$(variant_kind "$variant")
	if [ "$kind" = carried ]; then
		carry_oldconfig_name "$variant"
		return
	fi
	dir=$(variant_source "$variant")
	printf '%s\n' "$dir/base.config" "$dir/want" "$dir/stepped/.config" "$dir/fresh/$k/.config"
	shapes=$(variant_trait "$variant" shapes)
	[ "$shapes" = no ] || shapes_state_file "$variant"
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
	local variant=$1 key=$2 k=$3 state kind
	state=$(carry_state_dir "$variant" "$key")
	[ -d "$state" ] || return 1
	# A new chain starts at the base: no fresh config of another one stays.
	if [ "$k" = 0 ]; then
		kind=$(variant_kind "$variant")
		[ "$kind" != kconfig ] || rm -rf "$(carry_dir)/$(variant_source "$variant")/fresh"
	fi
	cp -R "$state/." "$(carry_dir)/"
}
