# shellcheck shell=bash
# summary: fold the review trailers from the list into the branch (b4 trailers -u on the last thread submit sent, or --from MSGID), report what the archive holds, and export patches/

# b4 applies a reply's Reviewed-by/Acked-by/Tested-by to its patch, and a
# reply to the cover letter to every patch; it refuses a trailer whose
# address is not its sender's, and what b4 took from a sender whose display
# name matched but whose address did not is taken out again.  What it
# read, took and refused (and from whom) is said
# from the archive itself (libexec/thread-report) and b4's own words; the
# branch's trees must not change (trailers are in messages only).

parse_trailers_args() {
	TRAILERS_FROM=
	case "$#:${1:-}" in
	0:) ;;
	2:--from) TRAILERS_FROM=$2 ;;
	*) die "usage: kbranch trailers [--from COVER-MESSAGE-ID]" ;;
	esac
}

# The cover letter of the last revision submit sent.
last_sent_cover() {
	local sent
	sent=$(list_dir)/sent
	[ -s "$sent" ] || die "submit has sent nothing to the list yet ($sent); or give --from MESSAGE-ID"
	tail -n 1 "$sent" | cut -d' ' -f2
}

# b4's settings for the list; run then does b4 trailers itself, so that
# what is tested for failure is b4's process, not a function (set -e does
# not hold in a function called in a condition).
b4_trailers_config() {
	local pairs=()
	mapfile -t pairs < <(list_b4_config)
	# b4 keeps threads for 10 minutes; replies since then must be seen.
	export_git_config "${pairs[@]}" b4.cache-expire 0
}

# Trailer lines each commit of the range gained, as "<subject>: + <line>".
gained_trailers() {
	local before=$1 after=$2 n
	for n in $(seq "$(kgit rev-list --count "$KB_BASE_TAG..$after")"); do
		{ diff <(kgit log -1 --format='%(trailers:only,unfold)' "$before~$((n - 1))") \
			<(kgit log -1 --format='%(trailers:only,unfold)' "$after~$((n - 1))") || true; } |
			sed -n "s/^> \\(.\\)/$(kgit log -1 --format=%s "$after~$((n - 1))" | sed 's/[\/&]/\\&/g'): + \\1/p"
	done
}

# The addresses of the replies that carry trailer line $1 ($2: the
# thread report's "reply <from> "<subject>" trailer: ..." lines).
senders_of() {
	local t=$1 line from
	while IFS= read -r line; do
		from=${line#reply } from=${from%% *}
		[[ "$line" == *" trailer: $t" || "$line" == *" trailer: $t trailer: "* ]] && printf '%s\n' "$from"
	done < <(grep '^reply ' <<<"$2" || true)
	return 0
}

# The gained trailer lines ($1, "<subject>: + <line>") that no reply from
# the trailer's own address carries: b4 0.12 takes a trailer whose display
# name matches its sender's, whatever the address.  Judged by line: the
# same line from its own address anywhere in the thread is not refused.
forged_trailers() {
	local gained=$1 replies=$2 t addr senders
	while IFS= read -r t; do
		[ -n "$t" ] || continue
		t=${t#*: + }
		addr=$(sed -n 's/.*<\([^>]*\)>.*/\1/p' <<<"$t")
		senders=$(senders_of "$t" "$replies")
		[ -n "$addr" ] && grep -qixF "$addr" <<<"$senders" || printf '%s\n' "$t"
	done <<<"$gained" | sort -u
}

# The branch again without the forged trailer lines ($3) that b4 added:
# the same commits otherwise (authors, committers, dates, trees).
drop_forged() {
	local before=$1 after=$2 forged=$3 tip c n msg had
	local an ae ad cn ce cd
	tip=$(kgit rev-parse "$KB_BASE_TAG^{commit}")
	n=$(kgit rev-list --count "$KB_BASE_TAG..$after")
	for c in $(kgit rev-list --reverse "$KB_BASE_TAG..$after"); do
		n=$((n - 1))
		had=$(kgit log -1 --format='%(trailers:only,unfold)' "$before~$n")
		msg=$(kgit cat-file commit "$c" | sed '1,/^$/d' | while IFS= read -r line || [ -n "$line" ]; do
			if grep -qxF -- "$line" <<<"$forged" && ! grep -qxF -- "$line" <<<"$had"; then
				continue
			fi
			printf '%s\n' "$line"
		done)
		IFS=$'\t' read -r an ae ad cn ce cd < <(kgit show -s --no-use-mailmap --date=raw --format='%an%x09%ae%x09%ad%x09%cn%x09%ce%x09%cd' "$c")
		tip=$(GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE=$ad \
			GIT_COMMITTER_NAME=$cn GIT_COMMITTER_EMAIL=$ce GIT_COMMITTER_DATE=$cd \
			kgit commit-tree -p "$tip" -m "$msg" "$c^{tree}") || die "cannot drop the forged trailers from $c"
	done
	kgit reset -q --hard "$tip"
	printf '%s\n' "$tip"
}

indented() {
	local lines
	[ -n "$1" ] || return 0
	mapfile -t lines <<<"$1"
	printf '  %s\n' "${lines[@]}"
}

thread_report() {
	local dir
	dir=$(list_dir)
	"$KB_REPO/branch-scripts/libexec/thread-report" "$dir/inbox" "$dir/sent-ids" ||
		die "cannot read the archive $dir/inbox"
}

# Each refused trailer line with the addresses of the replies that sent it.
refused_with_senders() {
	local refused=$1 replies=$2 t senders
	while IFS= read -r t; do
		[ -n "$t" ] || continue
		senders=$(senders_of "$t" "$replies" | sort -u | paste -sd, | sed 's/,/, /g')
		printf '  %s (from %s)\n' "$t" "${senders:-?}"
	done <<<"$refused"
}

# What the list holds that the archive has not taken: exim's queue (it
# retries) and its bounces file (given up).
undelivered() {
	local queued bounced=0 dir
	queued=$(list_queued)
	dir=$(list_dir)
	[ ! -s "$dir/mda-home/bounces.mbox" ] || bounced=$(grep -c '^From ' "$dir/mda-home/bounces.mbox" || true)
	[ "$queued" = 0 ] ||
		echo "not yet in the archive: $queued message(s) in the list's queue, retried every 15 s (exim4 -C $(list_dir)/exim.conf -bp); run kbranch trailers again once they are in"
	[ "$bounced" = 0 ] ||
		echo "refused by the archive for good: $bounced message(s), in $(list_dir)/mda-home/bounces.mbox"
	return 0
}

report() {
	local before=$1 after=$2 log=$3 replies=$4 forged=$5 gained refused line from t had
	gained=$(gained_trailers "$before" "$after")
	refused=$(sed -n 's/^ *! Trailer: \(.*\)$/\1/p' "$log")
	echo "replies read: $(grep -c '^reply ' <<<"$replies" || true)"
	undelivered
	echo "trailers applied:"
	indented "$gained"
	echo "trailers refused (the address in it is not its sender's):"
	refused_with_senders "$(printf '%s\n%s\n' "$refused" "$forged" | sed '/^$/d')" "$replies"
	refused=$(printf '%s\n%s\n' "$refused" "$forged")
	# Read once: "git log | grep -q" under pipefail failed whenever grep
	# quit before git had written everything (SIGPIPE), and applied
	# trailers were then reported as malformed.
	had=$(kgit log --format='%(trailers:only,unfold)' "$KB_BASE_TAG..$before")
	echo "trailer-like lines b4 did not take (malformed):"
	while IFS= read -r line; do
		from=${line#reply } from=${from%% *}
		while IFS= read -r t; do
			grep -qxF "$t" <<<"$refused" && continue
			grep -qF ": + $t" <<<"$gained" && continue
			# Already in the commits before this run: nothing new.
			grep -qxF "$t" <<<"$had" && continue
			echo "  $t (from $from)"
		done < <(printf '%s\n' "${line// trailer: /$'\n'}" | tail -n +2)
	done < <(grep '^reply ' <<<"$replies" || true)
	echo "outside the series' threads (they change nothing): $(grep -c '^outside ' <<<"$replies" || true)"
	grep '^outside ' <<<"$replies" | sed 's/^outside /  /' || true
}

run() {
	# shellcheck source=branch-scripts/lib/list.sh
	. "$KB_REPO/branch-scripts/lib/list.sh"
	parse_trailers_args "$@"
	require_tree
	take_lock
	require_clean_tree
	kgit rev-parse -q --verify "refs/heads/$KBRANCH_BRANCH" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	require_runner
	local msgid=$TRAILERS_FROM before after log=$KBRANCH_WORK/logs/trailers.log replies forged port state
	[ -n "$msgid" ] || msgid=$(last_sent_cover)
	port=$(list_http_port)
	state=$(port_state "$port")
	[ "$state" = taken ] || die "no archive on 127.0.0.1:$port ('kbranch list start')"
	mkdir -p "$(dirname "$log")"
	: >"$log"
	kgit checkout -q "$KBRANCH_BRANCH"
	before=$(kgit rev-parse HEAD)
	list_settle
	step "b4 trailers -u from $(list_url)$msgid/ (log: $log)"
	b4_trailers_config
	(cd "$KTREE" && b4 trailers -u -F "$msgid") >>"$log" 2>&1 || die "b4 trailers -u failed (log: $log); the branch is as it was"
	after=$(kgit rev-parse HEAD)
	if [ "$(kgit rev-parse "$before^{tree}")" != "$(kgit rev-parse "$after^{tree}")" ]; then
		kgit reset -q --hard "$before"
		die "b4 trailers -u changed the tree, not only messages; the branch is put back (log: $log)"
	fi
	replies=$(thread_report)
	forged=$(forged_trailers "$(gained_trailers "$before" "$after")" "$replies")
	[ -z "$forged" ] || after=$(drop_forged "$before" "$after" "$forged")
	report "$before" "$after" "$log" "$replies" "$forged"
	if [ "$before" = "$after" ]; then
		step "no trailer to apply: the branch and patches/ are unchanged"
		return 0
	fi
	"$KB_REPO/branch-scripts/kbranch" export
	step "patches/ now carry the trailers; the branch was $before"
}
