/* rsp-maps.h — the address space of each process, as the recording tells it.
 *
 * Built from MMAP/MMAP2 (a mapping), FORK (a new process starts with a copy
 * of its parent's maps), COMM with the exec flag (an exec starts an empty
 * address space).  The maps of the image before the last exec stay as a
 * fallback for addresses the new image does not map: the samples taken
 * inside execve() itself, after the exec record, still carry the old
 * image's user stack (perf, which never drops maps on exec, shows them in
 * the old libc, and so do we).
 * EXIT keeps the maps: samples and late records of a process can follow its
 * exit record, and perf keeps them too; a FORK reusing the pid replaces them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 start, end; /* [start, end) in the process */
  guint64 pgoff;      /* file offset of start */
  const char *filename; /* owned by the caller (the symbolizer interns it) */
  guint8 build_id_size;
  guint8 memfd;       /* the file is a memfd ("/memfd:..."): JIT code, perhaps */
  guint8 build_id[20];
  gpointer dso;       /* the symbolizer's binary record, resolved lazily */
} RspMap;

typedef struct {
  gint32 pid;
  /* changes whenever the maps change; a child forked from a process
   * shares its generation while the two maps are the same copy (neither
   * changed since the fork, and the parent kept no maps from before an
   * exec): two processes of one generation have the same maps */
  guint generation;
  guint children_generation, children_of; /* the generation of the children forked while this one was CHILDREN_OF */
  GArray *maps;     /* RspMap sorted by start, not overlapping */
  GArray *before_exec; /* the maps before the last exec, same order */
} RspProcessMaps;

typedef struct _RspMaps RspMaps;

RspMaps *rsp_maps_new (void);
void rsp_maps_free (RspMaps *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspMaps, rsp_maps_free)

/* Adds MAP to PID; whatever it overlaps is cut away, as mmap does. */
void rsp_maps_add (RspMaps *self, gint32 pid, const RspMap *map);
/* CHILD starts with a copy of PARENT's maps (empty if PARENT is unknown). */
void rsp_maps_fork (RspMaps *self, gint32 parent, gint32 child);
/* PID exec'd: its old maps are gone. */
void rsp_maps_exec (RspMaps *self, gint32 pid);

/* NULL when PID was never seen.  The pointer stays valid for the lifetime
 * of SELF. */
RspProcessMaps *rsp_maps_get (RspMaps *self, gint32 pid);
/* The map of PROC containing ADDR (current image first, then the image
 * before the last exec), or NULL. */
RspMap *rsp_process_maps_find (RspProcessMaps *proc, guint64 addr);

/* Number of processes known (tests, stats). */
guint rsp_maps_n_processes (RspMaps *self);

G_END_DECLS
