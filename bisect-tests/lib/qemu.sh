# shellcheck shell=bash
# One boot under QEMU with a timeout; the console goes to console.log.

# A boot that fails for the machine, not the kernel, is tried again, up to
# this many times in all: with 10 % of boots failing that way (the fault
# injection below), four in a row is one boot in 10,000, so a whole verify
# run (about 100 boots) dies of it about once in a hundred.
BT_BOOT_ATTEMPTS=4

qemu_timeout() {
	printf '%s\n' "$KBRANCH_BOOT_TIMEOUT"
}

qemu_accel() {
	if [ "$KBRANCH_KVM" = 1 ]; then
		printf '%s\n' -accel kvm -cpu host
	else
		printf '%s\n' -accel tcg -cpu max
	fi
}

# One virtio drive per image, in images_list order: the guest's vda, vdb, ...
qemu_drives() {
	local img
	while IFS= read -r img; do
		printf '%s\n' -drive "file=$img,if=virtio,format=raw"
	done < <(images_list "$1")
}

qemu_boot() {
	local variant=$1 rdir
	rdir=$(run_dir "$variant")
	qemu_retrying "$rdir/console.log" qemu_boot_once "$variant" "$rdir"
}

qemu_boot_once() {
	local variant=$1 rdir=$2 accel drives qemu
	mapfile -t accel < <(qemu_accel)
	mapfile -t drives < <(qemu_drives "$rdir")
	mapfile -t qemu < <(qemu_command)
	# --foreground keeps timeout and QEMU in our process group, so killing
	# the run kills them too; 8>&- keeps the build lock out of QEMU's hands.
	timeout --foreground -k 5 "$(qemu_timeout)" "${qemu[@]}" "${accel[@]}" \
		-m 256 -nographic -no-reboot -nic none \
		-kernel "$(build_dir "$variant")/arch/x86/boot/bzImage" \
		-initrd "$rdir/initramfs.cpio" \
		-append 'console=ttyS0 panic=-1 rdinit=/init' \
		"${drives[@]}" \
		</dev/null >"$rdir/console.log" 2>&1 8>&-
}

# A boot with @img as the root disk and no initramfs: the kernel probes
# the root's type itself and runs the guest as /sbin/init --root-probe.
qemu_boot_root() {
	qemu_retrying "$3" qemu_boot_root_once "$@"
}

qemu_boot_root_once() {
	local variant=$1 img=$2 console=$3 accel qemu
	mapfile -t accel < <(qemu_accel)
	mapfile -t qemu < <(qemu_command)
	timeout --foreground -k 5 "$(qemu_timeout)" "${qemu[@]}" "${accel[@]}" \
		-m 256 -nographic -no-reboot -nic none \
		-kernel "$(build_dir "$variant")/arch/x86/boot/bzImage" \
		-append 'console=ttyS0 panic=-1 root=/dev/vda ro -- --root-probe' \
		-drive "file=$img,if=virtio,format=raw" \
		</dev/null >"$console" 2>&1 8>&-
}

# QEMU, or, for the tests of the retries only, a fault in its place
# (qemu_injected_fault): a QEMU that cannot start, or one that prints
# nothing until its timeout.
qemu_command() {
	case $(qemu_injected_fault) in
	start) printf '%s\n' sh -c 'echo "qemu-system-x86_64: injected fault (KBRANCH_FAULT_QEMU): cannot start" >&2; exit 1' sh ;;
	hang) printf '%s\n' sh -c 'exec sleep 100000' sh ;;
	*) echo qemu-system-x86_64 ;;
	esac
}

# KBRANCH_FAULT_QEMU=N: about N % of boot attempts fail the way a broken
# machine does, half of them at the start, half as a hang; "first": every
# boot's first attempt fails at the start.  Unset, none.
qemu_injected_fault() {
	local rate=$KBRANCH_FAULT_QEMU
	if [ "$rate" = first ]; then
		[ "${BT_BOOT_ATTEMPT:-1}" != 1 ] || echo start
	elif [ $((RANDOM % 100)) -lt "$rate" ]; then
		if [ $((RANDOM % 2)) = 0 ]; then echo start; else echo hang; fi
	fi
}

# Run boot command $2... whose console is $1, again while the machine
# fails it; the last attempt's exit code.  Every attempt failing that way
# is a setup problem (128): no verdict on the commit.
qemu_retrying() {
	local console=$1 attempt start rc why=''
	shift
	for ((attempt = 1; attempt <= BT_BOOT_ATTEMPTS; attempt++)); do
		BT_BOOT_ATTEMPT=$attempt
		start=$SECONDS
		rc=0
		"$@" || rc=$?
		why=$(qemu_machine_fault "$rc" "$console" "$((SECONDS - start))")
		[ -n "$why" ] || return "$rc"
		cp "$console" "$console.machine-fault.$attempt"
		say "boot attempt $attempt of $BT_BOOT_ATTEMPTS failed for the machine, not the kernel: $why (console: $console.machine-fault.$attempt)"
	done
	die_setup "QEMU failed $BT_BOOT_ATTEMPTS times for the machine, not the kernel: $why (console: $console)"
}

# Why a boot failed for the machine, or nothing: QEMU that did not start
# the guest (qemu_setup_problem), a console with nothing at all (not even
# the firmware's banner: whatever a commit breaks, SeaBIOS prints first),
# or QEMU killed (SIGKILL, 137) before its timeout, which the OOM killer
# does.
qemu_machine_fault() {
	local rc=$1 console=$2 seconds=$3 why timeout
	why=$(qemu_setup_problem "$console")
	timeout=$(qemu_timeout)
	if [ -n "$why" ]; then
		printf 'QEMU did not start: %s\n' "$why"
	elif [ ! -s "$console" ]; then
		printf 'QEMU printed nothing in %ss (exit %s)\n' "$seconds" "$rc"
	elif [ "$rc" = 137 ] && [ "$seconds" -lt "$timeout" ]; then
		printf 'QEMU was killed after %ss, before its timeout (out of memory?)\n' "$seconds"
	fi
}

# Why a boot did not reach the end of the guest checks, or nothing if it
# did: from the facts (lib/facts.sh) of its console.
qemu_failure() {
	local rc=$1 facts=$2 panic
	panic=$(facts_get "$facts" kernel | awk '/Kernel panic/ && !n++')
	if grep -q '^end ' "$facts"; then
		return 0
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		printf 'hung: no exit within %ss\n' "$(qemu_timeout)"
	elif [ -n "$panic" ]; then
		printf 'kernel panic: %s\n' "$panic"
	else
		printf 'qemu exited (%s) before the guest checks finished\n' "$rc"
	fi
}

# QEMU that never ran the kernel (KVM asked for and unavailable, a bad
# option, a missing firmware file) is the machine's problem: the reason,
# or nothing.
qemu_setup_problem() {
	local console=$1
	# The firmware's banner or the kernel's: QEMU did start the guest.
	grep -qE 'Linux version|SeaBIOS' "$console" && return 0
	grep -m1 -E '^qemu-system-x86_64: ' "$console" || true
}
