#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2153 # $output, $status, $stderr: set by bats' run; VERSION: helpers.bash
# kbranch bot on a real list: series an author posts with git format-patch
# through exim4 into public-inbox, read back by the bot from the archive's
# git, applied to the kernel tree and checked; its replies read from the
# archive as a reviewer reads them.  The list is the bot's own (its work
# dir, its ports); the tree is the CI's, read only (a link to it).

load helpers

export KBRANCH_LIST_SMTP_PORT=2646 KBRANCH_LIST_HTTP_PORT=8846
# The bot builds and boots only in the tests of that (a kernel build in
# its own work dir, which the compiler cache shortens): the others test
# the mail, the bases and checkpatch.
export KBRANCH_BOT_BUILD=0
ARCHIVE=http://127.0.0.1:8846/linux-ext4/

setup_file() {
	ensure_applied
	BOT_WORK=$(mktemp -d /var/tmp/kbranch-bot.XXXXXX)
	chmod 0755 "$BOT_WORK"
	ln -s "$KTREE" "$BOT_WORK/linux"
	export BOT_WORK
	# The author's clone, where the series are made: fs/ext4 is all its
	# patches touch (a whole checkout costs 20 s here).
	git clone -q --shared --no-checkout "$KTREE" "$BOT_WORK/author"
	git -C "$BOT_WORK/author" sparse-checkout set fs/ext4
	bot_kbranch list start >&3
	# Subscribed: from here on, what the list takes is the bot's.
	bot_kbranch bot once >&3
}

teardown_file() {
	bot_kbranch bot stop >&3 2>&1 || true
	bot_kbranch list stop >&3 2>&1 || true
	rm -rf "$BOT_WORK"
}

bot_kbranch() {
	KBRANCH_WORK=$BOT_WORK KBRANCH_BOT_WAIT=${BOT_WAIT:-0} "$KBRANCH" "$@"
}

# How many messages the archive has, once the list has delivered what it
# took (30 s at most): exim's queue empty, no public-inbox-mda running.
archived() {
	local _
	for _ in $(seq 60); do
		[ "$(exim4 -C "$BOT_WORK/list/exim.conf" -bpc)" = 0 ] && ! pgrep -f public-inbox-mda >/dev/null && break
		sleep 0.5
	done
	git --git-dir="$BOT_WORK/list/inbox/git/0.git" rev-list --count HEAD
}

# The newest message in the archive, whole.
newest_message() {
	git --git-dir="$BOT_WORK/list/inbox/git/0.git" show HEAD:m
}

# A series by Ann Author in dir $1, version $2, cover subject $3; each
# further argument "file|line|subject" is one patch that adds the line
# after the file's first #include.  Its committer address names the
# series: git format-patch makes the cover's Message-ID from it.
author_series() {
	local out=$1 version=$2 subject=$3 change file line title
	shift 3
	git -C "$BOT_WORK/author" checkout -q -f -B work origin/ext4-rename
	for change in "$@"; do
		IFS='|' read -r file line title <<<"$change"
		sed -i "0,/^#include/s||$line\n#include|" "$BOT_WORK/author/$file"
		git -C "$BOT_WORK/author" -c user.name='Ann Author' -c user.email=ann@example.test commit -q -a \
			-m "$title" -m "Why: a test of the list bot." -m 'Signed-off-by: Ann Author <ann@example.test>'
	done
	git -C "$BOT_WORK/author" -c user.name='Ann Author' -c user.email="ann+$(basename "$out")@example.test" \
		format-patch -q -o "$out" --cover-letter --thread --base=origin/ext4-rename -v"$version" \
		--to=linux-ext4@vger.kernel.org origin/ext4-rename..work
	# A file to send, not an mbox: no "From <sha>" line.
	sed -i "1{/^From [0-9a-f]\{40\} /d}; s|\*\*\* SUBJECT HERE \*\*\*|$subject|" "$out"/*.patch
}

msgid_of() {
	sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$1"
}

# Send the files $@ to the list and run one pass: the list must have one
# message more, the bot's reply, kept in $BATS_TEST_TMPDIR/reply.eml.
one_reply() {
	local before
	bot_kbranch list send "$@"
	before=$(archived)
	run bot_kbranch bot once
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(archived)" -eq $((before + 1)) ]
	newest_message >"$BATS_TEST_TMPDIR/reply.eml"
	cat "$BATS_TEST_TMPDIR/reply.eml"
}

# Header $1 of the newest message.
newest_header() {
	newest_message | sed -n "/^\$/q; s/^$1: //Ip" | head -n 1
}

@test "bot: a patch with checkpatch findings gets one reply, to it, in the robot's layout, whose reproduce lines find them again on a fresh clone; a second pass and a resend get none" {
	local dir=$BATS_TEST_TMPDIR/findings before p2 base repro
	author_series "$dir" 1 'ext4: a series with a finding' \
		'fs/ext4/namei.c|/* ext4: names. */|ext4: say what namei.c holds' \
		'fs/ext4/inode.c|static int kbranch_bot_demo = 0;|ext4: add a variable set to zero'
	p2=$(msgid_of "$dir"/v1-0002-*.patch)
	base=$(ktree rev-parse ext4-rename)
	one_reply "$dir"/*.patch
	[ "$(newest_header From)" = "kbranch bot <kbranch-bot@kbranch-list.localhost>" ]
	[ "$(newest_header In-Reply-To)" = "<$p2>" ]
	[ "$(newest_header Subject)" = "Re: [PATCH v1 2/2] ext4: add a variable set to zero" ]
	[ "$(newest_header To)" = "Ann Author <ann@example.test>" ]
	grep -qx 'kbranch bot noticed the following checkpatch --strict errors:' "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "\[auto checkpatch test ERROR on ext4-rename/${base:0:12}\]" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "base:          $base" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "patch link:    $ARCHIVE$p2/" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx '| Reported-by: kbranch bot <kbranch-bot@kbranch-list.localhost>' "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "| Closes: $ARCHIVE$(newest_header Message-ID | tr -d '<>')/" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx '>> ERROR:INITIALISED_STATIC: do not initialise statics to 0' "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx '>> +static int kbranch_bot_demo = 0;' "$BATS_TEST_TMPDIR/reply.eml"
	# Its reproduce lines, run as they are from a fresh clone, find it.
	repro=$BATS_TEST_TMPDIR/repro
	git clone -q --shared "$KTREE" "$repro/linux"
	sed -n '/^reproduce:$/,/^$/{/^        /s/^        //p}' "$BATS_TEST_TMPDIR/reply.eml" >"$repro/steps"
	cat "$repro/steps"
	# checkpatch exits 1: it found what the reply says.
	run -1 env -C "$repro" GIT_COMMITTER_NAME=R GIT_COMMITTER_EMAIL=r@example.test bash -e "$repro/steps"
	echo "$output"
	[[ "$output" == *"ERROR: do not initialise statics to 0"* ]]
	# Nothing new: not on a second pass, nor for the same messages again.
	run bot_kbranch bot once
	[ "$status" -eq 0 ]
	bot_kbranch list send "$dir"/*.patch
	before=$(archived)
	run bot_kbranch bot once
	[ "$status" -eq 0 ]
	[ "$(archived)" -eq "$before" ]
	run bot_kbranch bot status
	[ "$status" -eq 0 ]
	[ "$(grep -c " $(msgid_of "$dir"/v1-0000-*.patch) v1 2 " <<<"$output")" -eq 1 ]
	[[ "$output" == *" fail $(msgid_of "$dir"/v1-0000-*.patch) v1 2 "* ]]
}

@test "bot: a series that applies nowhere gets one reply naming each base tried; an incomplete one, after the wait, one reply naming what it lacks" {
	local dir=$BATS_TEST_TMPDIR/nowhere gaps=$BATS_TEST_TMPDIR/gaps before
	author_series "$dir" 2 'ext4: a series on a tree we lack' 'fs/ext4/super.c|/* ext4: super. */|ext4: a change on another tree'
	# Its context is in no tree the bot has.
	sed -i 's/^ #include/ #include <linux\/not-in-any-tree.h>/' "$dir"/v2-0001-*.patch
	one_reply "$dir"/*.patch
	[ "$(newest_header In-Reply-To)" = "<$(msgid_of "$dir"/v2-0000-*.patch)>" ]
	grep -qx 'kbranch bot could not apply this series anywhere it tried:' "$BATS_TEST_TMPDIR/reply.eml"
	grep -q "^  $(ktree rev-parse ext4-rename) (.*): patch 1/1 does not apply: " "$BATS_TEST_TMPDIR/reply.eml"
	grep -q "^  ext4-rename (.*): patch 1/1 does not apply: " "$BATS_TEST_TMPDIR/reply.eml"
	grep -q "^  packaged/.*: patch 1/1 does not apply: " "$BATS_TEST_TMPDIR/reply.eml"
	# Three patches, the second never sent.
	author_series "$gaps" 1 'ext4: a series with a gap' 'fs/ext4/super.c|/* 1 */|ext4: one' \
		'fs/ext4/inode.c|/* 2 */|ext4: two' 'fs/ext4/namei.c|/* 3 */|ext4: three'
	bot_kbranch list send "$gaps"/v1-0000-*.patch "$gaps"/v1-0001-*.patch "$gaps"/v1-0003-*.patch
	before=$(archived)
	BOT_WAIT=3600 bot_kbranch bot once
	[ "$(archived)" -eq "$before" ]
	bot_kbranch bot once
	[ "$(archived)" -eq $((before + 1)) ]
	newest_message >"$BATS_TEST_TMPDIR/reply.eml"
	cat "$BATS_TEST_TMPDIR/reply.eml"
	grep -q '^kbranch bot could not test this series: after [0-9]* s, 2/3 missing\.$' "$BATS_TEST_TMPDIR/reply.eml"
	bot_kbranch bot once
	[ "$(archived)" -eq $((before + 1)) ]
}

@test "bot: hostile mail (not a patch, shell metacharacters in a subject, a path outside the tree, duplicate numbers, a base the tree lacks) each has its outcome, and nothing is written outside the bot's dir" {
	local dir=$BATS_TEST_TMPDIR/hostile dup=$BATS_TEST_TMPDIR/dup before pwned=$BATS_TEST_TMPDIR/pwned
	# Not a patch.
	printf 'From: Q <q@example.test>\nTo: linux-ext4@vger.kernel.org\nSubject: a question about ext4dev\nMessage-ID: <question@example.test>\n\nIs ext4dev gone?\n' >"$BATS_TEST_TMPDIR/question.eml"
	# A title that a shell would run; a patch to ../escape.
	author_series "$dir" 1 "\$(touch $pwned)" "fs/ext4/super.c|/* \`touch $pwned\` */|ext4: \$(touch $pwned); echo ok"
	sed -i 's|^base-commit: .*|base-commit: 0123456789abcdef0123456789abcdef01234567|' "$dir"/v1-0000-*.patch
	cp "$dir"/v1-0001-*.patch "$BATS_TEST_TMPDIR/escape.eml"
	sed -i 's|fs/ext4/super.c|../escape|g; s|^Message-I[dD]: <|&escape-|; s|\[PATCH v1 1/1\]|[PATCH] escape|' "$BATS_TEST_TMPDIR/escape.eml"
	sed -i '/^In-Reply-To:/d; /^References:/d' "$BATS_TEST_TMPDIR/escape.eml"
	# Two messages say 1/2.
	author_series "$dup" 3 'ext4: numbered twice' 'fs/ext4/super.c|/* a */|ext4: a' 'fs/ext4/inode.c|/* b */|ext4: b'
	sed 's|^Message-I[dD]: <|&again-|; s|\[PATCH v3 2/2\]|[PATCH v3 1/2]|' "$dup"/v3-0002-*.patch >"$dup/again.eml"
	bot_kbranch list send "$BATS_TEST_TMPDIR/question.eml" "$dir"/*.patch "$BATS_TEST_TMPDIR/escape.eml" "$dup"/*.patch "$dup/again.eml"
	before=$(archived)
	run bot_kbranch bot once
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$pwned" ]
	[ ! -e "$BOT_WORK/escape" ]
	[ ! -e "$BOT_WORK/bot/escape" ]
	run bot_kbranch bot status
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e '.skipped[] | select(.message == "question@example.test" and (.why | startswith("not a patch: a question")))' "$BOT_WORK/bot/state.json"
	# The metacharacters were a title: tested on the branch, the base it names being unknown.
	jq -e --arg id "$(msgid_of "$dir"/v1-0000-*.patch)" \
		'.series[] | select((.group | startswith($id)) and (.tried[0] | startswith("0123456789abcdef0123456789abcdef01234567: not in the tree")) and (.base_why | startswith("ext4-rename")))' "$BOT_WORK/bot/state.json"
	jq -e '.series[] | select((.group | startswith("escape-")) and .outcome == "applies-nowhere" and (.tried[0] | contains("error: ../escape")))' "$BOT_WORK/bot/state.json"
	jq -e --arg id "$(msgid_of "$dup"/v3-0000-*.patch)" '.pending[$id + " v3 2"].answered == "its numbering has duplicate 1/2"' "$BOT_WORK/bot/state.json"
	# Replies: to the escape (applies nowhere) and the duplicates, no more.
	[ "$(archived)" -eq $((before + 2)) ]
}

# A contributor's patch that does not compile: the bot builds the series
# (bisect-tests/run, the builtin variant, in the bot's own work dir, its
# objects from the compiler cache the CI's builds filled) and answers the
# patch with the compiler's errors, the robot's way.  The build stops at
# the error; the bot's first build is still a cold one with the cache's
# objects (every file preprocessed): 304 s beside a CI run here, 884 s
# with two builds beside it.
@test "bot: a patch that breaks the build in fs/ext4 gets one reply, to it, with the compiler's errors marked >>, in the robot's layout; its checks say build-boot fail" {
	full_only "the bot's first kernel build in its own work dir, 5 to 15 minutes here"
	local dir=$BATS_TEST_TMPDIR/broken p1 base key before
	author_series "$dir" 1 'ext4: a series that does not build' \
		'fs/ext4/super.c|static int kbranch_bot_broken(void) { return kbranch_bot_undeclared; }|ext4: return what is not declared'
	p1=$(msgid_of "$dir"/v1-0001-*.patch)
	base=$(ktree rev-parse ext4-rename)
	bot_kbranch list send "$dir"/*.patch
	before=$(archived)
	KBRANCH_BOT_BUILD=1 run bot_kbranch bot once
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "bisect-tests/run at [0-9a-f]*: exit 1 in [0-9]* s" "$BOT_WORK/bot/bot.log"
	# Its replies: checkpatch's, if any, and one that quotes the build.
	[ "$(archived)" -gt "$before" ]
	git --git-dir="$BOT_WORK/list/inbox/git/0.git" log --format=%H "-$(($(archived) - before))" |
		while read -r c; do git --git-dir="$BOT_WORK/list/inbox/git/0.git" show "$c:m"; echo '----'; done >"$BATS_TEST_TMPDIR/replies"
	[ "$(grep -c '^kbranch bot noticed the following build errors:$' "$BATS_TEST_TMPDIR/replies")" -eq 1 ]
	awk '/^----$/ { if (m ~ /noticed the following build errors/) print m; m = ""; next } { m = m $0 "\n" }' \
		"$BATS_TEST_TMPDIR/replies" >"$BATS_TEST_TMPDIR/reply.eml"
	cat "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "In-Reply-To: <$p1>" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx "\[auto build test ERROR on ext4-rename/${base:0:12}\]" "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx 'config:        x86_64-builtin (bisect-tests/configs/base.config + builtin.config onto tinyconfig)' "$BATS_TEST_TMPDIR/reply.eml"
	grep -q '^compiler:      gcc' "$BATS_TEST_TMPDIR/reply.eml"
	# shellcheck disable=SC2016 # the reply's text
	grep -qxF '        (cd linux && KBRANCH_WORK=$PWD/.. ../kbranch/bisect-tests/run --variant builtin)' "$BATS_TEST_TMPDIR/reply.eml"
	grep -qx 'All errors (new ones prefixed by >>):' "$BATS_TEST_TMPDIR/reply.eml"
	grep -q "^>> fs/ext4/super.c:[0-9]*:[0-9]*: error: 'kbranch_bot_undeclared' undeclared" "$BATS_TEST_TMPDIR/reply.eml"
	run bot_kbranch bot status
	echo "$output"
	key=$(awk -v id="$(msgid_of "$dir"/v1-0000-*.patch)" '$3 == id { print $1 }' <<<"$output")
	[ -n "$key" ]
	[ "$(jq -r '[.[] | select(.context == "build-boot") | .state] | join(" ")' "$BOT_WORK/bot/results/$key/checks.json")" = fail ]
	# A second pass answers nothing again.
	before=$(archived)
	KBRANCH_BOT_BUILD=1 run bot_kbranch bot once
	[ "$status" -eq 0 ]
	[ "$(archived)" -eq "$before" ]
}

# Also the clean series: no mail, every check recorded success.
@test "bot: a clean series made on the fixture (base-commit: the packaged tree, the fixture as prerequisite patches) is applied on the ref that has them, gets no mail, and its checks are recorded success, in checks and KCIDB JSON" {
	local dir=$BATS_TEST_TMPDIR/fixture author=$BOT_WORK/author key before
	git -C "$author" checkout -q -f -B work ext4dev-base
	# A line only the fixture has: the patch applies on it alone.
	sed -i 's/^config EXT4DEV_FS$/# The option of the ext4dev era.\nconfig EXT4DEV_FS/' "$author/fs/ext4/Kconfig"
	git -C "$author" -c user.name='Ann Author' -c user.email=ann@example.test commit -q -a \
		-m 'ext4: say which era EXT4DEV_FS is from' -m 'Why: a test of the list bot.' -m 'Signed-off-by: Ann Author <ann@example.test>'
	git -C "$author" -c user.email=ann+fixture@example.test format-patch -q -o "$dir" --cover-letter --thread \
		--base="packaged/$VERSION" --to=linux-ext4@vger.kernel.org ext4dev-base..work
	sed -i '1{/^From [0-9a-f]\{40\} /d}; s|\*\*\* SUBJECT HERE \*\*\*|ext4: on the fixture|' "$dir"/*.patch
	grep -q '^prerequisite-patch-id: ' "$dir"/0000-*.patch
	bot_kbranch list send "$dir"/*.patch
	before=$(archived)
	run bot_kbranch bot once
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(archived)" -eq "$before" ]
	run bot_kbranch bot status
	echo "$output"
	[ "$status" -eq 0 ]
	key=$(awk -v id="$(msgid_of "$dir"/0000-*.patch)" '$3 == id { print $1 }' <<<"$output")
	[ -n "$key" ]
	[[ "$output" == *"$key success $(msgid_of "$dir"/0000-*.patch) v1 1 base=$(ktree rev-parse "ext4dev-base^{commit}") "* ]]
	[ "$(jq -r --arg k "$key" '.series[$k].base_why' "$BOT_WORK/bot/state.json")" = "ext4dev-base, which has the base-commit: $(ktree rev-parse --short=12 "packaged/$VERSION^{commit}") and the 1 prerequisite-patch-id: on it" ]
	[ "$(jq -r '[.[] | .context + "=" + .state] | join(" ")' "$BOT_WORK/bot/results/$key/checks.json")" = "apply=success checkpatch=success" ]
	[ "$(jq -r '.[0].target_url' "$BOT_WORK/bot/results/$key/checks.json")" = "$ARCHIVE$(msgid_of "$dir"/0001-*.patch)/" ]
	[ "$(jq -r '[.tests[].status] | join(" ")' "$BOT_WORK/bot/results/$key/kcidb.json")" = "PASS PASS" ]
	[ "$(jq -r '.checkouts[0].git_commit_hash' "$BOT_WORK/bot/results/$key/kcidb.json")" = "$(ktree rev-parse "ext4dev-base^{commit}")" ]
}

# What a pass killed with SIGKILL leaves, planted as git leaves it: the
# index lock of the bot's checkout (killed in git am) and the lock of its
# cursor ref (killed in update-ref).  With them, every git command there
# would fail from then on.  And "kbranch bot once" run beside another pass.
@test "bot: the git locks a killed pass leaves are cleared by the next one; two passes at once answer a new series once" {
	local dir=$BATS_TEST_TMPDIR/restart before pids=() pid i
	[ -d "$BOT_WORK/bot/kwork/linux/.git" ]
	mkdir -p "$BOT_WORK/bot/mirror.git/refs/bot/seen"
	touch "$BOT_WORK/bot/kwork/linux/.git/index.lock" "$BOT_WORK/bot/mirror.git/refs/bot/seen/0.lock"
	author_series "$dir" 1 'ext4: after a killed pass' 'fs/ext4/file.c|static int kbranch_bot_restart = 0;|ext4: add another variable set to zero'
	bot_kbranch list send "$dir"/*.patch
	before=$(archived)
	for i in 1 2; do
		bot_kbranch bot once >"$BATS_TEST_TMPDIR/pass.$i.log" 2>&1 &
		pids+=("$!")
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
	cat "$BATS_TEST_TMPDIR"/pass.*.log
	[ "$(archived)" -eq $((before + 1)) ]
	grep -qx 'In-Reply-To: <'"$(msgid_of "$dir"/v1-0001-*.patch)"'>' <(newest_message)
	grep -q 'list-bot: waiting for the pass of pid [0-9]*$' "$BATS_TEST_TMPDIR"/pass.*.log
	grep -q "removed $BOT_WORK/bot/kwork/linux/.git/index.lock, left by a pass that was killed" "$BOT_WORK/bot/bot.log"
	grep -q "removed $BOT_WORK/bot/mirror.git/refs/bot/seen/0.lock, left by a pass that was killed" "$BOT_WORK/bot/bot.log"
	[ ! -e "$BOT_WORK/bot/kwork/linux/.git/index.lock" ]
	run bot_kbranch bot status
	[ "$status" -eq 0 ]
	[[ "$output" == *" fail $(msgid_of "$dir"/v1-0000-*.patch) v1 1 "* ]]
	# How long the poster waited, from the archive to the answer.
	[[ "$(grep -F " fail $(msgid_of "$dir"/v1-0000-*.patch) v1 1 " <<<"$output")" =~ \ answered=[0-9]+s$ ]]
	# The queue: the series still waiting (an incomplete one above waits
	# for its parts), as the state has them.
	[ "${lines[-1]}" = "queue: $(jq '.pending | length' "$BOT_WORK/bot/state.json") series waiting; skipped: $(jq '.skipped | length' "$BOT_WORK/bot/state.json"), replies: $(jq '.replied | length' "$BOT_WORK/bot/state.json")" ]
}

@test "bot start runs passes in a session of its own until stop, which leaves nothing of it; status says which" {
	local dir=$BATS_TEST_TMPDIR/started pid _
	# A pass may see the cover before its patch: the wait is what
	# keeps it from answering "missing".
	BOT_WAIT=3600 KBRANCH_BOT_INTERVAL=1 bot_kbranch bot start
	pid=$(cat "$BOT_WORK/bot/bot.pid")
	run bot_kbranch bot status
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "bot: running, pid $pid; "* ]]
	author_series "$dir" 1 'ext4: tested by the running bot' 'fs/ext4/dir.c|/* ext4: directories. */|ext4: say what dir.c holds'
	bot_kbranch list send "$dir"/*.patch
	for _ in $(seq 60); do
		bot_kbranch bot status | grep -q " success $(msgid_of "$dir"/v1-0000-*.patch) v1 1 " && break
		sleep 1
	done
	run bot_kbranch bot status
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" success $(msgid_of "$dir"/v1-0000-*.patch) v1 1 "* ]]
	bot_kbranch bot stop
	# Nothing of its session runs (zombies wait for their reaper).
	[ -z "$(ps -o pid=,stat= -s "$pid" | awk '$2 !~ /^Z/')" ]
	run bot_kbranch bot status
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "bot: not running; work dir $BOT_WORK/bot" ]
}
