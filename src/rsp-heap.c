/* rsp-heap.c — where the model's memory comes from, for the programs that
 * read a whole recording (see rsp-heap.h). */
#include "rsp-heap.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

/* How far the heap grows at a time: address space only until touched. */
#define HEAP_STEP ((gsize) 256 << 20)
/* glibc's largest mmap threshold: 32 MB on 64-bit, 16 MB on 32-bit */
#define MMAP_THRESHOLD_MAX (4 * 1024 * 1024 * (int) sizeof (long))
/* mallopt(3)'s documented defaults, put back when the heap cannot grow */
#define GLIBC_DEFAULT (128 * 1024)

/* A small file's text, or NULL.  Not inlined: gcc 12 then takes the
 * callers' reads of it for reads of a freed string (-Wdangling-pointer). */
static G_GNUC_NO_INLINE char *
read_small (const char *path)
{
  char *text = NULL;
  return g_file_get_contents (path, &text, NULL, NULL) ? text : NULL;
}

/* The choice between brackets in a THP "enabled" file ("always [madvise]
 * never"), or NULL. */
static char *
chosen (const char *path)
{
  g_autofree char *text = read_small (path);
  const char *open = text != NULL ? strchr (text, '[') : NULL;
  const char *close = open != NULL ? strchr (open, ']') : NULL;
  return close != NULL ? g_strndup (open + 1, (gsize) (close - open - 1)) : NULL;
}

/* rsp_heap_huge_pages(), and when it is RSP_HEAP_TUNED, the size of a
 * huge page in *PAGE_SIZE. */
static RspHeapResult
huge_pages (guint64 *page_size)
{
  const char *base = "/sys/kernel/mm/transparent_hugepage";
  g_autofree char *global_path = g_build_filename (base, "enabled", NULL);
  g_autofree char *global = chosen (global_path);
  if (global == NULL || strcmp (global, "never") == 0)
    return RSP_HEAP_NO_HUGE_PAGES;
  /* "always": the kernel gives them without being asked, and keeping the
   * arrays on the heap would only add its costs */
  if (strcmp (global, "always") == 0)
    return RSP_HEAP_ALWAYS;
  /* the size a huge page has here (2 MB on x86-64; 512 MB on arm64 with
   * 64 kB pages, more than one step of the heap) */
  g_autofree char *pmd_path = g_build_filename (base, "hpage_pmd_size", NULL);
  g_autofree char *pmd_text = read_small (pmd_path);
  guint64 pmd = pmd_text != NULL ? g_ascii_strtoull (pmd_text, NULL, 10) : 0;
  if (pmd == 0 || pmd > HEAP_STEP / 2)
    return RSP_HEAP_NO_HUGE_PAGES;
  /* kernels with several sizes (6.8 on) switch that size on its own */
  g_autofree char *size_dir = g_strdup_printf ("hugepages-%" G_GUINT64_FORMAT "kB", pmd >> 10);
  g_autofree char *size_path = g_build_filename (base, size_dir, "enabled", NULL);
  g_autofree char *size = chosen (size_path);
  if (size != NULL && strcmp (size, "never") == 0)
    return RSP_HEAP_NO_HUGE_PAGES;
  /* this process may have them switched off (prctl PR_SET_THP_DISABLE,
   * which its children inherit) */
  g_autofree char *status = read_small ("/proc/self/status");
  const char *line = status != NULL ? strstr (status, "\nTHP_enabled:") : NULL;
  if (line != NULL && g_ascii_strtoull (line + strlen ("\nTHP_enabled:"), NULL, 10) == 0)
    return RSP_HEAP_NO_HUGE_PAGES;
  *page_size = pmd;
  return RSP_HEAP_TUNED;
}

RspHeapResult
rsp_heap_huge_pages (void)
{
  guint64 page_size;
  return huge_pages (&page_size);
}

/* What the user set for glibc's allocator themselves: left as it is. */
static gboolean
user_tuned_malloc (void)
{
  const char *tunables = g_getenv ("GLIBC_TUNABLES");
  if (tunables != NULL && strstr (tunables, "glibc.malloc.") != NULL)
    return TRUE;
  static const char *const vars[] = { "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                                      "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX" };
  for (gsize i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Room for the heap to grow by a step: no data limit in the way, and no
 * strict overcommit (where the step would count against the commit limit
 * whether touched or not). */
static gboolean
heap_may_grow (void)
{
  struct rlimit limit;
  if (getrlimit (RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
      && limit.rlim_cur < (rlim_t) 4 * HEAP_STEP)
    return FALSE;
  g_autofree char *overcommit = read_small ("/proc/sys/vm/overcommit_memory");
  return overcommit == NULL || g_ascii_strtoull (overcommit, NULL, 10) != 2;
}

guint64
rsp_heap_file_bytes (const char *path)
{
  struct stat st;
  return path != NULL && stat (path, &st) == 0 && st.st_size > 0 ? (guint64) st.st_size : 0;
}

/* The block over the heap's head (keep_head()), held for the run. */
static void *head_block;

/* The heap grew from where PROBE's chunk begins (the probe was taken from
 * its top), and its huge pages begin at START, up to a huge page further
 * on: what is allocated before START lies in 4 kB pages, a page fault
 * each (200 of them in a report of a 1 MB recording, against one huge
 * page).  The probe, resized in place to end at START and held for the
 * run, puts what comes next in the huge pages; it is address space,
 * untouched but for its header.  glibc shrinks a block in place, and
 * grows one in place into the top that follows it; should the block move
 * all the same, it is freed and nothing changes. */
static void
keep_head (void *probe, guintptr start)
{
  /* glibc's chunk: two size_t before the memory it returns, sizes in 16s */
  const guintptr header = 2 * sizeof (size_t);
  guintptr chunk = (guintptr) probe - header;
  if (start < chunk + 4 * header)
    {
      free (probe); /* already there, or too close to matter */
      return;
    }
  void *block = realloc (probe, start - chunk - sizeof (size_t)); /* the chunk then ends at START */
  if (block == NULL)
    free (probe);
  else if (block != probe)
    free (block);
  else
    head_block = block;
}

RspHeapResult
rsp_heap_tune (guint64 recording_bytes)
{
  static gboolean tried;
  if (recording_bytes == 0 || recording_bytes > RSP_HEAP_TUNE_MAX || tried)
    return RSP_HEAP_NOT_WANTED;
  const char *env = g_getenv ("RSP_HUGE_PAGES");
  if (env != NULL && strcmp (env, "0") == 0)
    return RSP_HEAP_NOT_WANTED;
  tried = TRUE;
  guint64 huge_size = 0;
  RspHeapResult possible = huge_pages (&huge_size);
  if (possible != RSP_HEAP_TUNED)
    return possible;
  if (user_tuned_malloc ())
    return RSP_HEAP_USER_TUNED;
  if (!heap_may_grow ())
    return RSP_HEAP_NO_GROWTH;
  /* Growing arrays stay on the heap (up to glibc's largest threshold)
   * instead of mappings of their own, which nothing here could advise;
   * the heap grows a step at a time and is not given back during the
   * run.  (Any of these also fixes glibc's otherwise moving threshold.) */
  if (!mallopt (M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX) || !mallopt (M_TOP_PAD, (int) HEAP_STEP)
      || !mallopt (M_TRIM_THRESHOLD, (int) (2 * HEAP_STEP)))
    return RSP_HEAP_MALLOPT_REFUSED; /* an allocator not glibc's (a sanitizer's) */
  /* Make the heap grow now, by a block larger than any free one it holds
   * (taken from the top, and given back to it or kept over the heap's
   * head: keep_head()), and advise what it grew by: the huge pages come
   * as it is touched. */
  struct mallinfo2 info = mallinfo2 ();
  guintptr before = (guintptr) sbrk (0);
  void *volatile probe = malloc (info.fordblks + (256 << 10)); /* volatile: not optimised away */
  guintptr after = (guintptr) sbrk (0);
  if (probe == NULL || before == (guintptr) -1 || after == (guintptr) -1 || after <= before)
    {
      free (probe);
      /* the heap could not grow after all: the documented defaults back
       * (the mmap threshold then stays at 128 kB instead of moving) */
      mallopt (M_TOP_PAD, GLIBC_DEFAULT);
      mallopt (M_MMAP_THRESHOLD, GLIBC_DEFAULT);
      mallopt (M_TRIM_THRESHOLD, GLIBC_DEFAULT);
      return RSP_HEAP_NO_GROWTH;
    }
  guintptr huge = (guintptr) huge_size;
  guintptr start = (before + huge - 1) & ~(huge - 1);
  /* growing the heap, malloc wrote the size of its new top right after
   * the probe, before the advice: a huge page's stretch with that word in
   * it has a 4 kB page already, and stays in 4 kB pages (a report of a
   * 1 MB recording took 490 page faults instead of 150 whenever the heap
   * began just below a boundary).  The huge pages begin past it. */
  guintptr touched = (guintptr) probe + malloc_usable_size (probe);
  if (touched + sizeof (size_t) > start)
    start = (touched + sizeof (size_t) + huge - 1) & ~(huge - 1);
  if (start >= after || madvise ((void *) start, after - start, MADV_HUGEPAGE) != 0)
    {
      free (probe);
      return RSP_HEAP_NO_HUGE_PAGES;
    }
  keep_head (probe, start);
  return RSP_HEAP_TUNED;
}
