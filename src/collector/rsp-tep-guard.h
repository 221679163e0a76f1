/* rsp-tep-guard.h — checks text from a recording before libtraceevent sees it.
 *
 * libtraceevent's parsers trust their input: a damaged tracepoint format
 * can crash them or make them leak.  Recordings are untrusted files, so
 * every piece of text rsp hands to libtraceevent (event formats, the ring
 * buffer's header page, printk formats, saved command lines) first passes
 * a strict check of the grammar tracefs writes.  Text that fails is never
 * parsed; the caller counts and reports what it lost.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RSP_TEP_FORMAT_BAD,        /* not a format: the event cannot be decoded */
  RSP_TEP_FORMAT_OK,         /* the whole text is well formed */
  RSP_TEP_FORMAT_NO_PRINT,   /* fields are sound, the print fmt line is not:
                              * *fixed holds the text with an empty one */
} RspTepFormatCheck;

/* An event format ("name: …\nID: …\nformat:\n\tfield:…;\n…print fmt: …").
 * With RSP_TEP_FORMAT_NO_PRINT, *FIXED (when FIXED is not NULL) is a new
 * string the caller frees. */
RspTepFormatCheck rsp_tep_check_format (const char *text, gsize len, char **fixed);
/* The same without reading the print fmt line: BAD or NO_PRINT, *FIXED
 * holding the text with an empty print fmt.  For a reader that never
 * prints a tracepoint: libtraceevent's parse of the print fmt, and the
 * check before it, were a tenth of a small recording's report. */
RspTepFormatCheck rsp_tep_check_format_fields (const char *text, gsize len, char **fixed);
/* What to hand libtraceevent for the format TEXT (LEN bytes), as a new
 * NUL-terminated string: the text as it is, or with an empty print fmt
 * (an unsound one, or any without WITH_PRINT); NULL when it is not a
 * format, and the event cannot be decoded. */
char *rsp_tep_format_text (const char *text, gsize len, gboolean with_print);

/* The ring buffer's header page: field lines only. */
gboolean rsp_tep_check_header_page (const char *text, gsize len);

/* perf's printk formats: lines of `0xADDR : "text"`.  The clean copy has
 * one line per address and no text shorter than two characters (which
 * libtraceevent reads before);
 * NULL when the text is not such lines. */
gboolean rsp_tep_check_printk (const char *text, gsize len);
char *rsp_tep_clean_printk (const char *text, gsize len);

G_END_DECLS
