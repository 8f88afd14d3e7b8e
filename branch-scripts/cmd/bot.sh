# shellcheck shell=bash
# summary: a bot on the local list: start|stop|status|once tests every series posted to it (applies it where the robot would, checkpatch --strict per patch, builds, boots and checks it) and replies to a patch that has findings, the kernel test robot's way

# The bot is libexec/list-bot (Python: mail is parsed, not grepped); this
# file gives it its environment and runs it once, or in a loop of its own
# process group that stop ends.  Its state, mail, clone of the tree and
# results are under $KBRANCH_WORK/bot, and nothing else is written.

bot_dir() {
	printf '%s/bot\n' "$KBRANCH_WORK"
}

# list-bot $1 with everything it reads named; BOT_RUN only when the bot
# builds (KBRANCH_BOT_BUILD=1).
bot_run() {
	local build_with=''
	[ "$KBRANCH_BOT_BUILD" = 0 ] || build_with=$KB_REPO/bisect-tests/run
	BOT_DIR=$(bot_dir) BOT_INBOX=$(list_dir)/inbox BOT_ARCHIVE_URL=$(list_url) BOT_SMTP_PORT=$(list_smtp_port) \
		BOT_TREE=$KTREE BOT_BRANCH=$KBRANCH_BRANCH BOT_WAIT=$KBRANCH_BOT_WAIT BOT_TIMEOUT=$KBRANCH_BOT_TIMEOUT \
		BOT_RUN=$build_with BOT_BUILD_TIMEOUT=$KBRANCH_BOT_BUILD_TIMEOUT \
		"$KB_REPO/branch-scripts/libexec/list-bot" "$1"
}

# What the bot needs before it reads anything: the list's archive and the
# tree the bases come from, each said in one line.
bot_require() {
	local dir
	dir=$(list_dir)
	[ -d "$dir/inbox/git" ] || die "bot: no list archive in $dir ('kbranch list start' first)"
	require_tree
	[[ "$KBRANCH_BOT_WAIT" =~ ^[0-9]+$ ]] || die "KBRANCH_BOT_WAIT must be seconds, not '$KBRANCH_BOT_WAIT'"
	[[ "$KBRANCH_BOT_INTERVAL" =~ ^[1-9][0-9]*$ ]] || die "KBRANCH_BOT_INTERVAL must be seconds, not '$KBRANCH_BOT_INTERVAL'"
	[[ "$KBRANCH_BOT_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "KBRANCH_BOT_TIMEOUT must be seconds, not '$KBRANCH_BOT_TIMEOUT'"
	[[ "$KBRANCH_BOT_BUILD" =~ ^[01]$ ]] || die "KBRANCH_BOT_BUILD must be 0 or 1, not '$KBRANCH_BOT_BUILD'"
	[[ "$KBRANCH_BOT_BUILD_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "KBRANCH_BOT_BUILD_TIMEOUT must be seconds, not '$KBRANCH_BOT_BUILD_TIMEOUT'"
	mkdir -p "$(bot_dir)"
}

# "kbranch bot loop", which start runs: a pass that fails is said, and
# the next one comes (a crash in one series is that series' own error,
# recorded by list-bot, not the loop's).
bot_loop() {
	local rc
	while :; do
		rc=$(exit_status_of "$(bot_dir)/pass.log" bot_run once)
		cat "$(bot_dir)/pass.log"
		[ "$rc" = 0 ] || printf 'kbranch bot: a pass failed (exit %s)\n' "$rc"
		sleep "$KBRANCH_BOT_INTERVAL"
	done
}

bot_start() {
	local pid
	pid=$(live_pid "$(bot_dir)/bot.pid")
	[ -z "$pid" ] || { step "bot: already running (pid $pid)"; return 0; }
	# A session and process group of its own (setsid), so that stop ends
	# the pass it is in with it, and a terminal's hangup does not.
	setsid "$KB_REPO/branch-scripts/kbranch" bot loop </dev/null >>"$(bot_dir)/loop.log" 2>&1 &
	printf '%s\n' "$!" >"$(bot_dir)/bot.pid"
	step "bot: started (pid $!), a pass every ${KBRANCH_BOT_INTERVAL}s; log: $(bot_dir)/loop.log"
}

bot_stop() {
	local pid state
	pid=$(live_pid "$(bot_dir)/bot.pid")
	[ -n "$pid" ] || { step "bot: not running"; rm -f "$(bot_dir)/bot.pid"; return 0; }
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
	state=$(wait_gone "$pid" 50)
	[ "$state" != alive ] || die "bot: pid $pid did not stop"
	rm -f "$(bot_dir)/bot.pid"
	step "bot: stopped (pid $pid)"
}

# Whether the loop runs, then each series' outcome (list-bot status).
bot_status() {
	local dir pid
	dir=$(bot_dir)
	pid=$(live_pid "$dir/bot.pid")
	if [ -n "$pid" ]; then echo "bot: running, pid $pid; work dir $dir"; else echo "bot: not running; work dir $dir"; fi
	[ ! -f "$dir/state.json" ] || bot_run status
}

run() {
	# shellcheck source=branch-scripts/lib/list.sh
	. "$KB_REPO/branch-scripts/lib/list.sh"
	[ "$#" -eq 1 ] || die "usage: kbranch bot start|stop|status|once"
	case "$1" in
	start) bot_require; bot_start ;;
	stop) bot_stop ;;
	status) bot_status ;;
	once) bot_require; bot_run once ;;
	loop) bot_require; bot_loop ;;
	*) die "usage: kbranch bot start|stop|status|once" ;;
	esac
}
