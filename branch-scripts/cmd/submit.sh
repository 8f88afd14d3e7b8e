# shellcheck shell=bash
# summary: the mailing-list thread with b4 (cover-letter.txt, To/Cc from get_maintainer.pl), written to $KBRANCH_WORK/outgoing and sent to the list of kbranch list; --dry-run only writes it, --resend sends what outgoing/ holds

B4_BASE_BRANCH=kbranch/ext4dev-base

# b4's settings (export_git_config, lib/list.sh).  The user's own
# settings win where they exist.
b4_config() {
	local pairs=()
	pairs+=(b4.prep-cover-strategy branch-description)
	pairs+=(b4.send-auto-to-cmd "$(maintainers_cmd --nol)")
	pairs+=(b4.send-auto-cc-cmd "$(maintainers_cmd --nom)")
	# -o only writes files, but b4 picks SMTP or its web endpoint first.
	kgit config sendemail.smtpserver >/dev/null || pairs+=(sendemail.smtpserver localhost)
	# b4 reads back what was sent from the list's archive.
	mapfile -t -O "${#pairs[@]}" pairs < <(list_b4_config)
	export_git_config "${pairs[@]}"
}

# b4's To: (--nol: the maintainers) and Cc: (--nom: the lists and
# reviewers) commands: get_maintainer.pl on a patch's changes.
maintainers_cmd() {
	printf '%s\n' "$KB_REPO/branch-scripts/libexec/get-maintainer --nogit --nogit-fallback --nogit-chief-penguins --norolestats $1"
}

# The key that signs the thread (patatt's, else git's); nothing for none.
# git itself, not kgit: a function tested in a condition runs without set -e.
signing_key() {
	git -C "$KTREE" config patatt.signingkey || git -C "$KTREE" config user.signingkey || true
}

# b4 runs in the kernel tree, in a subshell of its own wherever its
# failure is tested: a function called there would run without set -e.

# The branch is enrolled once: its change-id, and the message-ids of the
# revisions sent, are b4's tracking, which the next revision needs.  On a
# new base (the fixture changed, or kbranch rebase moved the series to a
# new linux-source) it stays enrolled and only b4's base branch moves: the
# next revision is still the same series, linked to the earlier ones.  The
# branch description holds the cover letter (no cover commit is added to
# the branch that gets published): cover-letter.txt, with b4's links to
# the earlier revisions.
enroll() {
	local log=$1 rev
	kgit branch -f "$B4_BASE_BRANCH" "$KB_BASE_TAG"
	if ! kgit config "branch.$KBRANCH_BRANCH.b4-tracking" >/dev/null; then
		kgit config --remove-section "branch.$KBRANCH_BRANCH" 2>/dev/null || true
		(cd "$KTREE" && b4 prep -e "$B4_BASE_BRANCH") >>"$log" 2>&1 || die "b4 prep -e failed (log: $log)"
	fi
	rev=$(series_revision)
	(cd "$KTREE" && b4 prep --force-revision "$rev") >>"$log" 2>&1 ||
		die "b4 prep --force-revision failed (log: $log)"
	kgit config "branch.$KBRANCH_BRANCH.description" "$(cover_text)"
	(cd "$KTREE" && b4 prep --auto-to-cc) >>"$log" 2>&1 || die "b4 prep --auto-to-cc failed (log: $log)"
}

# The message-id b4's tracking recorded for revision $1, if it was sent.
sent_msgid() {
	kgit config "branch.$KBRANCH_BRANCH.b4-tracking" 2>/dev/null |
		python3 -c 'import json, sys
ids = json.load(sys.stdin)["series"].get("history", {}).get("v" + sys.argv[1], [])
print(ids[-1] if ids else "")' "$1"
}

# cover-letter.txt, with "- Link to vK: <archive URL>" for every earlier
# revision sent, as the last lines of its "Changes in vN" block, where b4
# puts them (or in a block of their own, when the text has none).
cover_text() {
	local rev links="" k id
	rev=$(series_revision)
	for ((k = 1; k < rev; k++)); do
		id=$(sent_msgid "$k")
		[ -z "$id" ] || links+=" - Link to v$k: $(list_url)$id"$'\n'
	done
	awk -v rev="$rev" -v links="$links" '
		links != "" && !done && $0 ~ "^Changes in v" rev "([ :(]|$)" { inblock = 1 }
		inblock && /^$/ { printf "%s", links; inblock = 0; done = 1 }
		{ print }
		END {
			if (inblock) printf "%s", links
			else if (links != "" && !done) printf "\nChanges in v%s:\n%s", rev, links
		}' "$KB_REPO/cover-letter.txt"
	fixture_note
}

# Where a reviewer gets the base: the pull request's repository, which
# publishes the fixture as tag ext4dev-base with the branch; and how they
# check the prerequisite-patch-id: git 2.39's format-patch hashes the
# fixture's diff made without the indent heuristic, which git patch-id
# alone does not reproduce.  (<message-id> becomes the cover letter's own
# once b4 has written it: own_message_id.)
fixture_note() {
	local packaged
	packaged=$(kgit rev-parse "packaged/$(version_ref "$(base_version)")^{commit}")
	cat <<EOF

The series applies to tag $KB_BASE_TAG: Debian's linux-source $(base_version)
(base-commit below) with the ext4dev-era fixture on top (its
prerequisite-patch-id below), published with the branch:

git fetch $(public_url) tag $KB_BASE_TAG
git checkout $KB_BASE_TAG && b4 am -o - <message-id> | git am

b4 am (0.12 and 0.14 tested) does not read prerequisite-patch-id: lines
and suggests the base-commit, where patch 1 does not apply: check out
$KB_BASE_TAG instead.
The prerequisite-patch-id is the fixture's, as this prints it:

git diff-tree -p --no-indent-heuristic $packaged $KB_BASE_TAG | git patch-id --stable
EOF
}

# The cover letter's b4 am line names the cover letter's own message-id.
own_message_id() {
	local cover=$1 id line
	id=$(sed -n 's/^Message-I[Dd]: <\(.*\)>$/\1/p' "$cover")
	id=${id%%$'\n'*}
	[ -n "$id" ] || die "b4 wrote no Message-Id: in $cover"
	line="git checkout $KB_BASE_TAG && b4 am -o - $id | git am"
	python3 -c 'import sys
path, generic, line = sys.argv[1:]
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write(text.replace(generic, line, 1))' \
		"$cover" "git checkout $KB_BASE_TAG && b4 am -o - <message-id> | git am" "$line"
	grep -qxF "$line" "$cover" || die "the cover letter in $cover has no b4 am line to name its message-id in"
}

# The revision the series is at ("# revision: N" in series.txt): b4 names
# the thread [PATCH vN ...] from it.
series_revision() {
	local rev
	rev=$(sed -n 's/^# revision: *\([0-9][0-9]*\)$/\1/p' "$KB_REPO/series.txt")
	printf '%s\n' "${rev:-1}"
}

# A reviewer has what is published, not this tree: the packaged import
# (Debian's tree, which anyone can make) and the fixture on it, which the
# pull request's repository publishes as tag ext4dev-base with the branch.
# So the cover letter says what git format-patch --base=<packaged import>
# says for commits between the base and the series: base-commit: the
# packaged import, and a prerequisite-patch-id: per fixture commit.  (b4
# 0.12 with the branch-description strategy writes start_commit~1, which
# is the packaged import while the fixture is one commit; the line is
# rewritten, not trusted.)
base_lines() {
	local packaged=$1 first
	first=$(kgit rev-list --reverse "$KB_BASE_TAG..$KBRANCH_BRANCH" | sed -n 1p)
	# git's own lines (its patch-id is not git patch-id's, whatever mode).
	kgit format-patch --stdout --base="$packaged" -1 "$first" |
		grep -E '^(base-commit|prerequisite-patch-id): [0-9a-f]{40}$'
}

fix_base_commit() {
	local cover=$1 packaged lines
	packaged=$(kgit rev-parse "packaged/$(version_ref "$(base_version)")^{commit}")
	lines=$(base_lines "$packaged")
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$cover" || die "b4 wrote no base-commit: line in $cover"
	# The one base-commit: line becomes the base lines; nothing else moves.
	python3 -c 'import sys
path, lines = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read().split("\n")
text = [l for l in text if not l.startswith("prerequisite-patch-id: ")]
i = next(i for i, l in enumerate(text) if l.startswith("base-commit: "))
text[i:i + 1] = lines.split("\n")
open(path, "w", encoding="utf-8").write("\n".join(text))' "$cover" "$lines"
	grep -qxF "base-commit: $packaged" "$cover" || die "the cover letter does not record base-commit $packaged"
	step "base-commit: packaged/$(base_version), the fixture ($KB_BASE_TAG) as prerequisite-patch-id"
}

# What the list reads must be fetchable by anyone: the cover letter tells
# reviewers to fetch the fixture from kbranch.public-url, which falls back
# to the local publish path when unset.  A thread is written with any URL
# (--dry-run), sent only with a git:// or https:// one: exit 128, as git
# refuses what it cannot do, and nothing is sent.  $1 is the URL, $2 where
# it comes from.
require_fetchable_url() {
	case $1 in
	git://?* | https://?*) ;;
	*) KB_DIE_STATUS=128 die "$2 is '$1', not a git:// or https:// URL reviewers can fetch the fixture from (git -C $KTREE config kbranch.public-url git://...): nothing sent" ;;
	esac
}

# The URL the written cover letter tells reviewers to fetch from.
cover_fetch_url() {
	local url
	url=$(sed -n "s/^git fetch \(.*\) tag $KB_BASE_TAG\$/\1/p" "$1")
	printf '%s\n' "${url%%$'\n'*}"
}

parse_submit_args() {
	SUBMIT_MODE=send
	case "$#:${1:-}" in
	0:) ;;
	1:--dry-run) SUBMIT_MODE=dry-run ;;
	1:--resend) SUBMIT_MODE=resend ;;
	*) die "usage: kbranch submit [--dry-run | --resend]" ;;
	esac
}

run() {
	# shellcheck source=branch-scripts/lib/list.sh
	. "$KB_REPO/branch-scripts/lib/list.sh"
	parse_submit_args "$@"
	require_tree
	take_lock
	require_clean_tree
	kgit rev-parse -q --verify "refs/heads/$KBRANCH_BRANCH" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	[ -s "$KB_REPO/cover-letter.txt" ] || die "cover-letter.txt is missing or empty"
	require_runner
	local out=$KBRANCH_WORK/outgoing log=$KBRANCH_WORK/logs/submit.log port state url
	mkdir -p "$(dirname "$log")"
	: >"$log"
	b4_config
	# The list and the URL are looked at before the slow work, not after it.
	if [ "$SUBMIT_MODE" = send ]; then
		url=$(public_url)
		require_fetchable_url "$url" kbranch.public-url
		port=$(list_smtp_port)
		state=$(port_state "$port")
		[ "$state" = taken ] ||
			die "no list on 127.0.0.1:$port ('kbranch list start'): nothing written or sent"
	fi
	if [ "$SUBMIT_MODE" = resend ]; then
		[ -n "$(find "$out" -name '0000-*.eml' 2>/dev/null)" ] || die "nothing to resend: no thread in $out"
	else
		write_thread "$out" "$log"
	fi
	[ "$SUBMIT_MODE" = dry-run ] || send_thread "$out" "$log"
	revision_report "$out" "$log"
}

# --- What changed since the previous revision --------------------------------
# The range-diff from the previous revision as sent (b4's sent/ tag), and
# beside it the verdicts the notes hold for each patch of both, variant by
# variant, so a reviewer sees which results moved.  git range-diff of the
# two series themselves, not b4 prep --compare-to: b4 takes the old range
# from the tag's base-commit, the packaged import, and would list the
# fixture (a prerequisite, not a patch) as dropped.
revision_report() {
	local out=$1 log=$2 rev prev tag from
	rev=$(series_revision)
	prev=$((rev - 1))
	tag=$(b4_sent_tag "$prev")
	if [ "$prev" -lt 1 ] || ! kgit rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		step "no earlier revision sent from here (no tag $tag): no range-diff"
		return 0
	fi
	from=$(sent_series_base "$tag")
	git -C "$KTREE" range-diff "$from..$tag" "$KB_BASE_TAG..$KBRANCH_BRANCH" >"$out/range-diff-v$prev-v$rev.txt" 2>>"$log" ||
		die "git range-diff v$prev v$rev failed (log: $log)"
	step "range-diff v$prev -> v$rev ($out/range-diff-v$prev-v$rev.txt):"
	cat "$out/range-diff-v$prev-v$rev.txt"
	step "verdicts from the notes, v$prev -> v$rev (- = never verified):"
	verdict_delta "$tag" "$KBRANCH_BRANCH"
}

b4_sent_tag() {
	printf 'sent/%s-v%s\n' "$KBRANCH_BRANCH" "$1"
}

# The base a sent revision applied to: its cover letter's base-commit,
# which b4's sent tag keeps (an earlier revision may be on an earlier base).
sent_base() {
	local base
	base=$(kgit tag -l --format='%(contents)' "$1" | sed -n 's/^base-commit: \([0-9a-f]\{40\}\)$/\1/p' | tail -n 1)
	printf '%s\n' "${base:-$KB_BASE_TAG}"
}

# How many commits between a sent revision's base-commit and its series
# are the fixture (its cover letter's prerequisite-patch-id lines).
sent_prerequisites() {
	kgit tag -l --format='%(contents)' "$1" | grep -c '^prerequisite-patch-id: ' || true
}

# The commit a sent revision's patches sit on: its base-commit, or the
# last of the fixture commits its prerequisite-patch-id lines name.
sent_series_base() {
	local base k
	base=$(sent_base "$1")
	k=$(sent_prerequisites "$1")
	[ "$k" -eq 0 ] || base=$(kgit rev-list --reverse "$base..$1" | sed -n "${k}p")
	printf '%s\n' "$base"
}

verdict_delta() {
	local table
	table=$(verdict_table "$@")
	# Nothing verified on either side is said once, not line by line.
	if grep -Eq -- '-> +[a-z]|^ +[^ ]+ +[a-z]+ +->' <<<"$table"; then
		printf '%s\n' "$table"
	else
		echo "  no verdicts recorded for either revision ('kbranch verify' records them)"
	fi
}

verdict_table() {
	local old=$1 new=$2 olds=() news=() i variant a b
	# shellcheck source=branch-scripts/lib/notes.sh
	. "$KB_REPO/branch-scripts/lib/notes.sh"
	mapfile -t olds < <(kgit rev-list --reverse "$(sent_series_base "$old")..$old")
	mapfile -t news < <(kgit rev-list --reverse "$KB_BASE_TAG..$new")
	for ((i = 0; i < ${#news[@]} || i < ${#olds[@]}; i++)); do
		printf '  %d/%d %s\n' "$((i + 1))" "${#news[@]}" "$(kgit log -1 --format=%s "${news[i]:-${olds[i]}}")"
		for variant in "${KB_VARIANTS[@]}"; do
			a=$(note_verdict "${olds[i]:-}" "$variant")
			b=$(note_verdict "${news[i]:-}" "$variant")
			printf '    %-16s %-5s -> %-5s%s\n' "$variant" "$a" "$b" "$([ "$a" = "$b" ] || echo '  (changed)')"
		done
	done
}

note_verdict() {
	local v
	[ -n "$1" ] || { echo -; return; }
	v=$(note_value "$(note_newest "$1" "$2")" verdict)
	printf '%s\n' "${v:--}"
}

write_thread() {
	local out=$1 log=$2 key
	kgit checkout -q "$KBRANCH_BRANCH"
	step "b4 prep: enrolling $KBRANCH_BRANCH at $KB_BASE_TAG, To/Cc from get_maintainer.pl (log: $log)"
	enroll "$log"
	rm -rf "$out"
	step "b4 send -o $out"
	# Unsigned: the cover letter still changes below, and a signature
	# made before that would not verify.
	(cd "$KTREE" && b4 send -o "$out" --no-sign) >>"$log" 2>&1 || die "b4 send -o failed (log: $log)"
	address_patches "$out" "$log"
	own_thread "$out"
	sign_off_patches "$out" "$log"
	fix_base_commit "$(find "$out" -name '0000-*.eml')"
	own_message_id "$(find "$out" -name '0000-*.eml')"
	key=$(signing_key)
	[ -z "$key" ] || sign_thread "$out" "$log"
	list_recipients "$out"
	step "thread written: $(find "$out" -name '*.eml' | wc -l) messages in $out"
}

# --- Sending -----------------------------------------------------------------
# b4 0.12's own send would sign before the base-commit fix and name the
# base's parent, so the corrected messages that -o wrote are sent as they
# are, over SMTP, by curl (--crlf: its dot-stuffing looks for CRLF line
# starts; the URL's path is the EHLO name, which it otherwise takes from
# the file's name), to every To and Cc address of each; the list delivers them all
# to its archive.  Then b4 records the revision as sent the way its own
# send does (b4 prep --manual-reroll: the sent/ tag and the message-id in
# the series' history), reading the cover letter back from the archive.

# The messages of the thread that the list accepted, one file name a line:
# a resend after a refusal half way sends only the rest, so the list sees
# every message once.
sent_so_far() {
	printf '%s/.accepted\n' "$1"
}

send_thread() {
	local out=$1 log=$2 messages=() m n=0 cover accepted port state sent url
	accepted=$(sent_so_far "$out")
	mapfile -t messages < <(find "$out" -name '*.eml' | sort)
	url=$(cover_fetch_url "${messages[0]}")
	require_fetchable_url "$url" "the written cover letter's fixture URL"
	port=$(list_smtp_port)
	state=$(port_state "$port")
	[ "$state" = taken ] ||
		die "no list on 127.0.0.1:$port ('kbranch list start'): nothing sent, the thread is kept in $out ('kbranch submit --resend' sends it)"
	step "sending ${#messages[@]} messages to the list on 127.0.0.1:$port (log: $log)"
	for m in "${messages[@]}"; do
		if grep -qxF "$(basename "$m")" "$accepted" 2>/dev/null; then
			step "$(basename "$m"): accepted by the list before, not sent again"
		else
			state=$(send_message "$m" "$port" "$log" "$RUNNER_EMAIL")
			[ "$state" = sent ] ||
				die "the list refused $(basename "$m") after $n of ${#messages[@]} messages ($(tail -n 1 "$log")): the thread is kept in $out ('kbranch submit --resend' sends the rest)"
			basename "$m" >>"$accepted"
		fi
		n=$((n + 1))
	done
	cover=$(message_id "${messages[0]}")
	# A resend of a thread sent before is the same revision again: b4's
	# --manual-reroll would record it as the next one (a bogus sent/ tag
	# that the real next revision then keeps).
	sent=$(sent_before "$cover")
	if [ "$sent" = yes ]; then
		rm -f "$accepted"
		step "sent again: $(list_url)$cover/ (recorded as sent before; no new revision recorded)"
		return 0
	fi
	# Recorded only once the archive has every message: a thread the
	# archive lost (it refused them, for now or for good) is not sent.
	# Until then .accepted stays: the list has them and retries them, so
	# a resend sends none again.
	in_archive "${messages[@]}"
	rm -f "$accepted"
	# What was sent, for kbranch trailers: every message-id, and the
	# cover letter's per revision.
	for m in "${messages[@]}"; do
		message_id "$m"
	done >>"$(list_dir)/sent-ids"
	printf '%s %s\n' "$(series_revision)" "$cover" >>"$(list_dir)/sent"
	record_sent "$cover" "$log"
	step "sent: $(list_url)$cover/"
}

# Every message given is in the archive (the list delivers in the
# background: 30 s at most), or one line says how many are not.
in_archive() {
	local m missing=() _ url ids=()
	# Deliveries done, and a fresh httpd worker: one that saw the archive
	# change under it may not find what was delivered since.
	list_settle
	url=$(list_url)
	for m in "$@"; do
		ids+=("$(message_id "$m")")
	done
	for _ in $(seq 60); do
		missing=()
		for m in "${ids[@]}"; do
			curl -sf -o /dev/null "$url$m/raw" || missing+=("$m")
		done
		[ "${#missing[@]}" -gt 0 ] || return 0
		sleep 0.5
	done
	die "the archive has not taken ${#missing[@]} of $# messages 30 s after sending ($(list_queued) queued, retried every 15 s; 'kbranch list status'): not recorded as sent; 'kbranch submit --resend' once the archive has them"
}

# Whether cover letter $1 was recorded as sent: "yes" or "no".
sent_before() {
	local recorded dir
	dir=$(list_dir)
	recorded=$(cut -d' ' -f2 "$dir/sent" 2>/dev/null || true)
	if grep -qxF "$1" <<<"$recorded"; then echo yes; else echo no; fi
}

# b4's sent bookkeeping, once the archive has the thread (in_archive).
record_sent() {
	local msgid=$1 log=$2
	list_settle
	kgit checkout -q "$KBRANCH_BRANCH"
	(cd "$KTREE" && b4 prep --manual-reroll "$msgid") >>"$log" 2>&1 ||
		die "b4 prep --manual-reroll could not record the sent revision (log: $log)"
	step "b4 recorded the sent revision: tag $(kgit tag -l 'sent/*' --sort=-creatordate | sed -n 1p)"
}

# Each patch goes To/Cc the people get_maintainer.pl names for it alone,
# and the cover letter to all of them (libexec/thread-headers): b4 0.12
# gives every message the whole series' list.
address_patches() {
	local out=$1 log=$2 cover patches=() to_cmd cc_cmd
	cover=$(find "$out" -name '0000-*.eml')
	mapfile -t patches < <(find "$out" -name '*.eml' ! -name '0000-*' | sort)
	to_cmd=$(maintainers_cmd --nol)
	cc_cmd=$(maintainers_cmd --nom)
	(cd "$KTREE" && "$KB_REPO/branch-scripts/libexec/thread-headers" "$to_cmd" "$cc_cmd" "$cover" "${patches[@]}") >>"$log" 2>&1 ||
		die "get_maintainer.pl could not address the patches (log: $log)"
	step "each patch addressed To/Cc what get_maintainer.pl names for it, the cover letter to all of them"
}

# The recipients of each message as written, in $out/recipients.txt and
# in the summary.
list_recipients() {
	local out=$1
	find "$out" -name '*.eml' | sort | xargs "$KB_REPO/branch-scripts/libexec/thread-headers" --list >"$out/recipients.txt"
	step "recipients ($out/recipients.txt):"
	sed 's/^/  /' "$out/recipients.txt" >&2
}

# Patches whose recorded author is the project's placeholder go out
# authored by the sender, without the placeholder's Signed-off-by and
# without Cc'ing its address (it bounces); the credit ("Based on a patch
# by ...") stays, and the credited author is Cc'd.  The branch keeps its
# fixed identity, so its hashes stay reproducible.
own_thread() {
	local out=$1 args=() name email
	while IFS=$'\t' read -r name email; do
		args+=(-a "$email" -n "$name")
	done < <(placeholder_identities)
	[ "${#args[@]}" -gt 0 ] || return 0
	"$KB_REPO/branch-scripts/libexec/own-thread" -r "$RUNNER_NAME" "${args[@]}" "$out"/*.eml ||
		die "cannot rewrite the placeholder author out of the thread in $out"
	step "patches by the placeholder author: sent as authored by $RUNNER"
}

# The sender's Signed-off-by after each patch's own trailers (not twice),
# in the written messages only: the branch keeps its commits and hashes.
# b4 0.12 has no option for it.  Before any patatt signature is made.
sign_off_patches() {
	local out=$1 log=$2 patches=() p
	mapfile -t patches < <(find "$out" -name '*.eml' ! -name '0000-*' | sort)
	[ "${#patches[@]}" -gt 0 ] || die "b4 wrote no patches to $out (log: $log)"
	git -C "$KTREE" interpret-trailers --in-place --where end --if-exists addIfDifferent --if-missing add \
		--trailer "Signed-off-by: $RUNNER" "${patches[@]}" >>"$log" 2>&1 ||
		die "git interpret-trailers could not add your Signed-off-by (log: $log)"
	for p in "${patches[@]}"; do
		grep -qxF "Signed-off-by: $RUNNER" < <(sed '/^---$/q' "$p") ||
			die "$(basename "$p") has no Signed-off-by: $RUNNER after git interpret-trailers"
	done
	step "added Signed-off-by: $RUNNER to ${#patches[@]} patches"
}

# Sign every message with patatt, as b4 send would have.
sign_thread() {
	local out=$1 log=$2 messages=()
	mapfile -t messages < <(find "$out" -name '*.eml' | sort)
	[ "${#messages[@]}" -gt 0 ] || die "b4 wrote no messages to $out (log: $log)"
	(cd "$KTREE" && "$KB_REPO/branch-scripts/libexec/patatt" sign "${messages[@]}") >>"$log" 2>&1 ||
		die "patatt could not sign the thread with the configured key (log: $log)"
	step "signed ${#messages[@]} messages with patatt"
}
