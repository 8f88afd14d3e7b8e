# shellcheck shell=bash
# summary: Kconfig only: every defconfig the series touches, made at the tip and made at ext4dev-base then carried there, equals in the ext4 family what packaged/<version> makes of it, and the tip's file made at each commit between and carried to the tip equals the tip's result (TAP); [--branch NAME] [--arch ARCH]...

# For each defconfig, with the ARCH its path names: the packaged tree's
# result (the reference), the tip's own, and the base's result taken to the
# tip with olddefconfig, as a tester who made it at the base gets.  Both tip
# results must equal the reference, line for line in the ext4 family
# (carry_family).  And the tip's file (the defconfig of the ext4 era) made
# at each commit between the base and the tip, then taken to the tip, must
# equal the tip's own result: what a tester who made it mid-series keeps
# that a fresh config lacks is the series' residue (v3's patches 2 and 3
# left the ext4dev type on in every config made there).  Allowed: lines
# bisect-tests/compat-differences lists as "defconfig" for step 4 ("tip: +
# line", "from the base: - line", "made at patch K: + line").
#
# No build: Kconfig only, through lib/kconfig.sh (make once per ARCH, then
# kconfig-batch, one parse per ARCH and role), one ARCH per core.  The
# defconfig make made is made last in its batch, after the others, and
# must equal make's result.  Results are kept by the trees they come from:
# a re-run makes only what a changed tree needs (the tip's and the carried
# ones, after a change to the series).

# The commits between the base and the tip, oldest first: patch 1, 2, ...
commits_between() {
	kgit rev-list --reverse "$KB_BASE_TAG..$DEFCONFIG_BRANCH^"
}

# The roles, in the order they run: made@C makes the tip's file at series
# commit C, carried@C takes that result to the tip.
defconfig_roles() {
	local c
	printf '%s\n' packaged base tip carried
	for c in $(commits_between); do
		printf 'made@%s\ncarried@%s\n' "$c" "$c"
	done
}

defconfig_dir() {
	printf '%s/defconfigs/%s\n' "$KBRANCH_WORK" "$DEFCONFIG_TOOLS"
}

# The defconfigs the series touches, as "KEY path" lines: KEY is the ARCH,
# or um.SUBARCH for um, whose Kconfig reads SUBARCH (the defconfig's name
# says which): one conf environment per KEY.
series_defconfigs() {
	local path srcarch name key
	kgit diff --name-only "$KB_BASE_TAG^{commit}" "$DEFCONFIG_BRANCH" -- ':(glob)arch/*/configs/**/*defconfig' |
		while read -r path; do
			srcarch=$(cut -d/ -f2 <<<"$path")
			name=$(basename "$path")
			case "$srcarch/$name" in
			x86/i386_defconfig) key=i386 ;;
			x86/*) key=x86_64 ;;
			um/*) key=um.$(basename "$path" _defconfig) ;;
			*) key=$srcarch ;;
			esac
			printf '%s %s\n' "$key" "$path"
		done
}

# The first defconfig of each KEY: the one make makes.
first_of_each_key() {
	awk '!seen[$1]++' "$1"
}

# Where a role's results live: keyed by the trees they were made from (and
# the toolchain, in defconfig_dir), so a result is made once.  Kconfig's
# answer depends only on the tree, the defconfig and the environment.
role_dir() {
	local role=$1 key
	case "$role" in
	packaged) key=$(kgit rev-parse "packaged/$DEFCONFIG_VERSION^{tree}") ;;
	base) key=$(kgit rev-parse "$KB_BASE_TAG^{tree}") ;;
	tip) key=$(kgit rev-parse "$DEFCONFIG_BRANCH^{tree}") ;;
	carried) key=$(kgit rev-parse "$KB_BASE_TAG^{tree}")-$(kgit rev-parse "$DEFCONFIG_BRANCH^{tree}") ;;
	made@* | carried@*) key=$(kgit rev-parse "${role#*@}^{tree}")-$(kgit rev-parse "$DEFCONFIG_BRANCH^{tree}") ;;
	esac
	case "$role" in
	carried@*) role='carried-made' ;;
	made@*) role=made ;;
	esac
	printf '%s/results/%s/%s\n' "$(defconfig_dir)" "$role" "$key"
}

# The listed defconfigs a role has no result for yet.
missing_results() {
	local dir=$1 arch path
	while read -r arch path; do
		[ -s "$dir/${path//\//_}" ] || printf '%s %s\n' "$arch" "$path"
	done <"$2"
}

# Where a role's inputs are: the results a carrying role takes to the tip,
# the tip's files a made@ role makes; "-" for the others (the tree's).
role_input_dir() {
	case "$1" in
	carried) role_dir base ;;
	carried@*) role_dir "made@${1#*@}" ;;
	made@*) printf '%s/tip-files\n' "$(defconfig_dir)" ;;
	*) echo - ;;
	esac
}

# The tip's file of each listed defconfig, for the made@ roles.
export_tip_files() {
	local dir arch path
	dir=$(role_input_dir made@)
	rm -rf "$dir"
	mkdir -p "$dir"
	while read -r arch path; do
		kgit show "$DEFCONFIG_BRANCH:$path" >"$dir/${path//\//_}"
	done <"$1"
}

# One role's missing results: one kconfig-batch per KEY, one per core at a
# time (xargs runs each in a bash of its own: the functions are exported).
run_role() {
	local role=$1 todo=$2 dir=$3 base_dir=$4
	export KTREE KBRANCH_WORK KB_REPO KCONFIG_MAKEFILE KCONFIG_KEY KCONFIG_USE
	export -f kgit kconfig_dir kconfig_tools kconfig_arch_dir kconfig_batch_bin kconfig_batch kconfig_env_srctree batch_lines batch_key exit_status_of
	mkdir -p "$dir"
	# set -euo pipefail in each: a bash of xargs' own does not have it.
	cut -d' ' -f1 "$todo" | sort -u |
		xargs -P "$(nproc)" -I '{}' bash -c 'set -euo pipefail; batch_key "$@"' _ "$role" "$dir" "$base_dir" '{}' "$todo" ||
		die "$role: some Kconfig runs failed (logs: $dir/*.log)"
}

# kconfig-batch's input for one KEY: "MODE IN OUT" lines, in reverse list
# order, so that the defconfig make made comes last.
batch_lines() {
	local role=$1 dir=$2 base_dir=$3 key=$4 todo=$5 k path name
	tac "$todo" | while read -r k path; do
		[ "$k" = "$key" ] || continue
		name=${path//\//_}
		case "$role" in
		carried | carried@*) printf 'olddefconfig %s %s\n' "$base_dir/$name" "$dir/$name" ;;
		made@*) printf 'defconfig %s %s\n' "$base_dir/$name" "$dir/$name" ;;
		*) printf 'defconfig %s %s\n' "$KTREE/$path" "$dir/$name" ;;
		esac
	done
}

batch_key() {
	local role=$1 dir=$2 key=$4 rc
	# kconfig_batch as a job of its own, whose status is read: set -e
	# holds in it.
	rc=$(batch_lines "$@" | exit_status_of /dev/null kconfig_batch "$key" "$dir/$key.log")
	[ "$rc" = 0 ] ||
		{ echo "kbranch: $role $key: kconfig-batch failed (log: $dir/$key.log)" >&2; return 255; }
}

# Lines of a tip result that differ from the reference and are not listed;
# judged as the end of the series (step 4), where the compat options exist.
defconfig_differences() {
	family_differences defconfig 4 "$@"
}

parse_defconfig_args() {
	ARCHES=()
	DEFCONFIG_BRANCH=$KBRANCH_BRANCH
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--branch) [ "$#" -ge 2 ] || die "--branch needs a name"; DEFCONFIG_BRANCH=$2; shift 2 ;;
		--arch) [ "$#" -ge 2 ] || die "--arch needs a name"; ARCHES+=("$2"); shift 2 ;;
		*) die "defconfigs: unknown argument '$1' (usage: kbranch defconfigs [--branch NAME] [--arch ARCH]...)" ;;
		esac
	done
}

# The commit a role's Kconfig runs happen at.
role_commit() {
	case "$1" in
	packaged) kgit rev-parse "packaged/$DEFCONFIG_VERSION^{commit}" ;;
	base) kgit rev-parse "$KB_BASE_TAG^{commit}" ;;
	tip | carried | carried@*) kgit rev-parse "$DEFCONFIG_BRANCH^{commit}" ;;
	made@*) kgit rev-parse "${1#*@}^{commit}" ;;
	esac
}

# Each KEY's conf environment, recorded through make at the packaged tree,
# one KEY per core.
ensure_envs() {
	local list=$1 commit head keys
	kconfig_build
	# Looked up first, then tested: set -e does not hold in a function
	# called in a condition.
	commit=$(role_commit packaged)
	head=$(kgit rev-parse HEAD)
	[ "$head" = "$commit" ] || kgit checkout -q --detach "$commit"
	export KTREE KBRANCH_WORK KB_REPO KCONFIG_MAKEFILE KCONFIG_KEY KCONFIG_USE
	export -f kgit die kconfig_dir kconfig_tools kconfig_arch_dir kconfig_make_args kconfig_build kconfig_batch_bin kconfig_batch kconfig_env_srctree kconfig_env exit_status_of
	keys=$(first_of_each_key "$list")
	xargs -P "$(nproc)" -L 1 bash -c 'kconfig_env "$@"' _ <<<"$keys" ||
		die "defconfigs: recording conf's environment failed (see above)"
}

# The tip's two results for each defconfig against the packaged one, and
# the results carried from each commit between against the tip's.
judge_defconfigs() {
	local list=$1 arch path name n=0 failed=0 bad tip carried packaged c k
	tip=$(role_dir tip) carried=$(role_dir carried) packaged=$(role_dir packaged)
	while read -r arch path; do
		n=$((n + 1))
		name=${path//\//_}
		bad=$({
			defconfig_differences tip "$tip/$name" "$packaged/$name"
			defconfig_differences "from the base" "$carried/$name" "$packaged/$name"
			k=0
			for c in $(commits_between); do
				k=$((k + 1))
				defconfig_differences "made at patch $k" "$(role_dir "carried@$c")/$name" "$tip/$name"
			done
		})
		if [ -z "$bad" ]; then
			printf 'ok %d - %s (%s) equals the packaged tree'\''s result, made at the tip and from the base; made at each earlier commit and carried to the tip, it equals the tip'\''s\n' "$n" "$path" "$(kconfig_make_args "$arch" | paste -sd ' ' -)"
		else
			printf 'not ok %d - %s (%s) differs from the packaged tree'\''s result, not in compat-differences:\n' "$n" "$path" "$(kconfig_make_args "$arch" | paste -sd ' ' -)"
			printf '%s\n' "$bad" | sed 's/^/# /'
			failed=$((failed + 1))
		fi
	done <"$list"
	step "defconfigs: $((n - failed)) of $n defconfigs equal the packaged tree's result"
	[ "$failed" -eq 0 ]
}

run() {
	# shellcheck source=branch-scripts/lib/carry.sh
	. "$KB_REPO/branch-scripts/lib/carry.sh"
	# shellcheck source=branch-scripts/lib/kconfig.sh
	. "$KB_REPO/branch-scripts/lib/kconfig.sh"
	parse_defconfig_args "$@"
	require_tree
	take_lock
	require_clean_tree
	kgit rev-parse -q --verify "refs/heads/$DEFCONFIG_BRANCH" >/dev/null ||
		die "no branch $DEFCONFIG_BRANCH in $KTREE; run 'kbranch apply' first"
	local list todo role dir arch path commit head made packaged
	# Every result depends on the compiler and linker Kconfig probes.
	DEFCONFIG_TOOLS=$(kconfig_tools)
	KCONFIG_USE=defconfigs
	DEFCONFIG_VERSION=$(base_version)
	mkdir -p "$(defconfig_dir)"
	# One run per work dir (the lock): fixed names are safe.
	list=$(defconfig_dir)/list
	todo=$(defconfig_dir)/todo
	series_defconfigs | { if [ "${#ARCHES[@]}" -gt 0 ]; then grep -E "^($(IFS='|'; echo "${ARCHES[*]}"))[ .]" || true; else cat; fi; } >"$list"
	[ -s "$list" ] || die "defconfigs: the series touches no defconfig${ARCHES:+ of ${ARCHES[*]}}"
	restore_head_on_exit
	echo "TAP version 13"
	echo "1..$(wc -l <"$list")"
	ensure_envs "$list"
	export_tip_files "$list"
	for role in $(defconfig_roles); do
		dir=$(role_dir "$role")
		missing_results "$dir" "$list" >"$todo"
		if [ ! -s "$todo" ]; then
			step "defconfigs: $role: all $(wc -l <"$list") results kept from an earlier run ($dir)"
			continue
		fi
		commit=$(role_commit "$role")
		head=$(kgit rev-parse HEAD)
		[ "$head" = "$commit" ] || kgit checkout -q --detach "$commit"
		step "defconfigs: $role: $(wc -l <"$todo") Kconfig runs ($dir)"
		run_role "$role" "$todo" "$dir" "$(role_input_dir "$role")"
	done
	# kconfig-batch must give what make gave: else the environment is off, or
	# a config made earlier in the same batch leaked into it.
	packaged=$(role_dir packaged)
	while read -r arch path; do
		made=$(kconfig_arch_dir "$arch")
		cmp -s "$made/make.config" "$packaged/${path//\//_}" ||
			die "defconfigs: kconfig-batch's result for $path differs from make's; see $made"
	done < <(first_of_each_key "$list")
	judge_defconfigs "$list"
}
