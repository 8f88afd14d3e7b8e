# shellcheck shell=bash
# What kbranch bisect says about its culprit beyond git bisect's answer:
# whether the culprit can have changed the kernel the guest booted (a
# suspect one cannot: the bisect followed a test that lied), and, when it
# is confirmed, the regression report as a mail (libexec/regression-mail).
# Sourced by cmd/bisect.sh; tgit and the KB_BISECT_* facts are its.

# Why culprit $1 cannot have changed the x86_64 kernel the guest boots, in
# words, or nothing when it can: a merge, or a change only to
# documentation, to defconfigs, to other architectures, or to comments;
# or a change of source whose compiled kernel is its parent's
# (bisect_same_kernel).
bisect_suspect() {
	local culprit=$1 parents files n comments
	parents=$(tgit rev-list --parents -n 1 "$culprit" | wc -w)
	[ "$parents" -le 2 ] || { echo "it is a merge"; return 0; }
	files=$(tgit diff --name-only "$culprit^" "$culprit")
	[ -n "$files" ] || { echo "it changes no file"; return 0; }
	n=$(grep -c . <<<"$files")
	if [ "$(grep -c '^Documentation/' <<<"$files")" = "$n" ]; then
		echo "it touches only documentation"
	elif [ "$(grep -cE '^arch/[^/]+/configs/' <<<"$files")" = "$n" ]; then
		echo "it touches only defconfigs"
	elif [ "$(grep -cE '^arch/[^/]+/' <<<"$files")" = "$n" ] && [ "$(grep -c '^arch/x86/' <<<"$files")" = 0 ]; then
		echo "it touches only other architectures than x86"
	else
		comments=$(bisect_comments_only "$culprit" "$files")
		if [ "$comments" = yes ]; then
			echo "it changes only comments"
		else
			bisect_same_kernel "$culprit"
		fi
	fi
}

# "it builds the same kernel as its parent" when the steps at culprit $1
# and at its parent built the same bytes but for the release (run's
# kernel=: the tester's build, its stamps fixed); nothing when they
# differ or either is not known, or when the culprit changes what the id
# does not cover (bisect_kernel_id_covers).
bisect_same_kernel() {
	local mine parents covers
	covers=$(bisect_kernel_id_covers "$1")
	[ "$covers" = yes ] || return 0
	mine=$(bisect_step_kernel "$1")
	parents=$(bisect_step_kernel "$(tgit rev-parse "$1^")")
	[ "$mine" != - ] && [ "$mine" = "$parents" ] || return 0
	echo "it builds the same kernel as its parent (kernel=$mine)"
}

# Does run's kernel id (vmlinux.o, the linker script, the modules) cover
# every file culprit $1 changes?  yes or no.  C, headers, assembly and
# Kconfig: what they change is in the objects, or in the .config and so
# in them.  Not a Makefile or Kbuild (link flags), nor the boot code, the
# build's host tools or a linker script source: the final link, which
# the id leaves out, is theirs.  Nor any other file.
bisect_kernel_id_covers() {
	local f
	while IFS= read -r f; do
		case $f in
		scripts/* | arch/*/boot/* | arch/*/tools/* | *.lds | *.lds.S) echo no; return 0 ;;
		*.c | *.h | *.S | Kconfig | */Kconfig | */Kconfig.*) ;;
		*) echo no; return 0 ;;
		esac
	done < <(tgit diff --name-only "$1^" "$1")
	echo yes
}

# The kernel= of the step that tested commit $1 (not the revert), or "-".
bisect_step_kernel() {
	awk -F'\t' -v c="$1" '$3 == c && $2 != "revert" && $17 != "" { k = $17 } END { print (k == "" ? "-" : k) }' "$KB_BISECT_DIR/steps"
}

# Does culprit $1 change only comments in the files listed in $2?  yes or
# no.  C files compared without their comments (the compiler's own
# -fpreprocessed reading) and blank space; Kconfig, Makefiles and scripts
# without their # lines.  Any other file, or one added or removed, is
# more than comments.
bisect_comments_only() {
	local culprit=$1 f before after
	while IFS= read -r f; do
		before=$(bisect_code_of "$culprit^" "$f")
		after=$(bisect_code_of "$culprit" "$f")
		if [ "$before" = "$KB_NOT_COMPARABLE" ] || [ "$before" != "$after" ]; then
			echo no
			return 0
		fi
	done <<<"$2"
	echo yes
}

KB_NOT_COMPARABLE='<not comparable>'

# File $2 at commit $1 without its comments and blank space, or
# $KB_NOT_COMPARABLE for a kind of file whose comments it cannot tell, or
# a file not there.
bisect_code_of() {
	local text
	text=$(git -C "$KB_BISECT_TREE" show "$1:$2" 2>/dev/null) || { echo "$KB_NOT_COMPARABLE"; return 0; }
	case $2 in
	*.c | *.h | *.S)
		gcc -fpreprocessed -dD -E -P -x c - <<<"$text" 2>/dev/null | tr -d ' \t' | grep -v '^$' || true
		;;
	*Kconfig* | *Makefile* | *Kbuild* | *.sh)
		sed -E 's/^[[:space:]]*#.*//' <<<"$text" | tr -d ' \t' | grep -v '^$' || true
		;;
	*) echo "$KB_NOT_COMPARABLE" ;;
	esac
}

# The culprit's recipients, the way a patch of it is sent: To its author
# and the maintainers scripts/get_maintainer.pl names for its files, Cc
# their reviewers and lists and the regressions list.  Into KB_MAIL_TO
# and KB_MAIL_CC; without the tree's get_maintainer.pl, the author alone
# (and the report says so).
bisect_recipients() {
	local culprit=$1 line who role
	KB_MAIL_TO=("$(tgit log -1 --format='%an <%ae>' "$culprit")")
	KB_MAIL_CC=('regressions@lists.linux.dev')
	KB_MAIL_RECIPIENTS_FROM="get_maintainer.pl"
	if [ ! -x "$KB_BISECT_TREE/scripts/get_maintainer.pl" ]; then
		KB_MAIL_RECIPIENTS_FROM="the author alone: $KB_BISECT_TREE has no scripts/get_maintainer.pl"
		return 0
	fi
	while IFS= read -r line; do
		who=${line% (*} role=${line##* (}
		case $role in
		maintainer* | "supporter"*) KB_MAIL_TO+=("$who") ;;
		*) KB_MAIL_CC+=("$who") ;;
		esac
	done < <(git -C "$KB_BISECT_TREE" format-patch -1 --stdout "$culprit" |
		(cd "$KB_BISECT_TREE" && scripts/get_maintainer.pl --rolestats --no-git --no-git-fallback 2>/dev/null) |
		grep ' (' || true)
}

# What the reproducer printed at the bad end, from that step's first
# console: the busybox guest's lines between its begin mark and the
# reproducer's status (the kernel's own warnings among them), or the
# Debian machine's report port; our checks' failures when there is no
# reproducer.
bisect_bad_end_output() {
	local consoles=$1 console
	[ -d "$consoles" ] || { echo "(no console was kept)"; return 0; }
	console=$(find "$consoles" \( -name report.txt -o -name '*.console' -o -name console.log \) 2>/dev/null | sort | sed -n 1p)
	[ -n "$console" ] || { echo "(no console was kept)"; return 0; }
	case $console in
	*/report.txt) cat "$console" ;;
	*) awk '/^# ext4-checks: begin/ { on = 1; next }
		on && /^# ext4-checks: reproducer status=/ { print; exit }
		on && !/^# ext4-checks: / { print }
		/^not ok / { print }' "$console" ;;
	esac
}

# The regression report for a confirmed culprit, $KB_BISECT_DIR/regression.eml.
bisect_mail() {
	local culprit=$KB_BISECT_CULPRIT bad_log from args=() who output=$KB_BISECT_DIR/bad-end-output.txt
	bisect_recipients "$culprit"
	from=$(git -C "$KB_BISECT_TREE" var GIT_AUTHOR_IDENT 2>/dev/null | sed -E 's/ [0-9]+ [-+][0-9]{4}$//') || from=''
	[ "$from" != "kbranch <kbranch@localhost>" ] || from=''
	bad_log=$(awk -F'\t' '$2 == "bad-end" { print $13; exit }' "$KB_BISECT_DIR/steps")
	bisect_bad_end_output "${bad_log%.log}.consoles" >"$output"
	args=(--tree "$KB_BISECT_TREE" --culprit "$culprit" --good "$KB_BISECT_GOOD" --bad "$KB_BISECT_BAD"
		--builds "$(bisect_count_builds) (at most $(bisect_max_builds): both ends, ceil(log2 n) steps, the revert)"
		--revert PASS --release "$(bisect_culprit_release)" --guest "${KB_BISECT_GUEST:-busybox}"
		--repeat "$KB_BISECT_REPEAT" --output "$output" --bisect-log "$KB_BISECT_DIR/bisect.log"
		--attach "config-delta=$KB_BISECT_DIR/config-delta")
	[ -z "$from" ] || args+=(--from "$from")
	[ -z "$KB_BISECT_TEST" ] || args+=(--reproducer "$KB_BISECT_TEST")
	[ -z "$KB_BISECT_CULPRIT_CONFIG" ] || args+=(--attach "config=$KB_BISECT_CULPRIT_CONFIG")
	for who in "${KB_MAIL_TO[@]}"; do args+=(--to "$who"); done
	for who in "${KB_MAIL_CC[@]}"; do args+=(--cc "$who"); done
	"$KB_REPO/branch-scripts/libexec/regression-mail" "${args[@]}" >"$KB_BISECT_DIR/regression.eml.tmp"
	mv -f "$KB_BISECT_DIR/regression.eml.tmp" "$KB_BISECT_DIR/regression.eml"
	KB_BISECT_MAIL="$KB_BISECT_DIR/regression.eml (To/Cc: $KB_MAIL_RECIPIENTS_FROM${from:+; From: $from})"
	[ -n "$from" ] || KB_BISECT_MAIL+="; no From: set git's user.name and user.email to send it"
}

# The kernel release the culprit's step booted, from its line in steps.
bisect_culprit_release() {
	awk -F'\t' -v c="$KB_BISECT_CULPRIT" '$3 == c && $15 != "-" { r = $15 } END { print (r == "" ? "unknown" : r) }' "$KB_BISECT_DIR/steps"
}
