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

#define STORE_MAGIC "RSPESYM"
#define STORE_VERSION 2u /* 2: the four-lane hash of rsp-disk-cache.c */
/* Entries are named BUILDID-KEYHASH.vVERSION.syms: the hash in the name
 * changes with the hash function, so an older version's entries are never
 * opened again, and prune() removes them (version 1 wrote ".syms" alone). */
#define STORE_SUFFIX ".v2.syms"
#define STORE_NONE G_MAXUINT32 /* a string offset: no string */
#define STORE_MINI 1u          /* flags: symbols from MiniDebugInfo */
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

char *
rsp_elf_store_entry_path (const char *dir, const char *path, const guint8 *build_id,
                          guint build_id_size)
{
  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  g_autofree char *hex = build_id_size > 0 ? rsp_build_id_to_hex (build_id, build_id_size)
                                           : g_strdup ("noid");
  guint64 h = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key));
  g_autofree char *name = g_strdup_printf ("%s-%016" G_GINT64_MODIFIER "x" STORE_SUFFIX, hex, h);
  return g_build_filename (dir, name, NULL);
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

RspElfFile *
rsp_elf_store_load (const char *dir, const char *path, const guint8 *build_id,
                    guint build_id_size)
{
  g_return_val_if_fail (dir != NULL && path != NULL, NULL);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;

  g_autofree char *entry = rsp_elf_store_entry_path (dir, path, build_id, build_id_size);
  g_autoptr (GMappedFile) map = g_mapped_file_new (entry, FALSE, NULL);
  if (map == NULL)
    return NULL;
  gsize size = g_mapped_file_get_length (map);
  const char *data = g_mapped_file_get_contents (map);
  StoreHeader h;
  if (size < sizeof h)
    return NULL;
  memcpy (&h, data, sizeof h);
  if (memcmp (h.magic, STORE_MAGIC, sizeof STORE_MAGIC) != 0 || h.version != STORE_VERSION
      || h.build_id_size > 20)
    return NULL;
  /* every count bounded by the size before it is multiplied */
  gsize rest = size - sizeof h;
  if (h.n_deps > rest / sizeof (StoreDep) || h.n_segments > rest / sizeof (RspElfSegment)
      || h.n_syms > rest / sizeof (StoreSym) || h.strings_size == 0 || h.strings_size > rest)
    return NULL;
  gsize parts = (gsize) h.n_deps * sizeof (StoreDep) + (gsize) h.n_segments * sizeof (RspElfSegment)
                + (gsize) h.n_syms * sizeof (StoreSym);
  if (parts > rest || rest - parts != h.strings_size)
    return NULL;
  g_autofree char *key = lookup_key (path, build_id, build_id_size);
  if (h.key != rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key)))
    return NULL;

  const StoreDep *deps = (const StoreDep *) (data + sizeof h); /* mmap is page-aligned */
  const RspElfSegment *segs = (const RspElfSegment *) (deps + h.n_deps);
  const StoreSym *syms = (const StoreSym *) (segs + h.n_segments);
  const char *strings = (const char *) (syms + h.n_syms);
  if (strings[h.strings_size - 1] != '\0' || strcmp (strings, key) != 0)
    return NULL;

  /* stale? (before the body's hash: the usual way an entry goes wrong) */
  gboolean ok = TRUE;
  for (guint32 i = 0; i < h.n_deps && ok; i++)
    {
      const char *dep_path = string_at (strings, h.strings_size, deps[i].path, &ok);
      if (!ok || dep_path == NULL)
        return NULL;
      RspElfDep now;
      rsp_elf_dep_stat (dep_path, &now);
      RspElfDep then = { NULL, deps[i].present != 0, deps[i].dev, deps[i].ino, deps[i].size,
                         deps[i].mtime_ns, deps[i].ctime_ns };
      ok = rsp_elf_dep_equal (&now, &then);
      g_free (now.path);
    }
  if (!ok || h.n_deps == 0)
    return NULL;
  rsp_disk_cache_populate (data, size);
  if (entry_hash (&h, data + sizeof h, size - sizeof h) != h.body)
    return NULL;

  g_autoptr (RspElfFile) file = g_new0 (RspElfFile, 1);
  file->path = g_strdup (string_at (strings, h.strings_size, h.path, &ok));
  file->syms_path = g_strdup (string_at (strings, h.strings_size, h.syms_path, &ok));
  file->mini_debuginfo = (h.flags & STORE_MINI) != 0;
  file->build_id_size = h.build_id_size;
  memcpy (file->build_id, h.build_id, h.build_id_size);
  file->n_segments = h.n_segments;
  file->segments = g_memdup2 (segs, MAX ((gsize) h.n_segments * sizeof *segs, 1));
  file->n_syms = h.n_syms;
  file->syms = g_new (RspSym, MAX (h.n_syms, 1));
  for (guint32 i = 0; i < h.n_syms && ok; i++)
    {
      const char *name = string_at (strings, h.strings_size, syms[i].name, &ok);
      if (name == NULL || (i > 0 && syms[i].start < syms[i - 1].start))
        ok = FALSE;
      file->syms[i] = (RspSym){ syms[i].start, syms[i].size, name, NULL };
    }
  if (!ok)
    return NULL;
  file->mapping = g_steal_pointer (&map);
  return g_steal_pointer (&file);
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
 * versions go, and past STORE_MAX_ENTRIES entries, the least recently
 * written. */
static void
prune (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (entry_age_free);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      if (!g_str_has_suffix (name, ".syms"))
        continue;
      EntryAge *e = g_new0 (EntryAge, 1);
      e->path = g_build_filename (dir, name, NULL);
      if (!g_str_has_suffix (name, STORE_SUFFIX))
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
      g_ptr_array_add (entries, e);
    }
  if (entries->len <= STORE_MAX_ENTRIES)
    return;
  g_ptr_array_sort (entries, compare_mtime);
  for (guint i = 0; i + STORE_KEEP_ENTRIES < entries->len; i++)
    g_unlink (((EntryAge *) entries->pdata[i])->path);
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
  g_autoptr (GByteArray) strings = g_byte_array_new ();
  StoreHeader h = { .version = STORE_VERSION, .n_deps = deps->len,
                    .n_segments = file->n_segments, .n_syms = file->n_syms,
                    .build_id_size = MIN (file->build_id_size, 20) };
  memcpy (h.magic, STORE_MAGIC, sizeof STORE_MAGIC);
  memcpy (h.build_id, file->build_id, h.build_id_size);
  h.flags = file->mini_debuginfo ? STORE_MINI : 0;
  h.key = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, key, strlen (key));
  add_string (strings, key);
  h.path = add_string (strings, file->path);
  h.syms_path = add_string (strings, file->syms_path);

  g_autofree StoreDep *sdeps = g_new0 (StoreDep, MAX (deps->len, 1));
  for (guint i = 0; i < deps->len; i++)
    {
      const RspElfDep *d = &g_array_index (deps, RspElfDep, i);
      sdeps[i] = (StoreDep){ d->dev, d->ino, d->size, d->mtime_ns, d->ctime_ns,
                             add_string (strings, d->path), d->present };
    }
  g_autofree StoreSym *ssyms = g_new0 (StoreSym, MAX (file->n_syms, 1));
  for (guint i = 0; i < file->n_syms; i++)
    {
      ssyms[i] = (StoreSym){ file->syms[i].start, file->syms[i].size,
                             add_string (strings, file->syms[i].raw), 0 };
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
  g_byte_array_append (out, (const guint8 *) file->segments, file->n_segments * sizeof (RspElfSegment));
  g_byte_array_append (out, (const guint8 *) ssyms, file->n_syms * sizeof (StoreSym));
  g_byte_array_append (out, strings->data, strings->len);
  h.body = entry_hash (&h, out->data + sizeof h, out->len - sizeof h);
  memcpy (out->data, &h, sizeof h);

  g_autofree char *entry = rsp_elf_store_entry_path (dir, path, build_id, build_id_size);
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
