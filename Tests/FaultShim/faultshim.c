/*
 * An LD_PRELOAD shim that fails the Nth I/O call of a process, as SQLite's own test suites do, so a test can try
 * every fault point of a command. Built by the test itself (cc -shared -fPIC).
 *
 *   FAULT_AT=N        fail the Nth counted call (1-based); 0 or unset: fail nothing, only count
 *   FAULT_ERRNO=EIO   or ENOSPC: the error the failed call reports
 *   FAULT_COUNT_FILE  where the number of counted calls is written at exit
 *
 * Counted: write/pwrite/pwrite64 and fsync/fdatasync on descriptors above 2 (never stdin, stdout, stderr),
 * rename/renameat, link, and open/open64/openat with write intent (O_WRONLY, O_RDWR or O_CREAT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long counted = 0;
static long fault_at = -1;
static int fault_errno = EIO;

static void setup(void) {
    if (fault_at >= 0) return;
    const char *at = getenv("FAULT_AT");
    fault_at = at ? atol(at) : 0;
    const char *code = getenv("FAULT_ERRNO");
    fault_errno = (code && strcmp(code, "ENOSPC") == 0) ? ENOSPC : EIO;
}

/* True when this call is the one to fail. */
static int hit(void) {
    setup();
    counted += 1;
    return fault_at > 0 && counted == fault_at;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("FAULT_COUNT_FILE");
    if (!path) return;
    FILE *file = fopen(path, "w");
    if (!file) return;
    fprintf(file, "%ld\n", counted);
    fclose(file);
}

#define REAL(name) static __typeof__(name) *real = NULL; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    if (fd > 2 && hit()) { errno = fault_errno; return -1; }
    return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    if (fd > 2 && hit()) { errno = fault_errno; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite64);
    if (fd > 2 && hit()) { errno = fault_errno; return -1; }
    return real(fd, buffer, count, offset);
}

int fsync(int fd) {
    REAL(fsync);
    if (fd > 2 && hit()) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fd > 2 && hit()) { errno = EIO; return -1; }
    return real(fd);
}

int rename(const char *from, const char *to) {
    REAL(rename);
    if (hit()) { errno = fault_errno; return -1; }
    return real(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
    REAL(renameat);
    if (hit()) { errno = fault_errno; return -1; }
    return real(fromdir, from, todir, to);
}

int link(const char *from, const char *to) {
    REAL(link);
    if (hit()) { errno = fault_errno; return -1; }
    return real(from, to);
}

static int writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT)) != 0; }

int open(const char *path, int flags, ...) {
    REAL(open);
    mode_t mode = 0;
    if (flags & O_CREAT) { va_list args; va_start(args, flags); mode = va_arg(args, mode_t); va_end(args); }
    if (writes(flags) && hit()) { errno = fault_errno; return -1; }
    return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    REAL(open64);
    mode_t mode = 0;
    if (flags & O_CREAT) { va_list args; va_start(args, flags); mode = va_arg(args, mode_t); va_end(args); }
    if (writes(flags) && hit()) { errno = fault_errno; return -1; }
    return real(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...) {
    REAL(openat);
    mode_t mode = 0;
    if (flags & O_CREAT) { va_list args; va_start(args, flags); mode = va_arg(args, mode_t); va_end(args); }
    if (writes(flags) && hit()) { errno = fault_errno; return -1; }
    return real(dir, path, flags, mode);
}
