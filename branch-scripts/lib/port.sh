# shellcheck shell=bash
# The port report: how much of the fixture and the series applies to
# another packaged version, hunk by hunk, and how much the code under the
# failing hunks changed between the two imports (kbranch rebase
# --report-only, and a rebase or import that does not apply).

# The hunks of one file in a patch: how many there are.
patch_hunks() {
	local patch=$1 file=$2
	awk -v f="$file" '/^diff --git / { on = ($3 == "a/" f) } on && /^@@ / { n++ } END { print n + 0 }' "$patch"
}

# One line per file of a patch that did not apply whole: which hunks
# failed, and the file's change between the two imports.  $2: git apply
# --reject's output; the .rej files are in the worktree $3.
report_rejects() {
	local patch=$1 applied=$2 wt=$3 old=$4 new=$5 name file hunks stat
	name=$(basename "$patch")
	while read -r file; do
		[ -n "$file" ] || continue
		if [ -f "$wt/$file.rej" ]; then
			hunks=$(grep -c '^@@' "$wt/$file.rej")
			hunks="$hunks of $(patch_hunks "$patch" "$file") hunks fail: $(grep '^@@' "$wt/$file.rej" | sed 's/ @@.*/ @@/' | paste -sd' ' -)"
		else
			hunks="the whole file fails: $(grep -m1 -F "error: $file: " <<<"$applied" | sed "s|^error: $file: ||")"
		fi
		stat=$(kgit diff --shortstat "packaged/$old" "packaged/$new" -- "$file" | sed 's/^ *1 file changed, //')
		printf '  %s: %s: %s; packaged/%s -> packaged/%s: %s\n' "$name" "$file" "$hunks" "$old" "$new" "${stat:-unchanged}"
	done < <({
		sed -nE 's/^Applying patch (.*) with [0-9]+ rejects?\.\.\.$/\1/p; s/^error: (.*): (No such file or directory|does not exist in index|does not exist in working tree)$/\1/p' <<<"$applied"
	} | sort -u)
}

# Apply the fixture (unless ext4dev-base-<version> exists: it applied)
# and then each patch of the series onto packaged/<version>, cumulatively,
# with git apply --reject in a scratch worktree; print what fails.
# Its last line says whether a hunk failed; it fails only when it cannot
# report (its callers call it plainly, not in a condition, where set -e
# would not hold).
port_report() {
	local version=$1 ref old wt=$KBRANCH_WORK/port.wt patches=() patch applied start lines failed=0 hunks=0 files=0
	ref=$(version_ref "$version")
	old=$(base_version)
	drop_worktree "$wt"
	rm -rf "$wt.patches"
	if kgit rev-parse -q --verify "refs/tags/$KB_BASE_TAG-$ref" >/dev/null; then
		start=$KB_BASE_TAG-$ref
	else
		start=packaged/$ref
		patches=("$KB_REPO"/base/*.patch)
	fi
	format_series "$wt.patches"
	patches+=("$wt.patches"/*.patch)
	kgit worktree add -q --detach "$wt" "$start" || die "cannot check $start out in $wt"
	echo "port report: the series from linux-source $old onto $version (from $start; git apply --reject, each patch on the last's result)"
	for patch in "${patches[@]}"; do
		applied=$(git -C "$wt" apply --reject --verbose --whitespace=nowarn "$patch" 2>&1) || true
		lines=$(report_rejects "$patch" "$applied" "$wt" "$old" "$ref")
		if [ -n "$lines" ]; then
			printf '%s\n' "$lines"
			failed=1
			files=$((files + $(grep -c . <<<"$lines")))
			hunks=$((hunks + $(find "$wt" -name '*.rej' -exec grep -h '^@@' {} + | grep -c . || true)))
		else
			printf '  %s: applies\n' "$(basename "$patch")"
		fi
		find "$wt" -name '*.rej' -delete
	done
	drop_worktree "$wt"
	rm -rf "$wt.patches"
	if [ "$failed" -eq 1 ]; then
		echo "port report: ${#patches[@]} patches, $files (patch, file) pairs fail: $hunks hunks rejected, and whole files where the file is gone"
	else
		echo "port report: all ${#patches[@]} patches apply"
	fi
}
