# shellcheck shell=bash
# Kconfig without make, for the Kconfig-only checks (kbranch defconfigs,
# the carried configs).  make spends 3.5 of its 6 s per config on itself,
# and conf most of the rest parsing Kconfig and running its toolchain
# probes, the same for every config of an ARCH.  So make runs once per
# ARCH, with a wrapper in conf's place that records conf's environment;
# then kconfig-batch (kconfig-batch.c: the tree's own conf.c, driven for
# many configs) makes any number of configs from one parse, in that
# environment.  Each ARCH's first config is made both ways, to compare.

# Keyed by the compiler and linker Kconfig probes, and the top Makefile:
# KERNELVERSION and the rest of what make exports to conf come from it.
kconfig_dir() {
	local makefile
	makefile=$(kgit rev-parse HEAD:Makefile)
	if [ "${KCONFIG_MAKEFILE:-}" != "$makefile" ]; then
		KCONFIG_MAKEFILE=$makefile
		KCONFIG_KEY=$({ kconfig_tools; echo "$makefile"; } | sha256sum | cut -c1-12)
	fi
	printf '%s/kconfig/%s\n' "$KBRANCH_WORK" "$KCONFIG_KEY"
}

# The compiler and linker that Kconfig's probes ask, as a short hash.
kconfig_tools() {
	{ gcc --version | sed -n 1p; ld --version | sed -n 1p; } | sha256sum | cut -c1-12
}

# A KEY is an ARCH, or um.SUBARCH: um's Kconfig reads SUBARCH.
kconfig_make_args() {
	printf 'ARCH=%s\n' "${1%%.*}"
	[[ "$1" != *.* ]] || printf 'SUBARCH=%s\n' "${1#*.}"
}

# Each user (KCONFIG_USE: kbranch defconfigs, or the carried configs) has
# its own, made at the tree it first needed it at.
kconfig_arch_dir() {
	printf '%s/%s/%s\n' "$(kconfig_dir)" "${KCONFIG_USE:-carry}" "$1"
}

kconfig_batch_bin() {
	printf '%s/kconfig/scripts/kconfig/kconfig-batch\n' "$(kconfig_dir)"
}

# Build conf in a dir of its own, with the wrapper in its place, and
# kconfig-batch from the same objects.
kconfig_build() {
	local dir log bin
	dir=$(kconfig_dir)/kconfig
	bin=$(kconfig_batch_bin)
	log=$(kconfig_dir)/kconfig.log
	# kconfig-batch reads its paths as words.
	[[ "$KTREE$KBRANCH_WORK" != *[[:space:]]* ]] ||
		die "the Kconfig-only checks need a work dir path without spaces: $KBRANCH_WORK"
	mkdir -p "$(kconfig_dir)"
	if [ ! -x "$dir/scripts/kconfig/conf.real" ]; then
		make -C "$KTREE" O="$dir" ARCH=x86_64 x86_64_defconfig >"$log" 2>&1 ||
			die "cannot build scripts/kconfig/conf (log: $log)"
		mv "$dir/scripts/kconfig/conf" "$dir/scripts/kconfig/conf.real"
		# make keeps running "conf": it records its environment, then is conf.
		# shellcheck disable=SC2016 # expanded by the wrapper
		printf '%s\n' '#!/bin/sh' 'env -0 >conf.env' 'exec "$(dirname "$0")/conf.real" "$@"' \
			>"$dir/scripts/kconfig/conf"
		chmod +x "$dir/scripts/kconfig/conf"
		touch -r "$dir/scripts/kconfig/conf.real" "$dir/scripts/kconfig/conf"
	fi
	[ ! "$bin" -nt "$KB_REPO/branch-scripts/libexec/kconfig-batch.c" ] || return 0
	gcc -O2 -Wall -I"$KTREE/scripts/kconfig" -I"$dir/scripts/kconfig" -o "$bin" \
		"$KB_REPO/branch-scripts/libexec/kconfig-batch.c" \
		"$dir"/scripts/kconfig/{confdata,expr,lexer.lex,menu,parser.tab,preprocess,symbol,util}.o >>"$log" 2>&1 ||
		die "cannot build kconfig-batch (log: $log)"
}

# make defconfig $2 (a path in the tree) for KEY $1 once, at the
# checked-out tree: conf's environment is kept for kconfig-batch, and
# kconfig-batch must then make what make made (make.config), or the
# environment is off.
kconfig_env() {
	local key=$1 path=$2 target=${2#arch/*/configs/} dir args lock rc
	dir=$(kconfig_arch_dir "$key")
	[ -s "$dir/conf.env" ] && return 0
	mkdir -p "$(dirname "$dir")"
	# One maker at a time; one that waited finds it made.
	exec {lock}>"$dir.lock"
	flock "$lock"
	if [ -s "$dir/conf.env" ]; then
		exec {lock}>&-
		return 0
	fi
	kconfig_build
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -a "$(kconfig_dir)/kconfig" "$dir"
	rm -f "$dir/conf.env"
	mapfile -t args < <(kconfig_make_args "$key")
	if ! make -C "$KTREE" O="$dir" "${args[@]}" "$target" >"$dir.log" 2>&1 || [ ! -s "$dir/conf.env" ]; then
		rm -f "$dir/conf.env"
		die "make ${args[*]} $target failed (log: $dir.log)"
	fi
	cp "$dir/.config" "$dir/make.config"
	# kconfig_batch as a job of its own, whose status is read: set -e
	# holds in it.
	rc=$(printf 'defconfig %s %s\n' "$KTREE/$path" "$dir/batch.config" | exit_status_of /dev/null kconfig_batch "$key" "$dir.log")
	if [ "$rc" != 0 ] || ! cmp -s "$dir/make.config" "$dir/batch.config"; then
		rm -f "$dir/conf.env"
		die "kconfig-batch does not make what make made of $path (${args[*]}); see $dir"
	fi
	exec {lock}>&-
}

# kconfig-batch for KEY $1, log $2, at the checked-out tree or at source
# tree $3 (a tree of Kconfig files and scripts/, which Kconfig's probes run:
# the Kconfig of another commit, with this tree's conf environment): reads
# "MODE IN OUT [SEED]" lines (the modes kconfig-batch.c says).  Each OUT
# appears only once conf has written it whole, so a killed run leaves none
# that looks done.
kconfig_batch() {
	local key=$1 log=$2 srctree=${3:-$KTREE} dir envv mode in out seed rc=0 finished bin
	dir=$(kconfig_arch_dir "$key")
	bin=$(kconfig_batch_bin)
	mapfile -d '' envv <"$dir/conf.env"
	[ "$srctree" = "$KTREE" ] || kconfig_env_srctree "$srctree"
	# Batches may run at once (kbranch verify's points): a list of its own.
	finished=$(mktemp "$log.done.XXXXXX")
	while read -r mode in out seed; do
		rm -f "$out.new"
		printf '%s %s %s %s\n' "$mode" "$in" "$out.new" "$seed"
	done | (cd "$dir" && env -i "${envv[@]}" "$bin" "$srctree/Kconfig") 2>>"$log" >"$finished" || rc=$?
	while read -r out; do
		mv "$out" "${out%.new}"
	done <"$finished"
	rm -f "$finished"
	return "$rc"
}

# In kconfig_batch's environment envv, the source tree is $1: where
# Kconfig's "source" lines and probes ($(srctree)/scripts/...) look.
kconfig_env_srctree() {
	local i
	for i in "${!envv[@]}"; do
		case ${envv[i]} in
		srctree=* | abs_srctree=* | VPATH=*) envv[i]=${envv[i]%%=*}=$1 ;;
		esac
	done
}
