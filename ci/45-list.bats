#!/usr/bin/env bats
# shellcheck disable=SC2154 # $output, $status, $stderr: set by bats' run
# Review on a real list: kbranch list (exim4 + public-inbox on 127.0.0.1),
# submit sending the thread to it, and b4 fetching it back by message-id.

load helpers

# Ports of our own, so that a list the session started does not collide.
export KBRANCH_LIST_SMTP_PORT=2625 KBRANCH_LIST_HTTP_PORT=8880
ARCHIVE=http://127.0.0.1:8880/linux-ext4/

setup_file() {
	ensure_applied
	ktree config user.name 'Lee Lister'
	ktree config user.email lee@kernel.test
	"$KBRANCH" list start >&3
}

teardown_file() {
	"$KBRANCH" list stop >&3 || true
	ktree config --unset user.name || true
	ktree config --unset user.email || true
	ktree checkout -q -f ext4-rename
}

# A test that bumps the revision puts series.txt back even when it fails.
teardown() {
	git -C "$REPO" checkout -q -- series.txt
}

# The pid each pid file of the list names.
list_pids() {
	cat "$KBRANCH_WORK/list/exim.pid" "$KBRANCH_WORK/list/httpd.pid"
}

# What listens on a port, as "address:port" words.
listeners() {
	ss -Htln "sport = :$1" | awk '{ print $4 }'
}

# b4 pointed at the archive for every lookup (message-ids, searches).
b4_here() {
	GIT_CONFIG_COUNT=5 GIT_CONFIG_KEY_0=b4.midmask GIT_CONFIG_VALUE_0="$ARCHIVE%s" \
		GIT_CONFIG_KEY_1=b4.linkmask GIT_CONFIG_VALUE_1="$ARCHIVE%s" \
		GIT_CONFIG_KEY_2=b4.searchmask GIT_CONFIG_VALUE_2="$ARCHIVE?x=m&t=1&q=%s" \
		GIT_CONFIG_KEY_3=user.name GIT_CONFIG_VALUE_3=Maintainer \
		GIT_CONFIG_KEY_4=user.email GIT_CONFIG_VALUE_4=maint@kernel.test b4 "$@"
}

cover_msgid() {
	sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$KBRANCH_WORK"/outgoing/0000-*.eml | head -n 1
}

@test "list start: exim4 and public-inbox-httpd on 127.0.0.1 only, and a second start changes nothing" {
	local before
	[ "$(listeners 2625)" = 127.0.0.1:2625 ]
	[ "$(listeners 8880)" = 127.0.0.1:8880 ]
	before=$(list_pids)
	run "$KBRANCH" list start
	[ "$status" -eq 0 ]
	[ "$(list_pids)" = "$before" ]
	run "$KBRANCH" list status
	[ "$status" -eq 0 ]
	grep -q '^smtp: exim4 pid [0-9]* on 127.0.0.1:2625' <<<"$output"
}

@test "list start on a port already taken is one line naming the port, and starts nothing" {
	local other=$KBRANCH_CI_SCRATCH/other-list
	KBRANCH_WORK=$other KBRANCH_LIST_SMTP_PORT=8880 \
		must_fail_with_one_line "$KBRANCH" list start
	grep -q 'port 8880 on 127.0.0.1 is taken' <<<"$stderr"
	[ ! -e "$other/list" ]
}

@test "list start as a user other than root is one line saying why, and makes and starts nothing" {
	local other=$KBRANCH_CI_SCRATCH/nonroot-list user=kbranch-ci
	id "$user" >/dev/null 2>&1 || useradd --system --no-create-home "$user"
	rm -rf "$other"
	mkdir -p "$other"
	chown "$user" "$other"
	must_fail_with_one_line runuser -u "$user" -- env KBRANCH_WORK="$other/work" \
		KBRANCH_LIST_SMTP_PORT=2725 KBRANCH_LIST_HTTP_PORT=8980 "$KBRANCH" list start
	grep -q "exim4 runs a private daemon only for root (as $user it answers 'permission denied')" <<<"$stderr"
	[ ! -e "$other/work" ]
	[ -z "$(listeners 2725)" ] && [ -z "$(listeners 8980)" ]
}

# v1 as the list first saw it: a copy of this repository with v1's fixture,
# patches and cover letter (ci/series-v1.diff), imported into the same
# tree (its fixture makes a base of its own; import keeps v2's as
# ext4dev-base-previous) and applied; after it is sent, v2 is imported
# and applied again, the same commits as before.
@test "v1, on its own fixture's base, goes to the list first as [PATCH 1/4], enrolled by b4" {
	local v1 base tip
	base=$(ktree rev-parse 'ext4dev-base^{commit}')
	tip=$(ktree rev-parse ext4-rename)
	v1=$(repo_copy)
	(cd "$v1" && git apply --whitespace=nowarn "$REPO/ci/series-v1.diff")
	# Revision 1: series.txt says none.
	[ -z "$(grep '^# revision:' "$v1/series.txt" || true)" ]
	"$v1/branch-scripts/kbranch" import 2>&1 | sed 's/^/# /' >&3
	"$v1/branch-scripts/kbranch" apply 2>&1 | sed 's/^/# /' >&3
	[ "$(ktree rev-parse 'ext4dev-base^{commit}')" != "$base" ]
	run "$v1/branch-scripts/kbranch" submit
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^Subject: \[PATCH 1/4\] ext4: rename the ext4dev Kconfig options to ext4' "$KBRANCH_WORK"/outgoing/0001-*.eml
	grep -qx "base-commit: $(ktree rev-parse 'ext4dev-base^{commit}')" "$KBRANCH_WORK"/outgoing/0000-*.eml
	ktree rev-parse -q --verify refs/tags/sent/ext4-rename-v1 >/dev/null
	cover_msgid >"$KBRANCH_CI_SCRATCH/v1.msgid"
	# Back to v2.
	"$KBRANCH" import 2>&1 | sed 's/^/# /' >&3
	"$KBRANCH" apply 2>&1 | sed 's/^/# /' >&3
	ktree tag -d ext4dev-base-previous >/dev/null
	[ "$(ktree rev-parse 'ext4dev-base^{commit}')" = "$base" ]
	[ "$(ktree rev-parse ext4-rename)" = "$tip" ]
}

@test "submit sends v2 to the list with a link to v1, the range-diff v1 -> v2 and the verdicts of both; b4 shazam of its message-id onto ext4dev-base gives the tip's tree" {
	local wt=$KBRANCH_CI_SCRATCH/shazam msgid m id changeid
	run "$KBRANCH" submit
	echo "$output"
	[ "$status" -eq 0 ]
	msgid=$(cover_msgid)
	[ -n "$msgid" ]
	# The same series, its second revision, on another base than v1's.
	grep -q '^Subject: \[PATCH v2 1/4\] ext4: rename the ext4dev Kconfig options to ext4' "$KBRANCH_WORK"/outgoing/0001-*.eml
	grep -qxF " - Link to v1: $ARCHIVE$(cat "$KBRANCH_CI_SCRATCH/v1.msgid")" "$KBRANCH_WORK"/outgoing/0000-*.eml
	[ "$(sed -n 's/^change-id: //p' "$KBRANCH_WORK"/outgoing/0000-*.eml)" = \
		"$(curl -sf "$ARCHIVE$(cat "$KBRANCH_CI_SCRATCH/v1.msgid")/raw" | sed -n 's/^change-id: //p')" ]
	# v2's answer to the review, in the range-diff: MODULE_ALIAS("ext4dev").
	grep -q '^ *[0-9]*:  *[0-9a-f]* ! [0-9]*:  *[0-9a-f]* ext4: rename the ext4dev module' "$KBRANCH_WORK"/outgoing/range-diff-v1-v2.txt
	grep -q 'MODULE_ALIAS("ext4dev")' "$KBRANCH_WORK"/outgoing/range-diff-v1-v2.txt
	# v1 was never verified here; v2 was, by 15-verify.bats.
	grep -q '^    builtin  *-  *-> good  *(changed)' <<<"$output"
	# Every message of the thread is in the archive, as sent.
	for m in "$KBRANCH_WORK"/outgoing/*.eml; do
		id=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$m" | head -n 1)
		curl -sf "$ARCHIVE$id/raw" | grep -qixF "Message-ID: <$id>"
	done
	# b4 trailers -u and b4's newer-revision check search the archive by
	# change-id (b4.searchmask): the cover letter must be found by it.
	changeid=$(sed -n 's/^change-id: //p' "$KBRANCH_WORK"/outgoing/0000-*.eml)
	[ -n "$changeid" ]
	curl -sf -X POST "$ARCHIVE?x=m&t=1&q=%22change-id%3A+$changeid%22" | gunzip | grep -qixF "Message-ID: <$msgid>"
	# b4 recorded the revision as sent, as its own send does.
	ktree tag -l 'sent/ext4-rename-v*' | grep -q .
	rm -rf "$wt"
	ktree worktree prune
	ktree worktree add -q --detach "$wt" 'ext4dev-base^{commit}'
	(cd "$wt" && b4_here shazam "$msgid")
	git -C "$wt" log --oneline -5
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(ktree rev-parse 'ext4-rename^{tree}')" ]
	# And b4 am writes the same series as an mbox a maintainer applies.
	rm -rf "$KBRANCH_CI_SCRATCH/am"
	mkdir -p "$KBRANCH_CI_SCRATCH/am"
	(cd "$wt" && b4_here am -o "$KBRANCH_CI_SCRATCH/am" "$msgid")
	ls "$KBRANCH_CI_SCRATCH"/am/*.mbx
	ktree worktree remove --force "$wt"
}

# A reply to message file $2 of the outgoing thread (0000 is the cover),
# from $1, with body $3, sent to the list.
reply_to() {
	local from=$1 to=$KBRANCH_WORK/outgoing/$2 body=$3 parent cover n
	parent=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$to" | head -n 1)
	cover=$(cover_msgid)
	n=$((n_reply = ${n_reply:-0} + 1))
	printf '%s\n' "From: $from" "To: lee@kernel.test" "Cc: linux-ext4@vger.kernel.org" \
		"Subject: Re: $(ktree log -1 --format=%s ext4-rename)" "Date: $(date -R)" \
		"Message-ID: <reply-$n-$BATS_SUITE_TEST_NUMBER-$$@kernel.test>" \
		"In-Reply-To: <$parent>" "References: <$cover> <$parent>" "" "$body" >"$BATS_TEST_TMPDIR/r$n.eml"
	curl -sS --crlf --url smtp://127.0.0.1:2625/ci.localhost --mail-from ci@kernel.test \
		--mail-rcpt linux-ext4@vger.kernel.org --upload-file "$BATS_TEST_TMPDIR/r$n.eml"
	wait_archived "reply-$n-$BATS_SUITE_TEST_NUMBER-$$@kernel.test"
}

wait_archived() {
	local _
	for _ in $(seq 60); do
		! curl -sf -o /dev/null "$ARCHIVE$1/raw" || return 0
		sleep 0.5
	done
	return 1
}

@test "kbranch trailers applies a reply's Reviewed-by and the cover's Acked-by, refuses a mismatched one, and reports the rest" {
	local before after patch2 patch3
	before=$(ktree rev-parse ext4-rename)
	patch2=$(basename "$KBRANCH_WORK"/outgoing/0002-*.eml)
	patch3=$(basename "$KBRANCH_WORK"/outgoing/0003-*.eml)
	reply_to 'Rev Iewer <rev@kernel.test>' "$patch2" 'Reviewed-by: Rev Iewer <rev@kernel.test>'
	reply_to 'Mallory <mallory@kernel.test>' "$patch2" "Reviewed-by: Theodore Ts'o <tytso@mit.edu>"
	reply_to 'Andreas Dilger <adilger@kernel.test>' "$(basename "$KBRANCH_WORK"/outgoing/0000-*.eml)" \
		'Acked-by: Andreas Dilger <adilger@kernel.test>'
	reply_to 'Bob <bob@kernel.test>' "$patch3" 'Tested-by: bob, on my laptop'
	# A message to a thread we never sent.
	printf '%s\n' 'From: Eve <eve@kernel.test>' 'To: linux-ext4@vger.kernel.org' 'Subject: [PATCH] ext4: other work' \
		"Date: $(date -R)" "Message-ID: <other-$$@kernel.test>" '' 'Reviewed-by: Eve <eve@kernel.test>' >"$BATS_TEST_TMPDIR/other.eml"
	curl -sS --crlf --url smtp://127.0.0.1:2625/ci.localhost --mail-from eve@kernel.test \
		--mail-rcpt linux-ext4@vger.kernel.org --upload-file "$BATS_TEST_TMPDIR/other.eml"
	wait_archived "other-$$@kernel.test"
	run "$KBRANCH" trailers
	echo "$output"
	ktree checkout -q ext4-rename
	after=$(ktree rev-parse ext4-rename)
	# Put the branch and patches/ back for the files that follow.
	ktree reset -q --hard "$before"
	git -C "$REPO" diff --stat -- patches series.txt
	git -C "$REPO" checkout -q -- patches series.txt
	[ "$status" -eq 0 ]
	[ "$(ktree rev-parse "$after^{tree}")" = "$(ktree rev-parse "$before^{tree}")" ]
	ktree log --format='%(trailers:only,unfold)' "$after~3" -1 | grep -qx 'Acked-by: Andreas Dilger <adilger@kernel.test>'
	ktree log --format='%(trailers:only,unfold)' "$after~2" -1 | grep -qx 'Reviewed-by: Rev Iewer <rev@kernel.test>'
	[ "$(ktree log --format='%(trailers:only,unfold)' "$before..$after" | grep -c '^Acked-by: Andreas Dilger')" -eq 4 ]
	# (bats does not fail on a "! command" line: compare instead.)
	[ -z "$(ktree log --format=%B "$before..$after" | grep -e '^Reviewed-by: Theodore' -e 'eve@kernel.test' -e 'bob, on my laptop')" ]
	grep -q '^  Reviewed-by: Theodore Ts.o <tytso@mit.edu>$' <<<"$output"
	grep -q '^  Tested-by: bob, on my laptop (from bob@kernel.test)$' <<<"$output"
	grep -q '^  eve@kernel.test "\[PATCH\] ext4: other work"$' <<<"$output"
}

@test "with the list down, submit is one line and keeps the thread; submit --resend sends it" {
	"$KBRANCH" list stop
	must_fail_with_one_line "$KBRANCH" submit
	grep -q 'no list on 127.0.0.1:2625' <<<"$stderr"
	ls "$KBRANCH_WORK"/outgoing/0000-*.eml
	"$KBRANCH" list start
	run "$KBRANCH" submit --resend
	echo "$output"
	[ "$status" -eq 0 ]
	curl -sf "$ARCHIVE$(cover_msgid)/raw" >/dev/null
}

@test "the next revision goes out as v3 with a link to v2 in the archive, the range-diff and the verdict delta" {
	local before v2 msgid wt=$KBRANCH_CI_SCRATCH/v3
	before=$(ktree rev-parse ext4-rename)
	v2=$(cover_msgid)
	# A revision of our own: patch 2's message reworded, revision 3.
	ktree checkout -q ext4-rename
	ktree -c user.name=ci -c user.email=ci@kernel.test rebase -q -x \
		"git commit -q --amend -m \"\$(git log -1 --format=%B | sed 's/^Based on a patch by/Derived from a patch by/')\"" \
		'ext4dev-base^{commit}'
	sed -i 's/^# revision: 2$/# revision: 3/' "$REPO/series.txt"
	run "$KBRANCH" submit
	echo "$output"
	msgid=$(cover_msgid)
	ktree worktree prune
	rm -rf "$wt"
	ktree worktree add -q --detach "$wt" 'ext4dev-base^{commit}'
	(cd "$wt" && b4_here shazam "$msgid") || true
	local tree_v3 tree_tip
	tree_v3=$(git -C "$wt" rev-parse 'HEAD^{tree}')
	tree_tip=$(ktree rev-parse 'ext4-rename^{tree}')
	ktree worktree remove --force "$wt"
	ktree checkout -q ext4-rename
	ktree reset -q --hard "$before"
	git -C "$REPO" checkout -q -- series.txt
	[ "$status" -eq 0 ]
	grep -q '^Subject: \[PATCH v3 2/4\]' "$KBRANCH_WORK"/outgoing/0002-*.eml
	grep -qxF " - Link to v2: $ARCHIVE$v2" "$KBRANCH_WORK"/outgoing/0000-*.eml
	grep -q 'Derived from a patch by' "$KBRANCH_WORK"/outgoing/range-diff-v2-v3.txt
	grep -q '^    builtin  *[a-z-]*  *-> ' <<<"$output"
	[ "$tree_v3" = "$tree_tip" ]
}

# exim's own record of what it received: one "<=" line per accepted message.
received_count() {
	grep -c "<= .* id=$1\$" "$KBRANCH_WORK/list/log/mainlog" || true
}

@test "a list that refuses a message half way: one line naming it and why; --resend sends only the rest" {
	local msgid m
	sed -i 's/^# revision: 2$/# revision: 4/' "$REPO/series.txt"
	"$KBRANCH" list stop
	# The cover letter (about 17 KB) fits, patch 1 (about 80 KB) does not.
	KBRANCH_LIST_MAX_SIZE=40K "$KBRANCH" list start
	must_fail_with_one_line "$KBRANCH" submit
	printf '%s\n' "$stderr"
	[[ "$stderr" == *"the list refused 0001-"*" after 1 of 5 messages ("*"552"*"): the thread is kept in"* ]]
	msgid=$(cover_msgid)
	[ "$(cat "$KBRANCH_WORK/outgoing/.accepted")" = "$(basename "$KBRANCH_WORK"/outgoing/0000-*.eml)" ]
	"$KBRANCH" list stop
	"$KBRANCH" list start
	run "$KBRANCH" submit --resend
	git -C "$REPO" checkout -q -- series.txt
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0000-"*": accepted by the list before, not sent again"* ]]
	# The list received every message exactly once, the cover letter too.
	for m in "$KBRANCH_WORK"/outgoing/*.eml; do
		[ "$(received_count "$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$m" | head -n 1)")" -eq 1 ]
	done
	curl -sf "$ARCHIVE$msgid/raw" >/dev/null
	[ ! -e "$KBRANCH_WORK/outgoing/.accepted" ]
}

@test "list stop ends what list start started, and nothing of it is left" {
	local pids pid
	pids=$(list_pids)
	run "$KBRANCH" list stop
	[ "$status" -eq 0 ]
	for pid in $pids; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "pid $pid still runs"
			return 1
		fi
	done
	[ -z "$(listeners 2625)" ]
	[ -z "$(listeners 8880)" ]
	run "$KBRANCH" list status
	[ "$status" -eq 3 ]
	"$KBRANCH" list start
}
