# shellcheck shell=bash
# summary: the linux-next maintainer's checks on a branch (default ext4-rename): sign-offs, no merges, empty commits or .rej/.orig files, base, Fixes:/Link: tags, builds

# Each check prints one "FAIL <commit>: <why>" line per problem.
pf_signoffs() {
	local c=$1 body author committer
	body=$(kgit log -1 --format=%B "$c")
	author=$(kgit log -1 --format='%an <%ae>' "$c")
	committer=$(kgit log -1 --format='%cn <%ce>' "$c")
	grep -qxF "Signed-off-by: $author" <<<"$body" || echo "FAIL $(short "$c"): no Signed-off-by from its author $author"
	[ "$committer" = "$author" ] || grep -qxF "Signed-off-by: $committer" <<<"$body" ||
		echo "FAIL $(short "$c"): no Signed-off-by from its committer $committer"
}

pf_not_empty() {
	kgit diff --quiet "$1^" "$1" && echo "FAIL $(short "$1"): empty commit"
	return 0
}

# No *.rej or *.orig file added: the leftovers of a patch that half applied.
pf_leftovers() {
	local c=$1 f
	while IFS= read -r f; do
		echo "FAIL $(short "$c"): adds $f, a leftover of a patch that did not apply"
	done < <(kgit diff --name-only --diff-filter=A "$c^" "$c" | grep -E '\.(rej|orig)$' || true)
}

# Fixes: tags as linux-next checks them (sfr's check_fixes), in its terms:
# "Fixes: <SHA1 of 12+ digits> ("<the target's subject>")", the target an
# ancestor of the commit.  Prints each problem of one tag's value.
fixes_problems() {
	local c=$1 value=$2 sha spaces rest subject target
	if [[ "$value" =~ ^[Cc][Oo][Mm][Mm][Ii][Tt][[:space:]] ]]; then
		echo "leading word 'commit' unexpected"
		value=${value#*[[:space:]]}
	fi
	[[ "$value" =~ ^([0-9a-fA-F]{5,})([[:space:]]*)(.*)$ ]] || { echo "No SHA1 recognised"; return 0; }
	sha=${BASH_REMATCH[1]} spaces=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
	# "abc123("...")" is not the form, and a script that takes the tag's
	# first word for the SHA1 gets the subject with it.
	[ -z "$rest" ] || [ -n "$spaces" ] || echo "missing space between the SHA1 and the subject"
	[ "${#sha}" -ge 12 ] || echo "SHA1 should be at least 12 digits long"
	case "$rest" in
	'("'*'")') subject=${rest:2:-2} ;;
	'("'*')') echo "Subject has leading but no trailing quotes"; subject=${rest:2:-1} ;;
	'('*'")') echo "Subject has trailing but no leading quotes"; subject=${rest:1:-2} ;;
	'('*')') echo "Subject is not in quotes"; subject=${rest:1:-1} ;;
	'('*)
		echo "Subject has leading but no trailing parentheses"
		subject=${rest#(} subject=${subject#\"} subject=${subject%\"}
		;;
	*) echo "No subject in (\"...\") after the SHA1"; subject=$rest ;;
	esac
	if ! target=$(kgit rev-parse -q --verify "$sha^{commit}"); then
		echo "Target SHA1 does not exist"
		return 0
	fi
	kgit merge-base --is-ancestor "$target" "$c" || echo "Target is not an ancestor of this commit"
	[ "$subject" = "$(kgit log -1 --format=%s "$target")" ] || echo "Subject does not match target commit subject"
}

# check_fixes finds a Fixes: tag in any case and indented, and checks its
# value.  Its form is refused too, as checkpatch's BAD_FIXES_TAG refuses
# it: git reads an indented line among the trailers as the end of the one
# above (git interpret-trailers --parse), and whoever collects fixes with
# git log --grep='^Fixes:' misses an indented tag and a FIXES: one alike.
# Prints each problem of the tag's key.
fixes_key_problems() {
	local indent=$1 key=$2
	[ -z "$indent" ] || echo "indented; a tag starts at the beginning of its line"
	[ "$key" = Fixes ] || echo "spelled '$key:', not 'Fixes:'"
}

# Fixes: and Link: tags, one line per problem naming the tag.
pf_tags() {
	local c=$1 line problem
	while IFS= read -r line; do
		if [[ "$line" =~ ^([[:space:]]*)([Ff][Ii][Xx][Ee][Ss]):[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]]; then
			while IFS= read -r problem; do
				echo "FAIL $(short "$c"): Fixes tag '$line': $problem"
			done < <(fixes_key_problems "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
				fixes_problems "$c" "${BASH_REMATCH[3]}")
		elif [[ "$line" == Link:* ]]; then
			[[ "$line" =~ ^Link:\ https?://[^[:space:]]+$ ]] || echo "FAIL $(short "$c"): malformed Link tag '$line': not 'Link: <http(s) URL>'"
		fi
	done < <(kgit log -1 --format=%B "$c")
}

short() {
	kgit log -1 --format='%h ("%s")' "$1"
}

# linux-next takes a linear series: each merge is named, for the one who
# rebases it away.
pf_merges() {
	local m
	for m in $(kgit rev-list --merges "$KB_BASE_TAG..$1"); do
		echo "FAIL $(short "$m"): merge commit"
	done
}

pf_branch() {
	local branch=$1 version
	version=packaged/$(base_version)
	pf_merges "$branch"
	kgit merge-base --is-ancestor "$KB_BASE_TAG" "$branch" || echo "FAIL $branch: not based on $KB_BASE_TAG"
	kgit merge-base --is-ancestor "$version" "$KB_BASE_TAG" || echo "FAIL $branch: base is not on the packaged import $version"
}

# The tip builds, configured like the builtin variant (log printed on failure).
pf_builds() {
	local branch=$1 log=$KBRANCH_WORK/logs/preflight-build.log rc
	mkdir -p "${log%/*}"
	: >"$log"
	kgit checkout -q --detach "$branch"
	# A job of its own, whose status is read: set -e holds in the build.
	rc=$(exit_status_of /dev/null pf_build_into "$log")
	[ "$rc" = 0 ] || echo "FAIL $branch: does not build (log: $log)"
}

# Configure and build the checked-out tree, its output (both streams)
# added to log $1.
pf_build_into() {
	{
		kbuild_configure
		kbuild_make all
	} >>"$1" 2>&1
}

preflight_failures() {
	local branch=$1 c
	pf_branch "$branch"
	for c in $(kgit rev-list --reverse --no-merges "$KB_BASE_TAG..$branch"); do
		pf_signoffs "$c"
		pf_not_empty "$c"
		pf_leftovers "$c"
		pf_tags "$c"
	done
	[ "$KBRANCH_PREFLIGHT_BUILD" = 0 ] || pf_builds "$branch"
}

run() {
	[ "$#" -le 1 ] || die "usage: kbranch preflight [BRANCH]"
	local branch=${1:-$KBRANCH_BRANCH} failures
	# shellcheck source=branch-scripts/lib/kbuild.sh
	. "$KB_REPO/branch-scripts/lib/kbuild.sh"
	require_tree
	take_lock
	require_clean_tree
	kgit rev-parse -q --verify "$branch^{commit}" >/dev/null || die "no branch $branch in $KTREE"
	restore_head_on_exit
	step "preflight of $branch: sign-offs, merges, empty commits, .rej/.orig files, base, Fixes:/Link:, build"
	failures=$(preflight_failures "$branch")
	if [ -n "$failures" ]; then
		printf '%s\n' "$failures"
		die "preflight: $(grep -c . <<<"$failures") problem(s) on $branch"
	fi
	step "preflight: $branch passes"
}
