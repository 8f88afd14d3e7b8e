# shellcheck shell=bash
# summary: the gate per commit: checkpatch --strict, new warnings in W=1, sparse, allmodconfig and other architectures, docs (TAP); [--only NAME,...] [--since COMMIT] [BRANCH]

# Checkpatch findings that are justified live in checkpatch-exceptions.txt:
# "<commit subject> | <checkpatch type> | <why>".  checkpatch.pl exits 0
# when it reports nothing and 1 when it reports: any other end, a 1 with
# no finding (its usage, after an option it does not know), or a part of
# it that could not read its data ("No typos will be found") did not
# judge the commit, and says so as a finding.
checkpatch_findings() {
	local commit=$1 subject log status=0 finding type justified
	subject=$(kgit log -1 --format=%s "$commit")
	log=$KBRANCH_WORK/check/gate/${commit:0:12}-checkpatch
	mkdir -p "$(dirname "$log")"
	kgit format-patch -1 --stdout "$commit" >"$log.patch" 2>"$log.err" ||
		{ checkpatch_not_judged "git format-patch failed" "$log"; return 0; }
	(cd "$KTREE" && perl scripts/checkpatch.pl --strict --terse --show-types --no-summary - \
		<"$log.patch" >"$log.log" 2>"$log.err") || status=$?
	if [ "$status" -gt 1 ]; then
		checkpatch_not_judged "checkpatch.pl could not run (exit $status)" "$log"
	elif [ "$status" -eq 1 ] && ! grep -qE ': (ERROR|WARNING|CHECK):' "$log.log"; then
		checkpatch_not_judged "checkpatch.pl exited 1 and reported nothing" "$log"
	elif grep -q ' will be found - ' "$log.err"; then
		checkpatch_not_judged "checkpatch.pl ran without some of its checks" "$log" "$(grep -m1 ' will be found - ' "$log.err")"
	fi
	{ grep -E ': (ERROR|WARNING|CHECK):' "$log.log" || true; } |
		while IFS= read -r finding; do
			type=$(sed -E 's/.*: (ERROR|WARNING|CHECK):([A-Z_0-9]+):.*/\2/' <<<"$finding")
			justified=$(excepted "$subject" "$type")
			[ "$justified" = yes ] || printf '%s\n' "$finding"
		done
}

# Why checkpatch did not judge, with its own first line (or $3).
checkpatch_not_judged() {
	local why=$1 log=$2 said=${3:-}
	[ -n "$said" ] || said=$(awk 'NF { print; exit }' "$log.err" "$log.log" 2>/dev/null || true)
	[ -n "$said" ] || said='it printed nothing'
	printf 'CHECKPATCH-FAILED: %s: %s (log: %s)\n' "$why" "$said" "$log.log"
}

# Whether checkpatch-exceptions.txt justifies type $2 in the commit with
# subject $1: "yes" or "no".  This and selected are lookups that print
# their answer, so that no caller tests them in a condition, where set -e
# would not hold.
excepted() {
	local subject=$1 type=$2 file=$KB_REPO/checkpatch-exceptions.txt
	[ -f "$file" ] || { echo no; return 0; }
	if grep -v '^#' "$file" | awk -F' [|] ' -v s="$subject" -v t="$type" '$1 == s && $2 == t { f = 1 } END { exit !f }'; then
		echo yes
	else
		echo no
	fi
}

check_point() {
	local n=$1 commit=$2 name=$3 findings=$4 desc
	desc="$(kgit log -1 --format='%h %s' "$commit") [$name]"
	if [ -z "$findings" ]; then
		printf 'ok %d - %s\n' "$n" "$desc"
	else
		printf 'not ok %d - %s\n' "$n" "$desc"
		printf '%s\n' "$findings" | sed 's/^/# /'
	fi
}

parse_check_args() {
	local kinds name
	kinds="checkpatch $(gate_kinds | tr '\n' ' ')docs"
	CHECKS=()
	CHECK_BRANCH=$KBRANCH_BRANCH
	CHECK_SINCE=$KB_BASE_TAG
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--only)
			[ -n "${2:-}" ] || die "check --only takes a comma-separated list of: $kinds"
			for name in ${2//,/ }; do
				[[ " $kinds " == *" $name "* ]] || die "check --only: unknown check '$name' (known: $kinds)"
				CHECKS+=("$name")
			done
			shift 2
			;;
		--since)
			[ -n "${2:-}" ] || die "check --since takes a commit"
			CHECK_SINCE=$2
			shift 2
			;;
		-*) die "check: unknown option '$1' (usage: kbranch check [--only NAME,...] [--since COMMIT] [BRANCH])" ;;
		*) CHECK_BRANCH=$1; shift ;;
		esac
	done
	[ "${#CHECKS[@]}" -gt 0 ] || read -r -a CHECKS <<<"$kinds"
}

# Whether check $1 is selected (--only): "yes" or "no".
selected() {
	if [[ " ${CHECKS[*]} " == *" $1 "* ]]; then echo yes; else echo no; fi
}

# The points of a range, one per line: "<n> <kind> <before> <commit>".
# Every commit: checkpatch and the kinds built at every commit, each
# against its parent; docs where the commit changes them; the tip-only
# kinds (other architectures) at the tip, against the range's base.
plan_points() {
	local since=$1 commit kind n=0 want at docs
	shift
	for commit in "$@"; do
		want=$(selected checkpatch)
		[ "$want" = no ] || echo "$((n += 1)) checkpatch $commit^ $commit"
		for kind in $(gate_kinds); do
			want=$(selected "$kind")
			at=$(gate_field "$kind" at)
			if [ "$want" = yes ] && [ "$at" = every ]; then
				echo "$((n += 1)) $kind $(kgit rev-parse "$commit^") $commit"
			fi
		done
		want=$(selected docs)
		[ "$want" = yes ] || continue
		docs=$(changed_docs "$commit^" "$commit")
		[ -z "$docs" ] || echo "$((n += 1)) docs $(kgit rev-parse "$commit^") $commit"
	done
	for kind in $(gate_kinds); do
		want=$(selected "$kind")
		at=$(gate_field "$kind" at)
		if [ "$want" = yes ] && [ "$at" = tip ]; then
			echo "$((n += 1)) $kind $(kgit rev-parse "$since") ${*: -1}"
		fi
	done
}

# What one kind says about a commit: new findings, nothing when clean.
# Build results are kept by (before, commit, kind, dirs), so a re-run of
# an unchanged range builds nothing.
judge_point() {
	local kind=$1 before=$2 commit=$3 out
	if [ "$kind" = checkpatch ]; then
		checkpatch_findings "$commit"
		return
	fi
	out=$KBRANCH_WORK/check/gate/${before:0:12}-${commit:0:12}-$kind-$GATE_DIRS_KEY
	if [ -f "$out.done" ]; then
		step "  kept from an earlier run: $out.*"
	else
		step "  building; logs: $out.*.log"
		rm -f "$out".*
		mkdir -p "$(dirname "$out")"
		if [ "$kind" = docs ]; then
			docs_judge "$before" "$commit" "$out" >/dev/null
		else
			gate_judge "$kind" "$before" "$commit" "$out" >/dev/null
		fi
		# A judge that wrote no result judged nothing: not kept, not clean.
		[ ! -f "$out.new" ] || touch "$out.done"
	fi
	printf '%s\t%s\t%s\t%s\n' "$commit" "$kind" "$before" "$out" >>"$KBRANCH_WORK/check/index.tsv"
	cat "$out.new" 2>/dev/null ||
		printf 'BUILD-FAILED: the %s check wrote no result, so judged nothing (logs: %s.*)\n' "$kind" "$out"
}

run() {
	# shellcheck source=branch-scripts/lib/kbuild.sh
	. "$KB_REPO/branch-scripts/lib/kbuild.sh"
	# shellcheck source=branch-scripts/lib/gate.sh
	. "$KB_REPO/branch-scripts/lib/gate.sh"
	parse_check_args "$@"
	require_tree
	take_lock
	require_clean_tree
	local commits=() points=() n kind before commit failed=0 findings desc since
	kgit rev-parse -q --verify "$CHECK_BRANCH^{commit}" >/dev/null || die "no branch $CHECK_BRANCH in $KTREE"
	since=$(kgit rev-parse -q --verify "$CHECK_SINCE^{commit}") || die "check --since: no commit $CHECK_SINCE in $KTREE"
	mapfile -t commits < <(kgit rev-list --reverse "$since..$CHECK_BRANCH")
	[ "${#commits[@]}" -gt 0 ] || die "no commits on $CHECK_BRANCH after $CHECK_SINCE; run 'kbranch apply' first"
	mapfile -t GATE_DIRS < <(series_code_dirs "$KB_BASE_TAG" "$CHECK_BRANCH")
	GATE_DIRS_KEY=$(printf '%s\n' "${GATE_DIRS[@]}" | md5sum | cut -c1-8)
	mapfile -t points < <(plan_points "$since" "${commits[@]}")
	restore_head_on_exit
	mkdir -p "$KBRANCH_WORK/check"
	: >"$KBRANCH_WORK/check/index.tsv"
	gate_forget_configs
	echo "TAP version 13"
	echo "1..${#points[@]}"
	step "check: ${#points[@]} points over ${#commits[@]} commits; the series' code: ${GATE_DIRS[*]:-none} (logs: $KBRANCH_WORK/check/gate)"
	for point in "${points[@]}"; do
		read -r n kind before commit <<<"$point"
		desc="$(kgit log -1 --format='%h %s' "$commit") [$kind]"
		step "[$n/${#points[@]}] $desc"
		findings=$(judge_point "$kind" "$before" "$commit")
		check_point "$n" "$commit" "$kind" "$findings"
		[ -z "$findings" ] || failed=$((failed + 1))
	done
	step "check: $((${#points[@]} - failed)) of ${#points[@]} points clean"
	[ "$failed" -eq 0 ]
}
