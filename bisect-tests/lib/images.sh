# shellcheck shell=bash
# Scratch ext4 images for one run: vda has the test_fs flag, vdb has not.

images_make() {
	local rdir=$1 log=$1/images.log
	rm -f "$rdir/flagged.img" "$rdir/plain.img"
	truncate -s 64M "$rdir/flagged.img" "$rdir/plain.img"
	logged "$log" mke2fs -F -t ext4 -E test_fs -L flagged "$rdir/flagged.img" || return 1
	logged "$log" mke2fs -F -t ext4 -L plain "$rdir/plain.img"
}
