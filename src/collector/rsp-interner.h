/* rsp-interner.h — strings kept once: equal text, one pointer.
 *
 * What g_string_chunk_insert_const() does, with one hash of each string
 * instead of two (a lookup, then an insert), a hash that reads eight bytes
 * at a time instead of one, and the length kept beside it so that most
 * strings that differ are told apart without a comparison.  The symbol
 * names and frame labels of a report of a build are interned here: with
 * GLib's they were a tenth of its instructions.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RspInterner RspInterner;

RspInterner *rsp_interner_new (void);
void rsp_interner_free (RspInterner *self);
/* The kept copy of S (NULL: NULL); it lives as long as SELF. */
const char *rsp_interner_intern (RspInterner *self, const char *s);
/* The same for the LEN bytes at S, or those before a NUL among them. */
const char *rsp_interner_intern_len (RspInterner *self, const char *s, gsize len);
/* How many distinct strings SELF keeps. */
guint rsp_interner_size (const RspInterner *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspInterner, rsp_interner_free)

G_END_DECLS
