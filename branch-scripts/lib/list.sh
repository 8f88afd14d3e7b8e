# shellcheck shell=bash
# Where the list of kbranch list (cmd/list.sh) is: its directory, ports and
# archive URL, for the subcommands that send to it or read from it.
# KBRANCH_LIST_SMTP_PORT (2525) and KBRANCH_LIST_HTTP_PORT (8780) choose
# the ports when the list starts; both listen on 127.0.0.1 only.  list
# start records them in the list's dir, and every later command reads them
# there, so a port chosen once is not forgotten by the next command.

# shellcheck disable=SC2034 # read by cmd/list.sh
LIST_ADDRESS=linux-ext4@vger.kernel.org
LIST_NAME=linux-ext4

list_dir() {
	printf '%s/list\n' "$KBRANCH_WORK"
}

# The ports list start recorded ("smtp N" and "http N" lines), or, before
# any start, the settings'.
list_ports_file() {
	printf '%s/ports\n' "$(list_dir)"
}

recorded_port() {
	local kind=$1 default=$2 file port=
	file=$(list_ports_file)
	[ ! -s "$file" ] || port=$(sed -n "s/^$kind \([0-9][0-9]*\)\$/\1/p" "$file")
	printf '%s\n' "${port:-$default}"
}

list_smtp_port() {
	recorded_port smtp "$KBRANCH_LIST_SMTP_PORT"
}

list_http_port() {
	recorded_port http "$KBRANCH_LIST_HTTP_PORT"
}

# The archive's URL; a message is at <url><message-id>/.
list_url() {
	printf 'http://127.0.0.1:%s/%s/\n' "$(list_http_port)" "$LIST_NAME"
}

# Where pull-request publishes the branch, the tag and the fixture's tag
# (git config kbranch.publish-url; default a bare repository in the work
# dir), and the URL others fetch that from (kbranch.public-url), which the
# cover letter names.
publish_url() {
	git -C "$KTREE" config kbranch.publish-url || printf '%s\n' "$KBRANCH_WORK/publish.git"
}

# (git itself, not kgit, where its failure is tested: set -e does not hold
# in a function called in a condition.)
public_url() {
	local url
	url=$(git -C "$KTREE" config kbranch.public-url) || url=$(publish_url)
	printf '%s\n' "$url"
}

# Whether something listens on port $1: "taken" or "free".  A lookup, not
# a test, so that no caller calls it in a condition, where set -e would not
# hold.
port_state() {
	if [ -n "$(ss -Htln "sport = :$1")" ]; then echo taken; else echo free; fi
}

# git config for b4 without touching the user's files: "key value" pairs
# as arguments, exported as GIT_CONFIG_*, which every git b4 runs reads.
export_git_config() {
	local i=0
	while [ "$#" -ge 2 ]; do
		export "GIT_CONFIG_KEY_$i=$1" "GIT_CONFIG_VALUE_$i=$2"
		i=$((i + 1))
		shift 2
	done
	export GIT_CONFIG_COUNT=$i
}

# b4's view of the archive: message-ids, links and searches all go to it.
list_b4_config() {
	printf '%s\n' b4.midmask "$(list_url)%s" b4.linkmask "$(list_url)%s" \
		b4.searchmask "$(list_url)?x=m&t=1&q=%s"
}

# Messages in the list's queue: what the archive has not taken yet.
list_queued() {
	local dir
	dir=$(list_dir)
	exim4 -C "$dir/exim.conf" -bpc 2>/dev/null || echo 0
}

# "busy" while the list is still delivering: a public-inbox-mda runs, or a
# queued message has not been tried yet (its message log has no deferral);
# else "idle".  A message the archive refused waits for exim's next retry:
# nothing to wait for here.  A lookup that prints its answer, so that set
# -e holds in it (it is not called in a condition).
list_state() {
	local id log dir
	dir=$(list_dir)
	if pgrep -f public-inbox-mda >/dev/null; then
		echo busy
		return 0
	fi
	for id in $(exim4 -C "$dir/exim.conf" -bpr 2>/dev/null | awk '$3 ~ /^[0-9A-Za-z]+-[0-9A-Za-z]+-[0-9A-Za-z]+$/ { print $3 }'); do
		log=$(exim4 -C "$dir/exim.conf" -Mvl "$id" 2>/dev/null || true)
		if ! grep -q ' defer ' <<<"$log"; then
			echo busy
			return 0
		fi
	done
	echo idle
}

# Before b4 reads the archive: wait (30 s at most) until the list is idle
# (list_state), then give
# public-inbox-httpd a fresh worker.  A 1.9 worker keeps the search index
# open, and its first search after a delivery aborts on Xapian's
# DatabaseModifiedError (seen here: b4's query got no response); a new
# worker opens the index as it is now.  Its master starts one at once.
list_settle() {
	local _ master state url
	for _ in $(seq 60); do
		state=$(list_state)
		[ "$state" = busy ] || break
		sleep 0.5
	done
	# Still queued: the archive refuses them for now; whoever reads the
	# archive says so (list_queued), rather than stopping here.
	master=$(cat "$(list_dir)/httpd.pid")
	pkill -QUIT -P "$master" || true
	url=$(list_url)
	for _ in $(seq 50); do
		! curl -sf -o /dev/null "$url" || return 0
		sleep 0.2
	done
	die "public-inbox-httpd did not answer after its worker restarted (log: $(list_dir)/log/httpd.err)"
}

# The To and Cc addresses of a message, one per line.
message_recipients() {
	python3 -c 'import sys, email, email.utils
msg = email.message_from_binary_file(open(sys.argv[1], "rb"))
for _, addr in email.utils.getaddresses(msg.get_all("to", []) + msg.get_all("cc", [])):
    print(addr)' "$1"
}

message_id() {
	python3 -c 'import sys, email
msg = email.message_from_binary_file(open(sys.argv[1], "rb"))
print((msg["message-id"] or "").strip().strip("<>"))' "$1"
}

# The address of a message's From, or nothing when it has none.
message_sender() {
	python3 -c 'import sys, email, email.utils
msg = email.message_from_binary_file(open(sys.argv[1], "rb"))
print(email.utils.parseaddr(msg.get("from", ""))[1])' "$1"
}

# Sends message $1 to the list on port $2, from envelope sender $4; its
# words (and curl's) go to log $3; prints "sent" or "refused".  Whether
# it was refused is curl's status, tested here, not this function's: set
# -e holds in it.
send_message() {
	local msg=$1 port=$2 log=$3 from=$4 args=() rcpt
	while read -r rcpt; do
		args+=(--mail-rcpt "$rcpt")
	done < <(message_recipients "$msg" 2>>"$log")
	if [ "${#args[@]}" -eq 0 ]; then
		echo "$msg has no To or Cc" >>"$log"
		echo refused
	# curl --crlf makes each LF a CRLF: a file whose lines end in CRLF
	# already is read with LF ends, or each line would gain a blank one.
	elif sed 's/\r$//' "$msg" | curl -sS --crlf --max-time 60 --url "smtp://127.0.0.1:$port/kbranch.localhost" \
		--mail-from "$from" "${args[@]}" --upload-file - >>"$log" 2>&1; then
		echo sent
	else
		echo refused
	fi
}

# --- the pid files of what list and bot start --------------------------------

# The pid in pid file $1, if that process is alive; else nothing.  This
# and process_state are lookups that print their answer, never tests, so
# that no caller calls them in a condition, where set -e would not hold.
live_pid() {
	local pid state
	[ -s "$1" ] || return 0
	pid=$(head -n 1 "$1")
	[[ "$pid" =~ ^[0-9]+$ ]] || return 0
	state=$(process_state "$pid")
	[ "$state" != alive ] || printf '%s\n' "$pid"
}

# "alive" or "gone" (a zombie is gone: one that a failed start killed may
# wait a moment for its reaper).
process_state() {
	local state
	state=$(ps -o stat= -p "$1" || true)
	if [[ -n "$state" && "$state" != Z* ]]; then echo alive; else echo gone; fi
}

# Waits until process $1 is gone, $2 times 0.2 s at most; prints its last
# state ("alive" or "gone").
wait_gone() {
	local pid=$1 tries=$2 state _
	for _ in $(seq "$tries"); do
		state=$(process_state "$pid")
		[ "$state" = alive ] || break
		sleep 0.2
	done
	process_state "$pid"
}

# Stop the process pid file $1 names ($2 says what it is), if it lives.
stop_pidfile() {
	local pidfile=$1 name=$2 pid state
	pid=$(live_pid "$pidfile")
	if [ -z "$pid" ]; then
		rm -f "$pidfile"
		return 0
	fi
	kill "$pid"
	state=$(wait_gone "$pid" 50)
	[ "$state" != alive ] || die "$KB_SUBCOMMAND: $name (pid $pid) did not stop"
	rm -f "$pidfile"
	step "$KB_SUBCOMMAND: stopped $name (pid $pid)"
}
