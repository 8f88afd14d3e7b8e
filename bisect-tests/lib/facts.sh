# shellcheck shell=bash
# What the guest says, parsed once.  A console (console.log, or a
# root-probe boot's root-<kind>.console) becomes a facts file: one
# "key value" record a line, in the console's order.  The stages read
# what the kernel and the guest said from the facts, never from the
# console (only QEMU's own complaints are read there, by lib/qemu.sh's
# retries), and /expect only as the guest echoed it.  The records:
#
#   kernel <line>       a line the kernel printed: all of the console
#                       outside the guest's run, and its timestamped lines
#   marker begin        the guest starts its checks
#   fs <types>          the registered block filesystem types, in order
#   expect <key=value>  a line of /expect, as the guest read it
#   ktap <line>         the guest's KTAP (the kselftest harness's lines)
#   test <name> <ok|fail|skip> [<why>]   a KTAP result; a skip's why is
#                       the guest's reason, "<key=value>: <text>"
#   marker crash-written   the crash image holds its fsynced pattern
#   crash-failed <why>  the crash image was not written: the step, errno
#   klog <line>         a line of the guest's copy of the whole kernel log,
#                       as the console shows it ("[time] text")
#   klog-lines <n>      how many lines the guest copied (-1: unreadable)
#   root <type>         the type the kernel mounted the root with
#   tainted <n>         /proc/sys/kernel/tainted at the end of the run
#   reproducer <n>      a tester's reproducer's exit status (--test)
#   note <text>         anything else the guest said (a mount that failed)
#   end status=<n>      the guest's last line: its checks' exit status
#
# The guest (guest/ext4-checks.c) prints its markers as lines of their
# own, each starting with this; it prints nothing else that does.
BT_MARK='# ext4-checks: '

# The facts of console $1, on stdout.
facts_of() {
	LC_ALL=C awk -v mark="$BT_MARK" '
		# Whether $0 starts with the marker mark p; its rest in "rest".
		function is(p) {
			if (index($0, mark p) != 1)
				return 0
			rest = substr($0, length(mark p) + 1)
			return 1
		}
		function marker() {
			if (is("begin") && rest == "") { guest = 1; print "marker begin" }
			else if (is("block filesystems=")) { sub(/ +$/, "", rest); print "fs " rest }
			else if (is("expect ")) print "expect " rest
			else if (is("kernel log begin") && rest == "") klog = 1
			else if (is("crash image written") && rest == "") print "marker crash-written"
			else if (is("crash image not written: ")) print "crash-failed " rest
			else if (is("root fstype=")) print "root " rest
			else if (is("tainted=")) print "tainted " rest
			else if (is("reproducer status=")) print "reproducer " rest
			else if (is("end status=")) { print "end status=" rest; guest = 0 }
			else print "note " substr($0, length(mark) + 1)
		}
		# The harness names a skipped test only on its "#  RUN" line.
		function result() {
			if (/^#  RUN /) name = $3
			else if (/^ok [0-9]+ # SKIP/) { why = $0; sub(/^ok [0-9]+ # SKIP */, "", why); print "test " name " skip" (why == "" ? "" : " " why) }
			else if (/^ok [0-9]+ /) print "test " $3 " ok"
			else if (/^not ok [0-9]+ /) print "test " $4 " fail"
		}
		{ gsub(/\r/, "") }
		klog && is("kernel log end lines=") { print "klog-lines " rest; klog = 0; next }
		# Every line of the copy has its "<level>"; one without is the
		# console'"'"'s own, printed while the guest was printing.
		klog && /^<[0-9]+>/ { sub(/^<[0-9]+>/, ""); print "klog " $0; next }
		klog { print "kernel " $0; next }
		index($0, mark) == 1 { marker(); next }
		guest && !/^\[ *[0-9]+\.[0-9]+\]/ { print "ktap " $0; result(); next }
		{ print "kernel " $0 }' "$1"
}

# The values of the records named $2 in facts file $1, one a line, in order.
facts_get() {
	sed -n "s/^$2 //p" "$1"
}

# Does facts file $1 hold the whole record $2 ("marker crash-written")?
# yes or no: an answer printed, for the caller to read, then test (a
# function asked in a condition would run without set -e).
facts_holds() {
	if grep -qxF "$2" "$1"; then echo yes; else echo no; fi
}

# The value of /expect's key $2 as the guest of facts file $1 read it.
facts_expect() {
	sed -n "s/^expect $2=//p" "$1" | tail -n 1
}
