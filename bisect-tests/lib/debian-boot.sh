# shellcheck shell=bash
# Debian 12 machines booted through a commit: the variants of
# kind "debian" in configs/variants, guests of another variant's kernel.
# After stage_build (of that kernel: trait kernel=), each machine of each
# scenario the variant names (traits scenario=<file>, files in
# debian/scenarios) is made from the cached Debian image
# (lib/debian-image.sh) and this commit's kernel, the Debian way, booted
# to our report target, and judged against the scenario's "expect" line
# for this commit's step.
#
#   kernel   the kernel= variant's, built once at this commit for every
#            guest that boots it: its config is tinyconfig + base.config
#            (which has what systemd, udev and initramfs-tools need) + its
#            fragment, or carried from the base (kind carried).
#   machine  a copy of the image's root tree; make modules_install; /boot/
#            vmlinuz, config; fstab, /etc/modules and the report units
#            (debian/guest); the image's own mkinitramfs, in a chroot;
#            mke2fs -d with the scenario's flags, at a fixed UUID.
#   boot     root=UUID=<root> ro console=ttyS0 [cmdline], the console on
#            ttyS0, the report (debian/guest/kbranch-report) on ttyS1.  A
#            boot that stops in the initramfs shell or a kernel panic is
#            stopped there, with the console's last lines; a hang is the
#            timeout, never silent.
#   judge    root, data mount, /etc/modules, failed units and the kernel's
#            ext4 lines against the expect line; each failed expectation
#            is a line with the scenario's reason.
#
# A tester's bisect in the Debian machine (bisect-tests/run --guest
# debian, or --test/--repeat with a variant of kind debian; lib/tester.sh)
# goes the same way with one machine, debian/scenarios/tester's:
#   config   --config: the tester's config, olddefconfig at this commit,
#            then base.config (what the machine needs to boot in QEMU)
#            merged onto it with merge_config.sh, then
#            olddefconfig; every option that changed is listed in the run
#            dir's guest-added.  Without --config, the variant's config.
#   machine  as above, and two scratch disks before the root: /dev/vda
#            (ext4, test_fs) and /dev/vdb (ext4), the root /dev/vdc; the
#            test installed as /usr/local/sbin/kbranch-reproducer.
#   boot     --repeat N boots (1 by default), each from fresh disks; the
#            report unit runs the test after multi-user.target and writes
#            its exit code and output, and the kernel's taint, to ttyS1.
#   judge    the test's exit code: 0 good, 125 cannot test, else bad (a
#            boot without a report: the boot failed); without a test, the
#            scenario's expect line.  At a step whose expect line says
#            the root cannot be mounted (before the ext4 type), the
#            machine cannot test the commit: 125, no boot.
# Needs common.sh, config.sh, build.sh, qemu.sh, setup.sh, observe.sh,
# expect.sh and debian-image.sh.

DEBIAN_SCENARIO_DIR=$BT_DIR/debian/scenarios
DEBIAN_GUEST_DIR=$BT_DIR/debian/guest
# Fixed, as a machine's are: the boot loader's root=UUID= and fstab name them.
DEBIAN_DATA_UUID=0c4d1ae2-5b1e-4f4e-8a0d-6e3f2b9c7d15
DEBIAN_DATA_SIZE=32M
DEBIAN_MEMORY=512
DEBIAN_REPORT_BEGIN='kbranch-report: begin'
DEBIAN_REPORT_END='kbranch-report: end'
# What stops a boot early, on the console: initramfs-tools' rescue shell
# (its prompt), a kernel panic.
DEBIAN_STOP_INITRAMFS='(initramfs)'
DEBIAN_STOP_PANIC='Kernel panic - not syncing'
# dracut's emergency shell, which it enters after writing its report.
DEBIAN_STOP_DRACUT='Generating "/run/initramfs/rdsosreport.txt"'

# --- the registry and the scenario files ---------------------------------

# The scenarios variant $1 boots, one a line (traits scenario=<name>).
debian_scenarios() {
	variant_field "$1" traits | tr ',' '\n' | sed -n 's/^scenario=//p'
}

debian_scenario_file() {
	local file=$DEBIAN_SCENARIO_DIR/$1
	[ -f "$file" ] || die_setup "no scenario file $file (configs/variants names it)"
	printf '%s\n' "$file"
}

# The machine names of scenario $1, in order.
debian_machines() {
	awk -F' *[|] *' '$1 ~ /^machine / { sub(/^machine +/, "", $1); print $1 }' "$(debian_scenario_file "$1")"
}

# Key $3 of machine $2 in scenario $1 ("" when not given).
debian_machine_key() {
	local keys
	keys=$(awk -F' *[|] *' -v m="machine $2" '$1 == m { print $2 }' "$(debian_scenario_file "$1")")
	tr ' ' '\n' <<<"$keys" | sed -n "s/^$3=//p"
}

# "keys | why" of the expect line for machine $2 at step $3 in scenario $1;
# nothing when the scenario declares nothing for that step.
debian_expect_line() {
	awk -F' *[|] *' -v m="$2" -v s="$3" '
		$1 ~ /^expect / && $2 == m {
			steps = $1; sub(/^expect +/, "", steps)
			if (index("," steps ",", "," s ",")) { print $3 " | " $4; exit }
		}' "$(debian_scenario_file "$1")"
}

# Value of key $2 in the keys "k=v k=v" $1.
debian_key_of() {
	tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"
}

# --- the kernel config: a tester's ---------------------------------------
# A machine of a variant in the registry boots its kernel= variant's
# kernel, configured and built by config.sh and build.sh for that variant
# (build_dir names its build dir).  Only a tester's config (--config) is
# made here, with what the machine needs merged onto it.

# What the machine needs from any kernel to boot in QEMU, in this
# commit's names, into a run dir file: base.config, every guest's needs.
debian_guest_fragment() {
	local rdir
	rdir=$(run_dir "$1")
	config_fragment "$BT_DIR/configs/base.config" >"$rdir/base.config"
	printf '%s\n' "$rdir/base.config"
}

# The tester's config (--config) for the machine: theirs taken to this
# commit with olddefconfig, then the guest's needs merged onto it, as
# virtme-ng's configkernel does; the options that changed, into the run
# dir's guest-added, and said.
debian_config_tester() {
	local v=$1 out=$2 rdir theirs frag key cached
	rdir=$(run_dir "$v")
	theirs=$rdir/tester-olddefconfig.config
	debian_olddefconfig "$v" "$BT_TESTER_CONFIG" "$theirs"
	frag=$(debian_guest_fragment "$v")
	key=$(config_key "$theirs" "$frag")
	cached=$(config_from_cache "$key" "$out" "$rdir/config.log")
	if [ "$cached" = no ]; then
		cp "$theirs" "$out"
		config_onto "$KTREE_DIR" "$(build_dir "$v")" "$out" "$rdir/config.log" "$frag"
		config_keep "$key" "$out"
	fi
	debian_config_changes "$theirs" "$out" >"$rdir/guest-added"
	say "$v: the Debian machine's options merged onto your config: $(wc -l <"$rdir/guest-added") changed (list: $rdir/guest-added): $(head -n 6 "$rdir/guest-added" | paste -sd ';' -)..."
}

# The options that differ from config $1 to config $2, "CONFIG_X: old ->
# new" ("n": not set), or one line saying there are none.
debian_config_changes() {
	join -a1 -a2 -e n -o 0,1.2,2.2 <(debian_config_lines "$1") <(debian_config_lines "$2") |
		awk '$2 != $3 { printf "%s: %s -> %s\n", $1, $2, $3; d = 1 } END { if (!d) print "none: the config had all the machine needs" }'
}

# A .config's options, one "CONFIG_X value" a line ("n" for not set), sorted.
debian_config_lines() {
	sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1 \2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' "$1" | sort
}

# olddefconfig of config $2 at this commit into file $3 (cached by input).
debian_olddefconfig() {
	local v=$1 in=$2 out=$3 key rdir cached
	rdir=$(run_dir "$v")
	key=$(config_key "$in")
	cached=$(config_from_cache "$key" "$out" "$rdir/config.log")
	[ "$cached" = no ] || return 0
	cp "$in" "$out"
	# In config_generate's job (bisect-tests/run): set -e ends it here.
	logged "$rdir/config.log" kmake "$v" KCONFIG_CONFIG="$out" olddefconfig
	config_keep "$key" "$out"
}

# config_generate for a tester's variant of kind debian.
debian_config_generate() {
	local v=$1 bdir scratch
	bdir=$(build_dir "$v")
	scratch=$bdir/bisect-tests.config
	mkdir -p "$bdir"
	debian_config_tester "$v" "$scratch"
	cmp -s "$scratch" "$bdir/.config" || cp "$scratch" "$bdir/.config"
}

# --- a machine: the image, this commit's kernel, the scenario's files ------

# The machine's directory in the run dir.
debian_machine_dir() {
	printf '%s/%s-%s\n' "$(run_dir "$1")" "$2" "$3"
}

# The Debian image's directory, made or found once per run (128 when it
# cannot be made: lib/debian-image.sh says why in one line).
debian_image_dir() {
	if [ -z "${DEBIAN_IMAGE_DIR:-}" ]; then
		# Its failure ends the run with its status, under set -e.
		DEBIAN_IMAGE_DIR=$(debian_image)
	fi
	printf '%s\n' "$DEBIAN_IMAGE_DIR"
}

# /etc/fstab: the root by UUID, and the data filesystem when there is one,
# with the type the scenario's machine names; passno as Debian writes it.
debian_fstab() {
	local type=$1 data=$2
	printf 'UUID=%s / %s errors=remount-ro 0 1\n' "$DEBIAN_ROOT_UUID" "$type"
	[ "$data" = none ] || printf 'UUID=%s /srv/data %s defaults 0 2\n' "$DEBIAN_DATA_UUID" "$type"
}

# The scenario's files and our report units, into root tree $1.  Run as a
# job of its own (debian_machine_make), so set -e holds in it.
debian_machine_files() {
	local root=$1 scen=$2 machine=$3 modules era fsck units=$1/etc/systemd/system
	debian_fstab "$(debian_machine_key "$scen" "$machine" fstab)" \
		"$(debian_machine_key "$scen" "$machine" data)" >"$root/etc/fstab"
	mkdir -p "$root/srv/data" "$root/usr/local/sbin" "$units/emergency.target.wants" || return 1
	modules=$(debian_machine_key "$scen" "$machine" modules)
	if [ "$modules" != none ]; then printf '%s\n' "$modules" >"$root/etc/modules"; else : >"$root/etc/modules"; fi
	install -m 0755 "$DEBIAN_GUEST_DIR/kbranch-report" "$root/usr/local/sbin/" &&
		install -m 0644 "$DEBIAN_GUEST_DIR/kbranch-report.service" "$DEBIAN_GUEST_DIR/kbranch-report.target" "$units/" &&
		ln -sf ../kbranch-report.service "$units/emergency.target.wants/" &&
		ln -sf kbranch-report.target "$units/default.target" || return 1
	era=$(debian_machine_key "$scen" "$machine" fstype)
	debian_era_fstype "$root" "$era"
	fsck=$(debian_machine_key "$scen" "$machine" fsck)
	debian_initramfs_fsck "$root" "$fsck"
	# The tester's reproducer, which the report unit runs (debian/guest),
	# given the boot's time rather than the report's 60 s.
	[ -n "$BT_TEST_SCRIPT" ] && [ "$scen" = "$DEBIAN_TESTER_SCENARIO" ] || return 0
	install -m 0755 "$BT_TEST_SCRIPT" "$root/usr/local/sbin/kbranch-reproducer" &&
		mkdir -p "$units/kbranch-report.service.d" &&
		printf '[Service]\nTimeoutStartSec=infinity\n' >"$units/kbranch-report.service.d/reproducer.conf"
}

# The initramfs's fstype as klibc $2 had it (klibc-1.5.3, klibc-1.5.15;
# nothing: the image's own): guest/era-fstype.c, built static here, put
# in place of klibc's fstype by an initramfs hook (mkinitramfs runs
# /etc's hooks after /usr/share's, klibc-utils' among them), which keeps
# the image's as fstype.klibc.
debian_era_fstype() {
	local root=$1 era=$2 lib=$1/usr/local/lib/kbranch hook=$1/etc/initramfs-tools/hooks/kbranch-era-fstype
	[ -n "$era" ] || return 0
	era=${era#klibc-1.5.}
	mkdir -p "$lib" "${hook%/*}" &&
		gcc -static -Os -DKLIBC_ERA="$((1500 + era))" -o "$lib/fstype" "$DEBIAN_GUEST_DIR/era-fstype.c" || return 1
	cat >"$hook" <<'HOOK'
#!/bin/sh
# klibc's fstype of the ext4dev era (kbranch: bisect-tests/debian/guest/era-fstype.c)
case $1 in prereqs) exit 0 ;; esac
klibc=$(readlink -f "$DESTDIR/bin/fstype")
mv "$klibc" "${klibc%/*}/fstype.klibc"
cp /usr/local/lib/kbranch/fstype "${klibc%/*}/fstype"
HOOK
	chmod 0755 "$hook"
}

# fsck in the initramfs as a real install has it ($2 = yes).  The image's
# fsck hook puts fsck and fsck.<type> in when it can tell the root's type
# (FSTYPE=auto: klibc's fstype on fstab's root device); here the initramfs
# is made before the root's disk exists, so the hook finds none and the
# initramfs says "fsck not present".  A real Debian 12 install's probe
# says ext4 for these roots (klibc 2.0.12 has no ext4dev), so FSTYPE=ext4
# (initramfs.conf(5)) makes the same initramfs: fsck, logsave, fsck.ext4.
debian_initramfs_fsck() {
	local root=$1 fsck=$2
	[ "$fsck" = yes ] || return 0
	mkdir -p "$root/etc/initramfs-tools/conf.d" || return 1
	printf '%s\n' '# kbranch: what the fsck hook finds on a real install of this root' 'FSTYPE=ext4' \
		>"$root/etc/initramfs-tools/conf.d/kbranch-fsck"
}

# The kernel installed as Debian's linux-image packages install one:
# modules, /boot/vmlinuz-<release> and /boot/config-<release> (which
# mkinitramfs reads).  Run as a job of its own (debian_machine_make).
debian_install_kernel() {
	local v=$1 root=$2 release bdir
	bdir=$(build_dir "$v")
	release=$(build_release "$v")
	build_modules_install "$v" "$root"
	cp "$bdir/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$release" &&
		cp "$bdir/.config" "$root/boot/config-$release"
}

# The image's own mkinitramfs for that kernel, in a chroot with a private
# /proc and /sys that go with the mount namespace.
debian_mkinitramfs() {
	local root=$1 release=$2
	# shellcheck disable=SC2016 # $1 is the inner shell's
	unshare -m --propagation private chroot "$root" /bin/sh -c \
		'mount -t proc proc /proc && mount -t sysfs sysfs /sys && exec mkinitramfs -o "/boot/initrd.img-$1" "$1"' \
		sh "$release"
}

# dracut's initrd for that kernel, as Debian's dracut package makes one
# (/etc/kernel/postinst.d/dracut: dracut --force <image> <version>), in the
# same chroot.
debian_dracut() {
	local root=$1 release=$2
	# shellcheck disable=SC2016 # $1 is the inner shell's
	unshare -m --propagation private chroot "$root" /bin/sh -c \
		'mount -t proc proc /proc && mount -t sysfs sysfs /sys && exec dracut --force "/boot/initrd.img-$1" "$1"' \
		sh "$release"
}

# mke2fs options of a filesystem made "test_fs", "plain" or "cleared"
# (the scenario files are checked for these words: debian_check_scenario).
debian_mkfs_flags() {
	case $1 in
	test_fs | cleared) printf '%s\n' -E test_fs ;;
	esac
}

# Filesystem image $2 of kind $3 (label $4, UUID $5, size $6), from
# tree $1 when one is given.
debian_mkfs() {
	local tree=$1 img=$2 kind=$3 label=$4 uuid=$5 size=$6 args
	mapfile -t args < <(debian_mkfs_flags "$kind")
	[ -z "$tree" ] || args+=(-d "$tree")
	rm -f "$img"
	mke2fs -q -F -t ext4 "${args[@]}" -L "$label" -U "$uuid" "$img" "$size" || return 1
	[ "$kind" != cleared ] || tune2fs -E ^test_fs "$img"
}

# Make machine $3 of scenario $2 for variant $1: its disks and, for an
# initramfs boot, the initramfs, in the machine's dir.  The host's tools
# do all of it, the same at every commit: a failure is the machine's, 128.
debian_machine_make() {
	local v=$1 scen=$2 machine=$3 mdir root release data image boot kind maker start=$SECONDS
	mdir=$(debian_machine_dir "$v" "$scen" "$machine")
	root=$mdir/root
	release=$(build_release "$v")
	image=$(debian_image_dir)
	boot=$(debian_machine_key "$scen" "$machine" boot)
	kind=$(debian_machine_key "$scen" "$machine" root)
	rm -rf "$mdir"
	mkdir -p "$mdir"
	cp -a --reflink=auto "$image/root" "$root" || debian_machine_fault "$v" copying "$mdir"
	# Jobs whose status wait reads: tested in a condition, they would run
	# without set -e.
	job_status debian_install_kernel "$v" "$root"
	[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "make modules_install" "$(run_dir "$v")/build.log"
	job_status debian_machine_files "$root" "$scen" "$machine"
	[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "writing the machine's files" "$mdir"
	if [ "$boot" != kernel ]; then
		maker=debian_mkinitramfs
		[ "$boot" != dracut ] || maker=debian_dracut
		job_status logged "$mdir/make.log" "$maker" "$root" "$release"
		[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "${maker#debian_}" "$mdir/make.log"
		cp "$root/boot/initrd.img-$release" "$mdir/initrd.img" || debian_machine_fault "$v" "${maker#debian_}" "$mdir/make.log"
	fi
	job_status logged "$mdir/make.log" debian_mkfs "$root" "$mdir/root.img" "$kind" \
		debian-root "$DEBIAN_ROOT_UUID" "$DEBIAN_IMAGE_SIZE"
	[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "mke2fs of the root" "$mdir/make.log"
	data=$(debian_machine_key "$scen" "$machine" data)
	if [ "$data" != none ]; then
		job_status logged "$mdir/make.log" debian_mkfs '' "$mdir/data.img" "$data" data "$DEBIAN_DATA_UUID" "$DEBIAN_DATA_SIZE"
		[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "mke2fs of the data filesystem" "$mdir/make.log"
	fi
	rm -rf --one-file-system "$root"
	echo "$((SECONDS - start))" >"$mdir/make-seconds"
}

# Making a machine failed: never the commit's (the image, the host's
# tools and the commit's already built modules): a setup error.
debian_machine_fault() {
	local v=$1 what=$2 log=$3
	setup_check "$v" "$what" "$log"
	die_setup "$v: $what failed for this machine, not the commit: $(tail -n 1 "$log" 2>/dev/null) (log: $log)"
}

# --- the boot ----------------------------------------------------------------

# The boot loader's command line: root=UUID= as Debian's grub writes it
# for an initramfs (udev resolves it); without one the kernel resolves no
# UUID= (only PARTUUID=), and the device is named, as for such kernels.
debian_cmdline() {
	local root=UUID=$DEBIAN_ROOT_UUID boot
	boot=$(debian_machine_key "$2" "$3" boot)
	[ "$boot" != kernel ] || root=/dev/vda
	printf 'root=%s ro console=ttyS0 %s\n' "$root" "$(debian_machine_key "$2" "$3" cmdline)"
}

# One boot of machine dir $2 (with its command line $3); the console in
# console.log, the report in report.txt, and in stopped why it was
# stopped early, if it was.
debian_qemu_once() {
	local v=$1 mdir=$2 cmdline=$3 accel qemu drives=() initrd=() pid img failed
	mapfile -t accel < <(qemu_accel)
	mapfile -t qemu < <(qemu_command)
	# The tester's scratch disks come first: /dev/vda and vdb, as in our
	# busybox guest, whatever the machine.
	for img in scratch-flagged scratch-plain; do
		[ ! -f "$mdir/$img.img" ] || drives+=(-drive "file=$mdir/boot-$img.img,if=virtio,format=raw")
	done
	drives+=(-drive "file=$mdir/boot-root.img,if=virtio,format=raw")
	[ ! -f "$mdir/data.img" ] || drives+=(-drive "file=$mdir/boot-data.img,if=virtio,format=raw")
	[ ! -f "$mdir/initrd.img" ] || initrd=(-initrd "$mdir/initrd.img")
	failed=$(debian_fresh_disks "$mdir")
	[ -z "$failed" ] || return 1
	rm -f "$mdir/report.txt" "$mdir/stopped"
	# QEMU in the background, watched: --foreground keeps it in our
	# process group (an interrupted run takes it along); 8>&- keeps the
	# build lock out of its hands.
	timeout --foreground -k 5 "$(qemu_timeout)" "${qemu[@]}" "${accel[@]}" \
		-m "$DEBIAN_MEMORY" -nographic -monitor none -no-reboot -nic none \
		-serial stdio -serial "file:$mdir/report.txt" \
		-kernel "$(build_dir "$v")/arch/x86/boot/bzImage" "${initrd[@]}" -append "$cmdline" \
		"${drives[@]}" </dev/null >"$mdir/console.log" 2>&1 8>&- &
	pid=$!
	debian_watch "$pid" "$mdir"
	wait "$pid"
}

# Each boot starts from the disks as made: a boot writes to them.  Prints
# the disk it could not copy, nothing when it copied them all.
debian_fresh_disks() {
	local mdir=$1 img
	for img in root data scratch-flagged scratch-plain; do
		[ ! -f "$mdir/$img.img" ] || cp --sparse=always "$mdir/$img.img" "$mdir/boot-$img.img" || { echo "$img"; return 0; }
	done
}

# Stop boot $1 once its console shows where it stopped for good (the
# initramfs shell, a kernel panic): waiting for the timeout would say
# less, later.
debian_watch() {
	local pid=$1 mdir=$2 why
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		why=$(debian_stop_reason "$mdir/console.log")
		[ -n "$why" ] || continue
		sleep 2 # the console's last lines
		printf '%s\n' "$why" >"$mdir/stopped"
		kill -TERM "$pid" 2>/dev/null || true
		return 0
	done
}

debian_stop_reason() {
	if grep -qF "$DEBIAN_STOP_INITRAMFS" "$1"; then
		echo "the initramfs shell"
	elif grep -qF "$DEBIAN_STOP_DRACUT" "$1"; then
		echo "dracut's emergency shell"
	elif grep -qF "$DEBIAN_STOP_PANIC" "$1"; then
		echo "a kernel panic: $(grep -m1 -F "$DEBIAN_STOP_PANIC" "$1" | tr -d '\r' | sed 's/^\[[^]]*\] //')"
	fi
}

# --- what the machine showed ---------------------------------------------------

# How the boot ended: "report", or why there is none.
debian_end() {
	local mdir=$1 rc=$2
	if grep -qF "$DEBIAN_REPORT_END" "$mdir/report.txt" 2>/dev/null; then
		echo report
	elif [ -s "$mdir/stopped" ]; then
		cat "$mdir/stopped"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "hung: no report within $(qemu_timeout)s"
	else
		echo "qemu exited ($rc) before the report"
	fi
}

# The kernel's ext4 lines of the console (where there is no report):
# the console runs at the kernel's default loglevel, so it has them.
debian_console_klog() {
	tr -d '\r' <"$1" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -E 'EXT4-fs|ext4|JBD2|VFS:' |
		grep -vE '^(Kernel )?[Cc]ommand line:' | sed 's/^/klog: /' || true
}

# The machine's observation, one fact a line, in $mdir/observed: how it
# ended, then the report's lines (or, without a report, root: none and the
# console's ext4 lines).
debian_observe() {
	local mdir=$1 rc=$2 end
	end=$(debian_end "$mdir" "$rc")
	{
		printf 'end: %s\n' "$end"
		if [ "$end" = report ]; then
			# A report with nothing between its markers is judged, not fatal.
			tr -d '\r' <"$mdir/report.txt" | sed -n "/^$DEBIAN_REPORT_BEGIN\$/,/^$DEBIAN_REPORT_END\$/p" |
				grep -vxF -e "$DEBIAN_REPORT_BEGIN" -e "$DEBIAN_REPORT_END" || true
		else
			echo 'root: none'
			debian_console_klog "$mdir/console.log"
		fi
	} >"$mdir/observed"
}

debian_seen() {
	sed -n "s/^$2: //p" "$1"
}

# The observed value of judged key $2 in observation file $1.
debian_seen_key() {
	local obs=$1 key=$2 line
	case $key in
	root) debian_seen "$obs" root | awk '{ print $1 }' | sed -n 1p ;;
	data)
		line=$(sed -n 's|^fstab /srv/data [^:]*: ||p' "$obs" | sed -n 1p)
		case $line in mounted\ *) echo "${line#mounted }" ;; '') echo none ;; *) echo failed ;; esac
		;;
	modules) if grep -q '^modules [^:]*: failed' "$obs"; then echo failed; else echo ok; fi ;;
	failed) line=$(debian_seen "$obs" 'failed units' | xargs); echo "${line:-none}" ;;
	klog | noklog) if grep -q '^klog: .*EXT4-fs.*ext4dev' "$obs"; then echo ext4dev; else echo none; fi ;;
	fsck) line=$(debian_seen "$obs" 'fsck root'); line=${line:-none}; echo "${line%% *}" ;;
	esac
}

# "yes" when the observation satisfies root=$2 ("/"-separated types,
# none, said), else "no".
debian_root_ok() {
	local obs=$1 want=$2 seen
	seen=$(debian_seen_key "$obs" root)
	if [[ "/$want/" == *"/$seen/"* ]]; then
		echo yes
	# said: not mounted, and ext4 said why (the test_fs flag, or ext4dev).
	elif [ "$seen" = none ] && [[ "/$want/" == */said/* ]] &&
		grep -qE '^klog: .*EXT4-fs.*(test_fs|test code|ext4dev)' "$obs"; then
		echo yes
	else
		echo no
	fi
}

# Judge one observation against "keys | why": DEBIAN_PROBLEMS gets a line
# per key that does not hold, DEBIAN_JUDGE_CODE 2 when the boot itself
# failed (it hung, or the root was declared mounted and was not), 1 for
# any other failure, 0 when all held.  Set, not returned: a caller testing
# the status would run it without set -e.
debian_judge() {
	local obs=$1 keys=$2 why=$3 key want seen seen_root root_ok rc=0 line
	DEBIAN_PROBLEMS='' DEBIAN_JUDGE_CODE=0
	seen_root=$(debian_seen_key "$obs" root)
	case $(debian_seen "$obs" end) in
	report | "the initramfs shell" | "dracut's emergency shell" | "a kernel panic"*) ;;
	*)
		DEBIAN_PROBLEMS="the boot did not end: $(debian_seen "$obs" end)" DEBIAN_JUDGE_CODE=2
		return 0
		;;
	esac
	for key in root data modules failed klog noklog fsck; do
		want=$(debian_key_of "$keys" "$key")
		[ -n "$want" ] || continue
		seen=$(debian_seen_key "$obs" "$key")
		case $key in
		root) root_ok=$(debian_root_ok "$obs" "$want"); [ "$root_ok" = no ] || continue ;;
		noklog) [ "$seen" != "$want" ] && continue ;;
		data) [ "$seen_root" != none ] || continue; [[ "/$want/" == *"/$seen/"* ]] && continue ;;
		*) [ "$seen" = "$want" ] && continue ;;
		esac
		# printf, not an assignment: what a failed lookup printed is still said.
		printf -v line '%s=%s declared, seen: %s (%s)' "$key" "$want" "$(debian_seen_line "$obs" "$key")" "$why"
		DEBIAN_PROBLEMS+=${DEBIAN_PROBLEMS:+$'\n'}$line
		if [ "$key" = root ] && [ "$rc" = 0 ] && [[ "$want" != none* ]]; then rc=2; else [ "$rc" = 2 ] || rc=1; fi
	done
	DEBIAN_JUDGE_CODE=$rc
}

# What to print for a key that does not hold: the observation's own words.
debian_seen_line() {
	local obs=$1 key=$2 seen_root
	seen_root=$(debian_seen_key "$obs" root)
	case $key in
	root)
		if [ "$seen_root" = none ]; then
			echo "root not mounted: $(debian_seen "$obs" end)"
		else
			echo "root: $(debian_seen "$obs" root)"
		fi
		;;
	data) grep -m1 '^fstab /srv/data ' "$obs" || echo "no data mount" ;;
	modules) grep '^modules ' "$obs" | paste -sd ';' - ;;
	failed) echo "failed units: $(debian_seen_key "$obs" failed)" ;;
	klog) echo "no EXT4-fs line names ext4dev" ;;
	noklog) grep -m1 '^klog: .*EXT4-fs.*ext4dev' "$obs" ;;
	fsck) echo "fsck root: $(debian_seen "$obs" 'fsck root')" ;;
	esac
}

# --- the stage ---------------------------------------------------------------

debian_boot_tools_check() {
	local tool
	[ "$(id -u)" -eq 0 ] || die_setup "the debian variants need root (mmdebstrap, chroot, unshare -m)"
	for tool in mmdebstrap chroot unshare tune2fs cp; do
		command -v "$tool" >/dev/null || die_setup "$tool is missing; install it first (debian variants)"
	done
}

# A scenario file that says what this code does not know is a setup
# error before anything boots, never a machine made some other way.
debian_check_scenario() {
	local scen=$1 machine key value
	for machine in $(debian_machines "$scen"); do
		for key in root:'test_fs|plain|cleared' data:'test_fs|plain|none' fstab:'ext4|ext4dev' boot:'initramfs|dracut|kernel' \
			fstype:'|klibc-1.5.3|klibc-1.5.15' fsck:'|yes'; do
			value=$(debian_machine_key "$scen" "$machine" "${key%%:*}")
			[[ "$value" =~ ^(${key#*:})$ ]] ||
				die_setup "scenario $scen, machine $machine: ${key%%:*}='$value' is not one of ${key#*:}"
		done
	done
}

# Boot machine dir $2 once and judge it; prints a summary line, and what
# did not hold with the console's last lines.  DEBIAN_BOOT_CODE gets
# debian_judge's code (set, not returned, as there).
debian_boot_judge() {
	local v=$1 scen=$2 machine=$3 keys=$4 why=$5 mdir cmdline rc=0 line start=$SECONDS
	mdir=$(debian_machine_dir "$v" "$scen" "$machine")
	step "$v: $scen/$machine: boot ($mdir/console.log, report $mdir/report.txt)"
	cmdline=$(debian_cmdline "$v" "$scen" "$machine")
	job_status qemu_retrying "$mdir/console.log" debian_qemu_once "$v" "$mdir" "$cmdline"
	rc=$JOB_STATUS
	echo "$((SECONDS - start))" >"$mdir/boot-seconds"
	debian_observe "$mdir" "$rc"
	debian_judge "$mdir/observed" "$keys" "$why"
	DEBIAN_BOOT_CODE=$DEBIAN_JUDGE_CODE
	step "$v: $scen/$machine: $(debian_summary "$mdir/observed") ($((SECONDS - start)) s)"
	[ "$DEBIAN_BOOT_CODE" != 0 ] || return 0
	while IFS= read -r line; do say "$v: $scen/$machine at step $(expect step): $line"; done <<<"$DEBIAN_PROBLEMS"
	say "$v: $scen/$machine: console tail ($mdir/console.log):"
	# Without the terminal's escapes (the shell's cursor query, colours).
	tail -n 25 "$mdir/console.log" | tr -d '\r' | sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/^/    /' >&2
}

# One line for a machine's observation: without a report, only the root
# and how the boot ended are known.
debian_summary() {
	local obs=$1 key out=() end
	end=$(debian_seen "$obs" end)
	for key in root data modules failed fsck; do
		[ "$key" = root ] || [ "$end" = report ] || continue
		out+=("$key=$(debian_seen_key "$obs" "$key")")
	done
	out+=("end=${end%%:*}")
	printf '%s\n' "${out[*]}"
}

# Make, boot and judge machine $3 of scenario $2.  DEBIAN_MACHINE_CODE: 0
# held; 1 a check, 2 the boot failed twice; 125 failed, then held on the
# second boot (flaky).  Set, not returned: its caller keeps set -e.
debian_machine() {
	local v=$1 scen=$2 machine=$3 line keys why mdir
	DEBIAN_MACHINE_CODE=0
	line=$(debian_expect_line "$scen" "$machine" "$(expect step)")
	[ -n "$line" ] || die_setup "scenario $scen declares nothing for machine $machine at step $(expect step)"
	keys=${line%% | *} why=${line#* | }
	mdir=$(debian_machine_dir "$v" "$scen" "$machine")
	step "$v: $scen/$machine: making the machine ($mdir/make.log)"
	debian_machine_make "$v" "$scen" "$machine"
	debian_boot_judge "$v" "$scen" "$machine" "$keys" "$why"
	[ "$DEBIAN_BOOT_CODE" != 0 ] || return 0
	mkdir -p "$mdir/first-attempt"
	mv "$mdir/console.log" "$mdir/observed" "$mdir/report.txt" "$mdir/first-attempt/" 2>/dev/null || true
	step "$v: $scen/$machine: booting again to confirm (first attempt's logs: $mdir/first-attempt)"
	debian_boot_judge "$v" "$scen" "$machine" "$keys" "$why"
	DEBIAN_MACHINE_CODE=$DEBIAN_BOOT_CODE
	[ "$DEBIAN_MACHINE_CODE" = 0 ] || return 0
	say "$v: $scen/$machine: flaky: failed, then held on a second boot; both logs: $mdir/first-attempt and $mdir"
	DEBIAN_MACHINE_CODE=125
}

# Every machine's observation, each line prefixed with scenario/machine,
# in the run's observed.txt: what --record-reference keeps.
debian_observed_all() {
	local v=$1 scen machine
	for scen in $(debian_scenarios "$v"); do
		for machine in $(debian_machines "$scen"); do
			sed "s|^|$scen/$machine |" "$(debian_machine_dir "$v" "$scen" "$machine")/observed"
		done
	done >"$(run_dir "$v")/observed.txt"
}

# Beside each machine, the packaged kernel's result on it: a reference
# shown, not judged (the scenario's expect lines judge, and they declare
# what the packaged kernel does too).
debian_show_reference() {
	local v=$1 version ref scen machine
	version=$(observe_packaged_version)
	[ -n "$version" ] || die_setup "--against-packaged: no packaged/* tag is an ancestor of HEAD"
	ref=$(observe_reference "$version" "$v")
	[ -f "$ref" ] || observe_make_reference "$version" "$v"
	for scen in $(debian_scenarios "$v"); do
		for machine in $(debian_machines "$scen"); do
			grep "^$scen/$machine " "$ref" | sed "s|^$scen/$machine ||" >"$(run_dir "$v")/reference.observed"
			say "$v: $scen/$machine on packaged/$version: $(debian_summary "$(run_dir "$v")/reference.observed")"
		done
	done
}

# stage_boot_checks for kind debian: sets BOOT and CHECKS.
debian_stage_boot_checks() {
	local v=$1 scen machine runs_tester
	debian_boot_tools_check
	# Once per run, in this shell: the machines copy it.
	debian_image_dir >/dev/null
	runs_tester=$(debian_runs_tester "$v")
	if [ "$runs_tester" = yes ]; then
		debian_stage_tester "$v"
		return 0
	fi
	BOOT=ok CHECKS=ok
	for scen in $(debian_scenarios "$v"); do
		debian_check_scenario "$scen"
		for machine in $(debian_machines "$scen"); do
			debian_machine "$v" "$scen" "$machine"
			case $DEBIAN_MACHINE_CODE in
			0) ;;
			2) BOOT=fail ;;
			125) [ "$CHECKS" = fail ] || CHECKS=flaky ;;
			*) CHECKS=fail ;;
			esac
		done
	done
	debian_observed_all "$v"
	# As stage_boot_checks: a failed boot's checks are not said to pass.
	[ "$BOOT/$CHECKS" != fail/ok ] || CHECKS=skip
	[ "$AGAINST_PACKAGED" = 0 ] || debian_show_reference "$v"
	[ "$RECORD_REFERENCE" = 0 ] || [ "$BOOT/$CHECKS" != ok/ok ] || observe_record_reference "$v"
}

# --- a tester's bisect in the machine (lib/tester.sh) ----------------------

DEBIAN_TESTER_SCENARIO=tester
DEBIAN_SCRATCH_SIZE=64M

# "yes" when variant $1 boots the tester's machine instead of its
# scenarios: the tester's config, or a test or repeated boots asked for.
debian_runs_tester() {
	local tester
	tester=$(tester_variant "$1")
	if [ "$tester" = yes ] || [ -n "$BT_TEST_SCRIPT" ] || [ "$BT_REPEAT" -gt 1 ]; then
		echo yes
	else
		echo no
	fi
}

# The tester's machine, booted --repeat times (stage_repeated), its test
# judging each boot; at a step where the machine's root cannot be mounted
# (its expect line says root=none), no boot: the commit cannot be tested.
debian_stage_tester() {
	local v=$1 scen=$DEBIAN_TESTER_SCENARIO line mdir root
	debian_check_scenario "$scen"
	line=$(debian_expect_line "$scen" tester "$(expect step)")
	[ -n "$line" ] || die_setup "scenario $scen declares nothing for its machine at step $(expect step)"
	DEBIAN_TESTER_KEYS=${line%% | *} DEBIAN_TESTER_WHY=${line#* | }
	root=$(debian_key_of "$DEBIAN_TESTER_KEYS" root)
	if [ "$root" = none ]; then
		# shellcheck disable=SC2034 # BT_UNTESTABLE is read by verdict.sh (the RESULT's reason=)
		BOOT=ok CHECKS=untestable BT_UNTESTABLE=machine-cannot-test
		say "$v: skip: the Debian machine cannot test step $(expect step): $DEBIAN_TESTER_WHY"
		return 0
	fi
	mdir=$(debian_machine_dir "$v" "$scen" tester)
	step "$v: $scen/tester: making the machine ($mdir/make.log)"
	debian_machine_make "$v" "$scen" tester
	debian_scratch_disks "$v" "$mdir"
	stage_repeated "$v" debian_tester_boot
}

# The tester's scratch disks in machine dir $2, as our busybox guest's
# first two: ext4 with the test_fs flag, and without.  The host's
# mke2fs's: a failure is the machine's (128).
debian_scratch_disks() {
	local v=$1 mdir=$2 kind
	for kind in flagged plain; do
		job_status logged "$mdir/make.log" debian_mkfs '' "$mdir/scratch-$kind.img" "${kind/flagged/test_fs}" "$kind" random "$DEBIAN_SCRATCH_SIZE"
		[ "$JOB_STATUS" = 0 ] || debian_machine_fault "$v" "mke2fs of the scratch disks" "$mdir/make.log"
	done
}

# One boot $2 of the tester's machine (stage_repeated's boot function):
# sets BOOT, CHECKS and BT_BOOT_TAINTED; its logs go to runs/<v>/boots/<i>.
debian_tester_boot() {
	local v=$1 i=$2 mdir rc keep
	mdir=$(debian_machine_dir "$v" "$DEBIAN_TESTER_SCENARIO" tester)
	debian_boot_judge "$v" "$DEBIAN_TESTER_SCENARIO" tester "$DEBIAN_TESTER_KEYS" "$DEBIAN_TESTER_WHY"
	rc=$DEBIAN_BOOT_CODE
	BOOT=ok
	if [ "$rc" = 2 ]; then
		BOOT=fail
	elif [ -n "$BT_TEST_SCRIPT" ]; then
		tester_checks_from "$v" "$(debian_seen "$mdir/observed" reproducer | tail -n 1)" "$(run_dir "$v")/boots/$i/report.txt"
	elif [ "$rc" = 0 ]; then
		CHECKS=ok
	else
		CHECKS=fail
	fi
	BT_BOOT_TAINTED=$(debian_seen "$mdir/observed" tainted | tail -n 1)
	: "${BT_BOOT_TAINTED:=unknown}"
	keep=$(run_dir "$v")/boots/$i
	mkdir -p "$keep"
	cp "$mdir/console.log" "$mdir/observed" "$keep/"
	[ ! -f "$mdir/report.txt" ] || cp "$mdir/report.txt" "$keep/"
}
