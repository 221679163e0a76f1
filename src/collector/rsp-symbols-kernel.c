/* rsp-symbols-kernel.c — kernel symbol tables read from kallsyms text
 * (/proc/kallsyms, or the copy a recording carries), selected and fixed
 * up the way perf does it.
 */
#include "rsp-symbols-private.h"

#include <glib/gi18n-lib.h>
#include <elf.h>
#include <string.h>

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

    symbolizer_forget_used_in (self, self->kallsyms.syms, self->kallsyms.n);
    symbolizer_kernel_table_clear (&self->kallsyms);
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

  symbolizer_cache_clear (self);
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

