/* test_path_identity.c — path_identity.h: one file however spelled, and
 * the one-line refusal of path_identity_check. Works in a fresh temporary
 * directory (T from the runner, else mkdtemp). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "path_identity.h"

static char dir[4096];

static void touch(const char *name)
{
    FILE *f = fopen(name, "w");
    if (f)
        fclose(f);
}

static void spellings_of_an_existing_file(void)
{
    touch("x");
    CHECK(mkdir("d", 0700) == 0);
    CHECK(symlink("x", "lx") == 0);
    CHECK(link("x", "hx") == 0);
    char abs[4200];
    snprintf(abs, sizeof abs, "%s/x", dir);
    CHECK(path_identity_same("x", "./x"));
    CHECK(path_identity_same("x", abs));
    CHECK(path_identity_same("x", "d/../x"));
    CHECK(path_identity_same("x", "./d/.././x"));
    CHECK(path_identity_same("x", "lx"));
    CHECK(path_identity_same("x", "hx"));
    CHECK(!path_identity_same("x", "x.threads"));
    CHECK(!path_identity_same("x", "d"));
}

static void spellings_of_a_file_to_be(void)
{
    char abs[4200];
    snprintf(abs, sizeof abs, "%s/new", dir);
    CHECK(path_identity_same("new", "./new"));
    CHECK(path_identity_same("new", abs));
    CHECK(path_identity_same("new", "d/../new"));
    CHECK(path_identity_same("d/new", "d//new"));
    CHECK(path_identity_same("d/new/", "d/new"));   /* trailing slash */
    CHECK(!path_identity_same("new", "d/new"));
    CHECK(!path_identity_same("new", "new2"));
    CHECK(symlink("new", "lnew") == 0);              /* dangling: the file it would make */
    CHECK(path_identity_same("new", "lnew"));
    CHECK(symlink("../new", "d/lup") == 0);          /* relative to the link's directory */
    CHECK(path_identity_same("new", "d/lup"));
    CHECK(symlink("d/lup", "lchain") == 0);          /* a chain of them */
    CHECK(path_identity_same("new", "lchain"));
    CHECK(access("new", F_OK) != 0);                 /* nothing created */
}

static void unresolvable_is_nothing(void)
{
    struct path_identity id;
    CHECK(path_identity_get("", &id) == -1);
    CHECK(path_identity_get("nodir/x", &id) == -1);
    CHECK(path_identity_get("x/y", &id) == -1);       /* x is a file */
    CHECK(symlink("loop1", "loop2") == 0 && symlink("loop2", "loop1") == 0);
    CHECK(path_identity_get("loop1", &id) == -1);
    CHECK(!path_identity_same("nodir/x", "nodir/x"));
}

static void check_names_both(void)
{
    char err[512] = "";
    const struct path_role ok[] = {
        { "the input", "x", 0 }, { "the other input", "./x", 0 }, { "", "y", 1 }, { "--z", NULL, 1 },
    };
    CHECK(path_identity_check(ok, 4, err, sizeof err) == 0);   /* two inputs may be one file */
    const struct path_role bad[] = {
        { "--out", "x", 1 }, { "--metrics-file", "d/../x", 1 },
    };
    CHECK(path_identity_check(bad, 2, err, sizeof err) == -1);
    CHECK_STR(err, "--metrics-file d/../x: is the same file as --out x: refusing to overwrite it");
    const struct path_role plot[] = { { "the input", "x", 0 }, { "", "hx", 1 } };
    CHECK(path_identity_check(plot, 2, err, sizeof err) == -1);
    CHECK_STR(err, "hx: is the same file as the input x: refusing to overwrite it");
}

int main(void)
{
    const char *t = getenv("T");
    snprintf(dir, sizeof dir, "%s/path_identity.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror(dir);
        return 1;
    }
    run_test("path_identity: an existing file by every spelling", spellings_of_an_existing_file);
    run_test("path_identity: a file not there yet by every spelling", spellings_of_a_file_to_be);
    run_test("path_identity: an unresolvable path is no file", unresolvable_is_nothing);
    run_test("path_identity_check: one line naming both", check_names_both);
    if (!t || !*t) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) { /* best effort */ }
    }
    return check_exit_status();
}
