/* rsp-symbols.c — see rsp-symbols.h.
 *
 * Layout: kernel symbols (kallsyms, stored) are sorted arrays searched by
 * address (the kallsyms cache's entries where they are mapped, a symbol
 * made when first found: KernelTable); user addresses go pid -> map
 * (rsp-maps) -> binary (RspDso, loaded through rsp-elf-cache) -> symbol.  Every resolution is remembered
 * in one open-addressing table keyed by (binary, address) — the address is
 * the file offset for user space, so a hit costs one probe and no map or
 * symbol search, and nothing is allocated per frame.
 *
 * Names follow what perf script prints for the same addresses: perf's
 * kallsyms and ELF symbol selection and fix-ups (see rsp-elf-cache.c),
 * except that symbol versions are dropped ("memcpy@@GLIBC_2.14" ->
 * "memcpy") and C++ names are demangled with libstdc++'s __cxa_demangle.
 *
 * The parts: rsp-symbols-private.h.
 */
#include "rsp-symbols-private.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>
#ifdef RSP_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/* libstdc++'s demangler.  The rsp command links it from libsupc++'s
 * archive (meson.build: a weak reference here, the archive's member pulled
 * in with -u __cxa_demangle), so it costs nothing to load (a statically
 * linked rsp must not open libstdc++: the C library that would come with
 * it is not the one linked in).  A program built without it (the tests,
 * the GUI) opens libstdc++ on the first C++ name instead: linking
 * libstdc++ (and the libgcc_s and libm it needs) would cost each start
 * about 4 ms of loading and relocation, C++ or not.  Without either, C++
 * names stay mangled. */
typedef char *(*DemangleFunc) (const char *mangled, char *buf, size_t *len, int *status);

extern char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status) __attribute__ ((weak));

static DemangleFunc
demangler (void)
{
  static gsize once = 0;
  static DemangleFunc demangle;
  if (g_once_init_enter (&once))
    {
      if (__cxa_demangle != NULL)
        demangle = __cxa_demangle;
      else
        {
          void *lib = dlopen ("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
          if (lib != NULL)
            *(void **) &demangle = dlsym (lib, "__cxa_demangle");
        }
      g_once_init_leave (&once, 1);
    }
  return demangle;
}

G_DEFINE_QUARK (rsp-symbolizer-error-quark, rsp_symbolizer_error)

static gboolean find_unwind_module (gpointer data, gint32 pid, guint64 addr,
                                    RspUnwindModule *module);

/* ------------------------------------------------------------------------ */
/* Life cycle                                                               */

void
symbolizer_kernel_table_clear (KernelTable *t)
{
  g_clear_pointer (&t->syms, g_free);
  g_clear_pointer (&t->dsos, g_free);
  t->n = 0;
  g_clear_pointer (&t->made, g_hash_table_unref);
  t->entries = NULL;
  t->n_entries = 0;
  t->names = NULL;
  t->names_size = 0;
  t->blocks = NULL;
  t->n_blocks = 0;
  g_clear_pointer (&t->block_state, g_free);
  t->dsos_size = 0;
}

void
symbolizer_stored_dso_free (gpointer data)
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

  self->strings = rsp_interner_new ();
  self->raw_names = g_string_chunk_new (256 * 1024);
  self->stored_dsos = g_ptr_array_new_with_free_func (symbolizer_stored_dso_free);
  self->stored_by_build_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->stored_by_path = g_hash_table_new (g_str_hash, g_str_equal);
  self->maps = rsp_maps_new ();
  self->elf_cache = rsp_elf_cache_new ();
  self->dsos = g_ptr_array_new_with_free_func (g_free);
  self->dso_by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->header_build_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) g_bytes_unref);
  self->unwinder = rsp_unwinder_new (find_unwind_module, self);
  self->dwarf_unwind = TRUE;
  self->used = g_hash_table_new (NULL, NULL);
  self->jit_trusted_uid = (guint32) -1;
  self->jit_maps = g_hash_table_new_full (NULL, NULL, NULL, symbolizer_jit_map_free);
  self->jitdumps = g_hash_table_new (NULL, NULL);
  self->jit_retired = g_ptr_array_new_with_free_func (symbolizer_jit_map_free);
  self->used_jit = g_hash_table_new (NULL, NULL);
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
  symbolizer_kernel_table_clear (&self->kallsyms);
  symbolizer_kernel_table_clear (&self->stored_kernel);
  g_hash_table_unref (self->stored_by_build_id);
  g_hash_table_unref (self->stored_by_path);
  g_ptr_array_unref (self->stored_dsos);
  g_hash_table_unref (self->dso_by_key);
  g_ptr_array_unref (self->dsos);
  g_hash_table_unref (self->header_build_ids);
  rsp_maps_free (self->maps);
  rsp_elf_cache_free (self->elf_cache);
  g_hash_table_unref (self->used);
  g_hash_table_unref (self->used_jit);
  g_hash_table_unref (self->jit_maps);
  g_hash_table_unref (self->jitdumps);
  g_ptr_array_unref (self->jit_retired);
  g_free (self->cache);
  g_string_chunk_free (self->raw_names);
  g_clear_pointer (&self->kallsyms_cache, g_mapped_file_unref);
  g_clear_pointer (&self->kcache_origin, symbolizer_kcache_origin_free);
  rsp_interner_free (self->strings);
  g_free (self);
}

const char *
symbolizer_intern (RspSymbolizer *self, const char *s)
{
  return rsp_interner_intern (self->strings, s);
}

const char *
symbolizer_intern_len (RspSymbolizer *self, const char *s, gsize len)
{
  return rsp_interner_intern_len (self->strings, s, len);
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

void
symbolizer_cache_clear (RspSymbolizer *self)
{
  if (self->cache_used == 0)
    return; /* already empty (a new symbolizer's: calloc'd) */
  memset (self->cache, 0, sizeof (CacheSlot) * (self->cache_mask + 1));
  self->cache_used = 0;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

#ifdef RSP_HAVE_LIBIBERTY
/* An OCaml name as perf names it, or NULL: "caml" and a capital letter,
 * then the rest with "__" read as "." and "$xx" as the byte xx (hex):
 * "camlStdlib__List__map_270" is "Stdlib.List.map_270". */
static char *
ocaml_name (const char *raw)
{
  if (strncmp (raw, "caml", 4) != 0 || !g_ascii_isupper (raw[4]))
    return NULL;
  GString *out = g_string_sized_new (strlen (raw));
  for (const char *p = raw + 4; *p != '\0';)
    if (p[0] == '_' && p[1] == '_')
      {
        g_string_append_c (out, '.');
        p += 2;
      }
    else if (p[0] == '$' && g_ascii_isxdigit (p[1]) && g_ascii_isxdigit (p[2]))
      {
        g_string_append_c (out, (char) (g_ascii_xdigit_value (p[1]) << 4 | g_ascii_xdigit_value (p[2])));
        p += 3;
      }
    else
      g_string_append_c (out, *p++);
  return g_string_free (out, FALSE);
}

/* RAW named as perf script (perf 6.1, built without libbfd) names it:
 * cplus_demangle (name, 0), libiberty's automatic style (Rust, then the
 * C++ ABI; not D) without parameters, else perf's OCaml rule, given the
 * name with its version, which stays on a name neither changes
 * ("cfree@GLIBC_2.2.5") and is dropped from one libiberty demangles
 * ("_Znwm@@GLIBCXX_3.4": "operator new"); a PLT stub is its function's
 * name so named, then "@plt".  (perf's last resort, Java's signatures,
 * is left out: no ELF symbol is one.) */
static const char *
perf_name (RspSymbolizer *self, const char *raw)
{
  gsize len = strlen (raw);
  gboolean plt = len > 4 && strcmp (raw + len - 4, "@plt") == 0;
  g_autofree char *base = plt ? g_strndup (raw, len - 4) : NULL;
  const char *name = plt ? base : raw;
  char *demangled = cplus_demangle (name, DMGL_NO_OPTS);
  g_autofree char *ocaml = demangled == NULL ? ocaml_name (name) : NULL;
  if (demangled == NULL && ocaml == NULL)
    return symbolizer_intern (self, raw);
  g_autofree char *named = g_strconcat (demangled != NULL ? demangled : ocaml, plt ? "@plt" : "", NULL);
  free (demangled);
  return symbolizer_intern (self, named);
}
#endif

gboolean
symbolizer_name_as_is (const RspSymbolizer *self, const char *raw, gsize len)
{
#ifdef RSP_HAVE_LIBIBERTY
  if (self->perf_names)
    return FALSE; /* perf_name() may change any name */
#endif
  const char *at = memchr (raw, '@', len);
  return (at == NULL || at == raw) && !(len >= 2 && raw[0] == '_' && raw[1] == 'Z');
}

/* The name to show for SYM, interned on first use.  User-space names lose
 * their symbol version ("memcpy@@GLIBC_2.14") and are demangled; the
 * "@plt" of a PLT stub stays, it says the frame is the stub. */
const char *
symbolizer_sym_name (RspSymbolizer *self, const RspSym *csym, gboolean kernel)
{
  RspSym *sym = (RspSym *) csym; /* the tables are ours; only .name is set */
  const char *raw = sym->raw;
  const char *at, *suffix = "";
  g_autofree char *base = NULL;
  g_autofree char *joined = NULL;

  if (sym->name != NULL)
    return sym->name;
  if (kernel || symbolizer_name_as_is (self, raw, strlen (raw)))
    return sym->name = symbolizer_intern (self, raw);
#ifdef RSP_HAVE_LIBIBERTY
  if (self->perf_names)
    return sym->name = perf_name (self, raw);
#endif

  if ((at = strchr (raw, '@')) != NULL && at != raw)
    {
      if (strcmp (at, "@plt") == 0)
        suffix = "@plt";
      raw = base = g_strndup (raw, at - raw);
    }
  if (raw[0] == '_' && raw[1] == 'Z')
    {
      int status = -1;
      DemangleFunc demangle = demangler ();
      char *demangled = demangle != NULL ? demangle (raw, NULL, NULL, &status) : NULL;
      if (demangled != NULL && status == 0)
        raw = joined = g_strconcat (demangled, suffix, NULL);
      free (demangled);
    }
  if (joined == NULL && *suffix != '\0')
    raw = joined = g_strconcat (raw, suffix, NULL);
  return sym->name = symbolizer_intern (self, raw);
}

static void
mark_used (RspSymbolizer *self, const RspSym *sym, RspDso *dso)
{
  if (self->track_used && sym != NULL)
    g_hash_table_insert (self->used, (gpointer) sym, dso);
}

/* Before a table is freed: its symbols leave the used set (their names are
 * interned, so frames already handed out stay valid). */
void
symbolizer_forget_used_in (RspSymbolizer *self, const RspSym *syms, guint n)
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

void
symbolizer_kernel_table_forget_used (RspSymbolizer *self, KernelTable *t)
{
  symbolizer_forget_used_in (self, t->syms, t->n);
  if (t->made != NULL && g_hash_table_size (self->used) > 0)
    {
      GHashTableIter iter;
      gpointer value;
      g_hash_table_iter_init (&iter, t->made);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_hash_table_remove (self->used, &((MappedKsym *) value)->sym);
    }
}

/* ------------------------------------------------------------------------ */
/* Kernel addresses                                                         */

/* The symbol of entry I of T's mapping, made on first use; NULL when the
 * entry's names lie outside the mapping. */
static const RspSym *
mapped_ksym (RspSymbolizer *self, KernelTable *t, guint i)
{
  MappedKsym *m = g_hash_table_lookup (t->made, GUINT_TO_POINTER (i));
  if (m != NULL)
    return &m->sym;
  const KcacheEntry *e = &t->entries[i];
  if (e->name >= t->names_size || (e->dso != KCACHE_KERNEL && e->dso >= t->names_size))
    return NULL;
  m = g_new (MappedKsym, 1);
  m->sym = (RspSym){ e->start, e->size, t->names + e->name, NULL };
  m->dso = symbolizer_intern (self, e->dso == KCACHE_KERNEL ? KERNEL_DSO : t->names + e->dso);
  g_hash_table_insert (t->made, GUINT_TO_POINTER (i), m);
  return &m->sym;
}

const RspSym *
symbolizer_kernel_table_lookup (RspSymbolizer *self, KernelTable *t, guint64 ip)
{
  if (t->entries == NULL)
    return rsp_sym_table_lookup (t->syms, t->n, ip);
  gssize i;
  if (!symbolizer_kcache_find (self, t, ip, &i))
    return symbolizer_kernel_table_lookup (self, t, ip); /* T made again from the text */
  return i >= 0 ? mapped_ksym (self, t, (guint) i) : NULL;
}

/* Index of SYM in T, or -1 when SYM is not one of T's. */
static gssize
kernel_table_index (const KernelTable *t, const RspSym *sym)
{
  if (t->n > 0 && sym >= t->syms && sym < t->syms + t->n)
    return sym - t->syms;
  return -1;
}

const char *
symbolizer_kernel_sym_dso (RspSymbolizer *self, const RspSym *sym)
{
  gssize i;

  if ((i = kernel_table_index (&self->stored_kernel, sym)) >= 0)
    return self->stored_kernel.dsos[i];
  if ((i = kernel_table_index (&self->kallsyms, sym)) >= 0)
    return self->kallsyms.dsos[i];
  const KernelTable *t = &self->kallsyms;
  if (t->entries != NULL && (guintptr) sym->raw - (guintptr) t->names < t->names_size)
    return ((const MappedKsym *) sym)->dso; /* made by mapped_ksym(): its sym comes first */
  return symbolizer_intern (self, KERNEL_DSO);
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
      sym = symbolizer_kernel_table_lookup (self, &self->stored_kernel, ip);
      if (sym == NULL)
        sym = symbolizer_kernel_table_lookup (self, &self->kallsyms, ip);
      mark_used (self, sym, NULL);
      cache_insert (self, KERNEL_CACHE_ID, ip, sym);
    }
  if (sym == NULL)
    {
      self->stats.unknown++;
      frame->dso = symbolizer_intern (self, KERNEL_DSO);
      return;
    }
  frame->symbol = symbolizer_sym_name (self, sym, TRUE);
  frame->offset = ip - sym->start;
  frame->dso = symbolizer_kernel_sym_dso (self, sym);
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

/* TRUE when DSO's stored table is all there is to know of its names.  The
 * recorder looked up every address of the recording's samples in the file
 * it read, and stored a D line for it with its build id even where it found
 * no name (recordings that say so: rsp_symbolizer_set_stored_searched();
 * older ones stored only binaries with a name found, and a reader that
 * decodes more than theirs did may meet addresses they never looked up).
 * When this machine's copy can name nothing more than that file could (the
 * same build id, no .symtab, no debug file: rsp_elf_may_name_more()), what
 * the recorder found no name for has none here either, and the binary is
 * not read.  Decided once per binary; the binary is still loaded for DWARF
 * unwinding (find_unwind_module), and then used. */
static gboolean
stored_whole (RspSymbolizer *self, RspDso *dso)
{
  if (!dso->stored_whole_tried)
    {
      const StoredDso *stored = dso->stored;

      dso->stored_whole_tried = TRUE;
      if (!self->stored_searched || stored == NULL || stored->build_id_size == 0
          || dso->load_tried || self->offline || dso->pseudo)
        return FALSE;
      /* matched by build id (dso_for_map), or by path */
      dso->stored_whole = !rsp_elf_cache_may_name_more (self->elf_cache, dso->path, stored->build_id,
                                                        stored->build_id_size, dso->build_id_size == 0);
    }
  return dso->stored_whole && !dso->load_tried;
}

static const RspSym *
dso_lookup (RspSymbolizer *self, RspDso *dso, guint64 offset)
{
  const RspSym *sym = NULL;

  /* Stored symbols first: they are what the recording machine had. */
  if (dso->stored != NULL)
    sym = rsp_sym_table_lookup (dso->stored->syms, dso->stored->n_syms, offset);
  if (sym == NULL && !stored_whole (self, dso))
    {
      dso_load (self, dso);
      if (dso->elf != NULL)
        sym = rsp_sym_table_lookup (dso->elf->syms, dso->elf->n_syms, offset);
    }
  return sym;
}

RspProcessMaps *
symbolizer_process_maps (RspSymbolizer *self, gint32 pid)
{
  guint i = (guint32) pid % G_N_ELEMENTS (self->maps_cache);
  if (self->maps_cache[i].proc != NULL && self->maps_cache[i].pid == pid)
    return self->maps_cache[i].proc;
  RspProcessMaps *proc = rsp_maps_get (self->maps, pid);
  if (proc != NULL)
    {
      self->maps_cache[i].pid = pid;
      self->maps_cache[i].proc = proc;
    }
  return proc;
}

static void
resolve_user (RspSymbolizer *self, gint32 pid, guint64 ip, RspFrame *frame)
{
  RspMap *map = rsp_process_maps_find (symbolizer_process_maps (self, pid), ip);
  RspDso *dso;
  guint64 offset;
  CacheSlot *slot;
  const RspSym *sym;

  if (map == NULL)
    {
      /* JIT code in memory perf saw no mapping of */
      if (symbolizer_jit_resolve (self, pid, ip, frame))
        return;
      self->stats.unmapped++;
      self->stats.unknown++;
      return;
    }
  frame->dso = map->filename;
  dso = dso_for_map (self, map);
  /* JIT code: anonymous memory (//anon, [anon:...], a memfd), named by the
   * JIT's perf map */
  if ((dso->pseudo || map->memfd) && symbolizer_jit_resolve (self, pid, ip, frame))
    return;
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
      /* named by its file and this offset ("libc.so.6+0x27d0a"), which
       * addr2line and objdump take */
      frame->offset = offset;
      self->stats.unknown++;
      return;
    }
  frame->symbol = symbolizer_sym_name (self, sym, FALSE);
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

/* A mapping: apart from rsp_symbolizer_process_event(), which sees every
 * event, so that the samples it passes over set up no frame. */
static G_GNUC_NO_INLINE void
process_mmap (RspSymbolizer *self, const RspEvent *event)
{
  const RspMmap *m = &event->u.mmap;
  guint cpumode = event->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  RspMap map = { 0 };

  /* Kernel and module maps (pid -1): kernel addresses are resolved
   * through kallsyms, not maps. */
  if (m->pid == -1 || cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
    return;
  if (m->len == 0 || m->start + m->len < m->start)
    return;
  map.start = m->start;
  map.end = m->start + m->len;
  map.pgoff = m->pgoff;
  map.filename = symbolizer_intern (self, m->filename != NULL ? m->filename : "//anon");
  map.memfd = g_str_has_prefix (map.filename, "/memfd:");
  if (event->type == PERF_RECORD_MMAP2 && m->build_id_size > 0)
    {
      map.build_id_size = MIN (m->build_id_size, sizeof map.build_id);
      memcpy (map.build_id, m->build_id, map.build_id_size);
    }
  rsp_maps_add (self->maps, m->pid, &map);
  symbolizer_jit_note_mmap (self, m->pid, map.filename);
}

void
rsp_symbolizer_process_event (RspSymbolizer *self, const RspEvent *event)
{
  g_return_if_fail (self != NULL && event != NULL);

  switch (event->type)
    {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      process_mmap (self, event);
      break;
    case PERF_RECORD_COMM:
      if (event->u.comm.exec)
        rsp_maps_exec (self->maps, event->u.comm.pid);
      break;
    case PERF_RECORD_FORK:
      /* pid == ppid is a new thread: it shares the maps already. */
      if (event->u.fork.pid != event->u.fork.ppid)
        rsp_maps_fork (self->maps, event->u.fork.ppid, event->u.fork.pid);
      break;
    case PERF_RECORD_EXIT:
      /* the process, not one of its threads (those share its unwinder) */
      if (event->u.fork.pid == event->u.fork.tid && self->unwinder != NULL)
        rsp_unwinder_forget (self->unwinder, event->u.fork.pid);
      break;
    default:
      break;
    }
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
/* Settings and statistics                                                  */

void
rsp_symbolizer_set_offline (RspSymbolizer *self, gboolean offline)
{
  g_return_if_fail (self != NULL);
  self->offline = offline;
  if (offline)
    self->dwarf_unwind = FALSE;
}

void
rsp_symbolizer_set_stored_searched (RspSymbolizer *self, gboolean searched)
{
  g_return_if_fail (self != NULL);
  self->stored_searched = searched;
  for (guint i = 0; i < self->dsos->len; i++)
    {
      RspDso *dso = self->dsos->pdata[i];
      dso->stored_whole_tried = dso->stored_whole = FALSE;
    }
}

void
rsp_symbolizer_set_perf_names (RspSymbolizer *self, gboolean perf_names)
{
  g_return_if_fail (self != NULL);
  self->perf_names = perf_names;
}

void
rsp_symbolizer_set_track_used (RspSymbolizer *self, gboolean track)
{
  g_return_if_fail (self != NULL);
  if (track && !self->track_used)
    symbolizer_cache_clear (self); /* cached hits would bypass the bookkeeping */
  self->track_used = track;
}

const RspSymbolizerStats *
rsp_symbolizer_get_stats (RspSymbolizer *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  self->stats.dsos_from_cache = rsp_elf_cache_n_from_store (self->elf_cache);
  self->stats.dsos_stored_whole = 0;
  for (guint i = 0; i < self->dsos->len; i++)
    {
      const RspDso *dso = self->dsos->pdata[i];
      self->stats.dsos_stored_whole += dso->stored_whole && !dso->load_tried;
    }
  return &self->stats;
}
