"""tests/python/robust_checks.py GROUP DIR - python/flinch.py never kills,
blocks or confuses the program it observes, checked in one process per
GROUP against a FIFO this process reads itself (no recorder needed), on
whichever interpreter runs it (tests/e2e/python_robust.sh runs every one it
finds). Prints TAP lines ("ok - pyX.Y GROUP: ...") and "done GROUP" last,
so a process that died or hung part-way is caught by its caller.

Groups:
  sigpipe   SIGPIPE at its default action, a Python handler for it, or
            blocked by the program: a reader that goes away never kills the
            program, never reaches its handler, and leaves its mask and its
            own pending SIGPIPE alone
  handler   a signal handler that marks, run from inside each critical
            section of a mark (flinch._hook), and a 1 ms timer's handler
            marking while the main thread and another thread mark
  windows   one window object shared by two threads, by two asyncio tasks,
            nested, and inherited by a child task: each end closes its own
            start's id
  labels    a 10**7-character label and 10 MB of invalid UTF-8 return at
            once, cut to the label limit
  default   the default FIFO path: a symlink, or a FIFO of another user, is
            never written (counted undelivered); the same FIFO given in
            $FLINCH_MARKS is
"""
import asyncio
import faulthandler
import os
import signal
import sys
import threading
import time

import flinch

GROUP, DIR = sys.argv[1], os.path.abspath(sys.argv[2])
VER = "py%d.%d" % sys.version_info[:2]
fails = 0
faulthandler.dump_traceback_later(8, exit=True)   # a hang shows where, then fails


def check(name, cond, detail=""):
    global fails
    if cond:
        print("ok - %s %s: %s" % (VER, GROUP, name))
    else:
        fails += 1
        print("not ok - %s %s: %s%s" % (VER, GROUP, name, "  [%r]" % (detail,) if detail else ""))
    sys.stdout.flush()


def skip(name, why):
    print("ok - %s %s: %s # SKIP %s" % (VER, GROUP, name, why))


class Fifo:
    """A FIFO in DIR that this process reads, without blocking."""

    def __init__(self, name):
        self.path = os.path.join(DIR, name)
        if not os.path.exists(self.path):
            os.mkfifo(self.path, 0o600)
        self.fd = -1
        self.chunks = []

    def open(self):
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        return self

    def close(self):
        self.drain()
        os.close(self.fd)
        self.fd = -1

    def drain(self, keep=True, reads=1 << 30):
        """Reads what the pipe holds (at most reads reads: a writer on
        another thread may keep it from ever being empty)."""
        while self.fd >= 0 and reads > 0:
            reads -= 1
            try:
                b = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not b:
                break
            if keep:
                self.chunks.append(b)

    def labels(self):
        """The labels of the marks read so far (not the dropped=N reports)."""
        return [l[0] for l in self.lines() if "dropped" not in l[2]]

    def lines(self):
        """Every line read so far as (label, stamp, {attr: value}), blank lines dropped."""
        self.drain()
        out = []
        for raw in b"".join(self.chunks).split(b"\n"):
            if not raw:
                continue
            parts = raw.decode("utf-8", "replace").split("\t")
            attrs = dict(kv.split("=", 1) for kv in parts[2].split(" ")) if len(parts) > 2 else {}
            out.append((parts[0], parts[1] if len(parts) > 1 else "", attrs))
        return out


def reconnect():
    """The next mark reconnects now (the helper waits 0.2 s between tries)."""
    flinch._next_try = 0.0


def mask():
    return signal.pthread_sigmask(signal.SIG_BLOCK, [])


def pending():
    return signal.SIGPIPE in signal.sigpending()


# --- SIGPIPE -------------------------------------------------------------

def group_sigpipe():
    f = Fifo("pipe.fifo")
    os.environ["FLINCH_MARKS"] = f.path
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    mask0 = mask()

    f.open()
    flinch.mark("a")
    check("a reader: delivered", flinch.stats() == {"delivered": 1, "undelivered": 0}, flinch.stats())
    f.close()                                  # the reader goes away
    for i in range(3):
        flinch.mark("after_close")             # EPIPE, then no reader to reconnect to
    check("SIG_DFL: the reader gone, the program lives on; 3 marks undelivered",
          flinch.stats() == {"delivered": 1, "undelivered": 3}, flinch.stats())
    check("SIG_DFL: the signal mask is as before", mask() == mask0, (mask(), mask0))
    check("SIG_DFL: no SIGPIPE left pending", not pending())

    # the same on another thread (SIGPIPE goes to the thread that wrote)
    f.open(); reconnect()
    flinch.mark("b")
    f.close()
    t = threading.Thread(target=lambda: [flinch.mark("thread_after_close") for i in range(3)])
    t.start(); t.join()
    check("SIG_DFL, a thread marks: the program lives on",
          flinch.stats() == {"delivered": 2, "undelivered": 6}, flinch.stats())

    # a Python handler for SIGPIPE is never run by the helper's SIGPIPE
    calls = []
    signal.signal(signal.SIGPIPE, lambda s, fr: calls.append(s))
    f.open(); reconnect()
    flinch.mark("c")
    f.close()
    flinch.mark("handler_after_close")
    time.sleep(0.01)                           # a handler would have run by now
    check("a SIGPIPE handler: never called by the helper's write", calls == [], calls)
    check("a SIGPIPE handler: the mark counted undelivered",
          flinch.stats() == {"delivered": 3, "undelivered": 7}, flinch.stats())

    # the program blocks SIGPIPE itself: its mask stays so; a SIGPIPE the
    # helper raised is consumed, one the program had pending is left
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGPIPE])
    f.open(); reconnect()
    flinch.mark("d")
    f.close()
    flinch.mark("blocked_after_close")
    check("blocked by the program: still blocked after the mark", signal.SIGPIPE in mask())
    check("blocked by the program: the helper's SIGPIPE consumed", not pending())
    signal.pthread_kill(threading.get_ident(), signal.SIGPIPE)  # the program's own, pending
    f.open(); reconnect()
    flinch.mark("e")
    f.close()
    flinch.mark("pending_after_close")
    check("blocked and pending: the program's SIGPIPE left pending", pending())
    signal.sigtimedwait([signal.SIGPIPE], 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGPIPE])
    check("the program's SIGPIPE was the only one", not pending() and calls == [], calls)
    check("every mark delivered is read back", f.labels() == list("abcde"),
          f.lines())


# --- signal handlers that mark -------------------------------------------

def group_handler():
    f = Fifo("handler.fifo").open()
    os.environ["FLINCH_MARKS"] = f.path + ".missing"
    w = flinch.window("h_win")
    ran = []                                   # places the handler ran inside
    depth = [0]
    place = [None]
    calls = [0]                                # mark calls: every one is counted

    def handler(signum, frame):
        depth[0] += 1
        try:
            flinch.mark("from_handler")
            with w:
                pass
            calls[0] += 3
            ran.append(place[0])
        finally:
            depth[0] -= 1

    def hook(where):                           # inside a critical section of a mark
        if depth[0] == 0 and where not in ran:
            place[0] = where
            signal.raise_signal(signal.SIGUSR1)    # the handler runs here, before this returns

    signal.signal(signal.SIGUSR1, handler)
    flinch._hook = hook
    flinch.mark("lost"); calls[0] += 1         # no FIFO: tries to connect, counted undelivered
    os.environ["FLINCH_MARKS"] = f.path
    reconnect()
    flinch.mark("first"); calls[0] += 1        # connects and writes; a report follows
    # fill the pipe, so that marks go undelivered and the next one through reports them
    n, u0 = 0, flinch.stats()["undelivered"]
    while flinch.stats()["undelivered"] < u0 + 5 and n < 100000:
        flinch.mark("fill"); calls[0] += 1; n += 1
    f.drain()
    flinch.mark("through"); calls[0] += 1      # delivered, then reports the overflow
    flinch._hook = None
    check("a handler that marks ran inside connect, write and report, and returned",
          sorted(ran) == ["connect", "report", "write"], ran)
    flinch.mark("last"); calls[0] += 1         # reports whatever the handler's marks left
    s = flinch.stats()
    check("every mark counted once (%d calls)" % calls[0],
          s["delivered"] + s["undelivered"] == calls[0], s)
    lines = f.lines()
    marks = [l for l in lines if "dropped" not in l[2]]
    dropped = sum(int(l[2]["dropped"]) for l in lines if "dropped" in l[2])
    check("the trace holds the delivered marks; the undelivered are reported (%d + %d)"
          % (len(marks), dropped),
          len(marks) == s["delivered"] and dropped == s["undelivered"], (len(marks), dropped, s))
    ids = {}
    for label, _, attrs in marks:
        if label == "h_win":
            k = "start" if "start" in attrs else "end"
            ids.setdefault(attrs[k], []).append(k)
    check("the handler's ranges that got through pair", all(v == ["start", "end"] for v in ids.values())
          and len(ids) >= 1, ids)

    # a handler that raises (a SIGALRM timeout, say) inside each critical
    # section: its exception reaches the program, as without the mark, and
    # the helper is left whole (mask, locks, later marks)
    class Timeout(TimeoutError):
        pass

    def raising(signum, frame):
        raise Timeout("the program's own")

    signal.signal(signal.SIGUSR2, raising)
    got = {}
    m0 = mask()
    for where in ("connect", "write", "report"):
        def hook2(w, where=where):
            if w == where:
                flinch._hook = None
                signal.raise_signal(signal.SIGUSR2)
        reconnect()
        if where == "connect":
            flinch._broken = True
        else:
            flinch.mark("connected")           # connected before the hook is set
        if where == "report":                  # a report is due: an undelivered mark first
            flinch._maybe_unreported = True
        flinch._hook = hook2
        try:
            flinch.mark("raised_" + where)
            got[where] = "returned"
        except Timeout:
            got[where] = "raised"
        except Exception as e:                 # anything else is a failure
            got[where] = repr(e)
        flinch._hook = None
    check("a handler's exception inside connect, write and report reaches the program",
          got == {"connect": "raised", "write": "raised", "report": "raised"}, got)
    check("the signal mask is as it was after them", mask() == m0, (mask(), m0))
    f.drain()
    before = flinch.stats()["delivered"]
    reconnect()
    flinch.mark("after_raised")
    check("marks after them are delivered (no lock left held)",
          flinch.stats()["delivered"] == before + 1 and "after_raised" in f.labels(),
          (flinch.stats(), before))

    class Bad:
        def __str__(self):
            raise ValueError("a label that cannot be shown")
    try:
        flinch.mark(Bad())
        check("a label whose __str__ raises: nothing reaches the program", True)
    except Exception as e:
        check("a label whose __str__ raises: nothing reaches the program", False, repr(e))

    # a 1 ms timer whose handler marks, while this thread and another mark
    # in a loop: any critical section the hooks missed would deadlock here
    # the handler counts by list.append, one call: a nested alarm landing
    # inside `n += 3` (load, add, store) would lose the outer's count
    n_main, n_thread, alarms = [0], [0], []

    def on_alarm(signum, frame):
        flinch.mark("alarm")
        with w:
            pass
        alarms.append(3)

    stop = threading.Event()

    def other():
        while not stop.is_set():
            with w:
                flinch.mark("thread")
            n_thread[0] += 3
    base = flinch.stats()
    signal.signal(signal.SIGALRM, on_alarm)
    t = threading.Thread(target=other)
    t.start()
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    end = time.monotonic() + 0.4
    while time.monotonic() < end:
        with w:
            flinch.mark("main")
        n_main[0] += 3
        if n_main[0] % 300 == 0:
            f.drain(keep=False, reads=4)
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    time.sleep(0.01)                           # an alarm still on its way is handled here
    stop.set(); t.join()
    s = flinch.stats()
    n_alarm = sum(alarms)
    total = n_main[0] + n_thread[0] + n_alarm
    check("1 ms timer marking against two marking threads: done, every mark counted (%d by the handler)"
          % n_alarm, n_alarm > 0 and
          s["delivered"] + s["undelivered"] - base["delivered"] - base["undelivered"] == total,
          (s, base, n_main, n_thread, n_alarm))


# --- one window object, many contexts ------------------------------------

def range_ends(f, label):
    """[(start id, end id)] of label's ranges in order of their ends, paired
    as a stack per thread would (the helper is right when each end's id is
    the id its own context started)."""
    starts, ends = {}, []
    for lab, _, attrs in f.lines():
        if lab != label:
            continue
        if "start" in attrs:
            starts[attrs["start"]] = attrs["tid"]
        else:
            ends.append((attrs["end"], attrs["tid"]))
    return starts, ends


def group_windows():
    f = Fifo("win.fifo").open()
    os.environ["FLINCH_MARKS"] = f.path
    w = flinch.window("tw")
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    ids = {}

    def a():
        ids["a"] = threading.get_native_id()
        with w:
            a_in.set(); b_in.wait(5)
        a_out.set()

    def b():
        ids["b"] = threading.get_native_id()
        a_in.wait(5)
        with w:
            b_in.set(); a_out.wait(5)
    ts = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    starts, ends = range_ends(f, "tw")
    check("two threads, one window, interleaved: each end closes its own thread's start",
          len(starts) == 2 and len(ends) == 2 and all(starts.get(i) == tid for i, tid in ends)
          and ends[0][1] == str(ids["a"]), (starts, ends, ids))

    aw = flinch.window("aw")

    async def main():
        ev_a, ev_b, ev_a_out = asyncio.Event(), asyncio.Event(), asyncio.Event()
        order = []

        async def ta():
            with aw:
                order.append("a"); ev_a.set(); await ev_b.wait()
            ev_a_out.set()

        async def tb():
            await ev_a.wait()
            with aw:
                order.append("b"); ev_b.set(); await ev_a_out.wait()

        async def parent():                    # a child task inherits the open range
            with aw:
                order.append("p")
                await asyncio.ensure_future(child())

        async def child():
            with aw:
                order.append("c")
                await asyncio.sleep(0)
        await asyncio.gather(ta(), tb())
        await parent()
        return order
    loop = asyncio.new_event_loop()
    try:
        order = loop.run_until_complete(main())
    finally:
        loop.close()
    starts_in_order = [attrs["start"] for lab, _, attrs in f.lines() if lab == "aw" and "start" in attrs]
    ends_in_order = [attrs["end"] for lab, _, attrs in f.lines() if lab == "aw" and "end" in attrs]
    check("two asyncio tasks, one window: each end closes its own task's start (starts %s, ends %s)"
          % (" ".join(starts_in_order), " ".join(ends_in_order)),
          order == ["a", "b", "p", "c"] and len(ends_in_order) == 4
          and ends_in_order[:2] == starts_in_order[:2], (order, starts_in_order, ends_in_order))
    check("a child task's range inside its parent's: the child's ends first",
          ends_in_order[2:] == [starts_in_order[3], starts_in_order[2]], (starts_in_order, ends_in_order))

    nw = flinch.window("nw")
    with nw:
        with nw:
            pass
    st = [attrs.get("start") or attrs.get("end") for lab, _, attrs in f.lines() if lab == "nw"]
    check("the same window nested: inner then outer", len(st) == 4 and st[1] == st[2] and st[0] == st[3], st)
    check("nothing left open in this context", flinch._open.get() == (), flinch._open.get())


# --- huge labels ---------------------------------------------------------

def group_labels():
    f = Fifo("label.fifo").open()
    os.environ["FLINCH_MARKS"] = f.path
    flinch.mark("warm")                        # connects
    big = "x" * 10 ** 7
    bad = b"\xff" * 10 ** 7
    bad_array = bytearray(bad)
    t0 = time.perf_counter(); flinch.mark(big); t1 = time.perf_counter()
    flinch.mark(bad); t2 = time.perf_counter()
    flinch.mark(bad_array); t3 = time.perf_counter()
    with flinch.window(big):
        pass
    t4 = time.perf_counter()
    labels = f.labels()
    for name, dt in (("10**7 characters", t1 - t0), ("10 MB of invalid UTF-8", t2 - t1),
                     ("10 MB bytearray", t3 - t2), ("a window named by 10**7 characters", t4 - t3)):
        check("%s: returns in %.1f ms (< 100 ms)" % (name, 1000 * dt), dt < 0.1)
    cut_x = "x" * 253 + "..."
    cut_bad = "\ufffd" * 84 + "..."            # 3-byte replacement characters: 252 bytes + ...
    check("the labels are the cut ones", labels == ["warm", cut_x, cut_bad, cut_bad, cut_x, cut_x],
          [l[:12] + "..." + str(len(l.encode())) for l in labels])
    check("a 256-byte label stays whole, a 257-byte one is cut",
          flinch._clean("é" * 128, 256) == ("é" * 128).encode()
          and flinch._clean("é" * 128 + "x", 256) == ("é" * 126).encode() + b"...")
    odd = [b"a" + "\u00e9".encode() * 2000, b"\xf0\x9f\x98\x80" * 300, b"\xf0\x9f\x98" * 400,
           b"\xc3" + b"\xa9" * 2000, b"x" * 1031 + "\u00e9".encode() * 10, "\U0001F600" * 300,
           "a\tb\x7f" * 100, " " * 300, b" " * 5000, "\ud800" * 300, "\u00e9" * 128, "\u00e9" * 128 + "x"]
    check("cut first, cleaned after: the same bytes as cleaning the whole label",
          all(flinch._clean(x, 256) == whole_clean(x, 256) for x in odd)
          and all(flinch._clean(x, 64, False) == whole_clean(x, 64, False) for x in odd),
          [i for i, x in enumerate(odd) if flinch._clean(x, 256) != whole_clean(x, 256)])


def whole_clean(text, limit, space_ok=True):
    """The helper's cleaning before it cut first: every character looked at."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
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


# --- the default FIFO ----------------------------------------------------

def group_default():
    os.environ.pop("FLINCH_MARKS", None)
    target = Fifo("real.fifo").open()
    link = os.path.join(DIR, "link.fifo")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target.path, link)

    flinch.DEFAULT_FIFO = link                 # as /tmp/flinch_marks, without touching it
    flinch.mark("via_link")
    check("default path a symlink to a FIFO: not followed, counted undelivered",
          flinch.stats() == {"delivered": 0, "undelivered": 1} and target.lines() == [],
          (flinch.stats(), target.lines()))

    if os.getuid() == 0:
        other = Fifo("other.fifo").open()
        os.chown(other.path, 4242, 4242)
        flinch.DEFAULT_FIFO = other.path
        reconnect()
        flinch.mark("to_other")
        check("default path a FIFO of another user: never written, counted undelivered",
              flinch.stats() == {"delivered": 0, "undelivered": 2} and other.lines() == [],
              (flinch.stats(), other.lines()))
        os.environ["FLINCH_MARKS"] = other.path
        reconnect()
        flinch.mark("explicit_other")
        check("the same FIFO in $FLINCH_MARKS: written (the user's choice)",
              flinch.stats()["delivered"] == 1 and other.labels() == ["explicit_other"],
              (flinch.stats(), other.lines()))
        del os.environ["FLINCH_MARKS"]
        flinch._broken = True                  # as if that recorder went away
    else:
        skip("default path a FIFO of another user", "not root: cannot make one")
        skip("the same FIFO in $FLINCH_MARKS", "not root")
    os.environ["FLINCH_MARKS"] = link
    reconnect()
    flinch.mark("explicit_link")
    check("a symlink in $FLINCH_MARKS is followed", target.labels() == ["explicit_link"],
          target.lines())
    del os.environ["FLINCH_MARKS"]
    flinch._broken = True
    flinch.DEFAULT_FIFO = target.path
    reconnect()
    flinch.mark("own_default")
    check("default path this user's own FIFO: written",
          target.labels() == ["explicit_link", "own_default"], target.lines())
    flinch._broken = True
    flinch.DEFAULT_FIFO = os.path.join(DIR, "missing.fifo")
    reconnect()
    flinch.mark("nowhere")
    check("default path missing: counted undelivered, nothing raised", flinch.stats()["undelivered"] >= 2)


{"sigpipe": group_sigpipe, "handler": group_handler, "windows": group_windows,
 "labels": group_labels, "default": group_default}[GROUP]()
print("done %s" % GROUP)
sys.exit(1 if fails else 0)
