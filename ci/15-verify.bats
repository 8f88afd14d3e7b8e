#!/usr/bin/env bats
# Every commit builds, boots and passes the ext4 checks, in every variant,
# compared with the packaged kernel.  It runs first of the kernel tests: it
# makes the cold builds, and leaves every variant's build dir at the tip,
# where 20-bisect-tests.bats then finds nothing to rebuild.

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
	local commits per_commit refs _
	commits=$(( $(ktree rev-list --count ext4dev-base..ext4-rename) + 1 ))
	# The counts come from the registry: every variant verify runs (the
	# Debian machines unless KBRANCH_VERIFY_DEBIAN=0) at each commit, and
	# the packaged reference of each reference they name, once.
	read -r per_commit refs _ _ < <(registry_counts)
	[ "$per_commit" -ge 7 ]
	[ "$refs" -ge 3 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq $((refs + commits * per_commit)) ]
	[ "$(grep -c '^ok [0-9]* - [0-9a-f]* Import linux-source' <<<"$output")" -eq "$refs" ]
	[ "$(grep -c '^not ok' <<<"$output")" -eq 0 ]
}

# What a user of the compat type sees at the tip, from the logs of that
# verification's last builtin point (the tip) and the oldconfig variant's
# build dir (ext4 a module, carried from the base), left at the tip; a
# config made at the tip (module's) has no compat type, nor its aliases.
@test "at the tip the guest mounts -t ext4dev, which logs its deprecation, and ext4.ko answers to ext4dev and fs-ext4dev where the config came from the base, and not where it was made at the tip" {
	local ktap=$KBRANCH_WORK/runs/builtin/guest.ktap ko=$KBRANCH_WORK/build/oldconfig/fs/ext4/ext4.ko
	grep -q "^ok [0-9]* - $(ktree rev-parse --short ext4-rename) .* \[builtin\] build=ok boot=ok checks=ok" "$KBRANCH_CI_SCRATCH/verify.tap"
	grep -q '^ok [0-9]* global.the_compat_type_mounts_the_flagged_image_and_warns$' "$ktap"
	grep -qi 'ext4dev.*deprecated' "$KBRANCH_WORK/runs/builtin/console.log"
	# fs-ext4dev (mount) and ext4dev (modprobe) are module aliases of ext4.ko
	modinfo -F alias "$ko" | grep -qx 'fs-ext4dev'
	modinfo -F alias "$ko" | grep -qx 'ext4dev'
	run modinfo -F alias "$KBRANCH_WORK/build/module/fs/ext4/ext4.ko"
	[ "$status" -eq 0 ]
	grep -qx 'fs-ext4' <<<"$output"
	run grep -x 'fs-ext4dev\|ext4dev' <<<"$output"
	[ "$status" -eq 1 ]
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
	# The variants verify ran: the Debian machines unless
	# KBRANCH_VERIFY_DEBIAN=0 (ci/test's default), and their references.
	verified() {
		"$REPO/bisect-tests/run" --list-variants | awk -v d="${KBRANCH_VERIFY_DEBIAN:-1}" '$2 != "debian" || d != 0'
	}
	variants=$(verified | wc -l)
	refs=$(verified | awk '$3 != "-" { print $3 }' | sort -u | wc -l)
	# Every variant at the base and each commit, and the packaged kernel
	# in each variant it is the reference of: all passed.
	[ "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(b["status"] == "PASS" for b in d["builds"] if "-check-" not in b["id"]))' "$json")" -eq $((commits * variants + refs)) ]
	# Nothing failed, so no kernel test robot report.
	[ -z "$(find "$KBRANCH_WORK/report" -maxdepth 1 -name '*.txt')" ]
}
