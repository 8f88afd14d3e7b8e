# shellcheck shell=bash
# summary: build, boot and check the packaged kernel (the reference) and every commit from ext4dev-base to the tip x every variant, compared with the reference, and carry old configs through (TAP); --rerun ignores the series' recorded passes

# The variants are bisect-tests/configs/variants (KB_VARIANTS, lib/
# notes.sh), in its order.  oldconfig follows builtin, whose base config it
# starts from.

# The command is the flow: arguments, the references, then every commit.
# One point (run, verdict, TAP line, note) is lib/point.sh's; running two
# at once is lib/jobs.sh's; the carried configs are lib/carry.sh's; the
# verified version is recorded by lib/common.sh (base_version_record).
# shellcheck source=branch-scripts/lib/point.sh
. "$KB_REPO/branch-scripts/lib/point.sh"
# shellcheck source=branch-scripts/lib/jobs.sh
. "$KB_REPO/branch-scripts/lib/jobs.sh"

# The commits to verify: the base itself, then the series, oldest first.
verify_commits() {
	kgit rev-parse "$KB_BASE_TAG^{commit}"
	kgit rev-list --reverse "$KB_BASE_TAG..$VERIFY_BRANCH"
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

# The chosen variants as "NUMBER NAME", NUMBER their place in VARIANTS,
# the Kconfig-only ones (kind kconfig) first: they take a core while a
# build's point spends time on one (config, link, boots), instead of
# running alone once the builds are done.  TAP stays in NUMBER order.
verify_order() {
	local variant i=0 kind first=() rest=()
	for variant in "${VARIANTS[@]}"; do
		i=$((i + 1))
		kind=$(variant_kind "$variant")
		if [ "$kind" = kconfig ]; then
			first+=("$i $variant")
		else
			rest+=("$i $variant")
		fi
	done
	printf '%s\n' "${first[@]}" "${rest[@]}"
}

# Every variant at one commit, two at a time; adds how many points failed
# to POINTS_FAILED.  The tree is checked out before the points start (they must not
# move it) and only when one of them runs.
verify_commit() {
	local n=$1 commit=$2 is_base=$3 k=$4 is_tip=$5 variant i kind order
	order=$(verify_order)
	while read -r i variant; do
		verify_point_reused "$((n + i))" "$commit" "$variant" "$is_tip" "$k" >"$VERIFY_OUT/$((n + i)).tap"
		if [ -s "$VERIFY_OUT/$((n + i)).tap" ]; then
			echo 0 >"$VERIFY_OUT/$((n + i)).rc"
			VERIFY_POINTS+=("$((n + i))")
			continue
		fi
		at_commit "$commit"
		if [ "$is_base" = 1 ]; then
			kind=$(variant_kind "$variant")
			[ "$kind" != carried ] || carry_oldconfig_start "$variant"
		fi
		points_start "$((n + i))" verify_point "$((n + i))" "$commit" "$variant" "$is_base" "$k" "$is_tip"
	done <<<"$order"
	points_finish
}

# The packaged kernel, built and booted like the commits, records what a
# user of it observes: the reference every commit is compared with.  The
# references the chosen variants need, each once (bisect-tests/configs/
# variants: oldconfig compares with builtin's).
reference_variants() {
	local v refs
	# Looked up first, not in the pipeline whose failure is ignored.
	refs=$(for v in "${VARIANTS[@]}"; do variant_reference "$v"; done)
	{ grep -vx -e - -e '' <<<"$refs" || true; } | awk '!seen[$0]++'
}

# Does any chosen variant carry a config from the base (kinds carried and
# kconfig)?  Their packaged forms are made first.  "yes" or "no" (a lookup,
# not a test, where set -e would not hold).
verify_carries_any() {
	local v
	for v in "${VARIANTS[@]}"; do
		case $(variant_kind "$v") in
		carried | kconfig) echo yes; return 0 ;;
		esac
	done
	echo no
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
	local commits=() commit variant n=0 is_base=1 k=0 is_tip refs=() version forms=0 packaged_work carries missing
	mapfile -t commits < <(verify_commits)
	mapfile -t refs < <(reference_variants)
	version=$(base_version)
	restore_head_on_exit
	echo "TAP version 13"
	echo "1..$((${#refs[@]} + ${#commits[@]} * ${#VARIANTS[@]}))"
	commit=$(kgit rev-parse "packaged/$version^{commit}")
	verify_learn_commits "$commit" "${commits[@]}"
	debian_image_learn "${VARIANTS[@]}"
	carries=$(verify_carries_any)
	if [ "$carries" = yes ]; then
		carry_packaged_key "$version"
		missing=$(carry_packaged_missing)
		[ "$missing" = no ] || forms=1
	fi
	# The packaged tree is checked out only for work there: a checkout
	# there and back makes the base rebuild the files the fixture changes.
	packaged_work=$forms
	for variant in "${refs[@]}"; do
		reference_recorded "$commit" "$variant" "$version"
		[ "$NOTE_PASSED" = yes ] || packaged_work=1
	done
	[ "$packaged_work" = 0 ] || at_commit "$commit"
	# The carried configs' packaged forms (Kconfig, one core) beside the
	# references' builds.
	[ "$forms" = 0 ] || points_start packaged-forms carry_packaged_forms
	for variant in "${refs[@]}"; do
		n=$((n + 1))
		points_start "$n" reference_point "$n" "$commit" "$variant" "$version"
	done
	points_finish
	for commit in "${commits[@]}"; do
		is_tip=$([ "$k" = $((${#commits[@]} - 1)) ] && echo 1 || echo 0)
		verify_commit "$n" "$commit" "$is_base" "$k" "$is_tip"
		n=$((n + ${#VARIANTS[@]}))
		is_base=0
		k=$((k + 1))
	done
	step "verify: $((n - POINTS_FAILED)) of $n points good (logs under $KBRANCH_WORK/runs, results: kbranch results)"
	[ "$POINTS_FAILED" -eq 0 ] || return 1
	# A full pass is what "verified against" means in
	# base/linux-source.version: every variant, on the branch itself.
	if [ "${#VARIANTS[@]}" -eq "${#KB_VARIANTS[@]}" ] && [ "$VERIFY_BRANCH" = "$KBRANCH_BRANCH" ]; then
		base_version_record
	fi
}
