# shellcheck shell=bash
# Install what kbranch needs from Debian's archive when it is missing.

# package:command pairs; a package is installed when its command is absent.
KB_DEPS=(
	git:git
	xz-utils:xz
	linux-source:/usr/src/linux-source-*.tar.xz
	b4:b4
	qemu-system-x86:qemu-system-x86_64
	e2fsprogs:mke2fs
	busybox-static:busybox
	gcc:gcc
	make:make
	flex:flex
	bison:bison
	bc:bc
	libelf-dev:/usr/include/libelf.h
	libssl-dev:/usr/include/openssl/ssl.h
	cpio:cpio
	kmod:depmod
	python3:python3
	perl:perl
	sparse:sparse
	linux-config-6.1:/usr/src/linux-config-6.1
	ccache:ccache
	distcc:distccd
	curl:curl
	# The Debian-machine guests: their image is made from Debian's packages.
	mmdebstrap:mmdebstrap
	# kbranch check's other architectures and its docs build.
	gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc
	gcc-powerpc64-linux-gnu:powerpc64-linux-gnu-gcc
	gcc-arm-linux-gnueabihf:arm-linux-gnueabihf-gcc
	python3-sphinx:sphinx-build
	python3-sphinx-rtd-theme:/usr/lib/python3/dist-packages/sphinx_rtd_theme
	# ktest.pl's patchcheck (kbranch bench ktest) runs diffstat after each
	# commit's build; without it ktest.pl dies after the first build.
	diffstat:diffstat
)

# "present" or "missing": a lookup, not a test, so that no caller calls it
# in a condition, where set -e would not hold.
dep_state() {
	local probe=$1 found
	case "$probe" in
	/*) found=$(compgen -G "$probe" || true) ;;
	*) found=$(command -v "$probe" 2>/dev/null || true) ;;
	esac
	if [ -n "$found" ]; then echo present; else echo missing; fi
}

ensure_deps() {
	local entry missing=() state
	for entry in "${KB_DEPS[@]}"; do
		state=$(dep_state "${entry#*:}")
		[ "$state" = present ] || missing+=("${entry%%:*}")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); install them as root"
	step "installing with apt-get: ${missing[*]}"
	# apt-get itself, not a function, is what fails in the condition.
	mkdir -p "$KBRANCH_WORK/logs"
	apt-get update -q >>"$KBRANCH_WORK/logs/apt.log" 2>&1 ||
		die "apt-get update failed (log: $KBRANCH_WORK/logs/apt.log)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >>"$KBRANCH_WORK/logs/apt.log" 2>&1 ||
		die "apt-get install failed (log: $KBRANCH_WORK/logs/apt.log)"
}

# The linux-source tarball and the version of the package that installed it.
source_tarball() {
	local tars=(/usr/src/linux-source-*.tar.xz)
	[ -f "${tars[0]}" ] || die "no /usr/src/linux-source-*.tar.xz; install the linux-source package"
	[ "${#tars[@]}" -eq 1 ] || die "several linux-source tarballs in /usr/src (${tars[*]}); pick one with 'kbranch import --source FILE'"
	printf '%s\n' "${tars[0]}"
}

package_version() {
	local pkg
	pkg=$(dpkg -S "$1" | cut -d: -f1) || die "no package owns $1"
	dpkg-query -W -f='${Version}' "$pkg"
}
