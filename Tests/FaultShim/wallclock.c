/*
 * An LD_PRELOAD shim that sets a process's wall clock off by WALL_OFFSET_SECONDS (negative: behind), as a student
 * who set their computer's clock back would: CLOCK_REALTIME (and its coarse form), gettimeofday and time move; the
 * boot clock (CLOCK_BOOTTIME) and the monotonic clock do not, as on a real machine. Built by the test itself
 * (cc -shared -fPIC).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long offset(void) {
    const char *text = getenv("WALL_OFFSET_SECONDS");
    return text ? atol(text) : 0;
}

int clock_gettime(clockid_t clock, struct timespec *now) {
    static int (*real)(clockid_t, struct timespec *) = 0;
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, now);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) now->tv_sec += offset();
    return result;
}

int gettimeofday(struct timeval *restrict now, void *restrict zone) {
    static int (*real)(struct timeval *restrict, void *restrict) = 0;
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int result = real(now, zone);
    if (result == 0 && now) now->tv_sec += offset();
    return result;
}

time_t time(time_t *out) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (out) *out = now.tv_sec;
    return now.tv_sec;
}
