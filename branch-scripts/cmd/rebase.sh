# shellcheck shell=bash
# summary: move the series onto an imported newer linux-source (3-way), or stop with a port report and nothing changed; then range-diff, export, verify; VERSION [--report-only] [--variant NAME]...

parse_rebase_args() {
	REBASE_VERSION=
	REBASE_REPORT_ONLY=0
	REBASE_VERIFY=()
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--report-only) REBASE_REPORT_ONLY=1; shift ;;
		--variant) [ -n "${2:-}" ] || die "--variant needs a name"; REBASE_VERIFY+=(--variant "$2"); shift 2 ;;
		-*) die "rebase: unknown option '$1' (usage: kbranch rebase VERSION [--report-only] [--variant NAME]...)" ;;
		*) [ -z "$REBASE_VERSION" ] || die "rebase takes one version"; REBASE_VERSION=$1; shift ;;
		esac
	done
	[ -n "$REBASE_VERSION" ] || die "usage: kbranch rebase VERSION [--report-only] [--variant NAME]..."
}

# Cherry-pick (a 3-way merge) each commit of the series onto the new base
# in a scratch worktree; the main tree, the branch and the tags are not
# touched.  Each commit keeps its author, and is committed as by "kbranch
# apply" (committer = author, at the author's date), so the same series on
# the same base gives the same hashes.  Prints the new tip; nothing when a
# commit does not pick (an answer printed, not a status, so that the
# caller need not test it in a condition, where set -e would not hold).
pick_series() {
	local onto=$1 wt=$2 commit name email date
	kgit worktree add -q --detach "$wt" "$onto" || die "cannot check $onto out in $wt"
	for commit in $(kgit rev-list --reverse "$KB_BASE_TAG..$KBRANCH_BRANCH"); do
		step "rebase: $(kgit log -1 --format='%h %s' "$commit")" >&2
		{ IFS= read -r -d '' name && IFS= read -r -d '' email && IFS= read -r -d '' date; } < <(kgit log -1 --date=raw --format='%an%x00%ae%x00%ad%x00' "$commit")
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date \
			git -C "$wt" cherry-pick --allow-empty "$commit" >/dev/null 2>&1 || return 0
	done
	git -C "$wt" rev-parse HEAD
}

# The new ext4dev-base: a tag object named ext4dev-base with the message
# of ext4dev-base-<version> (the fixture id import compares), made (git
# mktag, by the caller) before any ref moves.
base_tag_text() {
	local ref=$1
	printf 'object %s\ntype commit\ntag %s\ntagger kbranch <kbranch@localhost> %s +0000\n\n%s\n' \
		"$(kgit rev-parse "$KB_BASE_TAG-$ref^{commit}")" "$KB_BASE_TAG" "$(date +%s)" \
		"$(kgit tag -l --format='%(contents)' "$KB_BASE_TAG-$ref" | sed '/^$/d')"
}

# After the move: the version the series is verified against, the
# patches, and the verification.  Also what a re-run does when a run was
# stopped after the move.
after_move() {
	local version=$1
	printf '%s\n' "$version" >"$KB_REPO/base/linux-source.version"
	"$KB_REPO/branch-scripts/kbranch" export
	step "rebase: base/linux-source.version says $version; verifying the series on it"
	"$KB_REPO/branch-scripts/kbranch" verify "${REBASE_VERIFY[@]}"
}

# Ctrl-C while the series is picked: drop the scratch worktree, say that
# nothing changed, and die of the same signal.
picks_interrupted() {
	local signal=$1 wt=$2
	drop_worktree "$wt"
	step "rebase: interrupted; nothing changed: $KBRANCH_BRANCH is still on $(base_version)"
	trap - "$signal"
	kill "-$signal" "$$"
}

run() {
	parse_rebase_args "$@"
	# shellcheck source=branch-scripts/lib/port.sh
	. "$KB_REPO/branch-scripts/lib/port.sh"
	# shellcheck source=branch-scripts/lib/patches.sh
	. "$KB_REPO/branch-scripts/lib/patches.sh"
	require_tree
	take_lock
	require_clean_tree
	local version=$REBASE_VERSION ref on old_base old_version old_tip new_tip tag text wt=$KBRANCH_WORK/rebase.wt
	ref=$(version_ref "$version")
	kgit rev-parse -q --verify "refs/tags/packaged/$ref" >/dev/null ||
		die "linux-source $version is not imported; run 'kbranch import --source FILE' with its tarball or .deb"
	kgit rev-parse -q --verify "refs/heads/$KBRANCH_BRANCH" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	# A scratch worktree of a run that was stopped.
	drop_worktree "$wt"
	if [ "$REBASE_REPORT_ONLY" -eq 1 ]; then
		port_report "$version"
		return 0
	fi
	kgit rev-parse -q --verify "refs/tags/$KB_BASE_TAG-$ref" >/dev/null ||
		die "the base fixture does not apply to linux-source $version; 'kbranch rebase $version --report-only' says where"
	on=$(base_version)
	if [ "$on" = "$ref" ]; then
		step "rebase: the series is on linux-source $version already"
		after_move "$version"
		return
	fi
	old_base=$(kgit rev-parse "$KB_BASE_TAG^{commit}")
	old_tip=$(kgit rev-parse "refs/heads/$KBRANCH_BRANCH")
	# Until the refs move, an interruption leaves only the scratch worktree.
	trap 'picks_interrupted INT "$wt"' INT
	trap 'picks_interrupted TERM "$wt"' TERM
	new_tip=$(pick_series "$KB_BASE_TAG-$ref" "$wt")
	if [ -z "$new_tip" ]; then
		drop_worktree "$wt"
		port_report "$version" >&2
		die "the series does not apply to linux-source $version (report above); nothing changed: $KBRANCH_BRANCH is still on $(base_version)"
	fi
	drop_worktree "$wt"
	text=$(base_tag_text "$ref")
	tag=$(printf '%s\n' "$text" | git -C "$KTREE" mktag) || die "cannot make the new $KB_BASE_TAG tag"
	# The old base keeps a name of its own, and its commits their notes.
	old_version=$(base_version)
	kgit rev-parse -q --verify "refs/tags/$KB_BASE_TAG-$old_version" >/dev/null ||
		kgit tag -a -m "$(kgit tag -l --format='%(contents)' "$KB_BASE_TAG" | sed '/^$/d')" \
			"$KB_BASE_TAG-$old_version" "$old_base"
	# HEAD leaves the branch while its ref moves; it is put back on exit.
	restore_head_on_exit
	kgit checkout -q --detach
	printf 'update refs/heads/%s %s %s\nupdate refs/tags/%s %s\n' \
		"$KBRANCH_BRANCH" "$new_tip" "$old_tip" "$KB_BASE_TAG" "$tag" | kgit update-ref --stdin ||
		die "cannot move $KBRANCH_BRANCH and $KB_BASE_TAG; nothing changed"
	restore_head_now
	step "rebase: $KBRANCH_BRANCH moved from $(kgit describe --tags --always "$old_base" 2>/dev/null || echo "${old_base:0:12}") to $KB_BASE_TAG-$ref; the old base stays as tag $KB_BASE_TAG-<its version>, its notes kept"
	kgit --no-pager range-diff "$old_base..$old_tip" "$KB_BASE_TAG..$KBRANCH_BRANCH"
	after_move "$version"
}
