#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $lines: set by bats' run
# kbranch check on a toy tree, in seconds: a point it could not judge is
# "not ok" with the reason, and every line sphinx warns with is judged.
# The toy tree's Makefile stands in for the docs build (it prints the log
# the checked-out commit holds and exits with the status it holds); its
# scripts/checkpatch.pl prints what a real checkpatch.pl printed.
#
# The canned inputs (ci/canned/check-*) are real runs, in a tree at
# /tmp/kbranch-canned/linux:
#   check-sphinx-warnings.log      sphinx-build 5.3.0 -b html -q on
#                                  check-sphinx-docs/ as Documentation/admin-guide
#   check-sphinx-config-error.log  the same, with conf.py "project = (" (exit 2)
#   check-checkpatch-*.out, .err   linux 6.1's checkpatch.pl --strict --terse
#                                  --show-types --no-summary on a patch, with
#     finding      a line with trailing whitespace added (exit 1)
#     not-a-tree   CREDITS removed from the tree (exit 2)
#     bad-option   a .checkpatch.conf holding --no-such-option (exit 1)
#     no-spelling  scripts/spelling.txt removed (exit 0)

load helpers

CANNED=$BATS_TEST_DIRNAME/canned
CANNED_TREE=/tmp/kbranch-canned/linux

setup() {
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	T=$KBRANCH_WORK/linux
	# The docs build is the toy Makefile's: sphinx-build need only be there.
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexit 0\n' >"$BATS_TEST_TMPDIR/bin/sphinx-build"
	chmod +x "$BATS_TEST_TMPDIR/bin/sphinx-build"
	export PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

tgit() {
	git -C "$T" -c user.name=CI -c user.email=ci@localhost "$@"
}

# What the toy docs build prints and exits with at the commit: $1 a canned
# sphinx log (or - for nothing), $2 the status.
docs_build_says() {
	if [ "$1" = - ]; then
		: >"$T/docs.log"
	else
		sed "s|^$CANNED_TREE/|$T/|" "$1" >"$T/docs.log"
	fi
	echo "$2" >"$T/docs.status"
}

# The toy tree's files at its base, clean; the test may change them
# before toy_base commits them.
toy_tree() {
	local docs=$T/Documentation/admin-guide
	mkdir -p "$T/scripts" "$docs"
	git init -q "$T"
	# shellcheck disable=SC2016 # make's $$(...), for make's shell
	printf 'htmldocs:\n\t@cat docs.log; exit $$(cat docs.status)\n' >"$T/Makefile"
	cp "$CANNED/check-sphinx-docs/conf.py" "$CANNED/check-sphinx-docs/index.rst" "$docs/"
	printf 'ext4\n====\n' >"$docs/ext4.rst"
	printf 'Orphan document\n===============\n' >"$docs/orphan.rst"
	cat >"$T/scripts/checkpatch.pl" <<-'PERL'
	#!/usr/bin/perl
	# A stand-in: what a real checkpatch.pl printed, and its exit status.
	my $canned = $ENV{KBRANCH_CI_CHECKPATCH} or exit 0;
	local $/;
	if (open(my $out, '<', "$canned.out")) { print STDOUT <$out>; }
	if (open(my $err, '<', "$canned.err")) { print STDERR <$err>; }
	exit($ENV{KBRANCH_CI_CHECKPATCH_STATUS});
	PERL
	docs_build_says - 0
}

# Commit the base as ext4dev-base, and start branch ext4-rename on it.
toy_base() {
	tgit add -A
	tgit commit -q -m 'fixture: the toy base'
	tgit tag ext4dev-base
	tgit checkout -q -b ext4-rename
}

# The branch's one commit: the canned documents, and a docs build that
# prints $1 and exits $2.
toy_change() {
	cp "$CANNED/check-sphinx-docs/ext4.rst" "$CANNED/check-sphinx-docs/orphan.rst" "$T/Documentation/admin-guide/"
	docs_build_says "$1" "$2"
	tgit add -A
	tgit commit -q -m 'ext4: document the mount options'
}

check() {
	run "$REPO/branch-scripts/kbranch" check "$@"
	echo "$output"
}

@test "checkpatch.pl that cannot run, that exits 1 reporting nothing, or that runs without its spelling list is not ok, with its own line" {
	toy_tree
	rm "$T/scripts/checkpatch.pl"
	toy_base
	toy_change - 0
	check --only checkpatch
	[ "$status" -ne 0 ]
	grep -qx "not ok 1 - $(tgit rev-parse --short HEAD) ext4: document the mount options \[checkpatch\]" <<<"$output"
	grep -qF "# CHECKPATCH-FAILED: checkpatch.pl could not run (exit 2): Can't open perl script \"scripts/checkpatch.pl\": No such file or directory (log: " <<<"$output"
	rm -rf "$T"
	toy_tree
	toy_base
	toy_change - 0
	local canned exit said
	while IFS='|' read -r canned exit said; do
		KBRANCH_CI_CHECKPATCH=$CANNED/check-checkpatch-$canned KBRANCH_CI_CHECKPATCH_STATUS=$exit check --only checkpatch
		[ "$status" -ne 0 ]
		grep -qx "not ok 1 - .* \[checkpatch\]" <<<"$output"
		grep -qF "# CHECKPATCH-FAILED: $said (log: " <<<"$output"
	done <<-CASES
	not-a-tree|2|checkpatch.pl could not run (exit 2): Must be run from the top-level dir. of a kernel tree
	bad-option|1|checkpatch.pl exited 1 and reported nothing: Unknown option: no-such-option
	no-spelling|0|checkpatch.pl ran without some of its checks: No typos will be found - file '$CANNED_TREE/scripts/spelling.txt': No such file or directory
	CASES
}

@test "checkpatch.pl's finding is not ok with the finding, and a clean run is ok" {
	toy_tree
	toy_base
	toy_change - 0
	KBRANCH_CI_CHECKPATCH=$CANNED/check-checkpatch-finding KBRANCH_CI_CHECKPATCH_STATUS=1 check --only checkpatch
	[ "$status" -ne 0 ]
	grep -qx 'not ok 1 - .* \[checkpatch\]' <<<"$output"
	grep -qx '# -:6: ERROR:TRAILING_WHITESPACE: trailing whitespace' <<<"$output"
	[ "$(grep -c 'CHECKPATCH-FAILED' <<<"$output")" -eq 0 ]
	check --only checkpatch
	[ "$status" -eq 0 ]
	grep -qx 'ok 1 - .* \[checkpatch\]' <<<"$output"
}

@test "a docs build that fails at the parent commit is not ok, naming that commit and its log, and stays so when kept" {
	toy_tree
	docs_build_says "$CANNED/check-sphinx-config-error.log" 2
	toy_base
	toy_change - 0
	check --only docs
	[ "$status" -ne 0 ]
	grep -qx "not ok 1 - $(tgit rev-parse --short HEAD) ext4: document the mount options \[docs\]" <<<"$output"
	grep -q "^# BUILD-FAILED: make htmldocs fails at $(tgit rev-parse --short ext4dev-base), the commit compared with: nothing was judged (log: .*rebuild-before.log)$" <<<"$output"
	check --only docs
	[ "$status" -ne 0 ]
	grep -q 'kept from an earlier run' <<<"$output"
	grep -q '^# BUILD-FAILED: make htmldocs fails at ' <<<"$output"
}

@test "sphinx's CRITICAL lines and its warnings without a line number are judged, with the others" {
	toy_tree
	toy_base
	toy_change "$CANNED/check-sphinx-warnings.log" 0
	check --only docs
	[ "$status" -ne 0 ]
	grep -qx 'not ok 1 - .* \[docs\]' <<<"$output"
	[ "$(grep -c '^# ' <<<"$output")" -eq 4 ]
	grep -qxF '# Documentation/admin-guide/ext4.rst: CRITICAL: Title level inconsistent:  [line: Notes]' <<<"$output"
	grep -qxF '# Documentation/admin-guide/ext4.rst: ERROR: Unknown directive type "kbranch-no-such-directive".  [line: .. kbranch-no-such-directive::]' <<<"$output"
	grep -qxF '# Documentation/admin-guide/orphan.rst: WARNING: Title underline too short.  [line: =====]' <<<"$output"
	grep -qxF "# Documentation/admin-guide/orphan.rst: WARNING: document isn't included in any toctree  [line: ]" <<<"$output"
}

@test "a document the commit adds is judged at the commit, and the tree is left clean" {
	toy_tree
	rm "$T/Documentation/admin-guide/orphan.rst"
	toy_base
	toy_change "$CANNED/check-sphinx-warnings.log" 0
	check --only docs
	[ "$status" -ne 0 ]
	grep -qx 'not ok 1 - .* \[docs\]' <<<"$output"
	grep -qxF '# Documentation/admin-guide/orphan.rst: WARNING: Title underline too short.  [line: =====]' <<<"$output"
	[ -z "$(tgit status --porcelain)" ]
}

@test "identities: SEVERE, as sphinx before 4.0 printed it, and a warning whose line number is empty are judged" {
	# shellcheck source=branch-scripts/lib/gate.sh
	source "$REPO/branch-scripts/lib/gate.sh"
	KTREE=$BATS_TEST_TMPDIR/tree
	mkdir -p "$KTREE/Documentation/admin-guide"
	cp "$CANNED/check-sphinx-docs/ext4.rst" "$KTREE/Documentation/admin-guide/"
	printf '%s\n' "$KTREE/Documentation/admin-guide/ext4.rst:13: SEVERE: Title level inconsistent:" \
		"$KTREE/Documentation/admin-guide/ext4.rst:: WARNING: a node without a line" >"$BATS_TEST_TMPDIR/docs.log"
	run identities "$BATS_TEST_TMPDIR/docs.log"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "Documentation/admin-guide/ext4.rst: SEVERE: Title level inconsistent:  [line: Notes]" ]
	[ "${lines[1]}" = "Documentation/admin-guide/ext4.rst: WARNING: a node without a line  [line: ]" ]
}
