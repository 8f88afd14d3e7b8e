# shellcheck shell=bash
# Every shape of config a tester keeps, Kconfig only.  The carried configs
# (lib/carry.sh) are full configs, which name every option they keep.  A
# minimal form (savedefconfig) or a fragment leaves out what a select or a
# default implies, so a changed select or dependency drops it (v2 of the
# series: CONFIG_EXT3_FS=y + CONFIG_EXT4DEV_FS_POSIX_ACL=y lost ACL at
# patch 3).
#
# At ext4dev-base, with the carried config of a kconfig variant with the
# shapes trait (configs/variants: carried-minimal's, the minimal variant's)
# pinning everything but the ext4 family (KCONFIG_ALLCONFIG), each seed of
# bisect-tests/configs/shapes.seeds makes three shapes:
#   random    a randconfig: the ext4 family at random;
#   minimal   its minimal form, savedefconfig;
#   fragment  that minimal form's ext4-family lines, merged onto the pin
#             with the tree's merge_config.sh.
# Each is taken to every commit both ways a tester gets there: jumped,
# straight from the base (olddefconfig; the fragment merged there), and
# stepped, from the previous commit's result (olddefconfig; the minimal
# form saved again with savedefconfig at each commit and expanded at the
# next; the fragment merged onto the previous result).  At every commit
# each must have, in the ext4 family (CARRY_FAMILY), what the packaged
# tree makes of its packaged form: the same shape under the new names,
# made at packaged/<version> the same way.  Old and new names count as
# one, the one the commit builds from (uses=), so a sticky old option
# counts through what it selects.  A difference is bad unless
# compat-differences lists it as config-shape for that variant, whose point
# (kbranch verify's carry_point) runs this check.  Every config goes
# through kconfig-batch (lib/kconfig.sh: one conf, one Kconfig parse per
# batch), one batch per core.

SHAPES_SEEDS=bisect-tests/configs/shapes.seeds
SHAPES=(random minimal fragment)
# The names the packaged tree builds ext4, ACL and security labels from.
SHAPES_NEW_NAMES='CONFIG_EXT4_FS CONFIG_EXT4_FS_POSIX_ACL CONFIG_EXT4_FS_SECURITY'

# A variant's shapes live beside its carried config; shapes_step sets
# SHAPES_DIR and SHAPES_VARIANT for the point it runs in.
shapes_dir() {
	printf '%s\n' "$SHAPES_DIR"
}

# The one state a later commit needs (carry_state_files keeps it with
# variant $1's), relative to the carry dir.
shapes_state_file() {
	printf '%s/shapes/state.tar.xz\n' "$(variant_source "$1")"
}

shapes_seeds() {
	grep -Ev '^[[:space:]]*(#|$)' "$KB_REPO/$SHAPES_SEEDS"
}

shapes_jobs() {
	local jobs=$KBRANCH_JOBS
	[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || jobs=1
	echo "$jobs"
}

# kconfig-batch over the "MODE IN OUT [SEED]" lines of file $1, at the
# checked-out tree or at source tree $2.  A config made before in this step
# from the same input, mode, seed and tree (the memo) is copied, not
# made again: at patch 1 a config stepped from the base is often the base's.
shapes_batch() {
	local list=$1 srctree=${2:-$KTREE} src dst
	shapes_memo_split "$list" "$srctree"
	shapes_batch_run "$list.todo" "$srctree"
	while read -r src dst; do
		cp "$src" "$dst" || return 1
	done <"$list.copies"
}

# Split list $1 into the lines to run ($1.todo) and the outputs to copy
# from the memo ($1.copies, "FROM TO"), recording what the former will make.
shapes_memo_split() {
	local list=$1 srctree=$2 memo inputs
	memo=$(shapes_dir)/memo
	touch "$memo"
	mapfile -t inputs < <(cut -d ' ' -f 2 "$list")
	[ "${#inputs[@]}" -gt 0 ] || { : >"$list.todo"; : >"$list.copies"; return 0; }
	paste -d ' ' <(sha1sum "${inputs[@]}" | cut -d ' ' -f 1) "$list" |
		awk -v tree="$srctree" -v memo="$memo" -v todo="$list.todo" -v copies="$list.copies" '
		BEGIN { printf "" >todo; printf "" >copies; FS = "\t" }
		FILENAME == memo { made[$1] = $2; next }
		{
			split($0, f, " ")
			key = f[2] " " tree " " f[5] " " f[1]
			if (key in made) {
				print made[key], f[4] >copies
				next
			}
			made[key] = f[4]
			print key "\t" f[4] >>memo
			print f[2], f[3], f[4], f[5] >todo
		}' "$memo" -
}

# kconfig-batch over the lines of file $1 at source tree $2, one batch per core.
shapes_batch_run() {
	local list=$1 srctree=$2 log part pids=() pid rc=0
	log=$(shapes_dir)/kconfig.log
	rm -f "$list".part.*
	split -n "r/$(shapes_jobs)" "$list" "$list.part."
	for part in "$list".part.*; do
		[ -s "$part" ] || continue
		kconfig_batch x86_64 "$log" "$srctree" <"$part" &
		pids+=("$!")
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	rm -f "$list".part.*
	[ "$rc" = 0 ] || echo "kconfig-batch failed (log: $log)" >&2
	return "$rc"
}

# merge_config.sh -m (the merge alone; its make step, alldefconfig, goes
# through kconfig-batch) for each "OUT BASE FRAGMENT" line on stdin, one
# merge per core.  It writes its temporary files where it runs.
shapes_merge() {
	local work jobs
	work=$(shapes_dir)/merge-work
	jobs=$(shapes_jobs)
	mkdir -p "$work"
	# shellcheck disable=SC2016 # expanded by sh, with xargs' arguments
	(cd "$work" && xargs -P "$jobs" -L 1 sh -c 'KCONFIG_CONFIG=$1 "$0" -m "$2" "$3"' \
		"$KTREE/scripts/kconfig/merge_config.sh") >>"$work.log" 2>&1 ||
		{ echo "merge_config.sh failed (log: $work.log)" >&2; return 1; }
}

# "MODE <in-dir>/SEED <out-dir>/SEED" for every seed.
shapes_lines() {
	local mode=$1 in=$2 out=$3 seed
	while read -r seed; do
		printf '%s %s/%s %s/%s\n' "$mode" "$in" "$seed" "$out" "$seed"
	done < <(shapes_seeds)
}

# --- At the base: the shapes, and what the packaged tree makes of them ------

# The pin (the variant's base config, which carry_step made beside the
# shapes, less the ext4 family), each seed's random config, its minimal
# form, its fragment, and the fragment merged onto the pin.
shapes_make_base() {
	local dir seed
	dir=$(shapes_dir)
	rm -rf "$dir/base" "$dir/stepped" "$dir/jumped"
	mkdir -p "$dir"/base/{random,minimal,fragment,merged}
	grep -Ev "^(# )?${CARRY_FAMILY}[= ]" "$(dirname "$dir")/base.config" >"$dir/base/pin.config" ||
		{ echo "no base config to pin: $(dirname "$dir")/base.config" >&2; return 1; }
	while read -r seed; do
		[[ "$seed" =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || { echo "$SHAPES_SEEDS: '$seed' is not a seed" >&2; return 1; }
		printf 'randconfig %s %s/%s %s\n' "$dir/base/pin.config" "$dir/base/random" "$seed" "$seed"
	done < <(shapes_seeds) >"$dir/list"
	shapes_batch "$dir/list"
	shapes_lines savedefconfig "$dir/base/random" "$dir/base/minimal" >"$dir/list"
	shapes_batch "$dir/list"
	while read -r seed; do
		carry_family "$dir/base/minimal/$seed" >"$dir/base/fragment/$seed"
		printf '%s %s %s\n' "$dir/base/merged/$seed" "$dir/base/pin.config" "$dir/base/fragment/$seed"
	done < <(shapes_seeds) | shapes_merge
}

# kconfig-batch must make what make makes (a value left from one config in
# the next would show): the last seed's random config, its minimal form and
# its merged fragment, made last in their batches, made by make too.
shapes_same_as_make() {
	local dir odir log seed
	dir=$(shapes_dir)
	odir=$dir/make-check
	log=$odir.log
	seed=$(shapes_seeds | tail -n 1)
	rm -rf "$odir"
	cp -a "$(kconfig_dir)/kconfig" "$odir"
	shapes_make "$odir" "$log" randconfig KCONFIG_SEED="$seed" KCONFIG_ALLCONFIG="$dir/base/pin.config"
	shapes_made_same "$odir/.config" "$dir/base/random/$seed" "make randconfig KCONFIG_SEED=$seed"
	cp "$dir/base/random/$seed" "$odir/.config"
	shapes_make "$odir" "$log" savedefconfig
	shapes_made_same "$odir/defconfig" "$dir/base/minimal/$seed" "make savedefconfig (seed $seed)"
	shapes_make "$odir" "$log" alldefconfig KCONFIG_ALLCONFIG="$dir/base/merged/$seed"
	shapes_made_same "$odir/.config" "$dir/stepped/fragment/$seed" "make alldefconfig of the merged fragment (seed $seed)"
}

# make TARGET in O= dir $1, log $2, with the environment given after it.
shapes_make() {
	local odir=$1 log=$2 target=$3
	shift 3
	env "$@" make -C "$KTREE" O="$odir" ARCH=x86_64 "$target" >>"$log" 2>&1 ||
		{ echo "make $target failed (log: $log)" >&2; return 1; }
}

shapes_made_same() {
	cmp -s "$1" "$2" || { echo "kconfig-batch does not make what $3 makes: $2, $1" >&2; return 1; }
}

# The packaged tree's Kconfig files and scripts/ (what Kconfig's probes
# run), kept per commit: the packaged forms are made there, with the
# checked-out tree's conf environment, and nothing is checked out.
shapes_packaged_tree() {
	local commit dir version
	version=$(base_version)
	commit=$(kgit rev-parse "packaged/$version^{commit}") || return 1
	dir=$(shapes_dir)/packaged-tree/$commit
	if [ ! -f "$dir/Kconfig" ]; then
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		kgit archive "$commit" -- ':(glob)**/Kconfig*' scripts | tar -x -C "$dir.tmp" || return 1
		mv "$dir.tmp" "$dir"
	fi
	printf '%s\n' "$dir"
}

# Each shape under the new names, made at the packaged tree the way it is
# made at a commit (the fragment: the merged file renamed, which is what
# merge_config.sh makes of the renamed fragment, the pin having no ext4
# line), read in the ext4 family: oracle.tsv, "SHAPE SEED<TAB>values".
shapes_oracle() {
	local dir tree rc
	dir=$(shapes_dir)
	rc=$(exit_status_of "$dir/packaged-tree.path" shapes_packaged_tree)
	[ "$rc" = 0 ] || { echo "cannot extract the packaged tree's Kconfig" >&2; return 1; }
	tree=$(cat "$dir/packaged-tree.path")
	rm -rf "$dir/packaged"
	mkdir -p "$dir"/packaged/{in,random,minimal,fragment}
	cp -R "$dir/base/random" "$dir/base/minimal" "$dir/base/merged" "$dir/packaged/in/"
	sed -i -E 's/^(# )?CONFIG_EXT4DEV_FS(_POSIX_ACL|_SECURITY)?([= ])/\1CONFIG_EXT4_FS\2\3/' "$dir"/packaged/in/*/*
	{
		shapes_lines olddefconfig "$dir/packaged/in/random" "$dir/packaged/random"
		shapes_lines olddefconfig "$dir/packaged/in/minimal" "$dir/packaged/minimal"
		shapes_lines alldefconfig "$dir/packaged/in/merged" "$dir/packaged/fragment"
	} >"$dir/list"
	shapes_batch "$dir/list" "$tree"
	shapes_index packaged >"$dir/index"
	shapes_family emit "$SHAPES_NEW_NAMES" /dev/null "$dir/index" >"$dir/oracle.tsv"
}

# --- At every commit: carried there, then judged --------------------------

# The shapes carried to the checked-out commit: stepped/ from the previous
# commit's (at the base: from the shapes themselves), and jumped/ from the
# base's.
shapes_carry() {
	local is_base=$1 dir prev
	dir=$(shapes_dir)
	prev=$dir/stepped
	[ "$is_base" = 0 ] || prev=$dir/base
	rm -rf "$dir/next" "$dir/jumped"
	mkdir -p "$dir"/next/{random,minimal,saved,merged,fragment}
	{
		shapes_lines olddefconfig "$prev/random" "$dir/next/random"
		shapes_lines olddefconfig "$prev/$([ "$is_base" = 1 ] && echo minimal || echo saved)" "$dir/next/minimal"
		[ "$is_base" = 1 ] || shapes_jumped_lines olddefconfig random minimal
	} >"$dir/list"
	shapes_batch "$dir/list"
	shapes_lines savedefconfig "$dir/next/minimal" "$dir/next/saved" >"$dir/list"
	shapes_batch "$dir/list"
	shapes_carry_fragments "$is_base"
	rm -rf "$dir/stepped" "$dir/next/merged"
	mv "$dir/next" "$dir/stepped"
}

# olddefconfig (alldefconfig) of the base's shapes (merged fragments) into
# jumped/.
shapes_jumped_lines() {
	local mode=$1 shape dir
	dir=$(shapes_dir)
	shift
	for shape in "$@"; do
		mkdir -p "$dir/jumped/$shape"
		shapes_lines "$mode" "$dir/base/$shape" "$dir/jumped/$shape"
	done
}

# The fragment merged onto the previous commit's result (at the base: onto
# the pin, as made there) and onto the pin, each made with alldefconfig.
shapes_carry_fragments() {
	local is_base=$1 dir seed
	dir=$(shapes_dir)
	if [ "$is_base" = 1 ]; then
		cp "$dir"/base/merged/* "$dir/next/merged/"
	else
		while read -r seed; do
			printf '%s %s %s\n' "$dir/next/merged/$seed" "$dir/stepped/fragment/$seed" "$dir/base/fragment/$seed"
		done < <(shapes_seeds) | shapes_merge
	fi
	{
		shapes_lines alldefconfig "$dir/next/merged" "$dir/next/fragment"
		if [ "$is_base" = 0 ]; then
			mkdir -p "$dir/jumped/fragment"
			shapes_lines alldefconfig "$dir/base/merged" "$dir/jumped/fragment"
		fi
	} >"$dir/list"
	shapes_batch "$dir/list"
	# What a tester who merges the fragment onto their last .config had
	# at the base: a full config, which names what EXT3_FS selected.
	[ "$is_base" = 0 ] || cp -R "$dir/next/fragment" "$dir/base/fragment-full"
}

# "PATH<TAB>SHAPE SEED<TAB>SHAPE WAY" for each config of the ways given
# (packaged: the packaged forms).
shapes_index() {
	local dir way shape seed
	dir=$(shapes_dir)
	for way in "$@"; do
		for shape in "${SHAPES[@]}"; do
			while read -r seed; do
				printf '%s/%s/%s/%s\t%s %s\t%s %s\n' "$dir" "$way" "$shape" "$seed" "$shape" "$seed" "$shape" "$way"
			done < <(shapes_seeds)
		done
	done
}

# The ext4 family of the configs of index $4, as the tree whose build tests
# names $2 (fs, acl, sec) builds it: each old/new name pair folded into the
# new name, with the value of the name the tree tests; only what is on.
# emit: "KEY<TAB>values"; judge: against oracle $3, each option one has
# and the other lacks, "LABEL: + line" (only here) or "LABEL: - line"
# (only in the packaged form), "<TAB>SEED".
shapes_family() {
	local mode=$1 used=$2 oracle=$3 index=$4 files
	mapfile -t files < <(cut -f1 "$index")
	awk -v mode="$mode" -v used="$used" -v new="$SHAPES_NEW_NAMES" -v re="^(# )?${CARRY_FAMILY}[= ]" '
	function fold(   i, v) {
		for (i = 1; i <= 3; i++) {
			v = (u[i] in val) ? val[u[i]] : "n"
			delete val[old[i]]
			val[nw[i]] = v
		}
	}
	function flush(   s, on, n, a, i, seed, theirs) {
		if (cur == "")
			return
		fold()
		on = ""
		for (s in val)
			if (val[s] != "n")
				on = on " " s "=" val[s]
		split("", val)
		if (mode == "emit") {
			print key[cur] "\t" on
			return
		}
		if (!(key[cur] in oracle)) {
			print "no packaged form for " key[cur] > "/dev/stderr"
			cur = ""
			exit 2
		}
		split(key[cur], a, " ")
		seed = a[2]
		split("", ours)
		n = split(on, a, " ")
		for (i = 1; i <= n; i++)
			ours[a[i]] = 1
		split("", theirs)
		n = split(oracle[key[cur]], a, " ")
		for (i = 1; i <= n; i++)
			theirs[a[i]] = 1
		for (s in ours)
			if (!(s in theirs))
				print label[cur] ": + " s "\t" seed
		for (s in theirs)
			if (!(s in ours))
				print label[cur] ": - " s "\t" seed
	}
	BEGIN {
		FS = "\t"
		split(used, u, " ")
		split(new, nw, " ")
		for (i = 1; i <= 3; i++) {
			old[i] = nw[i]
			sub(/EXT4_FS/, "EXT4DEV_FS", old[i])
		}
	}
	FILENAME == ARGV[1] { oracle[$1] = $2; next }
	FILENAME == ARGV[2] { key[$1] = $2; label[$1] = $3; next }
	FNR == 1 { flush(); cur = FILENAME }
	$0 ~ re {
		if ($0 ~ /^# /) {
			split($0, w, " ")
			val[w[2]] = "n"
		} else {
			val[substr($0, 1, index($0, "=") - 1)] = substr($0, index($0, "=") + 1)
		}
	}
	END { flush() }
	' "$oracle" "$index" "${files[@]}"
}

# The ext4dev type both ways, at a commit that has it: a shape whose base
# form names an ext4dev option (EXT4DEV_FS, or its ACL or security label
# option, set) keeps the type, which its system mounts; any other shape,
# one of the ext4 era, does not get it.  The base form is what the tester
# carries: the shape itself, but for a fragment merged onto the previous
# result (stepped), the full config it made at the base.  The packaged forms cannot say
# this (the packaged tree has no such type): "LABEL: the ext4dev type is
# on|off ...<TAB>SEED" for each shape that breaks it.
shapes_type_findings() {
	awk -F '\t' -v dir="$(shapes_dir)" '
	# A file that cannot be read (a state kept by older tooling) is no
	# verdict: exit 2, which shapes_judge reads as "cannot judge".
	function grep_file(f, re,   line, found, rc) {
		found = 0
		while ((rc = (getline line <f)) > 0)
			if (line ~ re)
				found = 1
		if (rc < 0) {
			print "cannot read " f > "/dev/stderr"
			exit 2
		}
		close(f)
		return found
	}
	{
		split($2, k, " ")
		form = ($3 == "fragment stepped") ? "fragment-full" : k[1]
		era = grep_file(dir "/base/" form "/" k[2], "^CONFIG_EXT4DEV_FS(_POSIX_ACL|_SECURITY)?=[ym]$")
		on = grep_file($1, "^CONFIG_EXT4DEV_COMPAT=y$")
		if (era && !on)
			print $3 ": the ext4dev type is off, though the base form names an ext4dev option\t" k[2]
		if (!era && on)
			print $3 ": the ext4dev type is on, though the base form names no ext4dev option\t" k[2]
	}' "$(shapes_dir)/index"
}

# Each difference from the packaged forms at the checked-out commit, once,
# with how many seeds show it and the first few: "LINE<TAB>N<TAB>SEEDS".
shapes_differences() {
	local dir used compat
	dir=$(shapes_dir)
	used=$(used_symbols)
	compat=$(declared compat)
	{
		shapes_family judge "$used" "$dir/oracle.tsv" "$dir/index"
		[ "$compat" != ext4dev ] || shapes_type_findings
	} >"$dir/differences.all"
	awk -F '\t' '{ n[$1]++; if (n[$1] <= 6) s[$1] = s[$1] (n[$1] > 1 ? " " : "") $2 }
		END { for (l in n) print l "\t" n[l] "\t" s[l] }' "$dir/differences.all" | sort
}

# Judge the ways given at the checked-out commit: writes what the point
# says (shapes_said) and its findings (shapes_verdict); returns 1 if a
# difference is not listed, 2 if it cannot judge.
shapes_judge() {
	local dir step line count seeds listed=0 bad=0 total rc
	dir=$(shapes_dir)
	# A lookup that fails ends this job (shapes_step runs it as one) with
	# bisect-tests/run's 128, which shapes_step reads as "cannot judge".
	step=$(declared step)
	total=$(shapes_seeds | wc -l)
	shapes_index "$@" >"$dir/index"
	# A job of its own, whose status is read: set -e holds in it.
	rc=$(exit_status_of "$dir/differences" shapes_differences)
	[ "$rc" = 0 ] || return 2
	: >"$dir/findings"
	while IFS=$'\t' read -r line count seeds; do
		compat_lookup config-shape "$SHAPES_VARIANT" "$step" "$line"
		if [ "$COMPAT_LISTED" = yes ]; then
			listed=$((listed + 1))
			continue
		fi
		shapes_finding "$line" "$count" "$total" "$seeds" >>"$dir/findings"
		bad=1
	done <"$dir/differences"
	printf '; %s random ext4-family configs, their minimal forms and fragments have what the packaged tree makes of them%s' \
		"$total" "$([ "$listed" = 0 ] || echo " but for $listed listed differences")" >"$dir/summary"
	return "$bad"
}

# One unlisted difference, said with the seeds that show it and the first
# one's minimal form at the base (what a tester would have kept).
shapes_finding() {
	local line=$1 count=$2 total=$3 seeds=$4 what
	case "$line" in
	*": - "*) what="lose it, against what the packaged tree makes of their packaged form" ;;
	*": + "*) what="gain it, against what the packaged tree makes of their packaged form" ;;
	*) what="do" ;;
	esac
	printf '%s: %s of %s seeds %s (not in compat-differences); KCONFIG_SEED %s; seed %s'\''s minimal form at the base: %s\n' \
		"$line" "$count" "$total" "$what" "${seeds// /, }" "${seeds%% *}" "$(shapes_base_said "${seeds%% *}")"
}

# A seed's minimal form at the base, in the ext4 family, on one line.
shapes_base_said() {
	carry_family "$(shapes_dir)/base/minimal/$1" | paste -sd ' ' -
}

# --- The point ----------------------------------------------------------------

shapes_pack() {
	local dir
	dir=$(shapes_dir)
	# Not stepped/minimal: the minimal forms' expansion, judged here only.
	tar -C "$dir" -cf - base stepped/{random,saved,fragment} oracle.tsv | xz -1 >"$dir/state.tar.xz.tmp" &&
		mv "$dir/state.tar.xz.tmp" "$dir/state.tar.xz"
}

shapes_unpack() {
	local dir
	dir=$(shapes_dir)
	[ -s "$dir/state.tar.xz" ] || return 1
	rm -rf "$dir/base" "$dir/stepped" "$dir/oracle.tsv"
	tar -C "$dir" -xJf "$dir/state.tar.xz"
}

# Variant $1's shapes at the checked-out commit, carried from the base or,
# at the base (is_base $2 = 1), made there; shapes_verdict then says
# whether one gains or loses an unlisted option.  Dies when it cannot
# judge: a setup problem is no verdict.
shapes_step() {
	local variant=$1 is_base=$2 dir rc=0 ways=(stepped jumped) start=$SECONDS
	SHAPES_VARIANT=$variant
	SHAPES_DIR=$(carry_dir)/$(variant_source "$variant")/shapes
	dir=$SHAPES_DIR
	mkdir -p "$dir"
	# The memo holds configs of this tree only.
	rm -f "$dir/findings" "$dir/summary" "$dir/memo"
	kconfig_env x86_64 arch/x86/configs/x86_64_defconfig
	if [ "$is_base" = 1 ]; then
		# At the base both ways are the same: the shapes made there.
		ways=(stepped)
		shapes_or_die "cannot make the config shapes at the base" shapes_make_base
	else
		shapes_or_die "no config shapes kept from the previous commit ($dir/state.tar.xz)" shapes_unpack
	fi
	shapes_or_die "cannot carry the config shapes here" shapes_carry "$is_base"
	if [ "$is_base" = 1 ]; then
		shapes_or_die "kconfig-batch cannot be trusted with the config shapes" shapes_same_as_make
		shapes_or_die "cannot make the config shapes' packaged forms" shapes_oracle
	fi
	shapes_or_die "cannot keep the config shapes' state" shapes_pack
	rc=$(exit_status_of /dev/null shapes_judge "${ways[@]}")
	[ "$rc" -lt 2 ] || die "$variant: cannot compare the config shapes with their packaged forms"
	step "config shapes: $(wc -l <"$dir/index") configs judged in $((SECONDS - start))s (under $dir)"
}

# Run one stage of shapes_step ("$@") as a job of its own (exit_status_of),
# so that set -e holds in it; when it fails, die with "<variant>: $1".
shapes_or_die() {
	local what=$1 rc
	shift
	rc=$(exit_status_of /dev/null "$@")
	[ "$rc" = 0 ] || die "$SHAPES_VARIANT: $what"
}

# "bad" when the shapes judged last (shapes_step) gain or lose an unlisted
# option, else "good": a lookup, so that no caller tests shapes_step in a
# condition, where set -e would not hold.
shapes_verdict() {
	local dir
	dir=$(shapes_dir)
	if [ -s "$dir/findings" ]; then echo bad; else echo good; fi
}

# What the point's line says: the summary, or each finding on a line of
# its own.
shapes_said() {
	local dir
	dir=$(shapes_dir)
	if [ -s "$dir/findings" ]; then
		printf '\n'
		cat "$dir/findings"
	else
		cat "$dir/summary" 2>/dev/null || true
	fi
}
