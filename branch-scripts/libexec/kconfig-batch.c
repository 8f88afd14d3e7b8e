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
 *	savedefconfig IN OUT	as "conf --savedefconfig=OUT" of IN
 *	alldefconfig ALL OUT	as "conf --alldefconfig" with KCONFIG_ALLCONFIG=ALL
 *				(merge_config.sh's make step), writing OUT
 *	randconfig ALL OUT SEED	as "conf --randconfig" with KCONFIG_SEED=SEED
 *				and KCONFIG_ALLCONFIG=ALL, writing OUT
 *
 * and makes each config with conf's own steps for that mode.  Reading a
 * config (conf_read(), or conf_read_simple() of ALL) resets every user
 * value first, so one config does not leak into the next; kbranch
 * defconfigs, and the config shapes (lib/shapes.sh) for the modes they
 * use, check that against conf's own results.
 *
 * Build: gcc -I<tree>/scripts/kconfig -I<O=>/scripts/kconfig with the
 * Kconfig objects of the O= dir (all but conf.o).  Exit 1 at the first
 * config that fails, naming it.
 */
#define main conf_main
#include "conf.c"
#undef main

/* A config's values, as conf's main() reads them for MODE. */
static int batch_read(const char *mode, const char *in, const char *seed)
{
	char *end;

	if (!strcmp(mode, "defconfig") || !strcmp(mode, "olddefconfig") ||
	    !strcmp(mode, "savedefconfig"))
		return conf_read(in);
	if (!strcmp(mode, "alldefconfig") && !*seed)
		return conf_read_simple(in, S_DEF_USER);
	if (!strcmp(mode, "randconfig") && *seed) {
		/* set_randconfig_seed(), with the seed given */
		srand(strtol(seed, &end, 0));
		return *end ? -1 : conf_read_simple(in, S_DEF_USER);
	}
	return -1;
}

static int batch_one(const char *mode, const char *in, const char *out,
		     const char *seed)
{
	if (batch_read(mode, in, seed))
		return -1;
	if (conf_errors())
		return -1;
	if (!strcmp(mode, "defconfig") || !strcmp(mode, "alldefconfig"))
		conf_set_all_new_symbols(def_default);
	/* conf's main() too repeats the random pass until it changes nothing */
	if (!strcmp(mode, "randconfig"))
		while (conf_set_all_new_symbols(def_random))
			continue;
	if (sym_dep_errors())
		return -1;
	if (!strcmp(mode, "savedefconfig"))
		return conf_write_defconfig(out) ? -1 : 0;
	return conf_write(out) ? -1 : 0;
}

int main(int argc, char **argv)
{
	char line[2 * PATH_MAX + 100], mode[32], in[PATH_MAX], out[PATH_MAX];
	char seed[32];
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s KCONFIG <lines of MODE IN OUT [SEED]\n", argv[0]);
		return 1;
	}
	conf_set_message_callback(NULL);
	conf_parse(argv[1]);
	while (fgets(line, sizeof(line), stdin)) {
		seed[0] = '\0';
		n = sscanf(line, "%31s %4095s %4095s %31s", mode, in, out, seed);
		if (n <= 0)
			continue;
		if (n < 3 || batch_one(mode, in, out, seed)) {
			fprintf(stderr, "kconfig-batch: %s %s failed\n", mode, in);
			return 1;
		}
		printf("%s\n", out);
		fflush(stdout);
	}
	return 0;
}
