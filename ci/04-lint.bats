#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# The fast tier's lint, first of all: every check in ci/*.bats must be able
# to fail.  bats runs a test under errexit, and errexit ignores a failure
# anywhere in "a && b" but in b, and the status of "! cmd", unless that
# command ends the test: such a check passes whatever it checks.

load helpers

# Prints each check in the given files that bats would not see fail, as
# "file:line: «test»: command: why", and fails if there is one.
ignored_checks() {
	python3 - "$@" <<'PY'
import re
import subprocess
import sys

# bash itself parses each file (every @test made a function, the whole
# file wrapped in one) and "declare -f" prints it back normalised: one
# command per line, indented by its depth, comments gone.  What is left is
# to find, outside quotes, here-documents and $(...), the commands whose
# failure errexit, so bats, never sees: a list that fails before its last
# "&&", or a "! command", anywhere but at the end of the test (or of what
# ends it); and a check whose "|| echo" makes it unable to fail.  In a
# test, also: a check whose "|| true", "|| :" or "|| return 0" makes it
# unable to fail (a command that is no check, "wait $pid || true", may
# fail as it likes); a "run" whose $status the test reads neither before
# its next "run" nor before its end, unless written "run -N" or "run !"
# (bats then checks the status itself): run never fails, so what it ran
# fails unseen (a run in a helper leaves $status to its caller); and a
# "run ! grep", which grep's own error (status 2, a missing file) passes
# as well as no match: "run grep ...; [ "$status" -eq 1 ]" tells them apart.

TEST_RE = re.compile(r'^(\s*)@test\s+(.*\S)\s+\{\s*$')
CONTROL = ('false', 'return', 'exit', 'break', 'continue')
CHECKS = ('[', '[[', 'test', 'grep', 'cmp', 'diff', '!')


def normalised(path):
    names, out = {}, []
    with open(path) as f:
        src = f.read().split('\n')
    for n, line in enumerate(src, 1):
        m = TEST_RE.match(line)
        if m:
            names['__lint_test_%d' % n] = (n, m.group(2))
            line = '%s__lint_test_%d () {' % (m.group(1), n)
        out.append(line)
    wrapped = '__lint_file () {\n%s\n}\n' % '\n'.join(out)
    r = subprocess.run(['bash', '-c', 'eval "$1" && declare -f __lint_file', '_', wrapped],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('%s: bash cannot parse it: %s' % (path, r.stderr.strip()))
    return src, names, r.stdout.split('\n')


def lex(lines, docs):
    """Per line: does it start outside quotes, and its code outside them
    (quoted text, $(...) and [[ ... ]] emptied).  The numbers of the
    here-documents' lines are added to set docs."""
    stack, heredocs, in_doc, result = [], [], None, []
    for n, line in enumerate(lines):
        if in_doc is not None:
            strip, word = in_doc
            if (line.lstrip('\t') if strip else line) == word:
                in_doc = heredocs.pop(0) if heredocs else None
            docs.add(n)
            result.append((False, ''))
            continue
        start = not stack
        code, i = [], 0
        while i < len(line):
            c, top = line[i], stack[-1] if stack else None
            if top == "'":
                if c == "'":
                    stack.pop()
            elif top == '$\'':
                if c == '\\':
                    i += 1
                elif c == "'":
                    stack.pop()
            elif top == '"':
                if c == '\\':
                    i += 1
                elif c == '"':
                    stack.pop()
                elif line.startswith('$(', i):
                    stack.append(0)
                    i += 1
            else:
                m = re.match(r'<<(-?)\s*([\'"]?)([A-Za-z_][A-Za-z_0-9]*)\2', line[i:])
                if c == '\\':
                    i += 1
                elif line.startswith('<<<', i):
                    i += 2
                elif m:
                    heredocs.append((m.group(1) == '-', m.group(3)))
                    i += len(m.group(0)) - 1
                elif c == "'":
                    stack.append("'")
                elif line.startswith("$'", i):
                    stack.append('$\'')
                    i += 1
                elif c == '"':
                    stack.append('"')
                elif line.startswith('$(', i):
                    stack.append(0)
                    i += 1
                elif isinstance(top, int) and c == '(':
                    stack[-1] += 1
                elif isinstance(top, int) and c == ')':
                    if top == 0:
                        stack.pop()
                    else:
                        stack[-1] -= 1
                elif top is None:
                    code.append(c)
            i += 1
        if heredocs and not stack:
            in_doc = heredocs.pop(0)
        text = re.sub(r'\[\[ .*? \]\]', '[[ ]]', ''.join(code))
        result.append((start, text))
    return result


def indent(line):
    return len(line) - len(line.lstrip(' '))


class File:
    def __init__(self, path):
        self.path = path
        self.src, self.names, self.lines = normalised(path)
        self.docs = set()
        lexed = lex(self.lines, self.docs)
        # Statements: lines that start outside quotes, their code joined
        # with the lines that continue them.
        self.stmts = []
        for n, (start, code) in enumerate(lexed):
            if start and not self.lines[n].strip():
                continue
            # A list left open by a here-document goes on after its end.
            if start and not (self.stmts and re.search(r'(&&|\|\|?)\s*$', self.stmts[-1][1])):
                self.stmts.append([n, code.strip()])
            elif self.stmts:
                self.stmts[-1][1] += ' ' + code.strip()
        self.src_line = self.map_lines()

    def indent(self, i):
        return indent(self.lines[self.stmts[i][0]])

    def code(self, i):
        return self.stmts[i][1]

    def opener(self, i):
        for j in range(i - 1, -1, -1):
            if self.indent(j) < self.indent(i):
                return j
        return None

    def closer(self, j, word):
        for k in range(j + 1, len(self.stmts)):
            if self.indent(k) == self.indent(j) and self.code(k).startswith(word):
                return k
            if self.indent(k) < self.indent(j):
                return None
        return None

    def last(self, i):
        for k in range(i + 1, len(self.stmts)):
            if self.indent(k) <= self.indent(i):
                return self.indent(k) < self.indent(i)
        return True

    def reaches_test(self, i):
        """Does a failure of statement i (or of the compound command that
        line i closes), ignored by errexit inside it, still fail the
        function it is in?"""
        if not self.last(i):
            return False
        j = self.opener(i)
        if j is None:
            return False
        code = self.code(j)
        if code == '{' and j > 0 and re.match(r'^(function\s+)?\S+\s*\(\)$', self.code(j - 1)):
            return True
        if code.endswith('{'):
            k = self.closer(j, '}')
            if k is None:
                return False
            after = self.code(k)[1:].strip()
            return after.startswith('||') or (after == '' and self.reaches_test(k))
        if code.endswith('then') or code == 'else':
            # Back over its else lines, at its own indent, to the if.
            level = self.indent(j)
            while not self.code(j).startswith('if '):
                j -= 1
                if j < 0 or self.indent(j) < level:
                    return False
            k = self.closer(j, 'fi')
            return k is not None and self.reaches_test(k)
        return False

    def map_lines(self):
        """The source line of each statement: bash reprints them spaced
        its own way, in the same order, so each is looked for (spaces
        aside) after the one before."""
        src = [re.sub(r'\s+', '', line) for line in self.src]
        at, col, lines = 1, 0, []
        for n, code in self.stmts:
            f = re.match(r'^\s*(?:function\s+)?__lint_test_(\d+) \(\)', self.lines[n])
            want = re.sub(r'\s+', '', self.lines[n]).rstrip(';')[:40]
            if f:
                at, col = int(f.group(1)), len(src[int(f.group(1)) - 1])
            # Keywords alone say nothing of where they are.
            elif want not in ('{', '}', 'do', 'done', 'then', 'else', 'fi', 'esac', ';;', ':'):
                for m in range(at, min(at + 50, len(src) + 1)):
                    c = src[m - 1].find(want, col if m == at else 0)
                    if c >= 0:
                        at, col = m, c + len(want)
                        break
            lines.append(at)
        return lines

    def function(self, i):
        """The line of the function statement i is in, and its indent."""
        n = self.stmts[i][0]
        for m in range(n, -1, -1):
            if re.match(r'^\s*(?:function\s+)?\S+\s*\(\)\s*$', self.lines[m]) and \
                    indent(self.lines[m]) < indent(self.lines[n]):
                return m, indent(self.lines[m])
        return 0, -1

    def run_options(self, i):
        """The options of run statement i ("!", "-1", "--separate-stderr")
        and the command it runs, as words."""
        words = self.code(i).split()[1:]
        options = []
        while words and (words[0].startswith('-') or words[0] == '!'):
            options.append(words.pop(0))
        return options, words

    def status_unread(self, i):
        """Is run statement i's $status read by no line (here-documents
        aside) before the next run, or the end of its function?"""
        level = self.function(i)[1]
        end = len(self.lines)
        for k in range(i + 1, len(self.stmts)):
            if self.indent(k) <= level or self.code(k).split()[:1] == ['run']:
                end = self.stmts[k][0]
                break
        text = '\n'.join(self.lines[n] for n in range(self.stmts[i][0] + 1, end) if n not in self.docs)
        return not re.search(r'\$\{?status\b|\(\(\s*status\b', text)

    def where(self, i):
        n = self.stmts[i][0]
        for m in range(n, -1, -1):
            f = re.match(r'^\s*(?:function\s+)?(\S+)\s*\(\)\s*$', self.lines[m])
            if f and indent(self.lines[m]) < indent(self.lines[n]):
                if f.group(1) in self.names:
                    return '«%s»' % self.names[f.group(1)][1][1:-1]
                if f.group(1) != '__lint_file':
                    return 'in %s()' % f.group(1)
                break
        return 'at the top level'

    def problems(self):
        for i, (n, code) in enumerate(self.stmts):
            depth, top, pos = 0, [], 0
            while pos < len(code):
                if code[pos] == '(':
                    depth += 1
                elif code[pos] == ')':
                    depth -= 1
                    # The end of a subshell: what came before it is its own.
                    if depth < 0:
                        top, depth = [], 0
                elif code[pos:pos + 2] in ('&&', '||') and depth == 0:
                    top.append((pos, code[pos:pos + 2]))
                    pos += 1
                pos += 1
            head = code.split()[0] if code.split() else ''
            why = None
            if head in ('if', 'elif', 'while', 'until'):
                pass
            elif top and top[-1][1] == '&&':
                tail = code[top[-1][0] + 2:].strip().rstrip(';').split()
                if (not tail or tail[0] not in CONTROL) and not self.reaches_test(i):
                    why = 'bats does not see a failure before the last && (one check a line, or one [[ ]])'
            elif head == '!' and not (top and top[-1][1] == '||') and not self.reaches_test(i):
                why = "bats does not see a '! command' fail but at the end (add '|| false')"
            # In a helper, printing may be the point ("prints each bad line").
            elif top and top[-1][1] == '||' and head in CHECKS and self.where(i).startswith('«') and \
                    code[top[-1][0] + 2:].split()[:1] in (['echo'], ['printf']):
                why = "it cannot fail, it only prints (make it '|| { echo ...; false; }')"
            elif top and top[-1][1] == '||' and head in CHECKS and self.where(i).startswith('«') and \
                    code[top[-1][0] + 2:].strip().rstrip(';') in ('true', ':', 'return 0'):
                why = "it cannot fail, its failure is ignored"
            elif head == 'run' and self.where(i).startswith('«'):
                options, command = self.run_options(i)
                if '!' in options and command[:1] == ['grep']:
                    why = "grep's error (status 2) passes it as well as no match (make it 'run grep ...; [ \"$status\" -eq 1 ]')"
                elif '!' not in options and not any(re.match(r'^-[0-9]+$', o) for o in options) and \
                        self.status_unread(i):
                    why = "its $status is never read (check it, or write 'run -N' or 'run !')"
            if why:
                yield '%s:%d: %s: %s: %s' % (self.path, self.src_line[i], self.where(i),
                                              self.lines[n].strip().rstrip(';'), why)


found = False
for path in sys.argv[1:]:
    for problem in File(path).problems():
        print(problem)
        found = True
sys.exit(1 if found else 0)
PY
}

@test "lint: a check bats would not see fail is named with its file, line and test; the forms it sees fail are not" {
	local fixture=$BATS_TEST_TMPDIR/fixture.bats
	# Written @@test here: bats would take an @test line in this file for
	# a test of its own.
	sed 's/^@@test /@test /' >"$fixture" <<'FIXTURE'
#!/usr/bin/env bats

@@test "a fixture: each line marked 'ignored' is a check bats would not see fail" {
	[ a = a ] && [ b = b ] # ignored
	! false # ignored
	[ a = b ] || echo "not a" # ignored
	grep -q x f || printf 'none\n' # ignored
	for x in 1 2; do
		[ "$x" = 1 ] && [ b = b ] # ignored
	done
	if true; then
		[ a = a ] && [ b = b ] # ignored
	elif false; then
		:
	else
		[ a = a ] && [ b = b ] # ignored
	fi
	{ [ a = a ] && [ b = b ]; } # ignored
	run true; [ "$status" -eq 0 ] && [ "$output" = "" ]; true # ignored
	grep -q x f || true # ignored
	[ -f f ] || : # ignored
	[ a = b ] || return 0 # ignored
	run false # ignored
	[ "$output" = "" ]
	run ! grep -q x f # ignored
	run --separate-stderr false # ignored
	[ -z "$stderr" ]
	wait "$!" || true
	run -1 false
	run ! false
	run false
	echo "$output"
	[ "$status" -eq 1 ]
	for x in 1 2; do
		run true
	done
	(( status == 0 ))
	run -2 grep -q x /nonexistent
	[[ a && b ]]
	x=$(true && false)
	(cd / && true)
	( cd /
	  [ a = a ] && [ b = b ] )
	{ [ a = a ] && [ b = b ]; } || return 1
	! false || false
	true && false
	[ a = a ] || { echo 'a is not a' && false; }
	awk 'a &&
	b' /dev/null
	cat <<-X
	a && b
	! c
	X
	cat <<'Y' && true # ignored
x && y
Y
	echo "$(a && b) && c" '&& d' $'\' && e'
	if true && false; then :; fi
	true && false || true
	[ a = a ] && [ b = b ]
}

helper() {
	local l
	while read -r l; do
		[ "$l" = x ] && return 0
		[ "$l" != y ] || echo "a helper that prints the bad lines"
	done
	run false
	[ a = a ] && [ b = b ]
}

last_if() {
	if [ "$1" ]; then
		[ a = a ] && [ b = b ]
	else
		! true
	fi
}

@@test "a fixture: the if is not last" {
	if true; then
		{
			[ a = a ] && [ b = b ] # ignored
		}
	fi
	true
	run false # ignored
}
FIXTURE
	run ignored_checks "$fixture"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(cut -d: -f2 <<<"$output")" = "$(grep -n '# ignored' "$fixture" | cut -d: -f1)" ]
	[[ "${lines[0]}" == "$fixture:4: «a fixture: each line marked 'ignored' is a check bats would not see fail»: [ a = a ] && [ b = b ]: bats does not see"* ]]
	[[ "${lines[1]}" == *": ! false: bats does not see a '! command' fail but at the end"* ]]
	[[ "${lines[2]}" == *": [ a = b ] || echo \"not a\": it cannot fail, it only prints"* ]]
	[[ "${lines[9]}" == *": grep -q x f || true: it cannot fail, its failure is ignored" ]]
	[[ "${lines[12]}" == *": run false: its \$status is never read"* ]]
	[[ "${lines[13]}" == *": run ! grep -q x f: grep's error (status 2) passes it"* ]]
	[[ "${lines[14]}" == *": run --separate-stderr false: its \$status is never read"* ]]
	[[ "${lines[16]}" == "$fixture:84: «a fixture: the if is not last»: "* ]]
	[[ "${lines[17]}" == "$fixture:88: «a fixture: the if is not last»: run false: its \$status is never read"* ]]
}

# What the lint stands on, seen in bats itself: each form passes a test
# whose check fails, and each rewritten form fails it.
@test "bats passes a test whose failing check is a && list, a '! command', a '|| echo' or a '|| true' before its end, a run whose status is not read or a 'run ! grep' whose grep errs, and fails the rewritten ones" {
	local file=$BATS_TEST_TMPDIR/forms.bats
	sed 's/^@@test /@test /' >"$file" <<'FORMS'
@@test "and" {
	[ 1 = 2 ] && [ 2 = 2 ]
	true
}
@@test "not" {
	! true
	true
}
@@test "or echo" {
	[ 1 = 2 ] || echo "1 is not 2"
}
@@test "or true" {
	[ 1 = 2 ] || true
	true
}
@@test "run, its status unread" {
	run false
	[ "$output" = "" ]
}
@@test "run ! grep, grep failing" {
	run ! grep -q x "$BATS_TEST_TMPDIR/missing"
}
@@test "and, last in a loop" {
	for x in 1 2; do [ "$x" = 2 ] && [ 2 = 2 ]; done
	true
}
@@test "and, rewritten" {
	[ 1 = 2 ]
	[ 2 = 2 ]
	true
}
@@test "not, rewritten" {
	! true || false
	true
}
@@test "or echo, rewritten" {
	[ 1 = 2 ] || { echo "1 is not 2"; false; }
}
@@test "or true, rewritten" {
	[ 1 = 2 ]
	true
}
@@test "run, its status unread, rewritten" {
	run false
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}
@@test "run ! grep, grep failing, rewritten" {
	run grep -q x "$BATS_TEST_TMPDIR/missing"
	[ "$status" -eq 1 ]
}
FORMS
	run bats --tap "$file"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq 7 ]
	[ "$(grep -c '^not ok .*, rewritten$' <<<"$output")" -eq 6 ]
}

@test "lint: no check in ci/*.bats is one that bats would not see fail" {
	cd "$REPO"
	run ignored_checks ci/*.bats ci/helpers.bash ci/bisect-helpers.bash
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# The repository's bash that runs under a shell option, read from the
# files themselves: each program (a #! line naming bash) with a "set" line
# of its own that matches ERE $1, and each file it sources (a "shellcheck
# shell=bash" line, no #!), which runs under its sourcer's options.  bats'
# files aside (ci/*.bats, ci/*.bash): bats runs them, and the lint above
# reads them.
bash_files() {
	local sets=$1 f head
	git -C "$REPO" ls-files | while read -r f; do
		case $f in ci/*.bats | ci/*.bash) continue ;; esac
		head=$(sed -n 1,3p "$REPO/$f" | tr -d '\0')
		if [[ "${head%%$'\n'*}" == '#!'*bash* ]]; then
			grep -qE "^set $sets" "$REPO/$f" || continue
		elif [[ "$head" != *'shellcheck shell=bash'* ]]; then
			continue
		fi
		printf '%s\n' "$f"
	done
}

# Everything that runs under set -e.
set_e_files() {
	bash_files '(-[a-zA-Z]*e|.* -o errexit)'
}

# The set-e findings of shellcheck (SC2310: a function called in a condition,
# where set -e stops holding inside it) of each file given, checked under
# the set -e it runs in (a sourced file is checked as if it began with
# the set -euo pipefail of the program that sources it): "N file" lines.
# Fails if shellcheck does not run (status 2 and up: 1 is findings).
set_e_findings() {
	local f copy rc found bad=0
	for f in "$@"; do
		copy=$BATS_TEST_TMPDIR/sete/$f
		mkdir -p "${copy%/*}"
		{ printf '#!/bin/bash\nset -euo pipefail\n'; cat "$f"; } >"$copy" || return 1
		rc=0
		found=$(shellcheck -x -o check-set-e-suppressed -f gcc "$copy") || rc=$?
		[ "$rc" -le 1 ] || { printf 'shellcheck failed on %s: status %s\n' "$f" "$rc"; bad=1; }
		printf '%s %s\n' "$(grep -c '\[SC2310\]' <<<"$found" || true)" "$f"
	done
	return "$bad"
}

# The set -e lints' positive control, which each must report: a function
# called in a condition, in the file that defines it (sete-def.sh, line 6)
# and in another (sete-call.sh, line 3), seen only with both as one program.
set_e_fixture() {
	cat >"$BATS_TEST_TMPDIR/sete-def.sh" <<'DEF'
# shellcheck shell=bash
sete_fixture() {
	false
	echo "set -e did not stop sete_fixture"
}
sete_fixture || echo "sete_fixture failed"
DEF
	cat >"$BATS_TEST_TMPDIR/sete-call.sh" <<'CALL'
# shellcheck shell=bash
# A function of another file, called in a condition.
if sete_fixture; then :; fi
CALL
}

@test "set -e holds: no program and no file it sources calls a function where set -e stops holding" {
	local files=()
	set_e_fixture
	cd "$REPO"
	mapfile -t files < <(set_e_files)
	[ "${#files[@]}" -gt 50 ]
	run set_e_findings "$BATS_TEST_TMPDIR/sete-def.sh" "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	# The fixture's finding, and no other.
	[ "$(grep -v '^0 ' <<<"$output")" = "1 $BATS_TEST_TMPDIR/sete-def.sh" ]
}

# The same, for files $@ checked as one program: shellcheck sees a
# function of one file called in a condition in another only so.  One
# "file:line: function" line per finding.  Fails if shellcheck does not run.
set_e_program_findings() {
	local all=$BATS_TEST_TMPDIR/program.sh f n=3 starts=() s line col first file rc=0
	printf '#!/bin/bash\nset -euo pipefail\nshopt -s inherit_errexit\n' >"$all"
	for f in "$@"; do
		starts+=("$((n + 1)) $f")
		cat "$f" >>"$all" || return 1
		n=$((n + $(wc -l <"$f")))
	done
	shellcheck -o check-set-e-suppressed -f gcc "$all" >"$all.found" || rc=$?
	[ "$rc" -le 1 ] || { printf 'shellcheck failed: status %s\n' "$rc"; return 1; }
	while IFS=: read -r _ line col _; do
		for s in "${starts[@]}"; do
			[ "${s%% *}" -gt "$line" ] || { first=${s%% *} file=${s#* }; }
		done
		printf '%s:%s: %s\n' "$file" "$((line - first + 1))" \
			"$(sed -n "${line}p" "$all" | cut -c"$col"- | grep -oE '^[A-Za-z_][A-Za-z0-9_]*')"
	done < <(grep '\[SC2310\]' "$all.found" || true)
}

@test "set -e holds across kbranch's files checked as one program, kgit (one git command, where set -e has nothing to stop) aside" {
	set_e_fixture
	cd "$REPO"
	# kgit is one command: were it more, set -e off inside it would matter.
	[ "$(bash -c '. branch-scripts/lib/common.sh; declare -f kgit' | sed -n '3,$p')" = '    git -C "$KTREE" -c user.name=kbranch -c user.email=kbranch@localhost "$@"
}' ]
	run set_e_program_findings "$BATS_TEST_TMPDIR/sete-def.sh" branch-scripts/kbranch branch-scripts/lib/*.sh \
		branch-scripts/cmd/*.sh bisect-tests/lib/compiler.sh bisect-tests/lib/compat.sh bisect-tests/lib/registry.sh \
		"$BATS_TEST_TMPDIR/sete-call.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	# The fixture's findings, and no other.
	[ "$(grep -v ': kgit$' <<<"$output")" = "$BATS_TEST_TMPDIR/sete-def.sh:6: sete_fixture
$BATS_TEST_TMPDIR/sete-call.sh:3: sete_fixture" ]
}

@test "set -e holds across bisect-tests' files checked as one program" {
	set_e_fixture
	cd "$REPO"
	run set_e_program_findings "$BATS_TEST_TMPDIR/sete-def.sh" bisect-tests/lib/*.sh bisect-tests/run \
		"$BATS_TEST_TMPDIR/sete-call.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	# The fixture's findings, and no other.
	[ "$output" = "$BATS_TEST_TMPDIR/sete-def.sh:6: sete_fixture
$BATS_TEST_TMPDIR/sete-call.sh:3: sete_fixture" ]
}

# Everything that runs under set -o pipefail.
pipefail_files() {
	bash_files '(-[a-zA-Z]*o |.* -o )pipefail'
}

# A pipe into a reader that stops before its input ends (head, grep -q or
# -m, a sed script that quits, an awk program that exits): the writer is
# killed by SIGPIPE whenever it writes after the reader left, and under
# pipefail the pipeline fails, by turns.  git rev-list writes a line at a
# time: "rev-list | head -n 1" failed 44 times in 300 here, and submit
# stopped silently in CI.  A pipe is read as bash reads it: across a line
# that ends in "|" or "\", in $(...), not in quotes, comments or
# here-documents.  "file:line: text (why)" lines, the line the reader
# starts on, for the files given.
early_reader_findings() {
	python3 - "$@" <<'PY'
import re
import shlex
import sys


def readers(text):
    """(line, text) of each command that reads a pipe (in an unquoted
    here-document, in its $(...))."""
    stack, open_, heredocs, found = [], [], [], []
    i, line = 0, 1

    def end(depth):
        # The commands after a pipe at this depth or deeper end here.
        while open_ and open_[-1][1] >= depth:
            at, _, first = open_.pop()
            found.append((first, text[at:i]))

    while i < len(text):
        c = text[i]
        top = stack[-1] if stack else None
        if c == '\n':
            line += 1
        if top == "'":
            if c == "'":
                stack.pop()
        elif top == '"':
            if c == '\\':
                i += 1
            elif c == '"':
                stack.pop()
            elif text.startswith('$(', i):
                stack.append('(')
                i += 1
        elif top == '${':
            if c == '}':
                stack.pop()
        elif c == '\\':
            if text.startswith('\n', i + 1):
                line += 1
            i += 1
        elif c == '#' and (i == 0 or text[i - 1] in ' \t\n;'):
            while i + 1 < len(text) and text[i + 1] != '\n':
                i += 1
        elif c in '\'"':
            stack.append(c)
        elif text.startswith('${', i):
            stack.append('${')
            i += 1
        elif c == '(':
            stack.append('(')
        elif c == ')':
            end(len(stack))
            if stack:
                stack.pop()
        elif text.startswith('<<<', i):
            i += 2
        elif re.match(r'<<-?\s*([\'"]?)[A-Za-z_][A-Za-z_0-9]*\1', text[i:]):
            m = re.match(r'<<(-?)\s*([\'"]?)([A-Za-z_][A-Za-z_0-9]*)\2', text[i:])
            heredocs.append((m.group(1) == '-', m.group(3), m.group(2) == ''))
            i += len(m.group(0)) - 1
        elif text.startswith('||', i):
            end(len(stack))
            i += 1
        elif c == '|':
            end(len(stack))
            if text.startswith('|&', i):
                i += 1
            open_.append([i + 1, len(stack), None])
        elif c in ';&\n':
            # A line that ends in a pipe goes on after it.
            if not (c == '\n' and open_ and open_[-1][1] == len(stack) and open_[-1][2] is None):
                end(len(stack))
            if c == '\n' and heredocs:
                for strip, word, expands in heredocs:
                    while i < len(text):
                        j = text.find('\n', i + 1)
                        j = len(text) if j < 0 else j
                        body, i = text[i + 1:j], j
                        line += 1
                        if (body.lstrip('\t') if strip else body) == word:
                            break
                        for m in re.finditer(r'\$\((.*)\)', body if expands else ''):
                            found.extend((line - 1, cmd) for _, cmd in readers(m.group(1)))
                heredocs = []
                line -= 1
                continue
        if open_ and open_[-1][2] is None and not c.isspace() and c not in '|&\\#':
            open_[-1][2] = line
        i += 1
    end(0)
    return found


def sed_quits(script):
    """Does sed script quit (q, Q) before its input ends?"""
    i = 0
    while i < len(script):
        c = script[i]
        if c in '/\\':
            # An address: /re/ or \cREc.
            delim = '/' if c == '/' else script[i + 1:i + 2]
            i += 1 if c == '/' else 2
            while i < len(script) and script[i] != delim:
                i += 2 if script[i] == '\\' else 1
        elif c in 'qQ':
            return True
        elif c in 'sy':
            delim, parts, i = script[i + 1:i + 2], 0, i + 2
            while i < len(script) and parts < 2:
                if script[i] == '\\':
                    i += 1
                elif script[i] == delim:
                    parts += 1
                i += 1
            while i < len(script) and script[i].isalnum():
                i += 1
            continue
        elif c in 'aicbtTrRwWe:':
            # Text, a label or a file name: to the end of the command
            # (of the line, for text).
            while i < len(script) and script[i] != '\n' and (c in 'aic' or script[i] != ';'):
                i += 1
        i += 1
    return False


def early(cmd):
    """Why command cmd (the text after a pipe) stops reading early, or None."""
    try:
        words = shlex.split(cmd.replace('\\\n', ' '), comments=True)
    except ValueError:
        words = cmd.split()
    if not words:
        return None
    name, args = words[0], words[1:]
    options = []
    for a in args:
        if a == '--':
            break
        if a.startswith('-') and a != '-':
            options.append(a)
    if name == 'head':
        return 'head'
    if name == 'grep' and any(re.match(r'^(-[a-zA-Z]*[qm]|--(quiet|silent|max-count))', o) for o in options):
        return 'grep -q or -m'
    if name == 'sed':
        scripts, k = [], 0
        while k < len(args):
            a = args[k]
            if a in ('-e', '--expression') and k + 1 < len(args):
                scripts.append(args[k + 1])
                k += 1
            elif a.startswith('--expression='):
                scripts.append(a.split('=', 1)[1])
            elif re.match(r'^-[a-zA-Z]*e.', a):
                scripts.append(a[a.index('e') + 1:])
            elif re.match(r'^(-[a-zA-Z]*f|--file)', a):
                return None
            elif not a.startswith('-') and not scripts:
                scripts.append(a)
                break
            k += 1
        if any(sed_quits(x) for x in scripts):
            return 'a sed script that quits'
    if name in ('awk', 'gawk', 'mawk'):
        k = 0
        while k < len(args) and args[k].startswith('-') and args[k] != '--':
            if args[k] in ('-F', '-v'):
                k += 1
            elif args[k].startswith('-f'):
                return None
            k += 1
        program = re.sub(r'"(\\.|[^"\\])*"', '""', args[k] if k < len(args) else '')
        # An exit in END comes after the input is read.
        m = re.search(r'\bEND\s*\{', program)
        while m:
            depth, j = 0, m.end() - 1
            for j in range(m.end() - 1, len(program)):
                depth += {'{': 1, '}': -1}.get(program[j], 0)
                if depth == 0:
                    break
            program = program[:m.start()] + program[j + 1:]
            m = re.search(r'\bEND\s*\{', program)
        if re.search(r'\bexit\b', program):
            return 'an awk program that exits'
    return None


status = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        print('%s: %s' % (path, e.strerror))
        status = 1
        continue
    src = text.split('\n')
    for first, cmd in readers(text):
        why = early(cmd)
        if why:
            print('%s:%d: %s (%s)' % (path, first, src[first - 1].strip(), why))
sys.exit(status)
PY
}

# The lint's controls: each form of a pipe into an early reader is found,
# on the line its reader starts on (marked "early"), and none of the
# forms that read to the end, or are no pipe, is.
@test "lint: the early-reader lint finds each pipe into a reader that stops early, on one line or across two, and no pipe read to its end" {
	local fixture=$BATS_TEST_TMPDIR/early.sh
	cat >"$fixture" <<'FOUND'
# shellcheck shell=bash
git rev-list HEAD | head -n 1 # early
git rev-list HEAD | head -1 | cat # early
x=$(git rev-list HEAD | head -c 40) # early
y="$(git rev-list HEAD | grep -q x)" # early
git rev-list HEAD | grep -m1 x # early
git rev-list HEAD | grep -c -qE 'a|b' # early
git rev-list HEAD | grep --quiet x # early
git rev-list HEAD |& head -n 1 # early
git rev-list HEAD |
	head -n 1 # early
git rev-list HEAD | # the first
	grep -q x # early
git rev-list HEAD \
	| head -n 1 # early
git rev-list HEAD \
	| sed 1q # early
git rev-list HEAD | sed 1q # early
git rev-list HEAD | sed -n '1{p;q}' # early
git rev-list HEAD | sed -n '/^x/q; p' # early
git rev-list HEAD | sed -e 's/a/b/' -e 3Q # early
git rev-list HEAD | sed -ne '/x/{p;q;}' # early
git rev-list HEAD | awk '{ print; exit }' # early
git rev-list HEAD | awk -v n=1 'NR == n { print $1; exit 0 }' # early
git rev-list HEAD | awk -F: ' # early
	$1 == "x" { exit }'
git rev-list HEAD | awk 'END { print NR } /x/ { exit }' # early
if git rev-list HEAD | grep -q x; then :; fi # early
{ git rev-list HEAD || true; } | head -n 1 # early
cat <<-EOF
	The first: $(git rev-list HEAD | head -n 1) # early
	EOF
FOUND
	cat >>"$fixture" <<'FINE'
git rev-list HEAD | sed -n 1p
git rev-list HEAD | sed -n '$p' | sed -n 1,3p
git rev-list HEAD | sed 's/^q$/Q/; s/quit/x/'
git rev-list HEAD | sed -n '/quit/p; /^Q/d'
git rev-list HEAD | sed -e 'y/q/x/' -e 's|q|Q|g'
git rev-list HEAD | awk '{ n++ } END { print n }'
git rev-list HEAD | awk '!done { print; done = 1 }'
git rev-list HEAD | awk '{ print "exit" }'
git rev-list HEAD | awk '/x/ { f = 1 } END { if (!f) { exit 1 } }'
git rev-list HEAD | grep -c x
git rev-list HEAD | grep -vE 'q|m' || true
git rev-list HEAD | tee /dev/null | sort
grep -q x file || head -n 1 file
grep -m1 x file && sed 1q file
head -n 1 file; awk '{ exit }' file
echo 'a | head -n 1' "b | grep -q x" "${x//|/ head}"
# a | head -n 1
cat <<EOF | sort
a | head -n 1
b | sed 1q
EOF
cat <<-'EOF'
	a | awk '{ exit }'
	$(git rev-list HEAD | head -n 1)
	EOF
git rev-list HEAD |
	sort
FINE
	run early_reader_findings "$fixture"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cut -d: -f2 <<<"$output")" = "$(grep -n '# early' "$fixture" | cut -d: -f1)" ]
	[ "${lines[0]}" = "$fixture:2: git rev-list HEAD | head -n 1 # early (head)" ]
	[ "${lines[8]}" = "$fixture:11: head -n 1 # early (head)" ]
	[ "${lines[13]}" = "$fixture:19: git rev-list HEAD | sed -n '1{p;q}' # early (a sed script that quits)" ]
	[ "${lines[17]}" = "$fixture:23: git rev-list HEAD | awk '{ print; exit }' # early (an awk program that exits)" ]
}

@test "lint: no program pipes into a reader that stops early (head, grep -q or -m, a sed script that quits, an awk program that exits), which SIGPIPE fails under pipefail by turns" {
	local files=()
	mapfile -t files < <(pipefail_files)
	[ "${#files[@]}" -gt 50 ]
	cd "$REPO"
	run early_reader_findings "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# Functions defined at the top level of files $@ (one program) more than
# once: the definition sourced last silently replaces the others, and a
# caller meant for one runs the other.  One "name: file file..." line each.
defined_twice() {
	awk 'match($0, /^[A-Za-z_][A-Za-z0-9_]*\(\) *\{/) {
		name = substr($0, 1, index($0, "(") - 1); where[name] = where[name] " " FILENAME; n[name]++
	} END { for (name in n) if (n[name] > 1) print name ":" where[name] }' "$@" | sort
}

@test "lint: no program defines a function twice, where the one sourced last would replace the other unseen" {
	cd "$REPO"
	# The control: a name defined in two files is found, with both.
	printf 'twice() {\n\t:\n}\nonce() {\n\t:\n}\n' >"$BATS_TEST_TMPDIR/a.sh"
	printf 'twice() {\n\t:\n}\n' >"$BATS_TEST_TMPDIR/b.sh"
	[ "$(defined_twice "$BATS_TEST_TMPDIR/a.sh" "$BATS_TEST_TMPDIR/b.sh")" = "twice: $BATS_TEST_TMPDIR/a.sh $BATS_TEST_TMPDIR/b.sh" ]
	run defined_twice bisect-tests/run bisect-tests/lib/*.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# kbranch sources one subcommand's file at a time.
	local cmd
	for cmd in branch-scripts/cmd/*.sh; do
		run defined_twice branch-scripts/kbranch branch-scripts/lib/*.sh bisect-tests/lib/compiler.sh \
			bisect-tests/lib/compat.sh bisect-tests/lib/registry.sh "$cmd"
		echo "$cmd: $output"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
}

# Lines of kbranch's files ($@) that spell a path of bisect-tests'
# layout: a variant's build dir or lock (build/<variant>; build/check-*
# are kbranch's own), a run dir, its config cache, the Debian config's
# seed and carry dirs.  Comments aside: they may say where things are.
layout_spelled() {
	grep -nE '/build/[^c/"$ .]|/build/\$|/runs/|config-cache|debian/(seed|carry)' "$@" | grep -vE '^[^:]+:[0-9]+:\s*#' || true
}

@test "boundary: kbranch spells no path of bisect-tests' layout; it reads build dirs, locks and .configs from run's CONFIG line, and a run's files from its RESULT line" {
	local libexec
	cd "$REPO"
	# The control: each form is found, a comment and kbranch's own
	# build/check-* dirs are not.
	printf '%s\n' 'cat "$w/build/builtin/.config"' 'flock "$KBRANCH_WORK/build/$v.lock"' 'ls "$w/runs/module"' \
		'rm -r "$w/config-cache"' 'cat "$w/debian/seed/x"' '# in build/builtin/.config' 'mkdir "$w/build/check-docs"' >"$BATS_TEST_TMPDIR/spells"
	run layout_spelled "$BATS_TEST_TMPDIR/spells"
	[ "$status" -eq 0 ]
	[ "$(grep -c . <<<"$output")" -eq 5 ]
	# libexec's files, not the __pycache__ its Python modules leave.
	mapfile -t libexec < <(find branch-scripts/libexec -maxdepth 1 -type f | sort)
	run layout_spelled branch-scripts/kbranch branch-scripts/lib/*.sh branch-scripts/cmd/*.sh "${libexec[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# The mutation list runs for minutes beside the kernel tests; a mutant that
# no longer applies is found here in seconds, by the change that moved the
# code it breaks.
@test "lint: every mutant in ci/mutations still applies to the code it breaks" {
	local diff stale=()
	for diff in "$REPO"/ci/mutations/*.diff; do
		if ! (cd "$REPO" && git apply --check "$diff") >/dev/null 2>&1; then
			stale+=("${diff#"$REPO"/}")
		fi
	done
	printf 'no longer applies: %s\n' "${stale[@]}"
	[ "${#stale[@]}" -eq 0 ]
}
