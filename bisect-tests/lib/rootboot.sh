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
# directories the kernel and the guest mount on.  Prints the image made,
# nothing when mke2fs failed (the caller tests what it printed).
rootboot_image() {
	local rdir=$1 kind=$2 stage=$1/rootfs img=$1/root-$2.img args
	if [ ! -d "$stage" ]; then
		# As before set -e held here: a root without its init is made, and
		# its boot fails.
		mkdir -p "$stage/sbin" "$stage/proc" "$stage/dev" "$stage/sys" || true
		cp "$rdir/init" "$stage/sbin/init" || true
	fi
	mapfile -t args < <(rootboot_mkfs_args "$kind")
	rm -f "$img"
	if mke2fs -F "${args[@]}" -L "root-$kind" -d "$stage" "$img" 16M >>"$rdir/images.log" 2>&1; then
		printf '%s\n' "$img"
	fi
}

# What one root-probe boot's facts (lib/facts.sh) say:
# "type=<t> order=<a,b,..> lines=<testfs,deprecated>".
rootboot_observed() {
	local facts=$1 type order kernel lines=()
	type=$(facts_get "$facts" root | tail -n 1)
	order=$(facts_get "$facts" fs | tail -n 1 | tr ' ' '\n' | { grep '^ext' || true; } | paste -sd, -)
	kernel=$(facts_get "$facts" kernel)
	grep -qF "$BT_ROOT_TESTFS_LINE" <<<"$kernel" && lines+=(testfs)
	grep -qiE 'ext4dev.*deprecat|deprecat.*ext4dev' <<<"$kernel" && lines+=(deprecated)
	printf 'type=%s order=%s lines=%s\n' "${type:-none}" "${order:-none}" \
		"$(IFS=,; printf '%s' "${lines[*]:-none}")"
}

# The declared order, without ext4dev where this kernel has no such type.
rootboot_want_order() {
	local compat=$1 order fstype
	order=$(expect fsorder)
	fstype=$(expect fstype)
	if [ "$fstype" != ext4dev ] && [ "$compat" != 1 ]; then
		order=$(printf '%s\n' "$order" | tr , '\n' | { grep -vx ext4dev || true; } | paste -sd, -)
	fi
	printf '%s\n' "$order"
}

rootboot_want_type() {
	case $1 in
	ext2 | ext3) printf '%s\n' "$1" ;;
	*) expect "root_$1" ;;
	esac
}

# Compares one observation with the declaration; prints what differs,
# nothing when it is as declared (the caller tests what it printed: a
# function asked in a condition would run without set -e).
rootboot_judge() {
	local kind=$1 seen=$2 compat=$3 type order lines line want_type want_order rootlog
	rootlog=$(expect rootlog)
	type=$(field_of "$seen" type)
	order=$(field_of "$seen" order)
	lines=$(field_of "$seen" lines)
	want_type=$(rootboot_want_type "$kind")
	want_order=$(rootboot_want_order "$compat")
	if [ "$type" != "$want_type" ]; then
		echo "root $kind: mounted as $type, declared $want_type"
	fi
	if [ "$type" != none ] && [ "$order" != "$want_order" ]; then
		echo "root $kind: types registered as $order, declared $want_order"
	fi
	for line in ${lines//,/ }; do
		[ "$line" != none ] || continue
		[[ ",$rootlog," == *",$line,"* ]] && continue
		echo "root $kind: the kernel logged a $line line, which this commit does not declare"
	done
}

field_of() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# All root kinds for one variant; prints a line per kind, returns 1 if any
# is not what the commit declares.
rootboot_run() {
	local v=$1 rdir kind rc seen compat bad=0 why facts made differs
	rdir=$(run_dir "$v")
	compat=$(facts_expect "$rdir/facts" compat)
	rm -rf "$rdir/rootfs"
	for kind in "${BT_ROOT_KINDS[@]}"; do
		# The host's mke2fs, the same at every commit: never the commit's failure.
		made=$(rootboot_image "$rdir" "$kind")
		[ -n "$made" ] ||
			die_setup "$v: mke2fs of the $kind root failed for this machine, not the commit: $(setup_problem "$rdir/images.log") (log: $rdir/images.log)"
		job_status qemu_boot_root "$v" "$rdir/root-$kind.img" "$rdir/root-$kind.console"
		rc=$JOB_STATUS
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
		differs=$(rootboot_judge "$kind" "$seen" "$compat")
		if [ -n "$differs" ]; then
			printf '%s\n' "$differs" >&2
			bad=1
		fi
	done
	return "$bad"
}
