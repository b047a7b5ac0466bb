/* cpulist.h -- the affinity mask of the calling process as a sorted list of
 * CPU ranges ("0-1", "0,2-3"), for the test programs that report where and
 * how each rank ran.  Include first: it needs _GNU_SOURCE for the CPU_*
 * macros. */
#ifndef CM_TEST_CPULIST_H
#define CM_TEST_CPULIST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sched.h>
#include <stdio.h>

static void cpu_list(char *buf, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "?");
        return;
    }
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
            end++;
        int n = end > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, end)
                        : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (n < 0 || (size_t)n >= len - used)
            return; /* truncated: keep what fits */
        used += (size_t)n;
        c = end;
    }
}

#endif
