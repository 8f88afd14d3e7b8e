# shellcheck shell=bash
# The boot path most users have: the root filesystem on a disk, no
# initramfs, no rootfstype=.  The kernel then probes the root's type by
# trying every registered block filesystem type in registration order,
# with MS_SILENT.  One boot per kind of root image; the guest program is
# the image's /sbin/init (--root-probe) and reports the type the kernel
# settled on and the registration order.
#
# Judged against the declaration (bisect-tests/expectations):
#   root_ext4, root_testfs: the type a plain / a test_fs-flagged ext4 root
#     mounts with, or none (the kernel cannot mount it);
#   ext2 and ext3 roots always mount as ext2 and ext3, as on the packaged
#     kernel;
#   rootlog: the kernel lines allowed during probing (testfs: "not marked
#     OK to use with test code"; deprecated: an ext4dev deprecation line);
#   fsorder: the registration order of the ext* types (ext4dev only where
#     it is the main type or the compat type is configured).

BT_ROOT_KINDS=(ext4 ext3 ext2 testfs)
BT_ROOT_TESTFS_LINE='not marked OK to use with test code'

rootboot_mkfs_args() {
	case $1 in
	ext4) printf '%s\n' -t ext4 ;;
	ext3) printf '%s\n' -t ext3 ;;
	ext2) printf '%s\n' -t ext2 ;;
	testfs) printf '%s\n' -t ext4 -E test_fs ;;
	esac
}

# A root image holding only the guest program as /sbin/init, and the
# directories the kernel and the guest mount on.
rootboot_image() {
	local rdir=$1 kind=$2 stage=$1/rootfs args
	if [ ! -d "$stage" ]; then
		mkdir -p "$stage/sbin" "$stage/proc" "$stage/dev" "$stage/sys"
		cp "$rdir/init" "$stage/sbin/init"
	fi
	mapfile -t args < <(rootboot_mkfs_args "$kind")
	rm -f "$rdir/root-$kind.img"
	logged "$rdir/images.log" mke2fs -F "${args[@]}" -L "root-$kind" -d "$stage" \
		"$rdir/root-$kind.img" 16M
}

# What one root-probe boot's facts (lib/facts.sh) say:
# "type=<t> order=<a,b,..> lines=<testfs,deprecated>".
rootboot_observed() {
	local facts=$1 type order kernel lines=()
	type=$(facts_get "$facts" root | tail -n 1)
	order=$(facts_get "$facts" fs | tail -n 1 | tr ' ' '\n' | grep '^ext' | paste -sd, -)
	kernel=$(facts_get "$facts" kernel)
	grep -qF "$BT_ROOT_TESTFS_LINE" <<<"$kernel" && lines+=(testfs)
	grep -qiE 'ext4dev.*deprecat|deprecat.*ext4dev' <<<"$kernel" && lines+=(deprecated)
	printf 'type=%s order=%s lines=%s\n' "${type:-none}" "${order:-none}" \
		"$(IFS=,; printf '%s' "${lines[*]:-none}")"
}

# The declared order, without ext4dev where this kernel has no such type.
rootboot_want_order() {
	local compat=$1 order
	order=$(expect fsorder)
	if [ "$(expect fstype)" != ext4dev ] && [ "$compat" != 1 ]; then
		order=$(printf '%s\n' "$order" | tr , '\n' | grep -vx ext4dev | paste -sd, -)
	fi
	printf '%s\n' "$order"
}

rootboot_want_type() {
	case $1 in
	ext2 | ext3) printf '%s\n' "$1" ;;
	*) expect "root_$1" ;;
	esac
}

# Compares one observation with the declaration; prints what differs.
rootboot_judge() {
	local kind=$1 seen=$2 compat=$3 type order lines line bad=0
	type=$(field_of "$seen" type)
	order=$(field_of "$seen" order)
	lines=$(field_of "$seen" lines)
	if [ "$type" != "$(rootboot_want_type "$kind")" ]; then
		echo "root $kind: mounted as $type, declared $(rootboot_want_type "$kind")"
		bad=1
	fi
	if [ "$type" != none ] && [ "$order" != "$(rootboot_want_order "$compat")" ]; then
		echo "root $kind: types registered as $order, declared $(rootboot_want_order "$compat")"
		bad=1
	fi
	for line in ${lines//,/ }; do
		[ "$line" != none ] || continue
		[[ ",$(expect rootlog)," == *",$line,"* ]] && continue
		echo "root $kind: the kernel logged a $line line, which this commit does not declare"
		bad=1
	done
	return "$bad"
}

field_of() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# All root kinds for one variant; prints a line per kind, returns 1 if any
# is not what the commit declares.
rootboot_run() {
	local v=$1 rdir kind rc seen compat bad=0 why facts
	rdir=$(run_dir "$v")
	compat=$(facts_expect "$rdir/facts" compat)
	rm -rf "$rdir/rootfs"
	for kind in "${BT_ROOT_KINDS[@]}"; do
		# The host's mke2fs, the same at every commit: never the commit's failure.
		rootboot_image "$rdir" "$kind" ||
			die_setup "$v: mke2fs of the $kind root failed for this machine, not the commit: $(setup_problem "$rdir/images.log") (log: $rdir/images.log)"
		rc=0
		qemu_boot_root "$v" "$rdir/root-$kind.img" "$rdir/root-$kind.console" || rc=$?
		facts=$rdir/root-$kind.facts
		facts_of "$rdir/root-$kind.console" >"$facts"
		why=$(qemu_failure "$rc" "$facts")
		# A root the kernel cannot mount panics: that is "none", not a hang.
		if [ -n "$why" ] && ! grep -qE '^kernel .*VFS: (Unable to mount root fs|Cannot open root device)' "$facts"; then
			say "$v: root $kind boot failed: $why (console: $rdir/root-$kind.console)"
			bad=1
			continue
		fi
		seen=$(rootboot_observed "$facts")
		say "$v: root $kind: $seen"
		rootboot_judge "$kind" "$seen" "$compat" >&2 || bad=1
	done
	return "$bad"
}
