#!/usr/bin/env bats
# The branch: import of the packaged tree, the ext4dev base, the series, export.

load helpers

@test "import from an empty work dir tags the packaged tree and the ext4dev base" {
	[ ! -e "$KTREE" ] || skip "needs an empty work dir (ci/test gives this file a fresh one): $KTREE exists"
	run "$KBRANCH" import
	[ "$status" -eq 0 ]
	ktree rev-parse -q --verify "refs/tags/packaged/$VERSION"
	ktree rev-parse -q --verify refs/tags/ext4dev-base
	[ "$(ktree rev-list --count "packaged/$VERSION")" -eq 1 ]
}

@test "the first commit is the packaged tree, byte for byte" {
	local dir=$KBRANCH_CI_SCRATCH/pristine
	mkdir -p "$dir"
	tar -xJf /usr/src/linux-source-*.tar.xz -C "$dir" --strip-components=1
	# Index the pristine extraction on its own and compare tree hashes.
	GIT_INDEX_FILE=$KBRANCH_CI_SCRATCH/pristine.index git --git-dir="$KTREE/.git" --work-tree="$dir" add -A -f
	local pristine
	pristine=$(GIT_INDEX_FILE=$KBRANCH_CI_SCRATCH/pristine.index git --git-dir="$KTREE/.git" write-tree)
	rm -rf "$dir" "$KBRANCH_CI_SCRATCH/pristine.index"
	[ "$pristine" = "$(ktree rev-parse "packaged/$VERSION^{tree}")" ]
}

@test "re-running import with the same version is fast and changes nothing" {
	local before start
	before=$(tree_state)
	start=$SECONDS
	run "$KBRANCH" import
	[ "$status" -eq 0 ]
	[ "$((SECONDS - start))" -lt 15 ]
	[ "$(tree_state)" = "$before" ]
}

@test "import notices a changed fixture: the base is made again, the old one kept, and changing it back restores it" {
	local copy base before
	base=$(ktree rev-parse 'ext4dev-base^{commit}')
	# Runs before apply: there may be no branch yet, and it must stay so.
	before=$(ktree rev-parse -q --verify refs/heads/ext4-rename || echo none)
	copy=$(repo_copy)
	sed -i 's/^   exactly as on the packaged tree\.$/   exactly as on the packaged tree (changed)./' "$copy"/base/*.patch
	run "$copy/branch-scripts/kbranch" import
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"base/ changed since the import: ext4dev-base is now "*"kept as ext4dev-base-previous"* ]]
	[ "$(ktree rev-parse 'ext4dev-base^{commit}')" != "$base" ]
	[ "$(ktree rev-parse 'ext4dev-base-previous^{commit}')" = "$base" ]
	[ "$(ktree rev-parse -q --verify refs/heads/ext4-rename || echo none)" = "$before" ]
	# The same fixture always makes the same base commit.
	run "$KBRANCH" import
	[ "$status" -eq 0 ]
	[ "$(ktree rev-parse 'ext4dev-base^{commit}')" = "$base" ]
	ktree tag -d ext4dev-base-previous >/dev/null
}

@test "the base uses only the ext4dev names" {
	run ktree grep -nE '(^|[^A-Za-z0-9_]|CONFIG_)EXT4_FS(_POSIX_ACL|_SECURITY)?([^A-Za-z0-9_]|$)' ext4dev-base
	[ "$status" -eq 1 ]
	ktree grep -q 'obj-$(CONFIG_EXT4DEV_FS) += ext4dev.o' ext4dev-base -- fs/ext4/Makefile
	ktree grep -q 'obj-$(CONFIG_EXT4DEV_FS)' ext4dev-base -- fs/Makefile
	ktree grep -q 'CONFIG_EXT4DEV_FS_SECURITY' ext4dev-base -- scripts/selinux/mdp/mdp.c
	ktree grep -q '.name			= "ext4dev"' ext4dev-base -- fs/ext4/super.c
	ktree grep -q 'EXT2_FLAGS_TEST_FILESYS)) {' ext4dev-base -- fs/ext4/super.c
	run ktree grep -n '"ext4"' ext4dev-base -- fs/ext4/super.c
	[ "$status" -eq 1 ]
}

@test "apply puts the series on ext4dev-base as branch ext4-rename, authorship kept" {
	run "$KBRANCH" apply
	[ "$status" -eq 0 ]
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
	[ "$(ktree rev-list --count ext4dev-base..ext4-rename)" -eq "$(grep -vc '^#' "$REPO/series.txt")" ]
	local n=0 patch
	while read -r patch; do
		n=$((n + 1))
		local commit=ext4-rename~$(( $(grep -vc '^#' "$REPO/series.txt") - n ))
		[ "$(ktree log -1 --format='%an <%ae>' "$commit")" = \
		  "$(git mailinfo /dev/null /dev/null <"$REPO/patches/$patch" |
		     sed -n 's/^Author: //p; s/^Email: \(.*\)/<\1>/p' | paste -sd ' ')" ]
		ktree log -1 --format=%B "$commit" | grep -q '^Signed-off-by: '
	done < <(grep -v '^#' "$REPO/series.txt")
}

@test "the tip differs from the packaged tree only by the ext4dev compatibility code" {
	run ktree diff --numstat "packaged/$VERSION" ext4-rename
	[ "$status" -eq 0 ]
	echo "$output"
	# The compat type's Kconfig, code and documentation, and its SELinux
	# fs_use line.
	[ "$(echo "$output" | awk '{print $3}' | tr '\n' ' ')" = "Documentation/admin-guide/ext4.rst fs/ext4/Kconfig fs/ext4/super.c scripts/selinux/mdp/mdp.c " ]
	# Additions only: nothing of the packaged tree was changed or lost.
	[ "$(echo "$output" | awk '{d += $2} END {print d}')" -eq 0 ]
	[ "$(ktree grep -il ext4dev ext4-rename | tr '\n' ' ')" = "ext4-rename:Documentation/admin-guide/ext4.rst ext4-rename:fs/ext4/Kconfig ext4-rename:fs/ext4/super.c ext4-rename:scripts/selinux/mdp/mdp.c " ]
	# Every ext4dev line in the code sits inside the compatibility #ifdef,
	# or tests IS_EXT4DEV_SB, or is one of the two warnings under it, or
	# (un)registers the type.
	ktree show ext4-rename:fs/ext4/super.c | awk '
		/^#ifdef CONFIG_EXT4DEV_COMPAT/ { inside = 1 }
		/^#endif/ { inside = 0 }
		tolower($0) ~ /ext4dev/ && !inside && !/IS_EXT4DEV_SB\(sb\)/ && !/register_as_ext4dev\(\);/ &&
			!/"mounted as ext4dev, which is deprecated/ && !/"blkid reports ext4dev while the test_fs flag is set/ {
			print "outside compat: " $0; bad = 1 }
		END { exit bad }'
	# mdp.c's ext4dev fs_use line too.
	ktree show ext4-rename:scripts/selinux/mdp/mdp.c | awk '
		/^#ifdef CONFIG_EXT4DEV_COMPAT/ { inside = 1 }
		inside && /^#endif/ { inside = 0 }
		/ext4dev/ && !inside { print "outside compat: " $0; bad = 1 }
		END { exit bad }'
}

@test "apply says so when the installed linux-source is not the one the series was verified on" {
	local copy
	copy=$(repo_copy)
	echo 6.1.0-0 >"$copy/base/linux-source.version"
	run "$copy/branch-scripts/kbranch" apply
	[ "$status" -eq 0 ]
	[[ "$output" == *"last verified against linux-source 6.1.0-0; installed is $VERSION"* ]]
	# ... before it starts.
	[ "$(grep -n 'last verified' <<<"$output" | cut -d: -f1)" -lt "$(grep -n 'applying \[1/' <<<"$output" | cut -d: -f1)" ]
}

@test "apply then export leaves the repository byte-identical" {
	local copy
	copy=$(repo_copy)
	run "$copy/branch-scripts/kbranch" apply
	[ "$status" -eq 0 ]
	# What export writes, and only that, is compared with the committed
	# series: the copy's patches and series entries go first (its header
	# stays: export keeps it).
	rm "$copy"/patches/*.patch
	sed -i '/^#/!d' "$copy/series.txt"
	run "$copy/branch-scripts/kbranch" export
	[ "$status" -eq 0 ]
	diff -r "$REPO/patches" "$copy/patches"
	cmp "$REPO/series.txt" "$copy/series.txt"
}

@test "a series entry naming a missing file is refused before anything is touched" {
	local copy before
	copy=$(repo_copy)
	echo 0005-does-not-exist.patch >>"$copy/series.txt"
	before=$(tree_state)
	must_fail_with_one_line "$copy/branch-scripts/kbranch" apply
	[[ "$stderr" == *"0005-does-not-exist.patch does not exist"* ]]
	[ "$(tree_state)" = "$before" ]
}

@test "a corrupt patch is named with its file and leaves the tree as it was" {
	local copy before patch damaged
	copy=$(repo_copy)
	patch=$(ls "$copy"/patches/0003-*.patch)
	# Damage a context line of the first hunk so that it cannot apply.
	sed -i '0,/^ #ifdef/s//~#ifdef/' "$patch"
	damaged=$(awk '/^diff --git/ { f = substr($4, 3) } /^~#ifdef/ { print f; exit }' "$patch")
	before=$(tree_state)
	run --separate-stderr "$copy/branch-scripts/kbranch" apply
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"$(basename "$patch")"* ]]
	[[ "$stderr" == *"does not apply: $damaged (corrupt patch"* ]]
	[ "$(tree_state)" = "$before" ]
	[ ! -d "$KTREE/.git/rebase-apply" ]
}

@test "a patch whose context does not match names the failing file" {
	local copy before patch
	copy=$(repo_copy)
	patch=$(ls "$copy"/patches/0004-*.patch)
	sed -i 's/^-\t \* Since ext4 is still considered development code/-\t * Since ext4 is still experimental code/' "$patch"
	grep -q '^-.* Since ext4 is still experimental code' "$patch"
	before=$(tree_state)
	run --separate-stderr "$copy/branch-scripts/kbranch" apply
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"$(basename "$patch") does not apply: fs/ext4/super.c"* ]]
	[ "$(tree_state)" = "$before" ]
}

@test "a dirty kernel tree is refused and left dirty" {
	echo "/* local change */" >>"$KTREE/fs/ext4/super.c"
	must_fail_with_one_line "$KBRANCH" apply
	[[ "$stderr" == *"uncommitted changes"* ]]
	run ktree diff --quiet
	[ "$status" -eq 1 ]
	ktree checkout -q -- fs/ext4/super.c
}

@test "an unknown subcommand is a one-line error" {
	must_fail_with_one_line "$KBRANCH" frobnicate
	[[ "$stderr" == *"unknown subcommand 'frobnicate'"* ]]
}

@test "help lists the subcommands" {
	run "$KBRANCH" help
	[ "$status" -eq 0 ]
	[[ "$output" == *import* && "$output" == *apply* && "$output" == *export* ]]
}

@test "shell scripts pass shellcheck" {
	run shellcheck -x "$KBRANCH" "$REPO"/branch-scripts/lib/*.sh "$REPO"/branch-scripts/cmd/* "$REPO"/branch-scripts/libexec/patatt "$REPO"/branch-scripts/libexec/get-maintainer \
		"$REPO"/ci/test "$REPO"/ci/timing-table "$REPO"/.ci/run "$REPO"/bisect-tests/run "$REPO"/bisect-tests/lib/*.sh \
		"$REPO"/bisect-tests/debian/make-image "$REPO"/ci/canned/regenerate
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the C programs (guest, kconfig-batch) are checkpatch clean" {
	run "$KTREE/scripts/checkpatch.pl" --no-tree --strict -f "$REPO"/bisect-tests/guest/*.c "$REPO"/branch-scripts/libexec/kconfig-batch.c
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^total: 0 errors, 0 warnings, 0 checks' <<<"$output")" -eq 2 ]
}
