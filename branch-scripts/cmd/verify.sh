# shellcheck shell=bash
# summary: build, boot and check the packaged kernel (the reference) and every commit from ext4dev-base to the tip x every variant, compared with the reference, and carry old configs through (TAP); --rerun ignores the series' recorded passes

# The variants are bisect-tests/configs/variants (KB_VARIANTS, lib/
# notes.sh), in its order.  oldconfig follows builtin, whose base config it
# starts from.

# The commits to verify: the base itself, then the series, oldest first.
verify_commits() {
	kgit rev-parse "$KB_BASE_TAG^{commit}"
	kgit rev-list --reverse "$KB_BASE_TAG..$VERIFY_BRANCH"
}

# Run bisect-tests/run for one commit and variant; print its RESULT fields
# and return its exit code.  Its progress goes to the terminal (stderr).
verify_one() {
	local variant=$1 mode=$2 out rc=0
	out=$(cd "$KTREE" && KBRANCH_OLDCONFIG=$(carry_oldconfig_file "$variant") \
		"$KB_REPO/bisect-tests/run" --variant "$variant" "$mode") || rc=$?
	printf '%s\n' "$out" | sed -n 's/^RESULT //p' | tail -n 1
	return "$rc"
}

# "<abbrev> <subject>" of each commit of the run, from one git process
# (verify_learn_commits): a warm re-run prints one per point.
declare -gA COMMIT_DESC=()
commit_desc() {
	if [ -n "${COMMIT_DESC[$1]:-}" ]; then
		printf '%s\n' "${COMMIT_DESC[$1]}"
	else
		kgit log -1 --format='%h %s' "$1"
	fi
}

# The commits' trees (for the notes' keys) and descriptions, each asked
# for at every point: learnt once, in this shell, before any point.
verify_learn_commits() {
	local commit desc
	note_learn_trees "$@"
	while read -r commit desc; do
		COMMIT_DESC[$commit]=$desc
	done < <(kgit log --no-walk=unsorted --format='%H %h %s' "$@")
}

# A RESULT line's field: the same "key=value" words as a note line, read
# by notes.sh's one reader; empty when the line has none.
field() {
	note_get "$1" "$2" || true
}

# One TAP test point per commit x variant.
# One TAP test point per commit x variant, from its verdict.
tap_point() {
	local n=$1 commit=$2 variant=$3 result=$4 verdict=$5 desc
	desc="$(commit_desc "$commit") [$variant] build=$(field "$result" build)"
	desc+=" boot=$(field "$result" boot) checks=$(field "$result" checks) $(field "$result" seconds)s"
	case "$verdict" in
	good) printf 'ok %d - %s\n' "$n" "$desc" ;;
	skip | flaky) printf 'not ok %d - %s # untestable (%s verdict)\n' "$n" "$desc" "$verdict" ;;
	*) printf 'not ok %d - %s\n' "$n" "$desc" ;;
	esac
}

# The exit code of a verdict, as bisect-tests/run gives it.
verdict_code() {
	case "$1" in
	good) return 0 ;;
	skip | flaky) return 125 ;;
	*) return 1 ;;
	esac
}

# One verdict per point gives its note and its TAP line.  A verdict that
# could not be recorded is not ok: the next run would not know it, and
# the published notes would lack it.
point_finish() {
	local n=$1 commit=$2 variant=$3 verdict=$4 fields=$5 result=$6
	if ! note_record "$commit" "$variant" "$verdict" "$fields"; then
		printf 'not ok %d - %s [%s]: its verdict (%s) could not be recorded in %s\n' \
			"$n" "$(commit_desc "$commit")" "$variant" "$verdict" "$KB_NOTES"
		return 1
	fi
	tap_point "$n" "$commit" "$variant" "$result" "$verdict"
	verdict_code "$verdict"
}

parse_verify_args() {
	VARIANTS=()
	RERUN=0
	VERIFY_BRANCH=$KBRANCH_BRANCH
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--rerun) RERUN=1; shift ;;
		--branch) [ "$#" -ge 2 ] || die "--branch needs a name"; VERIFY_BRANCH=$2; shift 2 ;;
		--variant) [ "$#" -ge 2 ] || die "--variant needs a name"; VARIANTS+=("$2"); shift 2 ;;
		*) die "verify: unknown argument '$1' (usage: kbranch verify [--rerun] [--branch NAME] [--variant NAME]...)" ;;
		esac
	done
	[ "${#KB_VARIANTS[@]}" -gt 0 ] ||
		die "verify: no variants: 'bisect-tests/run --list-variants' cannot read bisect-tests/configs/variants"
	local v
	for v in "${VARIANTS[@]}"; do
		[[ " ${KB_VARIANTS[*]} " == *" $v "* ]] ||
			die "verify: no variant '$v' (variants: ${KB_VARIANTS[*]})"
	done
	[ "${#VARIANTS[@]}" -gt 0 ] || VARIANTS=("${KB_VARIANTS[@]}")
}

# The tree is checked out only for a point that runs: a checkout of this
# tree costs a third of a second, most of a skipped point's time.
at_commit() {
	[ "$(kgit rev-parse HEAD)" = "$1" ] || kgit checkout -q --detach "$1"
}

# A point that already passed with these tests and tools is not run
# again.  A carried config (oldconfig, carried-*) passed only along the same
# chain of trees, and its state after the commit is put back for the next.
verify_point_reused() {
	local n=$1 commit=$2 variant=$3 is_tip=$4 k=$5 chain
	chain=$(point_chain "$variant" "$commit" "$is_tip")
	[ "$RERUN" = 0 ] && note_passed "$commit" "$variant" "$chain" &&
		{ [ -z "$chain" ] || carry_restore "$variant" "$chain" "$k"; } || return 1
	note_reuse "$commit" "$variant" "$chain"
	printf 'ok %d - %s [%s] passed before with these tests%s (notes %s)\n' "$n" \
		"$(commit_desc "$commit")" "$variant" \
		"${chain:+, carried along the same commits}" "$KB_NOTES"
}

# The chain key of a carried config's point (kinds carried and kconfig);
# empty for the others, whose verdict depends on the commit's tree alone.
point_chain() {
	local variant=$1 commit=$2 is_tip=$3
	case $(variant_kind "$variant") in
	carried | kconfig) carry_chain_key "$variant" "$commit" "$is_tip" ;;
	esac
}

verify_point() {
	local n=$1 commit=$2 variant=$3 is_base=$4 k=$5 is_tip=$6 result rc=0 chain verdict
	chain=$(point_chain "$variant" "$commit" "$is_tip")
	[ "$(variant_kind "$variant")" != kconfig ] || { carried_point "$@" "$chain"; return; }
	step "[$n] $(commit_desc "$commit") [$variant]"
	result=$(verify_one "$variant" --against-packaged) || rc=$?
	[ "$rc" -ne 128 ] || die "bisect-tests/run could not set up (exit 128); see above"
	[ "$rc" -lt 128 ] || die "bisect-tests/run was interrupted (exit $rc); no verdict recorded"
	if [ "$(variant_kind "$variant")" = carried ] && [ "$is_tip" = 1 ] && [ "$rc" = 0 ] &&
		! oldconfig_vs_packaged "$variant" "$(declared step)" "$(field "$result" config)"; then
		rc=1
		result=${result/verdict=good/verdict=bad}
	fi
	verdict=$(result_verdict "$result" "$rc")
	if [ "$(variant_kind "$variant")" = carried ]; then
		carry_oldconfig_advance "$variant" "$(field "$result" config)"
		[ "$verdict" != good ] || carry_save "$variant" "$chain" "$k"
	fi
	point_finish "$n" "$commit" "$variant" "$verdict" "${chain:+chain=$chain }$(result_fields "$result")" "$result"
}

# --- Two points at once -------------------------------------------------------
# A point spends about half its time on one core (config, images, boots,
# Kconfig-only steps), so the variants of one commit run two at a time
# (KBRANCH_JOBS, default: the number of cores, at most 2): the other
# point's build takes the idle core.  Each point's TAP lines wait in a
# file and are printed in order; notes are recorded under a lock
# (note_record).

VERIFY_PIDS=()
VERIFY_POINTS=()

verify_jobs() {
	local jobs=$KBRANCH_JOBS
	[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "KBRANCH_JOBS must be a positive number, not '$jobs'"
	[ "$jobs" -le 2 ] || jobs=2
	echo "$jobs"
}

# Start point $1 (a function and its arguments follow) in the background,
# once fewer than verify_jobs points run.
points_start() {
	local n=$1 out
	shift
	out=$VERIFY_OUT/$n
	while [ "$(jobs -rp | wc -l)" -ge "$(verify_jobs)" ]; do
		wait -n || true
	done
	(
		# Trapped, not ignored: bisect-tests/run gets Ctrl-C, and this
		# job ends only after it, so nothing builds while HEAD goes back.
		trap 'exit 130' INT
		trap 'exit 143' TERM
		rc=0
		"$@" >"$out.tap" || rc=$?
		echo "$rc" >"$out.rc"
	) &
	VERIFY_PIDS+=("$!")
	VERIFY_POINTS+=("$n")
}

# Wait for the started points, print their TAP in order; returns how many
# failed.  A point that died (a setup problem, said on stderr) has no rc
# file: verify stops, as it would have without the parallel runs.
points_finish() {
	local pid n rc failed=0 died=0 line done_files=()
	for pid in "${VERIFY_PIDS[@]}"; do
		wait "$pid" || true
	done
	for n in "${VERIFY_POINTS[@]}"; do
		if [ -f "$VERIFY_OUT/$n.tap" ]; then
			while IFS= read -r line; do
				printf '%s\n' "$line"
			done <"$VERIFY_OUT/$n.tap"
		fi
		if [ ! -f "$VERIFY_OUT/$n.rc" ]; then
			died=1
			continue
		fi
		read -r rc <"$VERIFY_OUT/$n.rc"
		[ "$rc" = 0 ] || failed=$((failed + 1))
		done_files+=("$VERIFY_OUT/$n.tap" "$VERIFY_OUT/$n.rc")
	done
	[ "${#done_files[@]}" = 0 ] || rm -f "${done_files[@]}"
	# Notes recorded by the points that ran: read them again when next
	# asked.  (A reused point records in this shell, which forgets itself.)
	[ "${#VERIFY_PIDS[@]}" = 0 ] || note_forget
	VERIFY_PIDS=()
	VERIFY_POINTS=()
	[ "$died" = 0 ] || die "verify stopped: a point could not run (see above)"
	return "$failed"
}

# Every variant at one commit, two at a time; returns how many points
# failed.  The tree is checked out before the points start (they must not
# move it) and only when one of them runs.
verify_commit() {
	local n=$1 commit=$2 is_base=$3 k=$4 is_tip=$5 variant failed=0 i=0
	for variant in "${VARIANTS[@]}"; do
		i=$((i + 1))
		if verify_point_reused "$((n + i))" "$commit" "$variant" "$is_tip" "$k" >"$VERIFY_OUT/$((n + i)).tap"; then
			echo 0 >"$VERIFY_OUT/$((n + i)).rc"
			VERIFY_POINTS+=("$((n + i))")
			continue
		fi
		at_commit "$commit"
		[ "$is_base" = 0 ] || [ "$(variant_kind "$variant")" != carried ] || carry_oldconfig_start "$variant"
		points_start "$((n + i))" verify_point "$((n + i))" "$commit" "$variant" "$is_base" "$k" "$is_tip"
	done
	points_finish || failed=$?
	return "$failed"
}

# The packaged kernel, built and booted like the commits, records what a
# user of it observes: the reference every commit is compared with.  The
# references the chosen variants need, each once (bisect-tests/configs/
# variants: oldconfig compares with builtin's).
reference_variants() {
	local v
	for v in "${VARIANTS[@]}"; do
		variant_reference "$v"
	done | grep -vx -- - | awk '!seen[$0]++' || true
}

# --rerun re-verifies the series: the reference is recorded again only
# when it is missing or was recorded with other tests or tools.
reference_recorded() {
	local commit=$1 variant=$2 version=$3
	[ -f "$KBRANCH_WORK/reference/$version/$variant.observed" ] && note_passed "$commit" "$variant"
}

reference_point() {
	local n=$1 commit=$2 variant=$3 version=$4 result rc=0
	if reference_recorded "$commit" "$variant" "$version"; then
		printf 'ok %d - packaged/%s [%s] reference recorded before with these tests\n' "$n" "$version" "$variant"
		return 0
	fi
	at_commit "$commit"
	step "[$n] packaged/$version [$variant] (the reference)"
	result=$(verify_one "$variant" --record-reference) || rc=$?
	[ "$rc" -ne 128 ] || die "bisect-tests/run could not set up (exit 128); see above"
	[ "$rc" -lt 128 ] || die "bisect-tests/run was interrupted (exit $rc); no verdict recorded"
	point_finish "$n" "$commit" "$variant" "$(result_verdict "$result" "$rc")" "$(result_fields "$result")" "$result"
}

# At the tip the tester's carried .config equals, in the ext4 family, its
# reference variant's config made at the packaged tree (what it was made
# from: builtin's).
oldconfig_vs_packaged() {
	local variant=$1 step=$2 config=$3 out
	[ -f "$config" ] || { echo "bisect-tests: $variant: its run named no .config (RESULT config=)" >&2; return 1; }
	out=$(carry_vs_packaged "$step" "$(variant_reference "$variant")" "$variant from the base" \
		"$config" "carried to the tip") && return 0
	printf '%s\n' "$out" | sed "s/^/bisect-tests: $variant: /" >&2
	return 1
}

# Kconfig only: a carried config keeps what its base config had.
carried_point() {
	local n=$1 commit=$2 variant=$3 is_base=$4 k=$5 is_tip=$6 chain=$7 out fresh rc=0 desc source
	source=$(variant_source "$variant")
	desc="$(commit_desc "$commit") [$variant] olddefconfig"
	step "[$n] $desc"
	out=$(carried_step "$source" "$is_base") || rc=$?
	[ "$rc" -ne 128 ] || die "$variant: $out"
	if ! fresh=$(carry_fresh_step "$source" "$k" "$is_tip" "$variant"); then
		rc=1
		out+=$'\n'$fresh
	fi
	if [ "$is_tip" = 1 ] && ! fresh=$(carry_tip_vs_packaged "$source" "$k"); then
		rc=1
		out+=$'\n'$fresh
	fi
	# Every shape of the ext4 family, for a variant with the shapes trait (lib/shapes.sh).
	if variant_has "$variant" shapes; then
		shapes_step "$variant" "$is_base" || rc=1
		out+=$(shapes_said)
	fi
	if ! note_record "$commit" "$variant" "$(verdict_of "$rc")" "chain=$chain kconfig=$([ "$rc" = 0 ] && echo kept || echo lost)"; then
		printf 'not ok %d - %s: its verdict could not be recorded in %s\n' "$n" "$desc" "$KB_NOTES"
		return 1
	fi
	if [ "$rc" = 0 ]; then
		carry_save "$variant" "$chain" "$k"
		printf 'ok %d - %s keeps %s, stepped and jumped from the base%s\n' "$n" "$desc" "$out" \
			"$([ "$is_tip" = 0 ] || echo '; configs made at earlier commits gain and lose nothing here, and all equal the packaged form but for the compat options listed')"
		return 0
	fi
	printf 'not ok %d - %s\n' "$n" "$desc"
	printf '%s\n' "$out" | grep . | sed 's/^/# /'
	return 1
}

# The verdict is what bisect-tests/run's RESULT line says; the exit code
# stands in only for a run that printed none.
result_verdict() {
	local verdict
	verdict=$(field "$1" verdict)
	[ -n "$verdict" ] || verdict=$(verdict_of "$2")
	printf '%s\n' "$verdict"
}

# The RESULT fields a note keeps: the key already holds variant and verdict.
result_fields() {
	printf '%s\n' "$1" | tr ' ' '\n' | { grep -vE '^(variant|verdict)=' || true; } | paste -sd ' ' -
}

verdict_of() {
	case "$1" in
	0) echo good ;;
	125) echo skip ;;
	*) echo bad ;;
	esac
}

# Does any chosen variant carry a config from the base (kinds carried and
# kconfig)?  Their packaged forms are made first.
verify_carries_any() {
	local v
	for v in "${VARIANTS[@]}"; do
		case $(variant_kind "$v") in
		carried | kconfig) return 0 ;;
		esac
	done
	return 1
}

run() {
	# shellcheck source=branch-scripts/lib/notes.sh
	. "$KB_REPO/branch-scripts/lib/notes.sh"
	# shellcheck source=branch-scripts/lib/kbuild.sh
	. "$KB_REPO/branch-scripts/lib/kbuild.sh"
	# shellcheck source=branch-scripts/lib/carry.sh
	. "$KB_REPO/branch-scripts/lib/carry.sh"
	# shellcheck source=branch-scripts/lib/kconfig.sh
	. "$KB_REPO/branch-scripts/lib/kconfig.sh"
	# shellcheck source=branch-scripts/lib/shapes.sh
	. "$KB_REPO/branch-scripts/lib/shapes.sh"
	parse_verify_args "$@"
	require_tree
	note_prime
	take_lock
	VERIFY_OUT=$KBRANCH_WORK/verify-points
	rm -rf "$VERIFY_OUT"
	mkdir -p "$VERIFY_OUT"
	require_clean_tree
	kgit rev-parse -q --verify "refs/heads/$VERIFY_BRANCH" >/dev/null ||
		die "no branch $VERIFY_BRANCH in $KTREE; run 'kbranch apply' first"
	local commits=() commit variant n=0 failed=0 is_base=1 k=0 is_tip refs=() version forms=0 packaged_work
	mapfile -t commits < <(verify_commits)
	mapfile -t refs < <(reference_variants)
	version=$(base_version)
	restore_head_on_exit
	echo "TAP version 13"
	echo "1..$((${#refs[@]} + ${#commits[@]} * ${#VARIANTS[@]}))"
	commit=$(kgit rev-parse "packaged/$version^{commit}")
	verify_learn_commits "$commit" "${commits[@]}"
	if verify_carries_any; then
		carry_packaged_key "$version"
		! carry_packaged_missing || forms=1
	fi
	# The packaged tree is checked out only for work there: a checkout
	# there and back makes the base rebuild the files the fixture changes.
	packaged_work=$forms
	for variant in "${refs[@]}"; do
		reference_recorded "$commit" "$variant" "$version" || packaged_work=1
	done
	[ "$packaged_work" = 0 ] || at_commit "$commit"
	# The carried configs' packaged forms (Kconfig, one core) beside the
	# references' builds.
	[ "$forms" = 0 ] || points_start packaged-forms carry_packaged_forms
	for variant in "${refs[@]}"; do
		n=$((n + 1))
		points_start "$n" reference_point "$n" "$commit" "$variant" "$version"
	done
	points_finish || failed=$((failed + $?))
	for commit in "${commits[@]}"; do
		is_tip=$([ "$k" = $((${#commits[@]} - 1)) ] && echo 1 || echo 0)
		verify_commit "$n" "$commit" "$is_base" "$k" "$is_tip" || failed=$((failed + $?))
		n=$((n + ${#VARIANTS[@]}))
		is_base=0
		k=$((k + 1))
	done
	step "verify: $((n - failed)) of $n points good (logs under $KBRANCH_WORK/runs, results: kbranch results)"
	[ "$failed" -eq 0 ] || return 1
	record_verified_version
}

# A full pass is what "verified against" means in base/linux-source.version.
record_verified_version() {
	local installed file=$KB_REPO/base/linux-source.version
	[ "${#VARIANTS[@]}" -eq "${#KB_VARIANTS[@]}" ] && [ "$VERIFY_BRANCH" = "$KBRANCH_BRANCH" ] || return 0
	installed=$(base_version)
	installed=${installed//_/\~}
	if [ -n "$installed" ] && [ "$(cat "$file")" != "$installed" ]; then
		printf '%s\n' "$installed" >"$file"
		step "recorded linux-source $installed as verified in base/linux-source.version"
	fi
}
