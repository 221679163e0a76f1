/* rsp-symbols.c — see rsp-symbols.h.
 *
 * Layout: kernel symbols (kallsyms, stored) are sorted arrays searched by
 * address; user addresses go pid -> map (rsp-maps) -> binary (RspDso,
 * loaded through rsp-elf-cache) -> symbol.  Every resolution is remembered
 * in one open-addressing table keyed by (binary, address) — the address is
 * the file offset for user space, so a hit costs one probe and no map or
 * symbol search, and nothing is allocated per frame.
 *
 * Names follow what perf script prints for the same addresses: perf's
 * kallsyms and ELF symbol selection and fix-ups (see rsp-elf-cache.c),
 * except that symbol versions are dropped ("memcpy@@GLIBC_2.14" ->
 * "memcpy") and C++ names are demangled with __cxa_demangle.
 *
 * Stored symbol tables ("symbols" section of an RSP recording), as written
 * by rsp_symbolizer_export_used() and read by rsp_symbolizer_load_stored():
 * text, one record per line, '\n'-terminated, numbers in lowercase hex
 * without "0x":
 *
 *   RSP-SYMBOLS 1                      first line, exactly
 *   K <start> <size> <name>[\t<module>]  kernel symbol at absolute address
 *                                      <start>; <module> without brackets
 *   D <build-id-hex | -> <path>        a binary; its S lines follow
 *   S <offset> <size> <name>           symbol at file offset <offset> of
 *                                      the binary of the last D line
 *
 * Offsets are file offsets (what an mmap record's pgoff measures), so a
 * stored table works without the binary's program headers.  Names are
 * display names (demangled, no version); control characters in names and
 * paths are written as '?'.  A binary with a build id is matched by it, one
 * without by its path.  Lines are parsed strictly: any malformed line
 * rejects the whole table (it comes from a file of unknown origin).
 */
#include "rsp-symbols.h"

#include <glib/gi18n-lib.h>
#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "rsp-elf-cache.h"
#include "rsp-maps.h"
#include "rsp-unwind.h"

/* libstdc++'s demangler (stdc++ is linked through meson's stdcxx_dep). */
extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status);

#define KERNEL_DSO "[kernel.kallsyms]"
#define STORED_MAGIC "RSP-SYMBOLS 1"
#define KERNEL_CACHE_ID 1 /* address-cache id of the kernel; binaries start at 2 */
#define CACHE_MIN_SLOTS (1u << 12)
#define CACHE_MAX_SLOTS (1u << 21) /* 48 MiB at most; beyond, start over */
#define MAX_UNWIND_FRAMES 256

G_DEFINE_QUARK (rsp-symbolizer-error-quark, rsp_symbolizer_error)

/* Sorted kernel symbols with, in parallel, the dso each belongs to
 * ("[kernel.kallsyms]" or "[module]"). */
typedef struct {
  RspSym *syms;
  const char **dsos;
  guint n;
} KernelTable;

/* A binary of a stored table. */
typedef struct {
  const char *path; /* interned */
  guint8 build_id[20];
  guint8 build_id_size;
  RspSym *syms;
  guint n_syms;
} StoredDso;

/* A binary as the recording names it: one per build id, else per path. */
typedef struct {
  guint id; /* address-cache id */
  const char *path;
  guint8 build_id[20];
  guint8 build_id_size;
  gboolean pseudo;    /* no file behind it: [heap], //anon, ... */
  gboolean load_tried;
  const RspElfFile *elf;
  const StoredDso *stored;
} RspDso;

typedef struct {
  guint64 addr;
  const RspSym *sym; /* NULL: known to be unknown */
  guint32 dso_id;    /* 0: free slot */
} CacheSlot;

struct _RspSymbolizer {
  GStringChunk *strings; /* interned names and paths */
  GStringChunk *raw_names; /* kallsyms names, not interned */

  KernelTable kallsyms;
  KernelTable stored_kernel;
  GPtrArray *stored_dsos;           /* StoredDso*, owned */
  GHashTable *stored_by_build_id;   /* hex -> StoredDso* */
  GHashTable *stored_by_path;       /* interned path -> StoredDso* */

  RspMaps *maps;
  RspElfCache *elf_cache;
  GPtrArray *dsos;                  /* RspDso*, owned; dsos[i]->id == i + 2 */
  GHashTable *dso_by_key;           /* "b:hex" / "p:path" -> RspDso* */
  GHashTable *header_build_ids;     /* filename -> GBytes */

  gint32 last_pid;                  /* one-entry cache of the pid lookup */
  RspProcessMaps *last_proc;

  CacheSlot *cache;
  guint cache_mask;
  guint cache_used;

  RspUnwinder *unwinder;
  gboolean dwarf_unwind;
  gboolean offline;       /* never read binaries from this machine */
  guint64 pcs[MAX_UNWIND_FRAMES];

  gboolean vdso_tried;
  const RspElfFile *vdso;

  gboolean track_used;
  GHashTable *used; /* RspSym* -> RspDso* (NULL for the kernel) */

  RspSymbolizerStats stats;
};

static gboolean find_unwind_module (gpointer data, gint32 pid, guint64 addr,
                                    RspUnwindModule *module);

/* ------------------------------------------------------------------------ */
/* Life cycle                                                               */

static void
kernel_table_clear (KernelTable *t)
{
  g_clear_pointer (&t->syms, g_free);
  g_clear_pointer (&t->dsos, g_free);
  t->n = 0;
}

static void
stored_dso_free (gpointer data)
{
  StoredDso *s = data;

  g_free (s->syms);
  g_free (s);
}

static void
cache_reset (RspSymbolizer *self, guint slots)
{
  g_free (self->cache);
  self->cache = g_new0 (CacheSlot, slots);
  self->cache_mask = slots - 1;
  self->cache_used = 0;
}

RspSymbolizer *
rsp_symbolizer_new (void)
{
  RspSymbolizer *self = g_new0 (RspSymbolizer, 1);

  self->strings = g_string_chunk_new (64 * 1024);
  self->raw_names = g_string_chunk_new (256 * 1024);
  self->stored_dsos = g_ptr_array_new_with_free_func (stored_dso_free);
  self->stored_by_build_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->stored_by_path = g_hash_table_new (g_str_hash, g_str_equal);
  self->maps = rsp_maps_new ();
  self->elf_cache = rsp_elf_cache_new ();
  self->dsos = g_ptr_array_new_with_free_func (g_free);
  self->dso_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->header_build_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) g_bytes_unref);
  self->last_pid = -1;
  self->unwinder = rsp_unwinder_new (find_unwind_module, self);
  self->dwarf_unwind = TRUE;
  self->used = g_hash_table_new (NULL, NULL);
  cache_reset (self, CACHE_MIN_SLOTS);
  return self;
}

void
rsp_symbolizer_free (RspSymbolizer *self)
{
  if (self == NULL)
    return;
  /* The unwinder calls back into the maps and the ELF cache: first out. */
  g_clear_pointer (&self->unwinder, rsp_unwinder_free);
  kernel_table_clear (&self->kallsyms);
  kernel_table_clear (&self->stored_kernel);
  g_hash_table_unref (self->stored_by_build_id);
  g_hash_table_unref (self->stored_by_path);
  g_ptr_array_unref (self->stored_dsos);
  g_hash_table_unref (self->dso_by_key);
  g_ptr_array_unref (self->dsos);
  g_hash_table_unref (self->header_build_ids);
  rsp_maps_free (self->maps);
  rsp_elf_cache_free (self->elf_cache);
  g_hash_table_unref (self->used);
  g_free (self->cache);
  g_string_chunk_free (self->raw_names);
  g_string_chunk_free (self->strings);
  g_free (self);
}

static const char *
intern (RspSymbolizer *self, const char *s)
{
  return g_string_chunk_insert_const (self->strings, s);
}

static const char *
intern_len (RspSymbolizer *self, const char *s, gsize len)
{
  char buf[256];
  g_autofree char *heap = NULL;
  char *tmp = buf;

  if (len >= sizeof buf)
    tmp = heap = g_malloc (len + 1);
  memcpy (tmp, s, len);
  tmp[len] = '\0';
  return intern (self, tmp);
}

/* ------------------------------------------------------------------------ */
/* The address cache                                                        */

static inline guint
cache_hash (guint32 dso_id, guint64 addr)
{
  guint64 h = (addr ^ ((guint64) dso_id << 47)) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (guint) (h >> 32);
}

static inline CacheSlot *
cache_find (RspSymbolizer *self, guint32 dso_id, guint64 addr)
{
  guint i = cache_hash (dso_id, addr) & self->cache_mask;

  for (;;)
    {
      CacheSlot *slot = &self->cache[i];
      if (slot->dso_id == 0 || (slot->dso_id == dso_id && slot->addr == addr))
        return slot;
      i = (i + 1) & self->cache_mask;
    }
}

static void
cache_insert (RspSymbolizer *self, guint32 dso_id, guint64 addr, const RspSym *sym)
{
  CacheSlot *slot;

  /* Keep the load under 1/2 so probes stay short: grow, and past the cap
   * start again empty (memory stays bounded; hot addresses come back). */
  if ((self->cache_used + 1) * 2 > self->cache_mask + 1)
    {
      guint slots = self->cache_mask + 1;
      if (slots * 2 <= CACHE_MAX_SLOTS)
        {
          CacheSlot *old = self->cache;
          guint old_slots = slots;
          self->cache = g_new0 (CacheSlot, slots * 2);
          self->cache_mask = slots * 2 - 1;
          for (guint i = 0; i < old_slots; i++)
            if (old[i].dso_id != 0)
              *cache_find (self, old[i].dso_id, old[i].addr) = old[i];
          g_free (old);
        }
      else
        cache_reset (self, slots);
    }
  slot = cache_find (self, dso_id, addr);
  if (slot->dso_id == 0)
    self->cache_used++;
  *slot = (CacheSlot){ addr, sym, dso_id };
}

static void
cache_clear (RspSymbolizer *self)
{
  memset (self->cache, 0, sizeof (CacheSlot) * (self->cache_mask + 1));
  self->cache_used = 0;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

/* The name to show for SYM, interned on first use.  User-space names lose
 * their symbol version ("memcpy@@GLIBC_2.14") and are demangled; the
 * "@plt" of a PLT stub stays, it says the frame is the stub. */
static const char *
sym_name (RspSymbolizer *self, const RspSym *csym, gboolean kernel)
{
  RspSym *sym = (RspSym *) csym; /* the tables are ours; only .name is set */
  const char *raw = sym->raw;
  const char *at, *suffix = "";
  g_autofree char *base = NULL;
  g_autofree char *joined = NULL;

  if (sym->name != NULL)
    return sym->name;
  if (kernel)
    return sym->name = intern (self, raw);

  if ((at = strchr (raw, '@')) != NULL && at != raw)
    {
      if (strcmp (at, "@plt") == 0)
        suffix = "@plt";
      raw = base = g_strndup (raw, at - raw);
    }
  if (raw[0] == '_' && raw[1] == 'Z')
    {
      int status = -1;
      char *demangled = __cxa_demangle (raw, NULL, NULL, &status);
      if (demangled != NULL && status == 0)
        raw = joined = g_strconcat (demangled, suffix, NULL);
      free (demangled);
    }
  if (joined == NULL && *suffix != '\0')
    raw = joined = g_strconcat (raw, suffix, NULL);
  return sym->name = intern (self, raw);
}

static void
mark_used (RspSymbolizer *self, const RspSym *sym, RspDso *dso)
{
  if (self->track_used && sym != NULL)
    g_hash_table_insert (self->used, (gpointer) sym, dso);
}

/* Before a table is freed: its symbols leave the used set (their names are
 * interned, so frames already handed out stay valid). */
static void
forget_used_in (RspSymbolizer *self, const RspSym *syms, guint n)
{
  GHashTableIter iter;
  gpointer key;

  if (n == 0 || g_hash_table_size (self->used) == 0)
    return;
  g_hash_table_iter_init (&iter, self->used);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if ((const RspSym *) key >= syms && (const RspSym *) key < syms + n)
      g_hash_table_iter_remove (&iter);
}

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

static gboolean
parse_hex (const char *s, gsize len, guint64 *value)
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

  kernel_dso = intern (self, KERNEL_DSO);
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
      if (sp1 == NULL || !parse_hex (p, sp1 - p, &addr) || line_end - sp1 < 4 || sp1[2] != ' ')
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
            t.dso = intern_len (self, mod, mod_end - mod);
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

    forget_used_in (self, self->kallsyms.syms, self->kallsyms.n);
    kernel_table_clear (&self->kallsyms);
    g_string_chunk_free (self->raw_names);
    self->raw_names = names;
    self->kallsyms.syms = g_new (RspSym, out);
    self->kallsyms.dsos = g_new (const char *, out);
    self->kallsyms.n = out;
    for (guint i = 0; i < out; i++)
      {
        self->kallsyms.syms[i] = (RspSym){ v[i].start, sizes[i], v[i].name, NULL };
        self->kallsyms.dsos[i] = v[i].dso;
      }
  }

  cache_clear (self);
  return TRUE;
}

gboolean
rsp_symbolizer_load_proc_kallsyms (RspSymbolizer *self, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  if (!g_file_get_contents ("/proc/kallsyms", &text, &length, &local))
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_IO,
                   _("cannot read /proc/kallsyms: %s"), local->message);
      return FALSE;
    }
  if (!rsp_symbolizer_load_kallsyms (self, text, length, &local))
    {
      if (g_error_matches (local, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN))
        g_set_error_literal (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_HIDDEN,
                             _("kernel addresses in /proc/kallsyms are hidden; run as root or "
                             "set sysctl kernel.kptr_restrict=0"));
      else
        g_propagate_prefixed_error (error, g_steal_pointer (&local), "/proc/kallsyms: ");
      return FALSE;
    }
  return TRUE;
}

/* Index of SYM in T, or -1 when SYM is not one of T's. */
static gssize
kernel_table_index (const KernelTable *t, const RspSym *sym)
{
  if (t->n > 0 && sym >= t->syms && sym < t->syms + t->n)
    return sym - t->syms;
  return -1;
}

static const char *
kernel_sym_dso (RspSymbolizer *self, const RspSym *sym)
{
  gssize i;

  if ((i = kernel_table_index (&self->stored_kernel, sym)) >= 0)
    return self->stored_kernel.dsos[i];
  if ((i = kernel_table_index (&self->kallsyms, sym)) >= 0)
    return self->kallsyms.dsos[i];
  return intern (self, KERNEL_DSO);
}

static void
resolve_kernel (RspSymbolizer *self, guint64 ip, RspFrame *frame)
{
  CacheSlot *slot = cache_find (self, KERNEL_CACHE_ID, ip);
  const RspSym *sym;

  if (slot->dso_id != 0)
    {
      self->stats.cache_hits++;
      sym = slot->sym;
    }
  else
    {
      sym = rsp_sym_table_lookup (self->stored_kernel.syms, self->stored_kernel.n, ip);
      if (sym == NULL)
        sym = rsp_sym_table_lookup (self->kallsyms.syms, self->kallsyms.n, ip);
      mark_used (self, sym, NULL);
      cache_insert (self, KERNEL_CACHE_ID, ip, sym);
    }
  if (sym == NULL)
    {
      self->stats.unknown++;
      frame->dso = intern (self, KERNEL_DSO);
      return;
    }
  frame->symbol = sym_name (self, sym, TRUE);
  frame->offset = ip - sym->start;
  frame->dso = kernel_sym_dso (self, sym);
}

/* ------------------------------------------------------------------------ */
/* Binaries                                                                 */

void
rsp_symbolizer_add_build_id (RspSymbolizer *self, const char *filename, const guint8 *build_id,
                             guint size)
{
  g_return_if_fail (self != NULL);
  if (filename == NULL || build_id == NULL || size == 0 || size > 20)
    return;
  g_hash_table_replace (self->header_build_ids, g_strdup (filename),
                        g_bytes_new (build_id, size));
}

static gboolean
is_pseudo_file (const char *path)
{
  return path[0] != '/' || g_str_has_prefix (path, "//") || g_str_has_prefix (path, "/memfd:") ||
         g_str_has_prefix (path, "/dev/") || g_str_has_prefix (path, "/SYSV");
}

static RspDso *
dso_for_map (RspSymbolizer *self, RspMap *map)
{
  const guint8 *id = NULL;
  guint id_size = 0;
  g_autofree char *hex = NULL;
  g_autofree char *key = NULL;
  RspDso *dso;

  if (map->dso != NULL)
    return map->dso;

  if (map->build_id_size > 0)
    {
      id = map->build_id;
      id_size = map->build_id_size;
    }
  else
    {
      GBytes *bytes = g_hash_table_lookup (self->header_build_ids, map->filename);
      if (bytes != NULL)
        {
          gsize size;
          id = g_bytes_get_data (bytes, &size);
          id_size = size;
        }
    }
  if (id_size > 0)
    {
      hex = rsp_build_id_to_hex (id, id_size);
      key = g_strconcat ("b:", hex, NULL);
    }
  else
    key = g_strconcat ("p:", map->filename, NULL);

  dso = g_hash_table_lookup (self->dso_by_key, key);
  if (dso == NULL)
    {
      dso = g_new0 (RspDso, 1);
      dso->id = self->dsos->len + 2;
      dso->path = map->filename;
      dso->build_id_size = id_size;
      if (id_size > 0)
        memcpy (dso->build_id, id, id_size);
      dso->pseudo = is_pseudo_file (map->filename) && strcmp (map->filename, "[vdso]") != 0;
      dso->stored = id_size > 0 ? g_hash_table_lookup (self->stored_by_build_id, hex)
                                : g_hash_table_lookup (self->stored_by_path, map->filename);
      g_ptr_array_add (self->dsos, dso);
      g_hash_table_insert (self->dso_by_key, g_steal_pointer (&key), dso);
    }
  map->dso = dso;
  return dso;
}

/* This process's own vdso: the same as the recorded one when the recording
 * comes from this kernel (checked by build id when the recording has one). */
static const RspElfFile *
own_vdso (RspSymbolizer *self)
{
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;

  if (self->vdso_tried)
    return self->vdso;
  self->vdso_tried = TRUE;
  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return NULL;
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, end;
      char *dash;
      if (!g_str_has_suffix (lines[i], "[vdso]"))
        continue;
      start = g_ascii_strtoull (lines[i], &dash, 16);
      if (*dash != '-')
        break;
      end = g_ascii_strtoull (dash + 1, NULL, 16);
      if (end > start && end - start <= 1024 * 1024)
        self->vdso = rsp_elf_cache_load_image (self->elf_cache, "[vdso]",
                                               GSIZE_TO_POINTER ((gsize) start), end - start);
      break;
    }
  return self->vdso;
}

static void
dso_load (RspSymbolizer *self, RspDso *dso)
{
  if (dso->load_tried)
    return;
  dso->load_tried = TRUE;
  if (dso->pseudo)
    return;
  if (self->offline)
    {
      /* only what the recording stores: the same output on any machine */
      self->stats.dsos_missing++;
      return;
    }
  if (strcmp (dso->path, "[vdso]") == 0)
    {
      const RspElfFile *vdso = own_vdso (self);
      if (vdso != NULL &&
          (dso->build_id_size == 0 || (vdso->build_id_size == dso->build_id_size &&
                                       memcmp (vdso->build_id, dso->build_id,
                                               dso->build_id_size) == 0)))
        dso->elf = vdso;
    }
  else
    dso->elf = rsp_elf_cache_load (self->elf_cache, dso->path,
                                   dso->build_id_size > 0 ? dso->build_id : NULL,
                                   dso->build_id_size);
  if (dso->elf != NULL)
    self->stats.dsos_loaded++;
  else
    self->stats.dsos_missing++;
}

static const RspSym *
dso_lookup (RspSymbolizer *self, RspDso *dso, guint64 offset)
{
  const RspSym *sym = NULL;

  /* Stored symbols first: they are what the recording machine had. */
  if (dso->stored != NULL)
    sym = rsp_sym_table_lookup (dso->stored->syms, dso->stored->n_syms, offset);
  if (sym == NULL)
    {
      dso_load (self, dso);
      if (dso->elf != NULL)
        sym = rsp_sym_table_lookup (dso->elf->syms, dso->elf->n_syms, offset);
    }
  return sym;
}

static RspProcessMaps *
process_maps (RspSymbolizer *self, gint32 pid)
{
  if (pid != self->last_pid || self->last_proc == NULL)
    {
      self->last_proc = rsp_maps_get (self->maps, pid);
      self->last_pid = pid;
    }
  return self->last_proc;
}

static void
resolve_user (RspSymbolizer *self, gint32 pid, guint64 ip, RspFrame *frame)
{
  RspMap *map = rsp_process_maps_find (process_maps (self, pid), ip);
  RspDso *dso;
  guint64 offset;
  CacheSlot *slot;
  const RspSym *sym;

  if (map == NULL)
    {
      self->stats.unmapped++;
      self->stats.unknown++;
      return;
    }
  frame->dso = map->filename;
  dso = dso_for_map (self, map);
  offset = ip - map->start + map->pgoff;
  slot = cache_find (self, dso->id, offset);
  if (slot->dso_id != 0)
    {
      self->stats.cache_hits++;
      sym = slot->sym;
    }
  else
    {
      sym = dso_lookup (self, dso, offset);
      mark_used (self, sym, dso);
      cache_insert (self, dso->id, offset, sym);
    }
  if (sym == NULL)
    {
      self->stats.unknown++;
      return;
    }
  frame->symbol = sym_name (self, sym, FALSE);
  frame->offset = offset - sym->start;
}

void
rsp_symbolizer_resolve (RspSymbolizer *self, gint32 pid, guint64 ip, gboolean kernel,
                        RspFrame *frame)
{
  g_return_if_fail (self != NULL && frame != NULL);

  *frame = (RspFrame){ .ip = ip, .kernel = kernel };
  self->stats.lookups++;
  if (kernel)
    resolve_kernel (self, ip, frame);
  else
    resolve_user (self, pid, ip, frame);
}

/* ------------------------------------------------------------------------ */
/* Records                                                                  */

void
rsp_symbolizer_process_event (RspSymbolizer *self, const RspEvent *event)
{
  g_return_if_fail (self != NULL && event != NULL);

  switch (event->type)
    {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      {
        const RspMmap *m = &event->u.mmap;
        guint cpumode = event->misc & PERF_RECORD_MISC_CPUMODE_MASK;
        RspMap map = { 0 };

        /* Kernel and module maps (pid -1): kernel addresses are resolved
         * through kallsyms, not maps. */
        if (m->pid == -1 || cpumode == PERF_RECORD_MISC_KERNEL ||
            cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
          return;
        if (m->len == 0 || m->start + m->len < m->start)
          return;
        map.start = m->start;
        map.end = m->start + m->len;
        map.pgoff = m->pgoff;
        map.filename = intern (self, m->filename != NULL ? m->filename : "//anon");
        if (event->type == PERF_RECORD_MMAP2 && m->build_id_size > 0)
          {
            map.build_id_size = MIN (m->build_id_size, sizeof map.build_id);
            memcpy (map.build_id, m->build_id, map.build_id_size);
          }
        rsp_maps_add (self->maps, m->pid, &map);
        break;
      }
    case PERF_RECORD_COMM:
      if (event->u.comm.exec)
        rsp_maps_exec (self->maps, event->u.comm.pid);
      break;
    case PERF_RECORD_FORK:
      /* pid == ppid is a new thread: it shares the maps already. */
      if (event->u.fork.pid != event->u.fork.ppid)
        rsp_maps_fork (self->maps, event->u.fork.ppid, event->u.fork.pid);
      break;
    default:
      break;
    }
}

/* ------------------------------------------------------------------------ */
/* Callchains                                                               */

typedef enum { MODE_USER, MODE_KERNEL, MODE_OTHER } CallchainMode;

static CallchainMode
mode_of_cpumode (guint16 misc, guint64 ip)
{
  switch (misc & PERF_RECORD_MISC_CPUMODE_MASK)
    {
    case PERF_RECORD_MISC_KERNEL:
      return MODE_KERNEL;
    case PERF_RECORD_MISC_USER:
      return MODE_USER;
    case PERF_RECORD_MISC_CPUMODE_UNKNOWN:
      /* x86_64: the kernel lives in the upper half. */
      return ip >= G_GUINT64_CONSTANT (0xffff800000000000) ? MODE_KERNEL : MODE_USER;
    default:
      return MODE_OTHER; /* hypervisor, guest */
    }
}

/* FALSE for a value in the marker range that is no marker: (u64)-1 shows
 * up at the end of user frame-pointer chains that walked into garbage. */
static gboolean
mode_of_marker (guint64 marker, CallchainMode *mode)
{
  switch (marker)
    {
    case PERF_CONTEXT_KERNEL:
      *mode = MODE_KERNEL;
      return TRUE;
    case PERF_CONTEXT_USER:
      *mode = MODE_USER;
      return TRUE;
    case PERF_CONTEXT_HV:
    case PERF_CONTEXT_GUEST:
    case PERF_CONTEXT_GUEST_KERNEL:
    case PERF_CONTEXT_GUEST_USER:
      *mode = MODE_OTHER;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
resolve_in_mode (RspSymbolizer *self, gint32 pid, guint64 ip, CallchainMode mode,
                 RspFrame *frame)
{
  if (mode == MODE_OTHER)
    {
      /* Guest or hypervisor addresses: nothing here can name them. */
      *frame = (RspFrame){ .ip = ip };
      self->stats.lookups++;
      self->stats.unknown++;
      return;
    }
  rsp_symbolizer_resolve (self, pid, ip, mode == MODE_KERNEL, frame);
}

guint
rsp_symbolizer_resolve_callchain (RspSymbolizer *self, const RspEvent *sample, RspFrame *frames,
                                  guint max)
{
  const RspSample *s;
  CallchainMode mode;
  gboolean dwarf;
  guint n = 0, user_entries = 0;

  g_return_val_if_fail (self != NULL && sample != NULL, 0);
  g_return_val_if_fail (frames != NULL || max == 0, 0);

  s = &sample->sample;
  mode = mode_of_cpumode (sample->misc, s->ip);
  dwarf = self->dwarf_unwind && rsp_unwinder_can_unwind (s);

  if (s->callchain == NULL || s->n_callchain == 0)
    {
      /* No callchain: the sampled address alone (in dwarf mode only if it
       * is in the kernel; the unwinder starts from the user IP).  An event
       * that samples no address (the tracefs instance's) has no frame. */
      gboolean has_ip = sample->evsel == NULL || (sample->evsel->attr.sample_type & PERF_SAMPLE_IP);
      if (max > 0 && has_ip && !(dwarf && mode == MODE_USER))
        resolve_in_mode (self, sample->pid, s->ip, mode, &frames[n++]);
    }
  else
    {
      for (guint64 i = 0; i < s->n_callchain && n < max; i++)
        {
          guint64 ip = s->callchain[i];
          if (ip >= PERF_CONTEXT_MAX)
            {
              /* A corrupt entry ends the chain; the frames before it are
               * good (perf drops the whole chain). */
              if (!mode_of_marker (ip, &mode))
                break;
              continue;
            }
          if (mode == MODE_USER)
            {
              user_entries++;
              /* In dwarf mode the unwinder replaces the user part. */
              if (dwarf)
                continue;
            }
          resolve_in_mode (self, sample->pid, ip, mode, &frames[n++]);
        }
    }

  if (dwarf && n < max)
    {
      RspProcessMaps *proc = process_maps (self, sample->pid);
      guint k = rsp_unwinder_unwind (self->unwinder, sample->pid, sample->tid,
                                     proc != NULL ? proc->generation : 0, s, self->pcs,
                                     MIN (max - n, MAX_UNWIND_FRAMES));
      if (k > 0)
        {
          for (guint i = 0; i < k; i++)
            rsp_symbolizer_resolve (self, sample->pid, self->pcs[i], FALSE, &frames[n++]);
        }
      else if (user_entries > 0)
        {
          /* Unwinding failed: keep the user callchain the kernel gave. */
          mode = mode_of_cpumode (sample->misc, s->ip);
          for (guint64 i = 0; i < s->n_callchain && n < max; i++)
            {
              guint64 ip = s->callchain[i];
              if (ip >= PERF_CONTEXT_MAX)
                {
                  if (!mode_of_marker (ip, &mode))
                    break;
                }
              else if (mode == MODE_USER)
                rsp_symbolizer_resolve (self, sample->pid, ip, FALSE, &frames[n++]);
            }
        }
    }
  return n;
}

void
rsp_symbolizer_set_dwarf_unwind (RspSymbolizer *self, gboolean enable)
{
  g_return_if_fail (self != NULL);
  self->dwarf_unwind = enable;
}

static gboolean
find_unwind_module (gpointer data, gint32 pid, guint64 addr, RspUnwindModule *module)
{
  RspSymbolizer *self = data;
  RspMap *map = rsp_process_maps_find (rsp_maps_get (self->maps, pid), addr);
  RspDso *dso;
  guint64 bias;

  if (map == NULL)
    return FALSE;
  dso = dso_for_map (self, map);
  dso_load (self, dso);
  if (dso->elf == NULL || (dso->elf->image == NULL && dso->elf->path == NULL) ||
      !rsp_elf_file_map_bias (dso->elf, map->start, map->pgoff, &bias))
    return FALSE;
  module->name = map->filename;
  module->image = dso->elf->image;
  module->image_size = dso->elf->image_size;
  module->path = dso->elf->image != NULL ? NULL : dso->elf->path;
  module->start = map->start;
  module->bias = bias;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Stored symbols                                                           */

void
rsp_symbolizer_set_offline (RspSymbolizer *self, gboolean offline)
{
  g_return_if_fail (self != NULL);
  self->offline = offline;
  if (offline)
    self->dwarf_unwind = FALSE;
}

void
rsp_symbolizer_set_track_used (RspSymbolizer *self, gboolean track)
{
  g_return_if_fail (self != NULL);
  if (track && !self->track_used)
    cache_clear (self); /* cached hits would bypass the bookkeeping */
  self->track_used = track;
}

/* Writes S with control characters (the format's separators) as '?'. */
static void
append_clean (GString *out, const char *s)
{
  for (; *s != '\0'; s++)
    g_string_append_c (out, (guchar) *s < 0x20 || *s == 0x7f ? '?' : *s);
}

static gint
sym_ptr_compare (gconstpointer pa, gconstpointer pb)
{
  const RspSym *a = *(const RspSym *const *) pa, *b = *(const RspSym *const *) pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return 0;
}

static gint
dso_ptr_compare (gconstpointer pa, gconstpointer pb)
{
  const RspDso *a = *(const RspDso *const *) pa, *b = *(const RspDso *const *) pb;

  return a->id < b->id ? -1 : (a->id > b->id);
}

GBytes *
rsp_symbolizer_export_used (RspSymbolizer *self)
{
  g_autoptr (GString) out = g_string_new (STORED_MAGIC "\n");
  g_autoptr (GPtrArray) kernel = g_ptr_array_new ();
  g_autoptr (GHashTable) by_dso = g_hash_table_new_full (NULL, NULL, NULL,
                                                         (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GPtrArray) dsos = NULL;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (self != NULL, NULL);

  g_hash_table_iter_init (&iter, self->used);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (value == NULL)
        g_ptr_array_add (kernel, key);
      else
        {
          GPtrArray *list = g_hash_table_lookup (by_dso, value);
          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (by_dso, value, list);
            }
          g_ptr_array_add (list, key);
        }
    }

  g_ptr_array_sort (kernel, sym_ptr_compare);
  for (guint i = 0; i < kernel->len; i++)
    {
      const RspSym *sym = kernel->pdata[i];
      const char *dso = kernel_sym_dso (self, sym);
      g_string_append_printf (out, "K %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x ",
                              sym->start, sym->size);
      append_clean (out, sym_name (self, sym, TRUE));
      if (strcmp (dso, KERNEL_DSO) != 0 && strlen (dso) > 2)
        {
          g_autofree char *module = g_strndup (dso + 1, strlen (dso) - 2);
          g_string_append_c (out, '\t');
          append_clean (out, module);
        }
      g_string_append_c (out, '\n');
    }

  dsos = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, by_dso);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (dsos, key);
  g_ptr_array_sort (dsos, dso_ptr_compare);
  for (guint d = 0; d < dsos->len; d++)
    {
      RspDso *dso = dsos->pdata[d];
      GPtrArray *list = g_hash_table_lookup (by_dso, dso);
      const guint8 *id = dso->build_id;
      guint id_size = dso->build_id_size;

      /* The best-known id: the recording's, the file's, the stored one's. */
      if (id_size == 0 && dso->elf != NULL)
        {
          id = dso->elf->build_id;
          id_size = dso->elf->build_id_size;
        }
      if (id_size == 0 && dso->stored != NULL)
        {
          id = dso->stored->build_id;
          id_size = dso->stored->build_id_size;
        }
      g_string_append (out, "D ");
      if (id_size > 0)
        {
          g_autofree char *hex = rsp_build_id_to_hex (id, id_size);
          g_string_append (out, hex);
        }
      else
        g_string_append_c (out, '-');
      g_string_append_c (out, ' ');
      append_clean (out, dso->path);
      g_string_append_c (out, '\n');

      g_ptr_array_sort (list, sym_ptr_compare);
      for (guint i = 0; i < list->len; i++)
        {
          const RspSym *sym = list->pdata[i];
          g_string_append_printf (out, "S %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x ",
                                  sym->start, sym->size);
          append_clean (out, sym_name (self, sym, FALSE));
          g_string_append_c (out, '\n');
        }
    }

  return g_string_free_to_bytes (g_steal_pointer (&out));
}

static gint
sym_compare (gconstpointer pa, gconstpointer pb)
{
  const RspSym *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return 0;
}

/* Splits "<hex> <hex> <rest>" */
static gboolean
parse_sym_line (const char *s, gsize len, guint64 *start, guint64 *size, const char **rest,
                gsize *rest_len)
{
  const char *end = s + len, *sp;

  sp = memchr (s, ' ', len);
  if (sp == NULL || !parse_hex (s, sp - s, start))
    return FALSE;
  s = sp + 1;
  sp = memchr (s, ' ', end - s);
  if (sp == NULL || !parse_hex (s, sp - s, size))
    return FALSE;
  *rest = sp + 1;
  *rest_len = end - *rest;
  return *rest_len > 0 && *start + *size >= *start;
}

typedef struct {
  RspSym sym;
  const char *dso;
} StoredKsym;

static gint
stored_ksym_compare (gconstpointer a, gconstpointer b)
{
  return sym_compare (&((const StoredKsym *) a)->sym, &((const StoredKsym *) b)->sym);
}

typedef struct {
  GArray *kernel;       /* StoredKsym */
  GPtrArray *dsos;      /* StoredDso*, owned until committed */
  GArray *current;      /* RspSym of the last D line */
} StoredParse;

static void
stored_parse_finish_dso (StoredParse *ps)
{
  StoredDso *dso;

  if (ps->current == NULL)
    return;
  dso = ps->dsos->pdata[ps->dsos->len - 1];
  g_array_sort (ps->current, sym_compare);
  dso->n_syms = ps->current->len;
  dso->syms = (RspSym *) g_array_free (ps->current, FALSE);
  ps->current = NULL;
}

gboolean
rsp_symbolizer_load_stored (RspSymbolizer *self, const guint8 *data, gsize size,
                            GError **error)
{
  const char *p = (const char *) data, *end = p + size;
  StoredParse ps = { 0 };
  const char *kernel_dso;
  guint line_no = 0;
  gboolean ok = FALSE;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  ps.kernel = g_array_new (FALSE, FALSE, sizeof (StoredKsym));
  ps.dsos = g_ptr_array_new_with_free_func (stored_dso_free);
  kernel_dso = intern (self, KERNEL_DSO);

  if (size > 0 && memchr (data, '\0', size) != NULL)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("stored symbols: not a text table (NUL byte)"));
      goto out;
    }

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line = p;
      gsize len;
      guint64 start, sym_size;
      const char *rest;
      gsize rest_len;

      if (nl == NULL)
        {
          g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                       _("stored symbols, line %u: truncated"), line_no + 1);
          goto out;
        }
      len = nl - p;
      p = nl + 1;
      line_no++;

      if (line_no == 1)
        {
          if (len != strlen (STORED_MAGIC) || memcmp (line, STORED_MAGIC, len) != 0)
            {
              g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                           _("stored symbols: unknown format (expected \"%s\")"), STORED_MAGIC);
              goto out;
            }
          continue;
        }
      if (len < 2 || line[1] != ' ')
        goto bad_line;

      switch (line[0])
        {
        case 'K':
          {
            const char *tab, *dso = kernel_dso;
            StoredKsym k;
            if (!parse_sym_line (line + 2, len - 2, &start, &sym_size, &rest, &rest_len))
              goto bad_line;
            tab = memchr (rest, '\t', rest_len);
            if (tab != NULL)
              {
                g_autofree char *module = NULL;
                gsize mod_len = rest + rest_len - (tab + 1);
                if (mod_len == 0 || tab == rest)
                  goto bad_line;
                module = g_strdup_printf ("[%.*s]", (int) mod_len, tab + 1);
                dso = intern (self, module);
                rest_len = tab - rest;
              }
            k.sym = (RspSym){ start, sym_size, NULL, intern_len (self, rest, rest_len) };
            k.sym.raw = k.sym.name;
            k.dso = dso;
            g_array_append_val (ps.kernel, k);
            break;
          }
        case 'D':
          {
            const char *sp = memchr (line + 2, ' ', len - 2);
            StoredDso *dso;
            gsize id_len;
            if (sp == NULL || sp + 1 >= line + len)
              goto bad_line;
            id_len = sp - (line + 2);
            /* The previous binary's symbols are complete. */
            stored_parse_finish_dso (&ps);
            dso = g_new0 (StoredDso, 1);
            g_ptr_array_add (ps.dsos, dso);
            if (!(id_len == 1 && line[2] == '-'))
              {
                if (id_len % 2 != 0 || id_len < 2 || id_len > 40)
                  goto bad_line;
                for (gsize i = 0; i < id_len / 2; i++)
                  {
                    int hi = g_ascii_xdigit_value (line[2 + 2 * i]);
                    int lo = g_ascii_xdigit_value (line[3 + 2 * i]);
                    if (hi < 0 || lo < 0)
                      goto bad_line;
                    dso->build_id[i] = (guint8) (hi << 4 | lo);
                  }
                dso->build_id_size = id_len / 2;
              }
            dso->path = intern_len (self, sp + 1, line + len - (sp + 1));
            ps.current = g_array_new (FALSE, FALSE, sizeof (RspSym));
            break;
          }
        case 'S':
          {
            RspSym sym;
            if (ps.current == NULL ||
                !parse_sym_line (line + 2, len - 2, &start, &sym_size, &rest, &rest_len))
              goto bad_line;
            sym = (RspSym){ start, sym_size, NULL, intern_len (self, rest, rest_len) };
            sym.raw = sym.name;
            g_array_append_val (ps.current, sym);
            break;
          }
        default:
          goto bad_line;
        }
      continue;

    bad_line:
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("stored symbols, line %u: malformed"), line_no);
      goto out;
    }
  if (line_no == 0)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("stored symbols: empty"));
      goto out;
    }
  stored_parse_finish_dso (&ps);

  /* Commit: the new table replaces any earlier one. */
  forget_used_in (self, self->stored_kernel.syms, self->stored_kernel.n);
  kernel_table_clear (&self->stored_kernel);
  g_array_sort (ps.kernel, stored_ksym_compare);
  self->stored_kernel.n = ps.kernel->len;
  self->stored_kernel.syms = g_new (RspSym, ps.kernel->len);
  self->stored_kernel.dsos = g_new (const char *, ps.kernel->len);
  for (guint i = 0; i < ps.kernel->len; i++)
    {
      const StoredKsym *k = &g_array_index (ps.kernel, StoredKsym, i);
      self->stored_kernel.syms[i] = k->sym;
      self->stored_kernel.dsos[i] = k->dso;
    }
  g_hash_table_remove_all (self->stored_by_build_id);
  g_hash_table_remove_all (self->stored_by_path);
  for (guint i = 0; i < self->stored_dsos->len; i++)
    {
      const StoredDso *old = self->stored_dsos->pdata[i];
      forget_used_in (self, old->syms, old->n_syms);
    }
  g_ptr_array_set_size (self->stored_dsos, 0);
  for (guint i = 0; i < ps.dsos->len; i++)
    {
      StoredDso *dso = ps.dsos->pdata[i];
      g_ptr_array_add (self->stored_dsos, dso);
      if (dso->build_id_size > 0)
        g_hash_table_replace (self->stored_by_build_id,
                              rsp_build_id_to_hex (dso->build_id, dso->build_id_size), dso);
      g_hash_table_replace (self->stored_by_path, (gpointer) dso->path, dso);
    }
  g_ptr_array_set_free_func (ps.dsos, NULL);
  /* Binaries already seen pick up the new tables. */
  for (guint i = 0; i < self->dsos->len; i++)
    {
      RspDso *dso = self->dsos->pdata[i];
      if (dso->build_id_size > 0)
        {
          g_autofree char *hex = rsp_build_id_to_hex (dso->build_id, dso->build_id_size);
          dso->stored = g_hash_table_lookup (self->stored_by_build_id, hex);
        }
      else
        dso->stored = g_hash_table_lookup (self->stored_by_path, dso->path);
    }
  cache_clear (self);
  ok = TRUE;

out:
  if (ps.current != NULL)
    g_array_unref (ps.current);
  g_array_unref (ps.kernel);
  g_ptr_array_unref (ps.dsos);
  return ok;
}

const RspSymbolizerStats *
rsp_symbolizer_get_stats (RspSymbolizer *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->stats;
}
