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

# The file the failed git am complained about, from its output ($1) and,
# for a corrupt patch, from the diff header above the bad line of $2.
failing_file() {
	local line named
	named=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
		-e 's/^error: \(.*\): does not exist in index$/\1/p' \
		-e 's/^error: \(.*\): patch does not apply$/\1/p' \
		-e 's/^error: \(.*\): already exists in index$/\1/p' "$1")
	[ -z "$named" ] || { printf '%s\n' "${named%%$'\n'*}"; return 0; }
	line=$(sed -n 's/^error: corrupt patch at line \([0-9]*\)$/\1/p' "$1")
	line=${line%%$'\n'*}
	[ -n "$line" ] || return 1
	git mailinfo /dev/null /dev/stdout <"$2" 2>/dev/null |
		awk -v n="$line" 'NR <= n && /^diff --git / { f = $4 } END { if (f == "") exit 1; sub(/^b\//, "", f); print f " (corrupt patch at line " n ")" }'
}

# Apply one patch as a commit.  On failure print (on stdout, for the caller's
# one-line error) why, naming the patch and the failing file, abort the am
# and return 1; the caller restores HEAD.
am_one() {
	local patch=$1 out author name email rc=0
	out=$(mktemp)
	author=$(patch_author "$patch")
	IFS='|' read -r name email _ <<<"$author"
	if [ -z "$name" ] || [ -z "$email" ]; then
		printf '%s is not a mail-format patch (no From: header)\n' "$(basename "$patch")"
		rm -f "$out"
		return 1
	fi
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
		git -C "$KTREE" am -q --committer-date-is-author-date --keep-cr "$patch" >"$out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		rm -f "$out"
		return 0
	fi
	# git dies with 128; above that, a signal ended it.
	if [ "$rc" -gt 128 ]; then
		printf '%s: interrupted\n' "$(basename "$patch")"
	else
		printf '%s does not apply: %s\n' "$(basename "$patch")" \
			"$(failing_file "$out" "$patch" || grep -m1 . "$out" || echo 'git am failed')"
	fi
	git -C "$KTREE" am --abort >/dev/null 2>&1 || true
	rm -f "$out"
	return 1
}

# The series as patch files in dir $1, written so that the same commits
# always give the same bytes: no commit hashes (--zero-commit) and no git
# version (--no-signature).
format_series() {
	kgit format-patch -q --zero-commit --no-signature -o "$1" \
		"$KB_BASE_TAG..$KBRANCH_BRANCH" >/dev/null
}
