/*
 * An LD_PRELOAD shim that fails the Nth I/O call of a process, as SQLite's own test suites do, so a test can try
 * every fault point of a command. Built by the test itself (cc -shared -fPIC).
 *
 *   FAULT_AT=N        fail the Nth counted call (1-based); 0 or unset: fail nothing, only count
 *   FAULT_ERRNO=EIO   or ENOSPC: the error the failed call reports
 *   FAULT_COUNT_FILE  where the number of counted calls is written at exit
 *
 *   FAULT_LOG         a file to append a record of every change to the file system to (the power-loss model):
 *                     W path offset bytes, S path (fsync), U path (unlink), T path size (truncate),
 *                     R from to (rename); each record is "<tag> <path-len> <path> <a> <b>\n" followed by b raw
 *                     bytes for W. Paths are real paths (a /proc/self/fd/N/ directory is resolved).
 *
 * Counted: write/pwrite/pwrite64 and fsync/fdatasync on regular files and directories (never stdin, stdout,
 * stderr, sockets, pipes or eventfds: a network command's I/O faults are the disk's, not the network's),
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
#include <limits.h>
#include <libgen.h>
#include <sys/stat.h>
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

/* A descriptor of a regular file or directory: the only ones whose writes the disk sees. */
static int on_disk(int fd) {
    struct stat info;
    if (fd <= 2 || fstat(fd, &info) != 0) return 0;
    return S_ISREG(info.st_mode) || S_ISDIR(info.st_mode);
}

/* ---- the power-loss log ---- */

static int log_fd = -2;

static void log_open(void) {
    if (log_fd != -2) return;
    const char *path = getenv("FAULT_LOG");
    log_fd = -1;
    if (path) {
        int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
        log_fd = real_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    }
}

/* The real path of `path`, with its directory resolved (so /proc/self/fd/N/name becomes /real/dir/name). */
static void resolve(const char *path, char *out) {
    char directory[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
    snprintf(directory, sizeof directory, "%s", path);
    snprintf(base, sizeof base, "%s", path);
    if (realpath(dirname(directory), real)) snprintf(out, PATH_MAX, "%.3000s/%.1000s", real, basename(base));
    else snprintf(out, PATH_MAX, "%s", path);
}

static void fd_path(int fd, char *out) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, out, PATH_MAX - 1);
    out[length < 0 ? 0 : length] = 0;
}

static void log_record(char tag, const char *path, long long a, long long b, const void *bytes) {
    log_open();
    if (log_fd < 0) return;
    ssize_t (*real_write)(int, const void *, size_t) = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    char header[PATH_MAX + 96];
    int length = snprintf(header, sizeof header, "%c %zu %s %lld %lld\n", tag, strlen(path), path, a, b);
    real_write(log_fd, header, (size_t)length);
    if (bytes && b > 0) real_write(log_fd, bytes, (size_t)b);
}

static void log_write(int fd, off_t offset, const void *bytes, ssize_t written) {
    if (written <= 0 || getenv("FAULT_LOG") == NULL || !on_disk(fd)) return;
    char path[PATH_MAX];
    fd_path(fd, path);
    log_record('W', path, (long long)offset, (long long)written, bytes);
}

static void log_sync(int fd) {
    if (getenv("FAULT_LOG") == NULL) return;
    char path[PATH_MAX];
    fd_path(fd, path);
    log_record('S', path, 0, 0, NULL);
}

#define REAL(name) static __typeof__(name) *real = NULL; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    if (fd == log_fd) return real(fd, buffer, count);
    if (on_disk(fd) && hit()) { errno = fault_errno; return -1; }
    off_t offset = lseek(fd, 0, SEEK_CUR);
    ssize_t written = real(fd, buffer, count);
    log_write(fd, offset, buffer, written);
    return written;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    if (on_disk(fd) && hit()) { errno = fault_errno; return -1; }
    ssize_t written = real(fd, buffer, count, offset);
    log_write(fd, offset, buffer, written);
    return written;
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite64);
    if (on_disk(fd) && hit()) { errno = fault_errno; return -1; }
    ssize_t written = real(fd, buffer, count, offset);
    log_write(fd, offset, buffer, written);
    return written;
}

int fsync(int fd) {
    REAL(fsync);
    if (on_disk(fd) && hit()) { errno = EIO; return -1; }
    int result = real(fd);
    if (result == 0 && on_disk(fd)) log_sync(fd);
    return result;
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (on_disk(fd) && hit()) { errno = EIO; return -1; }
    int result = real(fd);
    if (result == 0 && on_disk(fd)) log_sync(fd);
    return result;
}

static void log_rename(const char *from, const char *to) {
    if (getenv("FAULT_LOG") == NULL) return;
    char a[PATH_MAX], b[PATH_MAX], both[2 * PATH_MAX + 2];
    resolve(from, a);
    resolve(to, b);
    snprintf(both, sizeof both, "%s\n%s", a, b);
    log_record('R', both, 0, 0, NULL);
}

int rename(const char *from, const char *to) {
    REAL(rename);
    if (hit()) { errno = fault_errno; return -1; }
    int result = real(from, to);
    if (result == 0) log_rename(from, to);
    return result;
}

/* `path` relative to the directory `dir` (or absolute), as a path the log can name. */
static void at_path(int dir, const char *path, char *out) {
    if (path[0] == '/' || dir == AT_FDCWD) { snprintf(out, PATH_MAX, "%s", path); return; }
    char base[PATH_MAX];
    fd_path(dir, base);
    snprintf(out, PATH_MAX, "%.2000s/%.2000s", base, path);
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
    REAL(renameat);
    if (hit()) { errno = fault_errno; return -1; }
    int result = real(fromdir, from, todir, to);
    if (result == 0 && getenv("FAULT_LOG")) {
        char a[PATH_MAX], b[PATH_MAX];
        at_path(fromdir, from, a);
        at_path(todir, to, b);
        log_rename(a, b);
    }
    return result;
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

/* Not faults (SQLite's journal delete and truncation are their own commit points), only logged. */

int unlink(const char *path) {
    REAL(unlink);
    int result = real(path);
    if (result == 0 && getenv("FAULT_LOG")) {
        char resolved[PATH_MAX];
        resolve(path, resolved);
        log_record('U', resolved, 0, 0, NULL);
    }
    return result;
}

int unlinkat(int dir, const char *path, int flags) {
    REAL(unlinkat);
    char absolute[PATH_MAX];
    at_path(dir, path, absolute);
    int result = real(dir, path, flags);
    if (result == 0 && getenv("FAULT_LOG")) {
        char resolved[PATH_MAX];
        resolve(absolute, resolved);
        log_record('U', resolved, 0, 0, NULL);
    }
    return result;
}

int ftruncate(int fd, off_t size) {
    REAL(ftruncate);
    int result = real(fd, size);
    if (result == 0 && getenv("FAULT_LOG") && on_disk(fd)) {
        char path[PATH_MAX];
        fd_path(fd, path);
        log_record('T', path, (long long)size, 0, NULL);
    }
    return result;
}

int ftruncate64(int fd, off_t size) {
    REAL(ftruncate64);
    int result = real(fd, size);
    if (result == 0 && getenv("FAULT_LOG") && on_disk(fd)) {
        char path[PATH_MAX];
        fd_path(fd, path);
        log_record('T', path, (long long)size, 0, NULL);
    }
    return result;
}
