/* rsp-tid-map.h — a map from thread id to a pointer, for the lookups done
 * once or more per event (the reader's tid -> pid, the assembler's tid ->
 * state).  Thread ids are small and dense, so the ids below the kernel's
 * PID_MAX_LIMIT (2^22) live in pages of 256 slots, each allocated when one
 * of its ids is first stored: a lookup is two loads.  Any other id (the
 * -1 of "unknown", a foreign file's) goes to a hash table.  NULL values
 * mean "absent": store only non-NULL pointers. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RSP_TID_MAP_PAGE_BITS 8
#define RSP_TID_MAP_PAGE_SLOTS (1u << RSP_TID_MAP_PAGE_BITS)
#define RSP_TID_MAP_N_PAGES (1u << (22 - RSP_TID_MAP_PAGE_BITS))
G_STATIC_ASSERT (RSP_TID_MAP_N_PAGES <= G_MAXUINT16 + 1);

typedef struct {
  gpointer *pages[RSP_TID_MAP_N_PAGES];
  GHashTable *others; /* tids outside [0, 2^22), created when needed */
  /* the indexes of the pages allocated, so that clearing and freeing the
   * map touch those alone: PAGES is 128 kB, mostly NULL and never written
   * there, and reading it all made 32 page faults each time (a tenth of
   * the page faults of a small report) */
  guint16 *used;
  guint n_used, n_used_alloc;
} RspTidMap;

RspTidMap *rsp_tid_map_new (void);
void rsp_tid_map_free (RspTidMap *map);
/* Forgets every entry (the pages are kept, cleared). */
void rsp_tid_map_remove_all (RspTidMap *map);
/* VALUE must not be NULL. */
void rsp_tid_map_insert (RspTidMap *map, gint32 tid, gpointer value);
gpointer rsp_tid_map_lookup_other (const RspTidMap *map, gint32 tid);

static inline gpointer
rsp_tid_map_lookup (const RspTidMap *map, gint32 tid)
{
  guint32 u = (guint32) tid;
  if (G_LIKELY (u < RSP_TID_MAP_N_PAGES * RSP_TID_MAP_PAGE_SLOTS))
    {
      gpointer *page = map->pages[u >> RSP_TID_MAP_PAGE_BITS];
      return page != NULL ? page[u & (RSP_TID_MAP_PAGE_SLOTS - 1)] : NULL;
    }
  return rsp_tid_map_lookup_other (map, tid);
}

G_END_DECLS
