# shellcheck shell=bash
# Where the list of kbranch list (cmd/list.sh) is: its directory, ports and
# archive URL, for the subcommands that send to it or read from it.
# KBRANCH_LIST_SMTP_PORT (2525) and KBRANCH_LIST_HTTP_PORT (8780) choose
# the ports; both listen on 127.0.0.1 only.

# shellcheck disable=SC2034 # read by cmd/list.sh
LIST_ADDRESS=linux-ext4@vger.kernel.org
LIST_NAME=linux-ext4

list_dir() {
	printf '%s/list\n' "$KBRANCH_WORK"
}

list_smtp_port() {
	printf '%s\n' "$KBRANCH_LIST_SMTP_PORT"
}

list_http_port() {
	printf '%s\n' "$KBRANCH_LIST_HTTP_PORT"
}

# The archive's URL; a message is at <url><message-id>/.
list_url() {
	printf 'http://127.0.0.1:%s/%s/\n' "$(list_http_port)" "$LIST_NAME"
}

port_taken() {
	ss -Htln "sport = :$1" | grep -q .
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

# Before b4 reads the archive: wait (30 s at most) until the list is idle,
# nothing in exim's queue and no public-inbox-mda running, then give
# public-inbox-httpd a fresh worker.  A 1.9 worker keeps the search index
# open, and its first search after a delivery aborts on Xapian's
# DatabaseModifiedError (seen here: b4's query got no response); a new
# worker opens the index as it is now.  Its master starts one at once.
list_settle() {
	local _ master
	for _ in $(seq 60); do
		if [ "$(exim4 -C "$(list_dir)/exim.conf" -bpc 2>/dev/null)" = 0 ] && ! pgrep -f public-inbox-mda >/dev/null; then
			master=$(cat "$(list_dir)/httpd.pid")
			pkill -QUIT -P "$master" || true
			for _ in $(seq 50); do
				! curl -sf -o /dev/null "$(list_url)" || return 0
				sleep 0.2
			done
			die "public-inbox-httpd did not answer after its worker restarted (log: $(list_dir)/log/httpd.err)"
		fi
		sleep 0.5
	done
	die "the list did not settle in 30 s (exim4 -C $(list_dir)/exim.conf -bp shows what is queued)"
}
