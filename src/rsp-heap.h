/* rsp-heap.h — the memory of a program that reads a whole recording.
 *
 * A report of a 10 MB recording writes about 8 MB of arrays (the model's
 * runs, sleeps and links, the analysis's timeline and stretches) into
 * memory it has just allocated.  In 4 kB pages that is about 2,000 page
 * faults, a tenth of the report's time on our machines; in 2 MB pages
 * (transparent huge pages) it is a handful.  Most kernels give huge pages
 * only where a program asks (madvise), and glibc asks only when told by
 * an environment variable, so rsp_heap_tune() asks for the heap itself. */
#pragma once

#include <glib.h>

/* Up to this many bytes of recordings: above it the arrays outgrow the
 * heap's 32 MB limit anyway, and copying them as they double (glibc moves
 * an array in a mapping of its own without a copy) costs more than the
 * page faults save: 1.15× the time on a 311 MB perf.data. */
#define RSP_HEAP_TUNE_MAX ((guint64) 64 << 20)

typedef enum {
  RSP_HEAP_TUNED,           /* the heap is advised */
  RSP_HEAP_NOT_WANTED,      /* no bytes, too many, RSP_HUGE_PAGES=0, or tried before */
  RSP_HEAP_NO_HUGE_PAGES,   /* THP "never" (for the system, the size or this process), none here */
  RSP_HEAP_ALWAYS,          /* THP "always": the kernel gives them unasked */
  RSP_HEAP_USER_TUNED,      /* GLIBC_TUNABLES=glibc.malloc.* or MALLOC_*_ set: left as the user set it */
  RSP_HEAP_NO_GROWTH,       /* a data limit, strict overcommit, or the heap did not grow */
  RSP_HEAP_MALLOPT_REFUSED, /* the allocator is not glibc's (a sanitizer's, valgrind's) */
} RspHeapResult;

/* Keeps growing arrays on the heap and advises the next 256 MB of it for
 * transparent huge pages, what is allocated next starting on the first
 * of them (the part of the heap before it is left unused), for a program
 * about to read RECORDING_BYTES of recordings (1 to RSP_HEAP_TUNE_MAX;
 * else it does nothing).  Call it once, before reading; what it returns
 * says what it did, and why not (the callers need not care: either way
 * only the speed differs). */
RspHeapResult rsp_heap_tune (guint64 recording_bytes);

/* RSP_HEAP_TUNED when this process can have huge pages for the asking,
 * else why not (NO_HUGE_PAGES or ALWAYS). */
RspHeapResult rsp_heap_huge_pages (void);

/* The size of the file at PATH, 0 when it cannot be read. */
guint64 rsp_heap_file_bytes (const char *path);
