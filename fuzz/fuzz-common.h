/* fuzz-common.h — what the libFuzzer targets share: their initialisation
 * and the walk over a tracepoint's fields.  Each target is one translation
 * unit that includes this header once (fuzz/meson.build, and
 * tests/meson.build for the fuzz-replay builds).
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "rsp-perf-reader.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  /* A critical is a failed g_return_if_fail: a bug, whatever the input. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL);
  return 0;
}

/* Reads every field in FIELDS (a NULL-terminated list, or NULL) of EVENT
 * as a number and as a string, as `rsp dump` and the model do; returns a
 * value the caller must keep so that the reads are not optimised away. */
static inline guint64
fuzz_read_fields (const RspEvent *event, struct tep_format_field **fields)
{
  guint64 sum = 0;
  for (guint i = 0; fields && fields[i]; i++)
    {
      guint64 value = 0;
      if (rsp_event_get_field_u64 (event, fields[i]->name, &value))
        sum += value;
      const char *text = rsp_event_get_field_str (event, fields[i]->name);
      if (text)
        sum += strlen (text);
    }
  return sum;
}
