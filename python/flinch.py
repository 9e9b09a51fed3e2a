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
protocol (README, "The line protocol"): each mark is stamped with
time.monotonic_ns() (CLOCK_MONOTONIC, the trace's clock) where it happens,
and a range's start and end carry the same id, PID.N, so `flinch analyze
--range NAME` pairs them exactly, however ranges nest or overlap across
threads.

It never hurts the program it observes: no function here raises or blocks.
The FIFO is opened lazily, without blocking, and reopened (at most every
0.2 s) when a recorder appears later, stops, or its FIFO is recreated. A
mark that cannot be written at once (no recorder, a full pipe) is counted,
and the count is sent as a `dropped=N` line once a recorder reads again
(an EVENT row `marks_dropped count=N python pid=PID reason=undelivered`).
Safe with threads (one write() per mark, under PIPE_BUF: lines never
interleave) and across fork() (the child starts afresh with its own pid).
"""

import os
import stat
import threading
import time

__all__ = ["mark", "window", "start", "end", "stats", "fifo_path"]
__version__ = "0.1"

DEFAULT_FIFO = "/tmp/flinch_marks"
LABEL_MAX = 256          # bytes; longer labels are cut and end in "..."
DOMAIN_MAX = 64
RETRY_S = 0.2            # reconnect attempts at most this often

_lock = threading.Lock()  # held only to connect, never waited for
_count_lock = threading.Lock()  # held for a few bytecodes: exact counts across threads
_fd = -1                  # once set, this number stays ours: see _connect
_broken = False
_next_try = 0.0
_pid = os.getpid()
_ids = iter(range(1, 1 << 62))
_counts = {"delivered": 0, "undelivered": 0}
_unreported = 0


def fifo_path():
    """The FIFO marks go to: $FLINCH_MARKS when set and non-empty, else /tmp/flinch_marks."""
    return os.environ.get("FLINCH_MARKS") or DEFAULT_FIFO


def _clean(text, limit, space_ok=True):
    """text as bytes the recorder accepts (control bytes -> '_', cut at a
    UTF-8 character boundary with '...' when over limit bytes)."""
    if text is None:
        text = ""
    elif isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    elif not isinstance(text, str):
        text = str(text)
    out = []
    for ch in text:
        if ord(ch) < 0x20 or ord(ch) == 0x7F or (not space_ok and ch == " "):
            ch = "_"
        out.append(ch)
    raw = "".join(out).encode("utf-8", "replace")
    if len(raw) > limit:
        cut = limit - 3
        while cut > 0 and (raw[cut] & 0xC0) == 0x80:
            cut -= 1
        raw = raw[:cut] + b"..."
    if not raw.strip(b" "):
        raw = b"(unnamed)"
    return raw


def _connect(now):
    """Opens the FIFO without blocking (a regular file at the path is never
    even opened). Once _fd holds a number it is never closed - another
    thread may be writing to it, and a closed number may be reused by the
    program - so a reconnect dup2()s the new FIFO onto the same number."""
    global _fd, _broken, _next_try
    if now < _next_try or not _lock.acquire(False):
        return False
    try:
        _next_try = now + RETRY_S
        path = fifo_path()
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.close(fd)
            return False
        if _fd < 0:
            _fd = fd
        else:
            os.dup2(fd, _fd, inheritable=False)
            os.close(fd)
        _broken = False
        return True
    except OSError:
        return False
    finally:
        _lock.release()


def _write(line, now_ns):
    """Writes one line; True when the recorder has it."""
    global _broken
    try:
        if _fd < 0 or _broken:
            if not _connect(now_ns / 1e9):
                return False
        os.write(_fd, line)
        return True
    except BlockingIOError:       # a full pipe: the recorder is not reading
        return False
    except OSError:               # EPIPE: the recorder went away
        _broken = True
        return False


def _send(label, now_ns, attrs):
    """Writes LABEL<TAB>NOW<TAB>ATTRS tid=T (ATTRS may be empty) and, after
    a mark gets through, the count of those that did not."""
    global _unreported
    try:
        sep = b" " if attrs else b""
        line = b"\n%s\t%d\t%s%stid=%d\n" % (label, now_ns, attrs, sep, threading.get_native_id())
        ok = _write(line, now_ns)
        with _count_lock:
            _counts["delivered" if ok else "undelivered"] += 1
            n = 0
            if ok:
                n, _unreported = _unreported, 0
            else:
                _unreported += 1
        if n:
            report = b"\npython pid=%d reason=undelivered\t%d\tdropped=%d\n" % (_pid, now_ns, n)
            if not _write(report, now_ns):
                with _count_lock:
                    _unreported += n
    except Exception:             # never into the program
        pass


def _domain_attr(domain):
    if not domain:
        return b""
    return b" domain=" + _clean(domain, DOMAIN_MAX, space_ok=False)


def mark(label, domain=None):
    """Marks LABEL now (time.monotonic_ns())."""
    try:
        now = time.monotonic_ns()
        _send(_clean(label, LABEL_MAX), now, _domain_attr(domain)[1:])
    except Exception:
        pass


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
    except Exception:
        return None


def end(token):
    """Ends the range of token (from start()) now; a second end is ignored."""
    try:
        now = time.monotonic_ns()
        if not isinstance(token, Token) or token.ended:
            return
        token.ended = True
        _send(token.label, now, b"end=" + token.ident + token.domain)
    except Exception:
        pass


class window:
    """A range NAME: `with flinch.window(NAME):` or `@flinch.window(NAME)`.

    Each `with` (or each call of a decorated function, coroutine functions
    included) is a range of its own, with its own id."""

    def __init__(self, name, domain=None):
        self.name, self.domain = name, domain
        self._open = []

    def __enter__(self):
        self._open.append(start(self.name, self.domain))
        return self

    def __exit__(self, *exc):
        try:
            end(self._open.pop())
        except Exception:
            pass
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
                    return await func(*args, **kwargs)
                finally:
                    end(tok)
            return async_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            tok = start(name, domain)
            try:
                return func(*args, **kwargs)
            finally:
                end(tok)
        return wrapper


def stats():
    """{"delivered": N, "undelivered": N}: marks written, and marks this
    process could not write (no recorder, a full pipe), since it started."""
    with _count_lock:
        return dict(_counts)


def _after_fork_in_child():
    global _lock, _count_lock, _pid, _ids, _unreported, _counts
    _lock = threading.Lock()
    _count_lock = threading.Lock()
    _pid = os.getpid()
    _ids = iter(range(1, 1 << 62))
    _unreported = 0
    _counts = {"delivered": 0, "undelivered": 0}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
