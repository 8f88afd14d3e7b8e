# shellcheck shell=bash
# Declared expectations for HEAD: KBRANCH_EXPECT, or the newest subject in
# HEAD's history that appears in bisect-tests/expectations.

# Print "key=value ..." for the first subject on stdin found in the table;
# nothing when none is (the caller tests what it printed: a function asked
# in a condition would run without set -e).
expect_lookup() {
	local table=$1 subject line
	[ -r "$table" ] || return 0
	while IFS= read -r subject; do
		while IFS= read -r line; do
			case $line in '#'* | '') continue ;; esac
			# shellcheck disable=SC2053 # the table's subject may be a glob
			if [[ "$subject" == ${line% | *} ]]; then
				printf '%s\n' "${line##* | }"
				return 0
			fi
		done <"$table"
	done
}

# root_ext4, root_testfs, rootlog and fsorder declare the root-probe boots
# (lib/rootboot.sh); without them those boots are not run.
# step: the commit's place in the series (0 the fixture, packaged the
# packaged import), which bisect-tests/compat-differences refers to.
BT_EXPECT_KEYS="kconfig module fstype compat testfs uses root_ext4 root_testfs rootlog fsorder step"

# The declared value of one key: expect fstype.
expect() {
	local var=EXPECT_$1
	printf '%s\n' "${!var}"
}

# Sets EXPECT_<key> for every declared key; dies (128) without a declaration.
expect_load() {
	local decl pair key subjects
	decl=$KBRANCH_EXPECT
	if [ -z "$decl" ]; then
		# Read the whole history first: expect_lookup stops at its first match,
		# and a git log killed by SIGPIPE would fail the pipeline (pipefail).
		subjects=$(git log --format=%s -n 500 HEAD) || die_setup "cannot read the history of HEAD"
		decl=$(expect_lookup "$BT_DIR/expectations" <<<"$subjects")
		[ -n "$decl" ] ||
			die_setup "no expectations for HEAD: no subject in the last 500 commits is in $BT_DIR/expectations (set KBRANCH_EXPECT to override)"
	fi
	for key in $BT_EXPECT_KEYS; do
		printf -v "EXPECT_$key" '%s' ''
	done
	for pair in $decl; do
		key=${pair%%=*}
		[[ " $BT_EXPECT_KEYS " == *" $key "* ]] ||
			die_setup "unknown expectation key '$key' in: $decl"
		printf -v "EXPECT_$key" '%s' "${pair#*=}"
	done
	# Without a uses= declaration the build tests the kconfig= names.
	[ -n "$EXPECT_uses" ] || EXPECT_uses="$(expect kconfig),$(expect kconfig),$(expect kconfig)"
	expect_validate "$decl"
	# The packaged tree has no base to carry a config from (kernel_of).
	# shellcheck disable=SC2034,SC2154 # set by printf -v above; read by common.sh's kernel_of
	if [ "$EXPECT_step" = packaged ]; then BT_HAS_BASE=no; else BT_HAS_BASE=yes; fi
}

expect_validate() {
	local root_ext4 rootlog fsorder
	root_ext4=$(expect root_ext4)
	rootlog=$(expect rootlog)
	fsorder=$(expect fsorder)
	expect_one_of "$1" kconfig EXT4DEV EXT4
	expect_one_of "$1" module ext4dev ext4
	expect_one_of "$1" fstype ext4dev ext4
	expect_one_of "$1" compat none ext4dev
	expect_one_of "$1" testfs all compat none
	if [ -n "$root_ext4" ]; then
		expect_one_of "$1" root_ext4 none ext4dev ext4
		expect_one_of "$1" root_testfs none ext4dev ext4
		[[ "$rootlog" =~ ^(none|testfs|deprecated)(,(testfs|deprecated))*$ ]] ||
			die_setup "expectation rootlog='$rootlog' is not none or a list of testfs,deprecated (in: $1)"
		[[ "$fsorder" =~ ^ext[a-z0-9]+(,ext[a-z0-9]+)*$ ]] ||
			die_setup "expectation fsorder='$fsorder' is not a list of ext* types (in: $1)"
	fi
	[[ "$EXPECT_uses" =~ ^(EXT4DEV|EXT4),(EXT4DEV|EXT4),(EXT4DEV|EXT4)$ ]] ||
		die_setup "expectation uses='$EXPECT_uses' is not FS,ACL,SEC of EXT4DEV|EXT4 (in: $1)"
}

# The Kconfig symbol that this commit's build tests for ext4 (fs), its
# ACL (acl) or its security labels (sec): declared by uses=.
used_symbol() {
	local prefixes
	IFS=, read -r -a prefixes <<<"$EXPECT_uses"
	case $1 in
	fs) printf 'CONFIG_%s_FS\n' "${prefixes[0]}" ;;
	acl) printf 'CONFIG_%s_FS_POSIX_ACL\n' "${prefixes[1]}" ;;
	sec) printf 'CONFIG_%s_FS_SECURITY\n' "${prefixes[2]}" ;;
	esac
}

expect_one_of() {
	local decl=$1 key=$2 var value allowed
	shift 2
	var=EXPECT_$key
	value=${!var}
	for allowed in "$@"; do
		[ "$value" = "$allowed" ] && return 0
	done
	die_setup "expectation $key='$value' is not one of: $* (in: $decl)"
}
