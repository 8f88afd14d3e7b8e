#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr: set by bats' run
# The branch over time, on real versions from Debian's archive: the oldest
# other linux-source-6.1 is imported and the series applied and verified
# there; the current version is imported beside it and "kbranch rebase"
# moves the series; linux-source-6.12 gets the port report.  In a work dir
# and a copy of this repository of their own (rebase writes base/ and
# patches/).

load helpers

RW=$KBRANCH_CI_SCRATCH/rebase

# Everything in RW's tree that a refused or stopped command must keep.
rw_state() {
	git -C "$RW/work/linux" for-each-ref --format='%(refname) %(objectname)' refs/heads refs/tags refs/notes
	git -C "$RW/work/linux" rev-parse HEAD
	git -C "$RW/work/linux" status --porcelain
}

rw() {
	KBRANCH_WORK=$RW/work "$RW/repo/branch-scripts/kbranch" "$@"
}

# The oldest linux-source-6.1 the archive offers other than the current.
oldest_other() {
	apt-cache madison linux-source-6.1 | awk '{ print $3 }' | grep -vxF "$VERSION" |
		while read -r v; do printf '%s\n' "$v"; done | sort -V | head -n 1
}

# A linux-source-6.1 package of version $1 that holds its control file
# and nothing else: all import reads of a .deb before it extracts the
# tarball (its Package and Version).  Made in the test's directory, so
# that setup's ls of RW/debs still finds the old end's alone; its path.
control_only_deb() {
	local dir=$BATS_TEST_TMPDIR/control-only deb=$BATS_TEST_TMPDIR/linux-source-6.1_${1}_all.deb
	mkdir -p "$dir/DEBIAN"
	printf '%s\n' 'Package: linux-source-6.1' "Version: $1" 'Architecture: all' 'Maintainer: CI <ci@localhost>' \
		'Description: the control fields of a linux-source package, without its tarball' >"$dir/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$dir" "$deb" >/dev/null
	printf '%s\n' "$deb"
}

setup_file() {
	rm -rf "$RW"
	mkdir -p "$RW/debs" "$RW/work"
	cp -a "$(repo_copy)" "$RW/repo"
	OLD=$(oldest_other)
	[ -n "$OLD" ] || { echo "no linux-source-6.1 other than $VERSION in the archive" >"$RW/skip"; return 0; }
	echo "$OLD" >"$RW/old"
	(cd "$RW/debs" && apt-get download -q "linux-source-6.1=$OLD" 2>&1 | grep -v '^W:' | sed 's/^/# /' >&3)
}

setup() {
	[ ! -f "$RW/skip" ] || skip "$(cat "$RW/skip")"
	OLD=$(cat "$RW/old")
	OLD_DEB=$(ls "$RW"/debs/linux-source-6.1_*.deb)
}


@test "rebase: an older linux-source .deb, never installed, is imported and the series applied there" {
	rw import --source "$OLD_DEB" 2>&1 | sed 's/^/# /' >&3
	rw apply 2>&1 | sed 's/^/# /' >&3
	git -C "$RW/work/linux" rev-parse -q --verify "refs/tags/packaged/$OLD" >/dev/null
	[ "$(git -C "$RW/work/linux" tag --merged ext4dev-base -l 'packaged/*')" = "packaged/$OLD" ]
	[ "$(git -C "$RW/work/linux" rev-list --count ext4dev-base..ext4-rename)" -eq "$(series_length)" ]
}

@test "rebase: the series verifies (builtin) on the older version" {
	full_only "a cold build of another version, about 10 minutes"
	run rw verify --variant builtin 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -eq 0 ]
	# The packaged reference, the fixture and each patch.
	[ "$(grep -c '^ok ' <<<"$output")" -eq "$(($(series_length) + 2))" ]
}

@test "rebase: the current version is imported beside the old one, as the same commit a fresh import makes; the series stays" {
	local before
	before=$(git -C "$RW/work/linux" rev-parse ext4-rename 'ext4dev-base^{commit}')
	rw import 2>&1 | sed 's/^/# /' >&3
	[ "$(git -C "$RW/work/linux" rev-parse "packaged/$VERSION^{commit}")" = "$(ktree rev-parse "packaged/$VERSION^{commit}")" ]
	git -C "$RW/work/linux" rev-parse -q --verify "refs/tags/ext4dev-base-$VERSION" >/dev/null
	[ "$(git -C "$RW/work/linux" rev-parse ext4-rename 'ext4dev-base^{commit}')" = "$before" ]
	# Debian's update, as git shows it.
	[ -n "$(git -C "$RW/work/linux" diff --shortstat "packaged/$OLD" "packaged/$VERSION" -- fs/ext4)" ]
}

@test "rebase: a commit that conflicts with the new version stops with a report naming patch, file and hunk, and nothing changes" {
	local file line state after number
	# A line of fs/ext4 that Debian's update changed, changed on the branch too.
	# (in a file neither the fixture nor the series changes, at a hunk that
	# changes lines, not only adds them).
	read -r file line < <(git -C "$RW/work/linux" diff -U0 "packaged/$OLD" "packaged/$VERSION" -- 'fs/ext4/*.c' \
		':!fs/ext4/super.c' ':!fs/ext4/ialloc.c' ':!fs/ext4/xattr.c' |
		awk '/^\+\+\+ b\// { f = substr($2, 3) } /^@@ / && f { split($2, a, ","); if (a[2] == "" || a[2] > 0) { print f, substr(a[1], 2); exit } }')
	[ -n "$file" ]
	git -C "$RW/work/linux" checkout -q ext4-rename
	sed -i "${line}s|\$| /* kbranch: a conflicting edit */|" "$RW/work/linux/$file"
	git -C "$RW/work/linux" -c user.name=CI -c user.email=ci@localhost commit -q -a \
		-m $'ext4: a conflicting edit\n\nSigned-off-by: CI <ci@localhost>'
	state=$(rw_state)
	run --separate-stderr rw rebase "$VERSION" --variant builtin
	after=$(rw_state)
	# Dropped before any check fails, so that the tests after this one see
	# the series alone.
	git -C "$RW/work/linux" reset -q --hard ext4-rename^
	echo "$stderr"
	[ "$status" -ne 0 ]
	number=$(printf '%04d' "$(($(series_length) + 1))")
	grep -q "^  $number-ext4-a-conflicting-edit.patch: $file: 1 of 1 hunks fail: @@ .* @@; packaged/$OLD -> packaged/$VERSION: [0-9]" <<<"$stderr"
	grep -q "^kbranch: the series does not apply to linux-source $VERSION (report above); nothing changed" <<<"$stderr"
	[ "$after" = "$state" ]
}

@test "rebase: killed with SIGKILL while it works, it changes nothing; the next run recovers" {
	local state pid
	state=$(rw_state)
	KBRANCH_WORK=$RW/work setsid "$RW/repo/branch-scripts/kbranch" rebase "$VERSION" --variant builtin >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 600); do [ ! -d "$RW/work/rebase.wt" ] || break; sleep 0.1; done
	[ -d "$RW/work/rebase.wt" ]
	kill -KILL -- "-$pid"
	wait "$pid" || true
	[ "$(rw_state)" = "$state" ]
	# The next run, the quickest there is, drops the worktree the killed
	# one left (until then git fetch into the tree fails on its HEAD).
	rw rebase "$VERSION" --report-only >/dev/null
	[ ! -e "$RW/work/rebase.wt" ]
	[ -z "$(git -C "$RW/work/linux" worktree list --porcelain | grep rebase.wt || true)" ]
	git -C "$RW/work/linux" fsck --connectivity-only --no-progress
	[ "$(rw_state)" = "$state" ]
}

@test "rebase: interrupted with SIGINT while it picks, it says so in one line and changes nothing" {
	full_only "a rebase interrupted and run again, about 2 minutes"
	local state
	state=$(rw_state)
	KBRANCH_WORK=$RW/work setsid env --default-signal=INT "$RW/repo/branch-scripts/kbranch" rebase "$VERSION" \
		--variant builtin >"$RW/int.log" 2>&1 &
	BG_PID=$!
	for _ in $(seq 600); do grep -q '^\[.*\] rebase: [0-9a-f]* ext4: ' "$RW/int.log" && break; sleep 0.1; done
	kill -INT -- "-$BG_PID"
	BG_STATUS=0
	wait "$BG_PID" || BG_STATUS=$?
	cat "$RW/int.log"
	[ "$BG_STATUS" -eq 130 ]
	grep -q "rebase: interrupted; nothing changed: ext4-rename is still on $OLD" "$RW/int.log"
	[ ! -e "$RW/work/rebase.wt" ]
	[ -z "$(git -C "$RW/work/linux" worktree list --porcelain | grep rebase.wt || true)" ]
	[ "$(rw_state)" = "$state" ]
}

@test "rebase: the series moves onto the current version: the same commits as applied there, a range-diff, base/linux-source.version, the patches, and verify" {
	needs_verified
	local old_tip
	old_tip=$(git -C "$RW/work/linux" rev-parse ext4-rename)
	echo "$OLD" >"$RW/repo/base/linux-source.version"
	# The main work dir's verification, its notes and its packaged
	# reference: commits with the same trees are not verified twice (verify
	# reuses a note by its tree; the reference is recorded per version).
	# Merged, as README tells users to: the old end's verify (with
	# KBRANCH_CI_FULL=1) has notes of its own here.
	git -C "$RW/work/linux" fetch -q "$KTREE" '+refs/notes/kbranch:refs/notes/main-work'
	git -C "$RW/work/linux" notes --ref=kbranch merge -q -s cat_sort_uniq refs/notes/main-work
	mkdir -p "$RW/work/reference"
	cp -a "$KBRANCH_WORK/reference/$VERSION" "$RW/work/reference/"
	# The patches are what rebase exports, and only that: the copy's go
	# first (series.txt keeps its header, which export keeps).
	rm "$RW"/repo/patches/*.patch
	sed -i '/^#/!d' "$RW/repo/series.txt"
	run rw rebase "$VERSION" --variant builtin 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(git -C "$RW/work/linux" rev-parse ext4-rename)" = "$(ktree rev-parse ext4-rename)" ]
	[ "$(git -C "$RW/work/linux" rev-parse 'ext4dev-base^{commit}')" = "$(ktree rev-parse 'ext4dev-base^{commit}')" ]
	[ "$(git -C "$RW/work/linux" rev-parse "ext4dev-base-$OLD^{commit}")" = "$(git -C "$RW/work/linux" rev-parse "$old_tip~$(series_length)")" ]
	[ "$(grep -c '^[0-9]:  [0-9a-f]* = [0-9]:  [0-9a-f]* ' <<<"$output")" -eq "$(series_length)" ]
	[ "$(cat "$RW/repo/base/linux-source.version")" = "$VERSION" ]
	diff -r "$REPO/patches" "$RW/repo/patches"
	cmp "$REPO/series.txt" "$RW/repo/series.txt"
	# The packaged reference, the fixture and each patch.
	[ "$(grep -c '^ok ' <<<"$output")" -eq "$(($(series_length) + 2))" ]
	[ "$(git -C "$RW/work/linux" symbolic-ref --short HEAD)" = ext4-rename ]
	[ -z "$(git -C "$RW/work/linux" status --porcelain)" ]
}

@test "rebase: bad input is one line and changes nothing: an older version, a package that is not linux-source, a version not imported" {
	local state bc base older
	state=$(rw_state)
	(cd "$RW/debs" && apt-get download -q bc 2>&1 | grep -v '^W:' | sed 's/^/# /' >&3)
	bc=$(ls "$RW"/debs/bc_*.deb)
	must_fail_with_one_line rw import --source "$bc"
	grep -q "is bc, not a linux-source package" <<<"$stderr"
	must_fail_with_one_line rw rebase 9.9.9-1
	grep -q "linux-source 9.9.9-1 is not imported" <<<"$stderr"
	# A version just below the current base (between the old end and the
	# current version once the series has moved there), in a package
	# without its tarball: refused before anything is extracted (the
	# tarball's absence would be the error otherwise).  Made here, not
	# downloaded: the archive need not hold any such version.
	base=$(git -C "$RW/work/linux" tag --merged ext4dev-base -l 'packaged/*' | sed -n '1{s|^packaged/||;s|_|~|g;p}')
	[ -n "$base" ]
	older=$base~kbranch1
	dpkg --compare-versions "$older" lt "$base"
	must_fail_with_one_line rw import --source "$(control_only_deb "$older")"
	grep -q "linux-source $older is older than the current base's $base; " <<<"$stderr"
	[ "$(rw_state)" = "$state" ]
}

@test "rebase: --report-only for linux-source-6.12 lists per patch and file the hunks that fail and how much the file changed" {
	local v612 deb state
	full_only "a 154 MB download and a third import, about 3 minutes"
	v612=$(apt-cache madison linux-source-6.12 | awk '{ print $3 }' | sort -V | tail -n 1)
	[ -n "$v612" ] || skip "no linux-source-6.12 in the archive"
	(cd "$RW/debs" && apt-get download -q "linux-source-6.12=$v612" 2>&1 | grep -v '^W:' | sed 's/^/# /' >&3)
	deb=$(ls "$RW"/debs/linux-source-6.12_*.deb)
	state=$(rw_state)
	run --separate-stderr rw import --source "$deb"
	echo "$stderr"
	[ "$status" -ne 0 ]
	grep -q "^kbranch: base fixture: .* does not apply: .*'kbranch rebase $v612 --report-only' says" <<<"$stderr"
	run rw rebase "$v612" --report-only
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^  0001-fixture-.*: fs/ext4/super.c: [0-9]* of [0-9]* hunks fail: @@ .*; packaged/$VERSION -> packaged/${v612//\~/_}: [0-9]* insertions(+), [0-9]* deletions(-)$" <<<"$output"
	grep -q "^  0002-ext4-rename-the-ext4dev-module.*: fs/ext4/super.c: " <<<"$output"
	grep -q '^port report: 5 patches, [0-9]* (patch, file) pairs fail' <<<"$output"
	# Only the new import's tag was added.
	[ "$(rw_state | grep -v "refs/tags/packaged/${v612//\~/_} ")" = "$state" ]
}
