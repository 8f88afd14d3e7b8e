# shellcheck shell=bash
# Out-of-tree, incremental kernel builds: one build dir per variant, never cleaned.

# ARCH=x86_64 from the start: tinyconfig then begins 64-bit, instead of
# 32-bit with a later switch whose new defaults (ACPI, HID, ...) double
# the build.
kmake() {
	local variant=$1
	shift
	make -C "$KTREE_DIR" O="$(build_dir "$variant")" ARCH=x86_64 CC="$BT_CC" HOSTCC="$BT_HOSTCC" \
		-j"$(nproc)" "$@"
}

build_compilers() {
	BT_HOSTCC=${HOSTCC:-gcc}
	if [ -n "${CC:-}" ]; then
		BT_CC=$CC
	elif command -v ccache >/dev/null; then
		BT_CC="ccache gcc"
	else
		BT_CC=gcc
	fi
}

# A variant's first build starts from a copy of another variant's build dir
# when there is one: kbuild rebuilds only what the .config difference
# touches, which for these fragments is far less than a cold build.
build_seed() {
	local variant=$1 bdir other
	bdir=$(build_dir "$variant")
	[ ! -e "$bdir" ] || return 0
	for other in builtin minimal module oldconfig; do
		[ "$other" != "$variant" ] || continue
		if [ -f "$(build_dir "$other")/vmlinux" ]; then
			say "$variant: first build, starting from a copy of the $other build"
			rm -rf "$bdir.tmp"
			cp -a "$(build_dir "$other")" "$bdir.tmp" && mv "$bdir.tmp" "$bdir"
			return 0
		fi
	done
}

build_kernel() {
	local variant=$1
	logged "$(run_dir "$variant")/build.log" kmake "$variant" all
}

build_modules_install() {
	local variant=$1 root=$2
	logged "$(run_dir "$variant")/build.log" kmake "$variant" \
		INSTALL_MOD_PATH="$root" DEPMOD=/bin/true modules_install || return 1
	logged "$(run_dir "$variant")/build.log" depmod -b "$root" "$(build_release "$variant")"
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

# A failure the series could have caused is bad; one located only in files
# the series does not touch makes the commit untestable (skip).
build_failure_is_ours() {
	local path ours=0 located=0
	while IFS= read -r path; do
		case $path in
		'') ;;
		fs/ext4/* | fs/Makefile | fs/Kconfig) ours=1 ;;
		*) located=1 ;;
		esac
	done < <(build_error_paths "$1")
	[ "$ours" = 1 ] || [ "$located" = 0 ]
}
