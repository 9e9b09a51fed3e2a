"""blocker.py - the Python twin of tests/helpers/blocker.c: threads that
block in known ways between marks, for tests/e2e/threads.sh.

    python3 blocker.py [MS]

For each phase (accept, recv, epoll, poll, condvar, sleep, pipe, fsync, busy) a thread
named for the phase (prctl PR_SET_NAME, so /proc shows it) blocks in it
while the main thread ("main") sleeps MS ms (default 600) between the marks
PHASE_start and PHASE_end, written to $FLINCH_MARKS with their
CLOCK_MONOTONIC stamps, then releases it.
"""
import ctypes
import mmap
import os
import select
import socket
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)


def name_me(name):
    libc.prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME


def mark(label):
    fd = os.open(os.environ["FLINCH_MARKS"], os.O_WRONLY)
    try:
        os.write(fd, ("%s\t%d\n" % (label, time.monotonic_ns())).encode())
    finally:
        os.close(fd)


def main():
    ms = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    name_me("main")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    a, b = socket.socketpair()
    rfd, wfd = os.pipe()
    cond = threading.Condition()
    state = {"released": False, "stop": False}

    def named(name, fn):
        def run():
            name_me(name)
            fn()
        return run

    def do_condvar():
        with cond:
            while not state["released"]:
                cond.wait()

    def do_fsync():
        # O_DIRECT from a page-aligned buffer: the thread waits in D state
        # on the device, not copying on a CPU (plain writes where refused)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        try:
            fd = os.open("blocker_py.fsync", flags | os.O_DIRECT, 0o600)
        except OSError:
            fd = os.open("blocker_py.fsync", flags, 0o600)
        block = mmap.mmap(-1, 1 << 20)
        block.write(b"x" * (1 << 20))
        while not state["stop"]:
            os.write(fd, block)
            os.fsync(fd)
        os.close(fd)
        os.remove("blocker_py.fsync")

    def do_busy():
        n = 0
        while not state["stop"]:
            n += 1

    def release_condvar():
        with cond:
            state["released"] = True
            cond.notify()

    def release_accept():
        c = socket.create_connection(listener.getsockname())
        c.close()

    def do_epoll():
        ep = select.epoll()
        ep.register(b.fileno(), select.EPOLLIN)
        ep.poll()
        b.recv(1)
        ep.close()

    def do_poll():
        p = select.poll()
        p.register(b.fileno(), select.POLLIN)
        p.poll()
        b.recv(1)

    phases = [
        ("accept", lambda: listener.accept()[0].close(), release_accept),
        ("recv", lambda: b.recv(1), lambda: a.send(b"x")),
        ("epoll", do_epoll, lambda: a.send(b"x")),
        ("poll", do_poll, lambda: a.send(b"x")),
        ("condvar", do_condvar, release_condvar),
        ("sleep", lambda: time.sleep((ms + 200) / 1000), lambda: None),
        ("pipe", lambda: os.read(rfd, 1), lambda: os.write(wfd, b"x")),
        ("fsync", do_fsync, lambda: state.update(stop=True)),
        ("busy", do_busy, lambda: state.update(stop=True)),
    ]
    for name, fn, release in phases:
        state["stop"] = False
        t = threading.Thread(target=named(name, fn))
        t.start()
        time.sleep(0.2)
        mark(name + "_start")
        time.sleep(ms / 1000)
        release()
        mark(name + "_end")
        t.join()
        time.sleep(0.1)


if __name__ == "__main__":
    main()
