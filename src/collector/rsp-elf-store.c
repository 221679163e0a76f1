/* rsp-elf-store.c — see rsp-elf-store.h.
 *
 * An entry, every integer in this machine's byte order (the cache never
 * leaves the machine), each part 8-byte aligned:
 *
 *   StoreHeader
 *   StoreDep[n_deps]        the files the load looked at
 *   RspElfSegment[n_segments]
 *   StoreSym[n_syms]        sorted by start, as RspElfFile keeps them
 *   strings                 NUL-terminated; the lookup key first
 *
 * Names stay in the mapping: a hit costs one mmap, a hash of the entry and
 * one RspSym per symbol, no ELF parsing and no sort.
 */
#include "rsp-elf-store.h"
#include "rsp-disk-cache.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define STORE_MAGIC "RSPESYM"
#define STORE_VERSION 2u /* 2: the four-lane hash of rsp-disk-cache.c */
/* Entries are named BUILDID-KEYHASH.vVERSION.syms: the hash in the name
 * changes with the hash function, so an older version's entries are never
 * opened again, and prune() removes them (version 1 wrote ".syms" alone). */
#define STORE_SUFFIX ".v2.syms"
#define VERDICT_SUFFIX ".v2.more"
#define STORE_NONE G_MAXUINT32 /* a string offset: no string */
#define STORE_MINI 1u          /* flags: symbols from MiniDebugInfo */
#define STORE_VERDICT 2u       /* flags: no symbols, a verdict of rsp_elf_may_name_more() ... */
#define STORE_MORE 4u          /* ... which is TRUE */
#define VERDICT_MAX_SIZE (64 << 10) /* a verdict's entry is read whole: a few hundred bytes */
#define STORE_MAX_ENTRIES 4000 /* past this, the oldest entries go ... */
#define STORE_KEEP_ENTRIES 3000 /* ... down to this many */

typedef struct {
  char magic[8];
  guint32 version;
  guint32 flags;
  guint32 n_deps, n_segments, n_syms, build_id_size;
  guint8 build_id[24];
  guint32 path, syms_path; /* string offsets, STORE_NONE for NULL */
  guint64 strings_size;
  guint64 key;  /* hash of the lookup key */
  guint64 body; /* hash of the whole entry, this field taken as 0 */
} StoreHeader;

typedef struct {
  guint64 dev, ino, size, mtime_ns, ctime_ns;
  guint32 path, present;
} StoreDep;

typedef struct {
  guint64 start, size;
  guint32 name, pad;
} StoreSym;

G_STATIC_ASSERT (sizeof (StoreHeader) == 88); /* no padding: it is hashed as it is */
G_STATIC_ASSERT (sizeof (StoreDep) % 8 == 0);
G_STATIC_ASSERT (sizeof (RspElfSegment) % 8 == 0);
G_STATIC_ASSERT (sizeof (StoreSym) % 8 == 0);

/* "PATH\nBUILD-ID-HEX" (or "-" without a build id): what an entry is for. */
static char *
lookup_key (const char *path, const guint8 *build_id, guint build_id_size)
{
  g_autofree char *hex = build_id_size > 0 ? rsp_build_id_to_hex (build_id, build_id_size)
                                           : g_strdup ("-");
  return g_strconcat (path, "\n", hex, NULL);
}

/* The lookup key of a verdict of rsp_elf_may_name_more() for PATH and
 * BUILD_ID (another entry than the symbols'): with BY_PATH and the home
 * directory, whose ~/.debug it looks in. */
static char *
verdict_key (const char *path, const guint8 *build_id, guint build_id_size, gboolean by_path)
{
  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  return g_strconcat (key, "\nmay name more", by_path ? " by path\n" : "\n", g_get_home_dir (), NULL);
}

/* The file of the entry for KEY.  Verdicts are files of their own kind,
 * ".more", kept apart from the symbol tables' ".syms" (prune() bounds
 * each kind alone: a few hundred bytes each, they must not push out tables
 * that cost a read of a binary). */
static char *
entry_path_for_key (const char *dir, const char *key, const guint8 *build_id, guint build_id_size,
                    gboolean verdict)
{
  g_autofree char *hex = build_id_size > 0 ? rsp_build_id_to_hex (build_id, build_id_size)
                                           : g_strdup ("noid");
  guint64 h = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key));
  g_autofree char *name = g_strdup_printf ("%s-%016" G_GINT64_MODIFIER "x%s", hex, h,
                                           verdict ? VERDICT_SUFFIX : STORE_SUFFIX);
  return g_build_filename (dir, name, NULL);
}

char *
rsp_elf_store_entry_path (const char *dir, const char *path, const guint8 *build_id,
                          guint build_id_size)
{
  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  return entry_path_for_key (dir, key, build_id, build_id_size, FALSE);
}

char *
rsp_elf_store_verdict_path (const char *dir, const char *path, const guint8 *build_id,
                            guint build_id_size, gboolean by_path)
{
  g_autofree char *key = verdict_key (path, build_id, build_id_size, by_path);
  return entry_path_for_key (dir, key, build_id, build_id_size, TRUE);
}

/* The hash of an entry: its header (with the hash taken as 0) and REST. */
static guint64
entry_hash (const StoreHeader *header, const void *rest, gsize rest_size)
{
  StoreHeader h = *header;
  h.body = 0;
  return rsp_disk_cache_hash (rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, &h, sizeof h), rest, rest_size);
}

/* ------------------------------------------------------------------ load */

static const char *
string_at (const char *strings, guint64 strings_size, guint32 at, gboolean *ok)
{
  if (at == STORE_NONE)
    return NULL;
  if (at >= strings_size)
    {
      *ok = FALSE;
      return NULL;
    }
  return strings + at;
}

/* An entry as mapped, its parts in place. */
typedef struct {
  GMappedFile *map; /* or ... */
  char *buffer;     /* ... the entry read whole */
  StoreHeader h;
  const StoreDep *deps;
  const RspElfSegment *segs;
  const StoreSym *syms;
  const char *strings;
} Entry;

static void
entry_clear (Entry *e)
{
  g_clear_pointer (&e->map, g_mapped_file_unref);
  g_clear_pointer (&e->buffer, g_free);
}

/* Opens the entry for KEY in DIR into E if it is whole (size, version,
 * key, strings, body hash) and current (every file it looked at as it
 * was): a symbol table mapped, a VERDICT read whole (a few hundred bytes:
 * mapping and unmapping them cost more than reading). */
static gboolean
entry_open (const char *dir, const char *key, const guint8 *build_id, guint build_id_size, gboolean verdict,
            Entry *e)
{
  *e = (Entry){ 0 };
  g_autofree char *entry = entry_path_for_key (dir, key, build_id, build_id_size, verdict);
  g_autoptr (GMappedFile) map = NULL;
  g_autofree char *buffer = NULL;
  gsize size = 0;
  const char *data;
  struct stat st;
  int fd = rsp_open_regular (entry, &st);
  if (fd < 0)
    return FALSE;
  if (verdict)
    {
      gsize got = 0;
      if (st.st_size <= VERDICT_MAX_SIZE)
        buffer = rsp_read_fd (fd, (gsize) st.st_size, &got);
      close (fd);
      if (buffer == NULL || got != (gsize) st.st_size)
        return FALSE;
      size = got;
      data = buffer;
    }
  else
    {
      map = g_mapped_file_new_from_fd (fd, FALSE, NULL);
      close (fd);
      if (map == NULL)
        return FALSE;
      size = g_mapped_file_get_length (map);
      data = g_mapped_file_get_contents (map);
    }
  StoreHeader h;
  if (size < sizeof h)
    return FALSE;
  memcpy (&h, data, sizeof h);
  if (memcmp (h.magic, STORE_MAGIC, sizeof STORE_MAGIC) != 0 || h.version != STORE_VERSION
      || h.build_id_size > 20)
    return FALSE;
  /* every count bounded by the size before it is multiplied */
  gsize rest = size - sizeof h;
  if (h.n_deps > rest / sizeof (StoreDep) || h.n_segments > rest / sizeof (RspElfSegment)
      || h.n_syms > rest / sizeof (StoreSym) || h.strings_size == 0 || h.strings_size > rest)
    return FALSE;
  gsize parts = (gsize) h.n_deps * sizeof (StoreDep) + (gsize) h.n_segments * sizeof (RspElfSegment)
                + (gsize) h.n_syms * sizeof (StoreSym);
  if (parts > rest || rest - parts != h.strings_size)
    return FALSE;
  if (h.key != rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key)))
    return FALSE;

  const StoreDep *deps = (const StoreDep *) (data + sizeof h); /* mmap is page-aligned, g_malloc 16-byte */
  const RspElfSegment *segs = (const RspElfSegment *) (deps + h.n_deps);
  const StoreSym *syms = (const StoreSym *) (segs + h.n_segments);
  const char *strings = (const char *) (syms + h.n_syms);
  if (strings[h.strings_size - 1] != '\0' || strcmp (strings, key) != 0)
    return FALSE;

  /* stale? (before the body's hash: the usual way an entry goes wrong) */
  gboolean ok = TRUE;
  for (guint32 i = 0; i < h.n_deps && ok; i++)
    {
      const char *dep_path = string_at (strings, h.strings_size, deps[i].path, &ok);
      if (!ok || dep_path == NULL)
        return FALSE;
      RspElfDep now;
      rsp_elf_dep_stat (dep_path, &now);
      RspElfDep then = { NULL, deps[i].present != 0, deps[i].dev, deps[i].ino, deps[i].size,
                         deps[i].mtime_ns, deps[i].ctime_ns };
      ok = rsp_elf_dep_equal (&now, &then);
      g_free (now.path);
    }
  if (!ok || h.n_deps == 0)
    return FALSE;
  if (map != NULL)
    rsp_disk_cache_populate (data, size);
  if (entry_hash (&h, data + sizeof h, size - sizeof h) != h.body)
    return FALSE;
  *e = (Entry){ g_steal_pointer (&map), g_steal_pointer (&buffer), h, deps, segs, syms, strings };
  return TRUE;
}

RspElfFile *
rsp_elf_store_load (const char *dir, const char *path, const guint8 *build_id,
                    guint build_id_size)
{
  g_return_val_if_fail (dir != NULL && path != NULL, NULL);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;

  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  Entry e;
  if (!entry_open (dir, key, build_id, build_id_size, FALSE, &e))
    return NULL;
  const StoreHeader h = e.h;
  gboolean ok = (h.flags & STORE_VERDICT) == 0;
  g_autoptr (RspElfFile) file = g_new0 (RspElfFile, 1);
  file->path = g_strdup (string_at (e.strings, h.strings_size, h.path, &ok));
  file->syms_path = g_strdup (string_at (e.strings, h.strings_size, h.syms_path, &ok));
  file->mini_debuginfo = (h.flags & STORE_MINI) != 0;
  file->build_id_size = h.build_id_size;
  memcpy (file->build_id, h.build_id, h.build_id_size);
  file->n_segments = h.n_segments;
  file->segments = g_memdup2 (e.segs, MAX ((gsize) h.n_segments * sizeof *e.segs, 1));
  file->n_syms = h.n_syms;
  file->syms = g_new (RspSym, MAX (h.n_syms, 1));
  for (guint32 i = 0; i < h.n_syms && ok; i++)
    {
      const char *name = string_at (e.strings, h.strings_size, e.syms[i].name, &ok);
      if (name == NULL || (i > 0 && e.syms[i].start < e.syms[i - 1].start))
        ok = FALSE;
      file->syms[i] = (RspSym){ e.syms[i].start, e.syms[i].size, name, NULL };
    }
  if (!ok)
    {
      entry_clear (&e);
      return NULL;
    }
  file->mapping = g_steal_pointer (&e.map);
  return g_steal_pointer (&file);
}

int
rsp_elf_store_load_verdict (const char *dir, const char *path, const guint8 *build_id,
                            guint build_id_size, gboolean by_path)
{
  g_return_val_if_fail (dir != NULL && path != NULL, -1);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;

  g_autofree char *key = verdict_key (path, build_id, build_id_size, by_path);
  Entry e;
  if (!entry_open (dir, key, build_id, build_id_size, TRUE, &e))
    return -1;
  int verdict = (e.h.flags & STORE_VERDICT) == 0 || e.h.n_syms != 0 || e.h.n_segments != 0 ? -1
                : (e.h.flags & STORE_MORE) != 0;
  entry_clear (&e);
  return verdict;
}

/* ------------------------------------------------------------------ save */

static guint32
add_string (GByteArray *strings, const char *s)
{
  guint32 at = strings->len;

  if (s == NULL)
    return STORE_NONE;
  g_byte_array_append (strings, (const guint8 *) s, strlen (s) + 1);
  return at;
}

typedef struct {
  GStatBuf st;
  char *path;
} EntryAge;

static gint
compare_mtime (gconstpointer a, gconstpointer b)
{
  const EntryAge *ea = *(EntryAge *const *) a;
  const EntryAge *eb = *(EntryAge *const *) b;
  if (ea->st.st_mtime != eb->st.st_mtime)
    return ea->st.st_mtime < eb->st.st_mtime ? -1 : 1;
  return 0;
}

static void
entry_age_free (gpointer data)
{
  EntryAge *e = data;
  g_free (e->path);
  g_free (e);
}

/* Keeps the directory from growing without bound: the entries of other
 * versions go, and past STORE_MAX_ENTRIES entries of a kind (symbol
 * tables, ".syms"; verdicts, ".more"), the least recently written. */
static void
prune (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  static const char *const kinds[][2] = { { ".syms", STORE_SUFFIX }, { ".more", VERDICT_SUFFIX } };
  g_autoptr (GPtrArray) syms = g_ptr_array_new_with_free_func (entry_age_free);
  g_autoptr (GPtrArray) verdicts = g_ptr_array_new_with_free_func (entry_age_free);
  GPtrArray *entries[2] = { syms, verdicts };
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        if (!g_str_has_suffix (name, kinds[k][0]))
          continue;
        EntryAge *e = g_new0 (EntryAge, 1);
        e->path = g_build_filename (dir, name, NULL);
        if (!g_str_has_suffix (name, kinds[k][1]))
          {
            g_unlink (e->path);
            entry_age_free (e);
            continue;
          }
        if (g_stat (e->path, &e->st) != 0)
          {
            entry_age_free (e);
            continue;
          }
        g_ptr_array_add (entries[k], e);
      }
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      if (entries[k]->len <= STORE_MAX_ENTRIES)
        continue;
      g_ptr_array_sort (entries[k], compare_mtime);
      for (guint i = 0; i + STORE_KEEP_ENTRIES < entries[k]->len; i++)
        g_unlink (((EntryAge *) entries[k]->pdata[i])->path);
    }
}

/* Writes the entry for KEY in DIR: header H (counts and hashes filled in
 * here), DEPS, N_SEGMENTS SEGMENTS, N_SYMS SYMS.  FALSE if it could not. */
static gboolean
entry_write (const char *dir, const char *key, const guint8 *build_id, guint build_id_size, StoreHeader h,
             const char *file_path, const char *syms_path, const GArray *deps, const RspElfSegment *segments,
             guint n_segments, const RspSym *syms, guint n_syms)
{
  g_autoptr (GByteArray) strings = g_byte_array_new ();
  h.version = STORE_VERSION;
  h.n_deps = deps->len;
  h.n_segments = n_segments;
  h.n_syms = n_syms;
  memcpy (h.magic, STORE_MAGIC, sizeof STORE_MAGIC);
  h.key = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key));
  add_string (strings, key);
  h.path = add_string (strings, file_path);
  h.syms_path = add_string (strings, syms_path);

  g_autofree StoreDep *sdeps = g_new0 (StoreDep, MAX (deps->len, 1));
  for (guint i = 0; i < deps->len; i++)
    {
      const RspElfDep *d = &g_array_index (deps, RspElfDep, i);
      sdeps[i] = (StoreDep){ d->dev, d->ino, d->size, d->mtime_ns, d->ctime_ns,
                             add_string (strings, d->path), d->present };
    }
  g_autofree StoreSym *ssyms = g_new0 (StoreSym, MAX (n_syms, 1));
  for (guint i = 0; i < n_syms; i++)
    {
      ssyms[i] = (StoreSym){ syms[i].start, syms[i].size, add_string (strings, syms[i].raw), 0 };
      if (strings->len >= STORE_NONE)
        return FALSE;
    }
  /* the strings end the entry: pad them so that its size stays a
   * multiple of 8 (no alignment is needed after them; this keeps
   * entries uniform) */
  while (strings->len % 8 != 0)
    g_byte_array_append (strings, (const guint8 *) "", 1);
  h.strings_size = strings->len;

  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  g_byte_array_append (out, (const guint8 *) sdeps, deps->len * sizeof (StoreDep));
  g_byte_array_append (out, (const guint8 *) segments, n_segments * sizeof (RspElfSegment));
  g_byte_array_append (out, (const guint8 *) ssyms, n_syms * sizeof (StoreSym));
  g_byte_array_append (out, strings->data, strings->len);
  h.body = entry_hash (&h, out->data + sizeof h, out->len - sizeof h);
  memcpy (out->data, &h, sizeof h);

  g_autofree char *entry = entry_path_for_key (dir, key, build_id, build_id_size, (h.flags & STORE_VERDICT) != 0);
  if (!rsp_disk_cache_write (dir, entry, out->data, out->len))
    return FALSE;
  /* once per process: a cold report writes an entry per binary, and one
   * look at the directory is enough to keep it bounded */
  static gsize pruned = 0;
  if (g_once_init_enter (&pruned))
    {
      prune (dir);
      g_once_init_leave (&pruned, 1);
    }
  return TRUE;
}

gboolean
rsp_elf_store_save (const char *dir, const char *path, const guint8 *build_id,
                    guint build_id_size, const RspElfFile *file, const GArray *deps)
{
  g_return_val_if_fail (dir != NULL && path != NULL && file != NULL && deps != NULL, FALSE);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;
  if (deps->len == 0 || file->image != NULL)
    return FALSE;

  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  StoreHeader h = { .build_id_size = MIN (file->build_id_size, 20) };
  memcpy (h.build_id, file->build_id, h.build_id_size);
  h.flags = file->mini_debuginfo ? STORE_MINI : 0;
  return entry_write (dir, key, build_id, build_id_size, h, file->path, file->syms_path, deps, file->segments,
                      file->n_segments, file->syms, file->n_syms);
}

gboolean
rsp_elf_store_save_verdict (const char *dir, const char *path, const guint8 *build_id,
                            guint build_id_size, gboolean by_path, gboolean more, const GArray *deps)
{
  g_return_val_if_fail (dir != NULL && path != NULL && deps != NULL, FALSE);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;
  if (deps->len == 0)
    return FALSE;

  g_autofree char *key = verdict_key (path, build_id, build_id_size, by_path);
  StoreHeader h = { .build_id_size = build_id_size, .flags = STORE_VERDICT | (more ? STORE_MORE : 0) };
  if (build_id_size > 0)
    memcpy (h.build_id, build_id, build_id_size);
  return entry_write (dir, key, build_id, build_id_size, h, NULL, NULL, deps, NULL, 0, NULL, 0);
}
