# shellcheck shell=bash
# summary: apply series.txt onto ext4dev-base as branch ext4-rename (all or nothing)

warn_if_version_differs() {
	local verified installed
	verified=$(verified_version)
	installed=$(installed_version)
	if [ -n "$installed" ] && [ "$installed" != "$verified" ]; then
		step "note: the series was last verified against linux-source $verified; installed is $installed"
	fi
}

run() {
	[ "$#" -eq 0 ] || die "apply takes no arguments"
	# shellcheck source=branch-scripts/lib/series.sh
	. "$KB_REPO/branch-scripts/lib/series.sh"
	# shellcheck source=branch-scripts/lib/patches.sh
	. "$KB_REPO/branch-scripts/lib/patches.sh"
	require_tree
	take_lock
	require_clean_tree
	local list patches=() patch orig why n=0
	list=$(series_paths)
	mapfile -t patches <<<"$list"
	warn_if_version_differs
	restore_head_on_exit
	orig=$KB_ORIG
	kgit checkout -q --detach "$KB_BASE_TAG"
	for patch in "${patches[@]}"; do
		n=$((n + 1))
		step "applying [$n/${#patches[@]}] $(basename "$patch")"
		why=$(am_one "$patch")
		if [ -n "$why" ]; then
			restore_head_now
			die "$why; nothing applied, $KTREE is back at $orig"
		fi
	done
	kgit branch -f "$KBRANCH_BRANCH" HEAD
	KB_ORIG=$KBRANCH_BRANCH
	restore_head_now
	step "branch $KBRANCH_BRANCH: ${#patches[@]} commits on $KB_BASE_TAG, tip $(kgit rev-parse --short HEAD)"
}
