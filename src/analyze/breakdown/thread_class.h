/*
 * thread_class.h — what a thread was waiting on, in the small set of
 * classes every output names exactly so: network, lock, sleep, disk, pipe,
 * gpu-driver, running, other.
 *
 * Owns the rule from one recorded thread state (state letter, wait
 * channel, system call, file kind; see thread_probe.h) to a class and a
 * short description ("accept on a socket"). The rule is in the README.
 */
#ifndef FLINCH_THREAD_CLASS_H
#define FLINCH_THREAD_CLASS_H

#include <stddef.h>

enum thread_class {
    TC_NETWORK, TC_LOCK, TC_SLEEP, TC_DISK, TC_PIPE, TC_GPU_DRIVER, TC_RUNNING, TC_OTHER,
    TC_COUNT
};

const char *thread_class_name(enum thread_class c);

/* Classifies one state and writes what the thread was in ("accept on a
 * socket", "futex", "wchan ep_poll") to detail. */
enum thread_class thread_classify(char state, const char *wchan, const char *call, const char *fd,
                                  char *detail, size_t cap);

#endif
