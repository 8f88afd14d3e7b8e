# shellcheck shell=bash
# Applying mail-format patches to the kernel tree so that the same patches
# always give the same commits: the committer is the author and the commit
# date is the author date.  Identical hashes on every machine are what let the
# linux-next maintainer, testers and the result notes agree on a commit.

# Print "name|email|date" of the patch's author.
patch_author() {
	git mailinfo -u /dev/null /dev/null <"$1" |
		awk -F': ' '/^Author:/{n=$2} /^Email:/{e=$2} /^Date:/{d=$2} END{print n "|" e "|" d}'
}

# The file the failed git am complained about, from its output.
failing_file() {
	sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
		-e 's/^error: \(.*\): does not exist in index$/\1/p' \
		-e 's/^error: \(.*\): patch does not apply$/\1/p' \
		-e 's/^error: \(.*\): already exists in index$/\1/p' "$1" | head -n 1
}

# Apply one patch as a commit.  On failure print one line naming the patch and
# the failing file, abort the am and return 1; the caller restores HEAD.
am_one() {
	local patch=$1 out author name email
	out=$(mktemp)
	author=$(patch_author "$patch")
	IFS='|' read -r name email _ <<<"$author"
	if [ -z "$name" ] || [ -z "$email" ]; then
		printf 'kbranch: %s is not a mail-format patch (no From: header)\n' "$patch" >&2
		rm -f "$out"
		return 1
	fi
	if GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
		git -C "$KTREE" am -q --committer-date-is-author-date --keep-cr "$patch" >"$out" 2>&1; then
		rm -f "$out"
		return 0
	fi
	printf 'kbranch: %s does not apply: %s\n' "$(basename "$patch")" \
		"$(failing_file "$out" | grep . || tail -n 1 "$out")" >&2
	git -C "$KTREE" am --abort >/dev/null 2>&1 || true
	rm -f "$out"
	return 1
}
