#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2030,SC2031 # $status, $output: set by bats' run, in a subshell
# The mutation list (ci/mutations/): every realistic break of the verdict
# code it keeps must fail the fast-tier tests it names.  A few minutes: each
# mutant runs its tests in a copy of the repository.

load helpers

@test "mutations: every mutant in ci/mutations is caught by the fast-tier tests it names" {
	run "$REPO/ci/mutations/run"
	printf '%s\n' "$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	[[ "$output" =~ caught\ ([0-9]+)\ of\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	[ "${BASH_REMATCH[2]}" -ge 25 ]
}

# A failed run keeps its logs for a look; these failures are made on purpose.
kept_logs_remove() {
	local logs
	logs=$(sed -n 's/^# logs kept in //p' <<<"$output")
	[ -z "$logs" ] || rm -rf "$logs"
}

@test "mutations: the runner fails on a mutant its tests let through, and on one that no longer applies" {
	local dir=$BATS_TEST_TMPDIR
	# A comment changed: the test it names passes on it.
	cat >"$dir/harmless.diff" <<'DIFF'
Mutation: a comment changed, which no test can see
Caught-by: ci/06-verdicts.bats «verdicts combine: bad wins over skip and good, in any order; skip over good»

DIFF
	(cd "$REPO" && sed 's/^# bad beats skip beats good\.$/# bad beats skip, which beats good./' bisect-tests/lib/verdict.sh |
		diff -u --label a/bisect-tests/lib/verdict.sh --label b/bisect-tests/lib/verdict.sh bisect-tests/lib/verdict.sh -) >>"$dir/harmless.diff" || true
	grep -q '^+# bad beats skip, which beats good\.$' "$dir/harmless.diff"
	run "$REPO/ci/mutations/run" "$dir/harmless.diff"
	echo "$output"
	kept_logs_remove
	[ "$status" -eq 1 ]
	[[ "$output" == *$'harmless\tsurvived: ci/06-verdicts.bats «verdicts combine'* ]]
	[[ "$output" == *"caught 0 of 1"* ]]
	# The same mutant against code that has moved.
	sed 's/^-# bad beats skip beats good\.$/-# bad beats nothing./' "$dir/harmless.diff" >"$dir/stale.diff"
	run "$REPO/ci/mutations/run" "$dir/stale.diff"
	echo "$output"
	kept_logs_remove
	[ "$status" -eq 1 ]
	[[ "$output" == *$'stale\tbroken: the diff no longer applies'* ]]
}
