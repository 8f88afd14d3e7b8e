# shellcheck shell=bash
# summary: measure what verification costs (cold, naive, warm, last patch changed, boot, distcc, ktest.pl side by side, the whole matrix, every defconfig, the work dir's warm re-run) and print figures; [CASE...] runs only those cases

# Each case runs in a work dir of its own under $KBRANCH_WORK/bench that
# shares the kernel tree; ccache is off so that compile work is measured,
# not cache hits.

bench_dir() {
	printf '%s/bench/%s\n' "$KBRANCH_WORK" "$1"
}

bench_workdir() {
	local dir
	dir=$(bench_dir "$1")
	rm -rf "$dir"
	mkdir -p "$dir"
	ln -s "$KTREE" "$dir/linux"
	printf '%s\n' "$dir"
}

# Seconds a command takes; its output goes to $1.  "failed" when it fails
# (said on stderr): printed, not returned, so that no caller tests it in
# a condition, where set -e would not hold; the command itself runs as a
# job of its own (exit_status_of), where it does.
timed() {
	local log=$1 start rc
	shift
	start=$(date +%s.%N)
	rc=$(exit_status_of /dev/null into_log "$log" "$@")
	if [ "$rc" != 0 ]; then
		echo "bench: failed: $* (log: $log)" >&2
		echo failed
		return 0
	fi
	echo "$(date +%s.%N) - $start" | bc
}

# timed, for a step the bench cannot go on without: it stops there
# (timed said why).
timed_or_stop() {
	local seconds
	seconds=$(timed "$@")
	[ "$seconds" != failed ] || exit 1
	printf '%s\n' "$seconds"
}

# "$@" with its output (both streams) in log $1.
into_log() {
	local log=$1
	shift
	"$@" >"$log" 2>&1
}

# builtin's config at the checked-out commit, in dir $1: kbuild.sh is
# sourced in the job that runs this (exit_status_of) only.
seed_config() {
	# shellcheck source=branch-scripts/lib/kbuild.sh
	. "$KB_REPO/branch-scripts/lib/kbuild.sh"
	bt_config_into builtin "$1" "$1/builtin.config"
}

# Per-stage seconds from bisect-tests' progress lines ("[  12s] builtin: build ("),
# for variant $4 (builtin by default).
stage_seconds() {
	local log=$1 from=$2 to=$3 variant=${4:-builtin}
	awk -v f="$variant: $from" -v t="$variant: $to" '
		match($0, /^\[ *[0-9]+s\]/) { s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s) }
		index($0, f) { start = s }
		index($0, t) && start != "" { print s - start; start = "" }' "$log"
}

sum() { awk '{ t += $1 } END { print t + 0 }'; }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

max() { sort -n | tail -n 1; }

verify_in() {
	KBRANCH_WORK=$1 "$KB_REPO/branch-scripts/kbranch" verify --variant builtin "${@:2}"
}

# The naive way: every commit built from an empty build dir.
naive_run() {
	local work=$1 commit
	for commit in $(git -C "$KTREE" rev-parse "$KB_BASE_TAG^{commit}") \
		$(git -C "$KTREE" rev-list --reverse "$KB_BASE_TAG..$KBRANCH_BRANCH"); do
		rm -rf "$work/build"
		git -C "$KTREE" checkout -q --detach "$commit"
		(cd "$KTREE" && KBRANCH_WORK=$work "$KB_REPO/bisect-tests/run" --variant builtin) || return 1
	done
	git -C "$KTREE" checkout -q -f "$KBRANCH_BRANCH"
}

# A branch whose last commit differs from the series' by one comment at
# the end of a C file that commit changes.  Its tree must differ: with the
# same tree, verify reuses the notes and (d) would time nothing (as it did
# while this edited a line of super.c that v2 no longer has).
last_patch_changed_branch() {
	local file
	file=$(kgit diff --name-only "$KBRANCH_BRANCH^" "$KBRANCH_BRANCH" -- '*.c' | sed -n 1p)
	[ -n "$file" ] || die "bench: the last patch changes no C file to edit for (d)"
	kgit checkout -q -f -B bench-last "$KBRANCH_BRANCH"
	printf '/* kbranch bench: the last patch changed */\n' >>"$KTREE/$file"
	kgit commit -q -a --amend --no-edit
	[ "$(kgit rev-parse 'bench-last^{tree}')" != "$(kgit rev-parse "$KBRANCH_BRANCH^{tree}")" ] ||
		die "bench: (d) made no change to the last commit's tree"
	kgit checkout -q -f "$KBRANCH_BRANCH"
}

# distccd drops root for an unprivileged user, who cannot open a log file
# here: it logs to the stderr it inherits.  DISTCC_FALLBACK=0 makes a job
# that cannot reach it fail instead of quietly compiling locally.
distcc_run() {
	local work=$1 port=$((3700 + RANDOM % 1000)) pid rc=0
	distccd --no-detach --daemon --allow 127.0.0.1 --listen 127.0.0.1 --port "$port" \
		--log-stderr --log-level info 2>"$work/distccd.log" &
	pid=$!
	(cd "$KTREE" && KBRANCH_WORK=$work CC="distcc gcc" DISTCC_HOSTS="127.0.0.1:$port/2" \
		DISTCC_FALLBACK=0 "$KB_REPO/bisect-tests/run" --variant builtin) || rc=$?
	kill "$pid" 2>/dev/null || true
	return "$rc"
}

# A line of the tables: printed, and kept in the run's figures file
# (BENCH_FIGURES), whose first line names the machine, commit and date,
# so that a figure is read from a file, not a terminal's scroll-back
# (docs/speed.md says what each line measures).
report() {
	printf '%-58s %10s\n' "$1" "$2" | tee -a "$BENCH_FIGURES"
}

ratio() {
	echo "scale=2; $1 / $2" | bc
}

# --- ktest.pl, the kernel's own tool, side by side -------------------------
# Its patchcheck test builds every commit of a range.  Build only, no
# mrproper between commits (BUILD_NOCLEAN), its own output dir; the options
# it would otherwise ask for on stdin get harmless values (it never boots or
# installs in this mode).  patchcheck ignores BUILD_TYPE and builds each
# commit with "olddefconfig" of OUTPUT_DIR/.config: that file is seeded
# with the builtin variant's config as made at ext4dev-base, the config a
# tester carries (our oldconfig variant).
ktest_conf() {
	local dir=$1 config=$2
	cat <<CONF
MACHINE = kbranch-bench
SSH_USER = root
BUILD_DIR = $KTREE
OUTPUT_DIR = $dir/build
BUILD_OPTIONS = ARCH=x86_64 -j$(nproc)
BUILD_TARGET = arch/x86/boot/bzImage
TARGET_IMAGE = $dir/bzImage.unused
LOCALVERSION = -ktest
POWER_CYCLE = echo ktest bench: no power cycle
CONSOLE = cat /dev/null
REBOOT_TYPE = script
LOG_FILE = $dir/ktest.log
CLEAR_LOG = 1

TEST_START
TEST_TYPE = patchcheck
PATCHCHECK_TYPE = build
PATCHCHECK_START = $KB_BASE_TAG
PATCHCHECK_END = $KBRANCH_BRANCH
BUILD_TYPE = useconfig:$config
BUILD_NOCLEAN = 1
CONF
}

# ktest.pl from the imported tree; prints why it cannot run, if it cannot.
ktest_run() {
	local dir=$1 script=$KTREE/tools/testing/ktest/ktest.pl
	[ -f "$script" ] || { echo "ktest.pl cannot run: $script is not in the imported tree"; return 1; }
	(cd "$KTREE" && perl "$script" "$dir/ktest.conf" </dev/null) || {
		# The reason is what it printed last on its way out (a missing
		# tool, a perl error), in this case's log ($dir.log, where
		# timed sends it), before its own "ktest.pl failed" line.
		echo "ktest.pl failed: $(grep -vE '^ktest.pl failed|SUCCESS$' "$dir.log" 2>/dev/null |
			grep . | tail -n 2 | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')"
		return 1
	}
	git -C "$KTREE" checkout -q -f "$KBRANCH_BRANCH"
}

ktest_case() {
	local dir seed ours k kw ow ow_warm why rc
	dir=$(bench_workdir ktest)
	seed=$(bench_workdir ktest-seed)
	kgit checkout -q --detach "$KB_BASE_TAG"
	rc=$(exit_status_of /dev/null into_log "$seed.log" seed_config "$seed")
	[ "$rc" = 0 ] || die "bench: cannot make the builtin config at the base (log: $seed.log)"
	kgit checkout -q -f "$KBRANCH_BRANCH"
	mkdir -p "$dir/build"
	cp "$seed/builtin.config" "$dir/build/.config"
	cp "$seed/builtin.config" "$dir/base.config"
	ktest_conf "$dir" "$dir/base.config" >"$dir/ktest.conf"
	step "ktest.pl patchcheck (build), cold (log: $dir.log, its own: $dir/ktest.log)"
	k=$(timed "$dir.log" ktest_run "$dir")
	if [ "$k" = failed ]; then
		why=$(tail -n 1 "$dir.log")
		report "ktest.pl patchcheck: could not run here" "-"
		printf '    %s\n' "$why"
		return 0
	fi
	ours=$(bench_workdir ktest-ours)
	step "kbranch verify --variant builtin, cold, same range (log: $ours.log)"
	ow=$(timed "$ours.log" verify_in "$ours" --rerun)
	[ "$ow" != failed ] || die "bench: verify failed (log: $ours.log)"
	step "warm: ktest.pl again, then kbranch verify again"
	kw=$(timed "$dir.warm.log" ktest_run "$dir")
	[ "$kw" != failed ] || die "bench: ktest.pl re-run failed (log: $dir.warm.log)"
	ow_warm=$(timed "$ours.warm.log" verify_in "$ours")
	[ "$ow_warm" != failed ] || die "bench: verify re-run failed (log: $ours.warm.log)"
	report "ktest.pl patchcheck, cold: built every commit" "${k%.*} s"
	report "kbranch verify builtin, cold: built, booted, checked, recorded" "${ow%.*} s"
	report "    kbranch / ktest.pl, cold" "$(ratio "$ow" "$k")"
	report "ktest.pl patchcheck, warm (nothing changed): built again" "${kw%.*} s"
	report "kbranch verify builtin, warm: notes say passed" "$(printf '%.1f' "$ow_warm") s"
}

# --- The whole matrix --------------------------------------------------------
# Seconds of kbranch's own steps whose line matches $2: from each such step
# line to the next kbranch step line ("[  12s] [n] ..." or the summary).
kbranch_step_seconds() {
	awk -v m="$2" '
		match($0, /^\[ *[0-9]+s\] (\[[0-9]+\]|verify:)/) {
			s = substr($0, 2, index($0, "s]") - 2) + 0
			if (open) { t += s - start; open = 0 }
			if (index($0, m)) { open = 1; start = s }
		}
		END { print t + 0 }' "$1"
}

# How many kernels a commit of the series builds: the variants that build
# one (kinds built and carried), each in a build dir of its own; a Debian
# machine (kind debian) boots one of theirs, and its build step is that
# variant's make finding nothing to do (its seconds are in the per-variant
# lines below).
builds_per_commit() {
	local names
	names=$("$KB_REPO/bisect-tests/run" --list-variants | awk '$2 == "built" || $2 == "carried" { print $1 }' | paste -sd, -)
	printf '%s (%s; the Debian machines boot these)\n' "$(tr ',' '\n' <<<"$names" | grep -c .)" "$names"
}

matrix_case() {
	local w m warm v builds=0 b carried
	w=$(bench_workdir matrix)
	step "the whole matrix, cold: kbranch verify, every variant and carried config (log: $w.log)"
	m=$(timed "$w.log" env KBRANCH_WORK="$w" "$KB_REPO/branch-scripts/kbranch" verify --rerun)
	[ "$m" != failed ] || die "bench: the whole matrix failed (log: $w.log)"
	step "the whole matrix, warm: nothing changed"
	warm=$(timed "$w.warm.log" env KBRANCH_WORK="$w" "$KB_REPO/branch-scripts/kbranch" verify)
	[ "$warm" != failed ] || die "bench: the warm whole matrix failed (log: $w.warm.log)"
	report "whole matrix, cold (kbranch verify)" "${m%.*} s"
	# The kernels built per commit: the variants that build one (the
	# Debian machines boot theirs), and the builds the log shows.
	report "builds per commit of the series (target <= 4)" "$(builds_per_commit)"
	# Every variant that builds a kernel, from the registry, and the
	# Debian machines' build steps (their kernel's make, nothing to do).
	for v in $("$KB_REPO/bisect-tests/run" --list-variants | awk '$2 != "kconfig" { print $1 }'); do
		b=$(stage_seconds "$w.log" 'build (' 'initramfs and images (' "$v" | sum)
		report "    pure build, $v (cold + incremental)" "$b s"
		builds=$((builds + b))
	done
	report "    pure build, all variants" "$builds s"
	report "    whole matrix / pure build (target <= 1.25)" "$(ratio "$m" "$builds")"
	# A Kconfig-only point's step line ends with "] olddefconfig".
	carried=$(kbranch_step_seconds "$w.log" '] olddefconfig')
	report "    Kconfig-only carried configs inside it" "$carried s"
	report "whole matrix, warm re-run, nothing changed (target < 5 s)" "$(printf '%.1f' "$warm") s"
}

# --- Every defconfig the series touches, Kconfig only --------------------------
# Seconds between kbranch defconfigs' step lines: before the first role
# (conf built, each ARCH's environment recorded through make), then each.
defconfigs_phases() {
	awk 'match($0, /^\[ *[0-9]+s\] defconfigs: /) {
			s = substr($0, 2, index($0, "s]") - 2) + 0
			if (name != "") printf "%s %d\n", name, s - start
			else printf "setup %d\n", s
			split(substr($0, index($0, "defconfigs: ") + 12), f, ":")
			name = f[1]; start = s
		}' "$1" | grep -v '^[0-9]* of '
}

defconfigs_case() {
	local w t n role secs
	w=$(bench_workdir defconfigs)
	step "defconfigs: every defconfig the series touches, cold (log: $w.log)"
	t=$(timed "$w.log" env KBRANCH_WORK="$w" "$KB_REPO/branch-scripts/kbranch" defconfigs)
	[ "$t" != failed ] || die "bench: kbranch defconfigs failed (log: $w.log)"
	n=$(grep -c '^ok ' "$w.log" || true)
	report "defconfigs: $n defconfigs x 4 Kconfig runs, cold (budget: 300 s)" "${t%.*} s"
	while read -r role secs; do
		report "    $role" "$secs s"
	done < <(defconfigs_phases "$w.log")
	report "    per defconfig and tree, two at a time" "$(echo "scale=2; ($t - $(defconfigs_phases "$w.log" | awk '$1 == "setup" { print $2 }')) / ($n * 4)" | bc) s"
}

# The whole matrix, warm, where a user has it: kbranch verify in this work
# dir, whose every point passed before with these tests and tools.  A run
# that has to verify anything gives no warm figure: it stops and says so.
warm_case() {
	local log=$KBRANCH_WORK/bench/warm.log t ran
	step "the whole matrix, warm, in $KBRANCH_WORK: kbranch verify, nothing changed (log: $log)"
	t=$(timed "$log" "$KB_REPO/branch-scripts/kbranch" verify)
	[ "$t" != failed ] || die "bench: kbranch verify failed in $KBRANCH_WORK (log: $log)"
	ran=$(grep -E '^(not )?ok [0-9]+ - ' "$log" | grep -cvE 'passed before with these tests|reference recorded before with these tests' || true)
	[ "$ran" -eq 0 ] ||
		die "bench: $ran points ran: $KBRANCH_WORK was not verified with these tests and tools; run kbranch verify, then this again (log: $log)"
	report "whole matrix, warm re-run in the work dir, $(grep -c '^ok ' "$log") points, nothing changed (target < 5 s)" "$(printf '%.1f' "$t") s"
}

BENCH_CASES=(series distcc ktest matrix defconfigs warm)

# (a) to (e): the builtin variant alone, cold, warm, last patch changed,
# against the naive way.
series_case() {
	local a b c d w log boots build_a last
	w=$(bench_workdir a)
	step "(a) cold verification of the series, builtin, empty build dir (log: $w.log)"
	a=$(timed_or_stop "$w.log" verify_in "$w" --rerun)
	step "(c) warm re-run, nothing changed"
	c=$(timed_or_stop "$w.warm.log" verify_in "$w")
	step "(d) re-verification after the last patch changed"
	last_patch_changed_branch
	d=$(timed_or_stop "$w.last.log" verify_in "$w" --branch bench-last)
	kgit branch -D -q bench-last
	w=$(bench_workdir b)
	step "(b) the naive way: a clean build of every commit (log: $w.log)"
	b=$(timed_or_stop "$w.log" naive_run "$w")
	log=$(bench_dir a).log
	build_a=$(stage_seconds "$log" 'build (' 'initramfs and images (' | sum)
	boots=$(stage_seconds "$log" 'boot (' 'build=' | tr '\n' ' ')
	report "(a) cold verification, builtin, whole series" "${a%.*} s"
	report "    pure build time inside (a)" "$build_a s"
	report "    (a) / pure build (target <= 1.3)" "$(ratio "$a" "$build_a")"
	report "(b) naive: clean build of every commit" "${b%.*} s"
	report "    (a) / (b) (target <= 0.4)" "$(ratio "$a" "$b")"
	report "(c) warm re-run, builtin only, nothing changed" "$(printf '%.1f' "$c") s"
	report "(d) after the last patch changed (target <= 60 s)" "${d%.*} s"
	last=$(bench_dir a).last.log
	report "    points (d) ran, not reused" "$(grep -cE '^(not )?ok [0-9]+ - .* build=' "$last" || true)"
	report "(e) boot to verdict per commit, median (target <= 3 s)" "$(tr ' ' '\n' <<<"$boots" | grep . | median) s"
	report "    max" "$(tr ' ' '\n' <<<"$boots" | grep . | max) s"
}

distcc_case() {
	local w seconds dir
	w=$(bench_workdir distcc)
	step "distcc: one build through distccd on 127.0.0.1 (log: $w.log)"
	seconds=$(timed "$w.log" distcc_run "$w")
	[ "$seconds" != failed ] || die "the distcc build failed (log: $w.log)"
	dir=$(bench_dir distcc)
	report "distcc: compile jobs run by distccd on 127.0.0.1" "$(grep -c 'COMPILE_OK' "$dir/distccd.log" || true)"
}

run() {
	local cases=("$@") c
	[ "${#cases[@]}" -gt 0 ] || cases=("${BENCH_CASES[@]}")
	for c in "${cases[@]}"; do
		[[ " ${BENCH_CASES[*]} " == *" $c "* ]] || die "bench: no case '$c' (cases: ${BENCH_CASES[*]})"
	done
	require_tree
	take_lock
	require_clean_tree
	ensure_deps
	export CCACHE_DISABLE=1
	restore_head_on_exit
	mkdir -p "$KBRANCH_WORK/bench"
	BENCH_FIGURES=$KBRANCH_WORK/bench/figures-$(date -u +%Y%m%dT%H%M%SZ).txt
	printf 'kbranch bench on %s (%s cores, %s), commit %s of this repository, %s; ccache off\n' \
		"$(hostname)" "$(nproc)" "$(. /etc/os-release && echo "$PRETTY_NAME")" \
		"$(git -C "$KB_REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(date -u +%F)" |
		tee "$BENCH_FIGURES"
	for c in "${cases[@]}"; do
		"${c}_case"
	done
	step "bench: the figures are in $BENCH_FIGURES"
}
