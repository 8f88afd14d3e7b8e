# shellcheck shell=bash
# Scratch ext4 images for one run, attached in this order: vda has the
# test_fs flag, vdb has not, vdc is the crash image the guest leaves with
# a journal to replay, then one damaged image per hostile kind.
#
# The hostile kinds, and what ext4 answers for each, are the guest
# program's (the variants of its hostile_image fixture): this file asks it
# for them ($rdir/init --print hostile-kinds) and only damages an image per
# kind, with images_damage_<kind>.  Every hostile image starts as a
# healthy, test_fs-flagged ext4 with 1 KiB blocks (first data block 1,
# group descriptors in block 2), so a refusal is about the damage and never
# about the test_fs gate.

BT_HOSTILE_BLOCK=1024

# What cannot be made here is printed as nothing, having said why: each
# function below prints what it made or found, and its caller tests that.
# A status would be lost where set -e stops holding (a function asked in a
# condition), and the failure is images_make's caller's to classify (for
# bisect-tests/run, the machine's: 128).  So they return 0 either way.

# The partitions of the hostile disks, in order: a healthy control made
# the same way (it must mount read-write in the same boot), then the
# damaged images, one per kind of the guest program in run dir $1.
images_partitions() {
	local kinds=''
	kinds=$("$1/init" --print hostile-kinds) || kinds=''
	if [ -z "$kinds" ]; then
		say "images: the guest program $1/init names no hostile kinds"
		return 0
	fi
	printf '%s\n' control "$kinds"
}

# The images are the same for every commit and variant: they are made once
# per work dir, this file and e2fsprogs with its mke2fs.conf (4 s of a
# point's time), and each run gets fresh copies, which its guest writes to.
# Fails when they cannot be made.
images_make() {
	local rdir=$1 cache made
	cache=$(images_cache_dir "$rdir")
	[ -n "$cache" ] || return 1
	if [ ! -d "$cache" ]; then
		rm -rf "$cache.tmp.$$"
		mkdir -p "$cache.tmp.$$"
		made=$(images_build "$cache.tmp.$$" "$rdir")
		[ -n "$made" ] || { rm -rf "$cache.tmp.$$"; return 1; }
		# Another run may have made them meanwhile: the same images.
		mv -T "$cache.tmp.$$" "$cache" 2>/dev/null || rm -rf "$cache.tmp.$$"
	fi
	rm -f "$rdir"/*.img
	cp --sparse=always "$cache"/*.img "$rdir"/
}

# Keyed by the partitions too: the guest program names the kinds.
images_cache_dir() {
	local rdir=$1 key parts
	parts=$(images_partitions "$rdir")
	[ -n "$parts" ] || return 0
	key=$({
		cat "${BASH_SOURCE[0]}" "${MKE2FS_CONFIG:-/etc/mke2fs.conf}" 2>/dev/null
		printf '%s\n' "$parts"
		mke2fs -V 2>&1 && debugfs -V 2>&1
	} | sha256sum | cut -c1-16) || return 0
	printf '%s/cache/images-%s\n' "$KBRANCH_WORK" "$key"
}

# The images for run dir $2, made in directory $1; prints $1 when made.
images_build() {
	local dir=$1 rdir=$2 log=$2/images.log kind parts made
	parts=$(images_partitions "$rdir")
	[ -n "$parts" ] || return 0
	truncate -s 64M "$dir/flagged.img" "$dir/plain.img" "$dir/crash.img" || return 0
	mkdir -p "$rdir" || return 0
	mke2fs -F -t ext4 -E test_fs -L flagged "$dir/flagged.img" >>"$log" 2>&1 || return 0
	mke2fs -F -t ext4 -L plain "$dir/plain.img" >>"$log" 2>&1 || return 0
	mke2fs -F -t ext4 -E test_fs -L crash "$dir/crash.img" >>"$log" 2>&1 || return 0
	for kind in $parts; do
		made=$(images_hostile "$dir/hostile-$kind.img" "$kind" "$log")
		[ -n "$made" ] || return 0
	done
	made=$(images_pack_hostile "$dir" "$rdir")
	[ -z "$made" ] || printf '%s\n' "$dir"
}

# Under TCG every virtio disk costs the boot ~0.15 s, so the hostile images
# travel as MBR partitions, four to a disk, instead of a disk each.
BT_HOSTILE_PER_DISK=4

# How many disks the partitions of run dir $1 take.
images_hostile_disks() {
	local parts
	parts=$(images_partitions "$1")
	[ -n "$parts" ] || return 0
	echo $((($(wc -l <<<"$parts") + BT_HOSTILE_PER_DISK - 1) / BT_HOSTILE_PER_DISK))
}

# The hostile disks in directory $1, of the partitions of run dir $2;
# prints $1 when they are all made.
images_pack_hostile() {
	local dir=$1 rdir=$2 disk i n list parts=() kinds made
	list=$(images_partitions "$rdir")
	[ -n "$list" ] || return 0
	mapfile -t parts <<<"$list"
	n=$(images_hostile_disks "$rdir")
	[ -n "$n" ] || return 0
	for ((i = 0; i < n; i++)); do
		disk=$dir/hostile-disk$i.img
		kinds=("${parts[@]:i * BT_HOSTILE_PER_DISK:BT_HOSTILE_PER_DISK}")
		made=$(images_mbr_disk "$disk" "${kinds[@]/#/$dir/hostile-}")
		[ -n "$made" ] || return 0
	done
	printf '%s\n' "$dir"
}

# A disk with one primary partition (type 0x83) per image, in order, each
# starting on a MiB boundary and exactly as long as its image; prints the
# disk when made.
images_mbr_disk() {
	local disk=$1 part start=2048 sectors n=0 entry
	shift
	truncate -s 1M "$disk" || return 0
	for part in "$@"; do
		part=$part.img
		sectors=$(($(stat -c %s "$part") / 512))
		dd if="$part" of="$disk" bs=512 seek="$start" conv=notrunc status=none || return 0
		entry=$(images_mbr_entry "$disk" "$n" "$start" "$sectors")
		[ -n "$entry" ] || return 0
		start=$(((start + sectors + 2047) / 2048 * 2048))
		n=$((n + 1))
	done
	truncate -s $((start * 512)) "$disk" || return 0
	if printf '\x55\xaa' | dd of="$disk" bs=1 seek=510 conv=notrunc status=none; then
		printf '%s\n' "$disk"
	fi
}

# Partition entry $2 of disk $1; prints the disk when written.
images_mbr_entry() {
	local disk=$1 n=$2 start=$3 sectors=$4 bytes
	bytes="\\x00\\x00\\x02\\x00\\x83\\xfe\\xff\\xff$(images_le32 "$start")$(images_le32 "$sectors")"
	if printf '%b' "$bytes" | dd of="$disk" bs=1 seek=$((446 + 16 * n)) conv=notrunc status=none; then
		printf '%s\n' "$disk"
	fi
}

# printf escapes for a little-endian 32-bit number.
images_le32() {
	local v=$1
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255))
}

# Every disk, in the order QEMU attaches them (vda, vdb, ...).
images_list() {
	local rdir=$1 i n
	printf '%s\n' "$rdir/flagged.img" "$rdir/plain.img" "$rdir/crash.img"
	n=$(images_hostile_disks "$rdir")
	[ -n "$n" ] || return 0
	for ((i = 0; i < n; i++)); do
		printf '%s\n' "$rdir/hostile-disk$i.img"
	done
}

# /expect lines naming the guest's partition for the control and for each
# hostile kind: control=/dev/vdd1, hostile_<kind>=/dev/vdd2, ...
images_hostile_expect() {
	local i list parts=() dev
	list=$(images_partitions "$1")
	[ -n "$list" ] || return 0
	mapfile -t parts <<<"$list"
	for i in "${!parts[@]}"; do
		dev=/dev/vd$(images_letter $((3 + i / BT_HOSTILE_PER_DISK)))$((i % BT_HOSTILE_PER_DISK + 1))
		if [ "${parts[i]}" = control ]; then
			printf 'control=%s\n' "$dev"
		else
			printf 'hostile_%s=%s\n' "${parts[i]}" "$dev"
		fi
	done
}

images_letter() {
	local letters=abcdefghijklmnopqrstuvwxyz
	printf '%s\n' "${letters:$1:1}"
}

# The hostile image of kind $2 in $1: prints $1 when made.
images_hostile() {
	local img=$1 kind=$2 log=$3
	# A kind the guest program has and this file cannot make is no
	# machine's fault: say which.
	declare -F "images_damage_$kind" >/dev/null ||
		{ say "images: the guest's hostile kind $kind has no images_damage_$kind in lib/images.sh"; return 0; }
	truncate -s 16M "$img" || return 0
	mkdir -p "$(dirname "$log")" || return 0
	mke2fs -F -t ext4 -b "$BT_HOSTILE_BLOCK" -E test_fs -L "$kind" "$img" >>"$log" 2>&1 || return 0
	"images_damage_$kind" "$img" "$log" || { say "images: cannot damage $img ($kind), see $log"; return 0; }
	printf '%s\n' "$img"
}

# Overwrite @count bytes at byte @offset of @img with 0xa5: garbage that is
# the same on every run, so a bisect never hinges on a random byte.
images_garbage() {
	local img=$1 offset=$2 count=$3
	head -c "$count" /dev/zero | tr '\0' '\245' |
		dd of="$img" bs=1 seek="$offset" conv=notrunc status=none
}

images_set_super() {
	local img=$1 log=$2 field=$3 value=$4
	# debugfs rewrites the superblock checksum, so the kernel meets the bad
	# field itself rather than a checksum error.
	logged "$log" debugfs -w -R "ssv $field $value" "$img"
}

# The magic (0xef53) sits at byte 56 of the superblock, which starts at 1024.
images_damage_bad_magic() {
	images_garbage "$1" $((1024 + 56)) 2
}

images_damage_gdt_garbage() {
	images_garbage "$1" $((2 * BT_HOSTILE_BLOCK)) "$BT_HOSTILE_BLOCK"
}

# Far more inodes than groups * inodes per group.
images_damage_inodes_count() {
	images_set_super "$1" "$2" inodes_count 4294967295
}

# The first block of the journal inode (<8>) holds the journal superblock.
images_damage_journal_sb() {
	local img=$1 log=$2 block
	block=$(debugfs -R 'bmap <8> 0' "$img" 2>>"$log")
	[[ "$block" =~ ^[1-9][0-9]*$ ]] || { say "images: no journal block in $img: '$block'"; return 1; }
	images_garbage "$img" $((block * BT_HOSTILE_BLOCK)) "$BT_HOSTILE_BLOCK"
}

# The control: healthy.
images_damage_control() {
	:
}

# A filesystem claiming 16 MiB on a device cut to 8 MiB.
images_damage_blocks_count() {
	truncate -s 8M "$1"
}

# 2^(10 + 20) byte blocks: far beyond the kernel's 64 KiB maximum.
images_damage_log_block_size() {
	images_set_super "$1" "$2" log_block_size 20
}

# With 1 KiB blocks the superblock lives in block 1; 0 is impossible.
images_damage_first_data_block() {
	images_set_super "$1" "$2" first_data_block 0
}
