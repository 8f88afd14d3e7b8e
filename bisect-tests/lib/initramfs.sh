# shellcheck shell=bash
# The guest initramfs: /init (guest/ext4-checks.c), /expect, and for the
# module variant the modules plus busybox as /sbin/modprobe.

# The guest program, compiled once per source, harness and compiler (1 to
# 2 s of every point) and copied to $1, what went wrong in log $2.  Prints
# $1 when it is there, nothing when not (the caller tests what it printed:
# a function asked in a condition would run without set -e).
initramfs_guest() {
	local out=$1 log=$2 key cached
	mkdir -p "$(dirname "$log")" || return 0
	key=$({
		cat "$BT_DIR/guest/ext4-checks.c" "$KTREE_DIR/tools/testing/selftests/kselftest_harness.h" \
			"$KTREE_DIR/tools/testing/selftests/kselftest.h"
		"$BT_HOSTCC" --version
	} 2>>"$log" | sha256sum | cut -c1-16) || return 0
	cached=$KBRANCH_WORK/cache/guest-$key
	if [ ! -x "$cached" ]; then
		mkdir -p "$(dirname "$cached")" 2>>"$log" || return 0
		"$BT_HOSTCC" -static -O2 -Wall -I"$KTREE_DIR/tools/testing/selftests" \
			-o "$cached.tmp.$$" "$BT_DIR/guest/ext4-checks.c" >>"$log" 2>&1 || { rm -f "$cached.tmp.$$"; return 0; }
		mv "$cached.tmp.$$" "$cached" 2>>"$log" || return 0
	fi
	cp "$cached" "$out" 2>>"$log" || return 0
	printf '%s\n' "$out"
}

# What the guest must find: the declaration, the variant and the .config,
# and which partition holds which hostile image.  Only the guest reads it;
# it echoes every line, and the host reads that back from the run's facts
# (lib/facts.sh).  Prints nothing when the hostile partitions are unknown
# (the caller tests what it printed: a function asked in a condition would
# run without set -e).
initramfs_expect() {
	local variant=$1 config fs declared_compat compat_opt acl_opt sec_opt hostile
	local module=none compat=0 acl=0 security=0
	config=$(build_dir "$variant")/.config
	fs=$(config_value "$(used_symbol fs)" "$config")
	declared_compat=$(expect compat)
	compat_opt=$(config_value CONFIG_EXT4DEV_COMPAT "$config")
	acl_opt=$(config_value "$(used_symbol acl)" "$config")
	sec_opt=$(config_value "$(used_symbol sec)" "$config")
	hostile=$(images_hostile_expect "$(run_dir "$variant")")
	[ -n "$hostile" ] || return 0
	[ "$fs" != m ] || module=$(expect module)
	if [ "$declared_compat" = ext4dev ] && [ "$compat_opt" = y ]; then
		compat=1
	fi
	[ "$acl_opt" != y ] || acl=1
	[ "$sec_opt" != y ] || security=1
	printf 'fstype=%s\nmodule=%s\ntestfs=%s\ncompat=%s\nacl=%s\nsecurity=%s\n' \
		"$(expect fstype)" "$module" "$(expect testfs)" "$compat" "$acl" "$security"
	printf '%s\n' "$hostile"
}

# gen_init_cpio lines for every file and directory under a staging root.
initramfs_tree_list() {
	local root=$1 path
	while IFS= read -r path; do
		if [ -d "$root/$path" ]; then
			printf 'dir /%s 0755 0 0\n' "$path"
		else
			printf 'file /%s %s 0644 0 0\n' "$path" "$root/$path"
		fi
	done < <(cd "$root" && find . -mindepth 1 ! -type l | sed 's|^\./||' | sort)
}

initramfs_list() {
	local rdir=$1 modroot=$2
	printf 'dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\n'
	printf 'dir /proc 0755 0 0\ndir /sys 0755 0 0\ndir /mnt 0755 0 0\n'
	printf 'file /init %s 0755 0 0\nfile /expect %s 0644 0 0\n' "$rdir/init" "$rdir/expect"
	# A tester's reproducer (lib/tester.sh) runs under busybox sh.
	[ -n "$modroot" ] || [ -n "$BT_TEST_SCRIPT" ] || return 0
	printf 'dir /bin 0755 0 0\ndir /sbin 0755 0 0\n'
	printf 'file /bin/busybox %s 0755 0 0\n' "$(command -v busybox)"
	tester_initramfs_list
	[ -n "$modroot" ] || return 0
	printf 'slink /sbin/modprobe /bin/busybox 0777 0 0\n'
	printf 'slink /sbin/rmmod /bin/busybox 0777 0 0\n'
	initramfs_tree_list "$modroot"
}

# Assemble $rdir/initramfs.cpio; the module variant installs its modules first.
initramfs_build() {
	local variant=$1 rdir modroot='' gen expect_text guest modular make_args=()
	rdir=$(run_dir "$variant")
	gen=$(build_dir "$variant")/usr/gen_init_cpio
	mapfile -t make_args < <(kmake_args "$variant")
	mkdir -p "$rdir"
	[ -x "$gen" ] || make "${make_args[@]}" usr/gen_init_cpio >>"$rdir/build.log" 2>&1 || return 1
	# A guest program that does not compile says nothing about the commit.
	guest=$(initramfs_guest "$rdir/init" "$rdir/initramfs.log")
	[ -n "$guest" ] ||
		die_setup "$variant: the guest program does not compile (static libc missing?): $(grep -m1 -E 'error|cannot find' "$rdir/initramfs.log")"
	"$rdir/init" --list >"$rdir/tests.list" || return 1
	# Like the guest program itself, /expect says nothing about the commit.
	expect_text=$(initramfs_expect "$variant")
	if [ -z "$expect_text" ] || ! printf '%s\n' "$expect_text" >"$rdir/expect"; then
		die_setup "$variant: cannot write $rdir/expect"
	fi
	modular=$(variant_modular "$variant")
	if [ -n "$BT_TEST_SCRIPT" ] || [ "$modular" = yes ]; then
		command -v busybox >/dev/null ||
			die_setup "$variant: busybox is missing (busybox-static provides /sbin/modprobe for a modular ext4, and sh for a --test script)"
	fi
	if [ "$modular" = yes ]; then
		modroot=$rdir/modules
		build_modules_install "$variant" "$modroot"
	fi
	initramfs_list "$rdir" "$modroot" >"$rdir/initramfs.list"
	"$gen" "$rdir/initramfs.list" >"$rdir/initramfs.cpio" 2>>"$rdir/initramfs.log"
}
