#!/usr/bin/env python3
"""Writes git_event_stream.json: a realistic git 2.39.5 Trace2 EVENT stream (non-brief,
GIT_TRACE2_EVENT_NESTING=100) of a `git commit` with a hook, a child `git status` in a
subdirectory that itself runs `git version`, a concurrent `git pack-objects` child whose
lines interleave with its parent's, two preload threads (interleaved, one of them out of
time order, with th_timer/th_counter), regions nested to depth 3, data, data_json, def_param,
def_repo, cmd_ancestry, errors, exit/atexit, timer and counter. Times are consistent the way
git's are: t_abs/t_rel on one monotonic microsecond clock, "time" read a few microseconds
later from the wall clock. Run it from this directory to regenerate the file."""
import datetime
import random

random.seed(5)
WALL0 = datetime.datetime(2026, 11, 22, 2, 0, 0, 100000, tzinfo=datetime.timezone.utc)
WALL0_US = int(WALL0.timestamp()) * 1000000 + WALL0.microsecond
lines = []


def fmt_time(us):
    t = datetime.datetime.fromtimestamp(us // 1000000, tz=datetime.timezone.utc)
    return t.strftime('%Y-%m-%dT%H:%M:%S') + '.%06dZ' % (us % 1000000)


def jstr(s):
    out = '"'
    for c in s:
        if c == '"':
            out += '\\"'
        elif c == '\\':
            out += '\\\\'
        elif c == '\n':
            out += '\\n'
        elif c == '\t':
            out += '\\t'
        elif ord(c) < 0x20:
            out += '\\u%04x' % ord(c)
        else:
            out += c
    return out + '"'


def value(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return '%.6f' % v
    if isinstance(v, list):
        return '[' + ','.join(jstr(x) for x in v) + ']'
    if isinstance(v, Raw):
        return v.text
    return jstr(v)


class Raw:
    def __init__(self, text):
        self.text = text


class Proc:
    def __init__(self, sid, start_us):
        self.sid = sid
        self.start = start_us  # monotonic µs of the process start (global clock)
        self.stacks = {}
        self.thread_start = {'main': start_us}

    def emit(self, event, thread, mono, file, line, keys, repo=None):
        wall = WALL0_US + mono + random.randint(2, 12)
        items = [('event', event), ('sid', self.sid), ('thread', thread),
                 ('time', fmt_time(wall))]
        if file:
            items += [('file', file), ('line', line)]
        if repo is not None:
            items.append(('repo', repo))
        items += keys
        lines.append('{' + ','.join('%s:%s' % (jstr(k), value(v)) for k, v in items) + '}')

    def t_abs(self, mono):
        return (mono - self.start) / 1e6

    def stack(self, thread):
        return self.stacks.setdefault(thread, [])

    def enter(self, thread, mono, file, line, category, label, msg=None, repo=1):
        st = self.stack(thread)
        keys = [('nesting', len(st) + 1), ('category', category), ('label', label)]
        if msg is not None:
            keys.append(('msg', msg))
        self.emit('region_enter', thread, mono, file, line, keys, repo)
        st.append(mono)

    def leave(self, thread, mono, file, line, category, label, msg=None, repo=1):
        st = self.stack(thread)
        begin = st.pop()
        keys = [('t_rel', (mono - begin) / 1e6), ('nesting', len(st) + 1),
                ('category', category), ('label', label)]
        if msg is not None:
            keys.append(('msg', msg))
        self.emit('region_leave', thread, mono, file, line, keys, repo)

    def data(self, thread, mono, file, line, category, key, val, repo=1, json=False):
        st = self.stack(thread)
        base = st[-1] if st else self.thread_start[thread]
        keys = [('t_abs', self.t_abs(mono)), ('t_rel', (mono - base) / 1e6),
                ('nesting', len(st) + 1), ('category', category), ('key', key),
                ('value', Raw(val) if json else val)]
        self.emit('data_json' if json else 'data', thread, mono, file, line, keys, repo)

    def simple(self, event, thread, mono, file, line, keys, with_abs=False, repo=None):
        if with_abs:
            keys = [('t_abs', self.t_abs(mono))] + keys
        self.emit(event, thread, mono, file, line, keys, repo)

    def common_start(self, mono, argv, ancestry):
        self.simple('version', 'main', mono, 'common-main.c', 39, [('evt', '3'), ('exe', '2.39.5')])
        self.simple('start', 'main', mono + 31, 'common-main.c', 40, [('argv', argv)], True)
        self.simple('cmd_ancestry', 'main', mono + 58, 'compat/linux/procinfo.c', 170,
                    [('ancestry', ancestry)])

    def finish(self, mono, code, file='git.c', line=721):
        self.simple('exit', 'main', mono, file, line, [('code', code)], True)
        self.simple('atexit', 'main', mono + 9, 'trace2/tr2_tgt_event.c', 204,
                    [('code', code)], True)


A = Proc('20261122T020000.100000Z-H0a7c9cdf-P00001000', -500)
B = Proc(A.sid + '/20261122T020000.109500Z-H0a7c9cdf-P00001002', 9400)
C = Proc(B.sid + '/20261122T020000.113800Z-H0a7c9cdf-P00001003', 13700)
D = Proc(A.sid + '/20261122T020000.121200Z-H0a7c9cdf-P00001004', 21100)

# Parent: git commit.
A.common_start(-40, ['git', '-c', 'user.name=A U Thor', 'commit', '-q', '-m', 'a "quoted" msg'],
               ['bash', 'sshd: u@pts/0', 'systemd'])
A.simple('def_repo', 'main', 60, 'repository.c', 136, [('worktree', '/home/u/my repo')], repo=1)
A.simple('cmd_name', 'main', 75, 'git.c', 464, [('name', 'commit'), ('hierarchy', 'commit')])
A.simple('def_param', 'main', 81, 'config.c', 2091,
         [('scope', 'global'), ('param', 'core.editor'), ('value', 'vi')])
A.simple('def_param', 'main', 84, 'config.c', 2091,
         [('scope', 'command'), ('param', 'user.name'), ('value', 'A U Thor')])
A.simple('def_param', 'main', 86, 'config.c', 2091, [('scope', 'local'), ('param', 'core.bare')])
A.enter('main', 300, 'read-cache.c', 2443, 'index', 'do_read_index', '.git/index')
A.enter('main', 340, 'cache-tree.c', 628, 'cache_tree', 'read')
A.leave('main', 351, 'cache-tree.c', 630, 'cache_tree', 'read')
A.data('main', 380, 'read-cache.c', 2391, 'index', 'read/version', '2')
A.data('main', 382, 'read-cache.c', 2392, 'index', 'read/cache_nr', '31')
A.leave('main', 390, 'read-cache.c', 2445, 'index', 'do_read_index', '.git/index')
A.enter('main', 400, 'preload-index.c', 122, 'index', 'preload')
# Two preload threads; th02's second line is written after th01's although it happened
# 4 µs earlier (threads race to write()).
for th, t0 in (('th01:preload_thread', 420), ('th02:preload_thread', 425)):
    A.thread_start[th] = t0
    A.simple('thread_start', th, t0, 'preload-index.c', 50, [])
A.enter('th01:preload_thread', 440, 'preload-index.c', 55, 'index', 'preload_slice', 'slice 0')
A.enter('th02:preload_thread', 445, 'preload-index.c', 55, 'index', 'preload_slice', 'slice 1')
A.data('th01:preload_thread', 470, 'preload-index.c', 87, 'index', 'preload/sum_lstat', '16')
A.data('th02:preload_thread', 466, 'preload-index.c', 87, 'index', 'preload/sum_lstat', '15')
A.leave('th01:preload_thread', 480, 'preload-index.c', 90, 'index', 'preload_slice', 'slice 0')
A.leave('th02:preload_thread', 490, 'preload-index.c', 90, 'index', 'preload_slice')
A.simple('th_timer', 'th01:preload_thread', 495, 'trace2/tr2_tgt_event.c', 632,
         [('category', 'index'), ('name', 'lstat'), ('intervals', 16), ('t_total', 0.000021),
          ('t_min', 0.000001), ('t_max', 0.000004)])
A.simple('thread_exit', 'th01:preload_thread', 497, 'preload-index.c', 95,
         [('t_rel', (497 - 420) / 1e6)])
A.simple('th_counter', 'th02:preload_thread', 500, 'trace2/tr2_tgt_event.c', 653,
         [('category', 'index'), ('name', 'stats'), ('count', 15)])
A.simple('thread_exit', 'th02:preload_thread', 502, 'preload-index.c', 95,
         [('t_rel', (502 - 425) / 1e6)])
A.leave('main', 520, 'preload-index.c', 130, 'index', 'preload')
# Depth 3.
A.enter('main', 600, 'wt-status.c', 817, 'status', 'worktrees')
A.enter('main', 640, 'diffcore-rename.c', 1401, 'diff', 'setup')
A.enter('main', 652, 'diffcore-rename.c', 1460, 'diff', 'inexact_renames', 'max:10')
A.data('main', 660, 'diffcore-rename.c', 1470, 'diff', 'renames', '0')
A.leave('main', 671, 'diffcore-rename.c', 1480, 'diff', 'inexact_renames')
A.leave('main', 680, 'diffcore-rename.c', 1454, 'diff', 'setup')
A.leave('main', 700, 'wt-status.c', 819, 'status', 'worktrees')
# The pre-commit hook.
A.enter('main', 800, 'hook.c', 144, 'hook', 'pre-commit', 'max:1')
A.simple('child_start', 'main', 810, 'run-command.c', 737,
         [('child_id', 0), ('child_class', 'hook'), ('hook_name', 'pre-commit'),
          ('use_shell', False), ('argv', ['.git/hooks/pre-commit'])])
A.simple('child_exit', 'main', 5320, 'run-command.c', 998,
         [('child_id', 0), ('pid', 4097), ('code', 0), ('t_rel', (5320 - 810) / 1e6)])
A.leave('main', 5330, 'hook.c', 160, 'hook', 'pre-commit')
# A child in a subdirectory through the shell: git status, which runs git version.
A.simple('child_start', 'main', 9000, 'run-command.c', 737,
         [('child_id', 1), ('child_class', '?'), ('cd', 'sub dir'), ('use_shell', True),
          ('argv', ["git status --porcelain 2>/dev/null; echo 'done'"])])
B.common_start(9420, ['git', 'status', '--porcelain'], ['sh', 'git', 'bash'])
B.simple('cmd_name', 'main', 9520, 'git.c', 464, [('name', 'status'), ('hierarchy', 'status')])
B.simple('def_param', 'main', 9530, 'config.c', 2091,
         [('scope', 'unknown'), ('param', 'GIT_DIR'), ('value', '../.git')])
B.enter('main', 9600, 'unpack-trees.c', 1874, 'unpack_trees', 'unpack_trees', repo=1)
B.data('main', 9700, 'tree-walk.c', 1200, 'traverse_trees', 'statistics',
       '{"k": "v","a": [1,2],"s":"t\\u00e9\\"x"}', json=True)
B.leave('main', 9750, 'unpack-trees.c', 2067, 'unpack_trees', 'unpack_trees', repo=1)
B.simple('alias', 'main', 9800, 'git.c', 787, [('alias', 'ver'), ('argv', ['version'])])
B.simple('cmd_name', 'main', 9810, 'git.c', 464,
         [('name', '_run_git_alias_'), ('hierarchy', 'status/_run_git_alias_')])
B.simple('child_start', 'main', 13600, 'run-command.c', 737,
         [('child_id', 0), ('child_class', 'git_alias'), ('use_shell', False),
          ('argv', ['git', 'version'])])
C.common_start(13720, ['git', 'version'], ['git', 'sh', 'git'])
C.simple('cmd_name', 'main', 13800, 'git.c', 464,
         [('name', 'version'), ('hierarchy', 'status/_run_git_alias_/version')])
C.finish(14100, 0)
B.simple('child_exit', 'main', 14300, 'run-command.c', 998,
         [('child_id', 0), ('pid', 4099), ('code', 0), ('t_rel', (14300 - 13600) / 1e6)])
B.simple('error', 'main', 14400, 'usage.c', 71,
         [('msg', "unknown option `bogus'"), ('fmt', "unknown option `%s'")])
B.finish(14500, 129)
A.simple('child_exit', 'main', 15000, 'run-command.c', 998,
         [('child_id', 1), ('pid', 4098), ('code', 129), ('t_rel', (15000 - 9000) / 1e6)])
# A concurrent child whose lines interleave with the parent's.
A.simple('child_start', 'main', 21000, 'run-command.c', 737,
         [('child_id', 2), ('child_class', '?'), ('use_shell', False),
          ('argv', ['git', 'pack-objects', '--all-progress-implied', '--revs'])])
D.simple('version', 'main', 21120, 'common-main.c', 39, [('evt', '3'), ('exe', '2.39.5')])
A.enter('main', 21200, 'builtin/commit.c', 1800, 'progress', 'Writing objects')
D.simple('start', 'main', 21230, 'common-main.c', 40,
         [('argv', ['git', 'pack-objects', '--all-progress-implied', '--revs'])], True)
D.simple('cmd_name', 'main', 21300, 'git.c', 464,
         [('name', 'pack-objects'), ('hierarchy', 'commit/pack-objects')])
A.data('main', 21310, 'progress.c', 340, 'progress', 'total_objects', '3', repo=None)
D.enter('main', 21350, 'builtin/pack-objects.c', 4300, 'pack-objects', 'enumerate-objects')
A.leave('main', 21400, 'builtin/commit.c', 1810, 'progress', 'Writing objects')
D.leave('main', 21500, 'builtin/pack-objects.c', 4310, 'pack-objects', 'enumerate-objects')
D.simple('signal', 'main', 21600, 'trace2/tr2_tgt_event.c', 188, [('signo', 13)], True)
A.simple('child_exit', 'main', 21700, 'run-command.c', 998,
         [('child_id', 2), ('pid', 4100), ('code', 141), ('t_rel', (21700 - 21000) / 1e6)])
A.simple('error', 'main', 21800, 'builtin/commit.c', 1820,
         [('msg', "pathspec 'x\ty' did not match any file(s) known to git"),
          ('fmt', "pathspec '%s' did not match any file(s) known to git")])
A.simple('exit', 'main', 22000, 'git.c', 721, [('code', 1)], True)
A.data('main', 22010, 'tree-walk.c', 1210, 'traverse_trees', 'statistics',
       '{"traverse_trees_count":1,"traverse_trees_max_depth":1}', json=True)
A.simple('timer', 'main', 22020, 'trace2/tr2_tgt_event.c', 632,
         [('category', 'index'), ('name', 'lstat'), ('intervals', 31), ('t_total', 0.000040),
          ('t_min', 0.000001), ('t_max', 0.000004)])
A.simple('counter', 'main', 22022, 'trace2/tr2_tgt_event.c', 653,
         [('category', 'index'), ('name', 'stats'), ('count', 15)])
A.simple('atexit', 'main', 22030, 'trace2/tr2_tgt_event.c', 204, [('code', 1)], True)

with open('git_event_stream.json', 'w') as out:
    out.write('\n'.join(lines) + '\n')
