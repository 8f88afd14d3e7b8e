#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# kbranch report, in seconds and with no kernel: a scratch git tree shaped
# like the imported one (packaged/<v>, ext4dev-base, ext4-rename, notes
# under refs/notes/kbranch), one commit failing its build, and one with a
# new W=1 warning.  The JSON is held to ci/kcidb-v5.schema.json, written
# from KCIDB v5's rules, and each rule is seen refusing a broken report.

# helpers.bash wants a work dir; each test uses its own.
: "${KBRANCH_WORK:=$BATS_RUN_TMPDIR/work}"
export KBRANCH_WORK
load helpers

SCHEMA=$BATS_TEST_DIRNAME/kcidb-v5.schema.json
TOOLS=gcc-12.2.0,qemu-7.2.22,busybox-1.35.0

# python3 with jsonschema: Debian's python3-jsonschema, which checks
# formats too; any other python3 that has jsonschema will do.
find_python() {
	PY=python3
	if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then PY=/usr/bin/python3; fi
	"$PY" -c 'import jsonschema' || { echo "no jsonschema for $PY: apt-get install python3-jsonschema"; return 1; }
}

# One scratch tree and one report, made once: the tests that only read
# them share them (a report takes seconds); a test that changes the tree
# or the config works on its own copy (work_copy).
setup_file() {
	export KBRANCH_WORK=$BATS_FILE_TMPDIR/work
	KTREE=$KBRANCH_WORK/linux
	scratch_tree
	"$KBRANCH" report >"$BATS_FILE_TMPDIR/report.out" 2>"$BATS_FILE_TMPDIR/report.err" &&
		echo 0 >"$BATS_FILE_TMPDIR/report.status" || echo "$?" >"$BATS_FILE_TMPDIR/report.status"
}

setup() {
	find_python
	export KBRANCH_WORK=$BATS_FILE_TMPDIR/work
	KTREE=$KBRANCH_WORK/linux
	REPORT=$KBRANCH_WORK/report
	P2=$(g rev-parse ext4-rename)
}

work_copy() {
	cp -a "$BATS_FILE_TMPDIR/work" "$BATS_TEST_TMPDIR/work"
	export KBRANCH_WORK=$BATS_TEST_TMPDIR/work
	KTREE=$KBRANCH_WORK/linux
	REPORT=$KBRANCH_WORK/report
}

g() {
	git -C "$KTREE" -c user.name=ci -c user.email=ci@localhost "$@"
}

commit_file() {
	local subject=$1 text=$2
	printf '%s\n' "$text" >"$KTREE/fs/ext4/super.c"
	g add -A
	g commit -q -m "$subject"
}

# One verify line, as note_record writes it.
note() {
	local commit=$1 variant=$2 verdict=$3 fields=$4 date=$5
	g notes --ref=refs/notes/kbranch append -m "kbranch-verify tree=$(g rev-parse "$commit^{tree}") variant=$variant tests=0123456789ab tools=$TOOLS verdict=$verdict $fields date=$date" "$commit"
}

# The imported tree's shape: packaged/<v> (annotated), ext4dev-base
# (annotated) on it, ext4-rename two patches on top.  Patch 1 passes;
# patch 2 fails builtin's build (its log is the last run's), loses the
# carried config's options, and adds a W=1 warning in fs/ext4.
scratch_tree() {
	local now date c p1 p2 w=$KBRANCH_WORK/check/gate
	mkdir -p "$KTREE/fs/ext4"
	git init -q "$KTREE"
	commit_file "packaged linux-source 6.1.0-1" 'int ext4_fill_super(void) { return 0; }'
	g tag -a -m packaged packaged/6.1.0-1
	commit_file "fixture: recreate the ext4dev-era ext4 on the packaged tree" 'int ext4dev_fill_super(void) { return 0; }'
	g tag -a -m base ext4dev-base
	g checkout -q -b ext4-rename
	commit_file "ext4: rename the ext4dev Kconfig options to ext4" 'int ext4_fill_super(void) { return 0; }'
	p1=$(g rev-parse HEAD)
	commit_file "ext4: rename the ext4dev module and filesystem type to ext4" 'int ext4_fill_super(void) { return EXT4DEV_MAGIC; }'
	p2=$(g rev-parse HEAD)
	now=$(date -u +%s)
	date=$(date -u -d "@$now" +%FT%TZ)
	for c in packaged/6.1.0-1 ext4dev-base "$p1"; do
		note "$(g rev-parse "$c^{commit}")" builtin good 'build=ok boot=ok checks=ok seconds=40' 2026-12-04T10:00:00Z
	done
	note "$p1" carried-debian good 'chain=0123456789abcdef kconfig=kept' 2026-12-04T10:01:00Z
	note "$p2" builtin bad "build=fail boot=skip checks=skip seconds=30 run=$KBRANCH_WORK/runs/builtin id=run-p2 config=$KBRANCH_WORK/runs/builtin/kernel.config" "$date"
	note "$p2" carried-debian bad 'chain=fedcba9876543210 kconfig=lost' "$date"
	mkdir -p "$KBRANCH_WORK/runs/builtin" "$KBRANCH_WORK/build/builtin" "$w"
	printf '%s\n' '  CC      fs/ext4/super.o' \
		"fs/ext4/super.c:1:33: error: 'EXT4DEV_MAGIC' undeclared (first use in this function)" \
		'make[3]: *** [scripts/Makefile.build:250: fs/ext4/super.o] Error 1' >"$KBRANCH_WORK/runs/builtin/build.log"
	# The run dir as bisect-tests leaves it: its id, the .config it built.
	echo run-p2 >"$KBRANCH_WORK/runs/builtin/run-id"
	printf 'CONFIG_EXT4_FS=y\n' >"$KBRANCH_WORK/runs/builtin/kernel.config"
	# kbranch check's index and results: patch 1 clean, patch 2 one new.
	: >"$w/p1.new"
	printf '%s\n' "fs/ext4/super.c: warning: no previous prototype for 'ext4_fill_super' [-Wmissing-prototypes]" >"$w/p1.all"
	printf '%s\n' "fs/ext4/super.c: warning: 'ext4_dead' defined but not used [-Wunused-function]" >"$w/p2.new"
	cat "$w/p1.all" "$w/p2.new" >"$w/p2.all"
	printf '%s\tw1\t%s\t%s\n' "$p1" "$(g rev-parse ext4dev-base^{commit})" "$w/p1" "$p2" "$p1" "$w/p2" >"$KBRANCH_WORK/check/index.tsv"
}

# Validates a KCIDB file against the schema: each error on a line.
validate() {
	"$PY" - "$SCHEMA" "$1" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errors = list(validator.iter_errors(json.load(open(sys.argv[2]))))
for e in errors:
    print('/'.join(map(str, e.absolute_path)) + ': ' + e.message)
sys.exit(1 if errors else 0)
EOF
}

# Each argument is a Python statement that breaks the report (d), then
# the words the schema's refusal must contain; all in one process.  Each
# refusal is printed; a mutation the schema accepts fails the test.
refused() {
	"$PY" - "$SCHEMA" "$REPORT/kcidb.json" "$@" <<'EOF'
import copy, json, sys, jsonschema
schema, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
pairs, bad = sys.argv[3:], 0
for mutation, words in zip(pairs[0::2], pairs[1::2]):
    d = copy.deepcopy(report)
    exec(mutation)
    errors = ['/'.join(map(str, e.absolute_path)) + ': ' + e.message for e in validator.iter_errors(d)]
    if not any(words in e for e in errors):
        bad = 1
        print('NOT REFUSED for %r: %s' % (words, mutation), *errors, sep='\n  ')
    else:
        print('refused (%s): %s' % (mutation, next(e for e in errors if words in e)))
sys.exit(bad)
EOF
}

@test "report: KCIDB v5 JSON that the schema accepts, every id and *_id prefixed with the origin" {
	[ "$(cat "$BATS_FILE_TMPDIR/report.status")" = 0 ] || { cat "$BATS_FILE_TMPDIR/report.err"; return 1; }
	[ "$(head -n 1 "$BATS_FILE_TMPDIR/report.out")" = "$REPORT/kcidb.json" ]
	# Read only: the tree is where the commits left it.
	[ "$(g symbolic-ref HEAD)" = refs/heads/ext4-rename ]
	[ -z "$(g status --porcelain)" ]
	run validate "$REPORT/kcidb.json"
	echo "$output"
	[ "$status" -eq 0 ]
	"$PY" - "$REPORT/kcidb.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['version'] == {'major': 5, 'minor': 0}, d['version']
checkouts = {c['id'] for c in d['checkouts']}
builds = {b['id'] for b in d['builds']}
assert len(d['checkouts']) == 4 and d['builds'] and d['tests']
for kind in ('checkouts', 'builds', 'tests'):
    for o in d[kind]:
        assert o['origin'] == 'kbranch', o
        for key in [k for k in o if k == 'id' or k.endswith('_id')]:
            assert o[key].startswith('kbranch:'), (key, o[key])
        assert 'valid' not in o or kind == 'checkouts', o
for b in d['builds']:
    assert b['checkout_id'] in checkouts and b['status'], b
for t in d['tests']:
    assert t['build_id'] in builds and t['status'], t
assert len({t['id'] for t in d['tests']}) == len(d['tests'])
statuses = {(b['config_name'], b['status']) for b in d['builds']}
assert ('builtin', 'FAIL') in statuses and ('builtin', 'PASS') in statuses, statuses
assert {t['status'] for t in d['tests']} >= {'PASS', 'FAIL', 'MISS'}
EOF
}

@test "report: patchset_hash is KernelCI's, computed here again from the patch files, which rebuild each commit" {
	"$PY" - "$REPORT/kcidb.json" "$KTREE" "$BATS_TEST_TMPDIR/apply" <<'EOF'
import hashlib, json, subprocess, sys, urllib.parse
d, tree, work = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
def git(*args, cwd=tree):
    return subprocess.run(['git', '-C', cwd] + list(args), check=True, capture_output=True, text=True).stdout.strip()
# KCIDB: "a sha256 hash over newline-terminated sha256 hashes of each
# patch from the patchset, in order"; "" when there is none.
def kernelci_hash(blobs):
    if not blobs:
        return ''
    return hashlib.sha256(''.join(hashlib.sha256(b).hexdigest() + '\n' for b in blobs).encode()).hexdigest()
base = git('rev-parse', 'ext4dev-base^{commit}')
series = git('rev-list', '--reverse', 'ext4dev-base..ext4-rename').split()
seen = 0
for c in d['checkouts']:
    commit = c['misc']['commit']
    files = c.get('patchset_files', [])
    blobs = [open(urllib.parse.unquote(urllib.parse.urlparse(f['url']).path), 'rb').read() for f in files]
    assert c['patchset_hash'] == kernelci_hash(blobs), (commit, c['patchset_hash'])
    if commit not in series:
        assert c['patchset_hash'] == '' and not files, c
        continue
    seen += 1
    k = series.index(commit) + 1
    assert c['git_commit_hash'] == base and len(files) == k, c
    assert kernelci_hash(blobs[::-1]) != c['patchset_hash'] or k == 1
    # git apply of the files, in order, onto the base gives the commit's tree.
    subprocess.run(['git', 'clone', '-q', '--no-checkout', tree, work + str(k)], check=True)
    git('checkout', '-q', base, cwd=work + str(k))
    for blob in blobs:
        subprocess.run(['git', '-C', work + str(k), 'apply', '--index', '-'], input=blob, check=True)
    assert git('write-tree', cwd=work + str(k)) == git('rev-parse', commit + '^{tree}'), commit
assert seen == 2
EOF
	# And with the shell command KCIDB's documentation gives.
	[ "$(cd "$REPORT/patches" && sha256sum ./*.patch | cut -c-64 | sha256sum | cut -c-64)" = \
		"$("$PY" -c 'import json, sys; print([c for c in json.load(open(sys.argv[1]))["checkouts"] if c["misc"]["commit"] == sys.argv[2]][0]["patchset_hash"])' "$REPORT/kcidb.json" "$P2")" ]
}

@test "report: a failing commit gets a kernel test robot report, its new errors marked >>" {
	local short=${P2:0:12} text
	text=$REPORT/$short-builtin.txt
	grep -qx "$text" "$BATS_FILE_TMPDIR/report.out"
	[ -f "$REPORT/$short-carried-debian.txt" ]
	[ -f "$REPORT/$short-w1.txt" ]
	[ "$(find "$REPORT" -maxdepth 1 -name '*.txt' | wc -l)" -eq 3 ]
	grep -q "^base:     $(g rev-parse 'ext4dev-base^{commit}')$" "$text"
	grep -q "^commit:   $P2 (\"ext4: rename the ext4dev module and filesystem type to ext4\")$" "$text"
	grep -q '^config:   x86_64-builtin (file://.*\.config)$' "$text"
	grep -q '^compiler: gcc-12.2.0$' "$text"
	grep -A1 '^reproduce:$' "$text" | grep -q "git checkout -q --detach $P2 && .*bisect-tests/run --variant builtin"
	grep -qx ">> fs/ext4/super.c:1:33: error: 'EXT4DEV_MAGIC' undeclared (first use in this function)" "$text"
	grep -q '^All errors (new ones prefixed by >>):$' "$text"
	# The W=1 report marks only the warning its parent did not have.
	grep -qx ">> fs/ext4/super.c: warning: 'ext4_dead' defined but not used \[-Wunused-function\]" "$REPORT/$short-w1.txt"
	grep -qx "   fs/ext4/super.c: warning: no previous prototype for 'ext4_fill_super' \[-Wmissing-prototypes\]" "$REPORT/$short-w1.txt"
	grep -q '^>> carried-debian: .*kconfig=lost' "$REPORT/$short-carried-debian.txt"
	sed 's/^/# /' "$text" >&3
}

@test "report: a run dir that a later run has taken gives the note no logs and no config" {
	local short=${P2:0:12} run=$KBRANCH_WORK/runs/builtin
	work_copy
	# The note names the shared run dir; a later run there has another id.
	echo run-later >"$run/run-id"
	"$KBRANCH" report >/dev/null || { echo run-p2 >"$run/run-id"; return 1; }
	echo run-p2 >"$run/run-id"
	[ -f "$REPORT/$short-builtin.txt" ]
	[ ! -e "$REPORT/logs/$short-builtin" ]
	[ ! -e "$REPORT/logs/$short-builtin.config" ]
	grep -q '^config:   x86_64-builtin$' "$REPORT/$short-builtin.txt"
}

@test "report: the schema refuses v4's valid, an unprefixed id, a missing build_id, a git:// repository URL, a bad status, hash or URL" {
	validate "$REPORT/kcidb.json"
	run refused \
		'b = d["builds"][0]; b["valid"] = b.pop("status") == "PASS"' "'valid' was unexpected" \
		'd["builds"][0]["id"] = d["builds"][0]["id"].split(":", 1)[1]' "does not match" \
		'del d["tests"][0]["build_id"]' "'build_id' is a required property" \
		'del d["builds"][0]["checkout_id"]' "'checkout_id' is a required property" \
		'd["checkouts"][0]["git_repository_url"] = "git://127.0.0.1:9418/ext4.git"' "does not match '^https://" \
		'd["tests"][0]["status"] = "BAD"' "is not one of" \
		'd["checkouts"][-1]["patchset_hash"] = "abc"' "does not match" \
		'd["checkouts"][-1]["patchset_files"][0]["url"] = "patches/0001.patch"' "url: 'patches/0001.patch' does not match" \
		'd["version"] = {"major": 4, "minor": 3}' "5 was expected" \
		'd["builds"][0]["origin"] = "KBranch"' "does not match"
	printf '%s\n' "$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
}

@test "report: an https public URL is git_repository_url; a git:// one (KCIDB v5 refuses it there) only the checkout's misc" {
	work_copy
	g config kbranch.public-url https://git.example.org/ext4.git
	"$KBRANCH" report >/dev/null
	validate "$REPORT/kcidb.json"
	"$PY" -c 'import json, sys; assert all(c["git_repository_url"] == "https://git.example.org/ext4.git" for c in json.load(open(sys.argv[1]))["checkouts"])' "$REPORT/kcidb.json"
	g config kbranch.public-url git://127.0.0.1:9418/ext4.git
	g config kbranch.report-url https://ci.example.org/ext4/report/
	"$KBRANCH" report >/dev/null
	validate "$REPORT/kcidb.json"
	"$PY" - "$REPORT/kcidb.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['checkouts']:
    assert 'git_repository_url' not in c and c['misc']['git_url'] == 'git://127.0.0.1:9418/ext4.git', c
    for f in c.get('patchset_files', []):
        assert f['url'] == 'https://ci.example.org/ext4/report/patches/' + f['name'], f
EOF
}

@test "report: bad input is one line and writes nothing: an argument, a URL that is not one, no notes" {
	work_copy
	rm -rf "$REPORT"
	must_fail_with_one_line "$KBRANCH" report --json
	g config kbranch.public-url /srv/ext4.git
	must_fail_with_one_line "$KBRANCH" report
	[[ "$stderr" == *"kbranch.public-url '/srv/ext4.git'"* ]]
	g config --unset kbranch.public-url
	g config kbranch.report-url ftp://example.org/report
	must_fail_with_one_line "$KBRANCH" report
	[[ "$stderr" == *"kbranch.report-url"* ]]
	g config --unset kbranch.report-url
	[ ! -e "$REPORT" ]
	g update-ref -d refs/notes/kbranch
	must_fail_with_one_line "$KBRANCH" report
	[[ "$stderr" == *"no verify results"* ]]
}

# lib/notes.sh is the one reader of a note line: kcidb-report gets a note's
# fields as note.key= fields and refuses a build record without them (the
# raw line, as it once took, among them).
@test "report: kcidb-report reads note fields, not note lines: a record with only note=<line> is refused in one line" {
	must_fail_with_one_line "$REPO/branch-scripts/libexec/kcidb-report" < <(
		printf 'report\tdir=%s\torigin=kbranch\tbranch=b\turl=\trepo=\trepo_other=\n' "$BATS_TEST_TMPDIR"
		printf 'build\tcommit=0123456789ab\tvariant=builtin\tkind=built\tnote=kbranch-verify verdict=good\n')
	[[ "$stderr" == *"lacks note.verdict="* ]]
}
