/*
 * linebuf.so - an LD_PRELOAD shim for pgbench in the guest (PostgresGuestTest, vm/guest/postgres.sh):
 * every file pgbench opens whose name holds "pgbench_log" (its -l per-transaction log) is made line
 * buffered, so each transaction's line reaches write(2), and the host over 9p, as pgbench logs it.
 * pgbench opens the log with fopen and leaves it fully buffered: at a power cut the last few KiB of
 * lines, the transactions committed last, would never reach the host, and the test could not check them.
 *
 *   gcc -O2 -Wall -shared -fPIC -o linebuf.so linebuf.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static FILE *line_buffered(FILE *f, const char *path)
{
    if (f != NULL && strstr(path, "pgbench_log") != NULL)
        setvbuf(f, NULL, _IOLBF, 0);
    return f;
}

FILE *fopen(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    if (real == NULL)
        real = (FILE *(*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    return line_buffered(real(path, mode), path);
}

FILE *fopen64(const char *path, const char *mode)
{
    static FILE *(*real)(const char *, const char *);
    if (real == NULL)
        real = (FILE *(*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
    return line_buffered(real(path, mode), path);
}
