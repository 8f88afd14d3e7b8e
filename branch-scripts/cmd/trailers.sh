# shellcheck shell=bash
# summary: fold the review trailers from the list into the branch (b4 trailers -u on the last thread submit sent, or --from MSGID), report what the archive holds, and export patches/

# b4 applies a reply's Reviewed-by/Acked-by/Tested-by to its patch, and a
# reply to the cover letter to every patch; it refuses a trailer whose
# address is not its sender's.  What it read, took and refused is said
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
	[ -s "$(list_dir)/sent" ] || die "submit has sent nothing to the list yet ($(list_dir)/sent); or give --from MESSAGE-ID"
	tail -n 1 "$(list_dir)/sent" | cut -d' ' -f2
}

b4_trailers() {
	local msgid=$1 log=$2 pairs=()
	mapfile -t pairs < <(list_b4_config)
	# b4 keeps threads for 10 minutes; replies since then must be seen.
	export_git_config "${pairs[@]}" b4.cache-expire 0
	(cd "$KTREE" && b4 trailers -u -F "$msgid") >>"$log" 2>&1
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

indented() {
	local lines
	[ -n "$1" ] || return 0
	mapfile -t lines <<<"$1"
	printf '  %s\n' "${lines[@]}"
}

report() {
	local before=$1 after=$2 log=$3 replies gained refused line from t
	replies=$("$KB_REPO/branch-scripts/libexec/thread-report" "$(list_dir)/inbox" "$(list_dir)/sent-ids") ||
		die "cannot read the archive $(list_dir)/inbox"
	gained=$(gained_trailers "$before" "$after")
	refused=$(sed -n 's/^ *! Trailer: \(.*\)$/\1/p' "$log")
	echo "replies read: $(grep -c '^reply ' <<<"$replies" || true)"
	echo "trailers applied:"
	indented "$gained"
	echo "trailers refused (b4: the address in it is not its sender's):"
	indented "$refused"
	echo "trailer-like lines b4 did not take (malformed):"
	while IFS= read -r line; do
		from=${line#reply } from=${from%% *}
		while IFS= read -r t; do
			grep -qxF "$t" <<<"$refused" && continue
			grep -qF ": + $t" <<<"$gained" && continue
			# Already in the commits before this run: nothing new.
			kgit log --format='%(trailers:only,unfold)' "$KB_BASE_TAG..$before" | grep -qxF "$t" && continue
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
	local msgid=$TRAILERS_FROM before after log=$KBRANCH_WORK/logs/trailers.log
	[ -n "$msgid" ] || msgid=$(last_sent_cover)
	port_taken "$(list_http_port)" || die "no archive on 127.0.0.1:$(list_http_port) ('kbranch list start')"
	mkdir -p "$(dirname "$log")"
	: >"$log"
	kgit checkout -q "$KBRANCH_BRANCH"
	before=$(kgit rev-parse HEAD)
	list_settle
	step "b4 trailers -u from $(list_url)$msgid/ (log: $log)"
	b4_trailers "$msgid" "$log" || die "b4 trailers -u failed (log: $log); the branch is as it was"
	after=$(kgit rev-parse HEAD)
	if [ "$(kgit rev-parse "$before^{tree}")" != "$(kgit rev-parse "$after^{tree}")" ]; then
		kgit reset -q --hard "$before"
		die "b4 trailers -u changed the tree, not only messages; the branch is put back (log: $log)"
	fi
	report "$before" "$after" "$log"
	if [ "$before" = "$after" ]; then
		step "no trailer to apply: the branch and patches/ are unchanged"
		return 0
	fi
	"$KB_REPO/branch-scripts/kbranch" export
	step "patches/ now carry the trailers; the branch was $before"
}
