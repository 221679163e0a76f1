/* rsp-threads.h — which comm and process each thread has at the current
 * point of the event stream (from COMM, FORK and EXIT records), as perf
 * script shows them. */
#pragma once

#include <glib.h>

#include "rsp-event.h"

G_BEGIN_DECLS

typedef struct _RspThreads RspThreads;

RspThreads *rsp_threads_new (void);
void rsp_threads_free (RspThreads *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspThreads, rsp_threads_free)

/* Feed every record in time order. */
void rsp_threads_process_event (RspThreads *self, const RspEvent *event);
/* The comm of TID (owned by SELF), NULL when never seen. */
const char *rsp_threads_get_comm (RspThreads *self, gint32 tid);

G_END_DECLS
