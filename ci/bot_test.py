#!/usr/bin/env python3
# Unit tests of branch-scripts/libexec/list-bot, the list bot's mail logic
# (what a message is, which series it belongs to, what a series lacks,
# checks combined the patchwork way), and its isolation of a series that
# breaks it.  Run by ci/07-bot.bats, one class per bats test.
import email
import email.policy
import importlib.machinery
import importlib.util
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, '..', 'branch-scripts', 'libexec', 'list-bot')
loader = importlib.machinery.SourceFileLoader('list_bot', PATH)
spec = importlib.util.spec_from_loader('list_bot', loader)
bot = importlib.util.module_from_spec(spec)
loader.exec_module(bot)


def mail(subject, msgid, frm='Ann Author <ann@example.test>', irt=None, refs=None, body='text\n', extra=''):
    head = 'From: %s\nSubject: %s\nMessage-ID: <%s>\n' % (frm, subject, msgid)
    if irt:
        head += 'In-Reply-To: <%s>\n' % irt
    if refs:
        head += 'References: %s\n' % ' '.join('<%s>' % r for r in refs)
    return email.message_from_string(head + extra + '\n' + body, policy=email.policy.default)


class Prefix(unittest.TestCase):
    def test_numbered_versioned(self):
        p = bot.patch_prefix('[PATCH v4 2/5] ext4: rename ext4dev')
        self.assertEqual((p['version'], p['n'], p['total'], p['tree'], p['title']),
                         (4, 2, 5, None, 'ext4: rename ext4dev'))

    def test_single_patch_is_one_of_one(self):
        p = bot.patch_prefix('[PATCH] ext4: fix a typo')
        self.assertEqual((p['version'], p['n'], p['total']), (1, 1, 1))

    def test_tree_prefix_and_rfc(self):
        p = bot.patch_prefix('[RFC PATCH ext4-rename v2 0/3] ext4: cover')
        self.assertEqual((p['tree'], p['rfc'], p['n'], p['version']), ('ext4-rename', True, 0, 2))

    def test_folded_subject(self):
        p = bot.patch_prefix('[PATCH v3 1/4] ext4: a subject\n folded by b4')
        self.assertEqual(p['title'], 'ext4: a subject folded by b4')

    def test_not_a_patch(self):
        self.assertIsNone(bot.patch_prefix('Re: [PATCH v4 2/5] ext4: rename'))
        self.assertIsNone(bot.patch_prefix('[GIT PULL] ext4 rename'))
        self.assertIsNone(bot.patch_prefix('ext4: no prefix at all'))
        self.assertIsNone(bot.patch_prefix(''))

    def test_shell_metacharacters_are_text(self):
        p = bot.patch_prefix('[PATCH 1/1] $(touch /tmp/x); `rm -rf ~` | tee')
        self.assertEqual(p['title'], '$(touch /tmp/x); `rm -rf ~` | tee')


class Kind(unittest.TestCase):
    def test_kinds(self):
        self.assertEqual(bot.message_kind(mail('[PATCH v2 0/2] cover', 'c@x')), 'cover')
        self.assertEqual(bot.message_kind(mail('[PATCH v2 1/2] one', 'p1@x')), 'patch')
        self.assertEqual(bot.message_kind(mail('Re: [PATCH v2 1/2] one', 'r@x', irt='p1@x')), 'reply')
        self.assertEqual(bot.message_kind(mail('a question', 'q@x')), 'other')

    def test_own_mail_by_header_or_address(self):
        self.assertEqual(bot.message_kind(mail('[PATCH 1/1] x', 'o@x', extra='X-Kbranch-Bot: 1\n')), 'own')
        self.assertEqual(bot.message_kind(mail('[PATCH 1/1] x', 'o2@x', frm='kbranch bot <%s>' % bot.BOT_ADDR)), 'own')


class Grouping(unittest.TestCase):
    def test_cover_and_patches_one_series(self):
        c = mail('[PATCH v2 0/2] c', 'c@x')
        p1 = mail('[PATCH v2 1/2] a', 'p1@x', irt='c@x', refs=['c@x'])
        p2 = mail('[PATCH v2 2/2] b', 'p2@x', irt='c@x', refs=['c@x'])
        self.assertEqual({bot.series_group(m) for m in (c, p1, p2)}, {'c@x v2 2'})

    def test_no_cover_hangs_from_patch_one(self):
        p1 = mail('[PATCH 1/2] a', 'p1@x')
        p2 = mail('[PATCH 2/2] b', 'p2@x', irt='p1@x', refs=['p1@x'])
        self.assertEqual(bot.series_group(p1), bot.series_group(p2))

    def test_v2_in_reply_to_v1_is_another_series(self):
        v1 = mail('[PATCH 0/2] c', 'c1@x')
        v2 = mail('[PATCH v2 0/2] c', 'c2@x', irt='c1@x', refs=['c1@x'])
        v2p = mail('[PATCH v2 1/2] a', 'v2p1@x', irt='c2@x', refs=['c1@x', 'c2@x'])
        self.assertNotEqual(bot.series_group(v1), bot.series_group(v2))
        self.assertEqual(bot.series_group(v2), bot.series_group(v2p))


class Completeness(unittest.TestCase):
    def test_complete(self):
        self.assertEqual(bot.series_problems([0, 1, 2, 3], 3), ([], [], []))

    def test_gap_duplicate_and_past_the_end(self):
        self.assertEqual(bot.series_problems([1, 3], 3), ([2], [], []))
        self.assertEqual(bot.series_problems([1, 1, 2], 2), ([], [1], []))
        self.assertEqual(bot.series_problems([1, 2, 4], 2), ([], [], [4]))


class Checks(unittest.TestCase):
    def test_combined_the_patchwork_way(self):
        self.assertEqual(bot.combined_state(['success', 'success']), 'success')
        self.assertEqual(bot.combined_state(['success', 'pending']), 'pending')
        self.assertEqual(bot.combined_state(['warning', 'pending', 'success']), 'warning')
        self.assertEqual(bot.combined_state(['warning', 'fail']), 'fail')
        self.assertEqual(bot.combined_state([]), 'pending')

    def test_checkpatch_findings(self):
        out = ('ERROR:INITIALISED_STATIC: do not initialise statics to 0\n'
               '#20: FILE: fs/ext4/inode.c:21:\n+static int x = 0;\n\n'
               'CHECK:LINE_SPACING: Please use a blank line after declarations\n'
               '#21: FILE: fs/ext4/inode.c:22:\n\n'
               'total: 1 errors, 0 warnings, 1 checks, 7 lines checked\n')
        found = bot.checkpatch_findings(out)
        self.assertEqual(len(found), 2)
        self.assertEqual(found[0][2], '+static int x = 0;')
        self.assertEqual(bot.checkpatch_state(found), 'fail')
        self.assertEqual(bot.checkpatch_state(found[1:]), 'warning')
        self.assertEqual(bot.checkpatch_state([]), 'success')


class Isolation(unittest.TestCase):
    """A series that breaks the bot is that series' recorded error; the
    next series is still reviewed."""
    def test_a_crash_in_one_series_is_its_own(self):
        with tempfile.TemporaryDirectory() as d:
            b = bot.Bot({'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://a/', 'BOT_SMTP_PORT': '1',
                         'BOT_TREE': d})
            b.state['pending'] = {'broken@x v1 1': {'first_seen': 0, 'parts': ['gone@x']},
                                  'next@x v1 1': {'first_seen': 0, 'parts': ['next@x']}}
            reviewed = []
            real = b.review_group
            b.review_group = lambda g: reviewed.append(g) if g.startswith('next') else real(g)
            b.review_pending()
            outcomes = [s['outcome'] for s in b.state['series'].values()]
            self.assertEqual(outcomes, ['error'])
            self.assertEqual(reviewed, ['next@x v1 1'])
            with open(os.path.join(d, 'state.json')) as f:
                self.assertIn('error', json.load(f)['series'].popitem()[1]['outcome'])


class BuildBoot(unittest.TestCase):
    """The series built, booted and checked (bisect-tests/run's exit code
    per commit, stood in for here; ci/46-bot.bats runs the real one): the
    tip first, and from a bad tip each patch in turn until the first bad,
    which alone gets the reply; a run that gives no verdict is retried."""

    def series(self, codes):
        d = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, d)
        b = bot.Bot({'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://a/', 'BOT_SMTP_PORT': '1',
                     'BOT_TREE': d, 'BOT_RUN': '/bin/false'})
        revs = ['c%d' % i for i in range(1, len(codes) + 1)]
        self.ran, self.replied = [], []

        def run_at(commit):
            self.ran.append(commit)
            code = codes[revs.index(commit)]
            if code == 128:
                raise bot.Retry('exit 128')
            return code, {'verdict': {0: 'good', 1: 'bad', 125: 'skip'}[code], 'reason': 'flaky'}, ''
        b.run_at = run_at
        b.build_boot_reply = lambda base, cover, patches, n, msg, *r: self.replied.append(n) or 'build errors: 1 quoted'
        patches = [(i, 'p%d@x' % i, None) for i in range(1, len(codes) + 1)]
        return [(c['patch'], c['state']) for c in b.build_boot('base', None, patches, revs)]

    def test_a_good_tip_is_one_run_and_success_for_every_patch(self):
        self.assertEqual(self.series([0, 0, 0]), [('p1@x', 'success'), ('p2@x', 'success'), ('p3@x', 'success')])
        self.assertEqual((self.ran, self.replied), (['c3'], []))

    def test_a_bad_tip_names_the_first_bad_patch_only(self):
        self.assertEqual(self.series([0, 1, 1, 1]),
                         [('p1@x', 'success'), ('p2@x', 'fail'), ('p3@x', 'fail'), ('p4@x', 'fail')])
        self.assertEqual((self.ran, self.replied), (['c4', 'c1', 'c2'], [2]))

    def test_a_bad_last_patch_is_the_culprit_when_those_before_pass(self):
        self.assertEqual(self.series([0, 0, 1]), [('p1@x', 'success'), ('p2@x', 'success'), ('p3@x', 'fail')])
        self.assertEqual((self.ran, self.replied), (['c3', 'c1', 'c2'], [3]))

    def test_the_reply_quotes_the_bad_runs_own_logs(self):
        """A bad tip after good patches: the runs of those patches replace
        the run dir's logs, and the reply still quotes the tip's."""
        d = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, d)
        b = bot.Bot({'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://a/', 'BOT_SMTP_PORT': '1',
                     'BOT_TREE': d, 'BOT_RUN': '/bin/false'})
        rdir = os.path.join(b.kwork, 'runs', bot.BOT_VARIANT)
        os.makedirs(rdir)

        def run_at(commit):
            with open(os.path.join(rdir, 'guest.ktap'), 'w') as f:
                f.write('not ok 1 - %s\n' % commit if commit == 'c2' else 'ok 1 - %s\n' % commit)
            return (1 if commit == 'c2' else 0), {'build': 'ok'}, ''
        quoted = []
        b.run_at = run_at
        b.build_boot_reply = lambda base, cover, patches, n, msg, failure: quoted.append((n, failure[3])) or 'x'
        b.build_boot('base', None, [(1, 'p1@x', None), (2, 'p2@x', None)], ['c1', 'c2'])
        self.assertEqual(quoted, [(2, ['not ok 1 - c2'])])

    def test_an_untestable_tip_is_a_warning_and_no_reply(self):
        self.assertEqual(self.series([0, 125]), [('p1@x', 'warning'), ('p2@x', 'warning')])
        self.assertEqual(self.replied, [])

    def test_an_untestable_patch_before_the_culprit_is_a_warning(self):
        self.assertEqual(self.series([125, 1]), [('p1@x', 'warning'), ('p2@x', 'fail')])
        self.assertEqual(self.replied, [2])

    def test_no_verdict_is_retried_not_recorded(self):
        with self.assertRaises(bot.Retry):
            self.series([0, 128])

    def test_a_run_is_read_by_its_exit_code_and_result_line(self):
        """run_at with a stand-in for bisect-tests/run that answers as told:
        0, 1 and 125 are verdicts, read with the RESULT line; 128 and any
        other code are not, and leave the series to be tried again."""
        import subprocess
        d = tempfile.mkdtemp()
        self.addCleanup(__import__('shutil').rmtree, d)
        b = bot.Bot({'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://a/', 'BOT_SMTP_PORT': '1',
                     'BOT_TREE': d, 'BOT_RUN': os.path.join(d, 'run')})
        os.makedirs(b.work)
        subprocess.run(['git', 'init', '-q', b.work], check=True)
        subprocess.run(['git', '-C', b.work, '-c', 'user.name=a', '-c', 'user.email=a@x', 'commit', '-q',
                        '--allow-empty', '-m', 'c'], check=True)
        commit = subprocess.run(['git', '-C', b.work, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                                text=True, check=True).stdout.strip()
        for code in (0, 1, 125, 128, 2, 130):
            with open(b.run, 'w') as f:
                f.write('#!/bin/sh\necho "RESULT variant=$2 verdict=v%d kwork=$KBRANCH_WORK"\necho progress >&2\n'
                        'exit %d\n' % (code, code))
            os.chmod(b.run, 0o755)
            if code in (0, 1, 125):
                got = b.run_at(commit)
                self.assertEqual(got, (code, {'variant': 'builtin', 'verdict': 'v%d' % code, 'kwork': b.kwork},
                                       'progress\n'))
            else:
                with self.assertRaises(bot.Retry):
                    b.run_at(commit)

    def test_build_errors_are_read_each_once(self):
        log = ('  CC      fs/ext4/super.o\n'
               'fs/ext4/super.c:12:9: error: \'nope\' undeclared (first use in this function)\n'
               'fs/ext4/super.c:12:9: note: each undeclared identifier is reported only once\n'
               'fs/ext4/super.c:12:9: error: \'nope\' undeclared (first use in this function)\n'
               'ld: fs/ext4/inode.o: in function `f\': undefined reference to `g\'\n'
               'make[3]: *** [scripts/Makefile.build:250: fs/ext4/super.o] Error 1\n')
        self.assertEqual(bot.build_errors(log), [
            "fs/ext4/super.c:12:9: error: 'nope' undeclared (first use in this function)",
            "ld: fs/ext4/inode.o: in function `f': undefined reference to `g'"])

    def test_error_paths_are_the_trees(self):
        self.assertEqual(bot.tree_relative("../../linux/fs/ext4/super.c:20:46: error: 'x' undeclared", '/w/linux'),
                         "fs/ext4/super.c:20:46: error: 'x' undeclared")
        self.assertEqual(bot.tree_relative('/w/linux/fs/ext4/inode.c:1:1: error: y', '/w/linux/'),
                         'fs/ext4/inode.c:1:1: error: y')
        self.assertEqual(bot.tree_relative('ld: fs/ext4/inode.o: undefined reference to `g\'', '/w/linux'),
                         'ld: fs/ext4/inode.o: undefined reference to `g\'')

    def test_result_fields(self):
        self.assertEqual(bot.result_fields('progress\nRESULT variant=builtin build=fail verdict=bad reason=x\n'),
                         {'variant': 'builtin', 'build': 'fail', 'verdict': 'bad', 'reason': 'x'})
        self.assertEqual(bot.result_fields('no result\n'), {})


class Restart(unittest.TestCase):
    """A pass killed half way, and two passes at once."""

    def test_stale_locks_in_the_bots_git_dirs_only(self):
        with tempfile.TemporaryDirectory() as d:
            paths = ['tree/.git/index.lock', 'mirror.git/refs/bot/seen/0.lock', 'pass.lock', 'tree/fs/x.lock']
            for p in paths:
                os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
                open(os.path.join(d, p), 'w').close()
            self.assertEqual(bot.stale_git_locks(os.path.join(d, 'tree', '.git'), os.path.join(d, 'mirror.git')),
                             [os.path.join(d, 'mirror.git/refs/bot/seen/0.lock'), os.path.join(d, 'tree/.git/index.lock')])

    def test_a_second_pass_waits_for_the_first(self):
        import subprocess
        import time
        with tempfile.TemporaryDirectory() as d:
            holder = subprocess.Popen([sys.executable, '-c', (
                'import importlib.machinery, importlib.util, sys, time\n'
                'l = importlib.machinery.SourceFileLoader("b", sys.argv[1])\n'
                's = importlib.util.spec_from_loader("b", l); b = importlib.util.module_from_spec(s); l.exec_module(b)\n'
                'f = b.pass_lock(sys.argv[2]); print("held", flush=True); time.sleep(1.5)'), PATH, d],
                stdout=subprocess.PIPE, text=True)
            self.assertEqual(holder.stdout.readline().strip(), 'held')
            start = time.monotonic()
            lock = bot.pass_lock(d)
            waited = time.monotonic() - start
            holder.wait()
            self.assertGreater(waited, 0.8)
            with open(os.path.join(d, 'pass.lock')) as f:
                self.assertEqual(f.read().strip(), str(os.getpid()))
            lock.close()


class Observable(unittest.TestCase):
    """What status says: each series' wait from the list to the answer,
    and how many series wait."""

    def test_status_says_each_answer_time_and_the_queue(self):
        import contextlib
        import io
        with tempfile.TemporaryDirectory() as d:
            state = {'series': {'k1': {'outcome': 'fail', 'group': 'a@b v1 2', 'base': 'c0ffee', 'seconds': 42}},
                     'pending': {'x@y v1 3': {'first_seen': 0, 'arrived': 0, 'parts': ['p1', 'p2']}},
                     'replied': ['r'], 'skipped': []}
            with open(os.path.join(d, 'state.json'), 'w') as f:
                json.dump(state, f)
            env = {'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://x/', 'BOT_SMTP_PORT': '1', 'BOT_TREE': d}
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                bot.Bot(env).status()
            lines = out.getvalue().splitlines()
            self.assertTrue(lines[0].startswith('k1 fail a@b v1 2 base=c0ffee checks='), lines[0])
            self.assertTrue(lines[0].endswith(' answered=42s'), lines[0])
            self.assertEqual(lines[1], 'pending x@y v1 3 (2 parts)')
            self.assertEqual(lines[2], 'queue: 1 series waiting; skipped: 0, replies: 1')

    def test_a_series_arrives_with_its_first_part(self):
        with tempfile.TemporaryDirectory() as d:
            env = {'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://x/', 'BOT_SMTP_PORT': '1', 'BOT_TREE': d}
            b = bot.Bot(env)
            cover = mail('[PATCH 0/1] ext4: a series', 'c@x')
            patch = mail('[PATCH 1/1] ext4: a fix', 'p@x', irt='c@x', refs=['c@x'])
            b.file_message(cover.as_bytes(), 100)
            b.file_message(patch.as_bytes(), 200)
            (pend,) = b.state['pending'].values()
            self.assertEqual(pend['arrived'], 100)


class Hostile(unittest.TestCase):
    """Mail no one should send: too big, a flood, ids that name paths.
    Each message gets a defined outcome, and nothing is written outside
    the bot's dir."""

    def env(self, d):
        return {'BOT_DIR': d, 'BOT_INBOX': d, 'BOT_ARCHIVE_URL': 'http://x/', 'BOT_SMTP_PORT': '1', 'BOT_TREE': d}

    def test_a_message_over_the_limit_is_a_recorded_skip_and_one_at_it_is_read(self):
        with tempfile.TemporaryDirectory() as d:
            b = bot.Bot(self.env(d))
            limit = 50 << 20
            self.assertEqual(b.max_size, limit)
            head = mail('[PATCH 1/1] ext4: a big one', 'big@x').as_bytes()
            b.file_message(head + b'x' * (limit + 1 - len(head)))
            self.assertEqual(b.state['skipped'],
                             [{'message': '(unread)', 'why': "a message of %d bytes, over the bot's %d" % (limit + 1, limit)}])
            self.assertEqual(b.state['pending'], {})
            self.assertFalse(os.path.exists(os.path.join(d, 'mail')))
            b.file_message(head + b'x' * (limit - len(head)))
            self.assertEqual(len(b.state['pending']), 1)

    def test_a_flood_of_200_messages_each_gets_its_outcome(self):
        import time
        with tempfile.TemporaryDirectory() as top:
            d = os.path.join(top, 'bot')
            os.mkdir(d)
            b = bot.Bot(self.env(d))
            raws = []
            for n in range(40):
                cover = '../../c%d@flood' % n
                raws.append(mail('[PATCH 0/3] ext4: series %d' % n, cover).as_bytes())
                for k in (1, 2, 3):
                    raws.append(mail('[PATCH %d/3] ext4: part %d of %d' % (k, k, n), 'p%d.%d@flood' % (n, k),
                                     irt=cover, refs=[cover]).as_bytes())
            for n in range(20):
                raws.append(mail('Re: [PATCH 1/3] ext4: part 1 of %d' % n, 'r%d@flood' % n,
                                 irt='p%d.1@flood' % n).as_bytes())
            for n in range(20):
                raws.append(mail('lunch $(rm -rf /) `id` ; today?', '../../../escape%d@flood' % n).as_bytes())
            self.assertEqual(len(raws), 200)
            start = time.monotonic()
            for raw in raws:
                b.file_message(raw, 1)
            self.assertLess(time.monotonic() - start, 30)
            self.assertEqual(len(b.state['pending']), 40)
            self.assertTrue(all(len(p['parts']) == 4 for p in b.state['pending'].values()))
            self.assertEqual([s['why'] for s in b.state['skipped']],
                             ['not a patch: lunch $(rm -rf /) `id` ; today?'] * 20)
            # The replies are read and left: neither a series part nor a skip.
            self.assertEqual(len(os.listdir(os.path.join(d, 'mail'))), 160)
            self.assertEqual(os.listdir(top), ['bot'])
            for path in b.state['pending'].values():
                for msgid in path['parts']:
                    self.assertEqual(os.path.dirname(b.mail_path(msgid)), os.path.join(d, 'mail'))
            self.assertEqual(os.path.dirname(b.mail_path('../../../escape0@flood')), os.path.join(d, 'mail'))


if __name__ == '__main__':
    unittest.main()
