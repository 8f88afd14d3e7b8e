# shellcheck shell=bash
# The builds of linux-next's gate, scaled to this machine (kbranch check):
# the series' code rebuilt in several configs and architectures, each new
# warning judged by its identity against the commit it is compared with.
#
# A kind is a build dir with its own config, kept between runs so that
# each commit costs an incremental build.  How a commit is judged: bring
# the build dir to the "before" commit, then to the commit, and read from
# that incremental log which targets the commit rebuilt (kbuild rebuilds
# exactly what the change reaches, through fixdep's per-file config and
# header dependencies); a target it did not rebuild has the same inputs at
# both, so the same warnings.  Those targets are then rebuilt at both ends
# and their warnings compared by (file, line text, message): moved code
# is not new, and a count could hide one warning traded for another.

# kind  arch  cross-compile prefix  config  judged with  commits
GATE_KINDS='w1 x86_64 - variant:builtin W=1 every
sparse x86_64 - variant:builtin C=2 every
allmod x86_64 - allmodconfig - every
arm64 arm64 aarch64-linux-gnu- defconfig - tip
powerpc powerpc powerpc64-linux-gnu- ppc64_defconfig - tip
arm arm arm-linux-gnueabihf- multi_v7_defconfig - tip'

# What linux-next's allmodconfig keeps, less what stops a build at the
# first warning: the gate wants every warning, each judged on its own.
GATE_ALLCONFIG='CONFIG_WERROR=n
CONFIG_DEBUG_INFO_NONE=y'

# One field of a kind's row: field KIND NAME.
gate_field() {
	local kind=$1 name=$2 k arch cross config flags at
	while read -r k arch cross config flags at; do
		[ "$k" = "$kind" ] || continue
		case "$name" in
		arch) printf '%s\n' "$arch" ;;
		cross) [ "$cross" = - ] || printf '%s\n' "$cross" ;;
		config) printf '%s\n' "$config" ;;
		flags) [ "$flags" = - ] || printf '%s\n' "$flags" ;;
		at) printf '%s\n' "$at" ;;
		esac
		return 0
	done <<<"$GATE_KINDS"
	return 1
}

gate_kinds() {
	cut -d' ' -f1 <<<"$GATE_KINDS"
}

# The variant kinds share bisect-tests' builtin build dir (a cold build
# saved); every other kind has a build dir of its own.
gate_dir() {
	case "$(gate_field "$1" config)" in
	variant:*) kbuild_dir ;;
	*) printf '%s/build/check-%s\n' "$KBRANCH_WORK" "$1" ;;
	esac
}

gate_make() {
	local kind=$1 dir arch cross shared
	shift
	dir=$(gate_dir "$kind")
	shared=$(kbuild_dir)
	if [ "$dir" = "$shared" ]; then
		kbuild_make "$@"
		return
	fi
	arch=$(gate_field "$kind" arch)
	cross=$(gate_field "$kind" cross)
	command -v "${cross}gcc" >/dev/null || { echo "kbranch: compiler ${cross}gcc not found (Debian package: gcc-${cross%-})"; return 2; }
	compiler_choose "$cross"
	mkdir -p "$dir"
	flock "$dir.lock" make -C "$KTREE" O="$dir" ARCH="$arch" ${cross:+CROSS_COMPILE="$cross"} \
		CC="$CHOSEN_CC" HOSTCC="$CHOSEN_HOSTCC" -j"$(nproc)" "$@"
}

# Configure the checked-out commit for a kind.  A judgement moves between
# two commits four times, and configuring takes 7 to 13 s: within a run,
# a commit's config is made once and copied back after (make's syncconfig
# follows a .config newer than its own files).  kbranch check forgets
# them at its start: other commands reconfigure, fragments change.
gate_configure() {
	local kind=$1 config head memo dir saved
	dir=$(gate_dir "$kind")
	memo=$dir.configured-at
	head=$(kgit rev-parse HEAD)
	[ "$(cat "$memo" 2>/dev/null)" != "$head" ] || return 0
	rm -f "$memo"
	saved=$KBRANCH_WORK/check/configs/$(basename "$dir")-$head.config
	if [ -f "$saved" ]; then
		cp "$saved" "$dir/.config"
	else
		config=$(gate_field "$kind" config)
		case "$config" in
		variant:*) kbuild_configure ;;
		allmodconfig)
			printf '%s\n' "$GATE_ALLCONFIG" >"$KBRANCH_WORK/check/allmod.config"
			gate_make "$kind" KCONFIG_ALLCONFIG="$KBRANCH_WORK/check/allmod.config" allmodconfig
			;;
		*) gate_make "$kind" "$config" ;;
		esac
		mkdir -p "$(dirname "$saved")"
		cp "$dir/.config" "$saved"
	fi
	echo "$head" >"$memo"
}

gate_forget_configs() {
	local kind
	rm -rf "$KBRANCH_WORK/check/configs"
	for kind in $(gate_kinds); do
		rm -f "$(gate_dir "$kind").configured-at"
	done
}

# The code the series touches, as directories: where it changes C files
# or headers.  A directory whose only change is a Makefile or Kconfig
# (fs/) is proven by the variants' builds, not rebuilt whole here.
series_code_dirs() {
	kgit diff --name-only "$1" "$2" -- '*.c' '*.h' | grep -vE '^(tools|Documentation)/' |
		xargs -r -n1 dirname | sort -u
}

# What make is asked to build: the kernel dirs; a dir under scripts/ is
# built by make's own prepare step, where the config has it.
make_targets() {
	local dir
	for dir in "$@"; do
		case "$dir" in scripts/*) ;; *) printf '%s/\n' "$dir" ;; esac
	done
}

# The targets an incremental build log shows compiled, within the dirs.
rebuilt_targets() {
	local log=$1 dir
	shift
	sed -nE 's/^  (CC|CC \[M\]|HOSTCC|AS|AS \[M\]) +([^ ]+)$/\2/p' "$log" | while read -r target; do
		for dir in "$@"; do
			case "$target" in "$dir"/*) printf '%s\n' "$target" ;; esac
		done
	done | sort -u
}

# Warnings and errors of a compiler or sphinx log as identities: "file:
# severity: message  [line: text]", with the line's text read from the
# checked-out tree (line numbers move, the text they point at does not).
# Sphinx calls what stops a document's parse SEVERE (before 4.0) or
# CRITICAL, and gives a whole document's warnings no line ("document
# isn't included in any toctree"): a file with no line has no text.
identities() {
	local log=$1 severity='(warning|error|fatal error|WARNING|ERROR|SEVERE|CRITICAL)'
	sed -nE -e "s#^(\\.\\./)*($KTREE/)?([^ :]+):([0-9]+):([0-9]+:)? $severity: (.*)\$#\\3\\t\\4\\t\\6: \\7#p;t" \
		-e "s#^(\\.\\./)*($KTREE/)?([^ :]*/[^ :]*\\.[A-Za-z]+):(:)? $severity: (.*)\$#\\3\\t-\\t\\5: \\6#p" "$log" |
		while IFS=$'\t' read -r file line message; do
			printf '%s: %s  [line: %s]\n' "$file" "$message" \
				"$([ "$line" = - ] || sed -n "${line}{s/^[[:space:]]*//;p;q}" "$KTREE/$file" 2>/dev/null)"
		done | sort -u
}

# Bring a kind's build dir to a commit: configure, then a plain build of
# the dirs; the log says what the change from the last state rebuilt.
# This, gate_rebuild and gate_configure run as a job of their own
# (exit_status_of, gate_judge), so that set -e holds in them and their
# failure is read.
gate_build_at() {
	local kind=$1 commit=$2 log=$3 targets=()
	kgit checkout -q --detach "$commit"
	mapfile -t targets < <(make_targets "${GATE_DIRS[@]}")
	gate_configure "$kind" >"$log" 2>&1
	gate_make "$kind" "${targets[@]}" >>"$log" 2>&1
}

# Rebuild exactly these targets at the checked-out commit, with the kind's
# flags; the log holds only what this build printed.  W=1 and C=2 are
# given the objects themselves (a dir target would redo the whole dir);
# C=2 runs sparse on them without recompiling.
gate_rebuild() {
	local kind=$1 log=$2 flags targets=() objs=() dir
	shift 2
	flags=$(gate_field "$kind" flags)
	dir=$(gate_dir "$kind")
	gate_configure "$kind" >"$log.config" 2>&1
	mapfile -t objs < <(printf '%s\n' "$@" | grep '\.o$')
	case "$flags" in
	W=1)
		[ "${#objs[@]}" -gt 0 ] || { : >"$log"; return 0; }
		(cd "$dir" && rm -f "${objs[@]}")
		gate_make "$kind" W=1 "${objs[@]}" >"$log" 2>&1
		;;
	C=2)
		[ "${#objs[@]}" -gt 0 ] || { : >"$log"; return 0; }
		gate_make "$kind" C=2 CHECK=sparse "${objs[@]}" >"$log" 2>&1
		;;
	*)
		(cd "$dir" && rm -f "$@")
		mapfile -t targets < <(make_targets "${GATE_DIRS[@]}")
		gate_make "$kind" "${targets[@]}" >"$log" 2>&1
		;;
	esac
}

# Judge a kind at a commit against another (its parent, or the range's
# base for the tip-only kinds).  Writes <out>.before, .all (the warnings of
# the rebuilt targets at each end) and .new, with the logs beside them, and
# prints what is new.  GATE_DIRS: the dirs of the series' code.
gate_judge() {
	local kind=$1 before=$2 commit=$3 out=$4 rebuilt=() failed_before=0 failed=0 shared rc
	# What the commit rebuilds is the build dir's, not the kind's: W=1 and
	# sparse share builtin's, and the second of them reads the first's.
	shared=$(dirname "$out")/${before:0:12}-${commit:0:12}-$(basename "$(gate_dir "$kind")")-$GATE_DIRS_KEY.rebuilt
	if [ -f "$shared" ]; then
		mapfile -t rebuilt < <(grep . "$shared")
		: >"$out.build.log"
	else
		rc=$(exit_status_of /dev/null gate_build_at "$kind" "$before" "$out.build-before.log")
		[ "$rc" = 0 ] || failed_before=1
		rc=$(exit_status_of /dev/null gate_build_at "$kind" "$commit" "$out.build.log")
		[ "$rc" = 0 ] || failed=1
		mapfile -t rebuilt < <(rebuilt_targets "$out.build.log" "${GATE_DIRS[@]}")
		if [ "$failed" -eq 0 ] && [ "$failed_before" -eq 0 ]; then
			printf '%s\n' "${rebuilt[@]}" | grep . >"$shared" || true
		fi
	fi
	: >"$out.before"
	: >"$out.all"
	if [ "${#rebuilt[@]}" -gt 0 ]; then
		kgit checkout -q --detach "$before"
		rc=$(exit_status_of /dev/null gate_rebuild "$kind" "$out.rebuild-before.log" "${rebuilt[@]}")
		[ "$rc" = 0 ] || failed_before=1
		identities "$out.rebuild-before.log" >"$out.before"
		kgit checkout -q --detach "$commit"
		rc=$(exit_status_of /dev/null gate_rebuild "$kind" "$out.rebuild.log" "${rebuilt[@]}")
		[ "$rc" = 0 ] || failed=1
		identities "$out.rebuild.log" >"$out.all"
	fi
	comm -13 "$out.before" "$out.all" >"$out.new"
	# A build that fails is never clean, even with no new compiler message
	# (a link or Makefile error, a missing cross compiler): it proved nothing.
	if [ "$failed" -eq 1 ]; then
		printf 'BUILD-FAILED: make fails here%s (log: %s)\n' \
			"$([ "$failed_before" -eq 0 ] || echo " and at $(kgit rev-parse --short "$before") too")" \
			"$out.build.log" >>"$out.new"
	fi
	cat "$out.new"
}

# The documents of a commit's change that the docs build reads.
changed_docs() {
	kgit diff --name-only "$1" "$2" -- 'Documentation/admin-guide/*.rst'
}

# docs_make, its output (both streams) in log $1: what docs_judge runs as
# a job of its own (exit_status_of), whose status it reads.
docs_make_into() {
	docs_make >"$1" 2>&1
}

docs_make() {
	local dir=$KBRANCH_WORK/build/check-docs
	command -v sphinx-build >/dev/null || { echo "kbranch: sphinx-build not found (Debian package: python3-sphinx)"; return 2; }
	mkdir -p "$dir"
	flock "$dir.lock" make -C "$KTREE" O="$dir" SPHINXDIRS=admin-guide htmldocs
}

# The documentation build, judged the same way: sphinx re-reads only the
# documents that changed, so their warnings are compared, at both ends.
# A build that fails at the commit compared with leaves nothing to compare
# with: the point is not clean, it was not judged.
docs_judge() {
	local before=$1 commit=$2 out=$3 docs=() doc rc ids
	mapfile -t docs < <(changed_docs "$before" "$commit")
	kgit checkout -q --detach "$before"
	# -c: a document the commit adds is not made here (it would stop the
	# checkout of the commit).
	(cd "$KTREE" && touch -c "${docs[@]}")
	rc=$(exit_status_of /dev/null docs_make_into "$out.rebuild-before.log")
	if [ "$rc" != 0 ]; then
		printf 'BUILD-FAILED: make htmldocs fails at %s, the commit compared with: nothing was judged (log: %s)\n' \
			"$(kgit rev-parse --short "$before")" "$out.rebuild-before.log" | tee "$out.new"
		return 0
	fi
	kgit checkout -q --detach "$commit"
	rc=$(exit_status_of /dev/null docs_make_into "$out.rebuild.log")
	[ "$rc" = 0 ] || { echo "BUILD-FAILED: make htmldocs fails (log: $out.rebuild.log)" | tee "$out.new"; return 0; }
	# Read first, not in the pipelines whose failure is ignored.
	ids=$(identities "$out.rebuild-before.log")
	for doc in "${docs[@]}"; do
		grep -F "$doc: " <<<"$ids" || true
	done | sort -u >"$out.before"
	ids=$(identities "$out.rebuild.log")
	for doc in "${docs[@]}"; do
		grep -F "$doc: " <<<"$ids" || true
	done | sort -u >"$out.all"
	comm -13 "$out.before" "$out.all" | tee "$out.new"
}
