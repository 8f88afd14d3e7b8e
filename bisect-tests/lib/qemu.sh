# shellcheck shell=bash
# One boot under QEMU with a timeout; the console goes to console.log.

BT_GUEST_END='# ext4-checks: end status='

qemu_accel() {
	if [ "${KBRANCH_KVM:-0}" = 1 ]; then
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
	local variant=$1 rdir accel drives
	rdir=$(run_dir "$variant")
	mapfile -t accel < <(qemu_accel)
	mapfile -t drives < <(qemu_drives "$rdir")
	# --foreground keeps timeout and QEMU in our process group, so killing
	# the run kills them too; 8>&- keeps the build lock out of QEMU's hands.
	timeout --foreground -k 5 "${KBRANCH_BOOT_TIMEOUT:-120}" qemu-system-x86_64 "${accel[@]}" \
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
	local variant=$1 img=$2 console=$3 accel
	mapfile -t accel < <(qemu_accel)
	timeout --foreground -k 5 "${KBRANCH_BOOT_TIMEOUT:-120}" qemu-system-x86_64 "${accel[@]}" \
		-m 256 -nographic -no-reboot -nic none \
		-kernel "$(build_dir "$variant")/arch/x86/boot/bzImage" \
		-append 'console=ttyS0 panic=-1 root=/dev/vda ro -- --root-probe' \
		-drive "file=$img,if=virtio,format=raw" \
		</dev/null >"$console" 2>&1 8>&-
}

# Why a boot did not reach the end of the guest checks, or nothing if it did.
qemu_failure() {
	local rc=$1 console=$2
	if grep -qF "$BT_GUEST_END" "$console"; then
		return 0
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		printf 'hung: no exit within %ss\n' "${KBRANCH_BOOT_TIMEOUT:-120}"
	elif grep -q 'Kernel panic' "$console"; then
		printf 'kernel panic: %s\n' "$(grep -m1 'Kernel panic' "$console" | tr -d '\r')"
	else
		printf 'qemu exited (%s) before the guest checks finished\n' "$rc"
	fi
}

# QEMU that never ran the kernel (KVM asked for and unavailable, a bad
# option, a missing firmware file) is the machine's problem: the reason,
# or nothing.
qemu_setup_problem() {
	local console=$1
	grep -q 'Linux version' "$console" && return 0
	grep -m1 -E '^qemu-system-x86_64: ' "$console" || true
}
