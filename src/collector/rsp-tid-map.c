/* rsp-tid-map.c — thread id -> pointer, paged (rsp-tid-map.h). */
#include "rsp-tid-map.h"

#include <string.h>

RspTidMap *
rsp_tid_map_new (void)
{
  return g_new0 (RspTidMap, 1);
}

void
rsp_tid_map_free (RspTidMap *map)
{
  if (map == NULL)
    return;
  for (guint i = 0; i < map->n_used; i++)
    g_free (map->pages[map->used[i]]);
  g_free (map->used);
  g_clear_pointer (&map->others, g_hash_table_unref);
  g_free (map);
}

void
rsp_tid_map_remove_all (RspTidMap *map)
{
  for (guint i = 0; i < map->n_used; i++)
    memset (map->pages[map->used[i]], 0, RSP_TID_MAP_PAGE_SLOTS * sizeof (gpointer));
  if (map->others != NULL)
    g_hash_table_remove_all (map->others);
}

void
rsp_tid_map_insert (RspTidMap *map, gint32 tid, gpointer value)
{
  g_return_if_fail (value != NULL);
  guint32 u = (guint32) tid;
  if (u < RSP_TID_MAP_N_PAGES * RSP_TID_MAP_PAGE_SLOTS)
    {
      gpointer **page = &map->pages[u >> RSP_TID_MAP_PAGE_BITS];
      if (*page == NULL)
        {
          *page = g_new0 (gpointer, RSP_TID_MAP_PAGE_SLOTS);
          if (map->n_used == map->n_used_alloc)
            {
              map->n_used_alloc = MAX (16, map->n_used_alloc * 2);
              map->used = g_renew (guint16, map->used, map->n_used_alloc);
            }
          map->used[map->n_used++] = (guint16) (u >> RSP_TID_MAP_PAGE_BITS);
        }
      (*page)[u & (RSP_TID_MAP_PAGE_SLOTS - 1)] = value;
      return;
    }
  if (map->others == NULL)
    map->others = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_hash_table_insert (map->others, GINT_TO_POINTER (tid), value);
}

gpointer
rsp_tid_map_lookup_other (const RspTidMap *map, gint32 tid)
{
  return map->others != NULL ? g_hash_table_lookup (map->others, GINT_TO_POINTER (tid)) : NULL;
}
