/*
 * syscall_table.h — names of the system calls a sleeping thread is found
 * in, by number, for the architectures flinch records on.
 *
 * /proc/PID/task/TID/syscall gives the number, which differs by
 * architecture (x86_64 has its own table; aarch64, as on Grace Hopper, uses
 * the generic one). The recorder stores names, so a trace reads the same
 * wherever it is analysed. A number not in the table is stored as
 * "sys_N": the calls listed are the ones the classifier tells apart.
 */
#ifndef FLINCH_SYSCALL_TABLE_H
#define FLINCH_SYSCALL_TABLE_H

enum syscall_arch { SYSCALL_ARCH_UNKNOWN, SYSCALL_ARCH_X86_64, SYSCALL_ARCH_AARCH64 };

enum syscall_arch syscall_host_arch(void);
const char *syscall_arch_name(enum syscall_arch a);
/* The call's name, or NULL when it is not in the table. */
const char *syscall_name(enum syscall_arch a, long nr);
/* The reverse (tests), -1 when absent. */
long syscall_number(enum syscall_arch a, const char *name);

#endif
