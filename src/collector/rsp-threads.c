/* rsp-threads.c — tid -> comm tracking. */
#include "rsp-threads.h"

struct _RspThreads {
  GHashTable *comms;    /* tid -> comm, a string in names */
  GStringChunk *names;  /* each distinct comm once, freed with the tracker */
};

RspThreads *
rsp_threads_new (void)
{
  RspThreads *self = g_new0 (RspThreads, 1);
  self->comms = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->names = g_string_chunk_new (1024);
  return self;
}

void
rsp_threads_free (RspThreads *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->comms);
  g_string_chunk_free (self->names);
  g_free (self);
}

void
rsp_threads_process_event (RspThreads *self, const RspEvent *event)
{
  switch (event->type)
    {
    case PERF_RECORD_COMM:
      if (event->u.comm.comm != NULL)
        g_hash_table_insert (self->comms, GINT_TO_POINTER (event->u.comm.tid),
                             (gpointer) g_string_chunk_insert_const (self->names, event->u.comm.comm));
      else
        g_hash_table_remove (self->comms, GINT_TO_POINTER (event->u.comm.tid));
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
