# shellcheck shell=bash
# tinyconfig + base.config + <variant>.config, merged with the tree's own
# merge_config.sh, then checked: never test a kernel quietly without ext4.

# Under kconfig=EXT4DEV the fragments' modern names become the ext4dev ones.
config_fragment() {
	local fragment=$1 kconfig
	kconfig=$(expect kconfig)
	if [ "$kconfig" = EXT4DEV ]; then
		sed -E 's/CONFIG_EXT4_FS(_POSIX_ACL|_SECURITY)?([= ]|$)/CONFIG_EXT4DEV_FS\1\2/' "$fragment"
	else
		cat "$fragment"
	fi
}

# --- A config is made once per input ----------------------------------------
# Making one costs about 7 s (three makes, each parsing every Kconfig file
# and probing the toolchain), and most runs make one that was made before:
# the same commit again, a variant's config at a commit that kbranch check
# or a carried config makes again, a commit whose Kconfig files did not
# change.  The key is a hash of what the config targets read: the input
# configs, every Kconfig file, kconfig's own source, the scripts and the
# tools that Kconfig's $(shell,...) probes (compiler, binutils, pahole,
# rustc, bindgen, gcc's plugin headers), the top Makefile (the version in
# the header).  A change to any of them makes the config again.

config_cache_dir() {
	printf '%s/config-cache\n' "$KBRANCH_WORK"
}

config_tool_versions() {
	local cc tool
	read -ra cc <<<"$BT_CC"
	printf '%s\n' "$BT_CC" "$BT_HOSTCC"
	"${cc[@]}" --version 2>&1 | sed -n 1p
	for tool in ld objcopy pahole rustc bindgen; do
		{ "$tool" --version 2>/dev/null || echo "no $tool"; } | sed -n 1p
	done
	test -e "$("${cc[@]}" -print-file-name=plugin)/include/plugin-version.h" && echo plugins || echo no-plugins
	# What make and kconfig take from the environment (KCONFIG_ALLCONFIG
	# feeds allnoconfig; the others name the tools Kconfig probes).
	env | grep -E '^(KCONFIG_[A-Z_]*|CROSS_COMPILE|LLVM|LD|AR|NM|OBJCOPY)=' | sort || true
}

# One sha256sum over the list, not xargs: xargs says "sha256sum:
# terminated by signal 13" when an interrupted run's pipeline loses its
# reader first, a line after run's own "interrupted".
config_tree_inputs() {
	local files=()
	mapfile -d '' files < <(cd "$KTREE_DIR" && find . -path ./.git -prune -o -type f \( -name 'Kconfig*' \
		-o -path './scripts/kconfig/*' -o -path './scripts/*.sh' -o -path ./Makefile -o -name tiny.config \) -print0 | sort -z)
	[ "${#files[@]}" -gt 0 ] || return 1
	(cd "$KTREE_DIR" && sha256sum "${files[@]}")
}

# The key of the config made from input files $@ at this tree.
config_key() {
	{
		config_tool_versions
		cat "$@"
		config_tree_inputs
	} | sha256sum | cut -c1-40
}

# Put the config made before under key $1 in file $2, and say so in log
# $3: prints yes, or no if there is none.  An answer printed, not a status:
# a function asked in a condition would run without set -e.
config_from_cache() {
	local file
	file=$(config_cache_dir)/$1.config
	if [ -f "$file" ] && cp "$file" "$2" && echo "made before from the same inputs: $file" >>"$3"; then
		echo yes
	else
		echo no
	fi
}

config_keep() {
	local key=$1 config=$2 dir
	dir=$(config_cache_dir)
	mkdir -p "$dir"
	cp "$config" "$dir/$key.config.tmp.$$" && mv "$dir/$key.config.tmp.$$" "$dir/$key.config"
}

# A carried variant is a tester's own .config (KBRANCH_OLDCONFIG, made at
# an earlier commit) taken through "make olddefconfig", nothing else.
# Without KBRANCH_OLDCONFIG, the config a tester of the ext4dev era had:
# its reference variant's, made at ext4dev-base (config_seed_at_base).
config_generate_old() {
	local variant=$1 bdir rdir scratch key cached old make_args=()
	bdir=$(build_dir "$variant")
	rdir=$(run_dir "$variant")
	scratch=$bdir/bisect-tests.config
	mkdir -p "$bdir" "$rdir"
	old=$KBRANCH_OLDCONFIG
	if [ -z "$old" ]; then
		old=$(config_seed_at_base "$variant")
		say "$variant: no KBRANCH_OLDCONFIG: carrying $(kernel_of "$variant")'s reference config made at ext4dev-base ($old)"
	fi
	[ -f "$old" ] || die_setup "KBRANCH_OLDCONFIG=$old: no such file (the .config the $(kernel_of "$variant") variant carries)"
	mapfile -t make_args < <(kmake_args "$variant")
	key=$(config_key "$old")
	cached=$(config_from_cache "$key" "$scratch" "$rdir/config.log")
	if [ "$cached" = no ]; then
		cp "$old" "$scratch"
		make "${make_args[@]}" KCONFIG_CONFIG="$scratch" olddefconfig >>"$rdir/config.log" 2>&1 || return 1
		config_keep "$key" "$scratch"
	fi
	cmp -s "$scratch" "$bdir/.config" || cp "$scratch" "$bdir/.config"
}

# The series' base in HEAD's history: the commit whose subject the
# expectations declare step=0; nothing when HEAD has none.
config_base_commit() {
	local subject
	subject=$(sed -n 's/^\([^#].*\) | .*step=0\( .*\)\{0,1\}$/\1/p' "$BT_DIR/expectations" | sed -n 1p)
	# awk reads to the end: git log cut off by SIGPIPE fails under pipefail.
	git log --format='%H %s' -n 500 HEAD | awk -v s="$subject" '!found && substr($0, 42) == s { print $1; found = 1 }'
}

# The tree of commit $1: this one when HEAD is there, else a worktree of
# it kept in the work dir (a bisect's steps are elsewhere).
config_base_tree() {
	local base=$1 wt
	if [ "$(git rev-parse HEAD)" = "$base" ]; then
		printf '%s\n' "$KTREE_DIR"
		return 0
	fi
	wt=$KBRANCH_WORK/carry-seed/base-tree
	if [ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" != "$base" ]; then
		rm -rf "$wt"
		git worktree prune
		git worktree add -q --detach "$wt" "$base" >&2 || die_setup "cannot check out ext4dev-base in $wt"
	fi
	printf '%s\n' "$wt"
}

# Carried variant $1's reference config (tinyconfig, base.config and the
# reference's fragment) made at ext4dev-base, in the base's names: the
# file's path.  Made once per base, fragments and tools; one maker at a
# time, as two variants may run at once.
config_seed_at_base() {
	local variant=$1 reference base dir f frags=() key lock tree
	reference=$(variant_field "$(kernel_of "$variant")" reference)
	base=$(config_base_commit)
	[ -n "$base" ] || die_setup "$variant: HEAD has no ext4dev-base in its history to make a config at; set KBRANCH_OLDCONFIG to the .config to carry"
	dir=$KBRANCH_WORK/carry-seed
	mkdir -p "$dir/fragments"
	for f in base "$reference"; do
		EXPECT_kconfig=EXT4DEV config_fragment "$BT_DIR/configs/$f.config" >"$dir/fragments/$f.config"
		frags+=("$dir/fragments/$f.config")
	done
	key=$({ echo "$base"; cat "${frags[@]}"; config_tool_versions; } | sha256sum | cut -c1-40)
	exec {lock}>"$dir/lock"
	flock -w 3600 "$lock" || die_setup "$variant: $dir stayed locked for an hour"
	if [ ! -f "$dir/$key.config" ]; then
		tree=$(config_base_tree "$base")
		# The base's Kconfig, not the commit's: its failure is no verdict.
		job_status config_merge "$tree" "$dir/build-$key" "$dir/$key.config.tmp" "$dir/$key.log" "${frags[@]}"
		[ "$JOB_STATUS" = 0 ] || die_setup "$variant: the config made at ext4dev-base failed (log: $dir/$key.log)"
		mv "$dir/$key.config.tmp" "$dir/$key.config"
		rm -rf "$dir/build-$key"
	fi
	exec {lock}>&-
	printf '%s\n' "$dir/$key.config"
}

# tinyconfig and fragments $5... merged into config file $3 of tree $1,
# in build dir $2; output to log $4.  tinyconfig by hand: its own fragment
# step always writes .config, and the scratch file is what keeps an
# unchanged config from costing a build.
config_merge() {
	local tree=$1 odir=$2 out=$3 log=$4
	shift 4
	mkdir -p "$odir"
	config_make "$tree" "$odir" KCONFIG_CONFIG="$out" allnoconfig >>"$log" 2>&1
	config_onto "$tree" "$odir" "$out" "$log" "$tree/kernel/configs/tiny.config" "$tree/arch/x86/configs/tiny.config" "$@"
}

# Fragments $5... merged onto config file $3 (the later ones win) by tree
# $1's merge_config.sh, then olddefconfig, in build dir $2; output to log
# $4.  merge_config.sh keeps its scratch file in the current dir: the
# build dir's, not the tree.
config_onto() {
	local tree=$1 odir=$2 out=$3 log=$4
	shift 4
	(cd "$odir" && KCONFIG_CONFIG="$out" "$tree/scripts/kconfig/merge_config.sh" -m "$out" "$@") >>"$log" 2>&1
	config_make "$tree" "$odir" KCONFIG_CONFIG="$out" olddefconfig >>"$log" 2>&1
}

# make of tree $1 in build dir $2, for a config target ($3...): the tree
# may be a worktree of the base, not the one build_dir's variants use.
config_make() {
	local tree=$1 odir=$2
	shift 2
	make -C "$tree" O="$odir" ARCH=x86_64 CC="$BT_CC" HOSTCC="$BT_HOSTCC" -j"$(nproc)" "$@"
}

# Generate the config in a scratch file; touch .config only when it changed,
# so an identical config never costs a rebuild.  A guest's (kind debian)
# is its kernel's, made here for that variant's build dir and logged in
# the guest's run dir.
config_generate() {
	local variant=$1 kernel bdir rdir scratch log key cached kind
	kernel=$(kernel_of "$variant")
	kind=$(variant_field "$kernel" kind)
	[ "$kind" != carried ] || { config_generate_old "$variant"; return; }
	[ "$kind" != debian ] || { debian_config_generate "$variant"; return; }
	bdir=$(build_dir "$variant")
	rdir=$(run_dir "$variant")
	scratch=$bdir/bisect-tests.config
	log=$rdir/config.log
	mkdir -p "$bdir" "$rdir"
	config_fragment "$BT_DIR/configs/base.config" >"$rdir/base.config"
	config_fragment "$BT_DIR/configs/$kernel.config" >"$rdir/$kernel.config"
	key=$(config_key "$rdir/base.config" "$rdir/$kernel.config")
	cached=$(config_from_cache "$key" "$scratch" "$log")
	if [ "$cached" = yes ]; then
		cmp -s "$scratch" "$bdir/.config" || cp "$scratch" "$bdir/.config"
		return 0
	fi
	config_merge "$KTREE_DIR" "$bdir" "$scratch" "$log" "$rdir/base.config" "$rdir/$kernel.config"
	config_keep "$key" "$scratch"
	cmp -s "$scratch" "$bdir/.config" || cp "$scratch" "$bdir/.config"
}

config_value() {
	local symbol=$1 config=$2 line
	line=$(grep -E "^(# )?${symbol}[= ]" "$config" || true)
	case $line in
	"$symbol="*) printf '%s\n' "${line#*=}" ;;
	*) printf 'n\n' ;;
	esac
}

# What the variant intends for ext4, ACL and security labels, checked under
# the names this commit's build tests (uses=): a config that keeps the new
# names but drops what the code tests is caught here, before the build.
# Prints one line per option that differs, nothing when all agree.
config_used_problems() {
	local variant=$1 kernel config intent what want have symbol
	kernel=$(kernel_of "$variant")
	config=$(build_dir "$variant")/.config
	intent=$BT_DIR/configs/$kernel.config
	for what in fs:CONFIG_EXT4_FS acl:CONFIG_EXT4_FS_POSIX_ACL sec:CONFIG_EXT4_FS_SECURITY; do
		want=$(config_value "${what#*:}" "$intent")
		symbol=$(used_symbol "${what%%:*}")
		have=$(config_value "$symbol" "$config")
		if [ "$have" != "$want" ]; then
			printf 'config check failed: %s\n' "$symbol=$have in $config, what this commit builds from; variant $kernel needs $want"
		fi
	done
}

# Every ext4 option the kernel's fragment sets must have that value.
config_check() {
	local variant=$1 kernel config want have symbol line problems kind compat fragment tester bad=0
	kernel=$(kernel_of "$variant")
	kind=$(variant_field "$kernel" kind)
	# A tester's config intends what it says; their test judges it.  It
	# must boot the guest, or the run stops here (128, lib/tester.sh); the
	# Debian machine had its needs merged onto it (lib/debian-boot.sh).
	tester=$(variant_trait "$kernel" tester)
	[ "$kind" != debian ] || return 0
	[ "$tester" = no ] || { tester_guest_needs "$variant"; return 0; }
	problems=$(config_used_problems "$variant")
	if [ -n "$problems" ]; then
		say_each "$problems"
		bad=1
	fi
	# A carried config is the tester's: what the commit builds from is
	# checked above, and here only the compat type its fragment keeps.
	config=$(build_dir "$variant")/.config
	compat=$(expect compat)
	fragment=$(run_dir "$variant")/$kernel.config
	[ "$kind" != carried ] || fragment=$BT_DIR/configs/$kernel.config
	while IFS= read -r line; do
		case $line in
		'# CONFIG_EXT4'*' is not set') symbol=${line#\# } symbol=${symbol%% *} want=n ;;
		CONFIG_EXT4*=*) symbol=${line%%=*} want=${line#*=} ;;
		*) continue ;;
		esac
		if [ "$symbol" = CONFIG_EXT4DEV_COMPAT ] && [ "$compat" = none ]; then
			continue
		fi
		[ "$kind" != carried ] || [ "$symbol" = CONFIG_EXT4DEV_COMPAT ] || continue
		have=$(config_value "$symbol" "$config")
		if [ "$have" != "$want" ]; then
			say "config check failed: $symbol=$have in $config, variant $kernel needs $symbol=$want"
			bad=1
		fi
	done <"$fragment"
	return "$bad"
}
