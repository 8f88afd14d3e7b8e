# shellcheck shell=bash
# shellcheck disable=SC2034 # KBRANCH_OLDCONFIG and BT_RESULT_EXTRA are read by config.sh and verdict.sh
# A tester's own bisect (kbranch bisect, or git bisect run by hand):
#   --config FILE    their .config, any era, taken to each commit with
#                    "make olddefconfig" as a carried variant of its own,
#                    "tester-<hash of the file>", one build dir per config
#   --test SCRIPT    their reproducer: a shell script the guest runs with
#                    busybox sh after boot, with the scratch disks (vda:
#                    ext4 with test_fs, vdb: ext4 without); 0 good, 125
#                    cannot test, anything else bad; instead of our checks
#   --repeat N       N boots, each running the test, weighed
#                    (stage_repeated): good if none fails, bad if two or
#                    more do, one failure weighed again with N more boots
#   --guest debian   the guest is the Debian 12 machine (lib/debian-boot.sh)
#                    instead of our busybox one: --config is merged with
#                    what the machine needs to boot, the kernel installed
#                    the Debian way, and the test run once systemd reached
#                    its target, once per boot (--repeat N: N boots, each
#                    from fresh disks).  "busybox" is the default; a
#                    variant of kind debian is the Debian guest.
#   --packages LIST  with --guest debian: Debian packages the reproducer
#                    needs (acl,xfsprogs), installed in the machine's
#                    image with their dependencies; an image of its own,
#                    made once and cached like the machine's

BT_TESTER_CONFIG=''
BT_TEST_SCRIPT=''
BT_REPEAT=1
BT_TESTER_VARIANT=''
# busybox or debian; empty: the variant's own (kind debian: the Debian machine).
BT_GUEST=''
# Packages the Debian machine's image gets on top of debian/packages,
# comma-separated (lib/debian-image.sh, debian_extra_packages).
BT_PACKAGES=''

# "yes" when file $1 is a kernel config, else "no": every line is blank,
# a comment or a CONFIG_ assignment, and one at least is an assignment or
# "is not set" (a savedefconfig file has no comments at all).
tester_is_kernel_config() {
	local file=$1
	if grep -qE '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$file" &&
		! grep -qvE '^[[:space:]]*$|^#|^CONFIG_[A-Za-z0-9_]+=' "$file"; then
		echo yes
	else
		echo no
	fi
}

# Checks the options; one line and 128 for each bad one, before anything
# is built.
tester_options_check() {
	local is_config
	if [ -n "$BT_TESTER_CONFIG" ]; then
		[ -f "$BT_TESTER_CONFIG" ] || die_setup "--config $BT_TESTER_CONFIG: no such file"
		[ -r "$BT_TESTER_CONFIG" ] || die_setup "--config $BT_TESTER_CONFIG: not readable"
		is_config=$(tester_is_kernel_config "$BT_TESTER_CONFIG")
		[ "$is_config" = yes ] ||
			die_setup "--config $BT_TESTER_CONFIG: not a kernel config (no CONFIG_ lines, or lines that are neither CONFIG_ nor comments)"
		BT_TESTER_CONFIG=$(readlink -f "$BT_TESTER_CONFIG")
	fi
	if [ -n "$BT_TEST_SCRIPT" ]; then
		[ -f "$BT_TEST_SCRIPT" ] || die_setup "--test $BT_TEST_SCRIPT: no such file"
		[ -x "$BT_TEST_SCRIPT" ] || die_setup "--test $BT_TEST_SCRIPT: not executable (chmod +x it)"
		BT_TEST_SCRIPT=$(readlink -f "$BT_TEST_SCRIPT")
	fi
	[[ "$BT_REPEAT" =~ ^[1-9][0-9]{0,3}$ ]] || die_setup "--repeat $BT_REPEAT: not a number of boots from 1 to 9999"
	case $BT_GUEST in
	'' | busybox | debian) ;;
	*) die_setup "--guest $BT_GUEST: not a guest (busybox or debian)" ;;
	esac
	tester_packages_check
}

# The reproducer read, not run (-n), by the shell that will run it: a
# syntax error is one line and 128 here, before a build and a boot that
# could only end in "its test failed".  The busybox guest runs it with
# busybox sh, whatever its #! line; the Debian machine (guest $1 debian) by
# its #! line, read here with that shell when it is sh, dash or bash (the
# guest's own, as Debian 12 has them); another interpreter is not read.
tester_script_check() {
	local guest=$1 out rc=0 runner=()
	[ -n "$BT_TEST_SCRIPT" ] || return 0
	mapfile -t runner < <(tester_script_runner "$guest")
	[ "${#runner[@]}" -gt 0 ] || return 0
	out=$("${runner[@]}" -n "$BT_TEST_SCRIPT" 2>&1) || rc=$?
	[ "$rc" = 0 ] ||
		die_setup "--test $BT_TEST_SCRIPT: ${runner[*]} -n finds a syntax error, the guest could not run it: $(sed -n 1p <<<"$out")"
}

# The shell the guest ($1: busybox or debian) runs the reproducer with,
# as an argument list: busybox sh whatever the #! line says; in the
# Debian machine its #! interpreter; nothing for an interpreter other
# than sh, dash or bash, which is not read or run here.
tester_script_runner() {
	local shell
	if [ "$1" = debian ]; then
		shell=$(tester_script_shell "$BT_TEST_SCRIPT")
		case $shell in
		sh | dash | bash) printf '%s\n' "$shell" ;;
		esac
	else
		printf '%s\n' busybox sh
	fi
}

# A reproducer that names KBRANCH_DRY_RUN asks for a dry run: it is run
# here, on the host, by the shell the guest ($1) runs it with, with
# KBRANCH_DRY_RUN=1, in an empty directory, its input /dev/null, for at
# most BT_DRY_RUN_SECONDS (then TERM, and KILL 5 s later).  There it
# checks what it can without the kernel under test (its tools, its
# arguments, its own logic) and exits: a failure is one line and 128,
# before a build and a boot that could only end in "its test failed".
# run calls it with --check-options only, once before a bisect's first
# build, not at every step.  A reproducer that does not name the
# variable is never run on the host: what it does is for the guest.
BT_DRY_RUN_SECONDS=60

tester_script_dry_run() {
	local guest=$1 dir out rc=0 runner=() start
	[ -n "$BT_TEST_SCRIPT" ] && grep -q 'KBRANCH_DRY_RUN' "$BT_TEST_SCRIPT" || return 0
	mapfile -t runner < <(tester_script_runner "$guest")
	[ "${#runner[@]}" -gt 0 ] || return 0
	dir=$(mktemp -d)
	start=$SECONDS
	out=$(cd "$dir" && KBRANCH_DRY_RUN=1 timeout -k 5 "$BT_DRY_RUN_SECONDS" "${runner[@]}" "$BT_TEST_SCRIPT" </dev/null 2>&1) || rc=$?
	rm -rf "$dir"
	# timeout's 124 (137 after KILL), told from the script's own by the time.
	[ "$rc" != 124 ] && [ "$rc" != 137 ] || [ $((SECONDS - start)) -ge "$BT_DRY_RUN_SECONDS" ] || rc=script-$rc
	case $rc in
	0) return 0 ;;
	124 | 137) die_setup "--test $BT_TEST_SCRIPT: its dry run (KBRANCH_DRY_RUN=1, on the host) did not end in ${BT_DRY_RUN_SECONDS}s" ;;
	*) die_setup "--test $BT_TEST_SCRIPT: its dry run (KBRANCH_DRY_RUN=1, on the host, ${runner[*]}) failed (exit ${rc#script-}): $(tail -n 1 <<<"$out")" ;;
	esac
}

# The interpreter of script $1's #! line, by its name (env's argument for
# "#!/usr/bin/env NAME"); "sh" when it has none, as a shell runs it then.
tester_script_shell() {
	local line words
	line=$(sed -n '1{/^#!/s/^#! *//p}' "$1")
	[ -n "$line" ] || { echo sh; return 0; }
	read -r -a words <<<"$line"
	if [ "$(basename "${words[0]}")" = env ] && [ "${#words[@]}" -gt 1 ]; then
		basename "${words[1]}"
	else
		basename "${words[0]}"
	fi
}

# What the busybox guest needs (configs/busybox-guest.needs) that the
# .config $1 lacks: "CONFIG_X=<value> (needs y)" for each, on one line.
tester_guest_needs_missing() {
	local config=$1 need have missing=()
	while read -r need; do
		have=$(sed -n "s/^${need%%=*}=//p" "$config")
		[ "$have" = "${need#*=}" ] || missing+=("${need%%=*}=${have:-n} (needs ${need#*=})")
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$BT_DIR/configs/busybox-guest.needs")
	[ "${#missing[@]}" = 0 ] || { printf '%s' "${missing[0]}"; printf ', %s' "${missing[@]:1}"; echo; }
}

# A tester's config that cannot boot the busybox guest at this commit
# (variant $1, its .config made; config_check calls it for a tester's
# variant of the busybox guest) stops the run before the build: 128, one
# line naming each option it lacks and what to do.
tester_guest_needs() {
	local variant=$1 missing
	missing=$(tester_guest_needs_missing "$(build_dir "$variant")/.config")
	[ -z "$missing" ] ||
		die_setup "--config: after olddefconfig at $(git rev-parse --short=12 HEAD) it cannot boot the busybox guest: $missing; set them in your config, or boot the Debian machine (--guest debian merges what it needs)"
}

# --packages: for the Debian machine only; the names checked, and
# resolved by apt from the host's lists, here: one line and 128 before
# anything is built.
tester_packages_check() {
	[ -n "$BT_PACKAGES" ] || return 0
	[ "$BT_GUEST" = debian ] ||
		die_setup "--packages installs Debian packages in the Debian machine: give it with --guest debian"
	debian_extra_packages "$BT_PACKAGES"
}

# With --config, the run's one variant is the tester's: named by a hash
# of the config, so each config has its build dir and a second config
# never thrashes the first's.  The config is what a carried variant
# carries (KBRANCH_OLDCONFIG), and the kernel's release names the commit.
# In the Debian machine, its own variant and build dir (-debian): the
# guest's options merged in make another kernel.
tester_setup() {
	[ -n "$BT_TESTER_CONFIG" ] || return 0
	BT_TESTER_VARIANT=tester-$(sha256sum <"$BT_TESTER_CONFIG" | cut -c1-12)
	[ "$BT_GUEST" != debian ] || BT_TESTER_VARIANT+=-debian
	KBRANCH_OLDCONFIG=$BT_TESTER_CONFIG
}

# The tester's variant, as the registry's line for it when its kind is
# among kinds $@ (or none is given): carried, compared with nothing, with
# trait "tester" (its config is checked by nobody but the test); in the
# Debian guest, of kind debian, booting the tester's machine
# (debian/scenarios/tester).
tester_registry_line() {
	local kind=carried ref=builtin traits=tester
	[ -n "$BT_TESTER_VARIANT" ] || return 0
	[ "$BT_GUEST" != debian ] || kind=debian ref=- traits=tester,scenario=tester
	[ "$#" -eq 0 ] || [[ " $* " == *" $kind "* ]] || return 0
	printf '%s %s %s %s\n' "$BT_TESTER_VARIANT" "$kind" "$ref" "$traits"
}

# "yes" when variant $1 is the tester's config, else "no".
tester_variant() {
	variant_trait "$1" tester
}

# The variants run when none is named: the registry's first of the
# guest's kind.
tester_default_variant() {
	local kind=built
	[ "$BT_GUEST" != debian ] || kind=debian
	variants_of "$kind" | sed -n 1p
}

# Why variant $1 (of kind $2) cannot be the guest asked for; nothing when
# it can.
tester_guest_mismatch() {
	local v=$1 kind=$2
	if [ "$BT_GUEST" = debian ] && [ "$kind" != debian ]; then
		echo "--guest debian boots the Debian machine; $v is a busybox guest's variant (kind $kind): give a variant of kind debian, or --config"
	elif [ "$BT_GUEST" = busybox ] && [ "$kind" = debian ]; then
		echo "--guest busybox: $v is a Debian machine (kind debian)"
	fi
}

# Each boot of the tester's kernel names the commit in its release
# (uname -r, the console's first lines): LOCALVERSION, which kbuild reads
# from the environment.  The rest of what kbuild stamps into a build
# (uname -v's build number, user, host and date) is fixed, as the
# kernel's reproducible-builds document says, so that two commits that
# compile to the same code build the same bytes but for the release
# (tester_kernel_id).  Only the tester's build dir sees them.
BT_TESTER_BUILD_STAMP=(KBUILD_BUILD_VERSION=1 KBUILD_BUILD_USER=kbranch KBUILD_BUILD_HOST=bisect
	'KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970')

tester_build_identity() {
	local v=$1 tester
	tester=$(variant_trait "$v" tester)
	[ "$tester" = yes ] || return 0
	LOCALVERSION=-g$(git rev-parse --short=12 HEAD)
	export LOCALVERSION "${BT_TESTER_BUILD_STAMP[@]}"
}

# The tester's kernel, as a hash in the run dir's kernel.id: its
# vmlinux.o, its linker script and the modules of modules.order, without
# debug info and build ids, the release (which names the commit, and
# with LOCALVERSION_AUTO counts commits) made zeros.  Two commits whose
# kernels differ in nothing else have the same id: kbranch bisect
# suspects a culprit whose kernel is its parent's.  vmlinux.o, the
# objects linked together before the final link: that link merges equal
# string tails, so a string "fd" may point into a release that ends in
# ...fd at one commit and not at the next, and two vmlinux files of the
# same code then differ in pointers.  What the final link adds (the boot
# code, kallsyms, its flags) is not in it: kbranch asks the id only of a
# culprit that changes none of what makes those.  None when the build
# ($2) did not pass or a part cannot be read (the RESULT line then has
# no kernel=).
tester_kernel_id() {
	local v=$1 build=$2 tester rdir
	tester=$(variant_trait "$v" tester)
	[ "$build" = ok ] && [ "$tester" = yes ] || return 0
	rdir=$(run_dir "$v")
	job_status tester_kernel_hash "$(build_dir "$v")" "$(build_release "$v")" "$rdir/kernel-parts" "$rdir/kernel.id"
	[ "$JOB_STATUS" = 0 ] || rm -f "$rdir/kernel.id"
	rm -rf "$rdir/kernel-parts"
}

# Build dir $1's kernel, its release $2 zeroed, hashed into file $4; $3
# a scratch dir for the stripped parts.
tester_kernel_hash() {
	local bdir=$1 release=$2 tmp=$3 out=$4
	mkdir -p "$tmp"
	tester_kernel_parts "$bdir" "$release" "$tmp" | sha256sum | cut -c1-16 >"$out"
}

# The parts, each printed after its name: stripped into $3, the release
# $2 zeroed one part at a time (a part is read whole: vmlinux.o is the
# largest).
tester_kernel_parts() {
	local bdir=$1 release=$2 tmp=$3 ko
	objcopy --strip-debug -R .note.gnu.build-id "$bdir/vmlinux.o" "$tmp/vmlinux.o"
	tester_kernel_part vmlinux.o "$tmp/vmlinux.o" "$release"
	[ ! -f "$bdir/arch/x86/kernel/vmlinux.lds" ] ||
		tester_kernel_part vmlinux.lds "$bdir/arch/x86/kernel/vmlinux.lds" "$release"
	[ -f "$bdir/modules.order" ] || return 0
	while IFS= read -r ko; do
		ko=${ko%.o}
		ko=${ko%.ko}.ko
		objcopy --strip-debug -R .note.gnu.build-id "$bdir/$ko" "$tmp/module.ko"
		tester_kernel_part "$ko" "$tmp/module.ko" "$release"
	done <"$bdir/modules.order"
}

tester_kernel_part() {
	printf '%s\n' "$1"
	RELEASE=$3 perl -0777 -pe 's/\Q$ENV{RELEASE}\E/"0" x length($ENV{RELEASE})/ge' "$2"
}

# Does this run boot more than once, or run a reproducer?  yes or no (an
# answer printed: a function asked in a condition would run without set -e).
tester_repeats() {
	if [ "$BT_REPEAT" -gt 1 ] || [ -n "$BT_TEST_SCRIPT" ]; then echo yes; else echo no; fi
}

# The reproducer's answer, from the facts: CHECKS ok, fail or untestable.
stage_reproducer() {
	local v=$1 rdir
	rdir=$(run_dir "$v")
	tester_checks_from "$v" "$(facts_get "$rdir/facts" reproducer | tail -n 1)" "$rdir/console.log"
}

# CHECKS from the reproducer's exit status $2 (either guest's); its
# output is in $3.
tester_checks_from() {
	local v=$1 status=$2 output=$3
	case $status in
	0) CHECKS=ok ;;
	125) CHECKS=untestable; say "$v: the test says it cannot test this kernel (exit 125); its output: $output" ;;
	*) CHECKS=fail; say "$v: the test failed (exit ${status:-none}); its output: $output" ;;
	esac
}

# One boot $2 of our busybox guest, with the test (or our checks): sets
# BOOT, CHECKS and BT_BOOT_TAINTED; the boot's logs go to runs/<v>/boots/<i>.
tester_boot_busybox() {
	local v=$1 i=$2 rdir t
	rdir=$(run_dir "$v")
	stage_boot "$v"
	if [ "$BOOT" = ok ]; then
		if [ -n "$BT_TEST_SCRIPT" ]; then stage_reproducer "$v"; else stage_checks "$v"; fi
	fi
	t=$(facts_get "$rdir/facts" tainted 2>/dev/null | tail -n 1)
	BT_BOOT_TAINTED=${t:-unknown}
	run_keep_attempt "$rdir" "$rdir/boots/$i"
}

# N boots, each with fresh images and the test (or our checks), each by
# function $2 (one boot of the guest: tester_boot_busybox, or the Debian
# machine's debian_tester_boot); each boot's logs kept in
# runs/<v>/boots/<i>.  Sets BOOT and CHECKS for the whole, and the
# RESULT's extra fields: passes=<k>/<boots>, each boot's outcome and taint.
#
# The evidence is weighed, so that neither a bug that hides in some boots
# nor a test that fails now and then on a good kernel decides a step on
# one boot (N = --repeat, above 1): no failure is good; two or more are
# bad; exactly one is weighed again with N boots more, after which two
# or more in all are bad and still one is flaky (125, no verdict: one
# failure in 2N boots cannot tell a bug that hides from a test that lies).
# A single boot (N = 1) that fails is bad.
stage_repeated() {
	local v=$1 boot_once=${2:-tester_boot_busybox} rdir i boots=$BT_REPEAT passes=0 fails=0 untestable=0 bootfail=0 tainted=() outcomes=() t
	rdir=$(run_dir "$v")
	rm -rf "$rdir/boots"
	for ((i = 1; i <= boots; i++)); do
		step "$v: boot $i of $boots"
		BOOT=fail CHECKS=skip BT_BOOT_TAINTED=unknown
		"$boot_once" "$v" "$i"
		t=$BT_BOOT_TAINTED
		tainted+=("$t")
		case $BOOT/$CHECKS in
		ok/ok) passes=$((passes + 1)) outcomes+=(pass) ;;
		ok/untestable) untestable=$((untestable + 1)) outcomes+=(untestable) ;;
		ok/*) fails=$((fails + 1)) outcomes+=(fail) ;;
		*) fails=$((fails + 1)) bootfail=1 outcomes+=(bootfail) ;;
		esac
		say "$v: boot $i of $boots: boot=$BOOT checks=$CHECKS tainted=$t"
		if [ "$i" = "$BT_REPEAT" ] && [ "$BT_REPEAT" -gt 1 ] && [ "$fails" = 1 ]; then
			boots=$((2 * BT_REPEAT))
			say "$v: one boot of $BT_REPEAT failed: $BT_REPEAT boots more weigh it"
		fi
	done
	BOOT=ok
	CHECKS=$(repeated_checks "$fails" "$untestable" "$boots")
	[ "$CHECKS" != fail ] || [ "$bootfail" = 0 ] || BOOT=fail
	[ "$CHECKS" != flaky ] || say "$v: flaky: one boot of $boots failed, which tells neither a bug that hides nor a test that lies"
	BT_RESULT_EXTRA=" passes=$passes/$boots boots=$(IFS=,; echo "${outcomes[*]}") tainted=$(IFS=,; echo "${tainted[*]}")"
	say "$v: $passes of $boots boots passed (logs: $rdir/boots)"
}

# CHECKS for $1 failed boots and $2 untestable ones of $3, by the rule
# above: fail, flaky, untestable or ok.
repeated_checks() {
	local fails=$1 untestable=$2 boots=$3
	if [ "$fails" -ge 2 ] || { [ "$fails" = 1 ] && [ "$boots" = 1 ]; }; then
		echo fail
	elif [ "$fails" = 1 ]; then
		echo flaky
	elif [ "$untestable" -gt 0 ]; then
		echo untestable
	else
		echo ok
	fi
}

# A tester's single boot also says the kernel's taint in its RESULT.
tester_result_extra() {
	local v=$1 facts t tester
	facts=$(run_dir "$v")/facts
	tester=$(variant_trait "$v" tester)
	[ "$tester" = yes ] && [ -f "$facts" ] || return 0
	t=$(facts_get "$facts" tainted | tail -n 1)
	BT_RESULT_EXTRA=" tainted=${t:-unknown}"
}

# Tools a reproducer may need that busybox lacks, taken from the host
# with their shared libraries when the host has them (the acl package):
# setfacl and getfacl, to check POSIX ACLs.
BT_TESTER_HOST_TOOLS=(setfacl getfacl)

# The initramfs lines the reproducer needs: itself as /reproducer, busybox
# as /bin/sh (its other applets are installed at boot), and the host tools.
tester_initramfs_list() {
	[ -n "$BT_TEST_SCRIPT" ] || return 0
	printf 'file /reproducer %s 0755 0 0\n' "$BT_TEST_SCRIPT"
	printf 'slink /bin/sh /bin/busybox 0777 0 0\n'
	tester_host_tools_list
}

# gen_init_cpio lines for each host tool found and the libraries ldd
# names for it (their directories first); nothing for a tool not there.
tester_host_tools_list() {
	local tool path libs=() lib dirs
	for tool in "${BT_TESTER_HOST_TOOLS[@]}"; do
		path=$(command -v "$tool") || continue
		printf 'file /bin/%s %s 0755 0 0\n' "$tool" "$(readlink -f "$path")"
		mapfile -t -O "${#libs[@]}" libs < <(ldd "$path" 2>/dev/null | grep -oE '/[^ ]+' || true)
	done
	[ "${#libs[@]}" -gt 0 ] || return 0
	dirs=$(printf '%s\n' "${libs[@]}" | xargs -n1 dirname | sort -u)
	# Every parent of each directory, shortest first (/lib before /lib/x86_64-linux-gnu).
	while IFS= read -r lib; do
		while [ "$lib" != / ]; do echo "$lib"; lib=$(dirname "$lib"); done
	done <<<"$dirs" | sort -u | awk '{ print length, $0 }' | sort -n | cut -d' ' -f2- |
		sed 's|.*|dir & 0755 0 0|'
	printf '%s\n' "${libs[@]}" | sort -u | while IFS= read -r lib; do
		printf 'file %s %s 0755 0 0\n' "$lib" "$(readlink -f "$lib")"
	done
}
