# shellcheck shell=bash
# summary: a mailing list on 127.0.0.1 for review: start|stop|status an exim4 of our own (SMTP, every recipient delivered to the list) into a public-inbox archive served by public-inbox-httpd; send MESSAGE.eml... posts prepared mail to it

# A private exim4, not the system's: its own config, spool, log and pid
# file under $KBRANCH_WORK/list, an unprivileged port on 127.0.0.1, and no
# outbound transport at all: one router accepts every recipient (the real
# To/Cc addresses of get_maintainer included) into one pipe, public-inbox-mda,
# which files the message into a V2 inbox with its search index.
# public-inbox-httpd serves that inbox read-only, so b4 fetches from it.
# exim4 rather than postfix or OpenSMTPD: one config file given with -C
# relocates all of its state, where OpenSMTPD's spool is fixed and postfix
# needs its system config to allow another instance.
#
# Ports and paths: lib/list.sh.  Stop ends only the processes whose pid
# files we wrote.

# The list's message size limit, as vger has one.  A smaller one
# (KBRANCH_LIST_MAX_SIZE=40K) makes the list refuse a thread half way,
# the way a real list refuses a too-large patch.
list_max_size() {
	local size=$KBRANCH_LIST_MAX_SIZE
	[[ "$size" =~ ^[1-9][0-9]*[KM]?$ ]] ||
		die "KBRANCH_LIST_MAX_SIZE must be a size such as 10M or 40K, not '$size'"
	printf '%s\n' "$size"
}

exim_config() {
	local dir=$1 size=$2
	cat <<EOF
# kbranch's list: written by kbranch list start; every recipient goes to
# the archive, nothing leaves this machine.
primary_hostname = kbranch-list.localhost
daemon_smtp_ports = $(list_smtp_port)
local_interfaces = <; 127.0.0.1
spool_directory = $dir/spool
log_file_path = $dir/log/%slog
pid_file_path = $dir/exim.pid
exim_user = root
exim_group = root
never_users =
trusted_users = root
host_lookup =
rfc1413_hosts =
keep_environment =
acl_smtp_rcpt = acl_check_rcpt
message_size_limit = $size
# Unable to bind its port: fail at once, not retry it for minutes.
daemon_startup_retries = 0

begin acl
acl_check_rcpt:
  accept hosts = 127.0.0.1
  deny message = relay not permitted

begin routers
# Bounces (what the archive refused) stay here, not in the archive.
bounces:
  driver = accept
  senders = :
  transport = bounces_file

into_the_list:
  driver = accept
  transport = public_inbox

begin transports
public_inbox:
  driver = pipe
  command = /usr/bin/public-inbox-mda --no-precheck
  environment = PI_CONFIG=$dir/pi-config : ORIGINAL_RECIPIENT=$LIST_ADDRESS
  home_directory = $dir/mda-home
  current_directory = $dir/mda-home
  batch_max = 1000
  user = $(list_delivery_user)
  log_output
  return_fail_output
  timeout = 120s
  # Whatever the archive answers, try again (every 15 s, for 10 minutes):
  # a reply refused once, the archive unwritable for a moment, was bounced
  # for good and never archived.
  temp_errors = *

bounces_file:
  driver = appendfile
  file = $dir/mda-home/bounces.mbox
  user = $(list_delivery_user)

begin retry
* * F,10m,15s
EOF
}

# exim never delivers as root (a fixed never_users): the archive belongs to
# exim's own user and public-inbox-mda runs as it.
list_delivery_user() {
	echo Debian-exim
}

# Debian's exim4 runs a daemon (-bd) only for an admin user, and keeps its
# privileges with -C only for a config that root owns and lists in
# /etc/exim4/trusted_configs: as another user the daemon is refused
# ("exim: permission denied"), so say so before anything is made.
require_root() {
	[ "$(id -u)" = 0 ] ||
		die "list: exim4 runs a private daemon only for root (as $(id -un) it answers 'permission denied'); run 'kbranch list start' as root"
}

# The archive: a V2 inbox with its search index, mda without spamc.
init_inbox() {
	local dir=$1 url user
	[ -f "$dir/pi-config" ] && return 0
	# Looked up before the commands whose failure is tested.
	url=$(list_url)
	user=$(list_delivery_user)
	PI_CONFIG=$dir/pi-config.new public-inbox-init -V2 -L full "$LIST_NAME" "$dir/inbox" "$url" "$LIST_ADDRESS" >>"$dir/list.log" 2>&1 ||
		die "public-inbox-init failed (log: $dir/list.log)"
	git config -f "$dir/pi-config.new" publicinboxmda.spamcheck none
	mkdir -p "$dir/mda-home"
	chown -R "$user" "$dir/inbox" "$dir/mda-home"
	chmod 0644 "$dir/pi-config.new"
	mv "$dir/pi-config.new" "$dir/pi-config"
	runuser -u "$user" -- test -w "$dir/mda-home" 2>/dev/null ||
		die "list: exim delivers as $user, who cannot reach $dir; make the dirs above it traversable (chmod o+x) or set KBRANCH_WORK elsewhere"
}

# Before anything is made: each port is free, or ours already.
check_ports() {
	local dir=$1
	port_free_or_ours "$dir/exim.pid" "$(list_smtp_port)" KBRANCH_LIST_SMTP_PORT
	port_free_or_ours "$dir/httpd.pid" "$(list_http_port)" KBRANCH_LIST_HTTP_PORT
}

# Dies unless port $2 is free or the daemon of pid file $1 runs (setting
# $3 chooses another port).
port_free_or_ours() {
	local pid state
	pid=$(live_pid "$1")
	[ -z "$pid" ] || return 0
	state=$(port_state "$2")
	[ "$state" = free ] || die "list: port $2 on 127.0.0.1 is taken; set $3"
}

# The pids this start launched: a start that fails half way ends them, so
# nothing of it runs on without the rest (an exim4 still retrying its
# port, with no pid file yet, was left behind before).
STARTED_PIDS=()
HTTPD_STARTED=0

undo_failed_start() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	# public-inbox-httpd daemonizes (-D): its pid is known only from the pid
	# file it writes, and it may live on after its port failed to answer.
	[ "$HTTPD_STARTED" = 1 ] || return 0
	pid=$(live_pid "$(list_dir)/httpd.pid")
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	# Gone before the one-line error: a later list stop finds nothing.
	wait_gone "$pid" 25 >/dev/null
}

start_exim() {
	local dir=$1 size pid
	pid=$(live_pid "$dir/exim.pid")
	[ -z "$pid" ] || return 0
	mkdir -p "$dir/spool" "$dir/log"
	size=$(list_max_size)
	exim_config "$dir" "$size" >"$dir/exim.conf"
	exim4 -C "$dir/exim.conf" -bV >>"$dir/list.log" 2>&1 || die "exim4 rejects $dir/exim.conf (log: $dir/list.log)"
	# -bdf: listen, in the foreground of a process of ours, so its pid is
	# known before it writes its pid file (it does once it has the port);
	# -q15s: retry what the archive refused.
	setsid exim4 -C "$dir/exim.conf" -bdf -q15s </dev/null >>"$dir/list.log" 2>&1 &
	STARTED_PIDS+=("$!")
	wait_for_port "$(list_smtp_port)" "$dir/exim.pid" exim4
}

start_httpd() {
	local dir=$1 pid port
	pid=$(live_pid "$dir/httpd.pid")
	[ -z "$pid" ] || return 0
	port=$(list_http_port)
	# The archive belongs to exim's delivery user and the httpd runs as
	# root: git refuses a repository another user owns (safe.directory),
	# and git clone or public-inbox-clone of the archive got HTTP 500.
	# The httpd serves this one read-only inbox.
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' \
		PI_CONFIG=$dir/pi-config public-inbox-httpd -D -P "$dir/httpd.pid" -l "http://127.0.0.1:$port" \
		-1 "$dir/log/httpd.out" -2 "$dir/log/httpd.err" >>"$dir/list.log" 2>&1 ||
		die "public-inbox-httpd did not start (log: $dir/log/httpd.err)"
	HTTPD_STARTED=1
	wait_for_port "$port" "$dir/httpd.pid" public-inbox-httpd
}

# A daemon is up when its pid file names a live process and its port
# answers (10 s at most).
wait_for_port() {
	local port=$1 pidfile=$2 name=$3 _ pid state
	for _ in $(seq 50); do
		pid=$(live_pid "$pidfile")
		state=
		[ -z "$pid" ] || state=$(port_state "$port")
		[ "$state" != taken ] || return 0
		sleep 0.2
	done
	die "list: $name did not come up on 127.0.0.1:$port (log: $(list_dir)/list.log)"
}

# The live pids of the list's daemons in dir $1; nothing when none runs.
running_pids() {
	live_pid "$1/exim.pid"
	live_pid "$1/httpd.pid"
}

list_status() {
	local dir=$1 pid count=0 rc=0
	pid=$(live_pid "$dir/exim.pid")
	if [ -n "$pid" ]; then
		echo "smtp: exim4 pid $pid on 127.0.0.1:$(list_smtp_port), config $dir/exim.conf"
	else
		echo "smtp: not running"
		rc=3
	fi
	pid=$(live_pid "$dir/httpd.pid")
	if [ -n "$pid" ]; then
		echo "http: public-inbox-httpd pid $pid, $(list_url)"
	else
		echo "http: not running"
		rc=3
	fi
	if [ "$rc" -eq 0 ]; then
		how_to_use "$dir"
	fi
	[ ! -d "$dir/inbox" ] || count=$(PI_CONFIG=$dir/pi-config list_message_count "$dir/inbox")
	echo "archive: $dir/inbox, $count messages for $LIST_ADDRESS"
	[ ! -s "$dir/mda-home/bounces.mbox" ] ||
		echo "bounces: $(grep -c '^From ' "$dir/mda-home/bounces.mbox") in $dir/mda-home/bounces.mbox"
	return "$rc"
}

# What a reviewer needs to use this list: the archive's own page gives
# reply instructions with the real addresses and no server, and b4 with
# only b4.midmask set still tries lore.kernel.org for its searches.
how_to_use() {
	local key value
	echo "b4 (all three keys, or b4 shazam and b4 trailers ask lore.kernel.org):"
	while read -r key && read -r value; do
		echo "  git config $key '$value'"
	done < <(list_b4_config)
	echo "reply (to-cmd and cc-cmd off: every address goes to the list, and only to it):"
	echo "  git send-email --smtp-server=127.0.0.1 --smtp-server-port=$(list_smtp_port) --to=$LIST_ADDRESS --in-reply-to=MESSAGE-ID REPLY.eml"
}

# Messages in a V2 inbox: one commit per message in its epochs.
list_message_count() {
	local n=0 epoch
	for epoch in "$1"/git/*.git; do
		[ -d "$epoch" ] || continue
		n=$((n + $(git --git-dir="$epoch" rev-list --count HEAD 2>/dev/null || echo 0)))
	done
	printf '%s\n' "$n"
}

# Not installed on demand: exim4 replaces the machine's mail server.
require_list_tools() {
	local tool
	for tool in exim4 public-inbox-init public-inbox-mda public-inbox-httpd ss runuser curl; do
		command -v "$tool" >/dev/null ||
			die "list: no $tool; install exim4-daemon-light and public-inbox (exim4 replaces another mail server)"
	done
}

# Post prepared messages $@ (a regression report kbranch bisect wrote, a
# reply) to the running list, each to its own To and Cc, from its own
# From, as a mail client would send it; print where the archive has each.
# Every message is checked before the first is sent: a bad one sends none.
list_send() {
	local port state msg id from ids=() log
	[ "$#" -gt 0 ] || die "usage: kbranch list send MESSAGE.eml..."
	for msg in "$@"; do
		[ -f "$msg" ] || die "list send: $msg: no such file: nothing sent"
		[ -r "$msg" ] || die "list send: $msg cannot be read: nothing sent"
		# Any file parses as a mail; one without these headers is not one.
		id=$(message_id "$msg")
		from=$(message_sender "$msg")
		[ -n "$id" ] || die "list send: $msg has no Message-ID: nothing sent"
		[ -n "$from" ] || die "list send: $msg has no From: nothing sent"
		ids+=("$id")
	done
	port=$(list_smtp_port)
	state=$(port_state "$port")
	[ "$state" = taken ] || die "list send: no list on 127.0.0.1:$port ('kbranch list start'): nothing sent"
	log=$(list_dir)/send.log
	for msg in "$@"; do
		from=$(message_sender "$msg")
		state=$(send_message "$msg" "$port" "$log" "$from")
		[ "$state" = sent ] || die "list send: the list refused $msg (log: $log)"
	done
	list_settle
	for id in "${ids[@]}"; do
		printf '%s%s/\n' "$(list_url)" "$id"
	done
}

run() {
	# shellcheck source=branch-scripts/lib/list.sh
	. "$KB_REPO/branch-scripts/lib/list.sh"
	local dir running
	dir=$(list_dir)
	running=$(running_pids "$dir")
	case "${1:-}" in
	start)
		require_list_tools
		require_root
		# Nothing runs: the settings choose the ports, recorded below.
		[ -n "$running" ] || rm -f "$(list_ports_file)"
		check_ports "$dir"
		mkdir -p "$dir"
		printf 'smtp %s\nhttp %s\n' "$(list_smtp_port)" "$(list_http_port)" >"$(list_ports_file)"
		init_inbox "$dir"
		trap undo_failed_start EXIT
		start_exim "$dir"
		start_httpd "$dir"
		trap - EXIT
		list_status "$dir"
		;;
	stop)
		[ -n "$running" ] || { step "list: nothing runs (no live pid in $dir/exim.pid or $dir/httpd.pid)"; return 0; }
		stop_pidfile "$dir/httpd.pid" public-inbox-httpd
		stop_pidfile "$dir/exim.pid" exim4
		;;
	status) list_status "$dir" ;;
	send)
		shift
		list_send "$@"
		;;
	*) die "usage: kbranch list start|stop|status|send MESSAGE.eml..." ;;
	esac
}
