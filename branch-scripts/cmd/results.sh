# shellcheck shell=bash
# summary: the commit x variant table of recorded verify verdicts, the packaged reference first (git notes refs/notes/kbranch)

cell() {
	local line=$1 verdict recorded current
	[ -n "$line" ] || { printf '%-16s' '-'; return 0; }
	verdict=$(note_get "$line" verdict)
	# Looked up, then compared: set -e does not hold in a function called
	# in a condition.
	recorded=$(note_value "$line" tests)/$(note_value "$line" tools)
	current=$(tests_version)/$(toolchain)
	[ "$recorded" = "$current" ] || verdict="$verdict*"
	printf '%-16s' "$verdict"
}

run() {
	[ "$#" -eq 0 ] || die "results takes no arguments"
	# shellcheck source=branch-scripts/lib/notes.sh
	. "$KB_REPO/branch-scripts/lib/notes.sh"
	require_tree
	note_prime
	local variants=("${KB_VARIANTS[@]}") commit v
	printf '%-60s' "commit"
	printf '%-16s' "${variants[@]}"
	printf '\n'
	while read -r commit; do
		printf '%-60s' "$(kgit log -1 --format='%h %s' "$commit" | cut -c1-58)"
		for v in "${variants[@]}"; do
			cell "$(note_latest "$commit" "$v")"
		done
		printf '\n'
	done < <(
		# The packaged kernel first: the reference every commit is compared with.
		kgit tag -l 'packaged/*' | while read -r tag; do kgit rev-parse "$tag^{commit}"; done
		kgit rev-parse "$KB_BASE_TAG^{commit}"
		kgit rev-list --reverse "$KB_BASE_TAG..$KBRANCH_BRANCH"
	)
	printf '(* = recorded with other tests or tools than the current ones; - = never run)\n'
}
