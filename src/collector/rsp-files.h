/* rsp-files.h — the files behind disk waits: which file a device and inode
 * number are.
 *
 * The tracefs instance records, in the task that does the I/O, the device
 * and inode of the file it reads (readahead:page_cache_sync_ra and
 * page_cache_async_ra: a read that misses the page cache; page faults of
 * mapped files), syncs (ext4:ext4_sync_file_enter,
 * filemap:file_check_and_advance_wb_err), waits for the writeback of
 * (writeback:folio_wait_writeback), reads or writes directly
 * (iomap:iomap_dio_rw_begin), and the flusher's writeback of an inode
 * (writeback:writeback_single_inode_start).  Tracepoints carry no path and
 * this kernel offers no kprobes to fetch one, so rsp record names the
 * inodes when the recording ends, from what the machine shows: the files
 * every process had open and mapped when the recording started and when
 * it ended (/proc/PID/fd, /proc/PID/maps), then a walk of the directories
 * near the files named and where the processes worked, bounded in entries
 * and time.  rsp record also names them while recording (a second, live
 * instance: rsp-recorder-ftrace.c).  A file found by none keeps its device
 * and inode.
 *
 * The names go into the recording's "files" section, one line per file:
 * "MAJOR MINOR INODE PATH\n" (decimal; the path is the rest of the line,
 * with control characters replaced by '?').  Device numbers are the
 * kernel's (MAJOR << 20 | MINOR in tracepoints).
 */
#pragma once

#include <glib.h>

#include "rsp-event.h"

G_BEGIN_DECLS

#define RSP_SECTION_FILES "files"

/* A file as the kernel names it: device (kernel encoding, MAJOR << 20 |
 * MINOR; 0 when the event gave none) and inode. */
typedef struct {
  guint32 dev;
  guint64 ino;
} RspFileId;

guint rsp_file_id_hash (gconstpointer id);
gboolean rsp_file_id_equal (gconstpointer a, gconstpointer b);

#define RSP_KDEV_MAJOR(d) ((guint32) (d) >> 20)
#define RSP_KDEV_MINOR(d) ((guint32) (d) & 0xfffffu)
#define RSP_KDEV(major, minor) (((guint32) (major) << 20) | ((guint32) (minor) & 0xfffffu))

/* A set of RspFileId to name, and what names them. */
typedef struct _RspFileNames RspFileNames;

RspFileNames *rsp_file_names_new (void);
void rsp_file_names_free (RspFileNames *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspFileNames, rsp_file_names_free)

/* Adds what the processes under PROC_ROOT ("/proc") have open and mapped,
 * and their working directories as places to look first.  Returns the
 * number of files seen. */
guint rsp_file_names_snapshot (RspFileNames *self, const char *proc_root);

/* Adds what process (or thread) PID under PROC_ROOT has open and mapped
 * now: the live naming while recording, right after its I/O.  Returns the
 * number of files seen. */
guint rsp_file_names_snapshot_pid (RspFileNames *self, const char *proc_root, gint32 pid);
/* Whether ID has a name already. */
gboolean rsp_file_names_has (const RspFileNames *self, RspFileId id);

/* Marks ID as wanted: a file the recording's events name. */
void rsp_file_names_want (RspFileNames *self, RspFileId id);
/* Looks for the wanted files not named yet in the directories of the files
 * named, the processes' working directories and their subdirectories, then
 * under ROOT if not NULL, on the file systems of the wanted files only,
 * visiting at most MAX_ENTRIES directory entries and for half a second at
 * most.  Returns the number of files it named. */
guint rsp_file_names_walk (RspFileNames *self, const char *root, guint max_entries);
guint rsp_file_names_n_wanted (const RspFileNames *self);
guint rsp_file_names_n_named (const RspFileNames *self);

/* The "files" section for the wanted files that have a name. */
GBytes *rsp_file_names_section (const RspFileNames *self);

/* The stored names: (dev, ino) -> path. */
typedef struct _RspFileTable RspFileTable;

/* Parses a "files" section; bad lines are skipped and counted. */
RspFileTable *rsp_file_table_parse (const guint8 *data, gsize size, guint *n_bad);
void rsp_file_table_free (RspFileTable *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspFileTable, rsp_file_table_free)
/* The path of ID, or NULL.  An ID without a device (0) matches an inode
 * that only one stored file has. */
const char *rsp_file_table_lookup (const RspFileTable *self, RspFileId id);
/* The same in two steps, for a caller that keeps something per stored
 * name: the entry of ID (0 to rsp_file_table_size() - 1), or -1; its path. */
gint rsp_file_table_find (const RspFileTable *self, RspFileId id);
const char *rsp_file_table_path (const RspFileTable *self, guint entry);
guint rsp_file_table_size (const RspFileTable *self);

/* The tracepoints that name a file, "system:name", NULL-terminated: the
 * instance records them (rsp-ftrace.c). */
const char *const *rsp_file_events (void);
/* Whether EVENT_NAME is one of them. */
gboolean rsp_file_event_is (const char *event_name);
/* The file EVENT (a sample of one of them) names; FALSE if it is not one or
 * names none. */
gboolean rsp_file_event_read (const RspEvent *event, RspFileId *id);
/* The fields rsp_file_event_read() reads of EVSEL's events, looked up once
 * by a reader of many: the inode's, the device's (NULL if the format has
 * none) and whether that is a backing device's name ("MAJ:MIN") instead
 * of a dev_t.  FALSE if EVSEL is no file event or its format names no
 * inode. */
typedef struct {
  const struct tep_format_field *dev;
  const struct tep_format_field *ino;
  gboolean dev_is_bdi;
} RspFileEventFields;
gboolean rsp_file_event_fields (const RspEvsel *evsel, RspFileEventFields *fields);
/* rsp_file_event_read() with FIELDS looked up before (FALSE when they
 * name no inode). */
gboolean rsp_file_event_read_with (const RspEvent *event, const RspFileEventFields *fields, RspFileId *id);

/* The device of a backing device's name ("254:0"), 0 if it is not one. */
guint32 rsp_file_dev_from_bdi (const char *name);

G_END_DECLS
