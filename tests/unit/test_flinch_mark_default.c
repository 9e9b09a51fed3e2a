/*
 * test_flinch_mark_default.c — flinch_mark.h's rules for the default FIFO
 * path (issue 26): a symbolic link there is not followed (ELOOP), a FIFO
 * owned by neither the caller nor root is not written (EPERM), one owned
 * by either is; a path given explicitly ($FLINCH_MARKS, flinch_mark_to)
 * is followed as given. The default path is this test's own (the header
 * lets an includer name it), so /tmp/flinch_marks is never touched.
 * The other users' FIFOs need root (chown, seteuid); without it those
 * cases are skipped.
 */
static char default_fifo[512];
#define FLINCH_MARK_DEFAULT_FIFO default_fifo
#include "flinch_mark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define OTHER_UID 65534                 /* nobody */

static char dir[256], target[600];

static void fresh(void)
{
    unlink(default_fifo);
    unlink(target);
}

static void test_own_fifo_delivered(void)
{
    fresh();
    unsetenv("FLINCH_MARKS");
    CHECK(flinch_mark_fifo_is_default());
    errno = 0;
    CHECK(flinch_mark_at("x", 5) == -1 && errno == ENOENT);
    CHECK(mkfifo(default_fifo, 0600) == 0);
    int rfd = open(default_fifo, O_RDONLY | O_NONBLOCK);
    char buf[256];
    CHECK(flinch_mark_at("mine", 5) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nmine\t5\n");
    close(rfd);
}

static void test_symlink_refused(void)
{
    fresh();
    unsetenv("FLINCH_MARKS");
    CHECK(mkfifo(target, 0666) == 0);
    CHECK(symlink(target, default_fifo) == 0);
    int rfd = open(target, O_RDONLY | O_NONBLOCK);
    char buf[256];
    errno = 0;
    CHECK(flinch_mark_at("planted", 5) == -1 && errno == ELOOP);
    CHECK(flinch_mark("planted") == -1 && errno == ELOOP);
    CHECK(check_drain_fifo(rfd, buf, sizeof buf) == 0);            /* nothing went through the link */

    /* a dangling link too: refused as a link, not "no FIFO" */
    unlink(target);
    errno = 0;
    CHECK(flinch_mark_at("planted", 5) == -1 && errno == ELOOP);
    close(rfd);
}

static void test_explicit_path_followed(void)
{
    fresh();
    CHECK(mkfifo(target, 0666) == 0);
    CHECK(symlink(target, default_fifo) == 0);
    int rfd = open(target, O_RDONLY | O_NONBLOCK);
    char buf[256];
    setenv("FLINCH_MARKS", default_fifo, 1);            /* the same link, named by the user */
    CHECK(!flinch_mark_fifo_is_default());
    CHECK(flinch_mark_at("env", 6) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nenv\t6\n");
    unsetenv("FLINCH_MARKS");
    CHECK(flinch_mark_to(default_fifo, "to", 7) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nto\t7\n");
    close(rfd);
}

/* A FIFO of OTHER_UID at the default path: refused for root (and anyone
 * but OTHER_UID), written when named explicitly. */
static void test_other_users_fifo(void)
{
    fresh();
    unsetenv("FLINCH_MARKS");
    CHECK(mkfifo(default_fifo, 0666) == 0);
    CHECK(chmod(default_fifo, 0666) == 0);              /* whatever the umask */
    CHECK(chown(default_fifo, OTHER_UID, OTHER_UID) == 0);
    int rfd = open(default_fifo, O_RDONLY | O_NONBLOCK);
    char buf[256];
    errno = 0;
    CHECK(flinch_mark_at("theirs", 5) == -1 && errno == EPERM);
    CHECK(check_drain_fifo(rfd, buf, sizeof buf) == 0);
    setenv("FLINCH_MARKS", default_fifo, 1);
    CHECK(flinch_mark_at("named", 5) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nnamed\t5\n");
    unsetenv("FLINCH_MARKS");

    /* as OTHER_UID: its own FIFO is fine; root's too; a third user's not */
    CHECK(seteuid(OTHER_UID) == 0);
    CHECK(flinch_mark_at("own", 5) == 0);
    CHECK(seteuid(0) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nown\t5\n");
    CHECK(chown(default_fifo, 0, 0) == 0);
    CHECK(seteuid(OTHER_UID) == 0);
    CHECK(flinch_mark_at("roots", 5) == 0);
    CHECK(seteuid(0) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nroots\t5\n");
    CHECK(chown(default_fifo, OTHER_UID - 1, 0) == 0);
    CHECK(seteuid(OTHER_UID) == 0);
    errno = 0;
    CHECK(flinch_mark_at("third", 5) == -1 && errno == EPERM);
    CHECK(seteuid(0) == 0);
    CHECK(check_drain_fifo(rfd, buf, sizeof buf) == 0);
    close(rfd);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/flinch_test_default.XXXXXX");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 2;
    }
    chmod(dir, 0755);                   /* OTHER_UID reaches the FIFOs in it */
    snprintf(default_fifo, sizeof default_fifo, "%s/flinch_marks", dir);
    snprintf(target, sizeof target, "%s/elsewhere.fifo", dir);

    run_test("default path: own FIFO written, none is ENOENT", test_own_fifo_delivered);
    run_test("default path: a symbolic link is ELOOP, never followed", test_symlink_refused);
    run_test("explicit path ($FLINCH_MARKS, flinch_mark_to): a link is followed",
             test_explicit_path_followed);
    if (geteuid() == 0)
        run_test("default path: another user's FIFO is EPERM; the caller's or root's written",
                 test_other_users_fifo);
    else
        printf("ok - default path: another user's FIFO # SKIP needs root (chown, seteuid)\n");
    fresh();
    rmdir(dir);
    return check_exit_status();
}
