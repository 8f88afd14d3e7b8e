#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $lines, $stderr: set by bats' run
# kbranch bisect on planted regressions: scratch commits on top of the
# series in branch scratch-bisect of the CI work tree (never sent, never in
# patches/), bisected with a tester's config made from the builtin
# variant's.  The builds are incremental: 15-verify built builtin, whose
# build dir seeds the tester's.

load helpers
load bisect-helpers

setup_file() {
	ensure_applied
	export KBRANCH_WORK
	tester_debug_config
}

setup() {
	export KBRANCH_WORK
}

teardown_file() {
	bisect_tree_reset scratch-bisect scratch-bisect2 scratch-same
}

# A list a test started (BISECT_LIST_WORK, its work dir) is stopped and
# removed, whether the test passed or not; so is what the trim recipe
# left in the tree.
teardown() {
	rm -rf "$KTREE/build" "$KTREE/ext4.lsmod"
	[ -n "${BISECT_LIST_WORK:-}" ] || return 0
	KBRANCH_WORK=$BISECT_LIST_WORK "$KBRANCH" list stop >/dev/null 2>&1 || true
	rm -rf "$BISECT_LIST_WORK"
}

# Four commits on the series' tip: a note, the bug (read-write and every
# mount refused, but only where CONFIG_EXT4_DEBUG is set), two notes.
make_debug_only_bug() {
	ktree checkout -q -f -B scratch-bisect ext4-rename
	planted 'scratch: a note in the ext4 docs' note 'scratch note 1'
	planted 'ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG' in_function after-declarations 'static int ext4_fill_super(' \
		'#ifdef CONFIG_EXT4_DEBUG' '	if (fc) return -EINVAL; /* ci: planted, only EXT4_DEBUG compiles it */' '#endif'
	planted 'scratch: a second note' note 'scratch note 2'
	planted 'scratch: a third note' note 'scratch note 3'
	ktree checkout -q -f ext4-rename
}

# The same first two commits (the same trees, so their results are
# reused), then a second bug that refuses every mount on its own, in
# ext4_get_tree: reverting the first on the bad end does not fix it.
make_two_bugs() {
	ktree checkout -q -f -B scratch-bisect2 ext4-rename
	planted 'scratch: a note in the ext4 docs' note 'scratch note 1'
	planted 'ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG' in_function after-declarations 'static int ext4_fill_super(' \
		'#ifdef CONFIG_EXT4_DEBUG' '	if (fc) return -EINVAL; /* ci: planted, only EXT4_DEBUG compiles it */' '#endif'
	planted 'ext4: planted: refuse every mount in ext4_get_tree too' in_function top 'static int ext4_get_tree(' \
		'#ifdef CONFIG_EXT4_DEBUG' '	if (fc) return -EINVAL; /* ci: planted, a second bug */' '#endif'
	planted 'scratch: a second note' note 'scratch note 2'
	ktree checkout -q -f ext4-rename
}

@test "kbranch bisect: a bug only the tester's config compiles is named, the revert passes, within ceil(log2 n)+3 builds" {
	local culprit report fields
	make_debug_only_bug
	culprit=$(ktree rev-parse scratch-bisect~2)
	kbisect --good ext4-rename --bad scratch-bisect --config "$KBRANCH_CI_SCRATCH/tester-debug.config"
	bisect_confirmed "$culprit" 'ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG'
	report=$(report_of)
	cp "$report" "$BATS_FILE_TMPDIR/first-report"
	cp "$(dirname "$report")/regression.eml" "$BATS_FILE_TMPDIR/first-regression.eml"
	grep -q '^status: done$' "$report"
	# n = 4: at most 2 steps, both ends and the revert.
	grep -qE '^commits in the range: 4; builds: [1-5] \(at most 5' "$report"
	grep -qE '^ +bad \(exit 1\): .* tainted=[0-9]' "$report"
	grep -q 'no option changes' "$report"
	grep -q "^the culprit's .config: .*culprit.config" "$report"
	grep -q 'CONFIG_EXT4_DEBUG=y' "$(dirname "$report")/culprit.config"
	grep -q "git bisect bad $culprit" "$report"
	# The mail, to whom the tree's own get_maintainer.pl names for
	# fs/ext4/super.c: the maintainers in To, the list in Cc.
	fields=$(mail_fields "$(dirname "$report")/regression.eml")
	grep -qxF 'Subject: [REGRESSION] bisected to "ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG"' <<<"$fields"
	grep -E '^To: ' <<<"$fields" | grep -qF 'tytso@mit.edu'
	grep -E '^To: ' <<<"$fields" | grep -qF 'adilger.kernel@dilger.ca'
	grep -E '^Cc: ' <<<"$fields" | grep -qF 'linux-ext4@vger.kernel.org'
	grep -qxF "#regzbot introduced: ${culprit:0:12}" <<<"$fields"
	# git bisect reset done: the tree is back on the branch it was on.
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
	[ ! -f "$KTREE/.git/BISECT_START" ]
}

# That report, posted as it is through a list of its own (exim4 and
# public-inbox on ports of their own, in a work dir of their own: the
# archive of ci/45-list.bats stays as that file expects it), comes back
# from the archive through b4 as a maintainer would fetch it.  b4 am is
# for patches ("No patches found" for a report); b4 mbox fetches a thread.
@test "kbranch bisect: its regression report goes through the local list as is, and b4 mbox fetches it back by Message-ID, every field the same" {
	local mail=$BATS_FILE_TMPDIR/first-regression.eml msgid url archive=http://127.0.0.1:8832/linux-ext4/
	BISECT_LIST_WORK=$(mktemp -d /var/tmp/kbranch-bisect-list.XXXXXX)
	chmod 0755 "$BISECT_LIST_WORK"
	export KBRANCH_LIST_SMTP_PORT=2632 KBRANCH_LIST_HTTP_PORT=8832
	KBRANCH_WORK=$BISECT_LIST_WORK "$KBRANCH" list start >/dev/null
	run --separate-stderr env KBRANCH_WORK="$BISECT_LIST_WORK" "$KBRANCH" list send "$mail"
	echo "$output $stderr"
	msgid=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$mail")
	url=$output
	[ "$status" -eq 0 ]
	[ "$url" = "$archive$msgid/" ]
	mkdir "$BATS_TEST_TMPDIR/b4"
	run env -C "$BATS_TEST_TMPDIR/b4" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=b4.midmask GIT_CONFIG_VALUE_0="$archive%s" \
		b4 mbox -o "$BATS_TEST_TMPDIR/b4" "$msgid"
	echo "$output"
	[ "$status" -eq 0 ]
	# The one message of the mbox b4 saved.
	python3 -c 'import mailbox, sys
sys.stdout.buffer.write(next(iter(mailbox.mbox(sys.argv[1]))).as_bytes())' "$BATS_TEST_TMPDIR/b4/$msgid.mbx" >"$BATS_TEST_TMPDIR/fetched.eml"
	[ "$(mail_fields "$BATS_TEST_TMPDIR/fetched.eml")" = "$(mail_fields "$mail")" ]
	grep -qxF 'Subject: [REGRESSION] bisected to "ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG"' <<<"$(mail_fields "$BATS_TEST_TMPDIR/fetched.eml")"
}

@test "kbranch bisect: the kernel each step boots names its commit (LOCALVERSION)" {
	local commit release steps=0
	# Each step's two report lines: "N. role <sha> subject", then its
	# verdict line with the release its kernel was built as; a result
	# reused from a commit with the same tree names that commit.
	while read -r commit release; do
		echo "$commit $release"
		[[ "$release" == *"-g${commit:0:12}" ]]
		steps=$((steps + 1))
	done < <(awk '/^  [0-9]+\. / { c = $3 } /^     .* release=/ && !/compiled=reused/ { sub(/.* release=/, ""); sub(/ .*/, ""); print c, $0 }' "$BATS_FILE_TMPDIR/first-report")
	[ "$steps" -ge 4 ]
}

@test "kbranch bisect: a warm re-run builds only the revert check and names the same commit" {
	local culprit report
	culprit=$(ktree rev-parse scratch-bisect~2)
	kbisect --good ext4-rename --bad scratch-bisect --config "$KBRANCH_CI_SCRATCH/tester-debug.config"
	report=$(report_of)
	[ "$status" -eq 0 ]
	[ "$(first_bad_line)" = "first bad commit: $culprit ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG" ]
	# Every step reused; the revert, booted again by design, alone built.
	grep -qE '^commits in the range: 4; builds: 1 .*results reused: [1-9]' "$report"
	[ "$(revert_line)" = 'revert check: passed' ]
}

@test "kbranch bisect: with our own variant's config the same bug is not seen: the bad end is not bad" {
	[ "${KBRANCH_CI_FULL:-0}" = 1 ] || skip "a build of our own config at the bad end, about a minute, past what CI's 90 minutes leave on a slow day; the fast tier's stand-in checks the same refusal (KBRANCH_CI_FULL=1 runs it)"
	kbisect --good ext4-rename --bad scratch-bisect
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the bad end $(ktree rev-parse --short=12 scratch-bisect) is not bad: build, boot and test passed"* ]]
	grep -q '^status: stopped at step 2' "$(report_of)"
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
}

# A distribution's habit: the console and the disk as modules, devtmpfs
# off.  olddefconfig keeps that, and no kernel made from it boots the
# busybox guest: refused at the good end's config, before its build.
@test "kbranch bisect: a config that cannot boot the busybox guest is refused at the good end, before any build: 128, each option named" {
	local config=$BATS_TEST_TMPDIR/no-devtmpfs.config start
	make_debug_only_bug
	sed -e 's/^CONFIG_DEVTMPFS=y/# CONFIG_DEVTMPFS is not set/' -e 's/^CONFIG_VIRTIO_BLK=y/CONFIG_VIRTIO_BLK=m/' \
		"$KBRANCH_CI_SCRATCH/tester-debug.config" >"$config"
	start=$SECONDS
	kbisect --good ext4-rename --bad scratch-bisect --config "$config"
	[ "$status" -eq 128 ]
	[ $((SECONDS - start)) -lt 120 ]
	[[ "$stderr" == *"--config: after olddefconfig at $(ktree rev-parse --short=12 ext4-rename) it cannot boot the busybox guest: "*"CONFIG_DEVTMPFS=n (needs y)"*"CONFIG_VIRTIO_BLK=m (needs y)"* ]]
	grep -q '^status: stopped at step 0' "$(report_of)"
	# The good end's run stopped after its config stage: no build stage.
	grep -q ': config (' "$(dirname "$(report_of)")"/logs/1-good-end-*.log
	[ "$(grep -c ': build (' "$(dirname "$(report_of)")"/logs/1-good-end-*.log)" -eq 0 ]
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
}

@test "kbranch bisect: interrupted, git bisect's state is undone and the report says where it stopped" {
	local log=$KBRANCH_CI_SCRATCH/bisect-interrupted.log pid status=0 report
	# --repeat 2: a result not kept before, so step 1 builds and boots.
	(cd "$KTREE" && exec setsid env --default-signal=INT "$KBRANCH" bisect --good ext4-rename --bad scratch-bisect \
		--config "$KBRANCH_CI_SCRATCH/tester-debug.config" --repeat 2) >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		grep -q 'step 1 (good-end): .* (log: ' "$log" && break
		sleep 0.2
	done
	sleep 3
	kill -INT "$pid"
	wait "$pid" || status=$?
	cat "$log"
	[ "$status" -eq 130 ]
	report=$(tail -n 1 "$log")
	cat "$report"
	grep -q '^status: stopped at step 0, .*interrupted by SIGINT during step 1' "$report"
	[ "$(ktree symbolic-ref --short HEAD)" = ext4-rename ]
	[ ! -f "$KTREE/.git/BISECT_START" ]
}

@test "kbranch bisect: two bad commits: the first is named, and its revert on the bad end fails, so it is reported unconfirmed: inconclusive, 3" {
	full_only "two bisects of a branch of its own, about 2 minutes"
	local culprit report
	make_two_bugs
	culprit=$(ktree rev-parse scratch-bisect2~2)
	kbisect --good ext4-rename --bad scratch-bisect2 --config "$KBRANCH_CI_SCRATCH/tester-debug.config"
	[ "$status" -eq 3 ]
	grep -qx 'status: done, inconclusive: the revert did not confirm the culprit (exit 3)' "$(report_of)"
	report=$(report_of)
	cat "$report"
	[ "$(first_bad_line)" = "first bad commit: $culprit ext4: planted: refuse every mount under CONFIG_EXT4_DEBUG" ]
	[[ "$(revert_line)" == "revert check: failed: the bad end with ${culprit:0:12} reverted is still bad, the culprit is not confirmed"* ]]
	grep -qE '^commits in the range: 4; builds: [0-5] \(at most 5' "$report"
}

# One commit of code in fs/quota/dquot.c, which only CONFIG_QUOTA
# compiles and the tester's config has not, and a reproducer that lies:
# it fails on the kernel whose release names that commit.  git bisect
# names it, and its revert passes, as a lie's would; but its kernel is
# its parent's, byte for byte but for the release, and the revert's is
# the same again.  (Code under "#ifdef CONFIG_QUOTA" in a file that is
# compiled would not do: the lines it adds move every __LINE__ after it,
# which ext4_error() and WARN_ON() put in the kernel.)
@test "kbranch bisect: a culprit named by a test that lies, whose change no config of the tester's compiles, builds its parent's kernel: suspect, inconclusive, 3" {
	full_only "a bisect of a branch of its own, about 2 minutes"
	local culprit report ids
	grep -qx '# CONFIG_QUOTA is not set' "$KBRANCH_CI_SCRATCH/tester-debug.config"
	ktree checkout -q -f -B scratch-same ext4-rename
	planted 'quota: planted: a counter only CONFIG_QUOTA compiles' sh -c 'printf "\nint kbranch_ci_planted_quota;\n" >>fs/quota/dquot.c'
	ktree checkout -q -f ext4-rename
	culprit=$(ktree rev-parse scratch-same)
	# shellcheck disable=SC2016 # the guest's shell expands it
	printf '#!/bin/sh\ncase "$(uname -r)" in\n*-g%s) echo "repro: failed, as this test says of %s"; exit 1 ;;\nesac\n' \
		"${culprit:0:12}" "${culprit:0:12}" >"$BATS_TEST_TMPDIR/lying.sh"
	chmod +x "$BATS_TEST_TMPDIR/lying.sh"
	kbisect --good ext4-rename --bad scratch-same --config "$KBRANCH_CI_SCRATCH/tester-debug.config" --test "$BATS_TEST_TMPDIR/lying.sh"
	report=$(report_of)
	cat "$report"
	[ "$status" -eq 3 ]
	[ "$(first_bad_line)" = "first bad commit: $culprit quota: planted: a counter only CONFIG_QUOTA compiles" ]
	[ "$(revert_line)" = 'revert check: passed' ]
	# The good end (the parent), the bad end and the revert: three
	# builds, one kernel.
	mapfile -t ids < <(sed -n 's/^     .* release=[^ ]* kernel=\([0-9a-f]\{16\}\)$/\1/p' "$report")
	[ "${#ids[@]}" -eq 3 ]
	[ "${ids[0]}" = "${ids[1]}" ]
	[ "${ids[1]}" = "${ids[2]}" ]
	grep -qxF "suspect: it builds the same kernel as its parent (kernel=${ids[0]}), so it cannot have changed the kernel the guest booted" "$report"
	[ ! -e "$(dirname "$report")/regression.eml" ]
}

# The recipe of docs/tester.md's "Trimming a distribution config", the
# indented lines under that heading, run as they are in the tree at the
# tip with Debian 12's own config; $1 lines of it (all by default).
trim_recipe() {
	awk '/^### Trimming a distribution config/ { on = 1; next } on && /^    / { print substr($0, 5); n++ } on && n && !/^    / { exit }' \
		"$REPO/docs/tester.md" | sed -n "1,${1:-\$}p"
}

@test "the docs' localmodconfig recipe trims Debian's config to ext4's modules, and the busybox guest's check accepts what it makes" {
	local config=$KTREE/build/.config before after
	ktree checkout -q -f ext4-rename
	mkdir -p "$KTREE/build"
	xz -dc /usr/src/linux-config-6.1/config.amd64_none_amd64.xz >"$config"
	before=$(grep -c '=m$' "$config")
	[ "$(trim_recipe | grep -c .)" -eq 4 ]
	# Without the guest's needs merged (the first two lines), the check refuses, naming them.
	trim_recipe 2 >"$BATS_TEST_TMPDIR/half"
	run env -C "$KTREE" KB="$REPO" bash -e "$BATS_TEST_TMPDIR/half"
	[ "$status" -eq 0 ]
	cp "$config" "$BATS_TEST_TMPDIR/half.config"
	run --separate-stderr env -C "$KTREE" KBRANCH_WORK="$BATS_TEST_TMPDIR/half-work" "$REPO/bisect-tests/run" \
		--config "$BATS_TEST_TMPDIR/half.config" --configure-only
	echo "$stderr"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"cannot boot the busybox guest"*"CONFIG_VIRTIO_BLK="* ]]
	# The whole recipe.
	xz -dc /usr/src/linux-config-6.1/config.amd64_none_amd64.xz >"$config"
	trim_recipe >"$BATS_TEST_TMPDIR/recipe"
	run env -C "$KTREE" KB="$REPO" bash -e "$BATS_TEST_TMPDIR/recipe"
	echo "$output" | tail -n 5
	[ "$status" -eq 0 ]
	after=$(grep -c '=m$' "$config")
	echo "modules: $before -> $after"
	[ "$before" -gt 2000 ]
	[ "$after" -le 10 ]
	grep -qx 'CONFIG_EXT4_FS=m' "$config"
	grep -qx 'CONFIG_JBD2=m' "$config"
	grep -qx 'CONFIG_VIRTIO_BLK=y' "$config"
	cp "$config" "$BATS_TEST_TMPDIR/trimmed.config"
	run --separate-stderr env -C "$KTREE" KBRANCH_WORK="$BATS_TEST_TMPDIR/trim-work" "$REPO/bisect-tests/run" \
		--config "$BATS_TEST_TMPDIR/trimmed.config" --configure-only
	echo "$stderr"
	[ "$status" -eq 0 ]
}
