# shellcheck shell=bash
# The carried configs, judged at a commit: taken there stepped and jumped
# from the base, they keep what the base config had for ext4, ACL and
# security labels; configs made fresh at earlier commits and carried to the
# tip gain nothing the tip's own lacks; and at the tip each equals its
# packaged form but for what compat-differences lists (compat_lookup,
# bisect-tests/lib/compat.sh).  Also kbranch verify's point for a Kconfig-
# only variant (carry_point) and its carried variants' check at the tip
# (oldconfig_vs_packaged).

# Take carried config <source> to the checked-out commit.  Prints what it
# keeps; or what it lost and which way (returns 1); or why there is nothing
# to carry (returns 128, a setup error: no verdict).
carry_step() {
	local source=$1 is_base=$2 dir want have way ways=(stepped jumped) rc
	dir=$(carry_dir)/$source
	mkdir -p "$dir/stepped" "$dir/jumped"
	# At the base both ways are the same olddefconfig: run it once.
	[ "$is_base" = 0 ] || ways=(stepped)
	if [ "$is_base" = 1 ]; then
		rc=$(exit_status_of "$dir/base.config" carry_seed "$source" 2>"$dir/seed.log")
		if [ "$rc" != 0 ]; then
			echo "cannot make its base config: $(tail -n 1 "$dir/seed.log")"
			return 128
		fi
		cp "$dir/base.config" "$dir/stepped/.config"
	fi
	cp "$dir/base.config" "$dir/jumped/.config"
	rc=$(exit_status_of /dev/null carry_olddefconfig "${ways[@]/#/$dir/}")
	[ "$rc" = 0 ] || { echo "olddefconfig failed (log: $(carry_olddefconfig_log))"; return 1; }
	have=$(carry_values "$dir/stepped/.config")
	if [ "$is_base" = 1 ]; then
		# A base config without ext4 would make every later check vacuous.
		[[ "$have" != ext4=n* ]] || { echo "its base config has no ext4 ($have)"; return 128; }
		printf '%s\n' "$have" >"$dir/want"
	fi
	want=$(cat "$dir/want")
	for way in "${ways[@]}"; do
		have=$(carry_values "$dir/$way/.config")
		[ "$have" = "$want" ] || { echo "$way from the base it has $have, the base config had $want"; return 1; }
	done
	echo "$want"
}

# At every commit: record the fresh config.  At the tip: carry each earlier
# one here and compare.  Prints each unlisted difference; returns 1 if any.
carry_fresh_step() {
	local source=$1 k=$2 is_tip=$3 variant=$4 dir f from line bad=0 carried rc
	dir=$(carry_dir)/$source/fresh
	# A new run starts at the base: no fresh config of an earlier run stays.
	[ "$k" != 0 ] || rm -rf "$dir"
	mkdir -p "$dir"
	rc=$(exit_status_of /dev/null carry_fresh "$source" "$dir/$k")
	[ "$rc" = 0 ] || { echo "cannot make the $source config fresh at commit $k (log: $dir/$k.log)"; return 1; }
	[ "$is_tip" = 1 ] || return 0
	carried=()
	for f in "$dir"/*/.config; do
		from=$(basename "$(dirname "$f")")
		if [ "$from" = "$k" ] || [[ ! "$from" =~ ^[0-9]+$ ]]; then
			continue
		fi
		rm -rf "$dir/carried-$from"
		mkdir -p "$dir/carried-$from"
		cp "$f" "$dir/carried-$from/.config"
		carried+=("$dir/carried-$from")
	done
	rc=0
	[ "${#carried[@]}" = 0 ] || rc=$(exit_status_of /dev/null carry_olddefconfig "${carried[@]}")
	[ "$rc" = 0 ] || { echo "olddefconfig failed (log: $(carry_olddefconfig_log))"; return 1; }
	for f in "${carried[@]}"; do
		from=${f##*/carried-}
		# Only what is switched on counts: an option that did not exist
		# at commit k is missing from its config, not lost.
		while IFS= read -r line; do
			[[ "$line" == '< CONFIG_'* ]] || continue
			line=${line:2}
			compat_lookup config-gained "$variant" "$from" "$line"
			[ "$COMPAT_LISTED" = no ] || continue
			echo "made fresh at commit $from and carried to the tip, it gains '$line', which the same config made at the tip lacks (not in compat-differences)"
			bad=1
		done < <(family_diff "$f/.config" "$dir/$k/.config")
	done
	return "$bad"
}

# Each ext4-family line in which config $4 differs from reference $5, as
# "<$3>: + line" (only ours) or "<$3>: - line" (only the reference), unless
# compat-differences lists it under check $1 for step $2.
family_differences() {
	local check=$1 k=$2 label=$3 ours=$4 ref=$5 line
	while IFS= read -r line; do
		case "$line" in
		'< '*) line="$label: + ${line:2}" ;;
		'> '*) line="$label: - ${line:2}" ;;
		*) continue ;;
		esac
		compat_lookup "$check" - "$k" "$line"
		[ "$COMPAT_LISTED" = yes ] || printf '%s\n' "$line"
	done < <(family_diff "$ours" "$ref")
}

# diff's lines between the ext4-family lines of configs $1 and $2: both
# read first, so that carry_family runs outside diff's condition, where
# set -e would not hold.
family_diff() {
	local a b
	a=$(carry_family "$1")
	b=$(carry_family "$2")
	diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") || true
}

# Each unlisted config-packaged difference of config $4 (carried $5) from
# source $2's packaged form at step $1, said in a sentence.  Returns 1 if any.
carry_vs_packaged() {
	local k=$1 source=$2 label=$3 config=$4 way=$5 line bad=0
	while IFS= read -r line; do
		echo "$way, it differs from the $source config made at the packaged tree, not in compat-differences: '$line'"
		bad=1
	done < <(family_differences config-packaged "$k" "$label" "$config" "$(carry_packaged_file "$source")")
	return "$bad"
}

# At the tip: carried stepped and jumped from the base, and made fresh
# there, each against the packaged form.  Listed lines are looked up under
# the tip's declared step (a scratch commit on top inherits its parent's).
carry_tip_vs_packaged() {
	local source=$1 k=$2 dir bad=0 step
	dir=$(carry_dir)/$source
	step=$(declared step)
	carry_judged "$step" "$source" "$source from the base" "$dir/stepped/.config" "stepped from the base"
	carry_judged "$step" "$source" "$source from the base" "$dir/jumped/.config" "jumped from the base"
	carry_judged "$step" "$source" "$source made fresh" "$dir/fresh/$k/.config" "made fresh at the tip"
	return "$bad"
}

# carry_vs_packaged "$@", run as a job of its own (exit_status_of) so that
# set -e holds in it: prints what it says, and sets bad=1 (the caller's)
# when it fails.
carry_judged() {
	local said rc
	said=$(mktemp)
	rc=$(exit_status_of "$said" carry_vs_packaged "$@")
	cat "$said"
	rm -f "$said"
	[ "$rc" = 0 ] || bad=1
}

# At the tip the tester's carried .config equals, in the ext4 family, its
# reference variant's config made at the packaged tree (what it was made
# from: builtin's).
oldconfig_vs_packaged() {
	local variant=$1 step=$2 config=$3 out bad=0 reference said
	[ -f "$config" ] || { echo "bisect-tests: $variant: its run named no .config (RESULT config=)" >&2; return 1; }
	reference=$(variant_reference "$variant")
	said=$(mktemp)
	carry_judged "$step" "$reference" "$variant from the base" "$config" "carried to the tip" >"$said"
	out=$(cat "$said")
	rm -f "$said"
	[ "$bad" = 1 ] || return 0
	printf '%s\n' "$out" | sed "s/^/bisect-tests: $variant: /" >&2
	return 1
}

# Kconfig only: a carried config keeps what its base config had.
carry_point() {
	local n=$1 commit=$2 variant=$3 is_base=$4 k=$5 is_tip=$6 chain=$7 out rc desc source said judged recorded shapes
	source=$(variant_source "$variant")
	desc="$(commit_desc "$commit") [$variant] olddefconfig"
	step "[$n] $desc"
	# Each judge runs as a job of its own (exit_status_of), its status
	# read, not tested in a condition: set -e holds in it.
	said=$(mktemp)
	rc=$(exit_status_of "$said" carry_step "$source" "$is_base")
	out=$(cat "$said")
	[ "$rc" -ne 128 ] || { rm -f "$said"; die "$variant: $out"; }
	judged=$(exit_status_of "$said" carry_fresh_step "$source" "$k" "$is_tip" "$variant")
	if [ "$judged" != 0 ]; then
		rc=1
		out+=$'\n'$(cat "$said")
	fi
	if [ "$is_tip" = 1 ]; then
		judged=$(exit_status_of "$said" carry_tip_vs_packaged "$source" "$k")
		if [ "$judged" != 0 ]; then
			rc=1
			out+=$'\n'$(cat "$said")
		fi
	fi
	rm -f "$said"
	# Every shape of the ext4 family, for a variant with the shapes trait
	# (lib/shapes.sh); shapes_step dies when it cannot judge.
	shapes=$(variant_trait "$variant" shapes)
	if [ "$shapes" = yes ]; then
		shapes_step "$variant" "$is_base"
		judged=$(shapes_verdict)
		[ "$judged" = good ] || rc=1
		out+=$(shapes_said)
	fi
	recorded=$(exit_status_of /dev/null note_record "$commit" "$variant" "$(verdict_of_exit "$rc")" "chain=$chain kconfig=$([ "$rc" = 0 ] && echo kept || echo lost)")
	if [ "$recorded" != 0 ]; then
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
