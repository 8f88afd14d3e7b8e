#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# The thread submit writes, without b4 or a kernel tree: how
# branch-scripts/libexec/thread-headers addresses each message.  With the
# tree's own get_maintainer.pl and b4: ci/40-review.bats.

load helpers

THREAD=$REPO/branch-scripts/libexec/thread-headers

# A message as b4 0.12 writes it, everyone on To: and Cc: (the union),
# touching file $2, with the body lines $3 before the "---".
b4_message() {
	cat <<MSG
From: Tess Tester <tess@kernel.test>
Subject: $1
 folded
Date: Mon, 07 Dec 2026 10:00:00 +0000
Message-Id: <$RANDOM@kernel.test>
To: Ted <tytso@mit.edu>, 
 Russell King <linux@armlinux.org.uk>
Cc: linux-ext4@vger.kernel.org, linux-arm-kernel@lists.infradead.org

$3
---
diff --git a/$2 b/$2
--- a/$2
+++ b/$2
@@ -1 +1 @@
-old
+new
MSG
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# Stand-ins for get_maintainer.pl --nol / --nom: the maintainers and
	# the lists of what the patch on stdin changes.
	cat >to <<'CMD'
#!/bin/sh
diff=$(cat)
case $diff in *"diff --git a/fs/ext4/"*) echo "Ted <tytso@mit.edu>" ;; esac
case $diff in *"diff --git a/arch/arm/"*) echo "Russell King <linux@armlinux.org.uk>" ;; esac
CMD
	sed -e 's/Ted <tytso@mit.edu>/linux-ext4@vger.kernel.org/' \
		-e 's/Russell King <linux@armlinux.org.uk>/linux-arm-kernel@lists.infradead.org/' to >cc
	chmod +x to cc
	b4_message '[PATCH 0/2] ext4: rename ext4dev to ext4' "" "The cover." >0000.eml
	b4_message '[PATCH 1/2] ext4: a change' fs/ext4/super.c \
		$'Why.\n\nReviewed-by: Rae Viewer <rae@kernel.test>\nSigned-off-by: Tess Tester <tess@kernel.test>' >0001.eml
	b4_message '[PATCH 2/2] ARM: configs: a change' arch/arm/configs/x_defconfig \
		$'Why.\n\nSigned-off-by: Tess Tester <tess@kernel.test>' >0002.eml
	mkdir orig && cp 000?.eml orig/
}

# Header $2 of message $1, unfolded, as a comma-separated list.
header() {
	python3 -c 'import email, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
print(", ".join(a for _, a in email.utils.getaddresses(m.get_all(sys.argv[2], []))))' "$1" "$2"
}

@test "thread: each patch goes To/Cc only what the commands name for it and the people its trailers name, never its sender; the cover letter to all of them; each Subject: on one line" {
	run "$THREAD" ./to ./cc 0000.eml 0001.eml 0002.eml
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(header 0001.eml to)" = "tytso@mit.edu" ]
	[ "$(header 0001.eml cc)" = "linux-ext4@vger.kernel.org, rae@kernel.test" ]
	[ "$(header 0002.eml to)" = "linux@armlinux.org.uk" ]
	[ "$(header 0002.eml cc)" = "linux-arm-kernel@lists.infradead.org" ]
	[ "$(header 0000.eml to)" = "tytso@mit.edu, linux@armlinux.org.uk" ]
	[ "$(header 0000.eml cc)" = "linux-ext4@vger.kernel.org, rae@kernel.test, linux-arm-kernel@lists.infradead.org" ]
	# Each Subject: on one line, its words as they were.
	grep -qxF 'Subject: [PATCH 1/2] ext4: a change folded' 0001.eml
	for m in 0000 0001 0002; do
		[ "$(sed -n '/^Subject:/{n;p;q}' "$m.eml")" = "Date: Mon, 07 Dec 2026 10:00:00 +0000" ]
		# Nothing else of a message changes: its other headers, its body.
		diff <(grep -v '^To:\|^Cc:\|^ \|^Subject:' "orig/$m.eml") <(grep -v '^To:\|^Cc:\|^ \|^Subject:' "$m.eml")
	done
}

@test "thread: --list names each message's recipients; a command that fails is a non-zero exit and no message changes" {
	run "$THREAD" --list 0001.eml
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "[PATCH 1/2] ext4: a change folded" ]
	[ "${lines[1]}" = "  To: Ted <tytso@mit.edu>, Russell King <linux@armlinux.org.uk>" ]
	[ "${lines[2]}" = "  Cc: linux-ext4@vger.kernel.org, linux-arm-kernel@lists.infradead.org" ]
	run "$THREAD" ./to false 0000.eml 0001.eml 0002.eml
	[ "$status" -ne 0 ]
	for m in 0000 0001 0002; do
		cmp "orig/$m.eml" "$m.eml"
	done
	run "$THREAD" ./to
	[ "$status" -ne 0 ]
	[[ "$output" == "usage: thread-headers "* ]]
}
