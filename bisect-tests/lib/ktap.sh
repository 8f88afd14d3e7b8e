# shellcheck shell=bash
# Two KTAP streams share the console: the kernel's KUnit results before the
# guest's begin marker, the guest's own checks between its markers.  Before
# its end marker the guest also prints its copy of the whole kernel log
# between markers of its own (lib/observe.sh reads it), which is no KTAP.

BT_GUEST_BEGIN='# ext4-checks: begin'
BT_KLOG_BEGIN='# ext4-checks: kernel log begin'
BT_KLOG_END='# ext4-checks: kernel log end lines='

ktap_console() {
	tr -d '\r' <"$1"
}

# The guest's lines, without the kernel's timestamped ones nor the guest's
# copy of the kernel log.
ktap_guest() {
	ktap_console "$1" | sed -n "/^$BT_GUEST_BEGIN\$/,/^$BT_GUEST_END/p" |
		sed "/^$BT_KLOG_BEGIN\$/,/^$BT_KLOG_END/d" |
		grep -vE '^\[ *[0-9]+\.[0-9]+\]' || true
}

ktap_kernel() {
	ktap_console "$1" | sed "/^$BT_GUEST_BEGIN\$/,\$d"
}

# Guest checks pass: no "not ok", a harness summary, and exit status 0.
ktap_guest_ok() {
	local ktap=$1 failed
	failed=$(grep -E '^not ok ' "$ktap" || true)
	if [ -n "$failed" ]; then
		printf '%s\n' "$failed" | sed 's/^/bisect-tests: guest check failed: /' >&2
		return 1
	fi
	if ! grep -qE '^# PASSED: ' "$ktap" || ! grep -qxF "${BT_GUEST_END}0" "$ktap"; then
		say "guest checks did not complete: $(tail -n 1 "$ktap")"
		return 1
	fi
}

ktap_kunit_enabled() {
	grep -qE '^CONFIG_EXT4(DEV)?_KUNIT_TESTS=y' "$(build_dir "$1")/.config"
}

# The kernel's ext4 KUnit results, read by the tree's own kunit.py.
ktap_kunit_ok() {
	local variant=$1 rdir
	rdir=$(run_dir "$variant")
	ktap_kernel "$rdir/console.log" >"$rdir/kunit.ktap"
	PYTHONDONTWRITEBYTECODE=1 python3 "$KTREE_DIR/tools/testing/kunit/kunit.py" parse \
		"$rdir/kunit.ktap" >"$rdir/kunit-parse.log" 2>&1 || {
		say "KUnit failed, see $rdir/kunit-parse.log"
		return 1
	}
	grep -qE 'ext4_inode_test|ext4' "$rdir/kunit-parse.log" || {
		say "no ext4 KUnit results in $rdir/kunit-parse.log"
		return 1
	}
}

# A skip that /expect explains: the module tests with ext4 built in, the
# compat tests without the compat type, the ACL test without ACLs.
ktap_skip_expected() {
	local name=${1#*.} expect=$2 module compat acl
	module=$(sed -n 's/^module=//p' "$expect")
	compat=$(sed -n 's/^compat=//p' "$expect")
	acl=$(sed -n 's/^acl=//p' "$expect")
	case $name in
	modprobe_by_the_module_name_loads_it | mounting_the_fs_type_loads_its_module_by_alias)
		[ "$module" = none ] ;;
	modprobe_by_the_compat_name_loads_the_module | mounting_the_compat_type_loads_the_module_by_alias)
		[ "$module" = none ] || [ "$compat" = 0 ] ;;
	the_compat_type_mounts_the_flagged_image_and_warns) [ "$compat" = 0 ] ;;
	an_unprivileged_user_cannot_change_a_root_files_acl) [ "$acl" = 0 ] ;;
	*) false ;;
	esac
}

# The guest's test list is pinned: every test of the program (tests.list,
# from "ext4-checks --list") reported once, none other, and no skip that
# /expect does not explain.
ktap_pinned() {
	local ktap=$1 list=$2 expect=$3 seen name result bad=0
	seen=$(observe_tests "$ktap" | sed 's/^test: //')
	while IFS= read -r name; do
		[ "$(grep -c "^$name " <<<"$seen")" = 1 ] || { say "guest test $name: reported $(grep -c "^$name " <<<"$seen") times, want once"; bad=1; }
	done <"$list"
	while read -r name result; do
		[ -n "$name" ] || continue
		grep -qxF "$name" "$list" || { say "guest test $name is not in the program's list"; bad=1; }
		if [ "$result" = skip ] && ! ktap_skip_expected "$name" "$expect"; then
			say "guest test $name was skipped, which /expect does not explain"
			bad=1
		fi
	done <<<"$seen"
	return "$bad"
}
