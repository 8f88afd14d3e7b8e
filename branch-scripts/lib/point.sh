# shellcheck shell=bash
# One point of kbranch verify, one commit x one variant: bisect-tests/run
# (exec), its RESULT line (parse), one verdict that gives both the TAP line
# and the note; a point that passed before with these tests is reused.

# The verdict vocabulary (word, exit code, TAP result): bisect-tests' table.
# shellcheck source=bisect-tests/lib/verdict.sh
source "$KB_REPO/bisect-tests/lib/verdict.sh"

# Run bisect-tests/run for one commit and variant; print its exit code,
# then its RESULT fields, on one line: printed, not returned, so that the
# caller need not test it in a condition, where set -e would not hold.
# Its progress goes to the terminal (stderr).
verify_one() {
	local variant=$1 mode=$2 out rc=0 oldconfig
	# A guest boots its kernel= variant's kernel, carried from that one's config.
	oldconfig=$(carry_oldconfig_file "$(variant_kernel "$variant")")
	out=$(cd "$KTREE" && KBRANCH_OLDCONFIG=$oldconfig \
		"$KB_REPO/bisect-tests/run" --variant "$variant" "$mode") || rc=$?
	printf '%s %s\n' "$rc" "$(printf '%s\n' "$out" | result_of_run)"
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

# A RESULT line's field (bisect-tests/lib/verdict.sh reads it); empty
# when the line has none.
field() {
	result_field "$1" "$2"
}

# One TAP test point per commit x variant, from its verdict.
tap_point() {
	local n=$1 commit=$2 variant=$3 result=$4 verdict=$5 desc
	desc="$(commit_desc "$commit") [$variant] build=$(field "$result" build)"
	desc+=" boot=$(field "$result" boot) checks=$(field "$result" checks) $(field "$result" seconds)s"
	case "$(verdict_tap "$verdict")" in
	ok) printf 'ok %d - %s\n' "$n" "$desc" ;;
	untestable) printf 'not ok %d - %s # untestable (%s verdict)\n' "$n" "$desc" "$verdict" ;;
	*) printf 'not ok %d - %s\n' "$n" "$desc" ;;
	esac
}

# One verdict per point gives its note and its TAP line.  A verdict that
# could not be recorded is not ok: the next run would not know it, and
# the published notes would lack it.
point_finish() {
	local n=$1 commit=$2 variant=$3 verdict=$4 fields=$5 result=$6 rc
	# A job of its own, whose status is read: set -e holds in it.
	rc=$(exit_status_of /dev/null note_record "$commit" "$variant" "$verdict" "$fields")
	if [ "$rc" != 0 ]; then
		printf 'not ok %d - %s [%s]: its verdict (%s) could not be recorded in %s\n' \
			"$n" "$(commit_desc "$commit")" "$variant" "$verdict" "$KB_NOTES"
		return 1
	fi
	tap_point "$n" "$commit" "$variant" "$result" "$verdict"
	return "$(verdict_exit "$verdict")"
}

# The tree is checked out only for a point that runs: a checkout of this
# tree costs a third of a second, most of a skipped point's time.
at_commit() {
	[ "$(kgit rev-parse HEAD)" = "$1" ] || kgit checkout -q --detach "$1"
}

# A point that already passed with these tests and tools is not run
# again: its TAP line is printed, and nothing for a point to run.  A
# carried config (oldconfig, carried-*) passed only along the same chain
# of trees, and its state after the commit is put back for the next.  A
# Debian machine's chain key names its image and trees, and it carries no
# state: it is reused on the note alone.
verify_point_reused() {
	local n=$1 commit=$2 variant=$3 is_tip=$4 k=$5 chain state kind how
	chain=$(point_chain "$variant" "$commit" "$is_tip")
	[ "$RERUN" = 0 ] || return 0
	note_pass_check "$commit" "$variant" "$chain"
	[ "$NOTE_PASSED" = yes ] || return 0
	kind=$(variant_kind "$variant")
	if [ "$kind" = carried ] || [ "$kind" = kconfig ]; then
		# carry_restore fails without a kept state: looked for first,
		# so that it is not called in a condition.
		state=$(carry_state_dir "$variant" "$chain")
		[ -d "$state" ] || return 0
		carry_restore "$variant" "$chain" "$k"
	fi
	note_reuse "$commit" "$variant" "$chain"
	case $kind in
	carried | kconfig) how=', carried along the same commits' ;;
	debian) how=', in the same Debian image' ;;
	*) how='' ;;
	esac
	printf 'ok %d - %s [%s] passed before with these tests%s (notes %s)\n' "$n" \
		"$(commit_desc "$commit")" "$variant" "$how" "$KB_NOTES"
}

# The chain key of a carried config's point (kinds carried and kconfig),
# or of a Debian machine's (kind debian); empty for the others, whose
# verdict depends on the commit's tree alone.
point_chain() {
	local variant=$1 commit=$2 is_tip=$3
	case $(variant_kind "$variant") in
	carried | kconfig) carry_chain_key "$variant" "$commit" "$is_tip" ;;
	debian) debian_chain_key "$variant" "$commit" ;;
	esac
}

# A Debian machine's verdict depends on the image it boots (its key names
# every package version in it) and, for a kernel whose config is carried
# from the base (its kernel= variant of kind carried), on every tree it
# was carried through.
debian_chain_key() {
	local variant=$1 commit=$2 kind
	[ -n "${KB_DEBIAN_IMAGE:-}" ] || die "verify: the Debian image was not looked up before the points"
	kind=$(variant_kind "$(variant_kernel "$variant")")
	{
		printf '%s %s %s\n' "${KB_DEBIAN_IMAGE##*/}" "$(tests_version)" "$(toolchain)"
		if [ "$kind" = carried ] && kgit merge-base --is-ancestor "$KB_BASE_TAG" "$commit"; then
			kgit log --reverse --format=%T "$KB_BASE_TAG^..$commit"
		else
			kgit log -1 --format=%T "$commit"
		fi
	} | sha256sum | cut -c1-16
}

# The Debian image, made or found once per run when a chosen variant is of
# kind debian (bisect-tests/debian/make-image: 2 s cached, 20 s to 3 min
# made); its key is part of those points' chain.
debian_image_learn() {
	local v kind
	for v in "$@"; do
		kind=$(variant_kind "$v")
		if [ "$kind" = debian ]; then
			KB_DEBIAN_IMAGE=$("$KB_REPO/bisect-tests/debian/make-image") ||
				die "verify: the Debian image cannot be made (bisect-tests/debian/make-image said why above)"
			return 0
		fi
	done
}

# Arguments: n commit variant is_base k is_tip (is_base: carry_point's).
verify_point() {
	local n=$1 commit=$2 variant=$3 k=$5 is_tip=$6 result rc chain verdict kind judged
	chain=$(point_chain "$variant" "$commit" "$is_tip")
	kind=$(variant_kind "$variant")
	[ "$kind" != kconfig ] || { carry_point "$@" "$chain"; return; }
	step "[$n] $(commit_desc "$commit") [$variant]"
	result=$(verify_one "$variant" --against-packaged)
	rc=${result%% *} result=${result#* }
	[ "$rc" -ne 128 ] || die "bisect-tests/run could not set up (exit 128); see above"
	[ "$rc" -lt 128 ] || die "bisect-tests/run was interrupted (exit $rc); no verdict recorded"
	verdict=$(result_verdict "$result" "$rc")
	# At the tip, a carried config good in the guest is bad still when its
	# .config is not what the packaged tree makes of it: the verdict is
	# set here, and bisect-tests/run's RESULT line stays as it said it.
	if [ "$kind" = carried ] && [ "$is_tip" = 1 ] && [ "$verdict" = good ]; then
		judged=$(exit_status_of /dev/null oldconfig_vs_packaged "$variant" "$(declared step)" "$(field "$result" config)")
		[ "$judged" = 0 ] || verdict=bad
	fi
	if [ "$kind" = carried ]; then
		carry_oldconfig_advance "$variant" "$(field "$result" config)"
		[ "$verdict" != good ] || carry_save "$variant" "$chain" "$k"
	fi
	point_finish "$n" "$commit" "$variant" "$verdict" "${chain:+chain=$chain }$(result_fields "$result")" "$result"
}

# --rerun re-verifies the series: the reference is recorded again only
# when it is missing or was recorded with other tests or tools.  Sets
# NOTE_PASSED: yes when it is recorded (a lookup, not a test, so that no
# caller calls it in a condition, where set -e would not hold).
reference_recorded() {
	local commit=$1 variant=$2 version=$3 kind
	kind=$(variant_kind "$variant")
	# A Debian machine's reference is its scenario's "packaged" expectation,
	# judged at the packaged tree like a commit: nothing is recorded.
	if [ "$kind" = debian ]; then
		note_pass_check "$commit" "$variant" "$(debian_chain_key "$variant" "$commit")"
		return 0
	fi
	NOTE_PASSED=no
	[ ! -f "$KBRANCH_WORK/reference/$version/$variant.observed" ] || note_pass_check "$commit" "$variant"
}

reference_point() {
	local n=$1 commit=$2 variant=$3 version=$4 result rc chain
	chain=$(point_chain "$variant" "$commit" 0)
	reference_recorded "$commit" "$variant" "$version"
	if [ "$NOTE_PASSED" = yes ]; then
		printf 'ok %d - packaged/%s [%s] reference recorded before with these tests\n' "$n" "$version" "$variant"
		return 0
	fi
	at_commit "$commit"
	step "[$n] packaged/$version [$variant] (the reference)"
	result=$(verify_one "$variant" --record-reference)
	rc=${result%% *} result=${result#* }
	[ "$rc" -ne 128 ] || die "bisect-tests/run could not set up (exit 128); see above"
	[ "$rc" -lt 128 ] || die "bisect-tests/run was interrupted (exit $rc); no verdict recorded"
	point_finish "$n" "$commit" "$variant" "$(result_verdict "$result" "$rc")" \
		"${chain:+chain=$chain }$(result_fields "$result")" "$result"
}

# The verdict is what bisect-tests/run's RESULT line says; the exit code
# stands in only for a run that printed none.
result_verdict() {
	local verdict
	verdict=$(field "$1" verdict)
	[ -n "$verdict" ] || verdict=$(verdict_of_exit "$2")
	printf '%s\n' "$verdict"
}

# The RESULT fields a note keeps: the key already holds variant and verdict.
result_fields() {
	printf '%s\n' "$1" | tr ' ' '\n' | { grep -vE '^(variant|verdict)=' || true; } | paste -sd ' ' -
}

