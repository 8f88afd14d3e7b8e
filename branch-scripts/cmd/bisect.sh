# shellcheck shell=bash
# summary: a tester's bisect with their .config and reproducer: both ends checked first, the culprit reverted on bad, one report

# kbranch bisect --good A --bad B [--config FILE] [--test SCRIPT]
#                [--repeat N] [--guest busybox|debian] [--packages LIST]
#                [--variant NAME] [--tree DIR] [--report FILE] [--retest[=A,B]]
#                [--find-fix]
#
# The kernel's bisect guide (Documentation/admin-guide/verify-bugs-and-
# bisect-regressions.rst) done by the machine, each step through
# bisect-tests/run with the same options (--config, --test, --repeat:
# bisect-tests/run --help), in the kernel tree of $KBRANCH_WORK or the
# tester's own (--tree DIR):
#  - both ends first: A must be good and B bad with the same config and
#    test, or it stops and says which end is wrong and why (build, boot or
#    test), before bisecting;
#  - each step: the tester's config taken to the commit with "make
#    olddefconfig", and compared with the config carried there from the
#    nearest tested ancestor's: the step's progress line and its line in
#    the report say "config: stepped = jumped", or "config: stepped
#    DIFFERS from jumped" with the options; a kernel release naming the
#    commit; a skip only with its reason; /proc/sys/kernel/tainted;
#  - the end: the culprit reverted on top of B, built and tested the same
#    way, and always booted again, even when its tree was tested before
#    (a culprit at B reverted is B's parent's tree): "passed" confirms it,
#    "failed" says it is not confirmed; the options the config gains or
#    loses at the culprit against its parent.
#
# The report ($KBRANCH_WORK/bisect/<id>/report.txt, or --report FILE) is
# written again after every step, atomically: the steps with verdicts,
# pass counts and logs, the culprit, the revert check, the config delta,
# the number of builds, git bisect log, and the culprit's .config beside it.
# A confirmed culprit also gets regression.eml beside it, the report as a
# mail to its author and maintainers (lib/bisect-mail.sh); a culprit
# that cannot have changed the guest's kernel (only documentation,
# defconfigs, other architectures or comments, a merge, or source whose
# compiled kernel is its parent's) is suspect: the answer is inconclusive.
# --find-fix: the other way round, the commit that fixed it.  B, the bad
# end, is the older (the bug is there), A, the good end, the newer (it is
# gone); git bisect's terms are "broken" and "fixed", the culprit is "the
# first fixed commit", and its revert on the good end must bring the bug
# back (bad) to confirm it.
#
# A commit's result is kept in $KBRANCH_WORK/bisect/cache/<key>, the key
# a hash of its tree, the options and the files they name (config, test)
# and bisect-tests' files: a re-run builds nothing it built before but
# the revert check.
# --retest ignores what is kept there: every step is built and booted
# again (a wrong verdict, an intermittent failure missed or a spurious
# one, is not kept forever), and what it finds replaces what was kept;
# --retest=A,B does so for those commits alone.
#
# The guest is our busybox one, or with --guest debian the Debian 12
# machine (bisect-tests/run --help): the tester's config taken to each
# commit with olddefconfig and what the machine needs to boot in QEMU
# merged onto it (the report lists the options the guest changed), the
# kernel installed the Debian way, the test run once systemd reached its
# target with the scratch disks (/dev/vda test_fs, /dev/vdb plain);
# --repeat N is N boots, each from fresh disks, each running the test.
# --packages acl,xfsprogs: Debian packages the test needs (setfacl,
# xfs_io), installed with their dependencies in an image of their own.
# --variant NAME without --config bisects with one of our variants'
# configs; one of kind debian is the Debian guest: with --test or
# --repeat it boots the tester's machine, else runs its scenarios.
#
# One bisect per tree at a time: a second one on the same tree says so in
# one line and exits 128 (a lock in the tree's git dir).
#
# Its last lines on stdout: "first bad commit: <sha> <subject>", "revert
# check: passed|failed|not run (why)", then the report's path.  Exit 0
# when a culprit is named and its revert passed, 3 when one is named but
# its revert did not confirm it (failed, or could not run) or it is
# suspect: inconclusive, the culprit is git bisect's answer, not a
# confirmed one; 3 too when the steps left could not be judged (flaky or
# untestable: skipped), with the commits git bisect could not split; 1
# when an end
# is wrong or none could be named,
# 128 for bad input (one line, nothing built: not a kernel config, A not
# an ancestor of B or the same commit, a test script missing, not
# executable or with a syntax error (bisect-tests/run --check-options
# reads it with -n), a tree without the series, a guest that is not busybox or
# debian, --packages without --guest debian or with a name that is not a
# package's, a bisect already running on the tree), 130/143 when
# interrupted (one line; the step's run stopped, a git command let finish,
# git bisect reset done, the report says where it stopped).

# RESULT lines are read by bisect-tests' own reader (result_field).
# shellcheck source=bisect-tests/lib/verdict.sh
source "$KB_REPO/bisect-tests/lib/verdict.sh"
# shellcheck source=branch-scripts/lib/bisect-mail.sh
source "$KB_REPO/branch-scripts/lib/bisect-mail.sh"

KB_BISECT_GOOD=''
KB_BISECT_BAD=''
KB_BISECT_RETEST=0
KB_BISECT_RETEST_AT=''
KB_BISECT_FIND_FIX=0
KB_BISECT_TREE=''
KB_BISECT_REPORT=''
KB_BISECT_RUN_OPTS=()
KB_BISECT_OPT_TEXT=''
KB_BISECT_GUEST=''
KB_BISECT_PACKAGES=''
KB_BISECT_SUSPECT=''
KB_BISECT_MAIL=''

# The usage has one text, the header's block above that starts "kbranch
# bisect --good": --help prints the header as 'kbranch help bisect' does,
# and a wrong argument dies with that block in one line.
bisect_usage() {
	local usage
	usage=$(sed -n '/^# kbranch bisect --good/,/^#$/{/^#$/d; s/^# *//; p;}' "${BASH_SOURCE[0]}" | tr -s ' \n' ' ')
	die "usage: ${usage% }"
}

bisect_parse() {
	local config='' test='' repeat=1 variant='' guest='' packages=''
	while [ "$#" -gt 0 ]; do
		case $1 in
		-h | --help)
			subcommand_help bisect
			exit 0
			;;
		--retest | --find-fix)
			[ "$1" = --retest ] && KB_BISECT_RETEST=1
			[ "$1" = --find-fix ] && KB_BISECT_FIND_FIX=1
			shift
			continue
			;;
		--retest=*)
			KB_BISECT_RETEST_AT=${1#--retest=}
			shift
			continue
			;;
		esac
		[ "$#" -ge 2 ] || bisect_usage
		case $1 in
		--good) KB_BISECT_GOOD=$2 ;;
		--bad) KB_BISECT_BAD=$2 ;;
		--tree) KB_BISECT_TREE=$2 ;;
		--report) KB_BISECT_REPORT=$2 ;;
		--config) config=$(readlink -f -- "$2" || printf '%s' "$2") ;;
		--test) test=$(readlink -f -- "$2" || printf '%s' "$2") ;;
		--repeat) repeat=$2 ;;
		--variant) variant=$2 ;;
		--guest) guest=$2 ;;
		--packages) packages=$2 ;;
		*) bisect_usage ;;
		esac
		shift 2
	done
	[ -n "$KB_BISECT_GOOD" ] || bisect_usage
	[ -n "$KB_BISECT_BAD" ] || bisect_usage
	[ -n "$config" ] && KB_BISECT_RUN_OPTS+=(--config "$config")
	[ -n "$test" ] && KB_BISECT_RUN_OPTS+=(--test "$test")
	[ -n "$variant" ] && KB_BISECT_RUN_OPTS+=(--variant "$variant")
	KB_BISECT_GUEST_OPTS=()
	[ -z "$guest" ] || KB_BISECT_GUEST_OPTS=(--guest "$guest")
	KB_BISECT_RUN_OPTS+=(--repeat "$repeat" "${KB_BISECT_GUEST_OPTS[@]}")
	[ -z "$packages" ] || KB_BISECT_RUN_OPTS+=(--packages "$packages")
	KB_BISECT_GUEST=$guest KB_BISECT_PACKAGES=$packages KB_BISECT_TEST=$test KB_BISECT_REPEAT=$repeat
	KB_BISECT_OPT_TEXT="config: ${config:-none (the variant config)}; test: ${test:-our checks}; repeat: $repeat; guest: ${guest:-as the variant}${packages:+; packages: $packages}; variant: ${variant:-default}"
	: "${KB_BISECT_TREE:=$KTREE}"
	return 0
}

# git in the tree, as the committer kbranch.  Where git's answer is a
# condition, git is called directly: a function called in a condition runs
# with set -e off.
KB_BISECT_IDENTITY=(-c user.name=kbranch -c user.email=kbranch@localhost)

tgit() {
	git -C "$KB_BISECT_TREE" "${KB_BISECT_IDENTITY[@]}" "$@"
}

# Which end is the older, and the words git bisect and the report use:
# a regression goes from good (old) to bad (new); with --find-fix, from
# bad ("broken", old) to good ("fixed", new).  KB_BISECT_NEW_CODE is the
# exit code of the newer end's verdict, which marks a step "new".
bisect_direction() {
	if [ "$KB_BISECT_FIND_FIX" = 1 ]; then
		KB_BISECT_OLD=$KB_BISECT_BAD KB_BISECT_NEW=$KB_BISECT_GOOD
		KB_BISECT_OLD_END=bad KB_BISECT_NEW_END=good
		KB_BISECT_OLD_TERM=broken KB_BISECT_NEW_TERM=fixed
		KB_BISECT_FIX_HINT=" (--find-fix: the bad end is the older)"
	else
		KB_BISECT_OLD=$KB_BISECT_GOOD KB_BISECT_NEW=$KB_BISECT_BAD
		KB_BISECT_OLD_END=good KB_BISECT_NEW_END=bad
		KB_BISECT_OLD_TERM=good KB_BISECT_NEW_TERM=bad
		KB_BISECT_FIX_HINT=''
	fi
	KB_BISECT_NEW_CODE=$(verdict_exit "$KB_BISECT_NEW_END")
}

# Bad input: one line, 128, before anything is checked out or built.
bisect_check_input() {
	local why has_series changes gitdir good bad
	if [ ! -f "$KB_BISECT_TREE/Makefile" ] || [ ! -d "$KB_BISECT_TREE/fs/ext4" ] || ! git -C "$KB_BISECT_TREE" rev-parse --git-dir >/dev/null 2>&1; then
		die "$KB_BISECT_TREE is not a kernel git tree"
	fi
	bisect_lock
	git -C "$KB_BISECT_TREE" rev-parse -q --verify "$KB_BISECT_GOOD^{commit}" >/dev/null || die "--good $KB_BISECT_GOOD: no such commit in $KB_BISECT_TREE"
	git -C "$KB_BISECT_TREE" rev-parse -q --verify "$KB_BISECT_BAD^{commit}" >/dev/null || die "--bad $KB_BISECT_BAD: no such commit in $KB_BISECT_TREE"
	good=$(tgit rev-parse "$KB_BISECT_GOOD^{commit}")
	bad=$(tgit rev-parse "$KB_BISECT_BAD^{commit}")
	[ "$good" != "$bad" ] ||
		die "--good $KB_BISECT_GOOD and --bad $KB_BISECT_BAD are the same commit, $good: nothing lies between them to bisect"
	KB_BISECT_GOOD=$good KB_BISECT_BAD=$bad
	KB_BISECT_RETEST_AT=$(bisect_retest_commits)
	bisect_direction
	if ! git -C "$KB_BISECT_TREE" merge-base --is-ancestor "$KB_BISECT_OLD" "$KB_BISECT_NEW"; then
		die "--$KB_BISECT_OLD_END $KB_BISECT_OLD is not an ancestor of --$KB_BISECT_NEW_END $KB_BISECT_NEW${KB_BISECT_FIX_HINT}"
	fi
	has_series=$(bisect_has_series "$KB_BISECT_NEW")
	[ "$has_series" = yes ] ||
		die "$KB_BISECT_TREE has no commit of the ext4 series in the history of $KB_BISECT_NEW (git pull the branch first)"
	bisect_check_packages
	why=$(cd "$KB_BISECT_TREE" && "$KB_REPO/bisect-tests/run" --check-options "${KB_BISECT_RUN_OPTS[@]}" 2>&1 >/dev/null) ||
		die "${why#bisect-tests: }"
	changes=$(tgit status --porcelain --untracked-files=no)
	[ -z "$changes" ] || die "$KB_BISECT_TREE has uncommitted changes; commit or stash them first"
	gitdir=$(tgit rev-parse --absolute-git-dir)
	if [ -f "$gitdir/BISECT_START" ]; then
		die "$KB_BISECT_TREE has a git bisect in progress; 'git bisect reset' there first"
	fi
}

# The commits --retest=A,B names, as full hashes, comma-separated; a name
# that is not a commit of the tree is bad input.
bisect_retest_commits() {
	local name sha out=''
	for name in ${KB_BISECT_RETEST_AT//,/ }; do
		sha=$(git -C "$KB_BISECT_TREE" rev-parse -q --verify "$name^{commit}") ||
			die "--retest=$KB_BISECT_RETEST_AT: $name is not a commit of $KB_BISECT_TREE"
		out+=${out:+,}$sha
	done
	printf '%s\n' "$out"
}

# --packages with an empty name (a comma first, last or doubled), refused
# in bisect-tests/run's words for one.  Its reader (debian_extra_packages,
# read -a) drops an empty last field, so "acl," passed where ",acl" and
# "acl,,xfsprogs" did not.  Only with --guest debian: without it, run
# refuses any --packages first, and says why.
bisect_check_packages() {
	[ "$KB_BISECT_GUEST" = debian ] && [ -n "$KB_BISECT_PACKAGES" ] && [[ ",$KB_BISECT_PACKAGES," == *,,* ]] || return 0
	die "--packages '$KB_BISECT_PACKAGES': '' is not a Debian package name (comma-separated, as acl,xfsprogs)"
}

# One bisect per tree: a second one would move HEAD under the first's
# build and share its git bisect state.  flock on a file in the tree's git
# dir, held on an fd until the run ends (the kernel drops it when the
# holder dies: a killed run leaves no stale lock).
bisect_lock() {
	local file holder
	file=$(tgit rev-parse --absolute-git-dir)/kbranch-bisect.lock
	exec {KB_BISECT_LOCK_FD}>>"$file" || die "cannot open $file"
	if ! flock -n "$KB_BISECT_LOCK_FD"; then
		holder=$(cat "$file" 2>/dev/null) || true
		die "another kbranch bisect is running on $KB_BISECT_TREE (${holder:-pid unknown}); wait for it to end"
	fi
	printf 'pid %s\n' "$$" >"$file"
}

# "yes" when commit $1's history holds a commit of the series (a subject
# the expectations table declares, the packaged import aside), else "no".
bisect_has_series() {
	local subjects history
	subjects=$(sed -n 's/^\([^#].*\) | .*/\1/p' "$KB_REPO/bisect-tests/expectations" | grep -v '^Import linux-source' || true)
	# Read whole first: grep -q stops early, and git log's SIGPIPE would fail the pipe.
	history=$(tgit log --format=%s -n 2000 "$1")
	if grep -qxF -f <(printf '%s\n' "$subjects") <<<"$history"; then echo yes; else echo no; fi
}

# --- The record of the run: one line per step, the report made from it ----

# A step's record, tab-separated: n role commit code verdict build boot
# checks passes tainted seconds compiled log reason release config (the
# config carried stepwise against jumped: bisect_config_status) kernel
# (run's kernel=: its build's bytes but for the release); no field
# is empty ("-"), since read joins a run of tabs into one.
bisect_record() {
	local IFS=$'\t' fields=() f
	for f in "$@"; do fields+=("${f:--}"); done
	printf '%s\n' "${fields[*]}" >>"$KB_BISECT_DIR/steps"
}

bisect_subject() {
	tgit log -1 --format=%s "$1"
}

# The report, written whole to a temporary file and renamed over the old
# one: a reader (or an interruption) never sees half of it.
bisect_report() {
	local status=$1 tmp=$KB_BISECT_REPORT.tmp.$$
	bisect_report_text "$status" >"$tmp"
	mv -f "$tmp" "$KB_BISECT_REPORT"
}

bisect_report_text() {
	local status=$1 n role commit code verdict build boot checks passes tainted seconds compiled log reason release config kernel
	printf 'kbranch bisect report\n\nstatus: %s\n' "$status"
	printf 'tree: %s\ngood: %s %s\nbad: %s %s\n%s\n' "$KB_BISECT_TREE" \
		"$KB_BISECT_GOOD" "$(bisect_subject "$KB_BISECT_GOOD")" "$KB_BISECT_BAD" "$(bisect_subject "$KB_BISECT_BAD")" "$KB_BISECT_OPT_TEXT"
	printf 'commits in the range: %s; builds: %s (at most %s: both ends, ceil(log2 n) steps, the revert); results reused: %s\n' \
		"$KB_BISECT_N" "$(bisect_count_builds)" "$(bisect_max_builds)" "$(bisect_count_reused)"
	printf '\nsteps (verdict, build/boot/checks, passes, /proc/sys/kernel/tainted, seconds, objects compiled):\n'
	while IFS=$'\t' read -r n role commit code verdict build boot checks passes tainted seconds compiled log reason release config kernel; do
		printf '  %s. %-8s %s %s\n' "$n" "$role" "$commit" "$(bisect_subject "$commit")"
		printf '     %s (exit %s): build=%s boot=%s checks=%s passes=%s tainted=%s %ss compiled=%s release=%s kernel=%s\n' \
			"$verdict" "$code" "$build" "$boot" "$checks" "$passes" "$tainted" "$seconds" "$compiled" "$release" "$kernel"
		[ "$reason" = - ] || printf '     why: %s\n' "$reason"
		bisect_boots_text "$log"
		[ "$config" = - ] || printf '     config: %s\n' "$config"
		[ ! -f "$KB_BISECT_DIR/configs/$commit.guest-added" ] ||
			printf '     guest added: %s options (%s)\n' "$(wc -l <"$KB_BISECT_DIR/configs/$commit.guest-added")" "$KB_BISECT_DIR/configs/$commit.guest-added"
		printf '     log: %s\n' "$log"
		[ ! -d "${log%.log}.consoles" ] || printf '     consoles: %s\n' "${log%.log}.consoles"
	done <"$KB_BISECT_DIR/steps"
	printf '\nfirst %s commit: %s\n' "$KB_BISECT_NEW_TERM" "${KB_BISECT_CULPRIT_LINE:-not found yet}"
	printf 'revert check: %s\n' "${KB_BISECT_REVERT:-not run yet}"
	[ -z "$KB_BISECT_SUSPECT" ] || printf 'suspect: %s, so it cannot have changed the kernel the guest booted\n' "$KB_BISECT_SUSPECT"
	[ -z "$KB_BISECT_MAIL" ] || printf 'regression report, ready to send: %s\n' "$KB_BISECT_MAIL"
	bisect_intermittent
	printf '\nconfig at the culprit against its parent (what the tester'"'"'s config gains or loses):\n'
	if [ -f "$KB_BISECT_DIR/config-delta" ]; then sed 's/^/  /' "$KB_BISECT_DIR/config-delta"; else echo "  not known yet"; fi
	printf '\nconfig carried stepwise against jumped (make olddefconfig):\n'
	if [ -f "$KB_BISECT_DIR/config-steps" ]; then sed 's/^/  /' "$KB_BISECT_DIR/config-steps"; else echo "  nothing compared yet"; fi
	bisect_guest_added_text
	printf "\nthe culprit's .config: %s\n" "${KB_BISECT_CULPRIT_CONFIG:-not known yet}"
	printf '\ngit bisect log:\n'
	if [ -f "$KB_BISECT_DIR/bisect.log" ]; then
		sed 's/^/  /' "$KB_BISECT_DIR/bisect.log"
	else
		log=$(git -C "$KB_BISECT_TREE" bisect log 2>/dev/null) || true
		[ -z "$log" ] || printf '%s\n' "$log" | sed 's/^/  /'
	fi
}

# Each boot's outcome of a step that booted more than once (--repeat),
# from its log's RESULT line.
bisect_boots_text() {
	local boots
	[ -f "$1" ] || return 0
	boots=$(result_of_run <"$1")
	boots=$(result_field "$boots" boots)
	[ -z "$boots" ] || printf '     boots: %s\n' "$boots"
}

# The options the guest (--guest debian) changed in the tester's config,
# at the culprit or, before one is named, the bad end.
bisect_guest_added_text() {
	local commit=${KB_BISECT_CULPRIT:-$KB_BISECT_NEW} file
	file=$KB_BISECT_DIR/configs/$commit.guest-added
	[ -f "$file" ] || return 0
	printf '\noptions the guest merged onto the tester'"'"'s config at %s (merge_config.sh; "n": not set):\n' "${commit:0:12}"
	sed 's/^/  /' "$file"
}

# A bad step that passed some of its boots (--repeat): the culprit was
# found through an intermittent failure, and the report says so.
bisect_intermittent() {
	awk -F'\t' '$4 == 1 && $9 ~ /^[1-9][0-9]*\/[0-9]+$/ {
		split($9, p, "/")
		printf "intermittent: step %s (%s, %s) failed %d of its %d boots and passed %d\n", $1, $2, substr($3, 1, 12), p[2] - p[1], p[2], p[1]
	}' "$KB_BISECT_DIR/steps"
}

bisect_count_builds() {
	awk -F'\t' '$12 !~ /^reused/ { n++ } END { print n + 0 }' "$KB_BISECT_DIR/steps"
}

bisect_count_reused() {
	awk -F'\t' '$12 ~ /^reused/ { n++ } END { print n + 0 }' "$KB_BISECT_DIR/steps"
}

# ceil(log2 n) + 3.
bisect_max_builds() {
	local n=$KB_BISECT_N steps=0 p=1
	while [ "$p" -lt "$n" ]; do p=$((p * 2)) steps=$((steps + 1)); done
	echo $((steps + 3))
}

# --- One commit, tested --------------------------------------------------

# What a result depends on: the commit's tree, the options' files, the
# tests (bisect-tests/ as this repository holds it).
bisect_key() {
	local commit=$1
	{
		tgit rev-parse "$commit^{tree}"
		printf '%s\n' "${KB_BISECT_RUN_OPTS[@]}"
		local f
		for f in "${KB_BISECT_RUN_OPTS[@]}"; do [ ! -f "$f" ] || sha256sum <"$f"; done
		(cd "$KB_REPO" && find bisect-tests -type f -print0 | sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -c1-24
}

# Whether a step in role $1 at commit $2 may reuse a kept result: "yes"
# or "no".  The revert check never does, so that it boots something new;
# with --retest no step does, with --retest=A,B only those commits' do not.
bisect_reuses() {
	local role=$1 commit=$2 named
	if [ "$KB_BISECT_RETEST" = 1 ] || [ "$role" = revert ]; then
		echo no
		return 0
	fi
	for named in ${KB_BISECT_RETEST_AT//,/ }; do
		[ "$named" != "$commit" ] || { echo no; return 0; }
	done
	echo yes
}

# Test HEAD of the tree as step $1 in role $2; sets KB_CODE and records
# the step.  A result kept under the same key is reused, built nothing
# (bisect_reuses says when not).  A stop asked for is looked for first.
bisect_test_head() {
	local n=$1 role=$2 commit key cache log result code=0 compiled rdir reason=- release config reuse added
	bisect_stop_check
	commit=$(tgit rev-parse HEAD)
	key=$(bisect_key "$commit")
	cache=$KBRANCH_WORK/bisect/cache/$key
	log=$KB_BISECT_DIR/logs/$n-$role-${commit:0:12}.log
	KB_LAST_LOG=$log
	reuse=$(bisect_reuses "$role" "$commit")
	if [ -f "$cache/result" ] && [ "$reuse" = yes ]; then
		cp "$cache/log" "$log"
		code=$(cat "$cache/code")
		result=$(cat "$cache/result")
		# Made at a commit with the same tree: its release names that one.
		compiled=reused-from-$(cut -c1-12 "$cache/commit" 2>/dev/null || echo unknown)
		step "step $n ($role): ${commit:0:12}: the result kept for this tree, config and test: $(bisect_field "$result" verdict)"
	else
		step "step $n ($role): ${commit:0:12} $(bisect_subject "$commit") (log: $log)"
		bisect_run_tests "$log"
		code=$KB_RUN_CODE
		KB_CODE=$code
		[ "$code" = 0 ] || [ "$code" = 1 ] || [ "$code" = 125 ] || return 0
		result=$(result_of_run <"$log")
		rdir=$(bisect_field "$result" run)
		compiled=$(bisect_field "$result" compiled)
		mkdir -p "$cache.tmp.$$"
		cp "$log" "$cache.tmp.$$/log"
		printf '%s\n' "$result" >"$cache.tmp.$$/result"
		printf '%s\n' "$code" >"$cache.tmp.$$/code"
		printf '%s\n' "$commit" >"$cache.tmp.$$/commit"
		# The release this step's kernel booted as: it names the commit.
		config=$(bisect_field "$result" config)
		bisect_field "$result" release >"$cache.tmp.$$/release"
		[ ! -f "$config" ] || cp "$config" "$cache.tmp.$$/config"
		added=$(bisect_field "$result" guest-added)
		[ ! -f "$added" ] || cp "$added" "$cache.tmp.$$/guest-added"
		bisect_keep_consoles "$rdir" "$cache.tmp.$$/consoles"
		rm -rf "$cache" && mv "$cache.tmp.$$" "$cache"
	fi
	KB_CODE=$code
	release=$(cat "$cache/release" 2>/dev/null || echo -)
	[ ! -f "$cache/config" ] || cp "$cache/config" "$KB_BISECT_DIR/configs/$commit.config"
	[ ! -f "$cache/guest-added" ] || cp "$cache/guest-added" "$KB_BISECT_DIR/configs/$commit.guest-added"
	[ "$role" = revert ] || bisect_config_steps
	[ ! -d "$cache/consoles" ] || cp -r "$cache/consoles" "${log%.log}.consoles"
	[ "$code" != 125 ] || reason=$(bisect_reason "$result")
	bisect_record "$n" "$role" "$commit" "$code" "$(bisect_field "$result" verdict)" "$(bisect_field "$result" build)" \
		"$(bisect_field "$result" boot)" "$(bisect_field "$result" checks)" "$(bisect_field "$result" passes)" \
		"$(bisect_field "$result" tainted)" "$(bisect_field "$result" seconds)" "$compiled" "$log" "$reason" "$release" \
		"$(bisect_config_status "$commit")" "$(bisect_field "$result" kernel)"
	say_step_result "$n" "$role" "$commit" "$result"
}

# The step's progress line; with the config's comparison when there is one.
say_step_result() {
	local config
	config=$(bisect_config_status "$3")
	step "step $1 ($2): ${3:0:12}: $(bisect_field "$4" verdict) (build=$(bisect_field "$4" build) boot=$(bisect_field "$4" boot) checks=$(bisect_field "$4" checks) passes=$(bisect_field "$4" passes) tainted=$(bisect_field "$4" tainted))${config:+; config: $config}"
}

# Commit $1's config carried stepwise against jumped, in words: "stepped
# = jumped (from <ancestor>)", "stepped DIFFERS from jumped (from
# <ancestor>): <options>", "not compared: ..."; nothing when not compared.
bisect_config_status() {
	local line re='^[0-9a-f]+ carried from ([0-9a-f]+): (.*)$'
	[ -f "$KB_BISECT_DIR/config-steps" ] || return 0
	line=$(grep "^${1:0:12} " "$KB_BISECT_DIR/config-steps" | tail -n 1) || true
	if [[ "$line" =~ $re ]]; then
		case ${BASH_REMATCH[2]} in
		'the same as jumped') echo "stepped = jumped (carried from ${BASH_REMATCH[1]})" ;;
		*) echo "stepped DIFFERS from jumped (carried from ${BASH_REMATCH[1]}): ${BASH_REMATCH[2]#DIFFERS from jumped: }" ;;
		esac
	elif [ -n "$line" ]; then
		echo "not compared: ${line#* from }"
	fi
}

# The consoles of run dir $1 (each boot's, with --repeat; and the Debian
# machine's report port, with the reproducer's words), into $2: the run
# dir keeps the last step only.
bisect_keep_consoles() {
	local rdir=$1 dest=$2 f rel
	[ -d "$rdir" ] || return 0
	while IFS= read -r f; do
		rel=${f#"$rdir"/}
		mkdir -p "$dest/$(dirname "$rel")"
		# Without the terminal's escapes and carriage returns: read and
		# mailed as text.
		tr -d '\r' <"$f" | sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$dest/$rel"
	done < <(find "$rdir" -name '*.console' -o -name console.log -o -name report.txt)
}

# Why a step that exited 125 is no verdict, from its RESULT fields $1:
# the reason run named, in bisect-tests' words for it.
bisect_reason() {
	local word
	word=$(result_field "$1" reason)
	if [ -n "$word" ]; then
		printf '%s (%s)\n' "$(verdict_reason_text "$word")" "$word"
	else
		echo "exit 125 with no reason named"
	fi
}

# Field $2 of RESULT fields $1 (bisect-tests/lib/verdict.sh reads it), or "-".
bisect_field() {
	local value
	value=$(result_field "$1" "$2")
	printf '%s\n' "${value:--}"
}

# bisect-tests/run in a process group of its own (set -m), so that a stop
# ends it with its make, compilers and QEMU (bisect_child_stop), its pid
# in the file "child" for kbranch's trap (bisect_request_stop).  A stop
# asked for is looked for once the pid is written, and once it ends.  Its
# exit code in KB_RUN_CODE: the caller is then no condition, and keeps set
# -e.
bisect_run_tests() {
	local log=$1 child
	set -m
	(cd "$KB_BISECT_TREE" && exec "$KB_REPO/bisect-tests/run" "${KB_BISECT_RUN_OPTS[@]}") >"$log" 2>&1 &
	child=$!
	set +m
	printf '%s\n' "$child" >"$KB_BISECT_DIR/child"
	bisect_stop_check
	KB_RUN_CODE=0
	wait "$child" || KB_RUN_CODE=$?
	rm -f "$KB_BISECT_DIR/child"
	bisect_stop_check
}

# --- The guide's checks --------------------------------------------------

# Why an end's result is wrong: which stage failed, or what skipped.
bisect_why() {
	local n=$1 line build boot checks reason log
	line=$(awk -F'\t' -v n="$n" '$1 == n' "$KB_BISECT_DIR/steps")
	IFS=$'\t' read -r _ _ _ _ _ build boot checks _ _ _ _ log reason _ <<<"$line"
	if [ "$build" = fail ]; then echo "its build failed (log: $log)"
	elif [ "$boot" = fail ]; then echo "its boot failed (log: $log)"
	elif [ "$checks" = fail ]; then echo "its test failed (log: $log)"
	elif [ "$reason" != - ]; then echo "it cannot be tested: $reason (log: $log)"
	else echo "build, boot and test passed (log: $log)"
	fi
}

# Both ends first, each with the same config and test.
bisect_check_ends() {
	bisect_check_end 1 "$KB_BISECT_OLD" "$KB_BISECT_OLD_END"
	bisect_check_end 2 "$KB_BISECT_NEW" "$KB_BISECT_NEW_END"
}

# Step $1 tests end $2, which must be $3 (good or bad).
bisect_check_end() {
	local n=$1 commit=$2 verdict=$3 code
	code=$(verdict_exit "$verdict")
	tgit checkout -q --detach "$commit"
	bisect_test_head "$n" "$verdict-end"
	bisect_stop_unless_verdict
	if [ "$KB_CODE" != "$code" ]; then
		bisect_give_up "the $verdict end ${commit:0:12} is not $verdict: $(bisect_why "$n")"
	fi
}

# A setup error (128) or an interruption of bisect-tests/run is no verdict.
bisect_stop_unless_verdict() {
	case $KB_CODE in
	0 | 1 | 125) ;;
	*) bisect_stopped "bisect-tests/run exited $KB_CODE (a setup problem, or interrupted), no verdict: see $KB_LAST_LOG: $(grep -v '^\[' "$KB_LAST_LOG" | tail -n 1)" "$KB_CODE" ;;
	esac
}

bisect_give_up() {
	bisect_stopped "$1" 1
}

# Stop: the report says where and why, git bisect's state is undone.  The
# file "ended", last, tells kbranch's shell that all that was done
# (bisect_supervise).
bisect_stopped() {
	local why=$1 code=$2 head
	head=$(git -C "$KB_BISECT_TREE" rev-parse --short=12 HEAD 2>/dev/null) || head=unknown
	git -C "$KB_BISECT_TREE" bisect log >"$KB_BISECT_DIR/bisect.log" 2>/dev/null || true
	git -C "$KB_BISECT_TREE" bisect reset >/dev/null 2>&1 || true
	bisect_report "stopped at step $(bisect_steps_done), $head checked out before the reset: $why"
	printf 'kbranch: %s\n' "$why" >&2
	printf '%s\n' "$KB_BISECT_REPORT"
	: >"$KB_BISECT_DIR/ended"
	exit "$code"
}

bisect_steps_done() {
	wc -l <"$KB_BISECT_DIR/steps" | tr -d ' '
}

# The config the tester's config becomes at HEAD when carried from the
# nearest tested ancestor's config, against the one made from theirs
# directly: the same, or the options that differ.
bisect_config_steps() {
	local head anc jumped carried out jumped_lines carried_lines
	head=$(tgit rev-parse HEAD)
	jumped=$KB_BISECT_DIR/configs/$head.config
	[ -f "$jumped" ] && [ -n "$KB_BISECT_CONFIG" ] || return 0
	anc=$(bisect_tested_ancestor "$head")
	[ -n "$anc" ] || return 0
	if ! out=$(cd "$KB_BISECT_TREE" && "$KB_REPO/bisect-tests/run" --config "$KB_BISECT_DIR/configs/$anc.config" \
		"${KB_BISECT_GUEST_OPTS[@]}" --configure-only 2>&1); then
		printf '%s from %s: could not be made: %s\n' "${head:0:12}" "${anc:0:12}" "$(tail -n 1 <<<"$out")" >>"$KB_BISECT_DIR/config-steps"
		return 0
	fi
	# The .config it made, where run says it is.
	carried=$(result_field "$(sed -n 's/^CONFIG //p' <<<"$out")" config)
	if [ ! -f "$carried" ]; then
		printf '%s from %s: run named no .config it made\n' "${head:0:12}" "${anc:0:12}" >>"$KB_BISECT_DIR/config-steps"
		return 0
	fi
	jumped_lines=$(bisect_config_lines "$jumped")
	carried_lines=$(bisect_config_lines "$carried")
	if [ "$jumped_lines" = "$carried_lines" ]; then
		printf '%s carried from %s: the same as jumped\n' "${head:0:12}" "${anc:0:12}" >>"$KB_BISECT_DIR/config-steps"
	else
		printf '%s carried from %s: DIFFERS from jumped: %s\n' "${head:0:12}" "${anc:0:12}" \
			"$(diff <(printf '%s\n' "$jumped_lines") <(printf '%s\n' "$carried_lines") | grep '^[<>]' | tr '\n' ' ')" >>"$KB_BISECT_DIR/config-steps"
	fi
}

# The nearest ancestor of $1 with a .config kept in this run; nothing
# when there is none.
bisect_tested_ancestor() {
	local c ancestors
	ancestors=$(git -C "$KB_BISECT_TREE" rev-list --first-parent -n 200 "$1^" 2>/dev/null) || true
	for c in $ancestors; do
		[ ! -f "$KB_BISECT_DIR/configs/$c.config" ] || { echo "$c"; return 0; }
	done
}

# A .config's options, one "CONFIG_X value" a line ("n" for not set),
# sorted; its comments and header aside.
bisect_config_lines() {
	sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1 \2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' "$1" | sort
}

# The options the config gains, loses or changes at the culprit $1.
bisect_config_delta() {
	local culprit=$1 parent
	parent=$(tgit rev-parse "$culprit^")
	if [ ! -f "$KB_BISECT_DIR/configs/$parent.config" ] || [ ! -f "$KB_BISECT_DIR/configs/$culprit.config" ]; then
		echo "not known: the parent or the culprit was not configured in this run" >"$KB_BISECT_DIR/config-delta"
		return 0
	fi
	join -a1 -a2 -e n -o 0,1.2,2.2 <(bisect_config_lines "$KB_BISECT_DIR/configs/$parent.config") \
		<(bisect_config_lines "$KB_BISECT_DIR/configs/$culprit.config") |
		awk '$2 != $3 { printf "%s: %s -> %s\n", $1, $2, $3; d = 1 } END { if (!d) print "no option changes" }' \
			>"$KB_BISECT_DIR/config-delta"
}

# git bisect, step by step: each commit tested, marked, the report written.
bisect_steps() {
	local n=3 out=''
	out=$(tgit bisect "$KB_BISECT_NEW_TERM" "$KB_BISECT_NEW" 2>&1)
	out+=$'\n'$(tgit bisect "$KB_BISECT_OLD_TERM" "$KB_BISECT_OLD" 2>&1)
	KB_BISECT_CULPRIT=$(bisect_first_bad "$out")
	while [ -z "$KB_BISECT_CULPRIT" ]; do
		if grep -q "only 'skip'ped commits left" <<<"$out"; then
			bisect_unsplit "$out"
		fi
		bisect_test_head "$n" step
		bisect_stop_unless_verdict
		case $KB_CODE in
		# git bisect skip exits 2 when only skipped commits are left: an
		# answer, read above on the next turn.
		125) out=$(git -C "$KB_BISECT_TREE" "${KB_BISECT_IDENTITY[@]}" bisect skip 2>&1) ||
			grep -q "only 'skip'ped commits left" <<<"$out" ||
			bisect_give_up "git bisect skip failed: $(tr '\n' ' ' <<<"$out")" ;;
		"$KB_BISECT_NEW_CODE") out=$(tgit bisect "$KB_BISECT_NEW_TERM" 2>&1) ;;
		*) out=$(tgit bisect "$KB_BISECT_OLD_TERM" 2>&1) ;;
		esac
		bisect_report running
		n=$((n + 1))
		KB_BISECT_CULPRIT=$(bisect_first_bad "$out")
	done
}

# git bisect's answer $1 when the steps left could not be judged (each a
# skip: flaky, or untestable): inconclusive, 3, with the commits it could
# not split and why each step was skipped.
bisect_unsplit() {
	local range skipped
	range=$(grep -oE '^[0-9a-f]{40}$' <<<"$1" | cut -c1-12 | tr '\n' ' ')
	skipped=$(awk -F'\t' '$4 == 125 { printf "%s%s: %s", sep, substr($3, 1, 12), $14; sep = "; " }' "$KB_BISECT_DIR/steps")
	bisect_stopped "inconclusive: the first $KB_BISECT_NEW_TERM commit is one of ${range% }, which git bisect could not split: the steps between were skipped ($skipped); --retest with more --repeat" 3
}

# The culprit's sha from git bisect's words; nothing when not named yet.
bisect_first_bad() {
	sed -n "s/^\\([0-9a-f]\\{40\\}\\) is the first $KB_BISECT_NEW_TERM commit\$/\\1/p" <<<"$1"
}

# The boots the revert check needs.  Its "passed" is evidence against a
# test that lies as much as for a bug that hides: a kernel that fails as
# often as the culprit's own step did, at half that step's rate to be
# safe, would pass every one of them less than 1 time in 100.  Never
# fewer than --repeat, at most 200; a culprit tested one boot a step
# (no --repeat) keeps --repeat's.
bisect_revert_boots() {
	local passes
	passes=$(bisect_culprit_passes)
	awk -v p="$passes" -v n="$KB_BISECT_REPEAT" 'BEGIN {
		m = n
		if (split(p, a, "/") == 2 && a[2] > 1 && a[2] > a[1]) {
			need = int(log(0.01) / log(1 - (a[2] - a[1]) / (2 * a[2]))) + 1
			if (need > m) m = need
		}
		print (m > 200 ? 200 : m)
	}'
}

# --repeat's value in the run's options, set to $1.
bisect_opts_repeat() {
	local i
	for ((i = 0; i < ${#KB_BISECT_RUN_OPTS[@]}; i++)); do
		[ "${KB_BISECT_RUN_OPTS[i]}" != --repeat ] || KB_BISECT_RUN_OPTS[i + 1]=$1
	done
}

# The culprit reverted on top of the newer end, built and tested the same
# way, with the boots bisect_revert_boots asks: the bad end must turn
# good (with --find-fix, the good end bad).
bisect_revert_check() {
	local n was=$KB_BISECT_NEW_END boots
	n=$(($(bisect_steps_done) + 1))
	tgit checkout -q --detach "$KB_BISECT_NEW"
	if ! git -C "$KB_BISECT_TREE" "${KB_BISECT_IDENTITY[@]}" revert --no-edit "$KB_BISECT_CULPRIT" >"$KB_BISECT_DIR/logs/revert.log" 2>&1; then
		git -C "$KB_BISECT_TREE" revert --abort >/dev/null 2>&1 || true
		KB_BISECT_REVERT="not run (the revert does not apply on the $was end: $(grep -m1 -E 'CONFLICT|error' "$KB_BISECT_DIR/logs/revert.log" || echo conflict))"
		return 0
	fi
	boots=$(bisect_revert_boots)
	[ "$boots" = "$KB_BISECT_REPEAT" ] ||
		step "revert check: $boots boots, so that a kernel failing half as often as the culprit's step did would pass them all less than 1 time in 100"
	bisect_opts_repeat "$boots"
	bisect_test_head "$n" revert
	bisect_opts_repeat "$KB_BISECT_REPEAT"
	bisect_stop_unless_verdict
	case $KB_CODE in
	125) KB_BISECT_REVERT="not run (the reverted kernel cannot be tested: $(bisect_why "$n"))" ;;
	"$KB_BISECT_NEW_CODE") KB_BISECT_REVERT="failed: the $was end with ${KB_BISECT_CULPRIT:0:12} reverted is still $was, the culprit is not confirmed ($(bisect_why "$n"))" ;;
	*) KB_BISECT_REVERT=passed ;;
	esac
	[ "$boots" = "$KB_BISECT_REPEAT" ] || KB_BISECT_REVERT+=" ($boots boots; the culprit's step failed $(bisect_step_fails))"
}

# The culprit's own step's passes field ("K/N" boots passed), from the
# steps file; "-" or nothing when it booted once.
bisect_culprit_passes() {
	awk -F'\t' -v c="$KB_BISECT_CULPRIT" '$3 == c && $2 != "revert" { p = $9 } END { print p }' "$KB_BISECT_DIR/steps"
}

# The culprit's step's failed boots, "F of B" (asked only when it booted
# more than once).
bisect_step_fails() {
	local passes
	passes=$(bisect_culprit_passes)
	printf '%s of %s\n' "$((${passes#*/} - ${passes%/*}))" "${passes#*/}"
}

# --- Interrupted ------------------------------------------------------------

# The bisect runs as a job of its own process group (bisect_body), and
# kbranch's shell only waits for it (bisect_supervise): a signal to kbranch
# (Ctrl-C, kill, timeout, or one to its whole process group) reaches that
# shell's trap alone, which asks the bisect to stop (the file "stop",
# naming the signal) and stops the step's bisect-tests/run.  The bisect
# stops where it looks (bisect_stop_check: before a step, and around its
# run), between two commands: a git command is never cut short.  The trap
# ran in the bisect's own shell before, and a signal to the whole process
# group killed the command in the foreground too: bash said "Terminated"
# before our line (and a git checkout killed halfway can leave its lock).
# And a trap that bash 5.2 runs while it expands a command of two $(...)
# fails to parse ("unexpected EOF while looking for matching `)'"):
# kbranch exited 2, git bisect's state left behind.  No trap runs in the
# bisect's shell now; kbranch's runs while it waits, and nowhere else.

# kbranch's trap: the stop asked for (the first signal named), and the
# step's run stopped if one runs.
bisect_request_stop() {
	local sig=$1 child
	KB_SIGNALLED=1
	[ -f "$KB_BISECT_DIR/stop" ] || printf '%s\n' "$sig" >"$KB_BISECT_DIR/stop"
	child=$(cat "$KB_BISECT_DIR/child" 2>/dev/null) || child=''
	[ -z "$child" ] || kill -TERM -- "-$child" 2>/dev/null || true
}

# In the bisect's shell: stop here if a stop was asked for.
bisect_stop_check() {
	[ ! -f "$KB_BISECT_DIR/stop" ] || bisect_interrupted "$(cat "$KB_BISECT_DIR/stop")"
}

# The step's run, if one runs, stopped: its process group sent SIGTERM
# (bisect-tests/run says so, stops its make or QEMU and dies of it), and
# its end waited for.  The bisect's shell waits for its child; kbranch's,
# not its parent, looks for it (30 s at most), once the bisect was killed.
bisect_child_stop() {
	local child
	child=$(cat "$KB_BISECT_DIR/child" 2>/dev/null) || return 0
	kill -TERM -- "-$child" 2>/dev/null || true
	wait "$child" 2>/dev/null || true
	for _ in $(seq 1 300); do
		kill -0 "$child" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$KB_BISECT_DIR/child"
}

# Interrupted: the step's run stopped, git bisect's state undone, the
# report says where, one line.
bisect_interrupted() {
	local sig=$1
	bisect_child_stop
	bisect_stopped "interrupted by SIG$sig during step $(($(bisect_steps_done) + 1))" "$([ "$sig" = INT ] && echo 130 || echo 143)"
}

# kbranch's shell: the bisect started as a job of its own process group,
# its stdin none (a job of another group than the terminal's must not read
# it), and waited for; its exit code is kbranch's.  A trap's signal ends
# wait at once (128 + signal): the bisect goes on to its stop, and is
# waited for again.  Killed rather than stopped (every process at once, as
# a service manager's stop does), it never wrote "ended", its last act:
# the stop is done here, from what the files say (a culprit named is not
# among them).
bisect_supervise() {
	local code=0 again
	KB_SIGNALLED=0
	trap 'bisect_request_stop INT' INT
	trap 'bisect_request_stop TERM' TERM
	set -m
	bisect_body </dev/null &
	KB_BODY=$!
	set +m
	wait "$KB_BODY" || code=$?
	while [ "$KB_SIGNALLED" = 1 ]; do
		KB_SIGNALLED=0 again=0
		wait "$KB_BODY" 2>/dev/null || again=$?
		# bash 5.2 says -1 when the bisect ended as the signal came (its
		# code is lost): the signal's stands.
		[ "$again" = -1 ] || code=$again
	done
	trap - INT TERM
	if [ -f "$KB_BISECT_DIR/stop" ] && [ ! -f "$KB_BISECT_DIR/ended" ]; then
		bisect_interrupted "$(cat "$KB_BISECT_DIR/stop")"
	fi
	exit "$code"
}

run() {
	# shellcheck disable=SC2034 # read by die (lib/common.sh)
	KB_DIE_STATUS=128
	bisect_parse "$@"
	bisect_check_input
	# shellcheck disable=SC2034 # read by die (lib/common.sh)
	KB_DIE_STATUS=1
	KB_BISECT_CONFIG=''
	[ "${KB_BISECT_RUN_OPTS[0]}" != --config ] || KB_BISECT_CONFIG=${KB_BISECT_RUN_OPTS[1]}
	KB_BISECT_DIR=$KBRANCH_WORK/bisect/$(date -u +%Y%m%dT%H%M%SZ)-$$
	mkdir -p "$KB_BISECT_DIR/logs" "$KB_BISECT_DIR/configs"
	: >"$KB_BISECT_DIR/steps"
	: "${KB_BISECT_REPORT:=$KB_BISECT_DIR/report.txt}"
	KB_BISECT_N=$(tgit rev-list --count "$KB_BISECT_OLD..$KB_BISECT_NEW")
	KB_BISECT_CULPRIT_LINE='' KB_BISECT_REVERT='' KB_BISECT_CULPRIT_CONFIG=''
	step "bisect: $KB_BISECT_N commits from ${KB_BISECT_OLD:0:12} to ${KB_BISECT_NEW:0:12}; report: $KB_BISECT_REPORT"
	bisect_supervise
}

# The bisect itself, in a job of its own (bisect_supervise).  Ignoring
# SIGTTOU, it writes to the terminal from outside its foreground group
# even when the terminal stops such writers (stty tostop).
bisect_body() {
	trap '' TTOU
	# git bisect start first: its reset puts back whatever HEAD was.
	tgit bisect start --term-old="$KB_BISECT_OLD_TERM" --term-new="$KB_BISECT_NEW_TERM" >/dev/null 2>&1
	bisect_report running
	bisect_check_ends
	bisect_report running
	bisect_steps
	KB_BISECT_CULPRIT_LINE="$KB_BISECT_CULPRIT $(bisect_subject "$KB_BISECT_CULPRIT")"
	if [ -f "$KB_BISECT_DIR/configs/$KB_BISECT_CULPRIT.config" ]; then
		cp "$KB_BISECT_DIR/configs/$KB_BISECT_CULPRIT.config" "$KB_BISECT_DIR/culprit.config"
		KB_BISECT_CULPRIT_CONFIG=$KB_BISECT_DIR/culprit.config
	fi
	bisect_config_delta "$KB_BISECT_CULPRIT"
	bisect_report running
	bisect_revert_check
	KB_BISECT_SUSPECT=$(bisect_suspect "$KB_BISECT_CULPRIT")
	git -C "$KB_BISECT_TREE" bisect log >"$KB_BISECT_DIR/bisect.log" 2>&1 || true
	# The last look for a stop: from here on, the bisect ends as it was found.
	bisect_stop_check
	tgit bisect reset >/dev/null 2>&1
	if [ -n "$KB_BISECT_SUSPECT" ]; then
		bisect_report "done, inconclusive: the culprit cannot have changed the guest's kernel: $KB_BISECT_SUSPECT (exit 3)"
	elif [[ "$KB_BISECT_REVERT" == passed* ]]; then
		[ "$KB_BISECT_FIND_FIX" = 1 ] || bisect_mail
		bisect_report "done"
	else
		bisect_report "done, inconclusive: the revert did not confirm the culprit (exit 3)"
	fi
	printf 'first %s commit: %s\n' "$KB_BISECT_NEW_TERM" "$KB_BISECT_CULPRIT_LINE"
	printf 'revert check: %s\n' "$KB_BISECT_REVERT"
	printf '%s\n' "$KB_BISECT_REPORT"
	: >"$KB_BISECT_DIR/ended"
	bisect_confirmed_or_exit
}

# A culprit its revert did not confirm is an answer not to send as is:
# said in one line, exit 3.
bisect_confirmed_or_exit() {
	local said=failed
	if [ -n "$KB_BISECT_SUSPECT" ]; then
		step "bisect: inconclusive: git bisect named ${KB_BISECT_CULPRIT:0:12} between ${KB_BISECT_OLD:0:12} and ${KB_BISECT_NEW:0:12}, but $KB_BISECT_SUSPECT: a step's verdict was wrong (an intermittent failure missed, or a spurious one); --retest with more --repeat; see the report"
		exit 3
	fi
	if [[ "$KB_BISECT_REVERT" == passed* ]]; then
		[ -z "$KB_BISECT_MAIL" ] || step "bisect: the regression report, ready to send: $KB_BISECT_MAIL"
		return 0
	fi
	[[ "$KB_BISECT_REVERT" == failed* ]] || said='not run'
	step "bisect: inconclusive: git bisect named ${KB_BISECT_CULPRIT:0:12} between ${KB_BISECT_OLD:0:12} and ${KB_BISECT_NEW:0:12}, but its revert did not confirm it (revert check: $said); see the report"
	exit 3
}
