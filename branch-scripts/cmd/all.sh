# shellcheck shell=bash
# summary: the main job: import, apply, the gate (verify, preflight, check), submit --dry-run (writes the thread), pull-request only when the gate passed, then a summary

ALL_STEPS=(import apply verify preflight check submit pull-request)

# linux-next's gate: a tree that fails any of these is not asked to be
# pulled.
GATE_STEPS=(verify preflight check)

# Where each step leaves what a person reads next.
step_output() {
	case "$1" in
	import | apply) printf '%s' "$KTREE" ;;
	verify) printf '%s' "kbranch results; logs in $KBRANCH_WORK/runs" ;;
	preflight) printf '%s' "its findings are above" ;;
	check) printf '%s' "logs in $KBRANCH_WORK/check/gate" ;;
	submit) printf '%s' "thread in $KBRANCH_WORK/outgoing" ;;
	pull-request) printf '%s' "$KBRANCH_WORK/pull-request.txt" ;;
	esac
}

run() {
	[ "$#" -eq 0 ] || die "all takes no arguments"
	local sub rc failed=0 summary=() start args gate_failed=()
	take_lock
	for sub in "${ALL_STEPS[@]}"; do
		start=$SECONDS
		if [ "$sub" = pull-request ] && [ "${#gate_failed[@]}" -gt 0 ]; then
			echo "kbranch all: pull request not written: the gate failed (${gate_failed[*]})" >&2
			summary+=("$(printf '  %-13s REFUSED         the gate failed: %s' "$sub" "${gate_failed[*]}")")
			failed=1
			continue
		fi
		step "== kbranch $sub"
		rc=0
		args=()
		# submit writes the thread; sending it to a list is a step of its own.
		[ "$sub" != submit ] || args=(--dry-run)
		"$KB_REPO/branch-scripts/kbranch" "$sub" "${args[@]}" || rc=$?
		if [ "$rc" -eq 0 ]; then
			summary+=("$(printf '  %-13s ok      %5ss  %s' "$sub" "$((SECONDS - start))" "$(step_output "$sub")")")
		else
			summary+=("$(printf '  %-13s FAILED  %5ss  exit %s' "$sub" "$((SECONDS - start))" "$rc")")
			failed=1
			[[ " ${GATE_STEPS[*]} " != *" $sub "* ]] || gate_failed+=("$sub")
			# Interrupted (killed by a signal): stop here.
			[ "$rc" -le 128 ] || break
			# Nothing after a failed import or apply has a branch to work on.
			case "$sub" in import | apply) break ;; esac
		fi
	done
	printf '\nkbranch all: summary\n' >&2
	printf '%s\n' "${summary[@]}" >&2
	[ "$failed" -eq 0 ]
}
