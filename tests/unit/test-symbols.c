/* test-symbols.c — RspSymbolizer: kallsyms, ELF symbols of a real fixture
 * library (tests/unit/symbols), build ids, debug links, stored tables,
 * process maps, callchains and DWARF unwinding of a stack captured in this
 * process. */
#include <dlfcn.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <linux/perf_event.h>
#include <asm/perf_regs.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rsp-elf-cache.h"
#include "rsp-elf-store.h"
#include "rsp-maps.h"
#include "rsp-symbols.h"
#include "rsp-symbols-private.h" /* KCACHE_BLOCK, KcacheBlock, KcacheEntry */
#include "rsp-unwind.h"
#include "symbols/symfix.h"

#define K(x) G_GUINT64_CONSTANT (0xffffffff00000000) + (x)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

static char *
fixture_path (const char *name)
{
  const char *root = g_getenv ("RSP_BUILD_ROOT");
  g_autofree char *path = NULL;

  if (root == NULL)
    return NULL;
  path = g_build_filename (root, "tests", "unit", "symbols", name, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  return realpath (path, NULL);
}

static RspEvent
mmap_event (gint32 pid, guint64 start, guint64 len, guint64 pgoff, const char *filename)
{
  RspEvent ev = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER, .pid = pid,
                  .tid = pid };
  ev.u.mmap.pid = pid;
  ev.u.mmap.tid = pid;
  ev.u.mmap.start = start;
  ev.u.mmap.len = len;
  ev.u.mmap.pgoff = pgoff;
  ev.u.mmap.prot = 5;
  ev.u.mmap.filename = filename;
  return ev;
}

/* One line of /proc/self/maps: FALSE if it is not one; PATH is "" for
 * anonymous memory. */
static gboolean
parse_maps_line (const char *line, guint64 *start, guint64 *end, guint64 *pgoff, char path[4096])
{
  path[0] = '\0';
  return sscanf (line, "%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x %*s %" G_GINT64_MODIFIER
                 "x %*s %*s %4095[^\n]", start, end, pgoff, path) >= 3;
}

/* Feeds this process's file mappings to SYM as MMAP2 records of process
 * PID, with FILENAME_AS replacing the name of maps of FILE (both NULL: all
 * file maps as they are), and the records carrying BUILD_ID if given. */
static guint
feed_self_maps_with_id (RspSymbolizer *sym, gint32 pid, const char *file,
                        const char *filename_as, const guint8 *build_id)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end, pgoff;
      char path[4096];
      RspEvent ev;
      if (!parse_maps_line (lines[i], &start, &end, &pgoff, path))
        continue;
      if (path[0] != '/' && strcmp (path, "[vdso]") != 0)
        continue;
      if (file != NULL && strcmp (path, file) != 0)
        continue;
      ev = mmap_event (pid, start, end - start, pgoff, filename_as != NULL ? filename_as : path);
      if (build_id != NULL)
        {
          ev.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
          ev.u.mmap.build_id_size = 20;
          memcpy (ev.u.mmap.build_id, build_id, 20);
        }
      rsp_symbolizer_process_event (sym, &ev);
      n++;
    }
  return n;
}

static guint
feed_self_maps (RspSymbolizer *sym, gint32 pid, const char *file, const char *filename_as)
{
  return feed_self_maps_with_id (sym, pid, file, filename_as, NULL);
}

typedef struct {
  char *lib_path;
  void *handle;
  guint64 c_function, static_helper, cxx_method;
} Fixture;

static gboolean
fixture_open (Fixture *f)
{
  f->lib_path = fixture_path ("libsymfix.so");
  if (f->lib_path == NULL)
    {
      g_test_skip ("fixture libsymfix.so not built (RSP_BUILD_ROOT unset?)");
      return FALSE;
    }
  f->handle = dlopen (f->lib_path, RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull (f->handle);
  f->c_function = (guint64) (gsize) dlsym (f->handle, "symfix_c_function");
  f->static_helper = (guint64) (gsize) ((void *(*) (void)) dlsym (
      f->handle, "symfix_static_helper_address")) ();
  f->cxx_method = (guint64) (gsize) ((void *(*) (void)) dlsym (
      f->handle, "symfix_cxx_method_address")) ();
  g_assert_cmpuint (f->c_function, !=, 0);
  g_assert_cmpuint (f->static_helper, !=, 0);
  g_assert_cmpuint (f->cxx_method, !=, 0);
  return TRUE;
}

static void
fixture_close (Fixture *f)
{
  /* The library stays loaded: other tests map its addresses again. */
  g_free (f->lib_path);
}

/* fixture_open(), and the stripped copy STRIPPED (fixture_path ()) is
 * there; else the test is skipped. */
static gboolean
fixture_open_stripped (Fixture *f, const char *stripped)
{
  if (!fixture_open (f))
    return FALSE;
  if (stripped == NULL)
    {
      g_test_skip ("libsymfix-stripped.so not built (no objcopy)");
      fixture_close (f);
      return FALSE;
    }
  return TRUE;
}

static const char *
resolve_name (RspSymbolizer *sym, gint32 pid, guint64 ip, gboolean kernel, guint64 *offset)
{
  RspFrame frame;

  rsp_symbolizer_resolve (sym, pid, ip, kernel, &frame);
  g_assert_cmpuint (frame.ip, ==, ip);
  g_assert_true (frame.kernel == kernel);
  if (offset != NULL)
    *offset = frame.offset;
  return frame.symbol;
}

/* ------------------------------------------------------------------------ */
/* Kernel                                                                   */

static const char kallsyms_text[] =
  "ffffffff81000000 T _stext\n"
  "ffffffff81000000 T _text\n"
  "ffffffff81000100 t small_fn\n"
  "ffffffff81000200 W weak_fn\n"
  "ffffffff81000300 r some_rodata\n"
  "ffffffff81000400 T last_text\n"
  "ffffffff81001000 D data_sym\n"
  "garbage line\n"
  "ffffffffc0000000 t mod_fn\t[mymod]\n"
  "ffffffffc0000080 T mod_fn2\t[mymod]\n";

static void
test_kallsyms (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  RspFrame frame;
  guint64 off;

  g_assert_true (rsp_symbolizer_load_kallsyms (sym, kallsyms_text, strlen (kallsyms_text),
                                               &error));
  g_assert_no_error (error);

  /* Same address: perf keeps the one that got a size (the last). */
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81000000), TRUE, &off), ==, "_text");
  g_assert_cmpuint (off, ==, 0);
  g_assert_cmpstr (resolve_name (sym, -1, K (0x810000ff), TRUE, &off), ==, "_text");
  g_assert_cmpuint (off, ==, 0xff);
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81000100), TRUE, &off), ==, "small_fn");
  g_assert_cmpuint (off, ==, 0);
  /* 'r' symbols are dropped: weak_fn runs to last_text. */
  g_assert_cmpstr (resolve_name (sym, -1, K (0x810003ff), TRUE, &off), ==, "weak_fn");
  g_assert_cmpuint (off, ==, 0x1ff);
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81000fff), TRUE, NULL), ==, "last_text");
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81001000), TRUE, NULL), ==, "data_sym");
  /* The last kernel symbol before the modules ends a page after it. */
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81001fff), TRUE, NULL), ==, "data_sym");
  g_assert_null (resolve_name (sym, -1, K (0x81002000), TRUE, NULL));
  g_assert_null (resolve_name (sym, -1, K (0x80ffffff), TRUE, NULL));

  rsp_symbolizer_resolve (sym, -1, K (0xc0000090), TRUE, &frame);
  g_assert_cmpstr (frame.symbol, ==, "mod_fn2");
  g_assert_cmpuint (frame.offset, ==, 0x10);
  g_assert_cmpstr (frame.dso, ==, "[mymod]");
  rsp_symbolizer_resolve (sym, -1, K (0xc0000000), TRUE, &frame);
  g_assert_cmpstr (frame.symbol, ==, "mod_fn");
  g_assert_cmpstr (frame.dso, ==, "[mymod]");
  /* The last symbol: to the end of the page after its own. */
  g_assert_cmpstr (resolve_name (sym, -1, K (0xc0001fff), TRUE, NULL), ==, "mod_fn2");
  g_assert_null (resolve_name (sym, -1, K (0xc0002000), TRUE, NULL));

  rsp_symbolizer_resolve (sym, -1, K (0x81000100), TRUE, &frame);
  g_assert_cmpstr (frame.dso, ==, "[kernel.kallsyms]");
  g_assert_true (frame.kernel);
}

static void
test_kallsyms_interned (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  RspFrame a, b;
  const RspSymbolizerStats *stats;

  g_assert_true (rsp_symbolizer_load_kallsyms (sym, kallsyms_text, strlen (kallsyms_text), NULL));
  rsp_symbolizer_resolve (sym, -1, K (0x81000104), TRUE, &a);
  rsp_symbolizer_resolve (sym, -1, K (0x81000108), TRUE, &b);
  g_assert_true (a.symbol == b.symbol);
  g_assert_true (a.dso == b.dso);
  rsp_symbolizer_resolve (sym, -1, K (0x81000104), TRUE, &b);
  g_assert_true (a.symbol == b.symbol);
  stats = rsp_symbolizer_get_stats (sym);
  g_assert_cmpuint (stats->lookups, ==, 3);
  g_assert_cmpuint (stats->cache_hits, ==, 1);
}

static void
test_kallsyms_errors (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  const char hidden[] = "0000000000000000 T _stext\n0000000000000000 t foo\t[mod]\n";
  const char junk[] = "hello world\n\x01\x02\x03\nffffffffffffffffff T toolong\n";

  g_assert_false (rsp_symbolizer_load_kallsyms (sym, hidden, strlen (hidden), &error));
  g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN);
  g_clear_error (&error);
  g_assert_false (rsp_symbolizer_load_kallsyms (sym, junk, strlen (junk), &error));
  g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (rsp_symbolizer_load_kallsyms (sym, "", 0, &error));
  g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID);
}

/* This machine's kallsyms: either it loads and names a known function, or
 * (not root, kptr_restrict) it says how to fix it. */
static void
test_proc_kallsyms (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  const char *line;
  guint64 addr;

  if (!rsp_symbolizer_load_proc_kallsyms (sym, &error))
    {
      g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN);
      g_assert_nonnull (strstr (error->message, "kptr_restrict"));
      g_test_skip ("kernel addresses hidden here");
      return;
    }
  g_assert_true (g_file_get_contents ("/proc/kallsyms", &text, NULL, NULL));
  line = strstr (text, " T schedule\n");
  if (line == NULL)
    {
      g_test_skip ("no 'schedule' in /proc/kallsyms");
      return;
    }
  while (line > text && line[-1] != '\n')
    line--;
  addr = g_ascii_strtoull (line, NULL, 16);
  g_assert_cmpstr (resolve_name (sym, -1, addr + 1, TRUE, NULL), ==, "schedule");
}

/* Kernel address ADDR resolved by A and B: the same name, offset and
 * module; B's module. */
static const char *
resolve_alike (RspSymbolizer *a, RspSymbolizer *b, guint64 addr)
{
  RspFrame fa, fb;
  rsp_symbolizer_resolve (a, -1, addr, TRUE, &fa);
  rsp_symbolizer_resolve (b, -1, addr, TRUE, &fb);
  g_assert_cmpstr (fa.symbol, ==, fb.symbol);
  g_assert_cmpstr (fa.dso, ==, fb.dso);
  g_assert_cmpuint (fa.offset, ==, fb.offset);
  return fb.dso;
}

/* Every 50th kept kallsyms line's address (+1, itself, and the byte before
 * it: a neighbour's or a gap), resolved by A and B: the same name, offset
 * and module.  The cache's table is searched where it is mapped, its
 * symbols made as they are found; the symbols the lookups used, as a
 * recording stores them, are the same too. */
static guint
compare_kernel_tables (RspSymbolizer *a, RspSymbolizer *b)
{
  rsp_symbolizer_set_track_used (a, TRUE);
  rsp_symbolizer_set_track_used (b, TRUE);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents ("/proc/kallsyms", &text, NULL, NULL));
  guint compared = 0, n = 0;
  /* lines by hand: g_strsplit's strstr is quadratic under AddressSanitizer */
  for (const char *line = text, *nl; *line != '\0'; line = nl != NULL ? nl + 1 : line + strlen (line))
    {
      nl = strchr (line, '\n');
      if (n++ % 50 != 0 || (nl != NULL ? nl - line : (ptrdiff_t) strlen (line)) < 20
          || !strchr ("TtWwDdBb", line[17]))
        continue;
      guint64 addr = g_ascii_strtoull (line, NULL, 16);
      for (gint64 delta = -1; delta <= 1; delta++)
        resolve_alike (a, b, addr + (guint64) delta);
      compared++;
    }
  g_autoptr (GBytes) used_a = rsp_symbolizer_export_used (a);
  g_autoptr (GBytes) used_b = rsp_symbolizer_export_used (b);
  g_assert_cmpuint (g_bytes_get_size (used_a), >, 1000);
  g_assert_true (g_bytes_equal (used_a, used_b));
  rsp_symbolizer_set_track_used (a, FALSE);
  rsp_symbolizer_set_track_used (b, FALSE);
  return compared;
}

/* The one cache entry in DIR, or NULL. */
static char *
cache_entry (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  char *found = NULL;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "kallsyms-") && g_str_has_suffix (name, ".cache"))
      {
        g_assert_null (found); /* one entry per boot: no temporary file left */
        found = g_build_filename (dir, name, NULL);
      }
  return found;
}

/* Loads SOURCE (a kallsyms file) with the cache in DIR; where the table
 * came from ("cache" or "kallsyms"). */
static const char *
load_from (const char *source, const char *dir)
{
  g_autoptr (RspSymbolizer) s = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (rsp_symbolizer_load_kallsyms_file_cached (s, source, dir, &error));
  g_assert_no_error (error);
  return rsp_symbolizer_kernel_source (s);
}

typedef struct {
  const char *source, *dir;
} LoadJob;

static gpointer
load_thread (gpointer data)
{
  const LoadJob *job = data;
  return (gpointer) load_from (job->source, job->dir);
}

/* The kernel's symbol table cached per boot: the same table from the
 * cache as from /proc/kallsyms; a damaged, truncated or foreign entry
 * rebuilt; concurrent writers; an unwritable directory; RSP_NO_CACHE.
 * /proc/kallsyms is parsed three times (slow under AddressSanitizer): the
 * rest runs on a kallsyms file of 3,000 symbols made here. */
static void
test_kallsyms_cache (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rsp-kcache-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autoptr (RspSymbolizer) parsed = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  if (!rsp_symbolizer_load_proc_kallsyms_cached (parsed, dir, &error))
    {
      g_test_skip ("kernel addresses hidden here");
      g_rmdir (dir);
      return;
    }
  /* the first load parses and writes the entry (0600), the next reads it */
  g_assert_cmpstr (rsp_symbolizer_kernel_source (parsed), ==, "kallsyms");
  g_autofree char *entry = cache_entry (dir);
  g_assert_nonnull (entry);
  GStatBuf st;
  g_assert_cmpint (g_stat (entry, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_autoptr (RspSymbolizer) cached = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_proc_kallsyms_cached (cached, dir, NULL));
  g_assert_cmpstr (rsp_symbolizer_kernel_source (cached), ==, "cache");
  guint compared = compare_kernel_tables (parsed, cached);
  g_assert_cmpuint (compared, >, 100);
  g_test_message ("%u kernel addresses resolved alike from /proc/kallsyms and from the cache", compared);
  g_assert_cmpint (g_unlink (entry), ==, 0);

  /* the default directory, XDG_CACHE_HOME/rsp (set by main), unless
   * RSP_NO_CACHE */
  g_autofree char *xdg = g_build_filename (g_get_user_cache_dir (), "rsp", NULL);
  g_autofree char *earlier = cache_entry (xdg); /* /symbols/kallsyms/proc's */
  if (earlier != NULL)
    g_assert_cmpint (g_unlink (earlier), ==, 0);
  g_setenv ("RSP_NO_CACHE", "1", TRUE);
  g_autoptr (RspSymbolizer) off = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_proc_kallsyms (off, NULL));
  g_autofree char *none = cache_entry (xdg);
  g_assert_null (none);
  g_unsetenv ("RSP_NO_CACHE");
  g_autoptr (RspSymbolizer) on = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_proc_kallsyms (on, NULL));
  g_autofree char *made = cache_entry (xdg);
  g_assert_nonnull (made);
  g_assert_cmpint (g_unlink (made), ==, 0);

  /* a kallsyms file of our own for the rest */
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (text, "ffffffff8%07x %c sym_%u%s\n", 0x1000 + i * 0x40, "TtWD"[i % 4], i,
                            i >= 2900 ? "\t[some_module]" : "");
  g_autofree char *source = g_build_filename (dir, "kallsyms.txt", NULL);
  g_assert_true (g_file_set_contents (source, text->str, text->len, NULL));
  g_assert_cmpstr (load_from (source, dir), ==, "kallsyms");
  entry = (g_free (entry), cache_entry (dir));
  g_assert_nonnull (entry);
  g_autofree char *good = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (entry, &good, &len, NULL));
  g_assert_cmpstr (load_from (source, dir), ==, "cache");
  {
    /* its symbols, the module's too, found alike in the text and the
     * entry: at a start, inside, at the last byte, and past the last */
    g_autoptr (RspSymbolizer) from_text = rsp_symbolizer_new ();
    g_assert_true (rsp_symbolizer_load_kallsyms (from_text, text->str, text->len, NULL));
    g_autoptr (RspSymbolizer) from_entry = rsp_symbolizer_new ();
    g_assert_true (rsp_symbolizer_load_kallsyms_file_cached (from_entry, source, dir, NULL));
    g_assert_cmpstr (rsp_symbolizer_kernel_source (from_entry), ==, "cache");
    guint modules = 0;
    for (guint i = 0; i < 3000; i++)
      for (guint k = 0; k < 4; k++)
        {
          guint64 addr = G_GUINT64_CONSTANT (0xffffffff80000000) + 0x1000 + i * 0x40 + (guint64[]){ 0, 1, 0x3f, 0x40 }[k];
          const char *dso = resolve_alike (from_text, from_entry, addr);
          modules += dso != NULL && strcmp (dso, "[some_module]") == 0;
        }
    g_assert_cmpuint (modules, >, 0);
  }

  /* damaged: each is found, and the entry is made again, byte for byte.
   * The header, the blocks' index and the modules' names are checked when
   * the entry is mapped; a block of entries and names when a lookup first
   * lands in it: then the table is made from the text, the lookups give
   * what the text gives, before the damage and after it, and the symbols
   * used so far stay used, once each. */
  /* the entry: a 48-byte header, the blocks' index, the entries, the names */
  enum { HEADER = 48, INDEX = sizeof (KcacheBlock) * ((3000 + KCACHE_BLOCK - 1) / KCACHE_BLOCK) };
  G_STATIC_ASSERT (sizeof (KcacheBlock) == 24 && sizeof (KcacheEntry) == 24);
  static const struct {
    const char *what;
    gsize at; /* from the end when FROM_END */
    gboolean from_end, when_used;
  } damages[] = {
    { "a byte of a name in the last block", 10, TRUE, TRUE },
    { "a byte of an entry in the middle", HEADER + INDEX + 1500 * 24 + 3, FALSE, TRUE },
    { "the key", 24, FALSE, FALSE }, /* KcacheHeader.key */
    { "the version", 8, FALSE, FALSE },
    { "a block's first start in the index", HEADER + 24 * 7 + 2, FALSE, FALSE },
    { "a byte of a module's name", HEADER + INDEX + 3000 * 24 + 3, FALSE, FALSE },
    { "the length (half)", 0, FALSE, FALSE },
    { "the length (empty)", 0, FALSE, FALSE },
  };
  g_autoptr (RspSymbolizer) from_text = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_kallsyms (from_text, text->str, text->len, NULL));
  rsp_symbolizer_set_track_used (from_text, TRUE);
  for (guint i = 0; i < 3000; i += 7)
    {
      RspFrame f;
      rsp_symbolizer_resolve (from_text, -1, G_GUINT64_CONSTANT (0xffffffff80000000) + 0x1000 + i * 0x40 + 1, TRUE,
                              &f);
    }
  g_autoptr (GBytes) used_text = rsp_symbolizer_export_used (from_text);
  for (guint d = 0; d < G_N_ELEMENTS (damages); d++)
    {
      g_autofree char *bad = g_memdup2 (good, len);
      gsize bad_len = len;
      if (strstr (damages[d].what, "half") != NULL)
        bad_len = len / 2;
      else if (strstr (damages[d].what, "empty") != NULL)
        bad_len = 0;
      else
        bad[damages[d].from_end ? len - damages[d].at : damages[d].at] ^= 0x20;
      g_assert_true (g_file_set_contents (entry, bad, bad_len, NULL));
      g_autoptr (RspSymbolizer) s = rsp_symbolizer_new ();
      g_assert_true (rsp_symbolizer_load_kallsyms_file_cached (s, source, dir, NULL));
      g_assert_cmpstr (rsp_symbolizer_kernel_source (s), ==, damages[d].when_used ? "cache" : "kallsyms");
      rsp_symbolizer_set_track_used (s, TRUE);
      for (guint i = 0; i < 3000; i += 7)
        resolve_alike (from_text, s, G_GUINT64_CONSTANT (0xffffffff80000000) + 0x1000 + i * 0x40 + 1);
      g_assert_cmpstr (rsp_symbolizer_kernel_source (s), ==, "kallsyms");
      g_autoptr (GBytes) used = rsp_symbolizer_export_used (s);
      g_assert_true (g_bytes_equal (used, used_text));
      g_autofree char *again = NULL;
      gsize again_len = 0;
      g_assert_true (g_file_get_contents (entry, &again, &again_len, NULL));
      g_assert_cmpmem (again, again_len, good, len);
      g_test_message ("a cache entry with %s damaged: found %s, rebuilt", damages[d].what,
                      damages[d].when_used ? "when used" : "when mapped");
    }
  /* a damaged block never used costs nothing: a report reads only what it uses */
  {
    g_autofree char *bad = g_memdup2 (good, len);
    bad[len - 10] ^= 0x20;
    g_assert_true (g_file_set_contents (entry, bad, len, NULL));
    g_autoptr (RspSymbolizer) s = rsp_symbolizer_new ();
    g_assert_true (rsp_symbolizer_load_kallsyms_file_cached (s, source, dir, NULL));
    RspFrame f;
    rsp_symbolizer_resolve (s, -1, G_GUINT64_CONSTANT (0xffffffff80000000) + 0x1000 + 5, TRUE, &f);
    g_assert_cmpstr (f.symbol, ==, "sym_0");
    g_assert_cmpstr (rsp_symbolizer_kernel_source (s), ==, "cache");
    g_assert_true (g_file_set_contents (entry, good, len, NULL));
  }

  /* 200 random bytes damaged, one at a time: whether found when mapped,
   * when used or never (a byte no lookup reads, like the padding of the
   * header), every lookup gives what the text gives */
  {
    GRand *rand = g_rand_new_with_seed (20261128);
    guint found = 0;
    for (guint round = 0; round < 200; round++)
      {
        g_autofree char *bad = g_memdup2 (good, len);
        gsize at = (gsize) g_rand_int_range (rand, 0, (gint32) len);
        bad[at] ^= (char) g_rand_int_range (rand, 1, 256);
        g_assert_true (g_file_set_contents (entry, bad, len, NULL));
        g_autoptr (RspSymbolizer) s = rsp_symbolizer_new ();
        g_assert_true (rsp_symbolizer_load_kallsyms_file_cached (s, source, dir, NULL));
        for (guint i = 0; i < 3000; i++)
          for (guint k = 0; k < 2; k++)
            resolve_alike (from_text, s,
                           G_GUINT64_CONSTANT (0xffffffff80000000) + 0x1000 + i * 0x40 + (k == 0 ? 0 : 0x3f));
        found += strcmp (rsp_symbolizer_kernel_source (s), "kallsyms") == 0;
      }
    g_rand_free (rand);
    /* nearly every byte is read by some lookup */
    g_assert_cmpuint (found, >=, 190);
    g_test_message ("200 random bytes damaged: %u found and rebuilt, every lookup right", found);
    g_assert_true (g_file_set_contents (entry, good, len, NULL));
  }

  /* concurrent writers into an empty directory: each loads, one whole
   * entry is left */
  g_assert_cmpint (g_unlink (entry), ==, 0);
  LoadJob job = { source, dir };
  GThread *threads[4];
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("kcache", load_thread, &job);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_nonnull (g_thread_join (threads[i]));
  g_autofree char *after = NULL;
  gsize after_len = 0;
  g_assert_true (g_file_get_contents (entry, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, good, len);
  g_assert_cmpstr (load_from (source, dir), ==, "cache");

  /* a directory that cannot be made costs only speed */
  g_assert_cmpstr (load_from (source, "/proc/rsp-no-such-dir/cache"), ==, "kallsyms");

  g_unlink (entry);
  g_unlink (source);
  g_rmdir (xdg);
  g_rmdir (dir);
}

/* ------------------------------------------------------------------------ */
/* ELF                                                                      */

static void
test_elf_fixture (void)
{
  Fixture f = { 0 };
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  const RspSymbolizerStats *stats;
  RspFrame frame, again;
  gint32 pid = getpid ();
  guint64 off;

  if (!fixture_open (&f))
    return;
  g_assert_cmpuint (feed_self_maps (sym, pid, f.lib_path, NULL), >=, 2);

  rsp_symbolizer_resolve (sym, pid, f.c_function, FALSE, &frame);
  g_assert_cmpstr (frame.symbol, ==, "symfix_c_function");
  g_assert_cmpuint (frame.offset, ==, 0);
  g_assert_cmpstr (frame.dso, ==, f.lib_path);
  g_assert_false (frame.kernel);
  rsp_symbolizer_resolve (sym, pid, f.c_function + 3, FALSE, &again);
  g_assert_true (again.symbol == frame.symbol);
  g_assert_true (again.dso == frame.dso);
  g_assert_cmpuint (again.offset, ==, 3);

  /* A static function: named by .symtab only. */
  g_assert_cmpstr (resolve_name (sym, pid, f.static_helper + 1, FALSE, &off), ==,
                   "symfix_static_helper");
  g_assert_cmpuint (off, ==, 1);
  /* C++: demangled, with its parameters. */
  g_assert_cmpstr (resolve_name (sym, pid, f.cxx_method, FALSE, NULL), ==,
                   "ns::Klass::method(int)");

  /* PLT stubs have no symbols; they are named "<function>@plt" (the
   * version of getpid@GLIBC_2.2.5 is not part of it). */
  {
    g_autoptr (RspElfFile) file = rsp_elf_file_load (f.lib_path, NULL, 0, NULL);
    const RspSym *stub = NULL, *c_sym = NULL;
    g_assert_nonnull (file);
    for (guint i = 0; i < file->n_syms; i++)
      {
        if (strcmp (file->syms[i].raw, "getpid@plt") == 0)
          stub = &file->syms[i];
        if (strcmp (file->syms[i].raw, "symfix_c_function") == 0)
          c_sym = &file->syms[i];
      }
    g_assert_nonnull (stub);
    g_assert_nonnull (c_sym);
    g_assert_cmpuint (stub->size, ==, 16);
    /* Both in the code segment: same distance in the file and in memory. */
    g_assert_cmpstr (resolve_name (sym, pid, f.c_function - c_sym->start + stub->start + 6, FALSE,
                                   &off), ==, "getpid@plt");
    g_assert_cmpuint (off, ==, 6);
  }

  /* Outside every map. */
  rsp_symbolizer_resolve (sym, pid, 0x10, FALSE, &frame);
  g_assert_null (frame.symbol);
  g_assert_null (frame.dso);
  /* No maps at all for that pid. */
  rsp_symbolizer_resolve (sym, 999999, f.c_function, FALSE, &frame);
  g_assert_null (frame.symbol);

  stats = rsp_symbolizer_get_stats (sym);
  g_assert_cmpuint (stats->lookups, ==, 7);
  g_assert_cmpuint (stats->unmapped, ==, 2);
  g_assert_cmpuint (stats->unknown, ==, 2);
  g_assert_cmpuint (stats->dsos_loaded, ==, 1);
  g_assert_cmpuint (stats->dsos_missing, ==, 0);
  fixture_close (&f);
}

/* The fixture's build id, read through the ELF cache. */
static void
fixture_build_id (const char *path, guint8 *id, guint *size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RspElfFile) file = rsp_elf_file_load (path, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (file);
  g_assert_cmpuint (file->build_id_size, >, 0);
  memcpy (id, file->build_id, file->build_id_size);
  *size = file->build_id_size;
}

static void
test_build_id (void)
{
  Fixture f = { 0 };
  guint8 id[20], wrong[20];
  guint id_size;
  gint32 pid = getpid ();

  if (!fixture_open (&f))
    return;
  fixture_build_id (f.lib_path, id, &id_size);
  memset (wrong, 0xab, sizeof wrong);

  /* The recording's header names another build: the file on disk is not
   * used, and the binary counts as missing. */
  {
    g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
    RspFrame frame;
    rsp_symbolizer_add_build_id (sym, f.lib_path, wrong, sizeof wrong);
    feed_self_maps (sym, pid, f.lib_path, NULL);
    rsp_symbolizer_resolve (sym, pid, f.c_function, FALSE, &frame);
    g_assert_null (frame.symbol);
    g_assert_cmpstr (frame.dso, ==, f.lib_path);
    g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_missing, ==, 1);
    g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_loaded, ==, 0);
  }
  /* Same with the build id carried by the MMAP2 records themselves. */
  {
    g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
    RspFrame frame;
    feed_self_maps_with_id (sym, pid, f.lib_path, NULL, wrong);
    rsp_symbolizer_resolve (sym, pid, f.c_function, FALSE, &frame);
    g_assert_null (frame.symbol);
    g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_missing, ==, 1);
  }
  /* A matching id in the records: used, header or not. */
  if (id_size == 20)
    {
      g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
      feed_self_maps_with_id (sym, pid, f.lib_path, NULL, id);
      g_assert_cmpstr (resolve_name (sym, pid, f.c_function, FALSE, NULL), ==,
                       "symfix_c_function");
    }
  /* The right build id: found. */
  {
    g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
    rsp_symbolizer_add_build_id (sym, f.lib_path, id, id_size);
    feed_self_maps (sym, pid, f.lib_path, NULL);
    g_assert_cmpstr (resolve_name (sym, pid, f.c_function, FALSE, NULL), ==,
                     "symfix_c_function");
    g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_loaded, ==, 1);
  }
  fixture_close (&f);
}

/* A stripped copy finds its symbols in the debug file its .gnu_debuglink
 * names. */
static void
test_debuglink (void)
{
  Fixture f = { 0 };
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (RspElfFile) file = NULL;
  gint32 pid = getpid ();

  if (!fixture_open_stripped (&f, stripped))
    return;
  file = rsp_elf_file_load (stripped, NULL, 0, NULL);
  g_assert_nonnull (file);
  g_assert_true (g_str_has_suffix (file->syms_path, "libsymfix.debug"));
  g_assert_cmpstr (file->path, ==, stripped);

  /* Same layout as the loaded library: map the stripped copy where the
   * real one is. */
  feed_self_maps (sym, pid, f.lib_path, stripped);
  g_assert_cmpstr (resolve_name (sym, pid, f.static_helper, FALSE, NULL), ==,
                   "symfix_static_helper");
  g_assert_cmpstr (resolve_name (sym, pid, f.cxx_method + 2, FALSE, NULL), ==,
                   "ns::Klass::method(int)");
  fixture_close (&f);
}

/* A stripped copy with MiniDebugInfo: its local functions (the static
 * helper) come from the xz-compressed ELF in .gnu_debugdata, the exported
 * ones from .dynsym; a damaged .gnu_debugdata costs the local ones only. */
static void
test_minidebuginfo (void)
{
  Fixture f = { 0 };
  g_autofree char *mini = fixture_path ("libsymfix-mini.so");
  gint32 pid = getpid ();

  if (!fixture_open (&f))
    return;
  if (mini == NULL)
    {
      g_test_skip ("libsymfix-mini.so not built (no objcopy or xz)");
      fixture_close (&f);
      return;
    }
  g_autoptr (RspElfFile) file = rsp_elf_file_load (mini, NULL, 0, NULL);
  g_assert_nonnull (file);
  g_assert_true (file->mini_debuginfo);
  g_assert_cmpstr (file->syms_path, ==, mini);
  {
    g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
    feed_self_maps (sym, pid, f.lib_path, mini);
    g_assert_cmpstr (resolve_name (sym, pid, f.static_helper, FALSE, NULL), ==, "symfix_static_helper");
    g_assert_cmpstr (resolve_name (sym, pid, f.cxx_method + 2, FALSE, NULL), ==, "ns::Klass::method(int)");
  }

  /* the xz stream damaged in its middle: the exported functions stay */
  g_autofree char *contents = NULL;
  gsize length;
  g_assert_true (g_file_get_contents (mini, &contents, &length, NULL));
  char *xz = memmem (contents, length, "\xfd" "7zXZ", 6);
  g_assert_nonnull (xz);
  for (gsize k = 64; k < 96 && (gsize) (xz - contents) + k < length; k++)
    xz[k] ^= 0x5a;
  g_autofree char *dir = g_dir_make_tmp ("rsp-symbols-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "libsymfix-mini-bad.so", NULL);
  g_assert_true (g_file_set_contents (bad, contents, (gssize) length, NULL));
  g_autoptr (RspElfFile) damaged = rsp_elf_file_load (bad, NULL, 0, NULL);
  g_assert_nonnull (damaged);
  g_assert_false (damaged->mini_debuginfo);
  {
    g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
    feed_self_maps (sym, pid, f.lib_path, bad);
    g_assert_cmpstr (resolve_name (sym, pid, f.cxx_method + 2, FALSE, NULL), ==, "ns::Klass::method(int)");
    g_assert_cmpstr (resolve_name (sym, pid, f.static_helper, FALSE, NULL), !=, "symfix_static_helper");
  }
  g_unlink (bad);
  g_rmdir (dir);
  fixture_close (&f);
}

/* perf's jitdump: the code loads of jit-PID.dump, found through the
 * recording's mmap of it, named like a map file's lines (the later record
 * wins); a record that does not fit, or a name without its NUL, is not
 * read; a jitdump in the other byte order is read too. */
static void
append_u32 (GByteArray *b, guint32 v, gboolean swap)
{
  v = swap ? GUINT32_SWAP_LE_BE (v) : v;
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
append_u64 (GByteArray *b, guint64 v, gboolean swap)
{
  v = swap ? GUINT64_SWAP_LE_BE (v) : v;
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

static void
append_code_load (GByteArray *b, guint64 addr, guint64 size, const char *name, gboolean swap, gboolean nul)
{
  guint32 total = 56 + (guint32) strlen (name) + (nul ? 1 : 0) + (guint32) size;
  append_u32 (b, 0, swap); /* JIT_CODE_LOAD */
  append_u32 (b, total, swap);
  append_u64 (b, 1, swap);            /* timestamp */
  append_u32 (b, 1, swap);            /* pid */
  append_u32 (b, 1, swap);            /* tid */
  append_u64 (b, addr, swap);         /* vma */
  append_u64 (b, addr, swap);         /* code_addr */
  append_u64 (b, size, swap);         /* code_size */
  append_u64 (b, 7, swap);            /* code_index */
  g_byte_array_append (b, (const guint8 *) name, (guint) strlen (name) + (nul ? 1 : 0));
  for (guint64 i = 0; i < size; i++)
    g_byte_array_append (b, (const guint8 *) "\x90", 1);
}

static void
test_jitdump (void)
{
  for (guint order = 0; order < 2; order++)
    {
      gboolean swap = order == 1;
      gint32 pid = 0x7ffffff1 - (gint32) order; /* above any pid_max */
      g_autofree char *dir = g_dir_make_tmp ("rsp-jitdump-XXXXXX", NULL);
      g_autofree char *name = g_strdup_printf ("jit-%d.dump", pid);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (GByteArray) b = g_byte_array_new ();
      append_u32 (b, 0x4A695444, swap); /* "JiTD" */
      append_u32 (b, 1, swap);
      append_u32 (b, 40, swap);         /* header size */
      append_u32 (b, 62, swap);
      append_u32 (b, 0, swap);
      append_u32 (b, (guint32) pid, swap);
      append_u64 (b, 0, swap);
      append_u64 (b, 0, swap);
      append_code_load (b, 0x7f0000001000, 0x40, "JS:*old /a.js:1:1", swap, TRUE);
      append_code_load (b, 0x7f0000001020, 0x40, "JS:*new /a.js:2:1", swap, TRUE);
      append_code_load (b, 0x7f0000003000, 0x10, "no-nul", swap, FALSE);
      /* the last record is cut */
      gsize whole = b->len;
      append_code_load (b, 0x7f0000004000, 0x10, "JS:cut", swap, TRUE);
      g_byte_array_set_size (b, whole + 30);
      g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, NULL));

      g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
      RspEvent ev = mmap_event (pid, 0x7f0000000000, 0x10000, 0, "//anon");
      rsp_symbolizer_process_event (sym, &ev);
      /* JIT code ran before the dump was mapped: looked up without it */
      g_assert_null (resolve_name (sym, pid, 0x7f0000001010, FALSE, NULL));
      ev = mmap_event (pid, 0x7f1000000000, 0x1000, 0, path);
      rsp_symbolizer_process_event (sym, &ev);
      RspFrame frame;
      rsp_symbolizer_resolve (sym, pid, 0x7f0000001010, FALSE, &frame);
      g_assert_cmpstr (frame.symbol, ==, "JS:*old /a.js:1:1");
      g_assert_cmpstr (frame.dso, ==, path);
      g_assert_cmpstr (resolve_name (sym, pid, 0x7f0000001030, FALSE, NULL), ==, "JS:*new /a.js:2:1");
      g_assert_null (resolve_name (sym, pid, 0x7f0000003004, FALSE, NULL));
      g_assert_null (resolve_name (sym, pid, 0x7f0000004004, FALSE, NULL));
      /* a dump of another process's name is not this one's */
      g_autoptr (RspSymbolizer) other = rsp_symbolizer_new ();
      ev = mmap_event (pid - 2, 0x7f1000000000, 0x1000, 0, path);
      rsp_symbolizer_process_event (other, &ev);
      g_assert_null (resolve_name (other, pid - 2, 0x7f0000001010, FALSE, NULL));
      g_unlink (path);
      g_rmdir (dir);
    }
}

/* Damaged binaries: never a crash, just no symbols. */
static void
test_bad_elf (void)
{
  Fixture f = { 0 };
  g_autofree char *dir = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  const char *names[] = { "truncated.so", "random.so", "badshdr.so", "empty.so" };
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  gint32 pid = 4242;

  if (!fixture_open (&f))
    return;
  dir = g_dir_make_tmp ("rsp-symbols-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_assert_true (g_file_get_contents (f.lib_path, &contents, &length, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autofree char *data = g_memdup2 (contents, length);
      gsize size = length;
      RspEvent ev;
      RspFrame frame;

      if (i == 0)
        size = 1000;
      else if (i == 1)
        for (gsize k = 0; k < size; k++)
          data[k] = (char) g_random_int ();
      else if (i == 2)
        {
          /* e_shoff and e_phoff far out of the file, e_shnum huge. */
          memset (data + 0x20, 0x7f, 16);
          memset (data + 0x3c, 0xff, 4);
        }
      else
        size = 0;
      g_assert_true (g_file_set_contents (path, data, size, NULL));
      ev = mmap_event (pid, 0x10000000 * (i + 1), 0x100000, 0, path);
      rsp_symbolizer_process_event (sym, &ev);
      rsp_symbolizer_resolve (sym, pid, 0x10000000 * (i + 1) + 0x1234, FALSE, &frame);
      g_assert_null (frame.symbol);
      g_assert_cmpstr (frame.dso, ==, path);
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  /* The truncated copy keeps its program headers: usable, without names. */
  g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_missing, >=, 3);
  g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_missing +
                        rsp_symbolizer_get_stats (sym)->dsos_loaded, ==, G_N_ELEMENTS (names));
  g_rmdir (dir);
  fixture_close (&f);
}

/* ------------------------------------------------------------------------ */
/* Stored tables                                                            */

/* The file offset of ADDR, in FILE's mapping that holds it in this process. */
static guint64
file_offset_of (const char *file, guint64 addr)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/maps", &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end, pgoff;
      char path[4096];
      if (parse_maps_line (lines[i], &start, &end, &pgoff, path) && strcmp (path, file) == 0 && addr >= start
          && addr < end)
        return addr - start + pgoff;
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_stored_round_trip (void)
{
  Fixture f = { 0 };
  g_autoptr (RspSymbolizer) a = rsp_symbolizer_new ();
  g_autoptr (RspSymbolizer) b = rsp_symbolizer_new ();
  g_autoptr (GBytes) exported = NULL, again = NULL;
  g_autoptr (GError) error = NULL;
  gint32 pid = getpid ();
  guint64 user[4], kernel[] = { K (0x81000010), K (0x81000250), K (0xc0000084) };
  RspFrame fa, fb;
  const char *text;
  gsize size;

  if (!fixture_open (&f))
    return;
  user[0] = f.c_function;
  user[1] = f.c_function + 5;
  user[2] = f.static_helper + 2;
  user[3] = f.cxx_method + 1;

  rsp_symbolizer_set_track_used (a, TRUE);
  g_assert_true (rsp_symbolizer_load_kallsyms (a, kallsyms_text, strlen (kallsyms_text), NULL));
  feed_self_maps (a, pid, f.lib_path, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (user); i++)
    rsp_symbolizer_resolve (a, pid, user[i], FALSE, &fa);
  for (guint i = 0; i < G_N_ELEMENTS (kernel); i++)
    rsp_symbolizer_resolve (a, -1, kernel[i], TRUE, &fa);
  exported = rsp_symbolizer_export_used (a);
  text = g_bytes_get_data (exported, &size);
  g_assert_true (g_str_has_prefix (text, "RSP-SYMBOLS 2\n"));
  g_assert_nonnull (g_strstr_len (text, size, "\nK ffffffffc0000080 "));
  g_assert_nonnull (g_strstr_len (text, size, " mod_fn2\tmymod\n"));
  /* version 2: the binary's own name, named when used */
  g_assert_nonnull (g_strstr_len (text, size, " _ZN2ns5Klass6methodEi\n"));
  g_assert_null (g_strstr_len (text, size, "ns::Klass::method(int)"));

  /* A fresh symbolizer with only the stored table: same answers, and it
   * did not need the binary (nothing loaded) nor kallsyms. */
  g_assert_true (rsp_symbolizer_load_stored (b, g_bytes_get_data (exported, NULL), size, &error));
  g_assert_no_error (error);
  rsp_symbolizer_set_track_used (b, TRUE);
  feed_self_maps (b, pid, f.lib_path, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (user); i++)
    {
      rsp_symbolizer_resolve (a, pid, user[i], FALSE, &fa);
      rsp_symbolizer_resolve (b, pid, user[i], FALSE, &fb);
      g_assert_nonnull (fb.symbol);
      g_assert_cmpstr (fa.symbol, ==, fb.symbol);
      g_assert_cmpuint (fa.offset, ==, fb.offset);
      g_assert_cmpstr (fa.dso, ==, fb.dso);
    }
  for (guint i = 0; i < G_N_ELEMENTS (kernel); i++)
    {
      rsp_symbolizer_resolve (a, -1, kernel[i], TRUE, &fa);
      rsp_symbolizer_resolve (b, -1, kernel[i], TRUE, &fb);
      g_assert_nonnull (fb.symbol);
      g_assert_cmpstr (fa.symbol, ==, fb.symbol);
      g_assert_cmpuint (fa.offset, ==, fb.offset);
      g_assert_cmpstr (fa.dso, ==, fb.dso);
    }
  g_assert_cmpuint (rsp_symbolizer_get_stats (b)->dsos_loaded, ==, 0);
  /* And it stores the same table again. */
  again = rsp_symbolizer_export_used (b);
  g_assert_cmpstr (g_bytes_get_data (again, NULL), ==, text);

  /* rsp dump's names, from the binary and from the stored table alike:
   * perf script's (no parameters) */
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (RspSymbolizer) c = rsp_symbolizer_new ();
      rsp_symbolizer_set_perf_names (c, TRUE);
      if (k == 1)
        g_assert_true (rsp_symbolizer_load_stored (c, g_bytes_get_data (exported, NULL), size, NULL));
      feed_self_maps (c, pid, f.lib_path, NULL);
      rsp_symbolizer_resolve (c, pid, f.cxx_method + 1, FALSE, &fb);
#ifdef RSP_HAVE_LIBIBERTY
      g_assert_cmpstr (fb.symbol, ==, "ns::Klass::method");
#else
      g_assert_cmpstr (fb.symbol, ==, "ns::Klass::method(int)");
#endif
      rsp_symbolizer_resolve (c, pid, f.c_function, FALSE, &fb);
      g_assert_cmpstr (fb.symbol, ==, "symfix_c_function");
      g_assert_cmpuint (rsp_symbolizer_get_stats (c)->dsos_loaded, ==, k == 0 ? 1 : 0);
    }

  /* rsp dump's names of raw names as perf 6.1 gives them (a version 2
   * table holds any name): the version stays where nothing demangles,
   * goes where libiberty does; a PLT stub's function demangled, "@plt"
   * after; OCaml's rule; the report's names beside them */
  {
    static const char *const raws[][3] = {
      /* raw, perf script's, the report's */
      { "cfree@GLIBC_2.2.5", "cfree@GLIBC_2.2.5", "cfree" },
      { "_Znwm@@GLIBCXX_3.4", "operator new", "operator new(unsigned long)" },
      { "_ZdlPv@plt", "operator delete@plt", "operator delete(void*)@plt" },
      { "camlStdlib__List__map_270", "Stdlib.List.map_270", "camlStdlib__List__map_270" },
      { "camlA$2dB__x", "A-B.x", "camlA$2dB__x" },
      { "caml$41__x", "caml$41__x", "caml$41__x" }, /* no capital after "caml" */
      { "camlnot_ocaml", "camlnot_ocaml", "camlnot_ocaml" },
      { "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write", "core::fmt::write::h0123456789abcdef" },
      { "main", "main", "main" },
    };
    GString *table = g_string_new ("RSP-SYMBOLS 2\n");
    g_string_append_printf (table, "D - %s\n", f.lib_path);
    guint64 base = file_offset_of (f.lib_path, f.c_function);
    for (guint i = 0; i < G_N_ELEMENTS (raws); i++)
      g_string_append_printf (table, "S %" G_GINT64_MODIFIER "x 8 %s\n", base + 16 * i, raws[i][0]);
    for (guint k = 0; k < 2; k++)
      {
        g_autoptr (RspSymbolizer) c = rsp_symbolizer_new ();
        rsp_symbolizer_set_perf_names (c, k == 0);
        g_assert_true (rsp_symbolizer_load_stored (c, (const guint8 *) table->str, table->len, NULL));
        feed_self_maps (c, pid, f.lib_path, NULL);
        for (guint i = 0; i < G_N_ELEMENTS (raws); i++)
          {
            rsp_symbolizer_resolve (c, pid, f.c_function + 16 * i + 1, FALSE, &fb);
#ifdef RSP_HAVE_LIBIBERTY
            g_assert_cmpstr (fb.symbol, ==, raws[i][k == 0 ? 1 : 2]);
#else
            g_assert_cmpstr (fb.symbol, ==, raws[i][2]);
#endif
            g_assert_cmpuint (fb.offset, ==, 1);
          }
      }
    g_string_free (table, TRUE);
  }

  /* A version 1 table (display names): read, its names used as they are,
   * in rsp dump too; a version 3 one is refused. */
  {
    g_autofree char *v1 = g_strdup_printf ("RSP-SYMBOLS 1\nD - %s\nS %" G_GINT64_MODIFIER "x 10 ns::Klass::method(int)\n",
                                           f.lib_path, file_offset_of (f.lib_path, f.cxx_method));
    for (guint k = 0; k < 2; k++)
      {
        g_autoptr (RspSymbolizer) c = rsp_symbolizer_new ();
        rsp_symbolizer_set_perf_names (c, k == 1);
        g_assert_true (rsp_symbolizer_load_stored (c, (const guint8 *) v1, strlen (v1), NULL));
        feed_self_maps (c, pid, f.lib_path, NULL);
        rsp_symbolizer_resolve (c, pid, f.cxx_method + 1, FALSE, &fb);
        g_assert_cmpstr (fb.symbol, ==, "ns::Klass::method(int)");
        g_assert_cmpuint (rsp_symbolizer_get_stats (c)->dsos_loaded, ==, 0);
      }
    v1[strlen ("RSP-SYMBOLS ")] = '3';
    g_autoptr (RspSymbolizer) c = rsp_symbolizer_new ();
    g_assert_false (rsp_symbolizer_load_stored (c, (const guint8 *) v1, strlen (v1), NULL));
  }
  fixture_close (&f);
}

/* Where FILE's first map (file offset 0: its ELF header, no symbol) is in
 * this process. */
static guint64
self_map_start (const char *file)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end, pgoff;
      char path[4096];
      if (parse_maps_line (lines[i], &start, &end, &pgoff, path) && pgoff == 0 && strcmp (path, file) == 0)
        return start;
    }
  g_assert_not_reached ();
  return 0;
}

/* A report of a recording whose table names every binary searched, with
 * the stored table in TABLE, the library mapped as FILENAME_AS (NULL: as
 * it is), by build id when ID is given. */
static RspSymbolizer *
stored_report (const char *table, gsize size, gboolean searched, const Fixture *f,
               const char *filename_as, const guint8 *id)
{
  RspSymbolizer *rep = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (rsp_symbolizer_load_stored (rep, (const guint8 *) table, size, &error));
  g_assert_no_error (error);
  rsp_symbolizer_set_stored_searched (rep, searched);
  rsp_symbolizer_set_track_used (rep, TRUE);
  feed_self_maps_with_id (rep, getpid (), f->lib_path, filename_as, id);
  return rep;
}

/* A stored binary whose addresses the recorder looked up (stored_whole()
 * in rsp-symbols.c): the recorder writes its D line even when it found no
 * name in it; a report of a recording that says so does not read a binary
 * here that can name nothing more (the same build id, no .symtab, no debug
 * file: a stripped copy whose debug link leads nowhere), and does read it
 * when it is another file at the path, has a .symtab (stripped where it
 * was recorded, whole here), has a debug file here, or when the recording
 * does not say so.  Two D lines of one file are joined. */
static void
test_stored_whole (void)
{
  Fixture f = { 0 };
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  g_autofree char *dir = NULL, *copy = NULL, *hex = NULL, *expected_d = NULL;
  g_autofree gchar *contents = NULL;
  g_autoptr (GBytes) exported = NULL, with_name = NULL;
  gint32 pid = getpid ();
  guint8 id[20], wrong[20];
  guint id_size;
  gsize length;
  guint64 header;

  if (!fixture_open_stripped (&f, stripped))
    return;
  fixture_build_id (f.lib_path, id, &id_size);
  g_assert_cmpuint (id_size, ==, 20); /* GNU ld's default: the build-id cases need it */
  memset (wrong, 0xab, sizeof wrong);
  hex = rsp_build_id_to_hex (id, id_size);
  header = self_map_start (f.lib_path) + 0x10;
  /* the stripped library where its debug link finds nothing */
  dir = g_dir_make_tmp ("rsp-stored-whole-XXXXXX", NULL);
  g_assert_nonnull (dir);
  copy = g_build_filename (dir, "libsymfix-copy.so", NULL);
  g_assert_true (g_file_get_contents (stripped, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (copy, contents, length, NULL));

  g_assert_false (rsp_elf_may_name_more (copy, id, id_size, FALSE));
  g_assert_false (rsp_elf_may_name_more (copy, id, id_size, TRUE));
  g_assert_true (rsp_elf_may_name_more (copy, wrong, sizeof wrong, TRUE));
  g_assert_false (rsp_elf_may_name_more (copy, wrong, sizeof wrong, FALSE));
  g_assert_false (rsp_elf_may_name_more ("/no/such/lib.so", id, id_size, TRUE));
  g_assert_true (rsp_elf_may_name_more (f.lib_path, id, id_size, FALSE)); /* .symtab */
  g_assert_true (rsp_elf_may_name_more (stripped, id, id_size, FALSE));   /* debug link */
  g_assert_true (rsp_elf_may_name_more (copy, NULL, 0, TRUE));

  /* The recorder: only an address without a name in the copy; its D line
   * is stored all the same, with no S line.  Another recorder also names
   * the exported function. */
  {
    g_autoptr (RspSymbolizer) rec = rsp_symbolizer_new ();
    rsp_symbolizer_set_track_used (rec, TRUE);
    feed_self_maps (rec, pid, f.lib_path, copy);
    g_assert_null (resolve_name (rec, pid, header, FALSE, NULL));
    g_assert_cmpuint (rsp_symbolizer_get_stats (rec)->dsos_loaded, ==, 1);
    exported = rsp_symbolizer_export_used (rec);
    expected_d = g_strdup_printf ("RSP-SYMBOLS 2\nD %s %s\n", hex, copy);
    g_assert_cmpstr (g_bytes_get_data (exported, NULL), ==, expected_d);
  }
  {
    g_autoptr (RspSymbolizer) rec = rsp_symbolizer_new ();
    rsp_symbolizer_set_track_used (rec, TRUE);
    feed_self_maps (rec, pid, f.lib_path, copy);
    g_assert_cmpstr (resolve_name (rec, pid, f.c_function, FALSE, NULL), ==, "symfix_c_function");
    with_name = rsp_symbolizer_export_used (rec);
  }
  const char *table = g_bytes_get_data (exported, NULL);
  gsize table_size = g_bytes_get_size (exported);

  /* The report, by the map's build id or by the path: not read again. */
  for (guint by_id = 0; by_id < 2; by_id++)
    {
      g_autoptr (RspSymbolizer) rep = stored_report (table, table_size, TRUE, &f, copy, by_id ? id : NULL);
      g_autoptr (GBytes) again = NULL;
      g_assert_null (resolve_name (rep, pid, header, FALSE, NULL));
      g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_loaded, ==, 0);
      g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_missing, ==, 0);
      g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_stored_whole, ==, 1);
      /* the table's word, even for an address the copy's .dynsym names:
       * the recorder had this file and found no name there */
      g_assert_null (resolve_name (rep, pid, f.c_function, FALSE, NULL));
      /* and the claim is stored again */
      again = rsp_symbolizer_export_used (rep);
      g_assert_cmpstr (g_bytes_get_data (again, NULL), ==, expected_d);
    }
  /* A recording that does not say its table names every binary searched
   * (made before): the binary is read for what the table lacks. */
  {
    g_autoptr (RspSymbolizer) rep = stored_report (table, table_size, FALSE, &f, copy, id);
    g_assert_cmpstr (resolve_name (rep, pid, f.c_function, FALSE, NULL), ==, "symfix_c_function");
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_loaded, ==, 1);
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_stored_whole, ==, 0);
  }
  /* Loading a table again forgets what the last one said. */
  {
    g_autoptr (RspSymbolizer) rep = stored_report (table, table_size, TRUE, &f, copy, id);
    g_assert_true (rsp_symbolizer_load_stored (rep, (const guint8 *) table, table_size, NULL));
    g_assert_cmpstr (resolve_name (rep, pid, f.c_function, FALSE, NULL), ==, "symfix_c_function");
  }
  /* Offline: nothing read either, but counted as missing, as before. */
  {
    g_autoptr (RspSymbolizer) rep = rsp_symbolizer_new ();
    g_assert_true (rsp_symbolizer_load_stored (rep, (const guint8 *) table, table_size, NULL));
    rsp_symbolizer_set_stored_searched (rep, TRUE);
    rsp_symbolizer_set_offline (rep, TRUE);
    feed_self_maps (rep, pid, f.lib_path, copy);
    g_assert_null (resolve_name (rep, pid, header, FALSE, NULL));
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_missing, ==, 1);
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_stored_whole, ==, 0);
  }
  /* Matched by path, and the stored build id is another file's: the file
   * at the path is read, as a lookup by path always did. */
  {
    g_autofree char *other = g_strdup_printf ("RSP-SYMBOLS 1\nD %s %s\n",
                                              "0102030405060708090a0b0c0d0e0f1011121314", copy);
    g_autoptr (RspSymbolizer) rep = stored_report (other, strlen (other), TRUE, &f, copy, NULL);
    g_assert_cmpstr (resolve_name (rep, pid, f.c_function, FALSE, NULL), ==, "symfix_c_function");
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_loaded, ==, 1);
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_stored_whole, ==, 0);
  }
  /* Stripped where it was recorded, whole here (the same build id, a
   * .symtab): read, for the local functions .dynsym lacks. */
  {
    g_autofree char *here = g_strdup_printf ("RSP-SYMBOLS 1\nD %s %s\n", hex, f.lib_path);
    g_autoptr (RspSymbolizer) rep = stored_report (here, strlen (here), TRUE, &f, NULL, id);
    g_assert_cmpstr (resolve_name (rep, pid, f.static_helper, FALSE, NULL), ==, "symfix_static_helper");
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_loaded, ==, 1);
  }
  /* A debug file here (found through the stripped library's debug link):
   * it may name what the recorder could not, so the binary is read. */
  {
    g_autofree char *linked = g_strdup_printf ("RSP-SYMBOLS 1\nD %s %s\n", hex, stripped);
    g_autoptr (RspSymbolizer) rep = stored_report (linked, strlen (linked), TRUE, &f, stripped, id);
    g_assert_cmpstr (resolve_name (rep, pid, f.static_helper, FALSE, NULL), ==, "symfix_static_helper");
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_loaded, ==, 1);
    g_assert_cmpuint (rsp_symbolizer_get_stats (rep)->dsos_stored_whole, ==, 0);
  }
  /* The same file under two keys in the recorder (maps with and without
   * its build id) gives two D lines with one build id; the one without a
   * name must not hide the other's names, by build id or by either path. */
  {
    g_autofree char *joined = g_strdup_printf ("%sD %s /no/such/copy.so\n",
                                               (const char *) g_bytes_get_data (with_name, NULL), hex);
    g_autoptr (RspSymbolizer) by_id = stored_report (joined, strlen (joined), TRUE, &f, copy, id);
    g_autoptr (RspSymbolizer) by_other_path = stored_report (joined, strlen (joined), TRUE, &f,
                                                             "/no/such/copy.so", NULL);
    g_assert_cmpstr (resolve_name (by_id, pid, f.c_function, FALSE, NULL), ==, "symfix_c_function");
    g_assert_cmpuint (rsp_symbolizer_get_stats (by_id)->dsos_loaded, ==, 0);
    g_assert_cmpstr (resolve_name (by_other_path, pid, f.c_function, FALSE, NULL), ==,
                     "symfix_c_function");
    g_assert_cmpuint (rsp_symbolizer_get_stats (by_other_path)->dsos_loaded, ==, 0);
  }
  g_assert_cmpint (g_remove (copy), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  fixture_close (&f);
}

/* Stored symbols win over this machine's binaries and kallsyms. */
static void
test_stored_precedence (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  const char table[] = "RSP-SYMBOLS 1\n"
                       "K ffffffff81000000 100 stored_kernel_fn\n"
                       "D - /no/such/libx.so\n"
                       "S 1000 20 stored_fn\n"
                       "S 1020 10 ns::f(int)\n"
                       "D 0102030405060708090a0b0c0d0e0f1011121314 /no/such/liby.so\n"
                       "S 0 8 by_build_id\n";
  const guint8 id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
  RspEvent ev;
  RspFrame frame;
  guint64 off;

  g_assert_true (rsp_symbolizer_load_kallsyms (sym, kallsyms_text, strlen (kallsyms_text), NULL));
  g_assert_true (rsp_symbolizer_load_stored (sym, (const guint8 *) table, strlen (table), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81000010), TRUE, &off), ==, "stored_kernel_fn");
  g_assert_cmpuint (off, ==, 0x10);
  /* Past the stored symbol: kallsyms fills in. */
  g_assert_cmpstr (resolve_name (sym, -1, K (0x81000210), TRUE, NULL), ==, "weak_fn");

  ev = mmap_event (77, 0x10000000, 0x10000, 0, "/no/such/libx.so");
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 77, 0x10001010, FALSE, &frame);
  g_assert_cmpstr (frame.symbol, ==, "stored_fn");
  g_assert_cmpuint (frame.offset, ==, 0x10);
  g_assert_cmpstr (frame.dso, ==, "/no/such/libx.so");
  /* Stored names are display names already: not demangled again. */
  g_assert_cmpstr (resolve_name (sym, 77, 0x10001020, FALSE, NULL), ==, "ns::f(int)");
  /* Not stored and no binary: unknown, and the binary counts as missing. */
  g_assert_null (resolve_name (sym, 77, 0x10005000, FALSE, NULL));
  g_assert_cmpuint (rsp_symbolizer_get_stats (sym)->dsos_missing, ==, 1);

  /* Matched by build id, whatever the path. */
  rsp_symbolizer_add_build_id (sym, "/elsewhere/liby.so", id, sizeof id);
  ev = mmap_event (77, 0x20000000, 0x1000, 0x3000, "/elsewhere/liby.so");
  rsp_symbolizer_process_event (sym, &ev);
  /* File offset 0x3000 is at 0x20000000: "S 0 8" is not there... */
  g_assert_null (resolve_name (sym, 77, 0x20000004, FALSE, NULL));
  /* ...but a map of offset 0 is. */
  ev = mmap_event (78, 0x30000000, 0x1000, 0, "/elsewhere/liby.so");
  rsp_symbolizer_process_event (sym, &ev);
  g_assert_cmpstr (resolve_name (sym, 78, 0x30000004, FALSE, &off), ==, "by_build_id");
  g_assert_cmpuint (off, ==, 4);
}

/* JIT symbols stored as P lines (rsp-symbols-jit.c): anonymous memory of
 * the process is named by them, the later of two overlapping entries wins,
 * a process without any is not looked up in /tmp (the table is the
 * recording's word), and the used ones are exported again. */
static void
test_stored_jit (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;
  const char table[] = "RSP-SYMBOLS 1\n"
                       "P 4d 7f0000001000 100 JS:*old /a.js:1:1\n"
                       "P 4d 7f0000001080 100 JS:*new /a.js:2:1\n"
                       "P 4d 7f0000002000 10 LazyCompile:~tiny\n";
  rsp_symbolizer_set_track_used (sym, TRUE);
  g_assert_true (rsp_symbolizer_load_stored (sym, (const guint8 *) table, strlen (table), &error));
  g_assert_no_error (error);
  RspEvent ev = mmap_event (0x4d, 0x7f0000000000, 0x10000, 0, "//anon");
  rsp_symbolizer_process_event (sym, &ev);
  RspFrame frame;
  rsp_symbolizer_resolve (sym, 0x4d, 0x7f0000001010, FALSE, &frame);
  g_assert_cmpstr (frame.symbol, ==, "JS:*old /a.js:1:1");
  g_assert_cmpuint (frame.offset, ==, 0x10);
  g_assert_cmpstr (frame.dso, ==, "/tmp/perf-77.map");
  /* the later line keeps the addresses the two share, and its own beyond */
  g_assert_cmpstr (resolve_name (sym, 0x4d, 0x7f0000001090, FALSE, NULL), ==, "JS:*new /a.js:2:1");
  g_assert_cmpstr (resolve_name (sym, 0x4d, 0x7f0000001170, FALSE, NULL), ==, "JS:*new /a.js:2:1");
  g_assert_null (resolve_name (sym, 0x4d, 0x7f0000001180, FALSE, NULL));
  /* unmapped addresses too (code perf saw no mapping of) */
  g_assert_cmpstr (resolve_name (sym, 0x4d, 0x7f000000200f, FALSE, NULL), ==, "LazyCompile:~tiny");
  g_assert_null (resolve_name (sym, 0x4d, 0x7f0000002010, FALSE, NULL));
  /* another process (a pid above any pid_max: no real file is touched):
   * nothing stored, and /tmp is not read */
  g_autofree char *planted = g_strdup_printf ("/tmp/perf-%d.map", 0x7ffffff0);
  g_assert_true (g_file_set_contents (planted, "7f0000001000 100 planted\n", -1, NULL));
  ev = mmap_event (0x7ffffff0, 0x7f0000000000, 0x10000, 0, "//anon");
  rsp_symbolizer_process_event (sym, &ev);
  g_assert_null (resolve_name (sym, 0x7ffffff0, 0x7f0000001010, FALSE, NULL));
  /* without a stored table the file is read, as perf script reads it */
  g_autoptr (RspSymbolizer) live = rsp_symbolizer_new ();
  rsp_symbolizer_process_event (live, &ev);
  g_assert_cmpstr (resolve_name (live, 0x7ffffff0, 0x7f0000001010, FALSE, NULL), ==, "planted");
  g_unlink (planted);

  g_autoptr (GBytes) exported = rsp_symbolizer_export_used (sym);
  g_autofree char *text = g_strndup (g_bytes_get_data (exported, NULL), g_bytes_get_size (exported));
  g_assert_nonnull (strstr (text, "P 4d 7f0000001000 80 JS:*old /a.js:1:1\n"));
  g_assert_nonnull (strstr (text, "P 4d 7f0000001080 100 JS:*new /a.js:2:1\n"));
  g_assert_nonnull (strstr (text, "P 4d 7f0000002000 10 LazyCompile:~tiny\n"));
  /* and read back */
  g_autoptr (RspSymbolizer) again = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_stored (again, g_bytes_get_data (exported, NULL), g_bytes_get_size (exported),
                                             &error));
  g_assert_cmpstr (resolve_name (again, 0x4d, 0x7f0000001010, FALSE, NULL), ==, "JS:*old /a.js:1:1");
}

static void
expect_rejected (const char *what, const guint8 *data, gsize size)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  g_autoptr (GError) error = NULL;

  if (rsp_symbolizer_load_stored (sym, data, size, &error))
    g_error ("stored table accepted: %s", what);
  g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID);
}

static void
test_stored_garbage (void)
{
  static const char *const bad[] = {
    "",
    "RSP-SYMBOLS 3\n",
    "RSP-SYMBOLS 2\nS 10 10 orphan\n",
    "RSP-SYMBOLS 2\nD zz /x\n",
    "RSP-SYMBOLS 1",
    "RSP-SYMBOLS 1\nS 10 10 orphan\n",
    "RSP-SYMBOLS 1\nK zz 10 x\n",
    "RSP-SYMBOLS 1\nK 10 10\n",
    "RSP-SYMBOLS 1\nK 10 10 \n",
    "RSP-SYMBOLS 1\nK 10 10 x",
    "RSP-SYMBOLS 1\nK 10  x\n",
    "RSP-SYMBOLS 1\nP 0 10 10 pid_zero\n",
    "RSP-SYMBOLS 1\nP 4d 10 0 size_zero\n",
    "RSP-SYMBOLS 1\nP 4d 10 10\n",
    "RSP-SYMBOLS 1\nP 4d zz 10 x\n",
    "RSP-SYMBOLS 1\nP ffffffffff 10 10 big_pid\n",
    "RSP-SYMBOLS 1\nK 12345678901234567 10 x\n",
    "RSP-SYMBOLS 1\nK ffffffffffffffff 10 wraps\n",
    "RSP-SYMBOLS 1\nK 10 10 x\t\n",
    "RSP-SYMBOLS 1\nD abc /x\nS 0 1 y\n",
    "RSP-SYMBOLS 1\nD 00112233445566778899aabbccddeeff0011223344 /x\n",
    "RSP-SYMBOLS 1\nD zz /x\n",
    "RSP-SYMBOLS 1\nD -\n",
    "RSP-SYMBOLS 1\nD - \n",
    "RSP-SYMBOLS 1\nX 1 2 3\n",
    "RSP-SYMBOLS 1\n\n",
    "garbage\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    expect_rejected (bad[i], (const guint8 *) bad[i], strlen (bad[i]));
  expect_rejected ("NUL byte", (const guint8 *) "RSP-SYMBOLS 1\nK 1 1 a\0b\n", 24);
}

/* Random damage to a valid table: accepted or rejected, never a crash
 * (run under ASan/UBSan in CI). */
static void
test_stored_fuzz (void)
{
  const char table[] = "RSP-SYMBOLS 1\n"
                       "K ffffffff81000000 100 kfn\tmod\n"
                       "D 0102030405060708090a0b0c0d0e0f1011121314 /lib/a.so\n"
                       "S 1000 20 f\n"
                       "D - /lib/b.so\n"
                       "S 0 8 g(int)\n";
  GRand *rand = g_rand_new_with_seed (1234);

  for (guint round = 0; round < 3000; round++)
    {
      g_autofree guint8 *data = (guint8 *) g_strdup (table);
      gsize size = strlen (table);
      g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
      g_autoptr (GError) error = NULL;
      guint edits = g_rand_int_range (rand, 1, 6);
      RspFrame frame;

      for (guint e = 0; e < edits; e++)
        {
          gsize at = g_rand_int_range (rand, 0, size);
          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              data[at] = (guint8) g_rand_int (rand);
              break;
            case 1:
              size = at;
              break;
            default:
              data[at] = "0123456789abcdef \n\tKDS-"[g_rand_int_range (rand, 0, 24)];
              break;
            }
          if (size == 0)
            break;
        }
      if (rsp_symbolizer_load_stored (sym, data, size, &error))
        {
          RspEvent ev = mmap_event (1, 0x1000, 0x10000, 0, "/lib/b.so");
          g_assert_no_error (error);
          rsp_symbolizer_process_event (sym, &ev);
          rsp_symbolizer_resolve (sym, 1, 0x1004, FALSE, &frame);
          rsp_symbolizer_resolve (sym, -1, K (0x81000004), TRUE, &frame);
        }
      else
        g_assert_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID);
    }
  g_rand_free (rand);
}

/* ------------------------------------------------------------------------ */
/* Process maps                                                             */

static void
test_maps_overlap (void)
{
  g_autoptr (RspMaps) maps = rsp_maps_new ();
  RspMap a = { .start = 0x1000, .end = 0x5000, .pgoff = 0, .filename = "a" };
  RspMap b = { .start = 0x2000, .end = 0x3000, .pgoff = 0x7000, .filename = "b" };
  RspMap c = { .start = 0x0, .end = 0x1800, .pgoff = 0, .filename = "c" };
  RspProcessMaps *proc;
  RspMap *m;

  rsp_maps_add (maps, 1, &a);
  rsp_maps_add (maps, 1, &b);
  proc = rsp_maps_get (maps, 1);
  g_assert_cmpuint (proc->maps->len, ==, 3);
  m = rsp_process_maps_find (proc, 0x1800);
  g_assert_cmpstr (m->filename, ==, "a");
  g_assert_cmpuint (m->end, ==, 0x2000);
  m = rsp_process_maps_find (proc, 0x2fff);
  g_assert_cmpstr (m->filename, ==, "b");
  m = rsp_process_maps_find (proc, 0x3000);
  g_assert_cmpstr (m->filename, ==, "a");
  g_assert_cmpuint (m->start, ==, 0x3000);
  g_assert_cmpuint (m->pgoff, ==, 0x2000); /* file offset of 0x3000 in a */
  g_assert_null (rsp_process_maps_find (proc, 0x5000));

  rsp_maps_add (maps, 1, &c);
  m = rsp_process_maps_find (proc, 0x17ff);
  g_assert_cmpstr (m->filename, ==, "c");
  m = rsp_process_maps_find (proc, 0x1800);
  g_assert_cmpstr (m->filename, ==, "a");
  g_assert_cmpuint (m->pgoff, ==, 0x800);
  g_assert_cmpuint (proc->maps->len, ==, 4);
}

/* The token of a callchain changes with everything its frames depend on:
 * the maps of its process, and the mode it starts in. */
static void
test_callchain_token (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  const guint64 chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000104ull, PERF_CONTEXT_USER, 0x400100 };
  RspEvent sample = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL, .pid = 100, .tid = 100 };
  sample.sample.ip = chain[1];
  sample.sample.callchain = chain;
  sample.sample.n_callchain = G_N_ELEMENTS (chain);
  RspEvent ev;
  RspFrame frames[4];

  /* a process with no maps yet has one too */
  guint64 t0 = rsp_symbolizer_callchain_token (sym, &sample);
  g_assert_cmpuint (t0, !=, 0);
  ev = mmap_event (100, 0x400000, 0x10000, 0, "/bin/first-image");
  rsp_symbolizer_process_event (sym, &ev);
  guint64 t1 = rsp_symbolizer_callchain_token (sym, &sample);
  g_assert_cmpuint (t1, !=, t0);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, t1);
  g_assert_cmpuint (rsp_symbolizer_resolve_callchain (sym, &sample, frames, 4), ==, 2);
  g_assert_cmpstr (frames[1].dso, ==, "/bin/first-image");

  /* another process's maps, and a new thread, change nothing */
  ev = mmap_event (200, 0x400000, 0x10000, 0, "/bin/other");
  rsp_symbolizer_process_event (sym, &ev);
  ev = (RspEvent){ .type = PERF_RECORD_FORK, .pid = 100, .tid = 101 };
  ev.u.fork = (RspForkExit){ .pid = 100, .ppid = 100, .tid = 101, .ptid = 100 };
  rsp_symbolizer_process_event (sym, &ev);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, t1);

  /* a map over the address: the same entries are other frames, under
   * another token */
  ev = mmap_event (100, 0x400000, 0x1000, 0, "/bin/second-image");
  rsp_symbolizer_process_event (sym, &ev);
  guint64 t2 = rsp_symbolizer_callchain_token (sym, &sample);
  g_assert_cmpuint (t2, !=, t1);
  g_assert_cmpuint (rsp_symbolizer_resolve_callchain (sym, &sample, frames, 4), ==, 2);
  g_assert_cmpstr (frames[1].dso, ==, "/bin/second-image");

  /* an exec, and a fork that reuses the pid */
  ev = (RspEvent){ .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = 100 };
  ev.u.comm = (RspComm){ .pid = 100, .tid = 100, .comm = "next", .exec = TRUE };
  rsp_symbolizer_process_event (sym, &ev);
  guint64 t3 = rsp_symbolizer_callchain_token (sym, &sample);
  g_assert_true (t3 != t2 && t3 != t1);
  ev = (RspEvent){ .type = PERF_RECORD_FORK, .pid = 100, .tid = 100 };
  ev.u.fork = (RspForkExit){ .pid = 100, .ppid = 200, .tid = 100, .ptid = 200 };
  rsp_symbolizer_process_event (sym, &ev);
  guint64 t4 = rsp_symbolizer_callchain_token (sym, &sample);
  g_assert_true (t4 != t3 && t4 != t2 && t4 != t1);

  /* the mode the chain starts in */
  sample.misc = PERF_RECORD_MISC_USER;
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), !=, t4);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), !=, 0);
  sample.misc = PERF_RECORD_MISC_KERNEL;

  /* resolved each time: no callchain, or used symbols being recorded */
  sample.sample.n_callchain = 0;
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, 0);
  sample.sample.n_callchain = G_N_ELEMENTS (chain);
  rsp_symbolizer_set_track_used (sym, TRUE);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, 0);
  rsp_symbolizer_set_track_used (sym, FALSE);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, t4);

  /* in DWARF mode (the default) a sample with registers and stack is
   * unwound from them: resolved each time; one without stays cacheable */
  guint64 regs[2] = { 0x400100, 0x7ffd0000 };
  guint8 stack[64] = { 0 };
  RspEvent unwindable = sample;
  unwindable.sample.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
  unwindable.sample.user_regs_mask = (G_GUINT64_CONSTANT (1) << PERF_REG_X86_SP) | (G_GUINT64_CONSTANT (1) << PERF_REG_X86_IP);
  unwindable.sample.user_regs = regs;
  unwindable.sample.user_stack = stack;
  unwindable.sample.user_stack_size = sizeof stack;
  unwindable.sample.user_stack_dyn_size = sizeof stack;
  rsp_symbolizer_set_dwarf_unwind (sym, FALSE);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &unwindable), ==, t4);
  rsp_symbolizer_set_dwarf_unwind (sym, TRUE);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &unwindable), ==, 0);
  g_assert_cmpuint (rsp_symbolizer_callchain_token (sym, &sample), ==, t4);
}

/* Forked copies of a process share its callchains' key: the token names
 * the maps' generation, which a child shares with its parent (or, when the
 * parent kept maps from before an exec, with its siblings forked meanwhile)
 * until one of them changes its maps, and the owner is 0 where no JIT
 * symbols can name a process's frames by its pid. */
static guint64
key_of (RspSymbolizer *sym, gint32 pid, gint32 *owner)
{
  static const guint64 chain[] = { PERF_CONTEXT_USER, 0x400100, 0x7f0000000100 };
  RspEvent sample = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .pid = pid, .tid = pid };
  sample.sample.ip = chain[1];
  sample.sample.callchain = chain;
  sample.sample.n_callchain = G_N_ELEMENTS (chain);
  return rsp_symbolizer_callchain_key (sym, &sample, owner);
}

static void
fork_process (RspSymbolizer *sym, gint32 parent, gint32 child)
{
  RspEvent ev = { .type = PERF_RECORD_FORK, .pid = child, .tid = child };
  ev.u.fork = (RspForkExit){ .pid = child, .ppid = parent, .tid = child, .ptid = parent };
  rsp_symbolizer_process_event (sym, &ev);
}

/* A symbolizer with the stored table TABLE loaded. */
static RspSymbolizer *
stored_symbolizer (const char *table)
{
  g_autoptr (GError) error = NULL;
  RspSymbolizer *sym = rsp_symbolizer_new ();
  g_assert_true (rsp_symbolizer_load_stored (sym, (const guint8 *) table, strlen (table), &error));
  g_assert_no_error (error);
  return sym;
}

static void
test_callchain_shared (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  rsp_symbolizer_set_offline (sym, TRUE);
  RspEvent ev = mmap_event (100, 0x400000, 0x10000, 0, "/bin/parent-image");
  rsp_symbolizer_process_event (sym, &ev);
  ev = mmap_event (100, 0x7f0000000000, 0x10000, 0, "/lib/libparent.so");
  rsp_symbolizer_process_event (sym, &ev);
  fork_process (sym, 100, 101);
  fork_process (sym, 100, 102);
  gint32 owner = -1;
  guint64 parent = key_of (sym, 100, &owner);
  g_assert_cmpuint (parent, !=, 0);
  g_assert_cmpint (owner, ==, 0);
  g_assert_cmpuint (key_of (sym, 101, &owner), ==, parent);
  g_assert_cmpint (owner, ==, 0);
  g_assert_cmpuint (key_of (sym, 102, &owner), ==, parent);
  /* the same frames, which is what sharing the key says */
  RspFrame a, b;
  rsp_symbolizer_resolve (sym, 100, 0x7f0000000100, FALSE, &a);
  rsp_symbolizer_resolve (sym, 102, 0x7f0000000100, FALSE, &b);
  g_assert_cmpstr (a.dso, ==, "/lib/libparent.so");
  g_assert_cmpstr (b.dso, ==, a.dso);

  /* a child that maps something has its own; the others keep theirs */
  ev = mmap_event (101, 0x7f0000000000, 0x1000, 0, "/lib/libchild.so");
  rsp_symbolizer_process_event (sym, &ev);
  guint64 changed = key_of (sym, 101, &owner);
  g_assert_cmpuint (changed, !=, parent);
  g_assert_cmpuint (key_of (sym, 102, &owner), ==, parent);
  g_assert_cmpuint (key_of (sym, 100, &owner), ==, parent);
  rsp_symbolizer_resolve (sym, 101, 0x7f0000000100, FALSE, &a);
  g_assert_cmpstr (a.dso, ==, "/lib/libchild.so");
  /* so does the parent, and a child forked after that shares its new one */
  ev = mmap_event (100, 0x500000, 0x1000, 0, "/lib/libmore.so");
  rsp_symbolizer_process_event (sym, &ev);
  guint64 parent2 = key_of (sym, 100, &owner);
  g_assert_true (parent2 != parent && parent2 != changed);
  g_assert_cmpuint (key_of (sym, 102, &owner), ==, parent);
  fork_process (sym, 100, 103);
  g_assert_cmpuint (key_of (sym, 103, &owner), ==, parent2);
  /* a child forked again into a pid in use takes its new parent's */
  fork_process (sym, 100, 101);
  g_assert_cmpuint (key_of (sym, 101, &owner), ==, parent2);

  /* a parent that keeps maps from before its exec: not the children's
   * maps, which only their siblings forked meanwhile share */
  ev = mmap_event (200, 0x400000, 0x10000, 0, "/bin/first");
  rsp_symbolizer_process_event (sym, &ev);
  ev = (RspEvent){ .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = 200 };
  ev.u.comm = (RspComm){ .pid = 200, .tid = 200, .comm = "bench", .exec = TRUE };
  rsp_symbolizer_process_event (sym, &ev);
  ev = mmap_event (200, 0x400000, 0x1000, 0, "/bin/bench");
  rsp_symbolizer_process_event (sym, &ev);
  fork_process (sym, 200, 201);
  fork_process (sym, 200, 202);
  guint64 bench = key_of (sym, 200, &owner), child = key_of (sym, 201, &owner);
  g_assert_cmpuint (child, !=, bench);
  g_assert_cmpuint (key_of (sym, 202, &owner), ==, child);
  /* the parent's fallback answers for it, not for the children */
  rsp_symbolizer_resolve (sym, 200, 0x408000, FALSE, &a);
  rsp_symbolizer_resolve (sym, 201, 0x408000, FALSE, &b);
  g_assert_cmpstr (a.dso, ==, "/bin/first");
  g_assert_null (b.dso);
  ev = mmap_event (200, 0x600000, 0x1000, 0, "/lib/libplugin.so");
  rsp_symbolizer_process_event (sym, &ev);
  fork_process (sym, 200, 203);
  guint64 later = key_of (sym, 203, &owner);
  g_assert_true (later != child && later != key_of (sym, 200, &owner));
  g_assert_cmpuint (key_of (sym, 202, &owner), ==, child);

  /* where /tmp/perf-PID.map may name a process's frames, each keeps its own */
  g_autoptr (RspSymbolizer) live = rsp_symbolizer_new ();
  ev = mmap_event (300, 0x400000, 0x10000, 0, "/bin/live");
  rsp_symbolizer_process_event (live, &ev);
  fork_process (live, 300, 301);
  g_assert_cmpuint (key_of (live, 301, &owner), ==, key_of (live, 300, &owner));
  g_assert_cmpint (owner, ==, 300);
  g_assert_cmpuint (key_of (live, 301, &owner), !=, 0);
  g_assert_cmpint (owner, ==, 301);
  /* and so where the recording stored JIT symbols; without any, shared */
  g_autoptr (RspSymbolizer) jit = stored_symbolizer ("RSP-SYMBOLS 1\nP 4d 7f0000001000 100 JS:*old /a.js:1:1\n");
  rsp_symbolizer_process_event (jit, &ev);
  key_of (jit, 300, &owner);
  g_assert_cmpint (owner, ==, 300);
  g_autoptr (RspSymbolizer) stored = stored_symbolizer ("RSP-SYMBOLS 1\n");
  rsp_symbolizer_process_event (stored, &ev);
  key_of (stored, 300, &owner);
  g_assert_cmpint (owner, ==, 0);
  /* a process with no maps at all keeps its own */
  key_of (stored, 999, &owner);
  g_assert_cmpint (owner, ==, 999);
}

static void
test_fork_exec (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  RspEvent ev;
  RspFrame frame;

  ev = mmap_event (100, 0x400000, 0x10000, 0, "/bin/parent-image");
  rsp_symbolizer_process_event (sym, &ev);
  ev = mmap_event (100, 0x7f0000000000, 0x10000, 0, "/lib/libparent.so");
  rsp_symbolizer_process_event (sym, &ev);

  /* A new process: a copy of the parent's maps. */
  ev = (RspEvent){ .type = PERF_RECORD_FORK, .pid = 101, .tid = 101 };
  ev.u.fork = (RspForkExit){ .pid = 101, .ppid = 100, .tid = 101, .ptid = 100 };
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 101, 0x400100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/parent-image");
  rsp_symbolizer_resolve (sym, 101, 0x7f0000000100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/lib/libparent.so");

  /* A new thread (pid == ppid) changes nothing. */
  ev.u.fork = (RspForkExit){ .pid = 100, .ppid = 100, .tid = 102, .ptid = 100 };
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 100, 0x400100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/parent-image");

  /* The child execs: its new image replaces what it maps... */
  ev = (RspEvent){ .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = 101 };
  ev.u.comm = (RspComm){ .pid = 101, .tid = 101, .comm = "child", .exec = TRUE };
  rsp_symbolizer_process_event (sym, &ev);
  ev = mmap_event (101, 0x400000, 0x2000, 0, "/bin/child-image");
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 101, 0x400100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/child-image");
  /* ...where the new image does not reach, the old one no longer maps
   * either, except as the fallback for samples taken inside execve(). */
  rsp_symbolizer_resolve (sym, 101, 0x408000, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/parent-image");
  /* A second exec forgets the first image entirely. */
  ev = (RspEvent){ .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = 101 };
  ev.u.comm = (RspComm){ .pid = 101, .tid = 101, .comm = "child2", .exec = TRUE };
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 101, 0x408000, FALSE, &frame);
  g_assert_null (frame.dso);
  rsp_symbolizer_resolve (sym, 101, 0x7f0000000100, FALSE, &frame);
  g_assert_null (frame.dso);
  rsp_symbolizer_resolve (sym, 101, 0x400100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/child-image"); /* the fallback image */

  /* The parent is untouched. */
  rsp_symbolizer_resolve (sym, 100, 0x7f0000000100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/lib/libparent.so");

  /* EXIT keeps the maps: late samples still resolve. */
  ev = (RspEvent){ .type = PERF_RECORD_EXIT, .pid = 100 };
  ev.u.fork = (RspForkExit){ .pid = 100, .ppid = 1, .tid = 100, .ptid = 1 };
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 100, 0x400100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/parent-image");

  /* pid reuse: a FORK replaces whatever the old process had. */
  ev = mmap_event (200, 0x500000, 0x1000, 0, "/bin/other");
  rsp_symbolizer_process_event (sym, &ev);
  ev = (RspEvent){ .type = PERF_RECORD_FORK, .pid = 100 };
  ev.u.fork = (RspForkExit){ .pid = 100, .ppid = 200, .tid = 100, .ptid = 200 };
  rsp_symbolizer_process_event (sym, &ev);
  rsp_symbolizer_resolve (sym, 100, 0x400100, FALSE, &frame);
  g_assert_null (frame.dso);
  rsp_symbolizer_resolve (sym, 100, 0x500100, FALSE, &frame);
  g_assert_cmpstr (frame.dso, ==, "/bin/other");
}

/* ------------------------------------------------------------------------ */
/* Callchains                                                               */

static void
test_callchain (void)
{
  Fixture f = { 0 };
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  gint32 pid = getpid ();
  RspFrame frames[8];
  guint n;

  if (!fixture_open (&f))
    return;
  g_assert_true (rsp_symbolizer_load_kallsyms (sym, kallsyms_text, strlen (kallsyms_text), NULL));
  feed_self_maps (sym, pid, f.lib_path, NULL);

  {
    const guint64 chain[] = { PERF_CONTEXT_KERNEL, K (0x81000104), K (0xc0000004),
                              PERF_CONTEXT_USER,   f.static_helper + 4, f.c_function + 4 };
    RspEvent ev = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL, .pid = pid,
                    .tid = pid };
    ev.sample.ip = chain[1];
    ev.sample.callchain = chain;
    ev.sample.n_callchain = G_N_ELEMENTS (chain);

    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
    g_assert_cmpuint (n, ==, 4);
    g_assert_cmpstr (frames[0].symbol, ==, "small_fn");
    g_assert_true (frames[0].kernel);
    g_assert_cmpstr (frames[1].symbol, ==, "mod_fn");
    g_assert_cmpstr (frames[1].dso, ==, "[mymod]");
    g_assert_cmpstr (frames[2].symbol, ==, "symfix_static_helper");
    g_assert_false (frames[2].kernel);
    g_assert_cmpuint (frames[2].ip, ==, f.static_helper + 4);
    g_assert_cmpstr (frames[3].symbol, ==, "symfix_c_function");
    g_assert_cmpuint (frames[3].offset, ==, 4);

    /* MAX bounds the frames. */
    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, 3);
    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpstr (frames[2].symbol, ==, "symfix_static_helper");
    g_assert_cmpuint (rsp_symbolizer_resolve_callchain (sym, &ev, NULL, 0), ==, 0);
  }
  {
    /* A corrupt entry in the marker range ends the chain. */
    const guint64 chain[] = { PERF_CONTEXT_USER, f.c_function, G_MAXUINT64, f.c_function };
    RspEvent ev = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .pid = pid };
    ev.sample.callchain = chain;
    ev.sample.n_callchain = G_N_ELEMENTS (chain);
    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpstr (frames[0].symbol, ==, "symfix_c_function");
  }
  {
    /* Guest frames cannot be named, but they are frames. */
    const guint64 chain[] = { PERF_CONTEXT_GUEST_KERNEL, K (0x81000104), PERF_CONTEXT_KERNEL,
                              K (0x81000104) };
    RspEvent ev = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL, .pid = pid };
    ev.sample.callchain = chain;
    ev.sample.n_callchain = G_N_ELEMENTS (chain);
    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
    g_assert_cmpuint (n, ==, 2);
    g_assert_null (frames[0].symbol);
    g_assert_cmpstr (frames[1].symbol, ==, "small_fn");
  }
  {
    /* No callchain: the sampled address. */
    RspEvent ev = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .pid = pid };
    ev.sample.ip = f.cxx_method;
    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpstr (frames[0].symbol, ==, "ns::Klass::method(int)");
  }
  fixture_close (&f);
}

/* The unwinder hands libdwfl a binary's debug file only when the binary
 * has no .eh_frame of its own: the stripped library has one (it keeps the
 * loadable sections), its debug file has none with contents (objcopy
 * --only-keep-debug leaves it NOBITS), a file without sections has none. */
static void
test_unwind_eh_frame (void)
{
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  g_autofree char *debug = fixture_path ("libsymfix.debug");
  if (stripped == NULL || debug == NULL)
    {
      g_test_skip ("libsymfix-stripped.so or libsymfix.debug not built (no objcopy)");
      return;
    }
  elf_version (EV_CURRENT);
  const char *paths[] = { stripped, debug };
  const gboolean expect[] = { TRUE, FALSE };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      int fd = open (paths[i], O_RDONLY | O_CLOEXEC);
      g_assert_cmpint (fd, >=, 0);
      Elf *elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
      g_assert_nonnull (elf);
      g_assert_cmpint (rsp_unwind_elf_has_eh_frame (elf), ==, expect[i]);
      elf_end (elf);
      close (fd);
    }
  g_assert_false (rsp_unwind_elf_has_eh_frame (NULL));
  static const char not_elf[] = "not an ELF file at all";
  Elf *mem = elf_memory ((char *) not_elf, sizeof not_elf);
  g_assert_false (rsp_unwind_elf_has_eh_frame (mem));
  if (mem != NULL)
    elf_end (mem);
}

/* ------------------------------------------------------------------------ */
/* DWARF unwinding of a stack captured here                                 */

/* The 24 perf x86_64 registers as perf samples them (PERF_REG_X86_*). */
typedef struct {
  guint64 regs[PERF_REG_X86_64_MAX];
} RegsSnapshot;

/* Stores the caller's registers as they are when this call returns: IP is
 * the return address, SP the caller's SP after the return (as in perf's
 * own unwinding test, tools/perf/arch/x86/tests/regs_load.S). */
void rsp_test_regs_load (RegsSnapshot *regs);
__asm__ (".text\n"
         ".globl rsp_test_regs_load\n"
         ".type rsp_test_regs_load, @function\n"
         "rsp_test_regs_load:\n"
         ".cfi_startproc\n"
         "  movq %rax, 0(%rdi)\n"
         "  movq %rbx, 8(%rdi)\n"
         "  movq %rcx, 16(%rdi)\n"
         "  movq %rdx, 24(%rdi)\n"
         "  movq %rsi, 32(%rdi)\n"
         "  movq %rdi, 40(%rdi)\n"
         "  movq %rbp, 48(%rdi)\n"
         "  leaq 8(%rsp), %rax\n"
         "  movq %rax, 56(%rdi)\n"
         "  movq 0(%rsp), %rax\n"
         "  movq %rax, 64(%rdi)\n"
         "  movq $0, 72(%rdi)\n"
         "  movq %r8, 128(%rdi)\n"
         "  movq %r9, 136(%rdi)\n"
         "  movq %r10, 144(%rdi)\n"
         "  movq %r11, 152(%rdi)\n"
         "  movq %r12, 160(%rdi)\n"
         "  movq %r13, 168(%rdi)\n"
         "  movq %r14, 176(%rdi)\n"
         "  movq %r15, 184(%rdi)\n"
         "  movq 0(%rdi), %rax\n"
         "  ret\n"
         ".cfi_endproc\n"
         ".size rsp_test_regs_load, .-rsp_test_regs_load\n");

typedef struct {
  RegsSnapshot regs;
  guint8 *stack;
  gsize stack_size;
} Snapshot;

static guint64
stack_top (void)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_suffix (lines[i], "[stack]"))
      {
        const char *dash = strchr (lines[i], '-');
        return g_ascii_strtoull (dash + 1, NULL, 16);
      }
  return 0;
}

/* Byte by byte and uninstrumented: the stack has ASan red zones. */
__attribute__ ((no_sanitize_address, noinline)) static void
copy_stack (guint8 *dst, const volatile guint8 *src, gsize size)
{
  for (gsize i = 0; i < size; i++)
    dst[i] = src[i];
}

/* Real frames with their own names: no inlining, no tail calls (the empty
 * asm after each call), no ".constprop" clones. */
#if defined(__clang__)
#define FRAME_FUNCTION __attribute__ ((noinline))
#else
#define FRAME_FUNCTION __attribute__ ((noinline, noclone))
#endif
FRAME_FUNCTION void unwind_level3 (Snapshot *snap);
FRAME_FUNCTION void unwind_level2 (Snapshot *snap);
FRAME_FUNCTION void unwind_level1 (Snapshot *snap);

void
unwind_level3 (Snapshot *snap)
{
  guint64 top, sp;

  rsp_test_regs_load (&snap->regs);
  sp = snap->regs.regs[PERF_REG_X86_SP];
  top = stack_top ();
  snap->stack_size = top > sp ? MIN (top - sp, 64 * 1024) : 0;
  snap->stack = g_malloc (MAX (snap->stack_size, 1));
  copy_stack (snap->stack, (const volatile guint8 *) (gsize) sp, snap->stack_size);
  __asm__ volatile ("" ::: "memory");
}

void
unwind_level2 (Snapshot *snap)
{
  unwind_level3 (snap);
  __asm__ volatile ("" ::: "memory");
}

void
unwind_level1 (Snapshot *snap)
{
  unwind_level2 (snap);
  __asm__ volatile ("" ::: "memory");
}

static void
test_unwind_in_process (void)
{
  g_autoptr (RspSymbolizer) sym = rsp_symbolizer_new ();
  Snapshot snap = { 0 };
  guint64 regs[PERF_REG_X86_64_MAX];
  guint64 mask = 0;
  guint n_regs = 0, n;
  gint32 pid = getpid ();
  RspFrame frames[64];
  RspEvent ev = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .pid = pid };
  const guint64 chain[] = { PERF_CONTEXT_USER, 0x1234 };

  unwind_level1 (&snap);
  __asm__ volatile ("" ::: "memory");
  if (snap.stack_size == 0)
    {
      g_test_skip ("not on the main thread's stack");
      g_free (snap.stack);
      return;
    }

  /* perf's default user register set on x86_64: all but the segments. */
  for (guint r = 0; r < PERF_REG_X86_64_MAX; r++)
    {
      if (r >= PERF_REG_X86_CS && r <= PERF_REG_X86_GS)
        continue;
      mask |= G_GUINT64_CONSTANT (1) << r;
      regs[n_regs++] = snap.regs.regs[r];
    }
  ev.tid = (gint32) syscall (SYS_gettid);
  ev.sample.ip = snap.regs.regs[PERF_REG_X86_IP];
  ev.sample.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
  ev.sample.user_regs_mask = mask;
  ev.sample.user_regs = regs;
  ev.sample.user_stack = snap.stack;
  ev.sample.user_stack_size = snap.stack_size;
  ev.sample.user_stack_dyn_size = snap.stack_size;
  /* A bogus frame-pointer chain that the unwinder must replace. */
  ev.sample.callchain = chain;
  ev.sample.n_callchain = G_N_ELEMENTS (chain);

  g_assert_cmpuint (feed_self_maps (sym, pid, NULL, NULL), >, 2);
  n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
  for (guint i = 0; i < n; i++)
    g_test_message ("frame %u: %#" G_GINT64_MODIFIER "x %s (%s)", i, frames[i].ip,
                    frames[i].symbol != NULL ? frames[i].symbol : "?",
                    frames[i].dso != NULL ? frames[i].dso : "?");
  g_assert_cmpuint (n, >=, 4);
  g_assert_cmpuint (frames[0].ip, ==, snap.regs.regs[PERF_REG_X86_IP]);
  g_assert_cmpstr (frames[0].symbol, ==, "unwind_level3");
  g_assert_cmpstr (frames[1].symbol, ==, "unwind_level2");
  g_assert_cmpstr (frames[2].symbol, ==, "unwind_level1");
  g_assert_cmpstr (frames[3].symbol, ==, "test_unwind_in_process");
  /* Callers' addresses are the call instructions (return address - 1). */
  g_assert_cmpuint (frames[1].offset, >, 0);
  /* It went on into GLib's test runner and libc. */
  g_assert_cmpuint (n, >, 6);
  {
    gboolean found_main = FALSE;
    for (guint i = 0; i < n; i++)
      found_main |= frames[i].symbol != NULL && strcmp (frames[i].symbol, "main") == 0;
    g_assert_true (found_main);
  }

  /* The process exits: what was kept for it goes, and unwinding it again
   * (a sample ordered after its exit) starts afresh with the same result. */
  {
    RspEvent exit_ev = { .type = PERF_RECORD_EXIT, .pid = pid, .tid = pid };
    exit_ev.u.fork.pid = exit_ev.u.fork.tid = pid;
    exit_ev.u.fork.ppid = exit_ev.u.fork.ptid = 1;
    guint before = n;
    rsp_symbolizer_process_event (sym, &exit_ev);
    n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
    g_assert_cmpuint (n, ==, before);
    g_assert_cmpstr (frames[0].symbol, ==, "unwind_level3");
    g_assert_cmpstr (frames[3].symbol, ==, "test_unwind_in_process");
  }

  /* Unwinding off: the callchain as recorded. */
  rsp_symbolizer_set_dwarf_unwind (sym, FALSE);
  n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (frames[0].ip, ==, 0x1234);

  /* A stack copy cut short still gives the frames it holds. */
  rsp_symbolizer_set_dwarf_unwind (sym, TRUE);
  ev.sample.user_stack_dyn_size = 64;
  n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpstr (frames[0].symbol, ==, "unwind_level3");

  /* Garbage registers and stack: no crash, a few frames at most. */
  for (guint round = 0; round < 50; round++)
    {
      for (guint i = 0; i < n_regs; i++)
        regs[i] = round % 2 ? g_random_int () : ((guint64) g_random_int () << 32 | g_random_int ());
      for (gsize i = 0; i < 512 && i < snap.stack_size; i++)
        snap.stack[i] = (guint8) g_random_int ();
      ev.sample.user_stack_dyn_size = MIN (512, snap.stack_size);
      n = rsp_symbolizer_resolve_callchain (sym, &ev, frames, G_N_ELEMENTS (frames));
      g_assert_cmpuint (n, <=, G_N_ELEMENTS (frames));
    }
  g_free (snap.stack);
}

/* ------------------------------------------------------------------ ELF symbol cache */

/* A and B hold the same table, segments, build id and origin. */
static void
assert_same_elf (const RspElfFile *a, const RspElfFile *b)
{
  g_assert_cmpstr (a->path, ==, b->path);
  g_assert_cmpstr (a->syms_path, ==, b->syms_path);
  g_assert_cmpint (a->mini_debuginfo, ==, b->mini_debuginfo);
  g_assert_cmpmem (a->build_id, a->build_id_size, b->build_id, b->build_id_size);
  g_assert_cmpmem (a->segments, a->n_segments * sizeof (RspElfSegment), b->segments,
                   b->n_segments * sizeof (RspElfSegment));
  g_assert_cmpuint (a->n_syms, ==, b->n_syms);
  for (guint i = 0; i < a->n_syms; i++)
    {
      g_assert_cmpuint (a->syms[i].start, ==, b->syms[i].start);
      g_assert_cmpuint (a->syms[i].size, ==, b->syms[i].size);
      g_assert_cmpstr (a->syms[i].raw, ==, b->syms[i].raw);
    }
}

/* Loads PATH through a new ELF cache with its store in DIR, checks it
 * against a load straight from the files, and says whether it came from
 * the store. */
static gboolean
load_checked (const char *dir, const char *path)
{
  g_autoptr (RspElfCache) cache = rsp_elf_cache_new ();
  rsp_elf_cache_set_store_dir (cache, dir);
  const RspElfFile *got = rsp_elf_cache_load (cache, path, NULL, 0);
  g_autoptr (RspElfFile) direct = rsp_elf_file_load (path, NULL, 0, NULL);
  g_assert_nonnull (got);
  g_assert_nonnull (direct);
  assert_same_elf (got, direct);
  return rsp_elf_cache_n_from_store (cache) == 1;
}

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *contents = NULL;
  gsize length;
  g_assert_true (g_file_get_contents (from, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (to, contents, (gssize) length, NULL));
}

/* Writes to ENTRY the GOOD_LENGTH bytes of GOOD damaged at random: cut
 * short one time in ten (round I), and one to four bytes changed. */
static void
write_damaged (const char *entry, GRand *rand, guint i, const char *good, gsize good_length)
{
  g_autofree char *bad = g_memdup2 (good, good_length);
  gsize bad_length = i % 10 == 0 ? (gsize) g_rand_int_range (rand, 0, (gint32) good_length) : good_length;
  for (guint k = g_rand_int_range (rand, 1, 5); k > 0 && bad_length > 0; k--)
    bad[g_rand_int_range (rand, 0, (gint32) bad_length)] ^= (char) g_rand_int_range (rand, 1, 256);
  g_assert_true (g_file_set_contents (entry, bad, (gssize) bad_length, NULL));
}

/* The store's verdict, from a new cache each time (as a new report);
 * TRUE in *FROM_STORE when the store gave it.  Checked against the
 * verdict made afresh. */
static gboolean
verdict_checked (const char *dir, const char *path, const guint8 *id, guint id_size, gboolean by_path,
                 gboolean *from_store)
{
  g_autoptr (RspElfCache) cache = rsp_elf_cache_new ();
  rsp_elf_cache_set_store_dir (cache, dir);
  gboolean more = rsp_elf_cache_may_name_more (cache, path, id, id_size, by_path);
  g_assert_cmpint (more, ==, rsp_elf_may_name_more (path, id, id_size, by_path));
  *from_store = rsp_elf_cache_n_verdicts_from_store (cache) == 1;
  return more;
}

/* rsp_elf_may_name_more()'s verdict kept in the store: taken from there
 * while the binary and every debug file it looked for are as they were,
 * made again when one appears, goes or changes, or the entry is damaged;
 * beside the binary's symbol entry, not in its place. */
static void
test_elf_store_verdict (void)
{
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  g_autofree char *debug = fixture_path ("libsymfix.debug");
  g_autofree char *full = fixture_path ("libsymfix.so");
  if (stripped == NULL || debug == NULL || full == NULL)
    {
      g_test_skip ("the stripped and debug fixtures were not built (no objcopy)");
      return;
    }
  guint8 id[20];
  guint id_size;
  fixture_build_id (full, id, &id_size);
  g_autofree char *work = g_dir_make_tmp ("rsp-elf-verdict-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (work, "cache", "elf", NULL);
  g_autofree char *bin = g_build_filename (work, "libsymfix-stripped.so", NULL);
  g_autofree char *bin_debug = g_build_filename (work, "libsymfix.debug", NULL); /* its .gnu_debuglink */
  g_autofree char *entry = rsp_elf_store_verdict_path (store, bin, id, id_size, FALSE);
  gboolean from_store;
  copy_file (stripped, bin);

  /* no file descriptor left: the binary and the debug file beside it
   * cannot be opened, and what is made then (a verdict, a table) is marked
   * as such (rsp_elf_deps_unreadable(): not kept); a file that is not
   * there is not */
  copy_file (debug, bin_debug);
  for (guint low_fds = 0; low_fds < 2; low_fds++)
    {
      struct rlimit old, low;
      g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &old), ==, 0);
      int lowest = dup (0);
      g_assert_cmpint (lowest, >=, 0);
      close (lowest);
      low = old;
      low.rlim_cur = (rlim_t) lowest;
      g_autoptr (GArray) deps = rsp_elf_deps_new ();
      g_autoptr (GArray) load_deps = rsp_elf_deps_new ();
      if (low_fds)
        g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &low), ==, 0);
      gboolean more = rsp_elf_may_name_more_traced (bin, id, id_size, FALSE, deps);
      g_autoptr (RspElfFile) loaded = rsp_elf_file_load_traced (bin, NULL, 0, load_deps, NULL);
      if (low_fds)
        g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &old), ==, 0);
      g_assert_cmpint (rsp_elf_deps_unreadable (deps), ==, low_fds);
      g_assert_cmpint (more, ==, !low_fds); /* the debug file: found only with descriptors */
      g_assert_true (loaded == NULL || rsp_elf_deps_unreadable (load_deps) == (gboolean) low_fds);
    }
  g_unlink (bin_debug);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));

  /* stripped, no debug file: nothing more; kept, and taken from the store */
  g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_false (from_store);
  g_assert_true (g_file_test (entry, G_FILE_TEST_IS_REGULAR));
  g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_true (from_store);
  /* by path: an entry of its own */
  g_assert_false (verdict_checked (store, bin, id, id_size, TRUE, &from_store));
  g_assert_false (from_store);
  g_assert_false (verdict_checked (store, bin, id, id_size, TRUE, &from_store));
  g_assert_true (from_store);
  /* the binary's symbols have their entry still, beside the verdict */
  g_assert_false (load_checked (store, bin));
  g_assert_true (load_checked (store, bin));
  g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_true (from_store);

  /* the debug file appears: made again, TRUE; it goes: FALSE again */
  copy_file (debug, bin_debug);
  g_assert_true (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_false (from_store);
  g_assert_true (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_true (from_store);
  g_unlink (bin_debug);
  g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_false (from_store);
  /* the binary replaced by one with its .symtab (the same build id) */
  copy_file (full, bin);
  g_assert_true (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_false (from_store);
  g_assert_true (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_assert_true (from_store);

  /* damaged: made again, never a wrong verdict, never a crash */
  copy_file (stripped, bin);
  g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
  g_autofree char *good = NULL;
  gsize good_length;
  g_assert_true (g_file_get_contents (entry, &good, &good_length, NULL));
  GRand *rand = g_rand_new_with_seed (29);
  guint rebuilt = 0;
  for (guint i = 0; i < 300; i++)
    {
      write_damaged (entry, rand, i, good, good_length);
      g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
      rebuilt += !from_store;
      /* the verdict flag itself flipped (STORE_MORE) is caught by the hash */
    }
  g_rand_free (rand);
  g_test_message ("%u of 300 damaged verdict entries rebuilt", rebuilt);
  g_assert_cmpuint (rebuilt, ==, 300);
  /* an entry that is a link to a device that never ends, or a FIFO: not
   * read (no hang, no endless read), made again */
  for (guint k = 0; k < 2; k++)
    {
      g_unlink (entry);
      if (k == 0)
        g_assert_cmpint (symlink ("/dev/zero", entry), ==, 0);
      else
        g_assert_cmpint (mkfifo (entry, 0600), ==, 0);
      g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
      g_assert_false (from_store);
      g_assert_false (verdict_checked (store, bin, id, id_size, FALSE, &from_store));
      g_assert_true (from_store);
    }

  g_autoptr (GDir) d = g_dir_open (store, 0, NULL);
  for (const char *name; d != NULL && (name = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *path = g_build_filename (store, name, NULL);
      g_unlink (path);
    }
  g_autofree char *cache_dir = g_path_get_dirname (store);
  g_rmdir (store);
  g_rmdir (cache_dir);
  g_unlink (bin);
  g_rmdir (work);
}

typedef struct {
  const char *dir, *path;
} StoreJob;

static gpointer
store_thread (gpointer data)
{
  StoreJob *job = data;
  g_autoptr (RspElfCache) cache = rsp_elf_cache_new ();
  rsp_elf_cache_set_store_dir (cache, job->dir);
  for (int i = 0; i < 20; i++)
    g_assert_nonnull (rsp_elf_cache_load (cache, job->path, NULL, 0));
  return NULL;
}

/* Entries written by an older version of the store (another hash in
 * their names, so never opened again) are removed at the first save of a
 * process; the current version's stay.  In a subprocess: the store looks
 * at its directory once per process. */
static void
test_elf_store_old_versions (void)
{
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  if (stripped == NULL)
    {
      g_test_skip ("the stripped fixture was not built (no objcopy)");
      return;
    }
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  g_autofree char *work = g_dir_make_tmp ("rsp-elf-store-old-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (work, "cache", "elf", NULL);
  g_assert_cmpint (g_mkdir_with_parents (store, 0700), ==, 0);
  g_autofree char *old = g_build_filename (store, "noid-0123456789abcdef.syms", NULL);
  g_autofree char *old_verdict = g_build_filename (store, "noid-0123456789abcdef.v1.more", NULL);
  g_autofree char *other = g_build_filename (store, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (old, "RSPESYM\0old", 11, NULL));
  g_assert_true (g_file_set_contents (old_verdict, "RSPESYM\0old", 11, NULL));
  g_assert_true (g_file_set_contents (other, "not an entry", -1, NULL));
  g_autofree char *bin = g_build_filename (work, "libsymfix-stripped.so", NULL);
  copy_file (stripped, bin);
  g_assert_false (load_checked (store, bin)); /* read from the file, saved */
  g_autofree char *entry = rsp_elf_store_entry_path (store, bin, NULL, 0);
  g_assert_true (g_file_test (entry, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old_verdict, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  /* a verdict is an entry of its own kind */
  guint8 id[20];
  memset (id, 0x5a, sizeof id);
  g_autofree char *verdict = rsp_elf_store_verdict_path (store, bin, id, sizeof id, FALSE);
  g_assert_true (g_str_has_suffix (verdict, ".v2.more"));
  g_assert_true (g_str_has_suffix (entry, ".v2.syms"));
  g_assert_true (load_checked (store, bin));
  g_unlink (entry);
  g_unlink (other);
  g_unlink (bin);
  g_autofree char *cache = g_build_filename (work, "cache", NULL);
  g_rmdir (store);
  g_rmdir (cache);
  g_rmdir (work);
}

/* ELF symbol tables kept between runs: the second load of a binary comes
 * from the store and equals a load from the files; a debug file installed
 * since, a rebuilt binary at the same path, a truncated or damaged entry
 * each make it read again and rewritten; concurrent writers leave one whole
 * entry; a store that cannot be written only costs time; RSP_NO_CACHE
 * writes nothing. */
static void
test_elf_store (void)
{
  g_autofree char *stripped = fixture_path ("libsymfix-stripped.so");
  g_autofree char *debug = fixture_path ("libsymfix.debug");
  g_autofree char *mini = fixture_path ("libsymfix-mini.so");
  if (stripped == NULL || debug == NULL || mini == NULL)
    {
      g_test_skip ("the stripped, debug and MiniDebugInfo fixtures were not built (no objcopy or xz)");
      return;
    }
  g_autofree char *work = g_dir_make_tmp ("rsp-elf-store-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (work, "cache", "elf", NULL);
  g_autofree char *bin = g_build_filename (work, "libsymfix-stripped.so", NULL);
  g_autofree char *bin_debug = g_build_filename (work, "libsymfix.debug", NULL);
  g_autofree char *entry = rsp_elf_store_entry_path (store, bin, NULL, 0);
  copy_file (stripped, bin);

  /* stripped, no debug file beside it: .dynsym only */
  g_assert_false (load_checked (store, bin));
  g_assert_true (g_file_test (entry, G_FILE_TEST_IS_REGULAR));
  GStatBuf st;
  g_assert_cmpint (g_stat (entry, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0600);
  g_assert_true (load_checked (store, bin));

  /* the debug file appears: the entry is stale */
  copy_file (debug, bin_debug);
  g_assert_false (load_checked (store, bin));
  {
    g_autoptr (RspElfFile) now = rsp_elf_store_load (store, bin, NULL, 0);
    g_assert_nonnull (now);
    g_assert_true (g_str_has_suffix (now->syms_path, "libsymfix.debug"));
  }
  g_assert_true (load_checked (store, bin));
  /* ... and goes again */
  g_unlink (bin_debug);
  g_assert_false (load_checked (store, bin));
  g_assert_true (load_checked (store, bin));

  /* another binary at the same path */
  copy_file (mini, bin);
  g_assert_false (load_checked (store, bin));
  {
    g_autoptr (RspElfFile) now = rsp_elf_store_load (store, bin, NULL, 0);
    g_assert_nonnull (now);
    g_assert_true (now->mini_debuginfo);
  }
  g_assert_true (load_checked (store, bin));

  /* damaged entries: each read again and rewritten */
  g_autofree char *good = NULL;
  gsize good_length;
  g_assert_true (g_file_get_contents (entry, &good, &good_length, NULL));
  const char *damages[] = { "truncated", "empty", "version", "key", "a dependency", "a symbol", "the names", "grown" };
  for (guint d = 0; d < G_N_ELEMENTS (damages); d++)
    {
      g_autofree char *bad = g_malloc0 (good_length + 8);
      memcpy (bad, good, good_length);
      gsize bad_length = good_length;
      switch (d)
        {
        case 0: bad_length = good_length / 2; break;
        case 1: bad_length = 0; break;
        case 2: bad[8] ^= 1; break;                       /* StoreHeader.version */
        case 3: bad[72] ^= 1; break;                      /* StoreHeader.key */
        case 4: bad[88 + 8] ^= 0x10; break;               /* the first StoreDep's inode */
        case 5: bad[good_length - good_length / 3] ^= 0x20; break;
        case 6: bad[good_length - 9] ^= 0x41; break;
        default: memset (bad + good_length, 0, 8); bad_length += 8; break;
        }
      g_assert_true (g_file_set_contents (entry, bad, (gssize) bad_length, NULL));
      g_assert_false (load_checked (store, bin));
      g_assert_true (load_checked (store, bin));
      g_test_message ("an ELF symbol cache entry with %s damaged: rebuilt", damages[d]);
    }
  /* random damage: never a crash, never a wrong table */
  GRand *rand = g_rand_new_with_seed (16);
  for (guint i = 0; i < 300; i++)
    {
      write_damaged (entry, rand, i, good, good_length);
      g_autoptr (RspElfFile) got = rsp_elf_store_load (store, bin, NULL, 0);
      g_autoptr (RspElfFile) direct = rsp_elf_file_load (bin, NULL, 0, NULL);
      if (got != NULL)
        assert_same_elf (got, direct);
    }
  g_rand_free (rand);
  g_assert_false (load_checked (store, bin));

  /* RSP_NO_CACHE: nothing read or written under XDG_CACHE_HOME */
  g_autofree char *xdg_store = g_build_filename (g_get_user_cache_dir (), "rsp", "elf", NULL);
  g_autofree char *xdg_entry = rsp_elf_store_entry_path (xdg_store, bin, NULL, 0);
  g_setenv ("RSP_NO_CACHE", "1", TRUE);
  {
    g_autoptr (RspElfCache) cache = rsp_elf_cache_new ();
    g_assert_nonnull (rsp_elf_cache_load (cache, bin, NULL, 0));
  }
  g_assert_false (g_file_test (xdg_entry, G_FILE_TEST_EXISTS));
  g_unsetenv ("RSP_NO_CACHE");
  {
    g_autoptr (RspElfCache) cache = rsp_elf_cache_new ();
    g_assert_nonnull (rsp_elf_cache_load (cache, bin, NULL, 0));
  }
  g_assert_true (g_file_test (xdg_entry, G_FILE_TEST_IS_REGULAR));

  /* a store that cannot be written */
  g_assert_false (load_checked ("/proc/rsp-no-such-dir/elf", bin));
  g_assert_false (load_checked ("/proc/rsp-no-such-dir/elf", bin));

  /* concurrent writers of one entry */
  g_unlink (entry);
  StoreJob job = { store, bin };
  GThread *threads[4];
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("elf-store", store_thread, &job);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_true (load_checked (store, bin));

  g_unlink (xdg_entry);
  g_unlink (entry);
  g_unlink (bin);
  g_rmdir (store);
  g_autofree char *store_parent = g_path_get_dirname (store);
  g_rmdir (store_parent);
  g_rmdir (work);
}

/* The GNU build id among ELF notes (/sys/kernel/notes): found after other
 * notes, not taken from a note of another type or owner, and nothing from
 * damaged notes. */
static void
append_note (GByteArray *b, const char *name, guint32 type, const guint8 *desc, guint32 descsz)
{
  guint32 namesz = (guint32) strlen (name) + 1;
  guint32 head[3] = { namesz, descsz, type };
  static const guint8 zeros[4];
  g_byte_array_append (b, (const guint8 *) head, sizeof head);
  g_byte_array_append (b, (const guint8 *) name, namesz);
  g_byte_array_append (b, zeros, (4 - namesz % 4) % 4);
  g_byte_array_append (b, desc, descsz);
  g_byte_array_append (b, zeros, (4 - descsz % 4) % 4);
}

static void
test_kernel_notes (void)
{
  guint8 id[20], other[8], got[20];
  for (guint i = 0; i < sizeof id; i++)
    id[i] = (guint8) (0xa0 + i);
  memset (other, 0x55, sizeof other);
  guint size = 0;
  g_autoptr (GByteArray) b = g_byte_array_new ();
  append_note (b, "Xen", 1, other, 5);          /* another owner, an odd size */
  append_note (b, "GNU", 1, other, 4);          /* NT_GNU_ABI_TAG: not the id */
  append_note (b, "Linux", 3, other, sizeof other); /* type 3 of another owner */
  append_note (b, "GNU", 3, id, sizeof id);
  g_assert_true (rsp_elf_notes_build_id (b->data, b->len, got, &size));
  g_assert_cmpuint (size, ==, sizeof id);
  g_assert_cmpmem (got, size, id, sizeof id);
  /* cut anywhere inside the id's note: not found */
  for (guint cut = b->len - 1; cut > b->len - 40; cut--)
    g_assert_false (rsp_elf_notes_build_id (b->data, cut, got, &size));
  /* a size that runs past the end, and nothing at all */
  guint32 huge = G_MAXUINT32;
  memcpy (b->data + 4, &huge, 4);
  g_assert_false (rsp_elf_notes_build_id (b->data, b->len, got, &size));
  g_assert_false (rsp_elf_notes_build_id (NULL, 0, got, &size));
  /* the running kernel's, where it can be read */
  if (g_file_test ("/sys/kernel/notes", G_FILE_TEST_EXISTS))
    {
      g_assert_true (rsp_running_kernel_build_id (got, &size));
      g_assert_cmpuint (size, >, 0);
    }
  else
    g_test_message ("NOTE: no /sys/kernel/notes here: the running kernel's id was not read");
}

int
main (int argc, char **argv)
{
  /* the kernel symbol cache of these tests, not the user's */
  g_autofree char *cache_home = g_dir_make_tmp ("rsp-test-cache-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_unsetenv ("RSP_NO_CACHE");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/symbols/kallsyms/parse", test_kallsyms);
  g_test_add_func ("/symbols/kallsyms/interned", test_kallsyms_interned);
  g_test_add_func ("/symbols/kallsyms/errors", test_kallsyms_errors);
  g_test_add_func ("/symbols/kernel-notes", test_kernel_notes);
  g_test_add_func ("/symbols/kallsyms/proc", test_proc_kallsyms);
  g_test_add_func ("/symbols/kallsyms/cache", test_kallsyms_cache);
  g_test_add_func ("/symbols/elf/fixture", test_elf_fixture);
  g_test_add_func ("/symbols/elf/build-id", test_build_id);
  g_test_add_func ("/symbols/elf/debuglink", test_debuglink);
  g_test_add_func ("/symbols/elf/minidebuginfo", test_minidebuginfo);
  g_test_add_func ("/symbols/elf/store", test_elf_store);
  g_test_add_func ("/symbols/elf/store/old-versions", test_elf_store_old_versions);
  g_test_add_func ("/symbols/elf/store/verdict", test_elf_store_verdict);
  g_test_add_func ("/symbols/jitdump", test_jitdump);
  g_test_add_func ("/symbols/elf/damaged", test_bad_elf);
  g_test_add_func ("/symbols/stored/round-trip", test_stored_round_trip);
  g_test_add_func ("/symbols/stored/precedence", test_stored_precedence);
  g_test_add_func ("/symbols/stored/whole", test_stored_whole);
  g_test_add_func ("/symbols/stored/garbage", test_stored_garbage);
  g_test_add_func ("/symbols/stored/jit", test_stored_jit);
  g_test_add_func ("/symbols/stored/fuzz", test_stored_fuzz);
  g_test_add_func ("/symbols/maps/overlap", test_maps_overlap);
  g_test_add_func ("/symbols/maps/fork-exec", test_fork_exec);
  g_test_add_func ("/symbols/callchain/markers", test_callchain);
  g_test_add_func ("/symbols/callchain/token", test_callchain_token);
  g_test_add_func ("/symbols/callchain/shared", test_callchain_shared);
  g_test_add_func ("/symbols/unwind/in-process", test_unwind_in_process);
  g_test_add_func ("/symbols/unwind/eh-frame", test_unwind_eh_frame);

  return g_test_run ();
}
