/* rsp-symbols-stored.c — symbol tables stored in a recording, written
 * and read back.
 *
 * Stored symbol tables ("symbols" section of an RSP recording), as written
 * by rsp_symbolizer_export_used() and read by rsp_symbolizer_load_stored():
 * text, one record per line, '\n'-terminated, numbers in lowercase hex
 * without "0x":
 *
 *   RSP-SYMBOLS 2                      first line, exactly (or 1, below)
 *   K <start> <size> <name>[\t<module>]  kernel symbol at absolute address
 *                                      <start>; <module> without brackets
 *   D <build-id-hex | -> <path>        a binary; its S lines follow (none
 *                                      when the recorder found no name
 *                                      for the recording's addresses in it)
 *   S <offset> <size> <name>           symbol at file offset <offset> of
 *                                      the binary of the last D line
 *   P <pid> <start> <size> <name>      JIT-compiled code at address <start>
 *                                      of process <pid>, from its
 *                                      /tmp/perf-PID.map (rsp-symbols-jit.c)
 *
 * Offsets are file offsets (what an mmap record's pgoff measures), so a
 * stored table works without the binary's program headers.  S names are
 * the binary's own (mangled, with a version: "_ZN2ns5Klass6methodEi",
 * "memcpy@@GLIBC_2.14"), named when used as a symbol read from the binary
 * is (the report demangles them with parameters, rsp dump as perf script
 * does); version 1 (RSP-SYMBOLS 1) stored display names (demangled with
 * parameters, no version), which are used as they are.  K and P names are
 * as the kernel and the JIT wrote them.  Control characters in names and
 * paths are written as '?'.  A binary with a build id is matched by it, one
 * without by its path.  Lines are parsed strictly: any malformed line
 * rejects the whole table (it comes from a file of unknown origin).
 */
#include "rsp-symbols-private.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Stored symbols                                                           */

void
symbolizer_append_clean (GString *out, const char *s)
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

GBytes *
rsp_symbolizer_export_used (RspSymbolizer *self)
{
  g_autoptr (GString) out = g_string_new (STORED_MAGIC "\n");
  g_autoptr (GPtrArray) kernel = g_ptr_array_new ();
  g_autoptr (GHashTable) by_dso = g_hash_table_new_full (NULL, NULL, NULL,
                                                         (GDestroyNotify) g_ptr_array_unref);
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
      const char *dso = symbolizer_kernel_sym_dso (self, sym);
      g_string_append_printf (out, "K %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x ",
                              sym->start, sym->size);
      symbolizer_append_clean (out, symbolizer_sym_name (self, sym, TRUE));
      if (strcmp (dso, KERNEL_DSO) != 0 && strlen (dso) > 2)
        {
          g_autofree char *module = g_strndup (dso + 1, strlen (dso) - 2);
          g_string_append_c (out, '\t');
          symbolizer_append_clean (out, module);
        }
      g_string_append_c (out, '\n');
    }

  /* Every binary with a used symbol, and every one searched without a
   * hit (read here, or stored), in the order they were met: the D line
   * alone says that the recording's addresses in it have no name in that
   * file (stored_whole() in rsp-symbols.c), so that reports need not read
   * it again. */
  for (guint d = 0; d < self->dsos->len; d++)
    {
      const RspDso *dso = self->dsos->pdata[d];
      GPtrArray *list = g_hash_table_lookup (by_dso, dso);
      const guint8 *id = dso->build_id;
      guint id_size = dso->build_id_size;

      if (list == NULL && dso->elf == NULL && dso->stored == NULL)
        continue;

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
      if (list == NULL && id_size == 0)
        continue; /* only a build id tells a report it has the same file */
      g_string_append (out, "D ");
      if (id_size > 0)
        {
          g_autofree char *hex = rsp_build_id_to_hex (id, id_size);
          g_string_append (out, hex);
        }
      else
        g_string_append_c (out, '-');
      g_string_append_c (out, ' ');
      symbolizer_append_clean (out, dso->path);
      g_string_append_c (out, '\n');

      if (list == NULL)
        continue;
      g_ptr_array_sort (list, sym_ptr_compare);
      for (guint i = 0; i < list->len; i++)
        {
          const RspSym *sym = list->pdata[i];
          g_string_append_printf (out, "S %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x ",
                                  sym->start, sym->size);
          symbolizer_append_clean (out, sym->raw);
          g_string_append_c (out, '\n');
        }
    }

  symbolizer_jit_export_used (self, out);
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
  if (sp == NULL || !symbolizer_parse_hex (s, sp - s, start))
    return FALSE;
  s = sp + 1;
  sp = memchr (s, ' ', end - s);
  if (sp == NULL || !symbolizer_parse_hex (s, sp - s, size))
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

/* Whether N entries of SIZE bytes from BASE, each starting with an RspSym,
 * are in order by start already: the recorder writes them so, and a
 * sort of a sorted table (glibc's merge sort, a call per comparison) was
 * a twentieth of a build's report.  g_array_sort() is stable, so a table
 * in order stays as it is either way. */
static gboolean
in_start_order (const guint8 *base, guint n, gsize size)
{
  for (guint i = 1; i < n; i++)
    if (((const RspSym *) (gconstpointer) (base + i * size))->start
        < ((const RspSym *) (gconstpointer) (base + (i - 1) * size))->start)
      return FALSE;
  return TRUE;
}

typedef struct {
  gboolean raw_names;   /* version 2: S names as the binary has them */
  GArray *kernel;       /* StoredKsym */
  GPtrArray *dsos;      /* StoredDso*, owned until committed */
  GArray *current;      /* RspSym of the last D line */
  GHashTable *jit;   /* pid -> GArray of its P lines' entries (rsp-symbols-jit.c) */
} StoredParse;

static void
stored_parse_finish_dso (StoredParse *ps)
{
  StoredDso *dso;

  if (ps->current == NULL)
    return;
  dso = ps->dsos->pdata[ps->dsos->len - 1];
  if (!in_start_order ((const guint8 *) ps->current->data, ps->current->len, sizeof (RspSym)))
    g_array_sort (ps->current, sym_compare);
  dso->n_syms = ps->current->len;
  dso->syms = (RspSym *) g_array_free (ps->current, FALSE);
  ps->current = NULL;
}

/* A K line: "K <start> <size> <name>[\t<module>]". */
static gboolean
parse_k_line (RspSymbolizer *self, StoredParse *ps, const char *line, gsize len)
{
  guint64 start, size;
  const char *rest;
  gsize rest_len;
  if (!parse_sym_line (line + 2, len - 2, &start, &size, &rest, &rest_len))
    return FALSE;
  StoredKsym k = { .dso = symbolizer_intern (self, KERNEL_DSO) };
  const char *tab = memchr (rest, '\t', rest_len);
  if (tab != NULL)
    {
      gsize mod_len = rest + rest_len - (tab + 1);
      if (mod_len == 0 || tab == rest)
        return FALSE;
      g_autofree char *module = g_strdup_printf ("[%.*s]", (int) mod_len, tab + 1);
      k.dso = symbolizer_intern (self, module);
      rest_len = tab - rest;
    }
  k.sym = (RspSym){ start, size, NULL, symbolizer_intern_len (self, rest, rest_len) };
  k.sym.raw = k.sym.name;
  g_array_append_val (ps->kernel, k);
  return TRUE;
}

/* A D line: "D <build-id-hex | -> <path>"; the S lines after it are its. */
static gboolean
parse_d_line (RspSymbolizer *self, StoredParse *ps, const char *line, gsize len)
{
  const char *sp = memchr (line + 2, ' ', len - 2);
  if (sp == NULL || sp + 1 >= line + len)
    return FALSE;
  gsize id_len = sp - (line + 2);
  /* The previous binary's symbols are complete. */
  stored_parse_finish_dso (ps);
  StoredDso *dso = g_new0 (StoredDso, 1);
  g_ptr_array_add (ps->dsos, dso);
  if (!(id_len == 1 && line[2] == '-'))
    {
      if (id_len % 2 != 0 || id_len < 2 || id_len > 40)
        return FALSE;
      for (gsize i = 0; i < id_len / 2; i++)
        {
          int hi = g_ascii_xdigit_value (line[2 + 2 * i]);
          int lo = g_ascii_xdigit_value (line[3 + 2 * i]);
          if (hi < 0 || lo < 0)
            return FALSE;
          dso->build_id[i] = (guint8) (hi << 4 | lo);
        }
      dso->build_id_size = id_len / 2;
    }
  dso->path = symbolizer_intern_len (self, sp + 1, line + len - (sp + 1));
  ps->current = g_array_new (FALSE, FALSE, sizeof (RspSym));
  return TRUE;
}

/* An S line: "S <offset> <size> <name>", a symbol of the last D line. */
static gboolean
parse_s_line (RspSymbolizer *self, StoredParse *ps, const char *line, gsize len)
{
  guint64 start, size;
  const char *rest;
  gsize rest_len;
  if (ps->current == NULL || !parse_sym_line (line + 2, len - 2, &start, &size, &rest, &rest_len))
    return FALSE;
  const char *name = symbolizer_intern_len (self, rest, rest_len);
  /* raw, named when used (symbolizer_sym_name()); version 1: named.  A raw
   * name the report would show as it is (no version, not mangled: most
   * of a C program's) is named now, as version 1's were, rather than
   * interned again at its first use. */
  gboolean as_is = !ps->raw_names || symbolizer_name_as_is (self, rest, rest_len);
  RspSym sym = { start, size, name, as_is ? name : NULL };
  g_array_append_val (ps->current, sym);
  return TRUE;
}

static gboolean
parse_line (RspSymbolizer *self, StoredParse *ps, const char *line, gsize len)
{
  if (len < 2 || line[1] != ' ')
    return FALSE;
  switch (line[0])
    {
    case 'K': return parse_k_line (self, ps, line, len);
    case 'D': return parse_d_line (self, ps, line, len);
    case 'S': return parse_s_line (self, ps, line, len);
    case 'P': return symbolizer_jit_parse_stored_line (self, ps->jit, line, len);
    default: return FALSE;
    }
}

/* Reads the whole table into PS; nothing of SELF changes but its strings. */
static gboolean
parse_table (RspSymbolizer *self, StoredParse *ps, const guint8 *data, gsize size, GError **error)
{
  const char *p = (const char *) data, *end = p + size;
  guint line_no = 0;

  if (size > 0 && memchr (data, '\0', size) != NULL)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("stored symbols: not a text table (NUL byte)"));
      return FALSE;
    }
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line = p;
      if (nl == NULL)
        {
          g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                       _("stored symbols, line %u: truncated"), line_no + 1);
          return FALSE;
        }
      gsize len = nl - p;
      p = nl + 1;
      line_no++;
      if (line_no == 1)
        {
          ps->raw_names = len == strlen (STORED_MAGIC) && memcmp (line, STORED_MAGIC, len) == 0;
          if (!ps->raw_names && (len != strlen (STORED_MAGIC_V1) || memcmp (line, STORED_MAGIC_V1, len) != 0))
            {
              g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                           _("stored symbols: unknown format (expected \"%s\")"), STORED_MAGIC);
              return FALSE;
            }
          continue;
        }
      if (!parse_line (self, ps, line, len))
        {
          g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                       _("stored symbols, line %u: malformed"), line_no);
          return FALSE;
        }
    }
  if (line_no == 0)
    {
      g_set_error (error, RSP_SYMBOLIZER_ERROR, RSP_SYMBOLIZER_ERROR_INVALID,
                   _("stored symbols: empty"));
      return FALSE;
    }
  stored_parse_finish_dso (ps);
  return TRUE;
}

/* Adds FROM's symbols to INTO's (a table's two D lines of one binary),
 * sorted, each start once. */
static void
stored_dso_join (StoredDso *into, const StoredDso *from)
{
  guint n = into->n_syms + from->n_syms, kept = 0;
  RspSym *syms = g_new (RspSym, (gsize) n);

  if (into->n_syms > 0)
    memcpy (syms, into->syms, into->n_syms * sizeof (RspSym));
  if (from->n_syms > 0)
    memcpy (syms + into->n_syms, from->syms, from->n_syms * sizeof (RspSym));
  if (n > 1) /* none: SYMS is NULL, which qsort() must not be given */
    qsort (syms, n, sizeof (RspSym), sym_compare);
  for (guint k = 0; k < n; k++)
    if (kept == 0 || syms[k].start != syms[kept - 1].start)
      syms[kept++] = syms[k];
  g_free (into->syms);
  into->syms = syms;
  into->n_syms = kept;
}

/* The parsed table replaces any earlier one; binaries already seen pick it
 * up, and the address cache starts over.  Whether it names every binary
 * searched is for the caller to say again (rsp_symbolizer_set_stored_searched). */
static void
commit_table (RspSymbolizer *self, StoredParse *ps)
{
  symbolizer_forget_used_in (self, self->stored_kernel.syms, self->stored_kernel.n);
  symbolizer_kernel_table_clear (&self->stored_kernel);
  if (!in_start_order ((const guint8 *) ps->kernel->data, ps->kernel->len, sizeof (StoredKsym)))
    g_array_sort (ps->kernel, stored_ksym_compare);
  self->stored_kernel.n = ps->kernel->len;
  self->stored_kernel.syms = g_new (RspSym, ps->kernel->len);
  self->stored_kernel.dsos = g_new (const char *, ps->kernel->len);
  for (guint i = 0; i < ps->kernel->len; i++)
    {
      const StoredKsym *k = &g_array_index (ps->kernel, StoredKsym, i);
      self->stored_kernel.syms[i] = k->sym;
      self->stored_kernel.dsos[i] = k->dso;
    }
  g_hash_table_remove_all (self->stored_by_build_id);
  g_hash_table_remove_all (self->stored_by_path);
  for (guint i = 0; i < self->stored_dsos->len; i++)
    {
      const StoredDso *old = self->stored_dsos->pdata[i];
      symbolizer_forget_used_in (self, old->syms, old->n_syms);
    }
  g_ptr_array_set_size (self->stored_dsos, 0);
  for (guint i = 0; i < ps->dsos->len; i++)
    {
      StoredDso *dso = ps->dsos->pdata[i];
      g_autofree char *hex = dso->build_id_size > 0 ? rsp_build_id_to_hex (dso->build_id, dso->build_id_size)
                                                    : NULL;
      /* A second D line of one binary (the same build id, or the same path
       * without one) is joined to the first: the recorder may know one
       * file under two keys (maps with and without its build id), each
       * line holding the names found through its key.  One replacing the
       * other would lose names, and one without a name found would hide
       * them all (stored_whole() in rsp-symbols.c). */
      StoredDso *into = hex != NULL ? g_hash_table_lookup (self->stored_by_build_id, hex)
                                    : g_hash_table_lookup (self->stored_by_path, dso->path);
      if (into != NULL && (hex != NULL || into->build_id_size == 0))
        {
          stored_dso_join (into, dso);
          /* its path too, where no line of its own names it */
          if (!g_hash_table_contains (self->stored_by_path, dso->path))
            g_hash_table_insert (self->stored_by_path, (gpointer) dso->path, into);
          symbolizer_stored_dso_free (dso);
          continue;
        }
      g_ptr_array_add (self->stored_dsos, dso);
      if (hex != NULL)
        g_hash_table_insert (self->stored_by_build_id, g_steal_pointer (&hex), dso);
      g_hash_table_replace (self->stored_by_path, (gpointer) dso->path, dso);
    }
  g_ptr_array_set_free_func (ps->dsos, NULL);
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
  symbolizer_jit_install_stored (self, ps->jit);
  self->has_stored = TRUE;
  /* also forgets what stored_whole() decided of the old table */
  rsp_symbolizer_set_stored_searched (self, FALSE);
  symbolizer_cache_clear (self);
}

gboolean
rsp_symbolizer_load_stored (RspSymbolizer *self, const guint8 *data, gsize size,
                            GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  StoredParse ps = {
    .kernel = g_array_new (FALSE, FALSE, sizeof (StoredKsym)),
    .dsos = g_ptr_array_new_with_free_func (symbolizer_stored_dso_free),
    .jit = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref),
  };
  gboolean ok = parse_table (self, &ps, data, size, error);
  if (ok)
    commit_table (self, &ps);
  if (ps.current != NULL)
    g_array_unref (ps.current);
  g_array_unref (ps.kernel);
  g_ptr_array_unref (ps.dsos);
  g_hash_table_unref (ps.jit);
  return ok;
}
