#!/usr/bin/env bats
# shellcheck disable=SC2154 # $status, $output: set by bats' run
# The list bot's mail logic, without a list: ci/bot_test.py's unit tests
# of branch-scripts/libexec/list-bot, one class a test.  The bot on a
# real list, with the kernel tree: ci/46-bot.bats.

load helpers

bot_units() {
	run python3 "$REPO/ci/bot_test.py" -v "$1"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"OK"* ]]
}

@test "bot: a subject's [PATCH vK n/N] prefix is read, tree and RFC included, folded or not; a reply's, a pull's or none is not a patch; shell metacharacters stay text" {
	bot_units Prefix
}

@test "bot: a message is its own, a reply, a cover, a patch or not a patch" {
	bot_units Kind
}

@test "bot: a cover and its patches are one series, a series without a cover hangs from its first patch, and a v2 sent in reply to v1 is a series of its own" {
	bot_units Grouping
}

@test "bot: a series' gaps, duplicate numbers and numbers past its end are each named" {
	bot_units Completeness
}

@test "bot: checks combine the patchwork way, and checkpatch's findings are read with their lines" {
	bot_units Checks
}

@test "bot: a series is built, booted and checked at its last patch; a bad one is run again patch by patch, and only the first bad patch gets the reply; a run that gives no verdict is tried again" {
	bot_units BuildBoot
}

@test "bot: a series that breaks the bot is recorded as that series' error, and the next series is still reviewed" {
	bot_units Isolation
}

@test "bot: the lock files a killed pass leaves are found in the bot's own git dirs only, and a second pass waits for the first to end" {
	bot_units Restart
}

@test "bot: status says how long after it reached the list each series was answered, counted from its first part, and how many series wait" {
	bot_units Observable
}

@test "bot: a message over 50 MiB is a recorded skip, one at the limit is read; a flood of 200 messages, ids that name paths and subjects with shell metacharacters each get their outcome, and nothing is written outside the bot's dir" {
	bot_units Hostile
}
