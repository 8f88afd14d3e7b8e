# shellcheck shell=bash
# summary: the last verify and check results as KCIDB v5 JSON (report/kcidb.json) and a kernel test robot text report per failing commit

# KCIDB's name for the CI system that submits: every id starts with it.
KCIDB_ORIGIN=kbranch

# One fact for libexec/kcidb-report: a type word, then key=value fields, tab
# separated (no value of ours holds a tab or a newline).
fact() {
	local IFS=$'\t'
	printf '%s\n' "$*"
}

# The commits kbranch verify records, as kbranch results walks them, each
# with its role: the packaged import, the base, the series' patches.
report_commits() {
	local tag
	kgit tag -l 'packaged/*' | while read -r tag; do
		printf 'packaged %s\n' "$(kgit rev-parse "$tag^{commit}")"
	done
	printf 'base %s\n' "$(kgit rev-parse "$KB_BASE_TAG^{commit}")"
	kgit rev-list --reverse "$KB_BASE_TAG..$KBRANCH_BRANCH" | sed 's/^/patch /'
}

# KCIDB v5 accepts only an https:// git_repository_url; the git daemon's
# git:// URL (pull-request's kbranch.public-url) is kept beside it, in the
# checkout's misc, rather than written where KCIDB would refuse it.
repository_facts() {
	local url
	url=$(kgit config kbranch.public-url || true)
	case "$url" in
	'') printf 'repo=\trepo_other=' ;;
	https://?*) printf 'repo=%s\trepo_other=' "$url" ;;
	git://?* | http://?* | ssh://?*) printf 'repo=\trepo_other=%s' "$url" ;;
	*) die "kbranch.public-url '$url' (git config in $KTREE) is not a git:// or https:// URL" ;;
	esac
}

# Where the report dir is served from (git config kbranch.report-url, an
# https:// or file:// URL), so that patchset_files, logs and configs are
# URLs a reader can fetch; by default (empty), the dir itself as a file://
# URL, which libexec/kcidb-report writes.
report_url() {
	local url
	url=$(kgit config kbranch.report-url || true)
	case "$url" in
	'' | https://?* | http://?* | file:///*) printf '%s\n' "${url%/}" ;;
	*) die "kbranch.report-url '$url' (git config in $KTREE) is not an https:// or file:// URL" ;;
	esac
}

# The series as patch files, in order of application: checkout k is the
# base with the first k applied.  No signature: the files must not depend
# on the git version that wrote them, or the patchset hash would.
export_patches() {
	local dir=$1
	mkdir -p "$dir"
	quietly "git format-patch of $KB_BASE_TAG..$KBRANCH_BRANCH" \
		kgit format-patch --no-signature -o "$dir" "$KB_BASE_TAG..$KBRANCH_BRANCH"
}

# KernelCI's patchset hash (KCIDB's patchset_hash): the sha256 of the
# newline-terminated sha256 of each patch, in order of application; ""
# with no patch.
patchset_hash() {
	[ "$#" -gt 0 ] || return 0
	sha256sum "$@" | cut -c-64 | sha256sum | cut -c-64
}

checkout_facts() {
	local out=$1 role commit k=0 n names=() hash base
	mapfile -t names < <(cd "$out/patches" && ls)
	n=${#names[@]}
	while read -r role commit; do
		[ "$role" != patch ] || k=$((k + 1))
		hash=$(cd "$out/patches" && patchset_hash "${names[@]:0:k}")
		base=
		[ "$role" != patch ] || base=$(kgit rev-parse "$KB_BASE_TAG^{commit}")
		fact checkout "commit=$commit" "base=$base" \
			"role=$role" "k=$k" "n=$n" "subject=$(kgit log -1 --format=%s "$commit")" \
			"tags=$(kgit tag --points-at "$commit" | paste -sd, -)" \
			"describe=$(kgit describe --tags "$commit" 2>/dev/null || true)" \
			"patches=$(printf '%s\n' "${names[@]:0:k}" | paste -sd, -)" "patchset_hash=$hash"
	done < <(report_commits)
}

# Copy the logs and the config of a note's run into the report, when they
# are still that run's: the note names its run dir, run id and .config
# (bisect-tests' RESULT line), and a run dir keeps only the last run, so
# its run-id must be the note's.  A reused verdict has no run of its own.
# Prints "logs=<dir>\tconfig=<file>", relative to the report.
keep_run_files() {
	local out=$1 commit=$2 variant=$3 note=$4 run id config rel f logs='' kept=''
	rel=logs/${commit:0:12}-$variant
	# Looked up (note_value: nothing for a field the note lacks), then
	# tested: set -e does not hold in a function called in a condition.
	run=$(note_value "$note" run)
	id=$(note_value "$note" id)
	config=$(note_value "$note" config)
	if [ -z "$run" ] || [ -z "$id" ] || [ "$(cat "$run/run-id" 2>/dev/null)" != "$id" ]; then
		printf 'logs=\tconfig='
		return 0
	fi
	mkdir -p "$out/$rel"
	for f in build.log console.log guest.ktap; do
		[ ! -f "$run/$f" ] || cp "$run/$f" "$out/$rel/"
	done
	logs=$rel
	if [ -n "$config" ] && [ -f "$config" ]; then
		kept=$rel.config
		cp "$config" "$out/$kept"
	fi
	printf 'logs=%s\tconfig=%s' "$logs" "$kept"
}

# The one command that runs this commit x variant again.  A built variant
# is bisect-tests/run at the commit, as verify runs it; a carried one
# depends on every commit before it, so verify carries it again.
reproduce_command() {
	local commit=$1 variant=$2 kind=$3
	if [ "$kind" = built ]; then
		printf 'cd %q && git checkout -q --detach %s && KBRANCH_WORK=%q %q --variant %s --against-packaged' \
			"$KTREE" "$commit" "$KBRANCH_WORK" "$KB_REPO/bisect-tests/run" "$variant"
	else
		printf 'KBRANCH_WORK=%q %q verify --rerun --variant %s' \
			"$KBRANCH_WORK" "$KB_REPO/branch-scripts/kbranch" "$variant"
	fi
}

# A stage of the parent commit's latest run of the variant ("" if none).
parent_stage() {
	local parent=$1 variant=$2 stage=$3
	note_value "${KB_NOTE_LATEST[$parent $variant]:-}" "$stage" | tr -d '\n'
}

# One build per commit x variant: the latest line its notes hold.
build_facts() {
	local out=$1 role commit parent variant kind note
	while read -r role commit; do
		parent=$(kgit rev-parse -q --verify "$commit^" || true)
		while read -r variant kind _; do
			note=${KB_NOTE_LATEST[$commit $variant]:-}
			[ -n "$note" ] || continue
			fact build "commit=$commit" "variant=$variant" "kind=$kind" "$(note_fact_fields "$note")" \
				"$(keep_run_files "$out" "$commit" "$variant" "$note")" \
				"parent_build=$(parent_stage "$parent" "$variant" build)" \
				"parent_boot=$(parent_stage "$parent" "$variant" boot)" \
				"reproduce=$(reproduce_command "$commit" "$variant" "$kind")"
		done <<<"$VARIANT_TABLE"
	done < <(report_commits)
}

# What a check kind built: architecture, config and compiler, as the
# gate's table (branch-scripts/lib/gate.sh) has them.
check_build_facts() {
	local kind=$1 cross config
	if [ "$kind" = docs ]; then
		printf 'arch=\tconfig=htmldocs SPHINXDIRS=admin-guide\tcompiler=%s' \
			"$(sphinx-build --version 2>/dev/null || echo sphinx-build)"
		return
	fi
	cross=$(gate_field "$kind" cross)
	config=$(gate_field "$kind" config)
	printf 'arch=%s\tconfig=%s\tcompiler=%s' "$(gate_field "$kind" arch)" "${config#variant:}" \
		"$("${cross}gcc" --version 2>/dev/null | sed -n 1p || echo "${cross}gcc")"
}

# One build and test per series commit and kind that the last kbranch
# check ran (its index: commit, kind, the commit compared with, where
# its results are): the warnings of what it rebuilt at both, and the new.
check_facts() {
	local out=$1 index=$KBRANCH_WORK/check/index.tsv commit kind before prefix rel patches
	[ -f "$index" ] || return 0
	patches=$(report_commits | sed -n 's/^patch //p')
	mkdir -p "$out/logs"
	while IFS=$'\t' read -r commit kind before prefix; do
		grep -qx "$commit" <<<"$patches" || continue
		[ -f "$prefix.new" ] || continue
		rel=logs/${commit:0:12}-$kind
		cp "$prefix.new" "$out/$rel.new"
		cp "$prefix.all" "$out/$rel.all" 2>/dev/null || : >"$out/$rel.all"
		fact check "commit=$commit" "kind=$kind" "new=$rel.new" "all=$rel.all" "$(check_build_facts "$kind")" \
			"reproduce=$(printf 'KBRANCH_WORK=%q %q check --only %s --since %s %s' "$KBRANCH_WORK" \
				"$KB_REPO/branch-scripts/kbranch" "$kind" "${before:0:12}" "${commit:0:12}")"
	done <"$index"
}

# $2: the report record's URLs, checked before anything is written.
report_facts() {
	local out=$1 urls=$2
	fact report "dir=$out" "$urls" "branch=$KBRANCH_BRANCH" "origin=$KCIDB_ORIGIN"
	checkout_facts "$out"
	build_facts "$out"
	check_facts "$out"
}

run() {
	[ "$#" -eq 0 ] || die "report takes no arguments (set git config kbranch.public-url / kbranch.report-url in $KTREE)"
	# shellcheck source=branch-scripts/lib/notes.sh
	. "$KB_REPO/branch-scripts/lib/notes.sh"
	# shellcheck source=branch-scripts/lib/kbuild.sh
	. "$KB_REPO/branch-scripts/lib/kbuild.sh"
	# shellcheck source=branch-scripts/lib/gate.sh
	. "$KB_REPO/branch-scripts/lib/gate.sh"
	require_tree
	kgit rev-parse -q --verify "$KBRANCH_BRANCH^{commit}" >/dev/null ||
		die "no branch $KBRANCH_BRANCH in $KTREE; run 'kbranch apply' first"
	local out=$KBRANCH_WORK/report facts texts repo url notes
	notes=$(note_lines)
	[ -n "$notes" ] || die "no verify results in $KB_NOTES of $KTREE; run 'kbranch verify' first"
	# Each alone: an assignment fails only with its last substitution.
	repo=$(repository_facts)
	url=$(report_url)
	# A new report replaces the last one whole: no text report of a
	# commit that no longer fails is left behind.
	rm -rf "$out"
	mkdir -p "$out" || die "cannot create $out"
	export_patches "$out/patches"
	VARIANT_TABLE=$(variant_registry)
	note_index
	facts=$(report_facts "$out" "$repo"$'\t'"url=$url")
	printf '%s\n' "$facts" >"$out/facts.tsv"
	texts=$(printf '%s\n' "$facts" | "$KB_REPO/branch-scripts/libexec/kcidb-report" 2>"$out/kcidb-report.err") ||
		die "$(tail -n 1 "$out/kcidb-report.err")"
	rm -f "$out/kcidb-report.err"
	printf '%s\n' "$out/kcidb.json"
	[ -z "$texts" ] || printf '%s\n' "$texts"
	step "report: $(grep -c '^build' <<<"$facts") builds, $(grep -c . <<<"$texts" || true) failing commit reports (facts: $out/facts.tsv)"
}
