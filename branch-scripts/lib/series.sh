# shellcheck shell=bash
# Reading and checking series.txt before anything is touched.

# Print the absolute path of every patch of the series, in order, or die
# naming the first bad entry.  Names are plain file names in patches/: that
# rules out paths that escape the repository and shell metacharacters.
series_paths() {
	local name count=0
	while IFS= read -r name; do
		[[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
			die "series.txt: bad patch name '$name' (plain file names in patches/ only)"
		[ -f "$KB_REPO/patches/$name" ] || die "series.txt: patches/$name does not exist"
		grep -q '^GIT binary patch' "$KB_REPO/patches/$name" &&
			die "series.txt: patches/$name adds a binary file; kernel patches are text"
		printf '%s\n' "$KB_REPO/patches/$name"
		count=$((count + 1))
	done < <(series_entries "$KB_REPO/series.txt")
	[ "$count" -gt 0 ] || die "series.txt lists no patches"
}

# Entries of a quilt series file: drop comments, blank lines and patch options.
series_entries() {
	[ -f "$1" ] || die "series file $1 is missing"
	sed -e 's/[[:space:]]#.*//' -e 's/^#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' -e '/^$/d' "$1"
}

# The linux-source version the series was last verified against.
verified_version() {
	cat "$KB_REPO/base/linux-source.version"
}

# Empty when no linux-source is installed: apply only warns about versions.
installed_version() {
	local tars=(/usr/src/linux-source-*.tar.xz)
	[ -f "${tars[0]}" ] || return 0
	package_version "${tars[0]}"
}
