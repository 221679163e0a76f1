/* rsp-reader-symbols.c — symbol sources for one recording. */
#include "rsp-reader-symbols.h"
#include "rsp-elf-cache.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <traceevent/event-parse.h>

/* The build id the header gives the recording's kernel, in hex, when this
 * machine runs another kernel (its symbols would name the frames wrong:
 * perf script shows them as [unknown] too); NULL when it is this one or
 * either cannot be told. */
static char *
another_kernel (const RspPerfHeader *h)
{
  for (guint i = 0; i < h->build_ids->len; i++)
    {
      const RspBuildId *b = &g_array_index (h->build_ids, RspBuildId, i);
      if (g_strcmp0 (b->filename, "[kernel.kallsyms]") != 0 || b->size == 0)
        continue;
      guint8 running[20];
      guint size = 0;
      if (!rsp_running_kernel_build_id (running, &size))
        return NULL;
      /* perf pads a 20-byte id's field: compare what both have */
      guint n = MIN (size, b->size);
      if (memcmp (running, b->id, n) == 0)
        return NULL;
      return rsp_build_id_to_hex (b->id, b->size);
    }
  return NULL;
}

GPtrArray *
rsp_symbolizer_setup_for_reader (RspSymbolizer *symbolizer, RspPerfReader *reader, gboolean offline)
{
  GPtrArray *warnings = g_ptr_array_new_with_free_func (g_free);
  const RspRecording *rec = rsp_perf_reader_get_recording (reader);
  const RspPerfHeader *h = rsp_perf_reader_get_header (reader);
  gboolean have_kernel = FALSE;
  if (rec != NULL && rec->symbols != NULL)
    {
      g_autoptr (GError) error = NULL;
      if (rsp_symbolizer_load_stored (symbolizer, rec->symbols, rec->symbols_size, &error))
        {
          have_kernel = TRUE;
          rsp_symbolizer_set_stored_searched (symbolizer, rec->meta != NULL
                                                  && rec->meta->symbols_searched == RSP_SYMBOLS_SEARCHED_GENERATION);
        }
      else
        g_ptr_array_add (warnings, g_strdup_printf (_("the recording's stored symbols are unusable (%s); "
                                                    "using this machine's"),
                                                    error->message));
    }
  if (offline)
    {
      rsp_symbolizer_set_offline (symbolizer, TRUE);
      if (!have_kernel)
        g_ptr_array_add (warnings, g_strdup (_("the recording stores no symbols: frames will show as [unknown]")));
    }
  else if (!have_kernel)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *other = another_kernel (h);
      if (other != NULL)
        g_ptr_array_add (warnings, g_strdup_printf (_("kernel frames will show as [unknown]: the recording was made "
                                                      "on another kernel (build id %s), and this machine's symbols "
                                                      "are not that kernel's; record with rsp record, which stores "
                                                      "them"),
                                                    other));
      else if (!rsp_symbolizer_load_proc_kallsyms (symbolizer, &error))
        g_ptr_array_add (warnings, g_strdup_printf (_("kernel frames will show as [unknown]: %s"), error->message));
    }
  for (guint i = 0; i < h->build_ids->len; i++)
    {
      const RspBuildId *b = &g_array_index (h->build_ids, RspBuildId, i);
      rsp_symbolizer_add_build_id (symbolizer, b->filename, b->id, b->size);
    }
  return warnings;
}

static char *
resolve_kernel_function (void *priv, unsigned long long *addrp, char **modp)
{
  RspFrame frame;
  rsp_symbolizer_resolve (priv, -1, *addrp, TRUE, &frame);
  if (frame.symbol == NULL)
    return NULL;
  *addrp -= frame.offset;
  if (modp != NULL)
    *modp = NULL;
  /* interned by the symbolizer: libtraceevent does not free it */
  return (char *) frame.symbol;
}

void
rsp_symbolizer_attach_to_tep (RspSymbolizer *symbolizer, RspPerfReader *reader)
{
  struct tep_handle *tep = rsp_perf_reader_get_tep (reader);
  if (tep != NULL)
    tep_set_function_resolver (tep, resolve_kernel_function, symbolizer);
}
