#!/usr/bin/env bats
# Every commit builds, boots and passes the ext4 checks; a broken commit is
# caught, and git bisect run through bisect-tests/run names it.

load helpers

# Progress of long runs goes to the TAP stream as comments, live.
progress() {
	sed -u 's/^/# /' >&3
}

setup_file() {
	ensure_applied
}

@test "kbranch verify passes every commit from ext4dev-base to the tip in every variant" {
	local before modules
	before=$(tree_state)
	modules=$(cut -d' ' -f1 /proc/modules | sort)
	run "$KBRANCH" verify 2> >(progress)
	# It never changes the kernel tree; it only checks commits out and back.
	[ "$(tree_state)" = "$before" ]
	# Nothing was loaded into the machine's own kernel.
	[ "$(cut -d' ' -f1 /proc/modules | sort)" = "$modules" ]
	echo "$output" >"$KBRANCH_CI_SCRATCH/verify.tap"
	echo "$output"
	[ "$status" -eq 0 ]
	local commits
	commits=$(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 ))
	# the packaged reference in builtin, module and minimal; then builtin,
	# module, minimal, oldconfig and three carried configs at each commit
	[ "$(grep -c '^ok ' <<<"$output")" -eq $((3 + commits * 7)) ]
	[ "$(grep -c '^ok [0-9]* - [0-9a-f]* Import linux-source' <<<"$output")" -eq 3 ]
	[ "$(grep -c '^not ok' <<<"$output")" -eq 0 ]
}

@test "kbranch report of that verification is KCIDB v5 that the schema accepts, a passing build per commit and variant" {
	local json=$KBRANCH_WORK/report/kcidb.json commits variants
	run "$KBRANCH" report
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - "$REPO/ci/kcidb-v5.schema.json" "$json" <<'EOF'
import json, sys, jsonschema
schema, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errors = list(validator.iter_errors(report))
for e in errors:
    print('/'.join(map(str, e.absolute_path)) + ': ' + e.message)
sys.exit(1 if errors else 0)
EOF
	commits=$(($(ktree rev-list --count ext4dev-base..ext4-rename) + 1))
	variants=$("$REPO/bisect-tests/run" --list-variants | wc -l)
	# Every variant at the base and each commit, and the packaged kernel
	# in the three variants it is the reference of: all passed.
	[ "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(b["status"] == "PASS" for b in d["builds"] if "-check-" not in b["id"]))' "$json")" -eq $((commits * variants + 3)) ]
	# Nothing failed, so no kernel test robot report.
	[ -z "$(find "$KBRANCH_WORK/report" -maxdepth 1 -name '*.txt')" ]
}

# A copy of the series whose #ifdef rename misses fs/ext4/xattr.c: it still
# builds, boots and mounts, but compiles the ACL xattr handlers out.
make_broken_branch() {
	ktree checkout -q -f -B broken-ifdef ext4-rename~2
	ktree show ext4-rename~1 -- . ':!fs/ext4/xattr.c' | ktree apply --index
	ktree -c user.name=ci -c user.email=ci@localhost commit -q -C ext4-rename~1
	ktree -c user.name=ci -c user.email=ci@localhost cherry-pick ext4-rename >/dev/null
}

@test "a commit whose #ifdef rename misses one file is flagged at exactly that commit" {
	make_broken_branch
	ktree checkout -q --detach broken-ifdef~2
	run bash -c 'cd "$0" && "$1"/bisect-tests/run --variant builtin' "$KTREE" "$REPO" 2> >(progress)
	[ "$status" -eq 0 ]
	ktree checkout -q --detach broken-ifdef~1
	run --separate-stderr bash -c 'cd "$0" && "$1"/bisect-tests/run --variant builtin' "$KTREE" "$REPO"
	printf '%s\n' "$stderr" | progress
	[ "$status" -eq 1 ]
	[[ "$output" == *"verdict=bad"* ]]
	[[ "$stderr" == *ACL* || "$stderr" == *acl* ]]
}

@test "git bisect run bisect-tests/run between ext4dev-base and the broken branch names that commit" {
	local culprit
	culprit=$(ktree rev-parse broken-ifdef~1)
	ktree bisect reset >/dev/null 2>&1 || true
	ktree checkout -q -f broken-ifdef
	ktree bisect start broken-ifdef ext4dev-base >/dev/null
	run bash -c 'cd "$0" && git bisect run "$1"/bisect-tests/run' "$KTREE" "$REPO" 2> >(progress)
	echo "$output" | tail -n 20
	ktree bisect reset >/dev/null 2>&1
	ktree checkout -q -f ext4-rename
	[ "$status" -eq 0 ]
	[[ "$output" == *"$culprit is the first bad commit"* ]]
}
