# shellcheck shell=bash
# Out-of-tree, incremental kernel builds: one build dir per variant, never cleaned.

# make's arguments for variant $1's build dir, one a line, for a caller
# that runs make itself to read its status: a function asked in a
# condition would run without set -e.  ARCH=x86_64 from the start:
# tinyconfig then begins 64-bit, instead of 32-bit with a later switch
# whose new defaults (ACPI, HID, ...) double the build.
kmake_args() {
	printf '%s\n' -C "$KTREE_DIR" O="$(build_dir "$1")" ARCH=x86_64 CC="$BT_CC" HOSTCC="$BT_HOSTCC" -j"$(nproc)"
}

kmake() {
	local args=()
	mapfile -t args < <(kmake_args "$1")
	shift
	make "${args[@]}" "$@"
}

# shellcheck source=bisect-tests/lib/compiler.sh
source "${BASH_SOURCE[0]%/*}/compiler.sh"

build_compilers() {
	compiler_choose ""
	BT_CC=$CHOSEN_CC
	BT_HOSTCC=$CHOSEN_HOSTCC
}

# One lock per build dir, held on fd 8 while the run works on it: runs of
# different variants may share a work dir (kbranch verify runs two at a
# time), two runs of one variant may not.  It guards the build dir and
# the run dir.  A guest (kind debian) shares its kernel's build dir and
# lock: it waits for whoever holds it, and a run of that kernel waits for
# a guest of it (the lock file names its holder), as kbranch verify
# starts them side by side.
build_lock_file() {
	printf '%s/build/%s.lock\n' "$KBRANCH_WORK" "$(kernel_of "$1")"
}

build_lock() {
	local variant=$1 kernel file holder holder_kernel
	kernel=$(kernel_of "$variant")
	file=$(build_lock_file "$variant")
	exec 8>>"$file"
	if ! flock -n 8; then
		holder=$(sed -n 1p "$file")
		holder_kernel=$(kernel_of "${holder:-none}")
		if [ "$kernel" = "$variant" ] && { [ "$holder_kernel" != "$kernel" ] || [ "$holder" = "$kernel" ]; }; then
			die_setup "another bisect-tests run is using $(build_dir "$variant")"
		fi
		say "$variant: waiting for the ${holder:-other} run, which boots the same kernel ($(build_dir "$variant"))"
		flock -w 7200 8 || die_setup "$variant: $(build_dir "$variant") stayed in use for two hours"
	fi
	printf '%s\n' "$variant" >"$file"
}

# A variant's first build starts from a copy of another variant's build dir
# when there is one: kbuild rebuilds only what the .config difference
# touches, which for these fragments is far less than a cold build.
build_seed() {
	local variant=$1 bdir other obdir lock
	bdir=$(build_dir "$variant")
	[ ! -e "$bdir" ] || return 0
	for other in $(variants_of "$(variant_field "$variant" kind)") $(variants_of built carried); do
		[ "$other" != "$variant" ] || continue
		obdir=$(build_dir "$other")
		lock=$(build_lock_file "$other")
		# Another variant's first build under way (kbranch verify runs two
		# at once): wait for it rather than build cold beside it, twice
		# the work on the same cores.
		if [ -d "$obdir" ] && [ ! -f "$obdir/vmlinux" ]; then
			say "$variant: waiting for the $other variant's first build, to start from a copy of it"
			flock -w 3600 "$lock" true 8>&- || true
		fi
		if [ -f "$obdir/vmlinux" ]; then
			say "$variant: first build, starting from a copy of the $other build"
			rm -rf "$bdir.tmp"
			# Under the other variant's lock: a run of it may be building.
			flock -w 3600 "$lock" cp -a "$obdir" "$bdir.tmp" 8>&- ||
				return 1
			build_seed_paths "$obdir" "$bdir" "$bdir.tmp"
			mv "$bdir.tmp" "$bdir"
			return 0
		fi
	done
}

# objtool's own build (tools/build) records its build dir's absolute path
# in its .cmd files: in a copy they name the other dir, so objtool would
# be rebuilt, and with it every object, which all depend on it.  Rename
# the path in the copy ($3), from the seed's ($1) to the variant's ($2).
build_seed_paths() {
	local from=$1 to=$2 copy=$3
	[ -d "$copy/tools" ] || return 0
	# shellcheck disable=SC2016 # perl's own variables
	# As before set -e held here: a path left unrenamed costs a rebuild, no more.
	grep -rlZ --include='.*.cmd' --include='.*.d' -F "$from/" "$copy/tools" |
		xargs -0 -r perl -pi -e 'BEGIN { ($f, $t) = splice(@ARGV, 0, 2) } s/\Q$f\E/$t/g' "$from/" "$to/" || true
}

build_kernel() {
	local variant=$1
	logged "$(run_dir "$variant")/build.log" kmake "$variant" all
}

build_modules_install() {
	local variant=$1 root=$2 log make_args=()
	log=$(run_dir "$variant")/build.log
	mapfile -t make_args < <(kmake_args "$variant")
	mkdir -p "${log%/*}"
	make "${make_args[@]}" INSTALL_MOD_PATH="$root" DEPMOD=/bin/true modules_install >>"$log" 2>&1 || return 1
	logged "$log" depmod -b "$root" "$(build_release "$variant")"
}

# The module variant must produce fs/ext4/<declared module>.ko.
build_check_module() {
	local variant=$1 ko
	ko=$(build_dir "$variant")/fs/ext4/$(expect module).ko
	[ -f "$ko" ] || { say "$variant: declared module $ko was not built"; return 1; }
}

build_release() {
	cat "$(build_dir "$1")/include/config/kernel.release"
}

# Paths blamed by the errors in a build log, relative to the tree; make's
# aggregate targets (directories, vmlinux, __sub-make) blame nothing.
build_error_paths() {
	local log=$1
	{
		grep -oE '^[^ :]+:[0-9]+(:[0-9]+)?: (fatal )?error:' "$log" | cut -d: -f1 || true
		grep -oE '\*\*\* \[[^]]*: [^]]+\] Error' "$log" | sed -E 's/.*: ([^]]+)\] Error/\1/' |
			grep -E '/[^/]+\.[a-z]+$|^[^/]+\.[a-z]+$' || true
		grep -oE '[^ ]+\.o: in function' "$log" | cut -d: -f1 || true
		grep -oE '\[[^] ]+\.ko\] undefined' "$log" | sed -E 's/^\[//; s/\] undefined$//' || true
	} | sed "s|^$KTREE_DIR/||; s|^\\./||" | sort -u
}

# The files the series changes, from the series itself: every commit from
# the fixture to the end of the range (build_series_end) whose subject
# bisect-tests/expectations declares, except the fixture (which is not part
# of the series).  The whole range, not HEAD's history: at patch 1 an error
# in a file that patch 3 changes is still the series' to answer for.
# Cached for the run.
build_series_files() {
	local table=$BT_DIR/expectations subjects line hash subject end
	if [ -z "${BT_SERIES_FILES+set}" ]; then
		BT_SERIES_FILES=''
		subjects=$(sed -n 's/^\([^#].*\) | .*/\1/p' "$table" | grep -v '^fixture:' || true)
		end=$(build_series_end)
		# No history to read: nothing places a failure outside the series.
		line=$(git log --format='%H %s' -n 500 "$end") || return 0
		while read -r hash subject; do
			grep -qxF -- "$subject" <<<"$subjects" || continue
			BT_SERIES_FILES+=$(git diff-tree --no-commit-id --name-only -r "$hash")$'\n'
		done <<<"$line"
		BT_SERIES_FILES=$(printf '%s' "$BT_SERIES_FILES" | grep . | sort -u || true)
	fi
	printf '%s\n' "$BT_SERIES_FILES" | grep . || true
}

# The end of the range under test: the bad end of a bisect that runs, else
# the series' branch (KBRANCH_BRANCH, default ext4-rename) when it holds
# HEAD, else HEAD.
build_series_end() {
	local end
	for end in refs/bisect/bad "refs/heads/$KBRANCH_BRANCH"; do
		git rev-parse -q --verify "$end^{commit}" >/dev/null || continue
		if git merge-base --is-ancestor HEAD "$end"; then
			printf '%s\n' "$end"
			return 0
		fi
	done
	echo HEAD
}

# The directories the series owns: those of the C files it changes (an
# error in inode.c can come from a changed acl.h), and those whose Kconfig
# or Makefile it changes (what it configures, it builds).
build_series_dirs() {
	grep -E '\.[ch]$|(^|/)(Kconfig|Makefile)$' <<<"$1" | xargs -r -n1 dirname | sort -u
}

# Is the path $1 (from an error) one of the series' files $2 or in one of
# its directories $3?  yes or no: the answers here are printed, for the
# caller to test (a function asked in a condition would run without set -e).
build_path_is_series() {
	local path=${1%.o} series=$2 dirs=$3 dir
	[[ "$path" != "${path%.*}" || "$path" == */Makefile || "$path" == */Kconfig || "$path" == Makefile ]] ||
		path=$path.c
	dir=$(dirname "$path")
	if grep -qxF -- "$path" <<<"$series" || grep -qxF -- "$dir" <<<"$dirs"; then
		echo yes
	else
		echo no
	fi
}

# The symbols a link or modpost error names (undefined, or defined twice).
build_link_symbols() {
	{
		grep -oE "(undefined reference to|multiple definition of) \`[^']+'" "$1" | sed -E "s/.*\`([^']+)'/\1/" || true
		grep -oE 'modpost: "[^"]+" \[[^]]+\] undefined' "$1" | sed -E 's/modpost: "([^"]+)".*/\1/' || true
		grep -oE 'undefined symbol: [A-Za-z0-9_.]+' "$1" | sed 's/undefined symbol: //' || true
	} | sort -u
}

# A link error is the series' when a symbol it names ($1, build_link_symbols)
# is defined or used in a file the series changes, wherever the linker
# reports it (vmlinux.o, for IBT, LTO and modpost): yes or no.
build_link_is_series() {
	local symbols=$1 series=$2 sym files=()
	mapfile -t files < <(grep -E '\.[chS]$' <<<"$series" || true)
	if [ "${#files[@]}" -gt 0 ]; then
		while IFS= read -r sym; do
			[ -n "$sym" ] || continue
			if git grep -qw -e "$sym" -- "${files[@]}"; then
				echo yes
				return 0
			fi
		done <<<"$symbols"
	fi
	echo no
}

# A failure the series could have caused is bad (yes); one located only in
# files the series does not touch makes the commit untestable (skip: no).
# An answer printed: a function asked in a condition would run without
# set -e.  A link
# error is blamed on the object's source, or, reported against vmlinux.o,
# on the symbols it names.  A failure that names no file, or any failure
# with no series commit in the range, is bad: nothing places it outside.
build_failure_ours() {
	local log=$1 path series dirs symbols ours located=0
	series=$(build_series_files)
	[ -n "$series" ] || { echo yes; return 0; }
	dirs=$(build_series_dirs "$series")
	while IFS= read -r path; do
		[ -n "$path" ] || continue
		located=1
		ours=$(build_path_is_series "$path" "$series" "$dirs")
		[ "$ours" = no ] || { echo yes; return 0; }
	done < <(build_error_paths "$log")
	symbols=$(build_link_symbols "$log")
	ours=$(build_link_is_series "$symbols" "$series")
	[ "$ours" = no ] || { echo yes; return 0; }
	if [ "$located" = 0 ] && [ -z "$symbols" ]; then echo yes; else echo no; fi
}
