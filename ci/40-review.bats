#!/usr/bin/env bats
# Review and submission: checkpatch / W=1 / sparse per commit, the linux-next
# pre-flight, the b4 thread, the pull request served by git daemon.

load helpers

# Who runs submit and pull-request here: they sign off as the kernel tree's
# user.name/user.email, never as the patches' placeholder author.
RUNNER_NAME='Tess Tester'
RUNNER_EMAIL=tess@kernel.test
RUNNER="$RUNNER_NAME <$RUNNER_EMAIL>"

runner_identity() {
	ktree config user.name "$RUNNER_NAME"
	ktree config user.email "$RUNNER_EMAIL"
}

setup_file() {
	ensure_applied
	runner_identity
}

teardown_file() {
	ktree config --unset user.name || true
	ktree config --unset user.email || true
}

teardown() {
	runner_identity
	ktree checkout -q -f ext4-rename
	ktree config --unset user.signingkey 2>/dev/null || true
	ktree config --unset kbranch.publish-url 2>/dev/null || true
	ktree config --unset kbranch.public-url 2>/dev/null || true
	[ -z "${GNUPGHOME:-}" ] || gpgconf --kill gpg-agent 2>/dev/null || true
}

# A throwaway signing key for one test: its own GNUPGHOME, and
# user.signingkey in the kernel tree's config (teardown removes it).
use_throwaway_key() {
	export GNUPGHOME=$KBRANCH_CI_SCRATCH/gnupg.$BATS_TEST_NUMBER
	rm -rf "$GNUPGHOME"
	mkdir -m 700 -p "$GNUPGHOME"
	gpg --batch --pinentry-mode loopback --passphrase '' \
		--quick-gen-key 'CI Signer <ci-signer@localhost>' ed25519 sign 1d 2>/dev/null
	ktree config user.signingkey "$(gpg --list-secret-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')"
}

patatt() {
	(cd "$KTREE" && "$REPO/branch-scripts/libexec/patatt" "$@")
}

# A scratch branch: one commit, made by a shell snippet, on $4 (default
# ext4dev-base).
branch_with_commit() {
	local name=$1 message=$2 edit=$3 base=${4:-ext4dev-base}
	ktree checkout -q -f -B "$name" "$base"
	(cd "$KTREE" && eval "$edit")
	ktree -c user.name="CI Tester" -c user.email=ci@localhost commit -q -a -m "$message"
	ktree checkout -q -f ext4-rename
}

@test "kbranch check: checkpatch --strict is clean on every commit of the series" {
	run "$KBRANCH" check --only checkpatch 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ok .* \[checkpatch\]' <<<"$output")" -eq "$(ktree rev-list --count ext4dev-base..ext4-rename)" ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq "$(ktree rev-list --count ext4dev-base..ext4-rename)" ]
}

@test "kbranch check: W=1, sparse and the docs build are clean on every commit of the series" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a W=1 and a sparse build of every commit, about 6 minutes, past what CI's 90 minutes leave on a slow day (KBRANCH_CI_FULL=1 runs it)"
	run "$KBRANCH" check --only w1,sparse,docs 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -eq 0 ]
	# Two points per commit, and docs where a commit edits admin-guide.
	[ "$(grep -c '^ok ' <<<"$output")" -eq $(( $(ktree rev-list --count ext4dev-base..ext4-rename) * 2 + $(ktree rev-list --count ext4dev-base..ext4-rename -- Documentation/admin-guide) )) ]
	grep -q '^ok .* ext4: rename the ext4dev Kconfig options to ext4 \[docs\]' <<<"$output"
}

# The full gate's other builds, on the scope linux-next's own would cost
# too much for CI, in one run (each build dir is configured and built from
# nothing once): the tip against its parent, then a commit on top that
# adds three warnings, each of which only one build compiles.
@test "the gate's allmodconfig and arm64 builds are clean at the tip; a warning only W=1, one only allmodconfig and one only arm64 compiles are each caught by that build alone" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "three gate builds of a planted commit, about 5 minutes, past what CI's 90 minutes leave on a slow day (KBRANCH_CI_FULL=1 runs it)"
	branch_with_commit gate-warnings $'ext4: add a function without a prototype and two unused variables\n\nSigned-off-by: CI Tester <ci@localhost>' \
		"printf '\nint ext4_kbranch_no_prototype(void)\n{\n\treturn 0;\n}\n#ifdef CONFIG_EXT4_DEBUG\nstatic int ext4_kbranch_debug_only;\n#endif\n#ifdef CONFIG_ARM64\nstatic int ext4_kbranch_arm64_only;\n#endif\n' >>fs/ext4/super.c" \
		ext4-rename
	run "$KBRANCH" check --only w1,allmod,arm64 --since ext4-rename^ gate-warnings 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q 'the series. code: fs/ext4 scripts/selinux/mdp' <<<"$output"
	# The tip against its parent: clean in W=1 and allmodconfig.
	grep -qF "$(ktree log -1 --format=%s ext4-rename) [w1]" <<<"$(grep '^ok 1 ' <<<"$output")"
	grep -qF "$(ktree log -1 --format=%s ext4-rename) [allmod]" <<<"$(grep '^ok 2 ' <<<"$output")"
	# The commit on top: each warning under the one build that compiles it.
	grep -q '^not ok 3 .*\[w1\]' <<<"$output"
	grep -q '^not ok 4 .*\[allmod\]' <<<"$output"
	grep -q '^not ok 5 .*\[arm64\]' <<<"$output"
	# What each point found (the text between points): its own warning,
	# none of the others'.
	local w1 allmod arm64
	w1=$(sed -n '/^not ok 3/,/^not ok 4/p' <<<"$output")
	allmod=$(sed -n '/^not ok 4/,/^not ok 5/p' <<<"$output")
	arm64=$(sed -n '/^not ok 5/,$p' <<<"$output")
	grep -q 'no previous prototype for .ext4_kbranch_no_prototype' <<<"$w1"
	[ "$(grep -c 'ext4_kbranch_debug_only\|ext4_kbranch_arm64_only' <<<"$w1")" -eq 0 ]
	grep -q 'ext4_kbranch_debug_only.* defined but not used' <<<"$allmod"
	[ "$(grep -c 'ext4_kbranch_no_prototype\|ext4_kbranch_arm64_only' <<<"$allmod")" -eq 0 ]
	# arm64 is judged at the branch's end against ext4-rename^: its only
	# finding is the planted one, so the tip itself adds none there.
	[ "$(grep -c '^# ' <<<"$arm64")" -eq 1 ]
	grep -q 'ext4_kbranch_arm64_only.* defined but not used' <<<"$arm64"
}

@test "a document edit that sphinx warns about is caught by the docs build" {
	full_only "a docs build of a branch of its own, about 2 minutes"
	branch_with_commit docs-warning $'ext4: add a directive sphinx does not know\n\nSigned-off-by: CI Tester <ci@localhost>' \
		"printf '\n.. kbranch-no-such-directive::\n' >>Documentation/admin-guide/ext4.rst" ext4-rename
	run "$KBRANCH" check --only docs --since ext4-rename docs-warning 2> >(sed -u 's/^/# /' >&3)
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q '^not ok 1 .*\[docs\]' <<<"$output"
	grep -q 'Documentation/admin-guide/ext4.rst: ERROR: Unknown directive type "kbranch-no-such-directive"\.  \[line: \.\. kbranch-no-such-directive::\]' <<<"$output"
}

@test "kbranch check refuses an unknown check or a --since that is not a commit, in one line" {
	run "$KBRANCH" check --only allmod,bogus
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q "unknown check 'bogus'" <<<"$output"
	run "$KBRANCH" check --since no-such-commit
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	grep -q 'no commit no-such-commit' <<<"$output"
}

@test "a patch with a checkpatch error is caught" {
	branch_with_commit bad-style $'ext4: add a badly styled line\n\nSigned-off-by: CI Tester <ci@localhost>' \
		"printf '\\n/* a comment with trailing whitespace */ \\n' >> fs/ext4/sysfs.c"
	run "$KBRANCH" check --only checkpatch bad-style
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q '^not ok .* ext4: add a badly styled line \[checkpatch\]' <<<"$output"
	grep -q 'TRAILING_WHITESPACE' <<<"$output"
}

@test "preflight catches a commit without Signed-off-by" {
	branch_with_commit no-signoff 'ext4: a commit nobody signed off' \
		"sed -i 's/not marked OK to use with test code/not marked OK for test code/' fs/ext4/super.c"
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" preflight no-signoff
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q 'FAIL [0-9a-f]* ("ext4: a commit nobody signed off"): no Signed-off-by from its author CI Tester <ci@localhost>' <<<"$output"
}

# One commit on branch $1 per message $2...: each adds a line to a file,
# signed off by its author and committer.
commits_on_tip() {
	local name=$1 message n=0
	shift
	ktree checkout -q -f -B "$name" ext4-rename
	for message in "$@"; do
		n=$((n + 1))
		echo "line $n" >>"$KTREE/fs/ext4/ci-notes"
		ktree add -f fs/ext4/ci-notes
		ktree -c user.name="CI Tester" -c user.email=ci@localhost commit -q \
			-m "$message" -m "Signed-off-by: CI Tester <ci@localhost>"
	done
	ktree checkout -q -f ext4-rename
}

@test "preflight checks Fixes: and Link: tags and leftover files as linux-next does, each rule caught" {
	local base base_subject side
	base=$(ktree rev-parse ext4dev-base)
	base_subject=$(ktree log -1 --format=%s ext4dev-base)
	# a commit that is not an ancestor of the branch
	ktree checkout -q -f -B side ext4dev-base
	ktree -c user.name=ci -c user.email=ci@localhost commit -q --allow-empty -m 'side: not on the branch'
	side=$(ktree rev-parse side)
	ktree checkout -q -f ext4-rename
	commits_on_tip bad-tags \
		"ext4: good tag"$'\n\n'"Fixes: ${base:0:12} (\"$base_subject\")" \
		"ext4: short sha"$'\n\n'"Fixes: ${base:0:8} (\"$base_subject\")" \
		"ext4: unknown target"$'\n\n'"Fixes: 0123456789ab (\"$base_subject\")" \
		"ext4: wrong subject"$'\n\n'"Fixes: ${base:0:12} (\"ext4: something else\")" \
		"ext4: leading commit"$'\n\n'"Fixes: commit ${base:0:12} (\"$base_subject\")" \
		"ext4: open paren"$'\n\n'"Fixes: ${base:0:12} (\"$base_subject\"" \
		"ext4: open quote"$'\n\n'"Fixes: ${base:0:12} (\"$base_subject)" \
		"ext4: not an ancestor"$'\n\n'"Fixes: ${side:0:12} (\"side: not on the branch\")" \
		"ext4: bad link"$'\n\n'"Link: the thread on lore"
	ktree checkout -q -f -B bad-tags bad-tags
	printf 'x\n' >"$KTREE/fs/ext4/super.c.orig"
	printf 'x\n' >"$KTREE/fs/ext4/super.c.rej"
	ktree add -f fs/ext4/super.c.orig fs/ext4/super.c.rej
	ktree -c user.name="CI Tester" -c user.email=ci@localhost commit -q -m 'ext4: leftovers' \
		-m "Signed-off-by: CI Tester <ci@localhost>"
	ktree checkout -q -f ext4-rename
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" preflight bad-tags
	ktree branch -q -D bad-tags side
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" != *'"ext4: good tag")'* ]]
	grep -q '("ext4: short sha"): Fixes tag .*: SHA1 should be at least 12 digits long$' <<<"$output"
	grep -q '("ext4: unknown target"): Fixes tag .*: Target SHA1 does not exist$' <<<"$output"
	grep -q '("ext4: wrong subject"): Fixes tag .*: Subject does not match target commit subject$' <<<"$output"
	grep -q "(\"ext4: leading commit\"): Fixes tag .*: leading word 'commit' unexpected$" <<<"$output"
	grep -q '("ext4: open paren"): Fixes tag .*: Subject has leading but no trailing parentheses$' <<<"$output"
	grep -q '("ext4: open quote"): Fixes tag .*: Subject has leading but no trailing quotes$' <<<"$output"
	grep -q '("ext4: not an ancestor"): Fixes tag .*: Target is not an ancestor of this commit$' <<<"$output"
	grep -q '("ext4: bad link"): malformed Link tag' <<<"$output"
	grep -q '("ext4: leftovers"): adds fs/ext4/super.c.orig, a leftover' <<<"$output"
	grep -q '("ext4: leftovers"): adds fs/ext4/super.c.rej, a leftover' <<<"$output"
	# each finding once: nothing else is reported
	[ "$(grep -c '^FAIL' <<<"$output")" -eq 10 ]
}

@test "preflight passes the series, including its build" {
	run "$KBRANCH" preflight
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "submit writes a b4 thread: a cover letter and one reply per patch, with the base commit and the sender's Signed-off-by" {
	local out=$KBRANCH_WORK/outgoing n
	n=$(ktree rev-list --count ext4dev-base..ext4-rename)
	run "$KBRANCH" submit --dry-run
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$out"/*.eml | wc -l)" -eq $((n + 1)) ]
	local cover cover_id rev
	cover=$(ls "$out"/0000-*)
	# The revision series.txt gives.
	rev=$(sed -n 's/^# revision: //p' "$REPO/series.txt")
	grep -q "^Subject: \[PATCH v$rev 0/$n\] ext4: rename ext4dev to ext4" "$cover"
	# What git format-patch --base=<packaged import> says: the fixture is a
	# prerequisite, published with the branch.
	grep -q "^base-commit: $(ktree rev-parse "packaged/$VERSION^{commit}")\$" "$cover"
	[ "$(grep '^prerequisite-patch-id: ' "$cover")" = "$(ktree format-patch --stdout --base="packaged/$VERSION" -1 "$(ktree rev-list --reverse ext4dev-base..ext4-rename | head -n 1)" | grep '^prerequisite-patch-id: ')" ]
	grep -q '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$cover"
	# The command the cover letter gives to check it prints it.
	local check
	check=$(grep '^git diff-tree -p --no-indent-heuristic [0-9a-f]\{40\} ext4dev-base | git patch-id --stable$' "$cover")
	[ "$(cd "$KTREE" && eval "$check" | cut -d' ' -f1)" = "$(sed -n 's/^prerequisite-patch-id: //p' "$cover")" ]
	grep -q '^git fetch .* tag ext4dev-base$' "$cover"
	grep -qi '^To: .*tytso@mit.edu' "$cover" || grep -qi 'tytso@mit.edu' "$cover"
	cover_id=$(sed -n 's/^Message-Id: //Ip' "$cover")
	local i
	for i in $(seq 1 "$n"); do
		local msg
		msg=$(ls "$out"/000"$i"-*)
		grep -q "^Subject: \[PATCH v$rev $i/$n\]" "$msg"
		grep -qx "In-Reply-To: $cover_id" "$msg"
		# The sender's Signed-off-by, once, after the patch's own.
		[ "$(sed -n '/^---$/q; /^Signed-off-by: /p' "$msg" | tail -n 1)" = "Signed-off-by: $RUNNER" ]
		[ "$(grep -cxF "Signed-off-by: $RUNNER" "$msg")" -eq 1 ]
		# The placeholder author is not: the sender is the author; the
		# credit and the Link stay, and the credited author is a recipient.
		[ -z "$(grep -i 'noreply' "$msg" || true)" ]
		[ -z "$(sed -n '/^$/,$p' "$msg" | sed -n '1,/^---$/{/^From: /p}')" ]
		grep -qxF "From: $RUNNER" "$msg"
		# The ext4 patches derive from Ted's original; the configs patch
		# after them does not.
		grep -q "^Subject: \[PATCH v$rev $i/$n\] ext4: " "$msg" || continue
		grep -q "^Based on a patch by Theodore Ts'o <tytso@mit.edu>" "$msg"
		grep -q '^Link: https://lore.kernel.org/' "$msg"
		python3 -c 'import email, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
sys.exit("tytso@mit.edu" not in [a for _, a in email.utils.getaddresses(m.get_all("to", []) + m.get_all("cc", []))])' "$msg"
	done
	# Every ext4 patch was checked for its credit: the loop reached them.
	[ "$(grep -l "^Based on a patch by Theodore Ts'o" "$out"/000[1-9]-*.eml | wc -l)" -eq "$(grep -l '^Subject: \[PATCH [0-9/]*\] ext4: ' "$REPO"/patches/*.patch | wc -l)" ]
	[ -z "$(grep -il 'noreply' "$cover" || true)" ]
	# The branch keeps its fixed identity.
	[ "$(ktree log -1 --format=%ae ext4-rename)" = "$(git mailinfo /dev/null /dev/null <"$(ls "$REPO"/patches/*.patch | tail -n 1)" | sed -n 's/^Email: //p')" ]
	# No cover-letter commit was added to the branch that gets published.
	[ "$(ktree rev-list --count ext4dev-base..ext4-rename)" -eq "$n" ]
}

# The addresses of header $2 of message $1, lowercased and sorted.
message_addresses() {
	python3 -c 'import email, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
print("\n".join(sorted({a.lower() for _, a in email.utils.getaddresses(m.get_all(sys.argv[2], []))})))' "$1" "$2"
}

# What scripts/get_maintainer.pl names for the files commit $1 touches,
# and nothing from keywords: $2 is --nol (maintainers) or --nom (the rest).
maintainers_of_files() {
	local files
	mapfile -t files < <(ktree diff-tree --no-commit-id --name-only -r "$1")
	(cd "$KTREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nokeywords "$2" -f "${files[@]}") |
		python3 -c 'import email.utils, sys
print("\n".join(sorted({a.lower() for _, a in email.utils.getaddresses(sys.stdin.read().splitlines()) if a})))'
}

@test "each patch of the written thread goes To/Cc what get_maintainer.pl names for its files alone, the cover letter to all of them" {
	local out=$KBRANCH_WORK/outgoing msg commits i to cc all=""
	mapfile -t commits < <(ktree rev-list --reverse ext4dev-base..ext4-rename)
	[ -s "$out/recipients.txt" ]
	for i in "${!commits[@]}"; do
		msg=$(ls "$out"/000"$((i + 1))"-*.eml)
		to=$(maintainers_of_files "${commits[i]}" --nol)
		cc=$(comm -23 <(maintainers_of_files "${commits[i]}" --nom) <(printf '%s\n' "$to"))
		diff <(printf '%s\n' "$to") <(message_addresses "$msg" to)
		diff <(printf '%s\n' "$cc") <(message_addresses "$msg" cc)
		# The summary lists them.
		grep -qF "$(sed -n 's/^Subject: //p' "$msg" | head -n 1)" "$out/recipients.txt"
		all+="$to"$'\n'"$cc"$'\n'
	done
	diff <(sort -u <<<"$all" | grep .) <(sort -u <(message_addresses "$(ls "$out"/0000-*.eml)" to) <(message_addresses "$(ls "$out"/0000-*.eml)" cc))
	# The configs patch goes to the architectures, the ext4 patches not.
	grep -qx 'linux-arm-kernel@lists.infradead.org' <(message_addresses "$(ls "$out"/000"${#commits[@]}"-*.eml)" cc)
	! grep -q 'linux-arm-kernel@' <(message_addresses "$(ls "$out"/0001-*.eml)" cc)
}

@test "the written thread applied onto ext4dev-base gives the tip's tree" {
	local wt=$KBRANCH_CI_SCRATCH/am-check
	ktree worktree add -q --detach "$wt" ext4dev-base
	run git -C "$wt" -c user.name=ci -c user.email=ci@localhost am -q "$KBRANCH_WORK"/outgoing/000[1-9]-*.eml
	local tree
	tree=$(git -C "$wt" rev-parse HEAD^{tree})
	ktree worktree remove --force "$wt"
	[ "$status" -eq 0 ]
	[ "$tree" = "$(ktree rev-parse ext4-rename^{tree})" ]
}

@test "pull-request publishes a tag that a fresh clone of the packaged import pulls over git://" {
	local port=$((20000 + RANDOM % 20000)) pub=$KBRANCH_CI_SCRATCH/pub fresh=$KBRANCH_CI_SCRATCH/fresh
	mkdir -p "$pub"
	ktree config kbranch.publish-url "$pub/ext4.git"
	ktree config kbranch.public-url "git://127.0.0.1:$port/ext4.git"
	git daemon --export-all --base-path="$pub" --listen=127.0.0.1 --port="$port" \
		--reuseaddr --detach --pid-file="$pub/daemon.pid"
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" pull-request
	echo "$output"
	ktree config --unset kbranch.publish-url
	ktree config --unset kbranch.public-url
	[ "$status" -eq 0 ]
	grep -q "git://127.0.0.1:$port/ext4.git tags/ext4-rename-for-next" "$KBRANCH_WORK/pull-request.txt"
	git clone -q --single-branch --branch import "$KTREE" "$fresh"
	[ "$(git -C "$fresh" rev-parse HEAD)" = "$(ktree rev-parse "packaged/$VERSION^{commit}")" ]
	git -C "$fresh" -c user.name=sfr -c user.email=sfr@localhost pull -q --no-edit \
		"git://127.0.0.1:$port/ext4.git" tags/ext4-rename-for-next
	git -C "$fresh" fetch -q "git://127.0.0.1:$port/ext4.git" refs/notes/kbranch:refs/notes/kbranch
	kill "$(cat "$pub/daemon.pid")"
	[ "$(git -C "$fresh" rev-parse HEAD^{tree})" = "$(ktree rev-parse ext4-rename^{tree})" ]
	# The verify results travelled with the branch.
	git -C "$fresh" notes --ref=kbranch show HEAD | grep -q 'kbranch-verify .* verdict=good'
	rm -rf "$fresh"
}

@test "pull-request publishes the branch committed and signed off by the sender, and leaves ext4-rename alone" {
	local pub=$KBRANCH_CI_SCRATCH/sob-pub branch tip orig copy base
	branch=$(ktree rev-parse ext4-rename)
	base=$(ktree rev-parse "ext4dev-base^{commit}")
	ktree config kbranch.publish-url "$pub/ext4.git"
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" pull-request
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ktree rev-parse ext4-rename)" = "$branch" ]
	tip=$(git -C "$pub/ext4.git" rev-parse ext4-rename)
	[ "$(git -C "$pub/ext4.git" rev-parse "ext4-rename-for-next^{commit}")" = "$tip" ]
	[ "$(git -C "$pub/ext4.git" for-each-ref --format='%(taggername) %(taggeremail)' refs/tags/ext4-rename-for-next)" = "$RUNNER" ]
	[ "$(ktree rev-list --count "$base..$tip")" -eq "$(ktree rev-list --count "$base..$branch")" ]
	# Commit by commit: the same tree, date and message, with the sender
	# as committer and their Signed-off-by last, once; the placeholder
	# author's commits authored by the sender, without its Signed-off-by.
	while read -r orig copy; do
		[ "$(ktree rev-parse "$copy^{tree}")" = "$(ktree rev-parse "$orig^{tree}")" ]
		[[ "$(ktree log -1 --format=%ae "$orig")" == *noreply* ]]
		[ "$(ktree log -1 --format='%an <%ae> %ad' "$copy")" = "$RUNNER $(ktree log -1 --format=%ad "$orig")" ]
		[ "$(ktree log -1 --format='%cn <%ce>' "$copy")" = "$RUNNER" ]
		# (git interpret-trailers: a message whose only trailer was the
		# placeholder's gets the sender's in a paragraph of its own.)
		[ "$(ktree log -1 --format=%B "$copy")" = "$(ktree log -1 --format=%B "$orig" | grep -v '^Signed-off-by: .*noreply' |
			git interpret-trailers --trailer "Signed-off-by: $RUNNER")" ]
	done < <(paste -d ' ' <(ktree rev-list "$base..$branch") <(ktree rev-list "$base..$tip"))
	# The fixture's tag is published with the branch: the thread's base.
	[ "$(git -C "$pub/ext4.git" rev-parse "ext4dev-base^{commit}")" = "$(ktree rev-parse "ext4dev-base^{commit}")" ]
	grep -qF "$RUNNER" "$KBRANCH_WORK/pull-request.txt"
}

@test "with a signing key, submit signs every message and the signatures cover the content" {
	local out=$KBRANCH_WORK/outgoing tampered=$KBRANCH_CI_SCRATCH/tampered n
	n=$(ktree rev-list --count ext4dev-base..ext4-rename)
	use_throwaway_key
	run "$KBRANCH" submit --dry-run
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed $((n + 1)) messages with patatt"* ]]
	# The cover letter too, after its base-commit line was corrected.
	run patatt validate "$out"/*.eml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ *PASS |' <<<"$output")" -eq $((n + 1)) ]
	rm -rf "$tampered"
	cp -r "$out" "$tampered"
	sed -i 's/^base-commit: .*/base-commit: 0000000000000000000000000000000000000000/' "$tampered"/0000-*.eml
	run patatt validate "$tampered"/*.eml
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q '^BADSIG | .*0000-' <<<"$output"
}

@test "with a signing key, pull-request publishes a signed tag that verifies" {
	local pub=$KBRANCH_CI_SCRATCH/signed-pub
	ktree config kbranch.publish-url "$pub/ext4.git"
	# Without a key the tag is annotated; once a key is set it is re-made signed.
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" pull-request
	[ "$status" -eq 0 ]
	run git -C "$pub/ext4.git" verify-tag ext4-rename-for-next
	[ "$status" -ne 0 ]
	use_throwaway_key
	KBRANCH_PREFLIGHT_BUILD=0 run "$KBRANCH" pull-request
	echo "$output"
	ktree config --unset kbranch.publish-url
	[ "$status" -eq 0 ]
	[[ "$output" == *"tagged the tip ext4-rename-for-next (signed)"* ]]
	run git -C "$pub/ext4.git" verify-tag --raw ext4-rename-for-next
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "VALIDSIG $(ktree config user.signingkey)" <<<"$output"
	[ "$(git -C "$pub/ext4.git" rev-parse "ext4-rename-for-next^{commit}")" = "$(git -C "$pub/ext4.git" rev-parse ext4-rename)" ]
	[ "$(git -C "$pub/ext4.git" rev-parse "ext4-rename-for-next^{tree}")" = "$(ktree rev-parse "ext4-rename^{tree}")" ]
}

# Not even the machine's global identity: as for someone who never set one.
no_identity() {
	export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
	ktree config --unset user.email
}

# The author the patches carry, the project's placeholder.
placeholder_identity() {
	local patches=("$REPO"/patches/*.patch) info
	info=$(git mailinfo /dev/null /dev/null <"${patches[0]}")
	PLACEHOLDER_EMAIL=$(sed -n 's/^Email: //p' <<<"$info")
	[ -n "$PLACEHOLDER_EMAIL" ]
	ktree config user.name "$(sed -n 's/^Author: //p' <<<"$info")"
	ktree config user.email "$PLACEHOLDER_EMAIL"
}

# shellcheck disable=SC2154 # $stderr: set by bats' run in must_fail_with_one_line
@test "submit refuses, in one line, when user.email is not set" {
	no_identity
	local before
	before=$(tree_state)
	must_fail_with_one_line "$KBRANCH" submit --dry-run
	echo "$stderr"
	grep -q '^kbranch: user.email is not set' <<<"$stderr"
	[ "$(tree_state)" = "$before" ]
}

@test "pull-request refuses, in one line, when user.email is not set" {
	local pub=$KBRANCH_CI_SCRATCH/refused-pub before
	ktree config kbranch.publish-url "$pub/ext4.git"
	no_identity
	before=$(tree_state)
	KBRANCH_PREFLIGHT_BUILD=0 must_fail_with_one_line "$KBRANCH" pull-request
	echo "$stderr"
	grep -q '^kbranch: user.email is not set' <<<"$stderr"
	[ "$(tree_state)" = "$before" ]
	[ ! -e "$pub" ]
}

@test "submit refuses, in one line, when user.email is the patches' placeholder author" {
	placeholder_identity
	local before
	before=$(tree_state)
	must_fail_with_one_line "$KBRANCH" submit --dry-run
	echo "$stderr"
	grep -qF "user.email $PLACEHOLDER_EMAIL (git config in $KTREE) is a no-reply placeholder" <<<"$stderr"
	[ "$(tree_state)" = "$before" ]
}

@test "submit and pull-request refuse, in one line, the placeholder's name with a real address" {
	local pub=$KBRANCH_CI_SCRATCH/refused-pub before
	ktree config kbranch.publish-url "$pub/ext4.git"
	placeholder_identity
	ktree config user.email someone@kernel.test
	before=$(tree_state)
	must_fail_with_one_line "$KBRANCH" submit --dry-run
	echo "$stderr"
	grep -qF "user.name '$(ktree config user.name)' (git config in $KTREE) is the patches' placeholder author" <<<"$stderr"
	KBRANCH_PREFLIGHT_BUILD=0 must_fail_with_one_line "$KBRANCH" pull-request
	echo "$stderr"
	grep -qF "is the patches' placeholder author" <<<"$stderr"
	[ "$(tree_state)" = "$before" ]
	[ ! -e "$pub" ]
}

@test "pull-request refuses, in one line, when user.email is the patches' placeholder author" {
	local pub=$KBRANCH_CI_SCRATCH/refused-pub before
	ktree config kbranch.publish-url "$pub/ext4.git"
	placeholder_identity
	before=$(tree_state)
	KBRANCH_PREFLIGHT_BUILD=0 must_fail_with_one_line "$KBRANCH" pull-request
	echo "$stderr"
	grep -qF "user.email $PLACEHOLDER_EMAIL (git config in $KTREE) is a no-reply placeholder" <<<"$stderr"
	[ "$(tree_state)" = "$before" ]
	[ ! -e "$pub" ]
}
