# shellcheck shell=bash
# summary: tag the tip, publish branch + tag + result notes, write the git request-pull text

PR_TAG=ext4-rename-for-next

# linux-next wants every commit signed off by its committer, and the one who
# vouches for a pull is whoever asks for it; the commits of ext4-rename are
# committed by their author, the project's placeholder.  So what gets
# published is a copy of the branch committed by you: same trees, authors,
# dates and messages, you as committer and your Signed-off-by after the
# other trailers (not twice).  ext4-rename itself is left as it is, so that
# apply, export and verify keep their reproducible hashes; the copy is as
# reproducible (same identity, same commits), and gets the verify notes.
# A commit whose author is the project's placeholder is published as
# authored by you, without the placeholder's Signed-off-by (as submit
# sends it); its credit and Link stay.
# Only objects are written (no ref), so this runs before the lock is taken.
# Sets PR_TIP, and PR_COPY[original]=copy.
signed_off_copy() {
	local c p parents an ae ad cd kind msg
	declare -gA PR_COPY=()
	PR_TIP=$(kgit rev-parse "$KB_BASE_TAG^{commit}")
	for c in $(kgit rev-list --reverse --topo-order "$KB_BASE_TAG..$KBRANCH_BRANCH"); do
		parents=()
		for p in $(kgit show -s --format=%P "$c"); do
			parents+=(-p "${PR_COPY[$p]:-$p}")
		done
		IFS=$'\t' read -r an ae ad cd < <(kgit show -s --no-use-mailmap --date=raw --format='%an%x09%ae%x09%ad%x09%cd' "$c")
		kind=$(address_kind "$ae")
		[ "$kind" != placeholder ] || an=$RUNNER_NAME ae=$RUNNER_EMAIL
		# The message is made on its own, not in the test of commit-tree's
		# status below, so that set -e holds in the function that makes it.
		msg=$(kgit cat-file commit "$c" | sed '1,/^$/d' | without_placeholder_signoffs |
			kgit interpret-trailers --where end --if-exists addIfDifferent --if-missing add \
				--trailer "Signed-off-by: $RUNNER_NAME <$RUNNER_EMAIL>")
		PR_TIP=$(printf '%s\n' "$msg" |
			GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
				GIT_COMMITTER_NAME=$RUNNER_NAME GIT_COMMITTER_EMAIL=$RUNNER_EMAIL GIT_COMMITTER_DATE=$cd \
				git -C "$KTREE" commit-tree "${parents[@]}" -F - "$c^{tree}") ||
			die "cannot make the signed-off copy of $(kgit show -s --format='%h ("%s")' "$c")"
		PR_COPY[$c]=$PR_TIP
	done
}

# A commit message without the Signed-off-by lines of placeholder addresses.
without_placeholder_signoffs() {
	local line kind
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ "$line" =~ ^Signed-off-by:\ .*\<([^\>]*)\>$ ]]; then
			kind=$(address_kind "${BASH_REMATCH[1]}")
			[ "$kind" != placeholder ] || continue
		fi
		printf '%s\n' "$line"
	done
}

# The verify results (git notes on the commits) travel with the copy too.
copy_notes() {
	local c
	for c in "${!PR_COPY[@]}"; do
		kgit notes --ref=kbranch list "$c" >/dev/null 2>&1 || continue
		[ "$(kgit notes --ref=kbranch list "$c")" = "$(kgit notes --ref=kbranch list "${PR_COPY[$c]}" 2>/dev/null)" ] ||
			kgit notes --ref=kbranch copy -f "$c" "${PR_COPY[$c]}" >/dev/null ||
			die "cannot copy the verify notes of $c"
	done
}

# The tag's signature, any git knows (openpgp, ssh, x509); nothing when it
# is not signed.
tag_signature() {
	kgit for-each-ref --format='%(contents:signature)' "refs/tags/$PR_TAG"
}

make_tag() {
	local tip=$1 mode=-a signature=
	kgit config user.signingkey >/dev/null && mode=-s
	# Looked up before it is tested: set -e does not hold in a condition.
	[ "$mode" = -a ] || signature=$(tag_signature)
	if [ "$(kgit rev-parse -q --verify "refs/tags/$PR_TAG^{commit}")" = "$tip" ] &&
		{ [ "$mode" = -a ] || [ -n "$signature" ]; }; then
		step "tag $PR_TAG already on the tip"
		return 0
	fi
	# The tagger is who publishes, named in the message too, which is
	# what git request-pull quotes.
	mkdir -p "$KBRANCH_WORK/logs"
	kgit -c "user.name=$RUNNER_NAME" -c "user.email=$RUNNER_EMAIL" tag -f "$mode" -F - "$PR_TAG" "$tip" >/dev/null 2>"$KBRANCH_WORK/logs/tag.log" <<-MSG ||
	ext4: rename ext4dev to ext4

	$(kgit log --format='%s' --reverse "$KB_BASE_TAG..$tip" | sed 's/^/ - /')

	Every commit was built, booted and checked under QEMU (kbranch verify);
	the results are in refs/notes/kbranch.  Published by
	$RUNNER_NAME <$RUNNER_EMAIL>, who signed off every commit as its committer.
	MSG
		die "git tag $mode $PR_TAG failed: $(grep -m1 . "$KBRANCH_WORK/logs/tag.log" || echo 'no message')"
	step "tagged the tip $PR_TAG ($([ "$mode" = -s ] && echo signed || echo annotated, no signing key configured))"
}

publish() {
	local url=$1 tip=$2
	# The fixture's tag too: the thread submit sends names it as the base
	# (base-commit: the packaged import, prerequisite-patch-id: the fixture).
	local refs=("$tip:refs/heads/$KBRANCH_BRANCH" "refs/tags/$PR_TAG" "refs/tags/$KB_BASE_TAG")
	if [[ "$url" != *://* ]] && [ ! -d "$url" ]; then
		# A local publishing repository borrows the kernel tree's objects
		# (alternates) instead of copying 1.5 GB; serving or cloning it
		# still gives complete repositories.
		git init -q --bare "$url" || die "cannot create bare repository $url"
		printf '%s\n' "$KTREE/.git/objects" >"$url/objects/info/alternates"
	fi
	kgit rev-parse -q --verify refs/notes/kbranch >/dev/null && refs+=(refs/notes/kbranch)
	kgit push -q -f "$url" "${refs[@]}" || die "push to $url failed"
	step "published ${refs[*]#*:} to $url"
}

run() {
	# shellcheck source=branch-scripts/lib/list.sh
	. "$KB_REPO/branch-scripts/lib/list.sh"
	[ "$#" -eq 0 ] || die "pull-request takes no arguments (set git config kbranch.publish-url / kbranch.public-url in $KTREE)"
	require_tree
	kgit rev-parse -q --verify "refs/heads/$KBRANCH_BRANCH" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	require_runner
	signed_off_copy
	step "$KBRANCH_BRANCH committed and signed off by $RUNNER_NAME <$RUNNER_EMAIL> for publishing: $(kgit rev-parse --short "$PR_TIP")"
	# What linux-next pulls is what gets checked.
	"$KB_REPO/branch-scripts/kbranch" preflight "$PR_TIP" || die "preflight failed; nothing tagged or published"
	take_lock
	local out=$KBRANCH_WORK/pull-request.txt url
	copy_notes
	make_tag "$PR_TIP"
	publish "$(publish_url)" "$PR_TIP"
	url=$(public_url)
	git -C "$KTREE" request-pull "$KB_BASE_TAG" "$url" "$PR_TAG" >"$out" ||
		die "git request-pull failed; is $PR_TAG published at $url?"
	step "pull request written to $out"
}
