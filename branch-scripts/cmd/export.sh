# shellcheck shell=bash
# summary: write branch ext4-rename back to patches/ and series.txt (git format-patch)

# Keep series.txt's leading comment block; the entries are regenerated.
series_header() {
	[ -f "$KB_REPO/series.txt" ] || return 0
	sed -n '/^#/!q; p' "$KB_REPO/series.txt"
}

run() {
	[ "$#" -eq 0 ] || die "export takes no arguments"
	# shellcheck source=branch-scripts/lib/patches.sh
	. "$KB_REPO/branch-scripts/lib/patches.sh"
	require_tree
	take_lock
	kgit rev-parse -q --verify "refs/heads/$KBRANCH_BRANCH" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	[ -z "$(kgit rev-list --merges "$KB_BASE_TAG..$KBRANCH_BRANCH")" ] ||
		die "branch $KBRANCH_BRANCH has merge commits; a patch series cannot hold them"
	[ -n "$(kgit rev-list "$KB_BASE_TAG..$KBRANCH_BRANCH")" ] ||
		die "branch $KBRANCH_BRANCH has no commits on $KB_BASE_TAG"
	KB_TMP=$(mktemp -d)
	trap 'rm -rf "$KB_TMP"' EXIT
	local tmp=$KB_TMP
	format_series "$tmp/patches"
	{
		series_header
		(cd "$tmp/patches" && ls -1)
	} >"$tmp/series.txt"
	# Replace the old series only once the new one is complete.
	rm -f "$KB_REPO"/patches/*.patch
	mkdir -p "$KB_REPO/patches"
	cp "$tmp"/patches/*.patch "$KB_REPO/patches/"
	cp "$tmp/series.txt" "$KB_REPO/series.txt"
	local written=("$tmp"/patches/*.patch)
	step "exported ${#written[@]} patches to $KB_REPO/patches and series.txt"
}
