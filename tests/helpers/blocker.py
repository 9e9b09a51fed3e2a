"""blocker.py - the Python twin of tests/helpers/blocker.c: threads that
block in known ways between marks, for tests/e2e/threads.sh.

    python3 blocker.py [MS]

For each phase (accept, recv, condvar, sleep, pipe, fsync, busy) a thread
named for the phase (prctl PR_SET_NAME, so /proc shows it) blocks in it
while the main thread ("main") sleeps MS ms (default 600) between the marks
PHASE_start and PHASE_end, written to $FLINCH_MARKS with their
CLOCK_MONOTONIC stamps, then releases it.
"""
import ctypes
import os
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
        with open("blocker_py.fsync", "wb") as f:
            while not state["stop"]:
                f.write(b"x" * (1 << 20))
                f.flush()
                os.fsync(f.fileno())
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

    phases = [
        ("accept", lambda: listener.accept()[0].close(), release_accept),
        ("recv", lambda: b.recv(1), lambda: a.send(b"x")),
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
