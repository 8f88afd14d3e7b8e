// SPDX-License-Identifier: GPL-2.0
/*
 * ext4-checks: /init of a bisect-tests guest.
 *
 * Mounts proc, sysfs and devtmpfs, reads (and echoes) the declared
 * expectations from /expect, runs the checks below with the kselftest
 * harness (KTAP on the console) in a child, writes the crash image, prints
 * its copy of the whole kernel log and resets the machine without
 * unmounting it.  As PID 1 it never returns.
 *
 * With --root-probe it is instead /sbin/init of a root filesystem the
 * kernel mounted by probing its type: it reports that type and the
 * registered block filesystem types, and resets (see lib/rootboot.sh).
 *
 * Disks: /dev/vda is an ext4 image with the test_fs flag, /dev/vdb one
 * without, /dev/vdc the crash image; the damaged (hostile) images follow,
 * one per variant of the hostile_image fixture, each named in /expect.
 * The files and xattrs left on /dev/vda and the pattern fsynced to
 * /dev/vdc are read back by the host, so their names and contents are part
 * of the contract with it.
 *
 * Its own lines on the console start with MARK; the host reads them, and
 * the harness's KTAP, in one place (lib/facts.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "kselftest_harness.h"

#define FLAGGED_DEV	"/dev/vda"
#define PLAIN_DEV	"/dev/vdb"
#define CRASH_DEV	"/dev/vdc"
#define MNT		"/mnt"
#define PATTERN_LINES	2000
#define CRASH_LINES	8192
#define EXPECT_LINE	128
#define EXPECT_LINES	32
#define DENIED_UID	1000
#define MARK		"# ext4-checks: "

/* syslog(2) actions; glibc's <sys/klog.h> does not name them. */
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_CONSOLE_LEVEL	8
#define SYSLOG_ACTION_SIZE_BUFFER	10

/* Raw system.posix_acl_access format, include/uapi/linux/posix_acl_xattr.h */
#define ACL_XATTR_VERSION	0x0002
#define ACL_TAG_USER_OBJ	0x01
#define ACL_TAG_USER		0x02
#define ACL_TAG_GROUP_OBJ	0x04
#define ACL_TAG_MASK		0x10
#define ACL_TAG_OTHER		0x20
#define ACL_NO_ID		0xffffffffu

struct expect {
	char fstype[16];	/* main filesystem type */
	char module[16];	/* module that mount must load, or "none" */
	char testfs[16];	/* all, compat or none */
	int compat;		/* ext4dev registered as compat type */
	int acl;
	int security;
	char control[16];	/* healthy partition beside the damaged ones */
	/* Every "key=value" line, as read: hostile_<kind>=<device> among them. */
	char lines[EXPECT_LINES][EXPECT_LINE];
	int nr_lines;
};

static struct expect ex;

/* Whether /expect has the line @line ("key=value"). */
static int expect_says(const char *line)
{
	int i;

	for (i = 0; i < ex.nr_lines; i++)
		if (!strcmp(ex.lines[i], line))
			return 1;
	return 0;
}

/* The value of @key in /expect, or NULL. */
static const char *expect_value(const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = 0; i < ex.nr_lines; i++)
		if (!strncmp(ex.lines[i], key, len) && ex.lines[i][len] == '=')
			return ex.lines[i] + len + 1;
	return NULL;
}

/*
 * Skip the test where /expect has @line ("key=value": this kernel lacks
 * something), naming it first in the reason: the host allows a skip only
 * where its guest's /expect says what the reason names (lib/ktap.sh), so
 * which test skips when is decided here alone.
 */
#define SKIP_WHERE(statement, line, why) do {			\
	const char *_skip_line = (line);			\
								\
	if (expect_says(_skip_line))				\
		SKIP(statement, "%s: %s", _skip_line, why);	\
} while (0)

static void set_field(const char *key, const char *val)
{
	if (!strcmp(key, "fstype"))
		snprintf(ex.fstype, sizeof(ex.fstype), "%s", val);
	else if (!strcmp(key, "module"))
		snprintf(ex.module, sizeof(ex.module), "%s", val);
	else if (!strcmp(key, "testfs"))
		snprintf(ex.testfs, sizeof(ex.testfs), "%s", val);
	else if (!strcmp(key, "compat"))
		ex.compat = atoi(val);
	else if (!strcmp(key, "acl"))
		ex.acl = atoi(val);
	else if (!strcmp(key, "security"))
		ex.security = atoi(val);
	else if (!strcmp(key, "control"))
		snprintf(ex.control, sizeof(ex.control), "%s", val);
}

static int load_expect(const char *path)
{
	char line[EXPECT_LINE], *eq;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* A console then says what its run was told, line for line. */
		printf(MARK "expect %s\n", line);
		if (ex.nr_lines < EXPECT_LINES)
			snprintf(ex.lines[ex.nr_lines++], EXPECT_LINE, "%s", line);
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		set_field(line, eq + 1);
	}
	fclose(f);
	return ex.fstype[0] && ex.testfs[0] && ex.module[0] ? 0 : -1;
}

/* Whole-word match of @word in the text of @path. */
static int file_has_word(const char *path, const char *word)
{
	char line[256], *tok, *save;
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok && !found;
		     tok = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

static int fs_registered(const char *type)
{
	return file_has_word("/proc/filesystems", type);
}

static int mount_dev(const char *dev, const char *type)
{
	return mount(dev, MNT, type, 0, NULL);
}

static char *kernel_log(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	char *buf;
	int len;

	if (size <= 0)
		return NULL;
	buf = calloc(1, size + 1);
	if (!buf)
		return NULL;
	len = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (len < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * The console shows only what passes the console loglevel, which main()
 * lowers to 5, so ext4's KERN_INFO lines (mount mode, quota mode,
 * recovery) never reach it.  What a user observes is read from this copy
 * of the whole kernel log instead: between markers, and with its count of
 * lines, so that a copy cut short is known.  Returns -1 if the log cannot
 * be read (the end marker then counts -1 lines).
 */
static int print_kernel_log(void)
{
	char *log = kernel_log();
	const char *line, *end;
	int n = 0;

	printf(MARK "kernel log begin\n");
	if (!log) {
		printf(MARK "kernel log end lines=-1\n");
		return -1;
	}
	for (line = log; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		printf("%.*s\n", (int)(end - line), line);
		n++;
	}
	printf(MARK "kernel log end lines=%d\n", n);
	free(log);
	return 0;
}

/* Whether the @len bytes at @line contain both @a and @b, case-insensitively. */
static int log_has_line_with_n(const char *line, size_t len, const char *a,
			       const char *b)
{
	char buf[512];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	return strcasestr(buf, a) && strcasestr(buf, b);
}

/* Whether one line of @log contains both @a and @b, case-insensitively. */
static int log_has_line_with(const char *log, const char *a, const char *b)
{
	const char *line, *end;

	for (line = log; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (log_has_line_with_n(line, end - line, a, b))
			return 1;
	}
	return 0;
}

/* Lines of the kernel log that contain both @a and @b; -1 if unreadable. */
static int kernel_log_count(const char *a, const char *b)
{
	char *log = kernel_log(), *line, *end;
	int n = 0;

	if (!log)
		return -1;
	for (line = log; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (log_has_line_with_n(line, end - line, a, b))
			n++;
	}
	free(log);
	return n;
}

/* "EXT4-fs (vdb1)": how ext4_msg() names the filesystem on @dev. */
static void ext4_msg_prefix(char *buf, size_t size, const char *dev)
{
	const char *name = strrchr(dev, '/');

	snprintf(buf, size, "EXT4-fs (%s)", name ? name + 1 : dev);
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	int ret;

	if (fd < 0)
		return -1;
	ret = write_all(fd, text, strlen(text));
	if (!ret)
		ret = fsync(fd);
	if (close(fd))
		ret = -1;
	return ret;
}

/* The lines of /pattern and /crash-pattern; the host reads them back. */
static int pattern_line(char *buf, size_t size, const char *what, int i)
{
	return snprintf(buf, size, "ext4-checks %s line %05d\n", what, i);
}

/* Run @op(@arg) as DENIED_UID in a child; returns 0 or the errno of @op. */
static int as_denied_user(int (*op)(const void *arg), const void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(0, NULL) || setgid(DENIED_UID) ||
		    setuid(DENIED_UID))
			_exit(255);
		_exit(op(arg) ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int open_for_reading(const void *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int open_as_denied_user(const char *path)
{
	return as_denied_user(open_for_reading, path);
}

struct xattr_op {
	const char *path;
	const char *name;
	const void *value;
	size_t size;
};

static int set_xattr(const void *arg)
{
	const struct xattr_op *op = arg;

	return setxattr(op->path, op->name, op->value, op->size, 0);
}

static int setxattr_as_denied_user(const char *path, const char *name,
				   const void *value, size_t size)
{
	struct xattr_op op = { path, name, value, size };

	return as_denied_user(set_xattr, &op);
}

static void put_acl_entry(unsigned char *p, int tag, int perm, uint32_t id)
{
	p[0] = tag;
	p[1] = 0;
	p[2] = perm;
	p[3] = 0;
	p[4] = id & 0xff;
	p[5] = (id >> 8) & 0xff;
	p[6] = (id >> 16) & 0xff;
	p[7] = (id >> 24) & 0xff;
}

/* rw for the owner, nothing for DENIED_UID, read for the rest. */
static size_t deny_acl(unsigned char *buf)
{
	buf[0] = ACL_XATTR_VERSION;
	buf[1] = 0;
	buf[2] = 0;
	buf[3] = 0;
	put_acl_entry(buf + 4, ACL_TAG_USER_OBJ, 6, ACL_NO_ID);
	put_acl_entry(buf + 12, ACL_TAG_USER, 0, DENIED_UID);
	put_acl_entry(buf + 20, ACL_TAG_GROUP_OBJ, 4, ACL_NO_ID);
	put_acl_entry(buf + 28, ACL_TAG_MASK, 4, ACL_NO_ID);
	put_acl_entry(buf + 36, ACL_TAG_OTHER, 4, ACL_NO_ID);
	return 44;
}

/* Run /sbin/modprobe or /sbin/rmmod (busybox) on @name; its exit status. */
static int run_modutil(const char *tool, const char *name)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(tool, tool, name, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The module tests run first, each leaving the module unloaded again:
 * what users do by name (modprobe, /etc/modules), resolved in userspace
 * through modules.alias, and what mount does with nothing loaded, through
 * the kernel's request_module("fs-<type>").
 */
static void load_and_unload(struct __test_metadata *_metadata,
			    const char *name)
{
	ASSERT_EQ(0, file_has_word("/proc/modules", ex.module)) {
		TH_LOG("%s is loaded before modprobe %s", ex.module, name);
	}
	ASSERT_EQ(0, run_modutil("/sbin/modprobe", name)) {
		TH_LOG("modprobe %s failed", name);
	}
	EXPECT_EQ(1, file_has_word("/proc/modules", ex.module)) {
		TH_LOG("modprobe %s did not load %s", name, ex.module);
	}
	ASSERT_EQ(0, run_modutil("/sbin/rmmod", ex.module));
}

static void mount_autoloads(struct __test_metadata *_metadata,
			    const char *type)
{
	ASSERT_EQ(0, file_has_word("/proc/modules", ex.module));
	ASSERT_EQ(0, fs_registered(type));
	ASSERT_EQ(0, mount_dev(FLAGGED_DEV, type)) {
		TH_LOG("mount -t %s: %s", type, strerror(errno));
	}
	ASSERT_EQ(0, umount(MNT));
	EXPECT_EQ(1, fs_registered(type));
	EXPECT_EQ(1, file_has_word("/proc/modules", ex.module));
}

TEST(modprobe_by_the_module_name_loads_it)
{
	SKIP_WHERE(return, "module=none", "ext4 is built in");
	load_and_unload(_metadata, ex.module);
}

TEST(modprobe_by_the_compat_name_loads_the_module)
{
	SKIP_WHERE(return, "module=none", "ext4 is built in");
	SKIP_WHERE(return, "compat=0", "no compat type declared or configured");
	load_and_unload(_metadata, "ext4dev");
}

TEST(mounting_the_compat_type_loads_the_module_by_alias)
{
	SKIP_WHERE(return, "module=none", "ext4 is built in");
	SKIP_WHERE(return, "compat=0", "no compat type declared or configured");
	mount_autoloads(_metadata, "ext4dev");
	ASSERT_EQ(0, run_modutil("/sbin/rmmod", ex.module));
}

/* The module stays loaded for the tests that follow. */
TEST(mounting_the_fs_type_loads_its_module_by_alias)
{
	SKIP_WHERE(return, "module=none", "ext4 is built in");
	mount_autoloads(_metadata, ex.fstype);
}

/* Isolation: the kernel under test has no network at all. */
TEST(the_guest_has_no_network)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0)
		close(fd);
	EXPECT_GT(0, fd) {
		TH_LOG("socket(AF_INET) works: the guest has a network stack");
	}
}

TEST(registered_fs_types_match_the_declaration)
{
	static const char * const names[] = { "ext4", "ext4dev" };
	size_t i;
	int want;

	/* The declared type, plus ext4dev when it is the compat type: no other. */
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		want = !strcmp(names[i], ex.fstype) ||
		       (ex.compat && !strcmp(names[i], "ext4dev"));
		EXPECT_EQ(want, fs_registered(names[i])) {
			TH_LOG("%s %s /proc/filesystems", names[i],
			       want ? "missing from" : "stray in");
		}
	}
}

TEST(the_test_fs_flagged_image_mounts)
{
	ASSERT_EQ(0, mount_dev(FLAGGED_DEV, ex.fstype)) {
		TH_LOG("mount -t %s: %s", ex.fstype, strerror(errno));
	}
	ASSERT_EQ(0, umount(MNT));
}

/* Lines of the kernel log where ext4 says @msg of the filesystem on @dev. */
static int ext4_lines(const char *dev, const char *msg)
{
	char prefix[32];

	ext4_msg_prefix(prefix, sizeof(prefix), dev);
	return kernel_log_count(prefix, msg);
}

/*
 * A refused mount: its errno @err, and one more line where ext4 says @msg
 * of the device than the @before there were.
 */
static void check_refusal(struct __test_metadata *_metadata, const char *dev,
			  int err, int want_err, const char *msg, int before)
{
	EXPECT_EQ(want_err, err) {
		TH_LOG("mount %s: %s, expected %s", dev, strerror(err),
		       strerror(want_err));
	}
	EXPECT_EQ(before + 1, ext4_lines(dev, msg)) {
		TH_LOG("no new kernel log line for %s: \"%s\"", dev, msg);
	}
}

/* What ext4 logs when the test_fs gate refuses a filesystem. */
#define TEST_FS_REFUSAL	"not marked OK to use with test code"

TEST(the_unflagged_image_mounts_unless_test_fs_is_required)
{
	int before = ext4_lines(PLAIN_DEV, TEST_FS_REFUSAL);
	int ret = mount_dev(PLAIN_DEV, ex.fstype);
	int err = errno;

	if (!strcmp(ex.testfs, "all")) {
		ASSERT_NE(0, ret) {
			umount(MNT);
			TH_LOG("testfs=all but the unflagged image mounted");
		}
		check_refusal(_metadata, PLAIN_DEV, err, EINVAL,
			      TEST_FS_REFUSAL, before);
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("mount -t %s: %s", ex.fstype, strerror(errno));
	}
	ASSERT_EQ(0, umount(MNT));
}

TEST(the_compat_type_mounts_the_flagged_image_and_warns)
{
	char *log;
	int before, ret, err;

	SKIP_WHERE(return, "compat=0", "no compat type declared or configured");
	ASSERT_EQ(0, mount_dev(FLAGGED_DEV, "ext4dev")) {
		TH_LOG("mount -t ext4dev: %s", strerror(errno));
	}
	ASSERT_EQ(0, umount(MNT));
	log = kernel_log();
	ASSERT_NE(NULL, log);
	EXPECT_EQ(1, log_has_line_with(log, "ext4dev", "deprecat")) {
		TH_LOG("no ext4dev deprecation line in the kernel log");
	}
	free(log);
	before = ext4_lines(PLAIN_DEV, TEST_FS_REFUSAL);
	ret = mount_dev(PLAIN_DEV, "ext4dev");
	err = errno;
	if (!ret)
		umount(MNT);
	EXPECT_EQ(!strcmp(ex.testfs, "none"), ret == 0);
	if (ret)
		check_refusal(_metadata, PLAIN_DEV, err, EINVAL,
			      TEST_FS_REFUSAL, before);
}

/*
 * The damaged images sit beside a healthy one on the same kind of disk: a
 * refusal means something only if that one mounts, read-write.
 */
TEST(the_healthy_control_partition_mounts_read_write)
{
	struct statvfs st;

	ASSERT_NE(0, ex.control[0]) {
		TH_LOG("no control= in /expect");
	}
	ASSERT_EQ(0, mount_dev(ex.control, ex.fstype)) {
		TH_LOG("mount %s -t %s: %s", ex.control, ex.fstype,
		       strerror(errno));
	}
	EXPECT_EQ(0, statvfs(MNT, &st));
	EXPECT_EQ(0, st.f_flag & ST_RDONLY);
	EXPECT_EQ(0, umount(MNT));
}

/*
 * The damaged images, one variant each: the one list of hostile kinds.
 * lib/images.sh asks for it (--print hostile-kinds), damages an image per
 * kind (images_damage_<kind>) and names its partition in /expect
 * (hostile_<kind>=<device>).  Mounting it must fail with @err and add a
 * kernel log line "EXT4-fs (<device name>): @msg..." (fs/ext4/super.c;
 * EUCLEAN is the kernel's EFSCORRUPTED), or, with @err 0 and @msg
 * "read-only", give a read-only filesystem; a kernel that oopses on the
 * way is caught by end_of_run.
 */
FIXTURE(hostile_image) {
	const char *kind;
	const char *dev;
};

FIXTURE_VARIANT(hostile_image) {
	int err;
	const char *msg;
};

FIXTURE_VARIANT_ADD(hostile_image, bad_magic) {
	.err = EINVAL,
	.msg = "VFS: Can't find ext4 filesystem",
};

FIXTURE_VARIANT_ADD(hostile_image, gdt_garbage) {
	.err = EUCLEAN,
	.msg = "group descriptors corrupted!",
};

FIXTURE_VARIANT_ADD(hostile_image, inodes_count) {
	.err = EINVAL,
	.msg = "inodes count not valid:",
};

FIXTURE_VARIANT_ADD(hostile_image, journal_sb) {
	.err = EINVAL,
	.msg = "error loading journal",
};

FIXTURE_VARIANT_ADD(hostile_image, blocks_count) {
	.err = EINVAL,
	.msg = "bad geometry: block count",
};

FIXTURE_VARIANT_ADD(hostile_image, log_block_size) {
	.err = EINVAL,
	.msg = "Invalid log block size: 20",
};

FIXTURE_VARIANT_ADD(hostile_image, first_data_block) {
	.err = EINVAL,
	.msg = "bad geometry: first data block is 0 with a 1k block and cluster size",
};

/* The name of the variant of fixture @f whose data is @data. */
static const char *variant_name(const struct __fixture_metadata *f,
				const void *data)
{
	const struct __fixture_variant_metadata *v;

	for (v = f->variant; v; v = v->next)
		if (v->data == data)
			return v->name;
	return "unknown";
}

FIXTURE_SETUP(hostile_image)
{
	char key[EXPECT_LINE];

	self->kind = variant_name(&_hostile_image_fixture_object, variant);
	snprintf(key, sizeof(key), "hostile_%s", self->kind);
	self->dev = expect_value(key);
	ASSERT_NE(NULL, self->dev) {
		TH_LOG("no %s in /expect", key);
	}
}

FIXTURE_TEARDOWN(hostile_image)
{
}

TEST_F(hostile_image, is_not_mounted_read_write)
{
	struct statvfs st;
	int before, ret, err;

	before = ext4_lines(self->dev, variant->msg);
	if (mount_dev(self->dev, ex.fstype)) {
		err = errno;
		/* Refused by ext4, not for want of the type. */
		EXPECT_NE(ENODEV, err) {
			TH_LOG("no filesystem type %s to mount %s with",
			       ex.fstype, self->dev);
		}
		EXPECT_NE(0, variant->err) {
			TH_LOG("%s (%s) refused: %s; expected a read-only mount",
			       self->dev, self->kind, strerror(err));
		}
		check_refusal(_metadata, self->dev, err, variant->err,
			      variant->msg, before);
		return;
	}
	ret = statvfs(MNT, &st);
	EXPECT_EQ(0, ret);
	if (!ret) {
		EXPECT_NE(0, st.f_flag & ST_RDONLY) {
			TH_LOG("%s (%s) mounted read-write", self->dev,
			       self->kind);
		}
	}
	EXPECT_EQ(0, variant->err) {
		TH_LOG("%s (%s) mounted; expected %s", self->dev, self->kind,
		       strerror(variant->err));
	}
	EXPECT_EQ(0, umount(MNT));
}

FIXTURE(flagged_image) {
	int mounted;
};

FIXTURE_SETUP(flagged_image)
{
	ASSERT_EQ(0, mount_dev(FLAGGED_DEV, ex.fstype)) {
		TH_LOG("mount -t %s: %s", ex.fstype, strerror(errno));
	}
	self->mounted = 1;
}

FIXTURE_TEARDOWN(flagged_image)
{
	if (self->mounted)
		EXPECT_EQ(0, umount(MNT));
}

TEST_F(flagged_image, a_pattern_survives_fsync_and_remount)
{
	char line[64], back[64];
	int i, len, fd;
	FILE *f;

	fd = open(MNT "/pattern", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < PATTERN_LINES; i++) {
		len = pattern_line(line, sizeof(line), "pattern", i);
		ASSERT_EQ(0, write_all(fd, line, len));
	}
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, umount(MNT));
	self->mounted = 0;
	ASSERT_EQ(0, mount_dev(FLAGGED_DEV, ex.fstype));
	self->mounted = 1;
	f = fopen(MNT "/pattern", "r");
	ASSERT_NE(NULL, f);
	for (i = 0; i < PATTERN_LINES; i++) {
		pattern_line(line, sizeof(line), "pattern", i);
		ASSERT_NE(NULL, fgets(back, sizeof(back), f));
		ASSERT_STREQ(line, back);
	}
	EXPECT_EQ(NULL, fgets(back, sizeof(back), f));
	fclose(f);
}

static void check_xattr(struct __test_metadata *_metadata, const char *name,
			const char *value, int supported)
{
	char back[64] = "";
	ssize_t len;
	int ret;

	ret = setxattr(MNT "/xattrs", name, value, strlen(value), 0);
	if (!supported) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EOPNOTSUPP, errno);
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("setxattr %s: %s", name, strerror(errno));
	}
	len = getxattr(MNT "/xattrs", name, back, sizeof(back) - 1);
	ASSERT_EQ((ssize_t)strlen(value), len);
	EXPECT_STREQ(value, back);
}

TEST_F(flagged_image, user_trusted_and_security_xattrs_read_back)
{
	ASSERT_EQ(0, write_file(MNT "/xattrs", "xattrs\n", 0644));
	check_xattr(_metadata, "user.kbranch", "user value", 1);
	check_xattr(_metadata, "trusted.kbranch", "trusted value", 1);
	check_xattr(_metadata, "security.kbranch", "security value",
		    ex.security);
}

TEST_F(flagged_image, a_posix_acl_denies_the_named_user)
{
	unsigned char acl[64];
	size_t len = deny_acl(acl);
	int ret;

	ASSERT_EQ(0, write_file(MNT "/acl", "acl\n", 0644));
	ASSERT_EQ(0, chmod(MNT "/acl", 0644));
	ret = setxattr(MNT "/acl", "system.posix_acl_access", acl, len, 0);
	if (!ex.acl) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EOPNOTSUPP, errno);
		EXPECT_EQ(0, open_as_denied_user(MNT "/acl"));
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("setxattr system.posix_acl_access: %s", strerror(errno));
	}
	EXPECT_EQ(EACCES, open_as_denied_user(MNT "/acl"));
}

TEST_F(flagged_image, an_unprivileged_user_cannot_set_a_trusted_xattr)
{
	const char *path = MNT "/unprivileged";

	ASSERT_EQ(0, write_file(path, "unprivileged\n", 0644));
	/* The user owns the file: only the trusted namespace can deny it. */
	ASSERT_EQ(0, chown(path, DENIED_UID, DENIED_UID));
	EXPECT_EQ(0, setxattr_as_denied_user(path, "user.kbranch", "v", 1));
	EXPECT_EQ(EPERM, setxattr_as_denied_user(path, "trusted.kbranch",
						 "v", 1));
}

TEST_F(flagged_image, an_unprivileged_user_cannot_change_a_root_files_acl)
{
	unsigned char acl[64];
	size_t len = deny_acl(acl);
	const char *name = "system.posix_acl_access";

	SKIP_WHERE(return, "acl=0", "no POSIX ACLs configured");
	ASSERT_EQ(0, write_file(MNT "/user-acl", "user acl\n", 0644));
	ASSERT_EQ(0, chown(MNT "/user-acl", DENIED_UID, DENIED_UID));
	EXPECT_EQ(0, setxattr_as_denied_user(MNT "/user-acl", name, acl, len));
	/* Writable by all: only the owner check stands in the user's way. */
	ASSERT_EQ(0, write_file(MNT "/root-acl", "root acl\n", 0666));
	ASSERT_EQ(0, chmod(MNT "/root-acl", 0666));
	EXPECT_EQ(EPERM, setxattr_as_denied_user(MNT "/root-acl", name, acl,
						 len));
	EXPECT_EQ(-1, getxattr(MNT "/root-acl", name, NULL, 0));
	EXPECT_EQ(ENODATA, errno);
}

/* Defined last so that it runs last and sees every other test's messages. */
FIXTURE(end_of_run) {
	int unused;
};

FIXTURE_SETUP(end_of_run)
{
}

FIXTURE_TEARDOWN(end_of_run)
{
}

TEST_F(end_of_run, the_kernel_log_has_no_oops_bug_warning_or_call_trace)
{
	static const char * const bad[] = {
		"Oops", "BUG:", "WARNING:", "Call Trace",
	};
	char *log = kernel_log();
	const char *word;
	size_t i;

	ASSERT_NE(NULL, log);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		word = bad[i];
		EXPECT_EQ(NULL, strstr(log, word)) {
			TH_LOG("kernel log contains \"%s\"", word);
		}
	}
	free(log);
}

static void mount_early(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir(MNT, 0755);
	if (mount("proc", "/proc", "proc", 0, NULL) ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) ||
	    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
		printf(MARK "early mount failed: %s\n",
		       strerror(errno));
}

/*
 * Mount the crash image, fsync a pattern and its directory, and leave it
 * mounted for the reset: the host finds what only the journal holds.
 * Returns NULL, or the step that failed (errno tells why).
 */
static const char *crash_write(void)
{
	char line[64];
	int fd, dir, i, len;

	if (mount_dev(CRASH_DEV, ex.fstype))
		return "mount";
	fd = open(MNT "/crash-pattern", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return "open";
	for (i = 0; i < CRASH_LINES; i++) {
		len = pattern_line(line, sizeof(line), "crash", i);
		if (write_all(fd, line, len))
			return "write";
	}
	if (fsync(fd))
		return "fsync";
	dir = open(MNT, O_RDONLY | O_DIRECTORY);
	if (dir < 0)
		return "open " MNT;
	if (fsync(dir))
		return "fsync " MNT;
	return NULL;
}

static int run_checks(int argc, char **argv)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(test_harness_run(argc, argv));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The type of the last mount on @dir in /proc/mounts, or "none". */
static void mount_type(const char *dir, char *type, size_t size)
{
	char line[256], d[128], t[32];
	FILE *f = fopen("/proc/mounts", "r");

	snprintf(type, size, "none");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %127s %31s", d, t) == 2 && !strcmp(d, dir))
			snprintf(type, size, "%s", t);
	fclose(f);
}

/*
 * Booted as /sbin/init of a root filesystem, with no initramfs and no
 * rootfstype=: the kernel found the root's type by trying the registered
 * block filesystem types in order.  Report the type it settled on and that
 * order, for the host to judge, then reset.
 */
/* The block filesystem types, in registration order, on one line. */
static void print_block_filesystems(void)
{
	char line[128], name[32];
	FILE *f = fopen("/proc/filesystems", "r");

	printf(MARK "block filesystems=");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "nodev", 5) && sscanf(line, "%31s", name) == 1)
			printf("%s ", name);
	if (f)
		fclose(f);
	printf("\n");
}

static void root_probe(void)
{
	char type[32];

	if (mount("proc", "/proc", "proc", 0, NULL))
		printf(MARK "mount /proc: %s\n", strerror(errno));
	mount_type("/", type, sizeof(type));
	printf(MARK "root fstype=%s\n", type);
	print_block_filesystems();
	printf(MARK "end status=0\n");
	tcdrain(STDOUT_FILENO);
	reboot(RB_AUTOBOOT);
}

/*
 * Every test this program runs, a line each as the harness names it
 * ("fixture.test", or "fixture.variant.test"): the host pins them.
 */
static void list_tests(void)
{
	struct __fixture_variant_metadata *v;
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next) {
		for (t = f->tests; t; t = t->next) {
			if (!f->variant)
				printf("%s.%s\n", f->name, t->name);
			for (v = f->variant; v; v = v->next)
				printf("%s.%s.%s\n", f->name, v->name, t->name);
		}
	}
}

/* The hostile kinds, a line each: the variants of hostile_image. */
static void list_hostile_kinds(void)
{
	struct __fixture_variant_metadata *v;

	for (v = _hostile_image_fixture_object.variant; v; v = v->next)
		printf("%s\n", v->name);
}

/*
 * The guest<->host contract, printed on the host: the bytes the guest
 * writes, which the host's read-back compares with (lib/hostcheck.sh),
 * and the hostile kinds the host makes images of (lib/images.sh), so that
 * both sides never hold a copy of their own; and the kernel log block the
 * guest prints, of the host's own kernel log, so that the host's reader
 * of it (lib/facts.sh) can be tried without a boot.
 */
#define PRINTABLE	"pattern, crash, acl, hostile-kinds or kernel-log"

static int print_contract(const char *what)
{
	unsigned char acl[64];
	char line[64];
	int i, lines;

	if (!strcmp(what, "kernel-log"))
		return print_kernel_log() ? 1 : 0;
	if (!strcmp(what, "hostile-kinds")) {
		list_hostile_kinds();
		return 0;
	}
	if (!strcmp(what, "acl")) {
		size_t len = deny_acl(acl);

		return fwrite(acl, 1, len, stdout) == len ? 0 : 1;
	}
	if (!strcmp(what, "pattern")) {
		lines = PATTERN_LINES;
	} else if (!strcmp(what, "crash")) {
		lines = CRASH_LINES;
	} else {
		fprintf(stderr, "ext4-checks: --print " PRINTABLE "\n");
		return 2;
	}
	for (i = 0; i < lines; i++) {
		pattern_line(line, sizeof(line), what, i);
		fputs(line, stdout);
	}
	return 0;
}

/* The kernel's taint flags, for the host to report (0: untainted). */
static void print_tainted(void)
{
	char line[32] = "unreadable";
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			snprintf(line, sizeof(line), "unreadable");
		fclose(f);
	}
	line[strcspn(line, "\n")] = 0;
	printf(MARK "tainted=%s\n", line);
}

/*
 * A tester's reproducer (kbranch bisect --test): /reproducer, a shell
 * script run by busybox sh with the scratch disks attached, instead of
 * the checks.  Its exit status is the run's: 0 good, 125 cannot test,
 * anything else bad.  Returns that status, or -1 when it could not run.
 */
static int run_reproducer(void)
{
	int status = 0;
	pid_t pid;

	/* Every busybox applet on PATH, for the script. */
	if (system("/bin/busybox --install -s /bin"))
		printf(MARK "busybox --install failed\n");
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execl("/bin/sh", "sh", "/reproducer", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *failed;
	int status = -1;

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		list_tests();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--print"))
		return print_contract(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--root-probe")) {
		root_probe();
		for (;;)
			pause();
	}
	mount_early();
	/* Keep the kernel's info lines from interleaving with our KTAP. */
	klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 5);
	printf(MARK "begin\n");
	print_block_filesystems();
	if (access("/reproducer", R_OK) == 0) {
		status = run_reproducer();
		printf(MARK "reproducer status=%d\n", status);
		print_tainted();
		print_kernel_log();
		printf(MARK "end status=%d\n", status);
		tcdrain(STDOUT_FILENO);
		reboot(RB_AUTOBOOT);
		for (;;)
			pause();
	}
	if (load_expect("/expect"))
		printf(MARK "/expect missing or incomplete\n");
	else
		status = run_checks(argc, argv);
	/* The other images are unmounted: flush them, not the crash image. */
	sync();
	failed = status < 0 ? "no checks ran" : crash_write();
	if (failed)
		printf(MARK "crash image not written: %s: %s\n",
		       failed, strerror(errno));
	else
		printf(MARK "crash image written\n");
	print_tainted();
	/* Last, so that it holds every line of the run, the crash image's too. */
	print_kernel_log();
	printf(MARK "end status=%d\n", status);
	/* The UART drains from interrupts: let it, the reset would not wait. */
	tcdrain(STDOUT_FILENO);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}
