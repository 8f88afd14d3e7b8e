# shellcheck shell=bash
# summary: extract Debian's linux-source into $KBRANCH_WORK/linux, tag packaged/<version>, apply base/ as ext4dev-base; a newer version joins the same repository beside the old; [--source TARBALL|DEB]

# The packaged tree as a root commit of repository $1 (a git dir), tagged
# packaged/<version>, dated by the tarball so that every machine with the
# same package gets the same commit, whether the repository is new or
# already holds another version.
import_packaged() {
	local gitdir=$1 tarball=$2 version=$3 tmp=$4 when tree commit
	when=$(stat -c %Y "$tarball")
	step "extracting $(basename "$tarball") ($version)"
	mkdir -p "$tmp" 2>/dev/null || die "cannot create $tmp"
	quietly "cannot extract $tarball into $KBRANCH_WORK" \
		tar -xJf "$tarball" -C "$tmp" --strip-components=1
	step "committing the packaged tree"
	# Debian's .gitignore ignores the whole top level, hence -f.
	GIT_INDEX_FILE=$tmp.index quietly "cannot index the packaged tree" \
		git --git-dir="$gitdir" --work-tree="$tmp" add -A -f
	tree=$(GIT_INDEX_FILE=$tmp.index git --git-dir="$gitdir" write-tree) || die "cannot write the packaged tree"
	rm -f "$tmp.index"
	commit=$(GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$when +0000" \
		GIT_AUTHOR_NAME="Debian linux-source" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
		GIT_COMMITTER_NAME="Debian linux-source" GIT_COMMITTER_EMAIL="debian-kernel@lists.debian.org" \
		git --git-dir="$gitdir" commit-tree -m "Import linux-source $version as packaged by Debian" "$tree") ||
		die "cannot commit the packaged tree"
	git --git-dir="$gitdir" -c user.name=kbranch -c user.email=kbranch@localhost \
		tag -a -m "linux-source $version, untouched" "packaged/$(version_ref "$version")" "$commit"
}

# Which fixture a base was made from: recorded in the tag, so that an
# import notices when base/ has changed since.
fixture_id() {
	cat "$KB_REPO"/base/*.patch | sha256sum | cut -c1-12
}

apply_base() {
	local patch why
	step "applying base/ (the ext4dev-era fixture)"
	for patch in "$KB_REPO"/base/*.patch; do
		why=$(am_one "$patch")
		[ -z "$why" ] || die "base fixture: $why (linux-source $1)"
	done
	kgit tag -f -a -m "ext4dev-era fixture on linux-source $1 (fixture $(fixture_id))" "$KB_BASE_TAG" >/dev/null
}

# base/ changed since this tree was imported: make the base again on the
# same packaged commit.  The branch stays where it is until "kbranch apply"
# puts the series on the new base; the old base stays reachable as a tag.
refresh_base() {
	local version=$1 old
	old=$(kgit rev-parse "$KB_BASE_TAG^{commit}")
	require_clean_tree
	restore_head_on_exit
	kgit checkout -q --detach "packaged/$(version_ref "$version")"
	apply_base "$version"
	kgit tag -f "$KB_BASE_TAG-previous" "$old" >/dev/null
	step "base/ changed since the import: $KB_BASE_TAG is now $(kgit rev-parse --short "$KB_BASE_TAG^{commit}") (was ${old:0:7}, kept as $KB_BASE_TAG-previous); run 'kbranch apply'"
}

# The source to import: --source FILE (an installed tarball, or a
# linux-source .deb, downloaded or not), else the one installed tarball.
# Sets SOURCE_VERSION, and SOURCE_TARBALL (for a .deb, SOURCE_DEB: its
# tarball is extracted only when it is imported).
resolve_source() {
	local file=$1 package
	SOURCE_DEB=
	if [ -z "$file" ]; then
		SOURCE_TARBALL=$(source_tarball)
		SOURCE_VERSION=$(package_version "$SOURCE_TARBALL")
		return
	fi
	[ -f "$file" ] || die "--source: no file $file"
	case "$file" in
	*.deb)
		package=$(dpkg-deb -f "$file" Package 2>/dev/null) || die "--source: $file is not a Debian package"
		[[ "$package" =~ ^linux-source-[0-9]+\.[0-9]+$ ]] ||
			die "--source: $file is $package, not a linux-source package"
		SOURCE_VERSION=$(dpkg-deb -f "$file" Version)
		SOURCE_DEB=$(readlink -f "$file")
		SOURCE_TARBALL=$KB_TMP/deb/usr/src/$package.tar.xz
		;;
	*.tar.xz)
		SOURCE_TARBALL=$(readlink -f "$file")
		SOURCE_VERSION=$(package_version "$SOURCE_TARBALL")
		;;
	*) die "--source: $file is neither a linux-source .tar.xz nor a .deb" ;;
	esac
}

# A .deb's tarball, out of the package without installing it.  tar keeps
# its time, which dates the commit: the same commit as the installed one.
extract_deb_tarball() {
	[ -n "$SOURCE_DEB" ] || return 0
	step "extracting ${SOURCE_TARBALL#"$KB_TMP/deb/"} from $(basename "$SOURCE_DEB")"
	mkdir -p "$KB_TMP/deb"
	dpkg-deb --fsys-tarfile "$SOURCE_DEB" | tar -x -C "$KB_TMP/deb" ".${SOURCE_TARBALL#"$KB_TMP/deb"}" 2>/dev/null ||
		die "--source: $SOURCE_DEB holds no ${SOURCE_TARBALL#"$KB_TMP/deb"}"
}

# A newer version into the repository that holds the older: its own root
# commit (the same one a fresh import makes: same tree, identities and
# date), then the fixture on it as ext4dev-base-<version>.  The branch and
# ext4dev-base stay on the old base until "kbranch rebase" moves them.
import_beside() {
	local version=$1 ref tmp=$KB_TMP/tree old
	ref=$(version_ref "$version")
	old=$(base_version)
	step "adding packaged/$ref beside packaged/$old"
	extract_deb_tarball
	import_packaged "$KTREE/.git" "$SOURCE_TARBALL" "$version" "$tmp"
	rm -rf "$tmp"
	base_beside "$version"
	step "imported linux-source $version beside $old: packaged/$ref, $KB_BASE_TAG-$ref; move the series with 'kbranch rebase $version'"
}

# The fixture on packaged/<version>, in a worktree of its own: the main
# tree and its HEAD are not touched.
base_beside() {
	local version=$1 ref wt=$KB_TMP/base-wt fixture why
	ref=$(version_ref "$version")
	drop_worktree "$wt"
	quietly "cannot check packaged/$ref out in a worktree" kgit worktree add -q --detach "$wt" "packaged/$ref"
	for fixture in "$KB_REPO"/base/*.patch; do
		why=$(KTREE=$wt am_one "$fixture")
		if [ -n "$why" ]; then
			drop_worktree "$wt"
			die "base fixture: $why (linux-source $version); packaged/$ref is kept; 'kbranch rebase $version --report-only' says how much does not apply"
		fi
	done
	git -C "$wt" -c user.name=kbranch -c user.email=kbranch@localhost tag -a \
		-m "ext4dev-era fixture on linux-source $version (fixture $(fixture_id))" "$KB_BASE_TAG-$ref" HEAD
	drop_worktree "$wt"
}

# What a killed import left: its scratch dir, and the fixture's worktree
# in it, whose entry git keeps (locked, if it was being made) after the
# directory is gone.
drop_import_scratch() {
	local wt work
	if [ -d "$KTREE/.git" ]; then
		# git lists worktrees by their physical path.
		work=$(cd "$KBRANCH_WORK" && pwd -P)
		while read -r wt; do
			drop_worktree "$wt"
		done < <(kgit worktree list --porcelain |
			awk -v scratch="worktree $work/linux.import." 'index($0, scratch) == 1 { print substr($0, 10) }')
	fi
	rm -rf "$KBRANCH_WORK"/linux.import.*
}

parse_import_args() {
	IMPORT_SOURCE=
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--source) [ -n "${2:-}" ] || die "--source needs a file"; IMPORT_SOURCE=$2; shift 2 ;;
		*) die "import: unknown argument '$1' (usage: kbranch import [--source TARBALL|DEB])" ;;
		esac
	done
}

run() {
	parse_import_args "$@"
	# shellcheck source=branch-scripts/lib/patches.sh
	. "$KB_REPO/branch-scripts/lib/patches.sh"
	mkdir -p "$KBRANCH_WORK" 2>/dev/null || die "cannot create work dir $KBRANCH_WORK"
	take_lock
	ensure_deps
	# Scratch beside the final place, removed on exit and by the next run:
	# an interrupted import leaves nothing half made.
	drop_import_scratch
	KB_TMP="$KBRANCH_WORK/linux.import.$$"
	trap 'rm -rf "$KB_TMP"; [ ! -d "$KTREE/.git" ] || git -C "$KTREE" worktree prune' EXIT
	mkdir -p "$KB_TMP"
	local version ref current fixture recorded
	resolve_source "$IMPORT_SOURCE"
	version=$SOURCE_VERSION
	ref=$(version_ref "$version")
	if [ -d "$KTREE/.git" ]; then
		git -C "$KTREE" rev-parse -q --verify "refs/tags/$KB_BASE_TAG" >/dev/null ||
			die "$KTREE has no $KB_BASE_TAG; move it away and re-import"
		if ! git -C "$KTREE" rev-parse -q --verify "refs/tags/packaged/$ref" >/dev/null; then
			current=$(base_version)
			current=${current//_/\~}
			dpkg --compare-versions "$version" gt "$current" ||
				die "linux-source $version is older than the current base's $current; kbranch follows its base forward only"
			import_beside "$version"
			return 0
		fi
		current=$(base_version)
		if [ "$current" != "$ref" ]; then
			# A fixture that did not apply last time is tried again.
			kgit rev-parse -q --verify "refs/tags/$KB_BASE_TAG-$ref" >/dev/null || base_beside "$version"
			step "linux-source $version already imported at $KTREE (packaged/$ref, $KB_BASE_TAG-$ref; the series is on $(base_version))"
			return 0
		fi
		fixture=$(fixture_id)
		recorded=$(kgit tag -l --format='%(contents)' "$KB_BASE_TAG")
		if [[ "$recorded" != *"(fixture $fixture)"* ]]; then
			refresh_base "$version"
			return 0
		fi
		step "linux-source $version already imported at $KTREE"
		return 0
	fi
	local tmp=$KB_TMP/tree
	extract_deb_tarball
	git init -q -b import "$tmp"
	git -C "$tmp" config gc.auto 0
	import_packaged "$tmp/.git" "$SOURCE_TARBALL" "$version" "$tmp"
	git -C "$tmp" reset -q "packaged/$ref"
	git -C "$tmp" checkout -q --detach
	KTREE=$tmp apply_base "$version"
	git -C "$tmp" checkout -q "$KB_BASE_TAG"
	mv "$tmp" "$KTREE"
	step "imported linux-source $version: tags packaged/$ref and $KB_BASE_TAG in $KTREE"
}
