/* rsp-maps.c — see rsp-maps.h. */
#include "rsp-maps.h"

struct _RspMaps {
  GHashTable *by_pid; /* pid -> RspProcessMaps*, owned */
  guint next_generation;
};

static void
process_maps_free (gpointer data)
{
  RspProcessMaps *proc = data;

  g_array_unref (proc->maps);
  g_array_unref (proc->before_exec);
  g_free (proc);
}

RspMaps *
rsp_maps_new (void)
{
  RspMaps *self = g_new0 (RspMaps, 1);

  self->by_pid = g_hash_table_new_full (NULL, NULL, NULL, process_maps_free);
  self->next_generation = 1;
  return self;
}

void
rsp_maps_free (RspMaps *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_pid);
  g_free (self);
}

RspProcessMaps *
rsp_maps_get (RspMaps *self, gint32 pid)
{
  return g_hash_table_lookup (self->by_pid, GINT_TO_POINTER (pid));
}

/* Processes are never freed before SELF: callers may keep the pointer. */
static RspProcessMaps *
get_or_create (RspMaps *self, gint32 pid)
{
  RspProcessMaps *proc = rsp_maps_get (self, pid);

  if (proc == NULL)
    {
      proc = g_new0 (RspProcessMaps, 1);
      proc->pid = pid;
      proc->maps = g_array_new (FALSE, FALSE, sizeof (RspMap));
      proc->before_exec = g_array_new (FALSE, FALSE, sizeof (RspMap));
      g_hash_table_insert (self->by_pid, GINT_TO_POINTER (pid), proc);
    }
  proc->generation = self->next_generation++;
  return proc;
}

guint
rsp_maps_n_processes (RspMaps *self)
{
  return g_hash_table_size (self->by_pid);
}

/* Index of the first map whose end is above ADDR. */
static guint
first_ending_after (GArray *maps, guint64 addr)
{
  guint lo = 0, hi = maps->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (maps, RspMap, mid).end <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static RspMap *
find_in (GArray *maps, guint64 addr)
{
  guint i = first_ending_after (maps, addr);

  if (i < maps->len)
    {
      RspMap *map = &g_array_index (maps, RspMap, i);
      if (map->start <= addr)
        return map;
    }
  return NULL;
}

RspMap *
rsp_process_maps_find (RspProcessMaps *proc, guint64 addr)
{
  RspMap *map;

  if (proc == NULL)
    return NULL;
  map = find_in (proc->maps, addr);
  if (map == NULL && proc->before_exec->len > 0)
    map = find_in (proc->before_exec, addr);
  return map;
}

void
rsp_maps_add (RspMaps *self, gint32 pid, const RspMap *map)
{
  RspProcessMaps *proc;
  GArray *maps;
  guint first, last;
  RspMap keep[2];
  guint n_keep = 0;

  g_return_if_fail (self != NULL && map != NULL);
  if (map->end <= map->start)
    return;

  proc = get_or_create (self, pid);
  maps = proc->maps;

  /* Maps [first, last) overlap the new one; the pieces of the first and
   * last that stick out survive, as after a real mmap over them. */
  first = first_ending_after (maps, map->start);
  last = first;
  while (last < maps->len && g_array_index (maps, RspMap, last).start < map->end)
    last++;
  if (first < last)
    {
      const RspMap *lo = &g_array_index (maps, RspMap, first);
      const RspMap *hi = &g_array_index (maps, RspMap, last - 1);
      if (lo->start < map->start)
        {
          keep[n_keep] = *lo;
          keep[n_keep++].end = map->start;
        }
      if (hi->end > map->end)
        {
          keep[n_keep] = *hi;
          keep[n_keep].pgoff += map->end - hi->start;
          keep[n_keep++].start = map->end;
        }
      g_array_remove_range (maps, first, last - first);
    }

  /* Left piece, new map, right piece, in address order at FIRST. */
  if (n_keep > 0 && keep[0].start < map->start)
    {
      g_array_insert_val (maps, first, keep[0]);
      first++;
      n_keep--;
      keep[0] = keep[1];
    }
  g_array_insert_vals (maps, first, map, 1);
  if (n_keep > 0)
    g_array_insert_val (maps, first + 1, keep[0]);
}

void
rsp_maps_fork (RspMaps *self, gint32 parent, gint32 child)
{
  RspProcessMaps *from, *to;

  g_return_if_fail (self != NULL);
  if (parent == child)
    return;
  from = rsp_maps_get (self, parent);
  to = get_or_create (self, child);
  g_array_set_size (to->maps, 0);
  g_array_set_size (to->before_exec, 0);
  if (from != NULL)
    g_array_append_vals (to->maps, from->maps->data, from->maps->len);
  /* the same maps as the parent's (none before an exec on either side):
   * the same generation, until one of the two changes its own.  A parent
   * that keeps maps from before an exec has other maps than its children:
   * those forked while it keeps one generation share one of their own. */
  if (from != NULL && from->before_exec->len == 0)
    to->generation = from->generation;
  else if (from != NULL)
    {
      if (from->children_of != from->generation || from->children_generation == 0)
        {
          from->children_generation = self->next_generation++;
          from->children_of = from->generation;
        }
      to->generation = from->children_generation;
    }
}

void
rsp_maps_exec (RspMaps *self, gint32 pid)
{
  RspProcessMaps *proc;
  GArray *old;

  g_return_if_fail (self != NULL);
  proc = get_or_create (self, pid);
  old = proc->before_exec;
  proc->before_exec = proc->maps;
  proc->maps = old;
  g_array_set_size (proc->maps, 0);
}
