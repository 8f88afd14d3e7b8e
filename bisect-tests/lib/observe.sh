# shellcheck shell=bash
# What a user of this kernel observes, written down so that it can be
# compared with what the packaged kernel shows (--against-packaged):
#   log: the kernel's ext4, jbd2 and VFS lines from the main boot, without
#        timestamps, read from the guest's copy of the whole kernel log (the
#        console, at loglevel 5, lacks ext4's INFO lines); "root-<kind>
#        log:" the same from a root-probe boot's console
#   fs:  the block filesystem types in registration order
#   alias: the module's aliases (modinfo), for a modular ext4
#   test: each guest test and its result (ok, fail, skip)
#   root-<kind>: the type a probed root of that kind mounted with
# One line each, sorted, so that two runs compare with diff.

# What compat-differences allows: its one reader.
# shellcheck source=bisect-tests/lib/compat.sh
source "${BASH_SOURCE[0]%/*}/compat.sh"

BT_OBSERVE_LOG='EXT4-fs|JBD2|jbd2|VFS:|No filesystem could mount root'
BT_OBSERVE_INCOMPLETE="log: the guest's copy of the kernel log is missing or cut short"

# The lines on stdin that a user observes, each prefixed with $1: "log" for
# the main boot, "root-<kind> log" for a root-probe boot (compared only
# where the run has root-probe boots).
observe_log_filter() {
	grep -E "$BT_OBSERVE_LOG" |
		sed -E "s/^\[ *[0-9]+\.[0-9]+\] //; s/[[:space:]]+\$//; s/^/$1: /" || true
}

# The kernel's own lines on the console of facts file $1 (a root-probe
# boot's: its kernel log is what the console shows).
observe_log_lines() {
	facts_get "$1" kernel | observe_log_filter "$2"
}

# Is the guest's copy of the whole kernel log in facts file $1 (ext4-checks.c:
# print_kernel_log) complete: yes when it is there and has as many lines
# as the guest counted (a copy cut short would hide lines), else no.
observe_kernel_log_complete() {
	local facts=$1 want
	want=$(facts_get "$facts" klog-lines | tail -n 1)
	if [[ "$want" =~ ^[0-9]+$ ]] && [ "$(grep -c '^klog ' "$facts")" = "$want" ]; then
		echo yes
	else
		echo no
	fi
}

# That copy's lines as the console shows them ("[time] text", without the
# "<level>" prefix).  Fails unless the copy is complete.
observe_kernel_log() {
	local complete
	complete=$(observe_kernel_log_complete "$1")
	[ "$complete" = yes ] || return 1
	facts_get "$1" klog
}

# The main boot's log lines; an incomplete copy of the kernel log is itself
# an observation, so that it differs from every complete reference.
observe_main_log() {
	local complete klog
	complete=$(observe_kernel_log_complete "$1")
	if [ "$complete" = yes ]; then
		klog=$(observe_kernel_log "$1")
		observe_log_filter log <<<"$klog"
	else
		say "no complete copy of the kernel log from the guest in $1"
		echo "$BT_OBSERVE_INCOMPLETE"
	fi
}

# Each guest test and its result (ok, fail, skip), from facts file $1.
observe_tests() {
	facts_get "$1" test | awk '{ print "test: " $1 " " $2 }'
}

observe_write() {
	local v=$1 rdir facts kind ko modular
	rdir=$(run_dir "$v")
	{
		observe_main_log "$rdir/facts"
		for facts in "$rdir"/root-*.facts; do
			[ -f "$facts" ] || continue
			kind=${facts##*/root-} kind=${kind%.facts}
			observe_log_lines "$facts" "root-$kind log"
			printf 'root-%s: %s\n' "$kind" "$(rootboot_observed "$facts" | sed 's/ order=.*//; s/^type=//')"
		done
		facts_get "$rdir/facts" fs | sed -n '1{s/^/fs: /; s/ *$//; p}'
		observe_tests "$rdir/facts"
		ko=$(build_dir "$v")/fs/ext4/$(expect module).ko
		modular=$(variant_modular "$v")
		if [ "$modular" = yes ] && [ -f "$ko" ]; then
			modinfo -F alias "$ko" | sed 's/^/alias: /'
		fi
	} | sort -u >"$rdir/observed.txt"
}

# The packaged reference of a variant: what the packaged kernel shows,
# recorded by a run on packaged/<version> with --record-reference.
observe_reference() {
	printf '%s/reference/%s/%s.observed\n' "$KBRANCH_WORK" "$1" "$2"
}

# The packaged/<version> tag HEAD descends from, or nothing.
observe_packaged_version() {
	git tag --merged HEAD -l 'packaged/*' | sed 's|^packaged/||' | tail -n 1
}

# The reference, without the root-probe lines when this run had no
# root-probe boots (oldconfig is compared with builtin's reference).
observe_comparable() {
	local rdir
	rdir=$(run_dir "$2")
	if compgen -G "$rdir/root-*.console" >/dev/null; then
		cat "$1"
	else
		grep -v '^root-' "$1" || true
	fi
}

# Compare this run's observation with the packaged reference.  Prints each
# difference that compat-differences does not allow for this variant's
# kernel (variant_facts) at this step ("+" only here, "-" only on the
# packaged kernel); returns 1 if there is any.
observe_compare() {
	local v=$1 refv=$2 ref version line facts step bad=0
	facts=$(variant_facts "$v")
	[ -n "$facts" ] || die_setup "--against-packaged: variant $v has no fragment (configs/$v.config) to say what its kernel is"
	step=$(expect step)
	version=$(observe_packaged_version)
	[ -n "$version" ] || die_setup "--against-packaged: no packaged/* tag is an ancestor of HEAD"
	ref=$(observe_reference "$version" "$refv")
	[ -f "$ref" ] || observe_make_reference "$version" "$refv"
	while IFS= read -r line; do
		case $line in
		'< '*) line="- ${line:2}" ;;
		'> '*) line="+ ${line:2}" ;;
		*) continue ;;
		esac
		compat_lookup packaged "$facts" "$step" "$line"
		[ "$COMPAT_LISTED" = no ] || continue
		say "$v: differs from packaged/$version: $line"
		bad=1
	done < <(diff <(observe_comparable "$ref" "$v") "$(run_dir "$v")/observed.txt")
	return "$bad"
}

# A missing reference is made once, here: packaged/<version> checked out
# in a worktree of its own (never in the tree under test, whose HEAD git
# bisect owns) and run with --record-reference in a work dir of its own,
# so that its cold build leaves the variant's build dir alone.  kbranch
# verify records references the cheap way, in its own tree.
observe_make_reference() {
	local version=$1 refv=$2 work log lock ref
	ref=$(observe_reference "$version" "$refv")
	work=$KBRANCH_WORK/reference-work/$version
	log=$work/$refv.log
	mkdir -p "$work"
	# One maker at a time (runs of two variants share the worktree); one
	# that waited may find the reference made.
	exec {lock}>"$work/lock"
	flock -w 3600 "$lock" || die_setup "$work is locked by another run for over an hour"
	if [ -f "$ref" ]; then
		exec {lock}>&-
		return 0
	fi
	step "$refv: no packaged reference for $version yet: building and booting packaged/$version once, a cold build (log: $log)"
	if [ ! -d "$work/linux" ]; then
		git worktree prune
		git worktree add -q --detach "$work/linux" "packaged/$version^{commit}" >>"$log" 2>&1 ||
			die_setup "cannot check packaged/$version out in $work/linux (log: $log)"
	fi
	# Its progress lines are shown, indented; everything goes to the log.
	if ! (cd "$work/linux" && KBRANCH_WORK=$work "$BT_DIR/run" --variant "$refv" --record-reference) 2>&1 |
		tee -a "$log" | { grep --line-buffered -E '^\[ *[0-9]+s\]' || true; } | sed -u 's/^/    packaged: /' >&2; then
		die_setup "the packaged reference for $refv could not be made (log: $log)"
	fi
	mkdir -p "$(dirname "$ref")"
	cp "$work/reference/$version/$refv.observed" "$ref"
	say "$refv: recorded the packaged reference $ref"
	exec {lock}>&-
}

observe_record_reference() {
	local v=$1 version ref observed
	observed=$(run_dir "$v")/observed.txt
	version=$(git log -1 --format=%s HEAD | sed -n 's/^Import linux-source \(.*\) as packaged by Debian$/\1/p')
	[ -n "$version" ] || die_setup "--record-reference: HEAD is not a packaged import"
	ref=$(observe_reference "$version" "$v")
	# A reference that saw less would let a run that sees as little pass.
	! grep -qxF "$BT_OBSERVE_INCOMPLETE" "$observed" ||
		die_setup "--record-reference: $v's observation is incomplete ($BT_OBSERVE_INCOMPLETE); no reference recorded"
	mkdir -p "$(dirname "$ref")"
	cp "$observed" "$ref"
	say "$v: recorded the packaged reference $ref"
}
