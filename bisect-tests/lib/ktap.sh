# shellcheck shell=bash
# Two KTAP streams share the console: the kernel's KUnit results before the
# guest's begin marker, the guest's own checks after it.  Both are read
# from the run's facts (lib/facts.sh), never from the console.

# The guest's KTAP lines, for guest.ktap (kbranch report reads it).
ktap_guest() {
	facts_get "$1" ktap
}

# The kernel's lines before the guest began: its KUnit KTAP among them.
ktap_kernel() {
	LC_ALL=C awk '/^marker begin$/ { exit } sub(/^kernel /, "")' "$1"
}

# Guest checks pass: no "not ok", a harness summary, and exit status 0.
ktap_guest_ok() {
	local facts=$1 failed ended
	failed=$(ktap_guest "$facts" | sed -n '/^not ok /p')
	ended=$(facts_holds "$facts" 'end status=0')
	if [ -n "$failed" ]; then
		printf '%s\n' "$failed" | sed 's/^/bisect-tests: guest check failed: /' >&2
		return 1
	fi
	if ! grep -qE '^ktap # PASSED: ' "$facts" || [ "$ended" = no ]; then
		say "guest checks did not complete: $(grep -vE '^(kernel|klog) ' "$facts" | tail -n 1)"
		return 1
	fi
}

# Are the ext4 KUnit tests in variant $1's .config?  yes or no, printed
# (a function asked in a condition would run without set -e).
ktap_kunit_enabled() {
	local config
	config=$(build_dir "$1")/.config
	if grep -qE '^CONFIG_EXT4(DEV)?_KUNIT_TESTS=y' "$config"; then echo yes; else echo no; fi
}

# The kernel's ext4 KUnit results, read by the tree's own kunit.py.
ktap_kunit_ok() {
	local variant=$1 rdir
	rdir=$(run_dir "$variant")
	ktap_kernel "$rdir/facts" >"$rdir/kunit.ktap"
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

# Which tests skip, and why, is the guest's to say (its SKIP reasons start
# with the /expect line that explains them: "compat=0: ..."); the host
# checks only that the guest's /expect says so, and that it says a feature
# is absent (0 or none).  Prints yes or no, for the caller to test: a
# function asked in a condition would run without set -e.
ktap_skip_explained() {
	local facts=$1 why=$2 pair echoed
	pair=${why%%:*}
	echoed=$(facts_holds "$facts" "expect $pair")
	if [[ "$why" == *:* && "$pair" =~ ^[a-z_]+=(0|none)$ && "$echoed" = yes ]]; then
		echo yes
	else
		echo no
	fi
}

# The guest's test list is pinned: every test of the program (tests.list,
# from "ext4-checks --list") reported once, none other, and no skip that
# /expect does not explain.
ktap_pinned() {
	local facts=$1 list=$2 seen name result why n explained bad=0
	seen=$(facts_get "$facts" test)
	while IFS= read -r name; do
		n=$(awk -v n="$name" '$1 == n' <<<"$seen" | grep -c .) || true
		[ "$n" = 1 ] || { say "guest test $name: reported $n times, want once"; bad=1; }
	done <"$list"
	while read -r name result why; do
		[ -n "$name" ] || continue
		grep -qxF "$name" "$list" || { say "guest test $name is not in the program's list"; bad=1; }
		[ "$result" = skip ] || continue
		explained=$(ktap_skip_explained "$facts" "$why")
		if [ "$explained" = no ]; then
			say "guest test $name was skipped, which /expect does not explain (SKIP ${why:-without a reason})"
			bad=1
		fi
	done <<<"$seen"
	return "$bad"
}
