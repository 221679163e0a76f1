/* rsp_heap_tune(): growing arrays land on the heap it advised, and the
 * kernel backs them with huge pages (unless it has none to give, which
 * /proc/vmstat then counts); where it declines, it says why. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rsp-heap.h"

/* ASan's allocator ignores mallopt() (gcc says so with
 * __SANITIZE_ADDRESS__, clang with __has_feature) */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_file_get_contents (path, &text, NULL, NULL);
  return text;
}

/* not inlined: gcc 12 takes the strtoull on a live string for a dangling
 * pointer (-Wdangling-pointer) once the callers' g_autofree is inlined too */
G_GNUC_NO_INLINE static guint64
field (const char *text, const char *name)
{
  if (text == NULL)
    return 0;
  const char *p = strstr (text, name);
  return p != NULL ? g_ascii_strtoull (p + strlen (name), NULL, 10) : 0;
}

static guint64
vmstat (const char *name)
{
  char *text = read_text ("/proc/vmstat");
  char *key = g_strdup_printf ("\n%s ", name);
  guint64 value = field (text, key);
  g_free (key);
  g_free (text);
  return value;
}

/* ADDRESS in a mapping /proc/self/maps names [heap] (not one of its own) */
static gboolean
in_heap (const void *address)
{
  g_autofree char *maps = read_text ("/proc/self/maps");
  g_auto (GStrv) lines = g_strsplit (maps != NULL ? maps : "", "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      unsigned long lo, hi;
      if (sscanf (*l, "%lx-%lx", &lo, &hi) == 2 && (unsigned long) address >= lo && (unsigned long) address < hi)
        return strstr (*l, "[heap]") != NULL;
    }
  return FALSE;
}

/* AnonHugePages (kB) of the mapping ADDRESS lies in (/proc/self/smaps) */
static guint64
vma_huge_kb (const void *address)
{
  g_autofree char *smaps = read_text ("/proc/self/smaps");
  g_auto (GStrv) lines = g_strsplit (smaps != NULL ? smaps : "", "\n", -1);
  gboolean inside = FALSE;
  for (char **l = lines; *l != NULL; l++)
    {
      unsigned long lo, hi;
      char dash;
      if (sscanf (*l, "%lx%c%lx", &lo, &dash, &hi) == 3 && dash == '-')
        inside = (unsigned long) address >= lo && (unsigned long) address < hi;
      else if (inside && g_str_has_prefix (*l, "AnonHugePages:"))
        return g_ascii_strtoull (*l + strlen ("AnonHugePages:"), NULL, 10);
    }
  return 0;
}

/* What this machine's settings say, read here apart from rsp-heap.c: the
 * system's choice, and whether this process has THP switched off. */
static RspHeapResult
expected_huge_pages (void)
{
  g_autofree char *mode = read_text ("/sys/kernel/mm/transparent_hugepage/enabled");
  if (mode == NULL || strstr (mode, "[never]") != NULL)
    return RSP_HEAP_NO_HUGE_PAGES;
  if (strstr (mode, "[always]") != NULL)
    return RSP_HEAP_ALWAYS;
  g_autofree char *size = read_text ("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled");
  if (size != NULL && strstr (size, "[never]") != NULL)
    return RSP_HEAP_NO_HUGE_PAGES;
  g_autofree char *status = read_text ("/proc/self/status");
  if (status != NULL && strstr (status, "THP_enabled:\t0") != NULL)
    return RSP_HEAP_NO_HUGE_PAGES;
  return RSP_HEAP_TUNED;
}

static void
test_tune (void)
{
  /* the size of what is read */
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("rsp-heap-XXXXXX", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "0123456789", 10), ==, 10);
  close (fd);
  g_assert_cmpuint (rsp_heap_file_bytes (path), ==, 10);
  g_unlink (path);
  g_assert_cmpuint (rsp_heap_file_bytes (path), ==, 0);

  /* nothing to read, too much to read, switched off: nothing changes */
  g_assert_cmpint (rsp_heap_tune (0), ==, RSP_HEAP_NOT_WANTED);
  g_assert_cmpint (rsp_heap_tune (RSP_HEAP_TUNE_MAX + 1), ==, RSP_HEAP_NOT_WANTED);
  g_setenv ("RSP_HUGE_PAGES", "0", TRUE);
  g_assert_cmpint (rsp_heap_tune (10 << 20), ==, RSP_HEAP_NOT_WANTED);
  g_unsetenv ("RSP_HUGE_PAGES");

  /* x86-64's 2 MB huge pages: what the settings read here predict */
  if (sysconf (_SC_PAGESIZE) == 4096)
    g_assert_cmpint (rsp_heap_huge_pages (), ==, expected_huge_pages ());
  RspHeapResult possible = rsp_heap_huge_pages ();

  guint64 fallback0 = vmstat ("thp_fault_fallback");
  RspHeapResult tuned = rsp_heap_tune (10 << 20);
  g_assert_cmpint (rsp_heap_tune (10 << 20), ==, RSP_HEAP_NOT_WANTED); /* once */
  if (SANITIZED)
    {
      g_assert_cmpint (tuned, !=, RSP_HEAP_TUNED);
      g_test_message ("ASan: the heap is ASan's, not advised (%d)", tuned);
      return;
    }
  if (possible != RSP_HEAP_TUNED)
    {
      g_assert_cmpint (tuned, ==, possible);
      g_test_message ("no huge pages for the asking here (%d): not advised", possible);
      return;
    }
  if (tuned == RSP_HEAP_USER_TUNED || tuned == RSP_HEAP_NO_GROWTH)
    {
      g_test_skip (tuned == RSP_HEAP_USER_TUNED
                     ? "GLIBC_TUNABLES or MALLOC_* set: glibc's allocator left as set"
                     : "the heap may not grow 256 MB here (a data limit, strict overcommit)");
      return;
    }
  g_assert_cmpint (tuned, ==, RSP_HEAP_TUNED);

  /* what comes first from the heap's top (a block larger than any the
   * test freed before) starts where the huge pages do, not in the 4 kB
   * pages before them: its chunk (two size_t before it) on a huge page's
   * boundary */
  g_autofree char *pmd_text = read_text ("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  guint64 pmd = pmd_text != NULL ? g_ascii_strtoull (pmd_text, NULL, 10) : 0;
  g_assert_cmpuint (pmd, >, 0);
  void *first = malloc (512 << 10);
  g_assert_nonnull (first);
  g_assert_true (in_heap (first));
  g_assert_cmpuint (((guintptr) first - 2 * sizeof (size_t)) % pmd, ==, 0);
  /* ... and, written, lies in a huge page: nothing wrote to that stretch
   * before it was advised (malloc's word after the probe did, when the
   * heap began just below a boundary, and the stretch stayed in 4 kB
   * pages) */
  guint64 fallback_first = vmstat ("thp_fault_fallback");
  memset (first, 1, 512 << 10);
  guint64 first_huge_kb = vma_huge_kb (first);
  if (first_huge_kb == 0 && vmstat ("thp_fault_fallback") > fallback_first)
    g_test_message ("the kernel had no huge page for the first block: not a failure of ours");
  else
    g_assert_cmpuint (first_huge_kb, >=, pmd >> 10);
  free (first);

  /* an array grown as the model's are, 8 MB, written as it grows */
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 i = 0; i < (8u << 20) / sizeof (guint64); i++)
    g_array_append_val (a, i);
  g_assert_true (in_heap (a->data + a->len * sizeof (guint64) - 1));
  g_autofree char *rollup = read_text ("/proc/self/smaps_rollup");
  guint64 huge_kb = field (rollup, "AnonHugePages:");
  guint64 fallbacks = vmstat ("thp_fault_fallback") - fallback0;
  g_test_message ("AnonHugePages %" G_GUINT64_FORMAT " kB, %" G_GUINT64_FORMAT " fallbacks", huge_kb,
                  fallbacks);
  if (huge_kb == 0 && fallbacks > 0)
    g_test_message ("the kernel had no huge page to give (thp_fault_fallback rose): not a failure of ours");
  else
    g_assert_cmpuint (huge_kb, >=, 2048);
  g_assert_cmpuint (g_array_index (a, guint64, a->len - 1), ==, a->len - 1);
  g_array_unref (a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/heap/tune", test_tune);
  return g_test_run ();
}
