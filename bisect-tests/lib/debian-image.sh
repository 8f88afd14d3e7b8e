# shellcheck shell=bash
# The Debian 12 guest image: made on this machine by mmdebstrap
# from the Debian 12 archives that the host's own apt sources name (no
# mirror is written here), with the packages of debian/packages, their
# dependencies and Debian's Essential set, at the versions the host's apt
# lists offer.  Kept in $KBRANCH_WORK/debian/<suite>-<key>/:
#
#   root/       the root tree, for a per-commit copy and chroot
#   root.ext4   the same tree as an ext4 image (mke2fs -d, no loop mount)
#   manifest    "package version", every package installed (dpkg's status)
#   key         what the key is made of
#
# The key hashes the package list, every version apt resolves for it and
# the recipe (the functions below that shape the image, without their
# comments).  Resolving reads the host's apt lists and downloads nothing,
# so a cache hit works offline; the build pins those versions, so the
# image is exactly what its key says.  Updating the host's lists
# (apt-get update) brings a new key only when a version changed.
#
# A build goes into a temporary directory beside the cache and is renamed
# into place at the end; a failed or interrupted one is removed whole and
# is a setup error (128) with one line.  Needs common.sh.

DEBIAN_SUITE=bookworm
DEBIAN_LIST=$BT_DIR/debian/packages
DEBIAN_LOG=$KBRANCH_WORK/logs/debian-image.log
# Sparse: it costs what the tree holds, and leaves room for a kernel's
# modules and initramfs.
DEBIAN_IMAGE_SIZE=2G
# Packages on top of the list, one a line (a tester's --packages,
# lib/tester.sh): part of the list, so of the key, and of an image of
# their own.
DEBIAN_EXTRA=''
# Fixed, so the boot loader's root=UUID=... is known before the image is.
DEBIAN_ROOT_UUID=6b3e0f3a-28a1-4c1e-9d2b-0e4d5e7a1c28
# A machine id of its own: an empty one would make systemd treat every
# boot as the first and prompt on the console (systemd-firstboot).
DEBIAN_MACHINE_ID=4b6272616e63682d64656269616e3132

# To the stderr the build started with: a trap may run while a step's
# output goes to the log.
debian_die() {
	die_setup "debian image: $*" 2>&"${DEBIAN_STDERR:-2}"
}

debian_cache() {
	printf '%s/debian\n' "$KBRANCH_WORK"
}

# Sets DEBIAN_NAMES: the package names of the list, one a line (a line is
# a name, then optionally a comment).  Set, not printed: its one-line
# errors end the program, which in a command substitution they would not.
debian_package_names() {
	local name rest n=0
	DEBIAN_NAMES=''
	[ -r "$DEBIAN_LIST" ] || debian_die "cannot read the package list $DEBIAN_LIST"
	while read -r name rest; do
		n=$((n + 1))
		[[ -z "$name" || "$name" == \#* ]] && continue
		[[ -z "$rest" || "$rest" == \#* ]] ||
			debian_die "$DEBIAN_LIST line $n: one package a line, then a comment"
		DEBIAN_NAMES+=$name$'\n'
	done <"$DEBIAN_LIST"
	DEBIAN_NAMES=${DEBIAN_NAMES%$'\n'}
}

# The host's Debian 12 archives, as one-line sources: apt-get indextargets
# reads the host's sources.list(.d) and the Release files apt fetched for
# them, so only archives whose Release says Origin Debian and a bookworm
# codename (bookworm, -updates, -security) are taken.
# Nothing when apt-get cannot list them: the caller says so, a setup error
# (under set -e the failing pipeline would end the program with apt's status).
debian_host_sources() {
	local targets
	# shellcheck disable=SC2016 # $(...) are apt's fields, not the shell's
	targets=$(apt-get indextargets --format '$(TARGET_OF) $(ORIGIN) $(CODENAME) $(TRUSTED) $(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Identifier: Packages') || targets=''
	awk -v suite="$DEBIAN_SUITE" '
			$1 == "deb" && $2 == "Debian" && $4 == "yes" &&
			($3 == suite || index($3, suite "-") == 1) {
				key = $5 " " $6
				if (!(key in comps)) order[n++] = key
				if (index(" " comps[key] " ", " " $7 " ") == 0) comps[key] = comps[key] " " $7
			}
			END { for (i = 0; i < n; i++) print "deb " order[i] comps[order[i]] }' <<<"$targets"
}

# A private apt setup for resolving: the host's lists for the Debian
# archives only, nothing installed, no host pinning, no Recommends (as
# mmdebstrap installs).  Its binary cache is kept, even where the host's
# apt config turns it off (Docker's docker-clean does), to spare the next
# run 2 s of parsing.
debian_apt_setup() {
	local sources
	DEBIAN_APT=$(debian_cache)/apt
	mkdir -p "$DEBIAN_APT/empty" "$DEBIAN_APT/cache" 2>/dev/null ||
		debian_die "cannot write in $(debian_cache)"
	sources=$(debian_host_sources)
	[ -n "$sources" ] ||
		debian_die "the host's apt sources name no Debian $DEBIAN_SUITE archive with lists (apt-get update?)"
	printf '%s\n' "$sources" >"$DEBIAN_APT/sources.list.new" ||
		debian_die "cannot write in $(debian_cache)"
	# Rewritten only when changed: a newer file makes apt rebuild its cache.
	if cmp -s "$DEBIAN_APT/sources.list.new" "$DEBIAN_APT/sources.list"; then
		rm -f "$DEBIAN_APT/sources.list.new"
	else
		mv "$DEBIAN_APT/sources.list.new" "$DEBIAN_APT/sources.list"
	fi
	[ -e "$DEBIAN_APT/status" ] || : >"$DEBIAN_APT/status"
}

# apt-get's options for that setup, one a line: debian_resolve runs
# apt-get itself, to read its status directly.
debian_apt_options() {
	local arch
	# Read by mapfile from a process substitution, whose status nobody
	# reads: an empty architecture, as before, not half the options.
	arch=$(dpkg --print-architecture) || arch=''
	printf '%s\n' -q -o Debug::NoLocking=1 -o APT::Architecture="$arch" -o APT::Architectures="$arch" \
		-o Dir::Etc::sourcelist="$DEBIAN_APT/sources.list" -o Dir::Etc::sourceparts="$DEBIAN_APT/empty" \
		-o Dir::Etc::preferences="$DEBIAN_APT/empty/none" -o Dir::Etc::preferencesparts="$DEBIAN_APT/empty" \
		-o Dir::State::status="$DEBIAN_APT/status" -o Dir::Cache="$DEBIAN_APT/cache" \
		-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache= \
		-o APT::Install-Recommends=false
}

debian_apt() {
	local options=()
	mapfile -t options < <(debian_apt_options)
	apt-get "${options[@]}" "$@"
}

# "package version" for everything the image will hold, sorted: the
# Essential set and the list, with their dependencies.  Not apt, which
# libapt counts as essential: its daily timers would reach for the
# network at boot, and the guest never installs anything.  Sets
# DEBIAN_RESOLVED, as debian_package_names sets its names.
debian_resolve() {
	local out options=()
	mapfile -t options < <(debian_apt_options)
	out=$(apt-get "${options[@]}" -s install '?and(?essential,?not(?exact-name(apt)))' "$@" 2>&1) ||
		debian_die "apt cannot install the package list: $(grep -m1 '^E: ' <<<"$out" || echo "$out" | tail -n 1)"
	DEBIAN_RESOLVED=$(awk '$1 == "Inst" { sub(/^\(/, "", $3); print $2, $3 }' <<<"$out" | sort)
}

# The key: what makes the image, the recipe with its comments left out.
debian_key() {
	local names=$1 resolved=$2
	{
		printf 'suite %s arch %s size %s uuid %s machine-id %s\n' "$DEBIAN_SUITE" \
			"$(dpkg --print-architecture)" "$DEBIAN_IMAGE_SIZE" "$DEBIAN_ROOT_UUID" "$DEBIAN_MACHINE_ID"
		printf 'list: %s\n' "$names"
		printf '%s\n' "$resolved"
		declare -f debian_resolve debian_mmdebstrap debian_customize debian_make_ext4
		mmdebstrap --version 2>&1
		mke2fs -V 2>&1
	}
}

debian_image_path() {
	local key=$1
	printf '%s/%s-%s\n' "$(debian_cache)" "$DEBIAN_SUITE" "$(sha256sum <<<"$key" | cut -c1-16)"
}

# A directory is only ever renamed into place whole, with its manifest:
# yes or no.
debian_image_ready() {
	if [ -f "$1/manifest" ] && [ -f "$1/root.ext4" ] && [ -d "$1/root" ]; then
		echo yes
	else
		echo no
	fi
}

# --- the build ---------------------------------------------------------

# mmdebstrap hands apt a pipe as "cat >&N", which dash reads as one digit:
# started from a process whose fds 3 to 9 are taken (bats, bisect-tests'
# lock and its copy of stderr), N is 10 or more and apt stops with "Bad fd
# number".  Close every fd but 0, 1 and 2 in the shell that starts it.
debian_only_std_fds() {
	local fd
	for fd in /proc/"$BASHPID"/fd/*; do
		fd=${fd##*/}
		[ "$fd" -le 2 ] || eval "exec $fd>&-"
	done
}

# Every pinned version, so mmdebstrap installs exactly what was resolved;
# the custom variant adds nothing of its own.  mmdebstrap fetches its own
# indexes from the same archives: a version the archive has dropped since
# the host's lists were fetched fails here, never installs another one.
# It runs in the background so that a signal reaches our trap at once,
# in a process group of its own so that the trap can stop its apt and
# dpkg too: told alone, mmdebstrap finishes its current stage first.
debian_mmdebstrap() {
	local root=$1 resolved=$2 include
	include=$(awk '{ printf "%s%s=%s", (NR > 1 ? "," : ""), $1, $2 }' <<<"$resolved")
	(
		debian_only_std_fds
		exec setsid mmdebstrap --mode=root --variant=custom --format=directory --include="$include" \
			"$DEBIAN_SUITE" "$root" "$DEBIAN_APT/sources.list"
	) &
	DEBIAN_CHILD=$!
	local status=0
	wait "$DEBIAN_CHILD" || status=$?
	DEBIAN_CHILD=
	return "$status"
}

# What every guest shares; what differs per machine (fstab entries of a
# scenario, /etc/modules) is written into each commit's copy.  No network:
# the host's resolv.conf that mmdebstrap copied in goes, and nothing that
# would use one is installed.  (Chained: debian_try tests the status, and
# set -e does not stop a tested function.)
debian_customize() {
	local root=$1
	printf 'kbranch-guest\n' >"$root/etc/hostname" &&
		printf '%s\n' "$DEBIAN_MACHINE_ID" >"$root/etc/machine-id" &&
		printf 'UUID=%s / ext4 errors=remount-ro 0 1\n' "$DEBIAN_ROOT_UUID" >"$root/etc/fstab" &&
		rm -f "$root/etc/resolv.conf"
}

debian_make_ext4() {
	local root=$1 image=$2
	mke2fs -q -F -t ext4 -L debian-root -U "$DEBIAN_ROOT_UUID" -d "$root" "$image" "$DEBIAN_IMAGE_SIZE"
}

# The image's own record of what it holds in the manifest, every package
# fully installed, and the versions those resolved.
debian_verify() {
	local root=$1 resolved=$2 manifest=$3 extra
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}${Package} ${Version}\n' |
		awk '$1 != "ii" { print "not installed: " $0 > "/dev/stderr"; bad = 1 } { print $2, $3 } END { exit bad }' |
		sort >"$manifest" || return 1
	extra=$(diff <(printf '%s\n' "$resolved") "$manifest" | awk '/^[<>] / && n++ < 3 { print substr($0, 3) }' | paste -sd ' ')
	[ -z "$extra" ] || { echo "installed versions differ from those resolved: $extra" >&2; return 1; }
}

# Run one step of the build with its output in the log; a failure is one
# line: a full disk as such, else the step and the log's telling line.
debian_try() {
	local what=$1 full
	shift
	# Not a job: debian_mmdebstrap leaves its child's pid for the trap.
	# debian_build made the log's directory.
	"$@" >>"$DEBIAN_LOG" 2>&1 && return 0
	full=$(debian_disk_full)
	[ "$full" = no ] || debian_die "no space left in $KBRANCH_WORK during $what (a build needs about 600 MB; log: $DEBIAN_LOG)"
	debian_die "$what failed: $(debian_log_reason) (log: $DEBIAN_LOG)"
}

# ENOSPC from a tool, or apt's own check before it downloads: yes or no.
debian_disk_full() {
	local avail
	if grep -qE "No space left on device|You don't have enough free space" "$DEBIAN_LOG" 2>/dev/null; then
		echo yes
		return 0
	fi
	# No answer from df counts as full, as it did before set -e held here.
	avail=$(df -Pk "$KBRANCH_WORK" | awk 'NR == 2 { print $4 }') || avail=''
	if [ "${avail:-0}" -lt 16384 ]; then echo yes; else echo no; fi
}

# apt's own error (a failed fetch, a version the archive lacks) says more
# than mmdebstrap's summaries of it ("E: apt-get ... failed").  A pinned
# version the archive no longer has means the host's lists are older
# than the archive.
debian_log_reason() {
	local line
	line=$(grep -E '^E: ' "$DEBIAN_LOG" | grep -vE '^E: (apt-get .* failed|apt download failed|mmdebstrap failed|Some index files failed)' | sed -n 1p ||
		grep -m1 '^E: ' "$DEBIAN_LOG" || tail -n 1 "$DEBIAN_LOG")
	line=${line:0:300}
	case "$line" in
	"E: Version '"*"' was not found"*) line="$line; the host's apt lists are older than the archive: apt-get update" ;;
	esac
	printf '%s\n' "$line"
}

# Remove a build that did not finish: stop mmdebstrap (it unmounts what it
# mounted in the tree), unmount anything left, and never cross into a
# filesystem still mounted there.
debian_discard() {
	local dir=$1 mnt
	if [ -n "${DEBIAN_CHILD:-}" ] && kill -0 "$DEBIAN_CHILD" 2>/dev/null; then
		kill -TERM -- "-$DEBIAN_CHILD" 2>/dev/null || true
		wait "$DEBIAN_CHILD" 2>/dev/null || true # its status is the signal's: already being reported
	fi
	[ -d "$dir" ] || return 0
	awk -v d="$dir/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done # best effort: rm stays on its filesystem
	rm -rf --one-file-system "$dir"
}

# Builds left by a process killed outright (SIGKILL, a power cut); only
# called with the build lock held, so none of them is running.
debian_discard_stale() {
	local dir
	for dir in "$(debian_cache)"/.build-*; do
		[ -d "$dir" ] && debian_discard "$dir"
	done
	return 0
}

debian_build() {
	local dest=$1 resolved=$2 tmp start=$SECONDS
	tmp=$(debian_cache)/.build-$$
	DEBIAN_TMP=$tmp
	exec {DEBIAN_STDERR}>&2
	trap 'debian_discard "$DEBIAN_TMP"' EXIT
	trap 'debian_die "interrupted; nothing kept"' INT TERM HUP
	mkdir -p "$tmp" "$(dirname "$DEBIAN_LOG")" 2>/dev/null || debian_die "cannot write in $(debian_cache)"
	: >"$DEBIAN_LOG"
	step "debian image: mmdebstrap $DEBIAN_SUITE, $(wc -l <<<"$resolved") packages (log: $DEBIAN_LOG)"
	debian_try "mmdebstrap" debian_mmdebstrap "$tmp/root" "$resolved"
	debian_try "setting up the image" debian_customize "$tmp/root"
	debian_try "checking the installed packages" debian_verify "$tmp/root" "$resolved" "$tmp/manifest"
	step "debian image: mke2fs -d ($DEBIAN_IMAGE_SIZE, sparse)"
	debian_try "mke2fs" debian_make_ext4 "$tmp/root" "$tmp/root.ext4"
	debian_try "writing the key" debian_write_key "$tmp" "$((SECONDS - start))"
	mv -T "$tmp" "$dest" 2>/dev/null || debian_die "cannot rename $tmp to $dest"
	trap - EXIT INT TERM HUP
	step "debian image: made in $((SECONDS - start)) s: $dest"
}

debian_write_key() {
	local dir=$1 seconds=$2
	printf '%s\n' "$DEBIAN_KEY" >"$dir/key" &&
		printf '%s\n' "$seconds" >"$dir/build-seconds" &&
		cp "$DEBIAN_LOG" "$dir/build.log"
}

# One image build at a time per work dir: a second waits, then finds the
# first one's image in the cache.  mmdebstrap inherits the lock, so a
# build whose front was killed outright still holds it until it ends.
debian_lock() {
	local cache
	cache=$(debian_cache)
	# The braces keep 2>/dev/null to the exec: alone, it would apply to
	# the whole shell, and every later message would be lost.
	{ exec {DEBIAN_LOCK_FD}>"$cache/lock"; } 2>/dev/null || debian_die "cannot write in $cache"
	flock -n "$DEBIAN_LOCK_FD" && return 0
	step "debian image: waiting for another build in $cache"
	flock "$DEBIAN_LOCK_FD"
}

debian_image_tools_check() {
	[ "$(id -u)" -eq 0 ] || debian_die "needs root (mmdebstrap's root mode, chroot)"
	command -v mmdebstrap >/dev/null || debian_die "mmdebstrap is missing (apt-get install mmdebstrap)"
	command -v mke2fs >/dev/null || debian_die "mke2fs is missing (apt-get install e2fsprogs)"
}

# Sets DEBIAN_EXTRA from $1, Debian package names separated by commas
# (a tester's --packages), and resolves the list with them (below): one
# line and 128 for a name that is no package name or that apt cannot find.
debian_extra_packages() {
	local given=$1 name names=()
	# The comma added keeps an empty last name ("acl,"), which read drops.
	IFS=, read -r -a names <<<"$given,"
	for name in "${names[@]}"; do
		# Debian policy's package name: lower case, digits, + - . ; two or more.
		[[ "$name" =~ ^[a-z0-9][a-z0-9+.-]+$ ]] ||
			die_setup "--packages '$given': '$name' is not a Debian package name (comma-separated, as acl,xfsprogs)"
	done
	DEBIAN_EXTRA=$(printf '%s\n' "${names[@]}")
	debian_resolve_list
}

# Sets DEBIAN_NAMES to the list's names and DEBIAN_EXTRA's, and
# DEBIAN_RESOLVED to what apt resolves for them, or dies in one line with
# apt's reason (a package the archive does not have).  Reads the host's
# apt lists only: a tester's --packages is checked so before any build.
debian_resolve_list() {
	local list=()
	debian_package_names
	[ -n "$DEBIAN_NAMES" ] || debian_die "$DEBIAN_LIST names no package"
	[ -z "$DEBIAN_EXTRA" ] || DEBIAN_NAMES+=$'\n'$DEBIAN_EXTRA
	mapfile -t list <<<"$DEBIAN_NAMES"
	debian_apt_setup
	debian_resolve "${list[@]}"
}

# Print the image's directory, made first unless the cache has it.
debian_image() {
	local names resolved dir ready
	debian_image_tools_check
	debian_resolve_list
	names=$DEBIAN_NAMES
	resolved=$DEBIAN_RESOLVED
	DEBIAN_KEY=$(debian_key "$names" "$resolved")
	dir=$(debian_image_path "$DEBIAN_KEY")
	ready=$(debian_image_ready "$dir")
	if [ "$ready" = no ]; then
		debian_lock
		# Another run may have made it while this one waited.
		ready=$(debian_image_ready "$dir")
		if [ "$ready" = no ]; then
			debian_discard_stale
			debian_build "$dir" "$resolved"
			printf '%s\n' "$dir"
			return 0
		fi
	fi
	step "debian image: cached, $(wc -l <"$dir/manifest") packages: $dir"
	printf '%s\n' "$dir"
}
