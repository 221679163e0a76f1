/* rsp-threads.c — tid -> comm tracking. */
#include "rsp-threads.h"

struct _RspThreads {
  GHashTable *comms; /* tid -> interned comm */
};

RspThreads *
rsp_threads_new (void)
{
  RspThreads *self = g_new0 (RspThreads, 1);
  self->comms = g_hash_table_new (g_direct_hash, g_direct_equal);
  return self;
}

void
rsp_threads_free (RspThreads *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->comms);
  g_free (self);
}

void
rsp_threads_process_event (RspThreads *self, const RspEvent *event)
{
  switch (event->type)
    {
    case PERF_RECORD_COMM:
      g_hash_table_insert (self->comms, GINT_TO_POINTER (event->u.comm.tid),
                           (gpointer) g_intern_string (event->u.comm.comm));
      break;
    case PERF_RECORD_FORK:
      {
        /* a new thread starts with its creator's comm */
        const char *parent = rsp_threads_get_comm (self, event->u.fork.ptid);
        if (parent != NULL && event->u.fork.tid != event->u.fork.ptid)
          g_hash_table_insert (self->comms, GINT_TO_POINTER (event->u.fork.tid), (gpointer) parent);
      }
      break;
    default:
      break;
    }
}

const char *
rsp_threads_get_comm (RspThreads *self, gint32 tid)
{
  const char *comm = g_hash_table_lookup (self->comms, GINT_TO_POINTER (tid));
  /* the idle task has no COMM record; perf names it swapper */
  if (comm == NULL && tid == 0)
    return "swapper";
  return comm;
}
