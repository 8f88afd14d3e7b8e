#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr, $lines: set by bats' run
# The fast tier: what a newcomer reads first is whole.  Every subcommand
# (a file in branch-scripts/cmd/) has its line in README's layout and in
# "kbranch help", and "kbranch help CMD" prints its reference, the file's
# header; README stays a page that points into docs/.  The tests the docs
# name are checked in ci/05-fast.bats.

load helpers

# The subcommands: the files in branch-scripts/cmd/, named without a .sh.
subcommands() {
	local f
	for f in "$REPO"/branch-scripts/cmd/*; do
		basename "$f" .sh
	done
}

# The file of subcommand $1.
subcommand_file() {
	printf '%s\n' "$REPO/branch-scripts/cmd/$1.sh"
}

# README's "## Layout" section.
readme_layout() {
	sed -n '/^## Layout$/,/^## /p' "$REPO/README.md"
}

@test "every subcommand file is NAME.sh, and branch-scripts/lib/ holds only sourced .sh files" {
	local f bad=()
	for f in "$REPO"/branch-scripts/cmd/* "$REPO"/branch-scripts/lib/*; do
		[[ "$f" == *.sh && ! -x "$f" ]] || bad+=("${f#"$REPO"/}")
	done
	[ "${#bad[@]}" -eq 0 ] || { echo "not a sourced NAME.sh: ${bad[*]}"; false; }
}

@test "README's layout has a line for every subcommand file in branch-scripts/cmd/" {
	local name layout missing=()
	layout=$(readme_layout)
	[ "$(subcommands | wc -l)" -gt 10 ]
	while IFS= read -r name; do
		grep -qE "^ +$name +[^ ]" <<<"$layout" || missing+=("$name")
	done < <(subcommands)
	[ "${#missing[@]}" -eq 0 ] || { echo "not in README's layout: ${missing[*]}"; false; }
}

@test "README's layout names every file and directory at the top of the repository" {
	local entry layout missing=()
	layout=$(readme_layout)
	while IFS= read -r entry; do
		grep -qE "^ +([^ ]+, )?$entry(/[^ ]*)?[ ,]" <<<"$layout" || missing+=("$entry")
	done < <(cd "$REPO" && find . -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' | sort)
	[ "${#missing[@]}" -eq 0 ] || { echo "not in README's layout: ${missing[*]}"; false; }
}

@test "README points into docs/: every page it names exists, every page in docs/ is named, and it stays under 200 lines" {
	local page missing=()
	[ "$(wc -l <"$REPO/README.md")" -le 200 ]
	while IFS= read -r page; do
		[ -f "$REPO/$page" ] || missing+=("named, but missing: $page")
	done < <(grep -oE 'docs/[a-z-]+\.md' "$REPO/README.md" | sort -u)
	for page in "$REPO"/docs/*.md; do
		grep -qF "](docs/${page##*/})" "$REPO/README.md" || missing+=("not in README's table: docs/${page##*/}")
	done
	[ "${#missing[@]}" -eq 0 ] || { printf '%s\n' "${missing[@]}"; false; }
}

@test "kbranch help lists every subcommand file, and kbranch help CMD prints its summary first" {
	local name listing summary bad=()
	run --separate-stderr "$KBRANCH" help
	[ "$status" -eq 0 ]
	listing=$output
	while IFS= read -r name; do
		grep -qE "^  $name +[^ ]" <<<"$listing" || bad+=("not in kbranch help: $name")
		summary=$(sed -n 's/^# summary: //p' "$(subcommand_file "$name")")
		run --separate-stderr "$KBRANCH" help "$name"
		[[ "$status" -eq 0 && -z "$stderr" && "${lines[0]}" == "kbranch $name: ${summary:0:20}"* ]] ||
			bad+=("kbranch help $name: status $status, first line '${lines[0]:-}', stderr '$stderr'")
	done < <(subcommands)
	[ "${#bad[@]}" -eq 0 ] || { printf '%s\n' "${bad[@]}"; false; }
}

@test "kbranch help CMD prints the file's header: the summary and the comment blocks that stand apart, not a function's comment" {
	local copy
	copy=$(repo_copy)
	cat >"$copy/branch-scripts/cmd/zz-example.sh" <<'EOF'
# shellcheck shell=bash
# summary: an example subcommand; [--flag]

# What it does, in a block of its own.
#
# Its second paragraph.

# The helper's comment, directly above it: not the header.
helper() {
	:
}

# After code: not the header either.
run() {
	helper
}
EOF
	run --separate-stderr "$copy/branch-scripts/kbranch" help zz-example
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(printf '%s\n' 'kbranch zz-example: an example subcommand; [--flag]' '' \
		'What it does, in a block of its own.' '' 'Its second paragraph.')" ]
	run --separate-stderr "$copy/branch-scripts/kbranch" help
	[ "$status" -eq 0 ]
	grep -qxE '  zz-example +an example subcommand; \[--flag\]' <<<"$output"
}

@test "kbranch help of an unknown subcommand is one line, and fails" {
	must_fail_with_one_line "$KBRANCH" help no-such-subcommand
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no-such-subcommand"*"kbranch help"* ]]
	must_fail_with_one_line "$KBRANCH" help import export
	[ "$status" -eq 1 ]
}

# The KBRANCH_* names the files under $1 read ($NAME or ${NAME...}: not a
# NAME= handed to a child), and those its settings file $2 sets.
names_read() {
	grep -rhoE '\$\{?KBRANCH_[A-Z0-9_]+' "$1" | tr -d '${' | sort -u
}
names_set() {
	sed -nE 's/^: "\$\{(KBRANCH_[A-Z0-9_]+):=.*/\1/p' "$1" | sort -u
}

@test "settings: every KBRANCH_* name a program reads is in its settings file with a default, once, and in the docs" {
	local program names missing name
	for program in branch-scripts bisect-tests; do
		names=$(names_set "$REPO/$program/lib/settings.sh")
		[ "$(grep -c . <<<"$names")" -ge 5 ]
		missing=$(comm -23 <(names_read "$REPO/$program") <(printf '%s\n' "$names"))
		[ -z "$missing" ] || { echo "$program reads, its settings.sh does not set: $missing"; false; }
		# A default is written once: in the settings file, not at each use.
		[ -z "$(grep -rnE '\$\{KBRANCH_[A-Z0-9_]+:[-=]' "$REPO/$program" --exclude=settings.sh)" ]
		while IFS= read -r name; do
			grep -rqw "$name" "$REPO/docs" || { echo "$name is in no page of docs/"; false; }
		done <<<"$names"
	done
}

# Lines of files $@ that date themselves: a calendar date, a commit hash
# (7 to 40 hex digits with a letter and a digit), or an issue of a tracker
# the repository's reader does not have.  "file:line: text" each.
dated_lines() {
	grep -nHP '\b20\d\d-[01]\d-[0-3]\d\b|\b[Ii]ssues? #?\d+|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b' "$@" || true
}

@test "reference docs and the product code's comments say what is true now: no date, commit hash or issue number" {
	printf 'measured on 2026-12-06\nfixed by 6c13e61\nas issue 29 asked\na deadbeef is not a hash, nor 1234567\n' >"$BATS_TEST_TMPDIR/dated.md"
	run dated_lines "$BATS_TEST_TMPDIR/dated.md"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cut -d: -f2 <<<"$output" | tr '\n' ' ')" = "1 2 3 " ]
	cd "$REPO"
	run dated_lines README.md docs/*.md bisect-tests/README cover-letter.txt
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# In the product's code, its comments (its data may hold hex: UUIDs).
	run dated_lines branch-scripts/kbranch branch-scripts/cmd/*.sh branch-scripts/lib/*.sh bisect-tests/run bisect-tests/lib/*.sh
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(grep -E '^[^:]+:[0-9]+:[[:space:]]*#' <<<"$output" || true)" ]
}
