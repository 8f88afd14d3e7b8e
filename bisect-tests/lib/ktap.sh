# shellcheck shell=bash
# Two KTAP streams share the console: the kernel's KUnit results before the
# guest's begin marker, the guest's own checks between its markers.

BT_GUEST_BEGIN='# ext4-checks: begin'

ktap_console() {
	tr -d '\r' <"$1"
}

# The guest's lines, without the kernel's timestamped ones.
ktap_guest() {
	ktap_console "$1" | sed -n "/^$BT_GUEST_BEGIN\$/,/^$BT_GUEST_END/p" |
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
