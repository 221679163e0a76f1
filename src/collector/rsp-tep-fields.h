/* rsp-tep-fields.h — a format's fields read without libtraceevent's parser
 *
 * A reader that never prints (the model's) needs of a tracepoint's format
 * only its name, id and fields.  libtraceevent's parser takes about 180,000
 * instructions a format (its tokenizer allocates every token): a tenth of
 * a small report.  rsp_tep_fields_event_new() reads the fields of a format
 * the guard passed (rsp_tep_format_text()) in the shape the kernel writes
 * and makes the struct tep_event libtraceevent would make of it: the same
 * fields, types, offsets, sizes, array lengths, element sizes and flags
 * (tests/unit/test-tep-guard.c compares the two on every format of the
 * running kernel and on the test data; fuzz-perf-reader on every input).
 * Anything else — a shape the kernel does not write, a number that is not
 * plain decimal, a type libtraceevent's tokenizer might read otherwise —
 * returns NULL, and the caller parses the text with libtraceevent.
 *
 * The event is not registered in TEP (tep_find_event() does not know it) and
 * is freed with rsp_tep_fields_event_free(), never by tep_free().  Its print
 * fmt is empty, as libtraceevent's parse of the guard's text with the print
 * fmt emptied leaves it. */
#pragma once

#include <event-parse.h>
#include <glib.h>

struct tep_event *rsp_tep_fields_event_new (struct tep_handle *tep, const char *text, const char *system);
void rsp_tep_fields_event_free (struct tep_event *event);
