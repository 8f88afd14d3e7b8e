// SPDX-License-Identifier: GPL-2.0
/*
 * klibc's fstype as the ext4dev era had it, for the initramfs of a Debian
 * machine set up in that era.  initramfs-tools takes the root's type from
 * fstype first (scripts/functions, get_fstype) and mounts it with that
 * type; Debian 12's klibc (2.0.12) has no ext4dev and says "ext4".  This
 * program reproduces the ext4/ext4dev decision of two klibc releases,
 * chosen at build time, and leaves every other filesystem to the image's
 * own fstype, so that the rest of the machine stays Debian 12's:
 *
 *   KLIBC_ERA=1503: klibc 1.5.3 to 1.5.14 ("fstype: add ext4 support",
 *     "fix ext4dev detection"): ext4dev for an ext2-magic filesystem with
 *     a journal, the test_fs flag and an incompat feature ext3 lacks (the
 *     incompat word is also tested against ext3's ro_compat bits, as
 *     that code did); any other journalled one is ext3: it had no "ext4".
 *   KLIBC_ERA=1515: klibc 1.5.15 to 2.0.6 ("fstype: Fix ext4/ext4dev
 *     probing"): for a journalled filesystem with a feature ext3 lacks,
 *     ext4dev when it has the test_fs flag and the kernel has ext4dev,
 *     or when the kernel has no ext4; ext4 otherwise.  "The kernel has"
 *     is a line of /proc/filesystems or a module of that name in
 *     /lib/modules/<release>/modules.dep, as klibc read them.
 *
 * Usage: fstype DEVICE, as klibc's; prints FSTYPE= and FSSIZE= lines.
 * Anything else is the image's fstype, run as fstype.klibc from the same
 * directory.  KBRANCH_FSTYPE_ROOT, when set, prefixes /proc and /lib (the
 * host's unit test, ci/05-fast.bats); the initramfs never sets it.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef KLIBC_ERA
#error "build with -DKLIBC_ERA=1503 or -DKLIBC_ERA=1515"
#endif

#define EXT2_SUPER_MAGIC 0xEF53
#define EXT2_FLAGS_TEST_FILESYS 0x0004
#define EXT3_FEATURE_COMPAT_HAS_JOURNAL 0x0004
#define EXT3_FEATURE_INCOMPAT_SUPP 0x0016 /* filetype, recover, meta_bg */
#define EXT3_FEATURE_RO_COMPAT_SUPP 0x0007 /* sparse_super, large_file, btree_dir */
#define EXT4_FEATURE_INCOMPAT_MMP 0x0100

struct ext_super {
	__u32 blocks_count, log_block_size, feature_compat;
	__u32 feature_incompat, feature_ro_compat, flags;
	__u16 magic;
};

static __u32 le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

/* The superblock at byte 1024 of the device; 0 when it cannot be read. */
static int read_super(const char *dev, struct ext_super *sb)
{
	unsigned char b[1024];
	int fd = open(dev, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, b, sizeof(b), 1024);
	close(fd);
	if (n != (ssize_t)sizeof(b))
		return 0;
	sb->blocks_count = le32(b + 0x04);
	sb->log_block_size = le32(b + 0x18);
	sb->magic = b[0x38] | b[0x39] << 8;
	sb->feature_compat = le32(b + 0x5c);
	sb->feature_incompat = le32(b + 0x60);
	sb->feature_ro_compat = le32(b + 0x64);
	sb->flags = le32(b + 0x160);
	return 1;
}

#if KLIBC_ERA == 1515
static const char *root_prefix(void)
{
	const char *r = getenv("KBRANCH_FSTYPE_ROOT");

	return r ? r : "";
}

/* A line of /proc/filesystems names fs (klibc's fs_proc_check). */
static int in_proc_filesystems(const char *fs)
{
	char path[PATH_MAX], line[80], name[80];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/proc/filesystems", root_prefix());
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "nodev\tname" or "\tname" */
		if (sscanf(line, "nodev %79s", name) == 1 || sscanf(line, "%79s", name) == 1)
			found = !strcmp(name, fs);
	}
	fclose(f);
	return found;
}

/* modules.dep has <fs>.ko (klibc's check_for_modules: ".ko" only). */
static int in_modules_dep(const char *fs)
{
	char path[PATH_MAX], line[1024], *colon, *base;
	struct utsname uts;
	FILE *f;
	size_t n;
	int found = 0;

	if (uname(&uts))
		return 0;
	snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.dep", root_prefix(), uts.release);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		n = strlen(base);
		if (n > 3 && !strcmp(base + n - 3, ".ko"))
			base[n - 3] = '\0';
		found = !strcmp(base, fs);
	}
	fclose(f);
	return found;
}

static int kernel_has(const char *fs)
{
	return in_proc_filesystems(fs) || in_modules_dep(fs);
}
#endif

/* "ext4dev", "ext4", or NULL: not this program's decision. */
static const char *era_type(const struct ext_super *sb)
{
	int test_fs = !!(sb->flags & EXT2_FLAGS_TEST_FILESYS);

	if (sb->magic != EXT2_SUPER_MAGIC ||
	    !(sb->feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		return NULL;
#if KLIBC_ERA == 1503
	if (test_fs && ((sb->feature_incompat & EXT3_FEATURE_RO_COMPAT_SUPP) ||
			(sb->feature_incompat & ~EXT3_FEATURE_INCOMPAT_SUPP) ||
			(sb->feature_incompat & EXT4_FEATURE_INCOMPAT_MMP)))
		return "ext4dev";
	return "ext3"; /* the next in its list that takes a journal */
#else
	if (!(sb->feature_incompat & ~EXT3_FEATURE_INCOMPAT_SUPP) &&
	    !(sb->feature_ro_compat & ~EXT3_FEATURE_RO_COMPAT_SUPP))
		return NULL;
	if ((test_fs && kernel_has("ext4dev")) || !kernel_has("ext4"))
		return "ext4dev";
	return "ext4";
#endif
}

int main(int argc, char *argv[])
{
	struct ext_super sb;
	const char *type = NULL;
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (argc == 2 && read_super(argv[1], &sb))
		type = era_type(&sb);
	if (type) {
		printf("FSTYPE=%s\nFSSIZE=%llu\n", type,
		       (unsigned long long)sb.blocks_count << (10 + sb.log_block_size));
		return 0;
	}
	/* The image's own fstype, beside this one (found by /proc/self/exe:
	 * the initramfs runs us by PATH).
	 */
	n = readlink("/proc/self/exe", self, sizeof(self) - sizeof("fstype.klibc"));
	if (n <= 0)
		return 1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	strcpy(slash ? slash + 1 : self, "fstype.klibc");
	execv(self, argv);
	perror(self);
	return 1;
}
