#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output, $stderr: set by bats' run
# The Debian 12 guest image: made by mmdebstrap from
# the host's Debian archives, kept in $KBRANCH_WORK by its key, made again
# only when the key changes, and never left half made.  No kernel is
# built; the cold image takes about 45 s here, the whole file about 4 min.

load helpers

MAKE_IMAGE=$REPO/bisect-tests/debian/make-image

setup() {
	SMALL=$KBRANCH_CI_SCRATCH/debian-small
}

teardown() {
	if mountpoint -q "$SMALL"; then umount "$SMALL"; fi
}

# The image of $KBRANCH_WORK (made if need be), its progress as comments;
# arguments after the first are make-image's.  Made with fds 3 to 11 open,
# as under bats and bisect-tests/run: dash, which runs apt's "cat >&N",
# reads N as one digit, so apt's pipe must not be fd 10 or more.
image_dir() {
	"${1:-$MAKE_IMAGE}" "${@:2}" 2> >(sed -u 's/^/# /' >&3) 4>/dev/null 5>/dev/null 6>/dev/null \
		7>/dev/null 8>/dev/null 9>/dev/null 10>/dev/null 11>/dev/null
}

# A private copy of bisect-tests whose package list a test may change.
bt_copy() {
	local dest=$KBRANCH_CI_SCRATCH/bt.$BATS_TEST_NUMBER.$RANDOM
	mkdir -p "$dest"
	cp -a "$REPO/bisect-tests" "$dest/"
	printf '%s\n' "$dest/bisect-tests"
}

# A work dir of its own, so the build is cold.
fresh_work() {
	local work=$KBRANCH_CI_SCRATCH/work.$BATS_TEST_NUMBER.$RANDOM
	mkdir -p "$work"
	printf '%s\n' "$work"
}

# Nothing of a build left in a work dir: no image, no temporary tree,
# nothing mounted under it, no mmdebstrap still running for it.
nothing_left() {
	local work=$1
	[ -z "$(find "$work/debian" -mindepth 1 -maxdepth 1 \( -name 'bookworm-*' -o -name '.build-*' \) 2>/dev/null)" ] ||
		{ echo "left behind:"; ls -a "$work/debian"; return 1; }
	! grep -qF " $work/" /proc/self/mountinfo || { echo "still mounted under $work"; return 1; }
	! pgrep -f "mmdebstrap.*$work" >/dev/null || { echo "mmdebstrap still runs"; return 1; }
}

# The archive answers nothing: apt is sent through a proxy that refuses.
no_archive() {
	http_proxy=http://127.0.0.1:1 https_proxy=http://127.0.0.1:1 "$@"
}

@test "made from a process whose fds 3 to 11 are open (bats, bisect-tests/run), the image holds systemd, udev, initramfs-tools, e2fsprogs and kmod, and nothing that needs a network" {
	local dir pkg tool
	dir=$(image_dir)
	for pkg in systemd systemd-sysv udev initramfs-tools e2fsprogs kmod; do
		grep -q "^$pkg " "$dir/manifest" || { echo "no $pkg"; return 1; }
		[ "$(dpkg-query --admindir="$dir/root/var/lib/dpkg" -W -f='${db:Status-Abbrev}' "$pkg")" = "ii " ]
	done
	[ "$(readlink "$dir/root/sbin/init")" = /lib/systemd/systemd ]
	for tool in mkinitramfs modprobe blkid; do
		[ -x "$dir/root/usr/sbin/$tool" ]
	done
	# dracut-core, for the dracut machine, beside initramfs-tools.
	[ -x "$dir/root/usr/bin/dracut" ]
	# Nothing that configures, waits for or uses a network, installed or enabled.
	run grep -E '^(apt|ifupdown|isc-dhcp-client|dhcpcd5?|network-manager|connman|netplan.io|systemd-resolved|systemd-timesyncd|openssh-server|wpasupplicant) ' "$dir/manifest"
	echo "$output"
	[ "$status" -eq 1 ]
	run systemctl --root="$dir/root" list-unit-files --state=enabled --no-legend
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	local enabled=$output
	run grep -iE 'network|resolve|timesync|dhcp|ssh|wpa|wait-online|apt-daily' <<<"$enabled"
	echo "$output"
	[ "$status" -eq 1 ]
	[ ! -e "$dir/root/etc/resolv.conf" ]
	# The ext4 image is that tree, clean, with the root's UUID.
	e2fsck -fn "$dir/root.ext4" >/dev/null
	[ "$(blkid -o value -s TYPE "$dir/root.ext4")" = ext4 ]
	grep -qx "UUID=$(blkid -o value -s UUID "$dir/root.ext4") / ext4 errors=remount-ro 0 1" "$dir/root/etc/fstab"
	debugfs -R 'stat /usr/sbin/mkinitramfs' "$dir/root.ext4" 2>/dev/null | grep -q 'Type: regular'
	printf '# %s: %s packages, tree %s, ext4 %s allocated of %s\n' "${dir##*/}" "$(wc -l <"$dir/manifest")" \
		"$(du -sh "$dir/root" | cut -f1)" "$(du -h "$dir/root.ext4" | cut -f1)" \
		"$(du -h --apparent-size "$dir/root.ext4" | cut -f1)" >&3
}

@test "no archive is written in the repository: the image's sources are the host's" {
	local dir uri suite
	run grep -rnE '(https?|ftp)://' "$REPO/bisect-tests/debian" "$REPO/bisect-tests/lib/debian-image.sh"
	echo "$output"
	[ "$status" -eq 1 ]
	dir=$(image_dir)
	# Every archive the build used is one the host's apt sources name.
	while read -r _ uri suite _; do
		# shellcheck disable=SC2016 # apt's fields
		apt-get indextargets --format '$(REPO_URI) $(RELEASE)' | grep -qxF "$uri $suite"
	done <"$(dirname "$dir")/apt/sources.list"
}

@test "a second call reuses the cached image: no mmdebstrap, no download, a few seconds" {
	local dir again log_before start seconds
	dir=$(image_dir)
	log_before=$(stat -c %Y.%i "$dir" "$KBRANCH_WORK/logs/debian-image.log")
	start=$SECONDS
	# With the archive unreachable: a cache hit must not need it.
	again=$(no_archive image_dir)
	seconds=$((SECONDS - start))
	echo "# cached: $seconds s" >&3
	[ "$again" = "$dir" ]
	[ "$(stat -c %Y.%i "$dir" "$KBRANCH_WORK/logs/debian-image.log")" = "$log_before" ]
	[ "$seconds" -le 10 ]
}

# acl: the package the --packages test below adds.  A list ending with it
# resolves as the list and --packages acl do, so that test finds this
# image made (one mmdebstrap fewer); alone, it makes it.
@test "the key: a comment changed in the list reuses the image; a package added makes another beside it" {
	local dir bt same other
	dir=$(image_dir)
	bt=$(bt_copy)
	sed -i 's/^kmod  *#.*/kmod  # a comment changed, nothing else/' "$bt/debian/packages"
	same=$(image_dir "$bt/debian/make-image")
	[ "$same" = "$dir" ]
	echo 'acl  # a package the list did not have' >>"$bt/debian/packages"
	other=$(image_dir "$bt/debian/make-image")
	[ "$other" != "$dir" ]
	[ -d "$dir/root" ]
	grep -q '^acl ' "$other/manifest"
	run grep -q '^acl ' "$dir/manifest"
	[ "$status" -eq 1 ]
}

@test "a package the archive does not have is a setup error (128) in one line, and no image" {
	local bt work
	bt=$(bt_copy)
	work=$(fresh_work)
	echo 'no-such-package-kbranch  # not in Debian' >>"$bt/debian/packages"
	KBRANCH_WORK=$work must_fail_with_one_line "$bt/debian/make-image"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"bisect-tests: debian image: "*"Unable to locate package no-such-package-kbranch"* ]]
	nothing_left "$work"
}

# A tester's --packages (kbranch bisect --guest debian): the image the
# reproducer's machine boots has them, beside the list's own image.
@test "make-image --packages acl: an image of its own beside the list's, with setfacl in it; the list's image is the same" {
	local dir other
	dir=$(image_dir)
	other=$(image_dir "$MAKE_IMAGE" --packages acl)
	[ "$other" != "$dir" ]
	grep -q '^acl ' "$other/manifest"
	[ -x "$other/root/usr/bin/setfacl" ]
	run grep -q '^acl ' "$dir/manifest"
	[ "$status" -eq 1 ]
	[ "$(image_dir)" = "$dir" ]
	rm -rf "$other"
}

@test "a tester's --packages the archive does not have: one line and 128 from the input checks, before anything is built" {
	local work
	work=$(fresh_work)
	printf 'CONFIG_EXT4_FS=y\n' >"$BATS_TEST_TMPDIR/tester.config"
	KBRANCH_WORK=$work must_fail_with_one_line "$REPO/bisect-tests/run" --check-options --guest debian \
		--config "$BATS_TEST_TMPDIR/tester.config" --packages acl,no-such-package-kbranch
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"debian image: apt cannot install the package list: E: Unable to locate package no-such-package-kbranch"* ]]
	nothing_left "$work"
	KBRANCH_WORK=$work run --separate-stderr "$REPO/bisect-tests/run" --check-options --guest debian \
		--config "$BATS_TEST_TMPDIR/tester.config" --packages acl,xfsprogs
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
}

@test "an archive that does not answer is a setup error (128) in one line, and no half image" {
	local work
	work=$(fresh_work)
	KBRANCH_WORK=$work no_archive must_fail_with_one_line "$MAKE_IMAGE"
	[ "$status" -eq 128 ]
	[[ "$stderr" == *"bisect-tests: debian image: mmdebstrap failed: "*"127.0.0.1:1"* ]]
	nothing_left "$work"
}

@test "a full disk is a setup error (128) in one line, and nothing is left on it" {
	local dir tree_mb times
	dir=$(image_dir)
	tree_mb=$(du -sm "$dir/root" | cut -f1)
	# Room for the tree alone fills the disk while mmdebstrap unpacks;
	# twice that, while dpkg installs in the chroot (or in mke2fs).
	for times in 1 2; do
		mkdir -p "$SMALL"
		mount -t tmpfs -o size="$((tree_mb * times))m" tmpfs "$SMALL"
		KBRANCH_WORK=$SMALL/work must_fail_with_one_line "$MAKE_IMAGE"
		echo "# $((tree_mb * times)) MB: $(tail -n 1 <<<"$stderr")" >&3
		[ "$status" -eq 128 ]
		[[ "$stderr" == *"bisect-tests: debian image: no space left in $SMALL/work during "* ]]
		nothing_left "$SMALL/work"
		umount "$SMALL"
	done
}

@test "an interrupted build is a setup error (128) in one line, stops at once and leaves nothing" {
	local work pid n start
	work=$(fresh_work)
	KBRANCH_WORK=$work "$MAKE_IMAGE" 2>"$work.err" &
	pid=$!
	# Into mmdebstrap's download and unpacking: the tree has begun.
	for ((n = 0; n < 120; n++)); do
		compgen -G "$work/debian/.build-*/root/usr" >/dev/null && break
		sleep 0.5
	done
	compgen -G "$work/debian/.build-*/root/usr" >/dev/null
	start=$SECONDS
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	echo "# stopped in $((SECONDS - start)) s" >&3
	[ "$status" -eq 128 ]
	[ "$(grep -vcE '^\[ *[0-9]+s\] ' "$work.err")" -eq 1 ]
	grep -qx 'bisect-tests: debian image: interrupted; nothing kept' "$work.err"
	[ $((SECONDS - start)) -le 10 ]
	nothing_left "$work"
}

@test "an image whose installed versions differ from those resolved is refused, with the package" {
	local dir resolved
	dir=$(image_dir)
	# shellcheck source=bisect-tests/lib/common.sh
	source "$REPO/bisect-tests/lib/common.sh"
	# shellcheck source=bisect-tests/lib/debian-image.sh
	source "$REPO/bisect-tests/lib/debian-image.sh"
	resolved=$(sed 's/^\(kmod \).*/\11:0-not-this/' "$dir/manifest")
	run --separate-stderr debian_verify "$dir/root" "$resolved" "$BATS_TEST_TMPDIR/manifest"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"installed versions differ from those resolved: "*"kmod 1:0-not-this"* ]]
	run debian_verify "$dir/root" "$(cat "$dir/manifest")" "$BATS_TEST_TMPDIR/manifest"
	[ "$status" -eq 0 ]
}

@test "a version the archive no longer has (host lists older than the archive) says to update them" {
	# shellcheck source=bisect-tests/lib/common.sh
	source "$REPO/bisect-tests/lib/common.sh"
	# shellcheck source=bisect-tests/lib/debian-image.sh
	source "$REPO/bisect-tests/lib/debian-image.sh"
	image_dir >/dev/null
	DEBIAN_APT=$KBRANCH_WORK/debian/apt
	DEBIAN_LOG=$BATS_TEST_TMPDIR/debian-image.log
	# apt's own line for a pin it cannot meet, as mmdebstrap's log holds it.
	run debian_apt -s install kmod=0-gone
	[ "$status" -ne 0 ]
	printf '%s\n' "$output" 'E: mmdebstrap failed to run' >"$DEBIAN_LOG"
	[ "$(debian_log_reason)" = "E: Version '0-gone' for 'kmod' was not found; the host's apt lists are older than the archive: apt-get update" ]
}
