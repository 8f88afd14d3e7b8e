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
# for a corrupt patch, from the diff header above the bad line of $2;
# nothing when neither names one (a lookup, not a test: set -e does not
# hold in a function called in a condition).
failing_file() {
	local line named
	named=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
		-e 's/^error: \(.*\): does not exist in index$/\1/p' \
		-e 's/^error: \(.*\): patch does not apply$/\1/p' \
		-e 's/^error: \(.*\): already exists in index$/\1/p' "$1")
	[ -z "$named" ] || { printf '%s\n' "${named%%$'\n'*}"; return 0; }
	line=$(sed -n 's/^error: corrupt patch at line \([0-9]*\)$/\1/p' "$1")
	line=${line%%$'\n'*}
	[ -n "$line" ] || return 0
	git mailinfo /dev/null /dev/stdout <"$2" 2>/dev/null |
		awk -v n="$line" 'NR <= n && /^diff --git / { f = $4 } END { if (f == "") exit 1; sub(/^b\//, "", f); print f " (corrupt patch at line " n ")" }' || true
}

# Apply one patch as a commit; print nothing.  On failure print instead (on
# stdout, for the caller's one-line error) why, naming the patch and the
# failing file, and abort the am; the caller restores HEAD.  The answer is
# what it prints, not its status, so that no caller tests it in a
# condition, where set -e would not hold.
am_one() {
	local patch=$1 out author name email rc=0 file
	out=$(mktemp)
	author=$(patch_author "$patch")
	IFS='|' read -r name email _ <<<"$author"
	if [ -z "$name" ] || [ -z "$email" ]; then
		printf '%s is not a mail-format patch (no From: header)\n' "$(basename "$patch")"
		rm -f "$out"
		return 0
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
		file=$(failing_file "$out" "$patch")
		[ -n "$file" ] || file=$(grep -m1 . "$out" || echo 'git am failed')
		printf '%s does not apply: %s\n' "$(basename "$patch")" "$file"
	fi
	git -C "$KTREE" am --abort >/dev/null 2>&1 || true
	rm -f "$out"
}

# The series as patch files in dir $1, written so that the same commits
# always give the same bytes: no commit hashes (--zero-commit) and no git
# version (--no-signature).
format_series() {
	kgit format-patch -q --zero-commit --no-signature -o "$1" \
		"$KB_BASE_TAG..$KBRANCH_BRANCH" >/dev/null
}
