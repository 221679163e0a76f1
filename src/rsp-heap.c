/* rsp-heap.c — where the model's memory comes from, for the programs that
 * read a whole recording (see rsp-heap.h). */
#include "rsp-heap.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#define HUGE_PAGE ((guintptr) 2 << 20)
/* How far the heap grows at a time: address space only until touched. */
#define HEAP_STEP (256 << 20)

/* "always [madvise] never": TRUE unless "[never]" is the one chosen (or
 * the kernel has no transparent huge pages at all). */
static gboolean
huge_pages_possible (void)
{
  char buf[128];
  int fd = open ("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  return strstr (buf, "[never]") == NULL;
}

guint64
rsp_heap_file_bytes (const char *path)
{
  struct stat st;
  return path != NULL && stat (path, &st) == 0 && st.st_size > 0 ? (guint64) st.st_size : 0;
}

gboolean
rsp_heap_tune (guint64 recording_bytes)
{
  static gboolean tried;
  if (recording_bytes == 0 || recording_bytes > RSP_HEAP_TUNE_MAX || tried)
    return FALSE;
  const char *env = g_getenv ("RSP_HUGE_PAGES");
  if ((env != NULL && strcmp (env, "0") == 0) || !huge_pages_possible ())
    return FALSE;
  tried = TRUE;
  /* Growing arrays stay on the heap (below 32 MB, glibc's largest
   * threshold) instead of mappings of their own, which nothing here could
   * advise; the heap grows 256 MB at a time (address space: only what is
   * touched is memory) and is not given back during
   * the run. */
  if (!mallopt (M_MMAP_THRESHOLD, 32 << 20) || !mallopt (M_TOP_PAD, HEAP_STEP)
      || !mallopt (M_TRIM_THRESHOLD, 2 * HEAP_STEP))
    return FALSE;
  /* Make the heap grow now (the block is freed back to the top) and advise
   * what it grew by: the huge pages come as it is touched. */
  guintptr before = (guintptr) sbrk (0);
  void *volatile probe = malloc (256 << 10); /* volatile: not optimised away */
  guintptr after = (guintptr) sbrk (0);
  free (probe);
  if (before == (guintptr) -1 || after == (guintptr) -1 || after <= before)
    {
      /* the heap cannot grow (a data limit, strict overcommit): glibc's
       * defaults back (mallopt(3)), so that it does not keep trying */
      mallopt (M_TOP_PAD, 128 << 10);
      mallopt (M_MMAP_THRESHOLD, 128 << 10);
      mallopt (M_TRIM_THRESHOLD, 128 << 10);
      return FALSE;
    }
  guintptr start = (before + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (start >= after)
    return FALSE;
  return madvise ((void *) start, after - start, MADV_HUGEPAGE) == 0;
}
