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
  g_clear_pointer (&self->kcache_origin, symbolizer_kcache_origin_free);
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

/* An entry of the kernel symbol cache: this header, the index of the
 * entries' blocks (KcacheBlock[n_blocks]), the N entries (KcacheEntry),
 * then the names (NUL-terminated, NAMES_SIZE bytes): first the modules'
 * (DSOS_SIZE bytes), then the symbols' in the entries' order, so that a
 * block's names lie together.  Every integer in this machine's byte order
 * (the cache never leaves the machine).  What a load reads at once — the
 * header, the index and the modules' names — is checked then; each block
 * when a lookup first lands in it (symbolizer_kcache_find()). */
#define KCACHE_MAGIC "RSPKSYM"
#define KCACHE_VERSION 5u /* 2: the word-wise hash of rsp-disk-cache.c; 3: its four lanes; 4: blocks; 5: of 32 */

typedef struct {
  char magic[8];
  guint32 version;
  guint32 n;
  guint64 names_size;
  guint64 key;  /* hash of the boot id and /proc/modules */
  guint32 n_blocks;
  guint32 dsos_size;
  guint64 head; /* hash of the index, then of the modules' names */
} KcacheHeader;

/* Where a mapped table's entry came from (the symbolizer's kcache_origin). */
typedef struct _KcacheOrigin {
  char *source; /* the kallsyms text */
  char *dir, *path;
  guint64 key;
} KcacheOrigin;

void
symbolizer_kcache_origin_free (KcacheOrigin *origin)
{
  if (origin == NULL)
    return;
  g_free (origin->source);
  g_free (origin->dir);
  g_free (origin->path);
  g_free (origin);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KcacheOrigin, symbolizer_kcache_origin_free)

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

static guint32
kcache_n_blocks (guint32 n)
{
  return n / KCACHE_BLOCK + (n % KCACHE_BLOCK != 0);
}

static guint64
kcache_block_hash (const KcacheEntry *e, guint32 n, const char *names, const KcacheBlock *block)
{
  guint64 h = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, e, (gsize) n * sizeof *e);
  return rsp_disk_cache_hash (h, names + block->names_from, block->names_to - block->names_from);
}

/* The table from the cache entry at PATH if its header, index and
 * modules' names are whole and it is for KEY; its blocks are checked when
 * used. */
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
      || h.n == 0 || h.names_size == 0 || h.names_size > size || h.n_blocks != kcache_n_blocks (h.n)
      || h.dsos_size >= h.names_size
      || (guint64) size != sizeof h + (guint64) h.n_blocks * sizeof (KcacheBlock)
                               + (guint64) h.n * sizeof (KcacheEntry) + h.names_size)
    return FALSE;
  /* the header keeps what follows it 8-aligned */
  const KcacheBlock *blocks = (const KcacheBlock *) (data + sizeof h);
  const KcacheEntry *e = (const KcacheEntry *) (blocks + h.n_blocks);
  const char *names = (const char *) (e + h.n);
  guint64 head = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, blocks, (gsize) h.n_blocks * sizeof *blocks);
  if (rsp_disk_cache_hash (head, names, h.dsos_size) != h.head || names[h.names_size - 1] != '\0'
      || (h.dsos_size > 0 && names[h.dsos_size - 1] != '\0'))
    return FALSE;
  /* the blocks in order, their names one after the other from the
   * modules' to the end */
  for (guint32 b = 0; b < h.n_blocks; b++)
    if (blocks[b].names_from >= blocks[b].names_to
        || blocks[b].names_from != (b == 0 ? h.dsos_size : blocks[b - 1].names_to)
        || (b > 0 && blocks[b].first <= blocks[b - 1].first))
      return FALSE;
  if (blocks[h.n_blocks - 1].names_to != h.names_size)
    return FALSE;

  /* the table stays in the mapping; symbols are made as lookups find them */
  kallsyms_replace (self, g_string_chunk_new (64), g_steal_pointer (&map), "cache");
  KernelTable *t = &self->kallsyms;
  t->entries = e;
  t->n_entries = h.n;
  t->names = names;
  t->names_size = h.names_size;
  t->blocks = blocks;
  t->n_blocks = h.n_blocks;
  t->block_state = g_new0 (guint8, h.n_blocks);
  t->dsos_size = h.dsos_size;
  t->made = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  symbolizer_cache_clear (self);
  return TRUE;
}

/* Whether block B of T is sound: its hash, its entries' names within its
 * names, their modules among the modules' names, its entries in order
 * from its first start to before the next block's.  Checked once. */
static gboolean
kcache_block_sound (KernelTable *t, guint b)
{
  if (t->block_state[b] != KCACHE_BLOCK_UNCHECKED)
    return t->block_state[b] == KCACHE_BLOCK_SOUND;
  const KcacheBlock *block = &t->blocks[b];
  guint32 from = b * KCACHE_BLOCK, to = MIN (t->n_entries, from + KCACHE_BLOCK);
  const KcacheEntry *e = t->entries;
  gboolean sound = kcache_block_hash (e + from, to - from, t->names, block) == block->hash
                   && t->names[block->names_to - 1] == '\0'
                   && (b + 1 == t->n_blocks || e[to - 1].start < t->blocks[b + 1].first);
  for (guint32 i = from; sound && i < to; i++)
    sound = e[i].name >= block->names_from && e[i].name < block->names_to
            && (e[i].dso == KCACHE_KERNEL || e[i].dso < t->dsos_size)
            && (i == from ? e[i].start == block->first : e[i].start > e[i - 1].start);
  t->block_state[b] = sound ? KCACHE_BLOCK_SOUND : KCACHE_BLOCK_DAMAGED;
  return sound;
}

/* A used symbol of the mapped table, to be found again in the one made
 * from the text. */
typedef struct {
  guint64 start;
  const char *raw; /* in the mapping, kept until the symbols are found */
} UsedKsym;

static gboolean kallsyms_load_text (RspSymbolizer *self, const char *source, GError **error);
static gboolean kcache_write (RspSymbolizer *self, const char *cache_dir, const char *path, guint64 key);

/* A block of the mapped table is damaged: the table is made again from
 * the text it was cached from and the entry written again, the symbols
 * used so far marked used in the new table (the names handed out are
 * interned: they stay valid).  FALSE, the mapped table kept, if the text
 * cannot be read now. */
static gboolean
kcache_recover (RspSymbolizer *self)
{
  g_autoptr (KcacheOrigin) origin = g_steal_pointer (&self->kcache_origin);
  if (origin == NULL)
    return FALSE;
  /* the mapping stays until the used symbols are found again */
  g_autoptr (GMappedFile) map = g_mapped_file_ref (self->kallsyms_cache);
  (void) map; /* held, not read */
  g_autoptr (GArray) used = g_array_new (FALSE, FALSE, sizeof (UsedKsym));
  if (g_hash_table_size (self->used) > 0)
    {
      GHashTableIter it;
      gpointer value;
      g_hash_table_iter_init (&it, self->kallsyms.made);
      while (g_hash_table_iter_next (&it, NULL, &value))
        {
          const RspSym *sym = &((MappedKsym *) value)->sym;
          if (g_hash_table_contains (self->used, sym))
            g_array_append_val (used, ((UsedKsym){ sym->start, sym->raw }));
        }
    }
  if (!kallsyms_load_text (self, origin->source, NULL))
    return FALSE;
  const KernelTable *t = &self->kallsyms;
  for (guint i = 0; i < used->len; i++)
    {
      /* the symbol of that start and name (of those that share a start) */
      const UsedKsym *u = &g_array_index (used, UsedKsym, i);
      for (guint k = rsp_sym_count_at_or_below (t->syms, sizeof *t->syms, t->n, u->start);
           k > 0 && t->syms[k - 1].start == u->start; k--)
        if (strcmp (t->syms[k - 1].raw, u->raw) == 0)
          {
            g_hash_table_insert (self->used, (gpointer) &t->syms[k - 1], NULL);
            break;
          }
    }
  kcache_write (self, origin->dir, origin->path, origin->key);
  return TRUE;
}

gboolean
symbolizer_kcache_find (RspSymbolizer *self, KernelTable *t, guint64 ip, gssize *index)
{
  *index = -1;
  /* the block with the last start at or below IP (blocks begin with it) */
  G_STATIC_ASSERT (G_STRUCT_OFFSET (KcacheBlock, first) == 0);
  guint lo = rsp_sym_count_at_or_below (t->blocks, sizeof *t->blocks, t->n_blocks, ip);
  if (lo == 0)
    return TRUE;
  /* the search looks back a few entries for a symbol that contains IP
   * (rsp_sym_range_find): the block before is read too */
  guint last = lo - 1, first = last > 0 ? last - 1 : 0;
  for (guint b = first; b <= last; b++)
    if (!kcache_block_sound (t, b))
      return !kcache_recover (self);
  guint32 from = first * KCACHE_BLOCK, to = MIN (t->n_entries, (last + 1) * KCACHE_BLOCK);
  gssize i = rsp_sym_range_find (t->entries + from, sizeof *t->entries, to - from, ip);
  *index = i >= 0 ? (gssize) from + i : -1;
  return TRUE;
}

/* Writes the kallsyms table as the cache entry at PATH; FALSE (and
 * nothing left behind) if it cannot. */
static gboolean
kcache_write (RspSymbolizer *self, const char *cache_dir, const char *path, guint64 key)
{
  const KernelTable *t = &self->kallsyms;
  const char *kernel_dso = symbolizer_intern (self, KERNEL_DSO);
  if (t->n == 0 || t->n > G_MAXUINT32 - KCACHE_BLOCK)
    return FALSE;
  /* the modules' names first, then the symbols' */
  g_autoptr (GByteArray) names = g_byte_array_new ();
  g_autoptr (GHashTable) dso_at = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autofree KcacheEntry *e = g_new (KcacheEntry, t->n);
  for (guint i = 0; i < t->n; i++)
    {
      gpointer at = GUINT_TO_POINTER (KCACHE_KERNEL);
      if (t->dsos[i] != kernel_dso && !g_hash_table_lookup_extended (dso_at, t->dsos[i], NULL, &at))
        {
          at = GUINT_TO_POINTER (names->len);
          g_byte_array_append (names, (const guint8 *) t->dsos[i], strlen (t->dsos[i]) + 1);
          g_hash_table_insert (dso_at, (gpointer) t->dsos[i], at);
        }
      e[i].dso = GPOINTER_TO_UINT (at);
    }
  guint32 dsos_size = names->len;
  guint32 n_blocks = kcache_n_blocks (t->n);
  g_autofree KcacheBlock *blocks = g_new0 (KcacheBlock, n_blocks);
  for (guint i = 0; i < t->n; i++)
    {
      if (i % KCACHE_BLOCK == 0)
        {
          blocks[i / KCACHE_BLOCK].first = t->syms[i].start;
          blocks[i / KCACHE_BLOCK].names_from = names->len;
        }
      e[i].start = t->syms[i].start;
      e[i].size = t->syms[i].size;
      e[i].name = names->len;
      g_byte_array_append (names, (const guint8 *) t->syms[i].raw, strlen (t->syms[i].raw) + 1);
      if (names->len >= KCACHE_KERNEL)
        return FALSE;
      blocks[i / KCACHE_BLOCK].names_to = names->len;
    }
  for (guint32 b = 0; b < n_blocks; b++)
    {
      guint32 from = b * KCACHE_BLOCK;
      blocks[b].hash = kcache_block_hash (e + from, MIN (t->n - from, KCACHE_BLOCK), (const char *) names->data,
                                          &blocks[b]);
    }
  KcacheHeader h = { .version = KCACHE_VERSION, .n = t->n, .names_size = names->len, .key = key,
                     .n_blocks = n_blocks, .dsos_size = dsos_size };
  memcpy (h.magic, KCACHE_MAGIC, sizeof KCACHE_MAGIC);
  h.head = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT, blocks, (gsize) n_blocks * sizeof *blocks);
  h.head = rsp_disk_cache_hash (h.head, names->data, dsos_size);
  g_autoptr (GByteArray) out
      = g_byte_array_sized_new (sizeof h + n_blocks * sizeof *blocks + t->n * sizeof *e + names->len);
  g_byte_array_append (out, (const guint8 *) &h, sizeof h);
  g_byte_array_append (out, (const guint8 *) blocks, n_blocks * sizeof *blocks);
  g_byte_array_append (out, (const guint8 *) e, t->n * sizeof *e);
  g_byte_array_append (out, names->data, names->len);
  return rsp_disk_cache_write (cache_dir, path, out->data, out->len);
}

/* The kallsyms table from the text at SOURCE. */
static gboolean
kallsyms_load_text (RspSymbolizer *self, const char *source, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
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
  return TRUE;
}

gboolean
rsp_symbolizer_load_kallsyms_file_cached (RspSymbolizer *self, const char *source, const char *cache_dir,
                                          GError **error)
{
  g_autofree char *path = NULL;
  guint64 key = 0;

  g_return_val_if_fail (self != NULL && source != NULL, FALSE);
  gboolean cached = cache_dir != NULL && kcache_key (cache_dir, source, &key, &path);
  if (cached && kcache_load (self, path, key))
    {
      KcacheOrigin *origin = g_new (KcacheOrigin, 1);
      *origin = (KcacheOrigin){ g_strdup (source), g_strdup (cache_dir), g_steal_pointer (&path), key };
      self->kcache_origin = origin;
      return TRUE;
    }
  if (!kallsyms_load_text (self, source, error))
    return FALSE;
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
rsp_elf_notes_build_id (const guint8 *notes, gsize length, guint8 *id, guint *size)
{
  gsize at = 0;
  while (notes != NULL && at <= length && length - at >= 12)
    {
      guint32 namesz, descsz, type;
      memcpy (&namesz, notes + at, 4);
      memcpy (&descsz, notes + at + 4, 4);
      memcpy (&type, notes + at + 8, 4);
      guint64 name_at = at + 12, desc_at = name_at + (((guint64) namesz + 3) & ~(guint64) 3);
      guint64 next = desc_at + (((guint64) descsz + 3) & ~(guint64) 3);
      if (next > length)
        return FALSE;
      if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp (notes + name_at, "GNU", 4) == 0 && descsz > 0
          && descsz <= 20)
        {
          memcpy (id, notes + desc_at, descsz);
          *size = descsz;
          return TRUE;
        }
      at = (gsize) next;
    }
  return FALSE;
}

gboolean
rsp_running_kernel_build_id (guint8 *id, guint *size)
{
  g_autofree char *notes = NULL;
  gsize length = 0;
  return g_file_get_contents ("/sys/kernel/notes", &notes, &length, NULL)
         && rsp_elf_notes_build_id ((const guint8 *) notes, length, id, size);
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
