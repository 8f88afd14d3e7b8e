# shellcheck shell=bash
# Where the list of kbranch list (cmd/list) is: its directory, ports and
# archive URL, for the subcommands that send to it or read from it.
# KBRANCH_LIST_SMTP_PORT (2525) and KBRANCH_LIST_HTTP_PORT (8780) choose
# the ports; both listen on 127.0.0.1 only.

# shellcheck disable=SC2034 # read by cmd/list
LIST_ADDRESS=linux-ext4@vger.kernel.org
LIST_NAME=linux-ext4

list_dir() {
	printf '%s/list\n' "$KBRANCH_WORK"
}

list_smtp_port() {
	printf '%s\n' "${KBRANCH_LIST_SMTP_PORT:-2525}"
}

list_http_port() {
	printf '%s\n' "${KBRANCH_LIST_HTTP_PORT:-8780}"
}

# The archive's URL; a message is at <url><message-id>/.
list_url() {
	printf 'http://127.0.0.1:%s/%s/\n' "$(list_http_port)" "$LIST_NAME"
}

port_taken() {
	ss -Htln "sport = :$1" | grep -q .
}

# b4's view of the archive: message-ids, links and searches all go to it.
list_b4_config() {
	printf '%s\n' b4.midmask "$(list_url)%s" b4.linkmask "$(list_url)%s" \
		b4.searchmask "$(list_url)?x=m&t=1&q=%s"
}
