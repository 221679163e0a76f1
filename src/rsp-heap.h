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

/* Keeps growing arrays on the heap and advises the next 256 MB of it for
 * transparent huge pages.  Call it once, first thing, in a program about
 * to read a recording; it does nothing where the kernel has huge pages
 * switched off ("never") or RSP_HUGE_PAGES=0 is set.  TRUE when the heap
 * was advised. */
gboolean rsp_heap_tune (void);
