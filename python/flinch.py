"""flinch.py - MARKs and ranges from Python into a running `flinch record`.

    import flinch

    flinch.mark("infer_start")                  # one labelled moment
    with flinch.window("decode"):               # a range: start and end marks
        ...
    @flinch.window("prefill")                   # the same, around each call
    def prefill(batch): ...
    token = flinch.start("request")             # a range ended elsewhere,
    flinch.end(token)                           # e.g. on another thread

    flinch analyze --csv trace.csv --range decode

Standard library only. Marks go to the recorder's FIFO, $FLINCH_MARKS (set
by `flinch record -- CMD`), else /tmp/flinch_marks, in flinch's line
protocol (flinch-trace(5), THE MARK LINE PROTOCOL): each mark is stamped with
time.monotonic_ns() (CLOCK_MONOTONIC, the trace's clock) where it happens,
and a range's start and end carry the same id, PID.N, so `flinch analyze
--range NAME` pairs them exactly, however ranges nest or overlap across
threads. A range left by an exception ends with interrupted=exception
(interrupted=keyboard for KeyboardInterrupt, interrupted=cancelled for a
cancelled asyncio task): analyze flags its window `interrupted`.

It never hurts the program it observes: no function here raises, blocks,
or lets a vanished recorder's SIGPIPE through. (An exception the program's
own signal handler raises while a mark is being written goes on to the
program, as it would have without the mark.) The FIFO is opened lazily,
without blocking, and reopened (at most every 0.2 s) when a recorder
appears later, stops, or its FIFO is recreated. A mark that cannot be
written at once (no recorder, a full pipe) is counted, and the count is
sent as a `dropped=N` line once a recorder reads again (an EVENT row
`marks_dropped count=N python pid=PID reason=undelivered`). The default
FIFO (no $FLINCH_MARKS) is opened only if it is a FIFO, not a symlink,
owned by this user or root. Safe with threads (one write() per mark, under
PIPE_BUF: lines never interleave), from signal handlers (no lock is ever
waited for: a handler that interrupts a mark may mark too), and across
fork() (the child starts afresh with its own pid). A window object's open
ranges are kept per thread and per asyncio task (contextvars).
"""

import contextvars
import itertools
import os
import signal
import stat
import sys
import threading
import time

try:
    import _signal as _sig    # signal's functions without the wrappers that turn
except ImportError:           # each returned number into an enum (1 us a mark)
    _sig = signal

__all__ = ["mark", "window", "start", "end", "stats", "fifo_path"]
__version__ = "0.1"

DEFAULT_FIFO = "/tmp/flinch_marks"
LABEL_MAX = 256          # bytes; longer labels are cut and end in "..."
DOMAIN_MAX = 64
RETRY_S = 0.2            # reconnect attempts at most this often

# Nothing here ever waits for a lock: a signal handler that marks may run
# at any bytecode of a mark it interrupted, on the same thread, and would
# wait forever for a lock that frame holds. Counters are itertools.count
# objects (next() is one C call: atomic under the GIL, and a handler cannot
# run inside it); the two locks are only ever tried (acquire(False)), and
# whoever fails to get one skips that step (a connect: the mark is counted
# undelivered; a report: the next mark that gets through sends it).
_connect_lock = threading.Lock()  # tried, never waited for
_report_lock = threading.Lock()   # tried, never waited for
_fd = -1                  # once set, this number stays ours: see _connect
_broken = False
_next_try = 0.0
_pid = os.getpid()
_ids = itertools.count(1)
_delivered = itertools.count()
_undelivered = itertools.count()
_reported = 0             # undelivered marks sent as dropped=N; only under _report_lock
_maybe_unreported = False  # set after an undelivered mark; cleared by the reporter
_hook = None              # tests only: called with a place name inside each critical section

_SIGPIPE_SAFE = all(hasattr(_sig, n) for n in ("pthread_sigmask", "sigpending", "sigtimedwait", "SIGPIPE"))
_SIGPIPE = int(signal.SIGPIPE) if _SIGPIPE_SAFE else 0
_PIPE_SET = {_SIGPIPE}
# control bytes (and, for a domain, spaces) -> "_"
_CTRL = {c: "_" for c in list(range(0x20)) + [0x7F]}
_CTRL_SPACE = dict(_CTRL)
_CTRL_SPACE[0x20] = "_"


def _value(counter):
    """The next value of an itertools.count, without taking it (its repr is count(N))."""
    r = repr(counter)
    return int(r[r.index("(") + 1:-1])


def fifo_path():
    """The FIFO marks go to: $FLINCH_MARKS when set and non-empty, else /tmp/flinch_marks."""
    return os.environ.get("FLINCH_MARKS") or DEFAULT_FIFO


def _clean(text, limit, space_ok=True):
    """text as bytes the recorder accepts (control bytes -> '_', cut at a
    UTF-8 character boundary with '...' when over limit bytes). Only the
    first limit + 1 characters are ever looked at (of bytes, the first
    4 * limit + 8: enough to decode those characters exactly), so a huge
    label costs no more than a long one."""
    if text is None:
        text = ""
    elif isinstance(text, (bytes, bytearray)):
        text = bytes(text[:4 * limit + 8]).decode("utf-8", "replace")
    elif not isinstance(text, str):
        text = str(text)
    if len(text) > limit:           # each character is at least one byte
        text = text[:limit + 1]
    raw = text.translate(_CTRL if space_ok else _CTRL_SPACE).encode("utf-8", "replace")
    if len(raw) > limit:
        cut = limit - 3
        while cut > 0 and (raw[cut] & 0xC0) == 0x80:
            cut -= 1
        raw = raw[:cut] + b"..."
    if not raw.strip(b" "):
        raw = b"(unnamed)"
    return raw


def _usable(st, explicit):
    """A FIFO; the default path's only when this user's or root's (another
    user could have made /tmp/flinch_marks to collect or forge marks)."""
    return stat.S_ISFIFO(st.st_mode) and (explicit or st.st_uid in (os.getuid(), 0))


def _program_raised(exc):
    """True when EXC is the program's own: raised by one of its Python signal
    handlers that ran inside a mark (a SIGALRM handler's TimeoutError, say).
    Such an exception goes on to the program, as it would have without the
    mark; only the helper's own failures are kept from it. The innermost
    frame tells: this file's means the helper's (or the C function it
    called); another's is the program's when it runs an installed handler
    (not, say, a label's __str__, which the helper called and answers for)."""
    try:
        tb = exc.__traceback__
        codes = []
        while tb is not None:
            codes.append(tb.tb_frame.f_code)
            tb = tb.tb_next
        if not codes or codes[-1].co_filename == __file__:
            return False
        handlers = set()
        for s in signal.valid_signals():
            h = signal.getsignal(s)
            h = getattr(h, "__func__", h)
            if hasattr(h, "__code__"):
                handlers.add(h.__code__)
        return any(c in handlers for c in codes)
    except Exception:
        return False


def _connect(now):
    """Opens the FIFO without blocking (a regular file at the path is never
    even opened; the default path is never followed through a symlink).
    Once _fd holds a number it is never closed - another thread may be
    writing to it, and a closed number may be reused by the program - so a
    reconnect dup2()s the new FIFO onto the same number."""
    global _fd, _broken, _next_try
    if now < _next_try or not _connect_lock.acquire(False):
        return False
    try:
        _next_try = now + RETRY_S
        if _hook:
            _hook("connect")
        path = os.environ.get("FLINCH_MARKS")
        explicit = bool(path)
        if not explicit:
            path = DEFAULT_FIFO
        if not _usable(os.stat(path) if explicit else os.lstat(path), explicit):
            return False
        flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(path, flags if explicit else flags | os.O_NOFOLLOW)
        try:
            ok = _usable(os.fstat(fd), explicit)
        except OSError:
            ok = False
        if not ok:
            os.close(fd)
            return False
        if _fd < 0:
            _fd = fd
        else:
            os.dup2(fd, _fd, inheritable=False)
            os.close(fd)
        _broken = False
        return True
    except OSError as e:
        if _program_raised(e):
            raise
        return False
    finally:
        _connect_lock.release()


def _write_nosigpipe(fd, line):
    """os.write() with SIGPIPE blocked in this thread, as flinch_mark.h does:
    a program that restored SIGPIPE's default action must not die when the
    recorder goes away. If the write raised SIGPIPE (EPIPE) and none was
    pending before, that one is taken off the pending set, so unblocking it
    neither kills the program nor runs its handler."""
    if not _SIGPIPE_SAFE:
        os.write(fd, line)
        return
    # True until pthread_sigmask returns: it may run a Python signal handler
    # once the mask is set, and one that raises (KeyboardInterrupt) leaves
    # the old mask unknown; SIGPIPE is then unblocked, the usual case.
    unblock = True
    try:
        unblock = _SIGPIPE not in _sig.pthread_sigmask(signal.SIG_BLOCK, _PIPE_SET)
        # Unblocked until now, no SIGPIPE can be pending (it would have been
        # delivered, or discarded while ignored); blocked by the program, one may.
        was_pending = not unblock and _SIGPIPE in _sig.sigpending()
        if _hook:
            _hook("write")
        try:
            os.write(fd, line)
        except BrokenPipeError:
            if not was_pending:
                _sig.sigtimedwait(_PIPE_SET, 0)
            raise
    finally:
        if unblock:
            _sig.pthread_sigmask(signal.SIG_UNBLOCK, _PIPE_SET)


def _write(line, now_ns):
    """Writes one line; True when the recorder has it."""
    global _broken
    try:
        if _fd < 0 or _broken:
            if not _connect(now_ns / 1e9):
                return False
        _write_nosigpipe(_fd, line)
        return True
    except BlockingIOError as e:  # a full pipe: the recorder is not reading
        if _program_raised(e):
            raise
        return False
    except OSError as e:          # EPIPE: the recorder went away
        if _program_raised(e):
            raise
        _broken = True
        return False


def _report(now_ns):
    """Sends the count of undelivered marks not yet reported, unless another
    thread (or the mark this signal handler interrupted) is doing so."""
    global _reported, _maybe_unreported
    if not _report_lock.acquire(False):
        return
    try:
        _maybe_unreported = False
        if _hook:
            _hook("report")
        n = _value(_undelivered) - _reported
        if n > 0:
            line = b"\npython pid=%d reason=undelivered\t%d\tdropped=%d\n" % (_pid, now_ns, n)
            if _write(line, now_ns):
                _reported += n
            else:
                _maybe_unreported = True
    finally:
        _report_lock.release()


def _send(label, now_ns, attrs):
    """Writes LABEL<TAB>NOW<TAB>ATTRS tid=T (ATTRS may be empty) and, after
    a mark gets through, the count of those that did not."""
    global _maybe_unreported
    try:
        sep = b" " if attrs else b""
        line = b"\n%s\t%d\t%s%stid=%d\n" % (label, now_ns, attrs, sep, threading.get_native_id())
        if _write(line, now_ns):
            next(_delivered)
            if _maybe_unreported:
                _report(now_ns)
        else:
            next(_undelivered)    # counted before the flag: see _report
            _maybe_unreported = True
    except Exception as e:        # never into the program, but the program's own
        if _program_raised(e):
            raise


def _domain_attr(domain):
    if not domain:
        return b""
    return b" domain=" + _clean(domain, DOMAIN_MAX, space_ok=False)


def mark(label, domain=None):
    """Marks LABEL now (time.monotonic_ns())."""
    try:
        now = time.monotonic_ns()
        _send(_clean(label, LABEL_MAX), now, _domain_attr(domain)[1:])
    except Exception as e:
        if _program_raised(e):
            raise


class Token:
    """A range started with start(); end it with end(token), on any thread."""

    __slots__ = ("label", "ident", "domain", "ended")

    def __init__(self, label, ident, domain):
        self.label, self.ident, self.domain, self.ended = label, ident, domain, False


def start(name, domain=None):
    """Starts a range NAME now; returns a Token for end()."""
    try:
        now = time.monotonic_ns()
        label = _clean(name, LABEL_MAX)
        dom = _domain_attr(domain)
        tok = Token(label, b"%d.%d" % (_pid, next(_ids)), dom)
        _send(label, now, b"start=" + tok.ident + dom)
        return tok
    except Exception as e:
        if _program_raised(e):
            raise
        return None


def end(token):
    """Ends the range of token (from start()) now; a second end is ignored."""
    _end(token, None)


def _end(token, exc):
    """end(), with the exception (or None) that left the range: its end
    mark then says interrupted=WHY (_interruption), which analyze shows as
    the window's flag `interrupted`."""
    try:
        now = time.monotonic_ns()
        if not isinstance(token, Token) or token.ended:
            return
        token.ended = True
        why = _interruption(exc)
        _send(token.label, now, b"end=" + token.ident + token.domain +
              (b" interrupted=" + why if why else b""))
    except Exception as e:
        if _program_raised(e):
            raise


def _interruption(exc):
    """b"keyboard" (KeyboardInterrupt), b"cancelled" (an asyncio task
    cancelled), b"exception" (any other), None (no exception)."""
    if exc is None:
        return None
    if isinstance(exc, KeyboardInterrupt):
        return b"keyboard"
    # asyncio only if the program imported it: importing it here would cost
    # every interrupted window of a program without it
    aio = sys.modules.get("asyncio")
    cancelled = getattr(aio, "CancelledError", None) if aio else None
    if isinstance(cancelled, type) and isinstance(exc, cancelled):
        return b"cancelled"
    return b"exception"


# The `with` ranges open in this context, innermost last: a tuple of
# (window, Token). Each thread, and each asyncio task, has its own, so one
# window object shared by threads or tasks ends each range it started. One
# variable for every window: a variable per window object would leave an
# entry in the context for each window ever created.
_open = contextvars.ContextVar("flinch_open_windows", default=())


class window:
    """A range NAME: `with flinch.window(NAME):` or `@flinch.window(NAME)`.

    Each `with` (or each call of a decorated function, coroutine functions
    included) is a range of its own, with its own id. One window object may
    be shared: its `with` blocks pair per thread and per asyncio task."""

    def __init__(self, name, domain=None):
        self.name, self.domain = name, domain

    def __enter__(self):
        tok = start(self.name, self.domain)
        try:
            _open.set(_open.get() + ((self, tok),))
        except Exception:
            pass
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            stack = _open.get()
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] is self:
                    _open.set(stack[:i] + stack[i + 1:])
                    _end(stack[i][1], exc)
                    break
        except Exception as e:
            if _program_raised(e):
                raise
        return False

    def __call__(self, func):
        import functools
        import inspect
        name, domain = self.name, self.domain
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def async_wrapper(*args, **kwargs):
                tok = start(name, domain)
                try:
                    result = await func(*args, **kwargs)
                except BaseException as e:
                    _end(tok, e)
                    raise
                _end(tok, None)
                return result
            return async_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            tok = start(name, domain)
            try:
                result = func(*args, **kwargs)
            except BaseException as e:
                _end(tok, e)
                raise
            _end(tok, None)
            return result
        return wrapper


def stats():
    """{"delivered": N, "undelivered": N}: marks written, and marks this
    process could not write (no recorder, a full pipe), since it started."""
    try:
        return {"delivered": _value(_delivered), "undelivered": _value(_undelivered)}
    except Exception as e:
        if _program_raised(e):
            raise
        return {"delivered": 0, "undelivered": 0}


def _after_fork_in_child():
    global _connect_lock, _report_lock, _pid, _ids, _delivered, _undelivered
    global _reported, _maybe_unreported
    _connect_lock = threading.Lock()  # a thread of the parent may have held them
    _report_lock = threading.Lock()
    _pid = os.getpid()
    _ids = itertools.count(1)
    _delivered = itertools.count()
    _undelivered = itertools.count()
    _reported = 0
    _maybe_unreported = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
