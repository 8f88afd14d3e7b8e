// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-batch: many configs from one parse of the Kconfig tree.
 *
 * "conf" parses every Kconfig file, and runs every toolchain probe in
 * them, for each config it makes: for the series' 140 defconfigs that is
 * most of the time.  This program is conf itself (the tree's own conf.c,
 * included below with its main() renamed), driven once per ARCH: it
 * parses Kconfig once, then reads lines on stdin,
 *
 *	defconfig IN OUT	as "conf --defconfig=IN", writing OUT
 *	olddefconfig IN OUT	as "conf --olddefconfig" of IN, writing OUT
 *
 * and makes each config with conf's own steps for that mode.  conf_read()
 * resets every user value first, so one config does not leak into the
 * next; kbranch defconfigs checks that against conf's own results.
 *
 * Build: gcc -I<tree>/scripts/kconfig -I<O=>/scripts/kconfig with the
 * Kconfig objects of the O= dir (all but conf.o).  Exit 1 at the first
 * config that fails, naming it.
 */
#define main conf_main
#include "conf.c"
#undef main

static int batch_one(const char *mode, const char *in, const char *out)
{
	if (strcmp(mode, "defconfig") && strcmp(mode, "olddefconfig"))
		return -1;
	if (conf_read(in))
		return -1;
	if (conf_errors())
		return -1;
	if (!strcmp(mode, "defconfig"))
		conf_set_all_new_symbols(def_default);
	if (sym_dep_errors())
		return -1;
	return conf_write(out) ? -1 : 0;
}

int main(int argc, char **argv)
{
	char mode[32], in[PATH_MAX], out[PATH_MAX];

	if (argc != 2) {
		fprintf(stderr, "usage: %s KCONFIG <lines of MODE IN OUT\n", argv[0]);
		return 1;
	}
	conf_set_message_callback(NULL);
	conf_parse(argv[1]);
	while (scanf("%31s %4095s %4095s", mode, in, out) == 3) {
		if (batch_one(mode, in, out)) {
			fprintf(stderr, "kconfig-batch: %s %s failed\n", mode, in);
			return 1;
		}
		printf("%s\n", out);
		fflush(stdout);
	}
	return 0;
}
