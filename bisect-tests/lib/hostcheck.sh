# shellcheck shell=bash
# After QEMU exits: the images are clean, and the host's e2fsprogs read back
# what the guest left on the flagged image, byte for byte; the crash image,
# reset while mounted, recovers from its journal with every fsynced byte.
# What the guest said is read from the run's facts (lib/facts.sh).

# What the guest wrote, from the guest program itself ($rdir/init): the
# lines of /pattern (--print pattern) and /crash-pattern (--print crash),
# and the raw ACL it set (--print acl).  A guest program that cannot say
# gives nothing to compare with, and the comparison names it.
hostcheck_contract() {
	local rdir=$1 what=$2
	"$rdir/init" --print "$what" || true
}

# Hex of a raw ACL with the id of unnamed entries cleared: e2fsprogs reads
# those back as 0 where the kernel wrote ACL_UNDEFINED_ID.
hostcheck_acl_hex() {
	od -An -v -tx1 | tr -s ' \n' '\n' | sed '/^$/d' |
		awk '{ b[NR] = $1 } END {
			for (i = 5; i + 7 <= NR; i += 8)
				if (b[i] != "02" && b[i] != "08")
					b[i + 4] = b[i + 5] = b[i + 6] = b[i + 7] = "00"
			for (i = 1; i <= NR; i++) printf "%s ", b[i]
			print ""
		}'
}

# The checks below print each problem they find, one line each, and
# nothing when all is well; hostcheck_run says them.  Printed, not
# returned: a function asked in a condition would run without set -e.
# What the host reads back (debugfs, dumpe2fs) may fail on an image the
# guest left broken: "|| true" there, as the comparison that follows
# names what is missing.

hostcheck_fsck() {
	local img=$1 log=$2
	e2fsck -fn "$img" >>"$log" 2>&1 || echo "e2fsck -fn $img is not clean, see $log"
}

hostcheck_same() {
	local what=$1 expected=$2 actual=$3
	cmp -s "$expected" "$actual" || echo "host read back of $what differs: $actual"
}

hostcheck_xattr() {
	local img=$1 dir=$2 name=$3
	rm -f "$dir/$name"
	debugfs -R "ea_get -f $dir/$name /xattrs $name" "$img" >>"$dir/debugfs.log" 2>&1 || true
	hostcheck_same "/xattrs $name" <(printf '%s value' "${name%%.*}") "$dir/$name"
}

# yes when the crash image $1 has a journal to recover (its dumpe2fs -h
# header kept in $2), else no.
hostcheck_crash_needs_recovery() {
	local img=$1 header=$2
	dumpe2fs -h "$img" >"$header" 2>&1 || true
	if grep -qE '^Filesystem features:.* needs_recovery' "$header"; then
		echo yes
	else
		echo no
	fi
}

# The journal replay is the point: without needs_recovery the image was
# unmounted (or remounted read-only) before the reset, and no replay is tested.
hostcheck_crash() {
	local rdir=$1 dir=$2 img=$1/crash.img log=$2/crash.log rc=0 why needs_recovery problem written
	written=$(facts_holds "$rdir/facts" 'marker crash-written')
	if [ "$written" = no ]; then
		why=$(facts_get "$rdir/facts" crash-failed | awk 'NR == 1')
		echo "crash image: the guest never printed '${BT_MARK}crash image written'${why:+ (crash image not written: $why)}, see $rdir/console.log"
		return 0
	fi
	# Kept as the reset left it, for a look after e2fsck has changed it.
	cp --sparse=always "$img" "$dir/crash-as-reset.img" || true
	needs_recovery=$(hostcheck_crash_needs_recovery "$img" "$dir/crash-dumpe2fs.txt")
	if [ "$needs_recovery" = no ]; then
		echo "crash image: no journal to recover after the reset (needs_recovery not set), see $dir/crash-dumpe2fs.txt"
		return 0
	fi
	e2fsck -fy "$img" >>"$log" 2>&1 || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "crash image: e2fsck -fy left errors after the journal replay (exit $rc), see $log"
		return 0
	fi
	problem=$(hostcheck_fsck "$img" "$log")
	if [ -n "$problem" ]; then
		printf '%s\n' "$problem"
		return 0
	fi
	debugfs -R 'cat /crash-pattern' "$img" >"$dir/crash-pattern" 2>>"$log" || true
	hostcheck_same "/crash-pattern after the reset and journal replay" \
		<(hostcheck_contract "$rdir" crash) "$dir/crash-pattern"
}

hostcheck_problems() {
	local rdir=$1 dir=$1/host img=$1/flagged.img security acl
	security=$(facts_holds "$rdir/facts" 'expect security=1')
	acl=$(facts_holds "$rdir/facts" 'expect acl=1')
	mkdir -p "$dir"
	hostcheck_fsck "$img" "$dir/e2fsck.log"
	hostcheck_fsck "$rdir/plain.img" "$dir/e2fsck.log"
	debugfs -R 'cat /pattern' "$img" >"$dir/pattern" 2>>"$dir/debugfs.log" || true
	hostcheck_same /pattern <(hostcheck_contract "$rdir" pattern) "$dir/pattern"
	hostcheck_xattr "$img" "$dir" user.kbranch
	hostcheck_xattr "$img" "$dir" trusted.kbranch
	if [ "$security" = yes ]; then
		hostcheck_xattr "$img" "$dir" security.kbranch
	fi
	if [ "$acl" = yes ]; then
		debugfs -R "ea_get -f $dir/acl /acl system.posix_acl_access" "$img" >>"$dir/debugfs.log" 2>&1 || true
		hostcheck_contract "$rdir" acl | hostcheck_acl_hex >"$dir/acl.expected.hex"
		[ ! -f "$dir/acl" ] || hostcheck_acl_hex <"$dir/acl" >"$dir/acl.hex"
		hostcheck_same "/acl system.posix_acl_access" "$dir/acl.expected.hex" "$dir/acl.hex"
	fi
	hostcheck_crash "$rdir" "$dir"
}

hostcheck_run() {
	local variant=$1 problems
	problems=$(hostcheck_problems "$(run_dir "$variant")")
	[ -n "$problems" ] || return 0
	say_each "$problems"
	return 1
}
