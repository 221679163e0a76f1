/* rsp-symbols-kernel.c — kernel symbol tables read from kallsyms text
 * (/proc/kallsyms, or the copy a recording carries), selected and fixed
 * up the way perf does it.
 */
#include "rsp-symbols-private.h"
#include "rsp-disk-cache.h"

#include <glib/gi18n-lib.h>
#include <elf.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Kernel                                                                   */

typedef struct {
  guint64 start;
  const char *name;
  const char *dso;
  guint32 index;
  guint8 binding;
} KsymTmp;

static gint
ksym_tmp_compare (gconstpointer pa, gconstpointer pb)
{
  const KsymTmp *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

gboolean
symbolizer_parse_hex (const char *s, gsize len, guint64 *value)
{
  guint64 v = 0;

  if (len == 0 || len > 16)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      int d = g_ascii_xdigit_value (s[i]);
      if (d < 0)
        return FALSE;
      v = (v << 4) | (guint) d;
    }
  *value = v;
  return TRUE;
}

/* perf keeps text, weak, data and bss symbols from kallsyms
 * (symbol_type__filter); data symbols only end the text before them. */
static gboolean
kallsyms_type_kept (char type)
{
  char t = g_ascii_toupper (type);
  return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

/* Drops the kallsyms table for one, read from SOURCE, whose raw names live
 * in NAMES or in MAP (may be NULL); the caller fills self->kallsyms in. */
static void
kallsyms_replace (RspSymbolizer *self, GStringChunk *names, GMappedFile *map, const char *source)
{
  symbolizer_kernel_table_forget_used (self, &self->kallsyms);
  symbolizer_kernel_table_clear (&self->kallsyms);
  g_string_chunk_free (self->raw_names);
  self->raw_names = names;
  g_clear_pointer (&self->kallsyms_cache, g_mapped_file_unref);
  self->kallsyms_cache = map;
  self->kernel_source = source;
}

gboolean
rsp_symbolizer_load_kallsyms (RspSymbolizer *self, const char *text, gsize length,
                              GError **error)
{
  g_autoptr (GArray) tmp = g_array_new (FALSE, FALSE, sizeof (KsymTmp));
  /* Names go to a new chunk: the current table stays intact if this text
   * turns out unusable. */
  GStringChunk *names = g_string_chunk_new (256 * 1024);
  const char *p = text, *end = text + length;
  const char *kernel_dso;
  gboolean any_nonzero = FALSE;
  guint lines = 0; /* lines with an address */
  KsymTmp *v;
  guint out;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (text != NULL || length == 0, FALSE);

  kernel_dso = symbolizer_intern (self, KERNEL_DSO);
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end = nl != NULL ? nl : end;
      const char *sp1, *name, *name_end, *tab;
      guint64 addr;
      char type;
      KsymTmp t;

      /* "ffffffff81000000 T _stext" or "... t name\t[module]" */
      sp1 = memchr (p, ' ', line_end - p);
      if (sp1 == NULL || !symbolizer_parse_hex (p, sp1 - p, &addr) || line_end - sp1 < 4 || sp1[2] != ' ')
        goto next;
      lines++;
      type = sp1[1];
      if (addr != 0)
        any_nonzero = TRUE;
      if (!kallsyms_type_kept (type))
        goto next;
      name = sp1 + 3;
      tab = memchr (name, '\t', line_end - name);
      name_end = tab != NULL ? tab : line_end;
      if (name_end > name && name_end[-1] == '\r')
        name_end--;
      if (name_end == name || memchr (name, '\0', name_end - name) != NULL)
        goto next;
      t.dso = kernel_dso;
      if (tab != NULL)
        {
          const char *mod = tab + 1, *mod_end = line_end;
          while (mod_end > mod && (mod_end[-1] == '\r' || mod_end[-1] == ' '))
            mod_end--;
          if (mod_end - mod > 2 && mod[0] == '[' && mod_end[-1] == ']' &&
              memchr (mod, '\0', mod_end - mod) == NULL)
            t.dso = symbolizer_intern_len (self, mod, mod_end - mod);
        }
      t.start = addr;
      t.name = g_string_chunk_insert_len (names, name, name_end - name);
      t.index = tmp->len;
      t.binding = type == 'W' ? STB_WEAK : g_ascii_isupper (type) ? STB_GLOBAL : STB_LOCAL;
      g_array_append_val (tmp, t);
    next:
      p = nl != NULL ? nl + 1 : end;
    }

  if (lines > 0 && !any_nonzero)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN,
                   _("kernel addresses in kallsyms are all zero (hidden)"));
      g_string_chunk_free (names);
      return FALSE;
    }
  if (tmp->len == 0)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("no kernel symbols in kallsyms text"));
      g_string_chunk_free (names);
      return FALSE;
    }

  g_array_sort (tmp, ksym_tmp_compare);
  v = (KsymTmp *) tmp->data;

  /* perf's symbols__fixup_end for kallsyms: a symbol ends where the next
   * begins, except the last one before the kernel/module boundary, which
   * gets to the end of its next page. */
  {
    g_autofree guint64 *sizes = g_new0 (guint64, tmp->len);
    for (guint i = 0; i < tmp->len; i++)
      {
        if (i + 1 == tmp->len)
          sizes[i] = (v[i].start / 4096 + 1) * 4096 + 4096 - v[i].start;
        else if ((v[i].dso == kernel_dso) != (v[i + 1].dso == kernel_dso))
          sizes[i] = ((v[i].start + 4096 + 4095) / 4096) * 4096 - v[i].start;
        else
          sizes[i] = v[i + 1].start - v[i].start;
      }

    /* symbols__fixup_duplicate: one symbol per address. */
    out = 0;
    for (guint i = 0; i < tmp->len; i++)
      {
        if (out > 0 && v[out - 1].start == v[i].start)
          {
            if (rsp_sym_prefer_first (v[out - 1].name, sizes[out - 1], v[out - 1].binding,
                                      v[i].name, sizes[i], v[i].binding))
              continue;
            out--;
          }
        v[out] = v[i];
        sizes[out] = sizes[i];
        out++;
      }

    kallsyms_replace (self, names, NULL, "text");
    self->kallsyms.syms = g_new (RspSym, out);
    self->kallsyms.dsos = g_new (const char *, out);
    self->kallsyms.n = out;
    for (guint i = 0; i < out; i++)
      {
        self->kallsyms.syms[i] = (RspSym){ v[i].start, sizes[i], v[i].name, NULL };
        self->kallsyms.dsos[i] = v[i].dso;
      }
  }

  symbolizer_cache_clear (self);
  return TRUE;
}

/* ------------------------------------------------------------------ cache */

/* An entry of the kernel symbol cache: this header, N entries, then the
 * names (NUL-terminated, NAMES_SIZE bytes); every integer in this
 * machine's byte order (the cache never leaves the machine). */
#define KCACHE_MAGIC "RSPKSYM"
#define KCACHE_VERSION 3u /* 2: the word-wise hash of rsp-disk-cache.c; 3: its four lanes */

typedef struct {
  char magic[8];
  guint32 version;
  guint32 n;
  guint64 names_size;
  guint64 key;  /* hash of the boot id and /proc/modules */
  guint64 body; /* hash of everything after the header */
} KcacheHeader;

/* then KcacheEntry[n] (rsp-symbols-private.h) */

/* The cache key of this boot with its modules, and the entry's path in
 * CACHE_DIR; FALSE when the boot id cannot be read. */
static gboolean
kcache_key (const char *cache_dir, const char *source, guint64 *key, char **path)
{
  g_autofree char *boot = NULL, *modules = NULL;
  gsize boot_len = 0, modules_len = 0;
  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot, &boot_len, NULL))
    return FALSE;
  g_strstrip (boot);
  if (*boot == '\0' || strchr (boot, '/') != NULL)
    return FALSE;
  /* a module loaded since changes /proc/kallsyms, and this */
  if (!g_file_get_contents ("/proc/modules", &modules, &modules_len, NULL))
    modules_len = 0;
  guint64 h = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, boot, strlen (boot));
  h = rsp_disk_cache_hash (h, source, strlen (source) + 1);
  *key = rsp_disk_cache_hash (h, modules != NULL ? modules : "", modules_len);
  g_autofree char *name = g_strdup_printf ("kallsyms-%s.cache", boot);
  *path = g_build_filename (cache_dir, name, NULL);
  return TRUE;
}

/* The table from the cache entry at PATH if it is whole and for KEY. */
static gboolean
kcache_load (RspSymbolizer *self, const char *path, guint64 key)
{
  g_autoptr (GMappedFile) map = g_mapped_file_new (path, FALSE, NULL);
  if (map == NULL)
    return FALSE;
  gsize size = g_mapped_file_get_length (map);
  const char *data = g_mapped_file_get_contents (map);
  if (size < sizeof (KcacheHeader))
    return FALSE;
  KcacheHeader h;
  memcpy (&h, data, sizeof h);
  if (memcmp (h.magic, KCACHE_MAGIC, sizeof KCACHE_MAGIC) != 0 || h.version != KCACHE_VERSION || h.key != key
      || h.n == 0 || h.names_size == 0 || h.n > (size - sizeof h) / sizeof (KcacheEntry)
      || h.names_size != size - sizeof h - (gsize) h.n * sizeof (KcacheEntry))
    return FALSE;
  rsp_disk_cache_populate (data, size);
  if (rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, data + sizeof h, size - sizeof h) != h.body)
    return FALSE;
  const KcacheEntry *e = (const KcacheEntry *) (data + sizeof h); /* the header keeps it 8-aligned */
  const char *names = data + sizeof h + (gsize) h.n * sizeof (KcacheEntry);
  if (names[h.names_size - 1] != '\0')
    return FALSE;
  for (guint32 i = 0; i < h.n; i++)
    if (e[i].name >= h.names_size || (e[i].dso != KCACHE_KERNEL && e[i].dso >= h.names_size)
        || (i > 0 && e[i].start <= e[i - 1].start))
      return FALSE;

  /* the table stays in the mapping; symbols are made as lookups find them */
  kallsyms_replace (self, g_string_chunk_new (64), g_steal_pointer (&map), "cache");
  KernelTable *t = &self->kallsyms;
  t->entries = e;
  t->n_entries = h.n;
  t->names = names;
  t->names_size = h.names_size;
  t->made = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  symbolizer_cache_clear (self);
  return TRUE;
}

/* Writes the kallsyms table as the cache entry at PATH; FALSE (and
 * nothing left behind) if it cannot. */
static gboolean
kcache_write (RspSymbolizer *self, const char *cache_dir, const char *path, guint64 key)
{
  const KernelTable *t = &self->kallsyms;
  const char *kernel_dso = symbolizer_intern (self, KERNEL_DSO);
  g_autoptr (GByteArray) names = g_byte_array_new ();
  g_autoptr (GHashTable) dso_at = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autofree KcacheEntry *e = g_new (KcacheEntry, MAX (t->n, 1));
  for (guint i = 0; i < t->n; i++)
    {
      e[i].start = t->syms[i].start;
      e[i].size = t->syms[i].size;
      e[i].name = names->len;
      g_byte_array_append (names, (const guint8 *) t->syms[i].raw, strlen (t->syms[i].raw) + 1);
      if (t->dsos[i] == kernel_dso)
        e[i].dso = KCACHE_KERNEL;
      else
        {
          gpointer at;
          if (!g_hash_table_lookup_extended (dso_at, t->dsos[i], NULL, &at))
            {
              at = GUINT_TO_POINTER (names->len);
              g_byte_array_append (names, (const guint8 *) t->dsos[i], strlen (t->dsos[i]) + 1);
              g_hash_table_insert (dso_at, (gpointer) t->dsos[i], at);
            }
          e[i].dso = GPOINTER_TO_UINT (at);
        }
      if (names->len >= KCACHE_KERNEL)
        return FALSE;
    }
  KcacheHeader h = { .version = KCACHE_VERSION, .n = t->n, .names_size = names->len, .key = key };
  memcpy (h.magic, KCACHE_MAGIC, sizeof KCACHE_MAGIC);
  g_autoptr (GByteArray) out = g_byte_array_sized_new (sizeof h + t->n * sizeof *e + names->len);
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  g_byte_array_append (out, (const guint8 *) e, t->n * sizeof *e);
  g_byte_array_append (out, names->data, names->len);
  h.body = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, out->data + sizeof h, out->len - sizeof h);
  memcpy (out->data, &h, sizeof h);
  return rsp_disk_cache_write (cache_dir, path, out->data, out->len);
}

gboolean
rsp_symbolizer_load_kallsyms_file_cached (RspSymbolizer *self, const char *source, const char *cache_dir,
                                          GError **error)
{
  g_autofree char *text = NULL, *path = NULL;
  gsize length = 0;
  guint64 key = 0;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (self != NULL && source != NULL, FALSE);
  gboolean cached = cache_dir != NULL && kcache_key (cache_dir, source, &key, &path);
  if (cached && kcache_load (self, path, key))
    return TRUE;
  if (!g_file_get_contents (source, &text, &length, &local))
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_IO, _("cannot read %s: %s"), source,
                   local->message);
      return FALSE;
    }
  if (!rsp_symbolizer_load_kallsyms (self, text, length, &local))
    {
      if (g_error_matches (local, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN))
        g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN,
                     _("kernel addresses in %s are hidden; run as root or set sysctl kernel.kptr_restrict=0"),
                     source);
      else
        g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", source);
      return FALSE;
    }
  self->kernel_source = "kallsyms";
  if (cached)
    kcache_write (self, cache_dir, path, key);
  return TRUE;
}

gboolean
rsp_symbolizer_load_proc_kallsyms_cached (RspSymbolizer *self, const char *cache_dir, GError **error)
{
  return rsp_symbolizer_load_kallsyms_file_cached (self, "/proc/kallsyms", cache_dir, error);
}

gboolean
rsp_symbolizer_load_proc_kallsyms (RspSymbolizer *self, GError **error)
{
  g_autofree char *dir = rsp_disk_cache_dir ();
  return rsp_symbolizer_load_proc_kallsyms_cached (self, dir, error);
}

const char *
rsp_symbolizer_kernel_source (RspSymbolizer *self)
{
  return self->kernel_source;
}
