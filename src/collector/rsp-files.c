/* rsp-files.c — naming the files behind disk waits (see the header). */
#include "rsp-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "rsp-perf-reader.h"

#define WALK_MS 500 /* the walk's time bound, beside its entry bound */

guint
rsp_file_id_hash (gconstpointer p)
{
  const RspFileId *id = p;
  return (guint) (id->ino ^ (id->ino >> 32)) * 31u + id->dev;
}

gboolean
rsp_file_id_equal (gconstpointer a, gconstpointer b)
{
  const RspFileId *x = a, *y = b;
  return x->dev == y->dev && x->ino == y->ino;
}

static RspFileId *
file_id_dup (RspFileId id)
{
  return g_memdup2 (&id, sizeof id);
}

struct _RspFileNames {
  GHashTable *names;   /* RspFileId -> char *path: everything seen */
  GHashTable *by_ino;  /* ino (guint64 *) -> RspFileId * in names, NULL if several devices */
  GHashTable *wanted;  /* RspFileId set */
  GPtrArray *hints;    /* char *: directories to walk first */
  GHashTable *hint_set;
};

RspFileNames *
rsp_file_names_new (void)
{
  RspFileNames *self = g_new0 (RspFileNames, 1);
  self->names = g_hash_table_new_full (rsp_file_id_hash, rsp_file_id_equal, g_free, g_free);
  self->by_ino = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->wanted = g_hash_table_new_full (rsp_file_id_hash, rsp_file_id_equal, g_free, NULL);
  self->hints = g_ptr_array_new_with_free_func (g_free);
  self->hint_set = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

void
rsp_file_names_free (RspFileNames *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_ino);
  g_hash_table_unref (self->names);
  g_hash_table_unref (self->wanted);
  g_hash_table_unref (self->hint_set);
  g_ptr_array_unref (self->hints);
  g_free (self);
}

static void
add_hint (RspFileNames *self, const char *dir)
{
  /* "/" is walked last anyway */
  if (dir == NULL || dir[0] != '/' || dir[1] == '\0' || g_hash_table_contains (self->hint_set, dir))
    return;
  char *copy = g_strdup (dir);
  g_ptr_array_add (self->hints, copy);
  g_hash_table_add (self->hint_set, copy);
}

/* Indexes KEY (owned by the names table) by its inode alone: the one file
 * of that inode, or NULL once two devices have it. */
static void
index_by_ino (GHashTable *by_ino, const RspFileId *key)
{
  gpointer old;
  if (!g_hash_table_lookup_extended (by_ino, &key->ino, NULL, &old))
    g_hash_table_insert (by_ino, g_memdup2 (&key->ino, sizeof key->ino), (gpointer) key);
  else if (old != NULL && !rsp_file_id_equal (old, key))
    g_hash_table_insert (by_ino, g_memdup2 (&key->ino, sizeof key->ino), NULL);
}

/* Keeps the first name seen for ID (the start's: a file renamed later was
 * that file when it was waited for). */
static gboolean
add_name (RspFileNames *self, RspFileId id, const char *path)
{
  if (path == NULL || path[0] != '/' || g_hash_table_contains (self->names, &id))
    return FALSE;
  RspFileId *key = file_id_dup (id);
  g_hash_table_insert (self->names, key, g_strdup (path));
  index_by_ino (self->by_ino, key);
  return TRUE;
}

static RspFileId
id_of_stat (const struct stat *st)
{
  RspFileId id = { RSP_KDEV (major (st->st_dev), minor (st->st_dev)), (guint64) st->st_ino };
  return id;
}

static guint
snapshot_fds (RspFileNames *self, const char *pid_dir)
{
  g_autofree char *fd_dir = g_build_filename (pid_dir, "fd", NULL);
  DIR *d = opendir (fd_dir);
  if (d == NULL)
    return 0;
  guint n = 0;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (e->d_name[0] == '.')
        continue;
      g_autofree char *link = g_build_filename (fd_dir, e->d_name, NULL);
      struct stat st;
      if (stat (link, &st) != 0 || !(S_ISREG (st.st_mode) || S_ISDIR (st.st_mode)))
        continue;
      char target[4096];
      ssize_t len = readlink (link, target, sizeof target - 1);
      if (len <= 0)
        continue;
      target[len] = '\0';
      n += add_name (self, id_of_stat (&st), target);
    }
  closedir (d);
  return n;
}

/* "55d0c8a4e000-55d0c8a50000 r--p 00000000 fe:01 1234 /usr/bin/cat" */
static guint
snapshot_maps (RspFileNames *self, const char *pid_dir)
{
  g_autofree char *path = g_build_filename (pid_dir, "maps", NULL);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return 0;
  guint n = 0;
  char line[4096 + 128];
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned int major_no, minor_no;
      unsigned long long ino;
      int name_at = 0;
      if (sscanf (line, "%*s %*s %*s %x:%x %llu %n", &major_no, &minor_no, &ino, &name_at) != 3 || ino == 0
          || name_at <= 0 || line[name_at] != '/')
        continue;
      line[strcspn (line, "\n")] = '\0';
      RspFileId id = { RSP_KDEV (major_no, minor_no), ino };
      n += add_name (self, id, line + name_at);
    }
  fclose (f);
  return n;
}

guint
rsp_file_names_snapshot (RspFileNames *self, const char *proc_root)
{
  g_return_val_if_fail (self != NULL && proc_root != NULL, 0);
  DIR *d = opendir (proc_root);
  if (d == NULL)
    return 0;
  guint n = 0;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (!g_ascii_isdigit (e->d_name[0]))
        continue;
      g_autofree char *pid_dir = g_build_filename (proc_root, e->d_name, NULL);
      n += snapshot_fds (self, pid_dir);
      n += snapshot_maps (self, pid_dir);
      g_autofree char *cwd_link = g_build_filename (pid_dir, "cwd", NULL);
      char cwd[4096];
      ssize_t len = readlink (cwd_link, cwd, sizeof cwd - 1);
      if (len > 0)
        {
          cwd[len] = '\0';
          add_hint (self, cwd);
        }
    }
  closedir (d);
  return n;
}

static const char *
name_of (const RspFileNames *self, const RspFileId *id)
{
  if (id->dev != 0)
    return g_hash_table_lookup (self->names, id);
  const RspFileId *only = g_hash_table_lookup (self->by_ino, &id->ino);
  return only != NULL ? g_hash_table_lookup (self->names, only) : NULL;
}

guint
rsp_file_names_snapshot_pid (RspFileNames *self, const char *proc_root, gint32 pid)
{
  g_return_val_if_fail (self != NULL && proc_root != NULL, 0);
  if (pid <= 0)
    return 0;
  g_autofree char *pid_dir = g_strdup_printf ("%s/%d", proc_root, (int) pid);
  return snapshot_fds (self, pid_dir) + snapshot_maps (self, pid_dir);
}

gboolean
rsp_file_names_has (const RspFileNames *self, RspFileId id)
{
  return self != NULL && name_of (self, &id) != NULL;
}

void
rsp_file_names_want (RspFileNames *self, RspFileId id)
{
  g_return_if_fail (self != NULL);
  if (id.ino != 0 && !g_hash_table_contains (self->wanted, &id))
    g_hash_table_add (self->wanted, file_id_dup (id));
}


guint
rsp_file_names_n_wanted (const RspFileNames *self)
{
  return g_hash_table_size (self->wanted);
}

guint
rsp_file_names_n_named (const RspFileNames *self)
{
  guint n = 0;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, self->wanted);
  while (g_hash_table_iter_next (&it, &key, NULL))
    n += name_of (self, key) != NULL;
  return n;
}

typedef struct {
  RspFileNames *self;
  GHashTable *unnamed_inos; /* guint64 set: wanted inodes without a name */
  GHashTable *devs;         /* devices (GUINT_TO_POINTER) with an unnamed wanted file; 0: any */
  gboolean any_dev;
  GHashTable *visited;      /* RspFileId of directories */
  GQueue queue;             /* char *: directories to read */
  guint entries, max_entries, named;
  guint unnamed;            /* wanted files without a name when the walk began */
  gint64 deadline;
} Walk;

static gboolean
walk_wants_dev (const Walk *w, guint32 dev)
{
  return w->any_dev || g_hash_table_contains (w->devs, GUINT_TO_POINTER (dev));
}

static void
walk_push (Walk *w, const char *dir)
{
  struct stat st;
  if (lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    return;
  RspFileId id = id_of_stat (&st);
  if (!walk_wants_dev (w, id.dev) || g_hash_table_contains (w->visited, &id))
    return;
  g_hash_table_add (w->visited, file_id_dup (id));
  g_queue_push_tail (&w->queue, g_strdup (dir));
}

static void
walk_dir (Walk *w, const char *dir)
{
  DIR *d = opendir (dir);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir (d)) != NULL && w->entries < w->max_entries)
    {
      w->entries++;
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      guint64 ino = (guint64) e->d_ino;
      gboolean wanted = g_hash_table_contains (w->unnamed_inos, &ino);
      gboolean is_dir = e->d_type == DT_DIR || e->d_type == DT_UNKNOWN;
      if (!wanted && !is_dir)
        continue;
      g_autofree char *path = g_build_filename (dir, e->d_name, NULL);
      if (wanted)
        {
          struct stat st;
          if (lstat (path, &st) == 0 && (S_ISREG (st.st_mode) || S_ISDIR (st.st_mode)))
            {
              RspFileId id = id_of_stat (&st);
              RspFileId any = { 0, id.ino };
              if ((g_hash_table_contains (w->self->wanted, &id) || g_hash_table_contains (w->self->wanted, &any))
                  && add_name (w->self, id, path))
                w->named++;
            }
        }
      if (is_dir)
        walk_push (w, path);
    }
  closedir (d);
}

guint
rsp_file_names_walk (RspFileNames *self, const char *root, guint max_entries)
{
  g_return_val_if_fail (self != NULL, 0);
  Walk w = { self };
  w.unnamed_inos = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  w.devs = g_hash_table_new (g_direct_hash, g_direct_equal);
  w.visited = g_hash_table_new_full (rsp_file_id_hash, rsp_file_id_equal, g_free, NULL);
  g_queue_init (&w.queue);
  w.max_entries = max_entries;
  w.deadline = g_get_monotonic_time () + WALK_MS * 1000;

  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, self->wanted);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      const RspFileId *id = key;
      if (name_of (self, id) != NULL)
        continue;
      w.unnamed++;
      g_hash_table_add (w.unnamed_inos, g_memdup2 (&id->ino, sizeof id->ino));
      if (id->dev == 0)
        w.any_dev = TRUE;
      else
        g_hash_table_add (w.devs, GUINT_TO_POINTER (id->dev));
    }
  if (w.unnamed > 0)
    {
      /* the directories of the files named (a deleted journal's
       * database), where the processes worked, then ROOT if given */
      GHashTableIter names;
      gpointer path;
      g_hash_table_iter_init (&names, self->names);
      while (g_hash_table_iter_next (&names, NULL, &path))
        {
          g_autofree char *dir = g_path_get_dirname (path);
          if (!g_str_has_suffix (path, " (deleted)"))
            add_hint (self, dir);
        }
      for (guint i = 0; i < self->hints->len; i++)
        walk_push (&w, g_ptr_array_index (self->hints, i));
      if (root != NULL)
        walk_push (&w, root);
      char *dir;
      while ((dir = g_queue_pop_head (&w.queue)) != NULL)
        {
          if (w.entries < w.max_entries && g_get_monotonic_time () < w.deadline
              && w.named < w.unnamed)
            walk_dir (&w, dir);
          g_free (dir);
        }
    }
  g_queue_clear_full (&w.queue, g_free);
  g_hash_table_unref (w.visited);
  g_hash_table_unref (w.devs);
  g_hash_table_unref (w.unnamed_inos);
  return w.named;
}

static void
append_clean (GString *out, const char *s)
{
  for (const char *p = s; *p != '\0'; p++)
    g_string_append_c (out, (guchar) *p < 0x20 || *p == 0x7f ? '?' : *p);
}

GBytes *
rsp_file_names_section (const RspFileNames *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  GString *out = g_string_new (NULL);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, self->wanted);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      RspFileId id = *(const RspFileId *) key;
      const char *path = name_of (self, &id);
      if (path == NULL)
        continue;
      if (id.dev == 0)
        id = *(const RspFileId *) g_hash_table_lookup (self->by_ino, &id.ino);
      g_string_append_printf (out, "%u %u %" G_GUINT64_FORMAT " ", RSP_KDEV_MAJOR (id.dev), RSP_KDEV_MINOR (id.dev),
                              id.ino);
      append_clean (out, path);
      g_string_append_c (out, '\n');
    }
  gsize len = out->len;
  return g_bytes_new_take (g_string_free (out, FALSE), len);
}

/* Flat: one copy of the section, each path ended by a NUL in place of its
 * newline, and two open-addressed indexes of entry numbers.  A recording
 * of a copy of many files stores tens of thousands of names, and three
 * blocks of memory per name (in GLib hash tables) made up a fifth of its
 * report, half of it in freeing them. */
typedef struct {
  guint64 ino;
  guint32 dev;
  guint32 path : 31;      /* offset of its path in text */
  guint32 ino_shared : 1; /* the first entry of its inode, and another device has that inode too */
} FileEntry;

/* A slot of the index by id: the id with its entry, so that a lookup
 * reads one line of memory to find its entry (a cold read of many files
 * looks up each once: reading the entry to compare was two thirds of
 * it). */
typedef struct {
  guint64 ino;
  guint32 dev;
  guint32 entry; /* + 1, or 0: empty */
} IdSlot;

struct _RspFileTable {
  char *text;
  FileEntry *entries; /* the first line of each id, in the section's order */
  guint n;
  IdSlot *by_id;
  guint32 *by_ino; /* the first entry of the inode + 1, or 0 */
  guint64 mask;    /* the indexes' size less one (a power of two) */
};

static guint64
mix (guint64 x)
{
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  return x;
}

/* The slot of ID in by_id: its entry's, or the empty one it would take. */
static guint64
id_slot (const RspFileTable *self, RspFileId id)
{
  guint64 k = mix (id.ino ^ ((guint64) id.dev << 44) ^ ((guint64) id.dev >> 20)) & self->mask;
  for (; self->by_id[k].entry != 0; k = (k + 1) & self->mask)
    if (self->by_id[k].ino == id.ino && self->by_id[k].dev == id.dev)
      break;
  return k;
}

/* The slot of INO in by_ino, in the same way. */
static guint64
ino_slot (const RspFileTable *self, guint64 ino)
{
  guint64 k = mix (ino) & self->mask;
  for (; self->by_ino[k] != 0 && self->entries[self->by_ino[k] - 1].ino != ino; k = (k + 1) & self->mask)
    ;
  return k;
}

/* A line's next field: blanks, then decimal digits for a number at most
 * MAX, then at least one blank.  Advances *P past them. */
static gboolean
table_number (const char **p, const char *end, guint64 max, guint64 *value)
{
  const char *q = *p;
  while (q < end && (*q == ' ' || *q == '\t'))
    q++;
  guint64 v = 0;
  const char *digits = q;
  for (; q < end && g_ascii_isdigit (*q); q++)
    {
      guint d = (guint) (*q - '0');
      if (v > (max - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  if (q == digits || q == end || (*q != ' ' && *q != '\t'))
    return FALSE;
  while (q < end && (*q == ' ' || *q == '\t'))
    q++;
  *p = q;
  *value = v;
  return TRUE;
}

RspFileTable *
rsp_file_table_parse (const guint8 *data, gsize size, guint *n_bad)
{
  RspFileTable *self = g_new0 (RspFileTable, 1);
  /* paths are offsets of 31 bits: a larger section is read up to there
   * (the recorder writes a few MB at most) */
  size = data != NULL ? MIN (size, (gsize) G_MAXINT32) : 0;
  guint64 lines = 0;
  for (const guint8 *q = data, *end = data + size; q != NULL && q < end; lines++)
    {
      q = memchr (q, '\n', (gsize) (end - q));
      q = q != NULL ? q + 1 : NULL;
    }
  guint64 slots = 16;
  while (slots < 2 * lines)
    slots *= 2;
  self->mask = slots - 1;
  self->by_id = g_new0 (IdSlot, slots);
  self->by_ino = g_new0 (guint32, slots);
  self->entries = g_new (FileEntry, MAX (lines, 1));
  self->text = g_malloc (size + 1);
  if (size > 0)
    memcpy (self->text, data, size);
  self->text[size] = '\0';

  guint bad = 0;
  char *p = self->text, *end = self->text + size;
  while (p != NULL && p < end)
    {
      char *nl = memchr (p, '\n', (gsize) (end - p));
      char *line_end = nl != NULL ? nl : end;
      gsize line_len = (gsize) (line_end - p);
      const char *line = p;
      p = nl != NULL ? nl + 1 : NULL;
      guint64 major_no, minor_no, ino;
      const char *q = line;
      if (!table_number (&q, line_end, 0xfff, &major_no) || !table_number (&q, line_end, 0xfffff, &minor_no)
          || !table_number (&q, line_end, G_MAXUINT64, &ino) || ino == 0 || q == line_end || *q != '/'
          || memchr (line, '\0', line_len) != NULL)
        {
          if (line_len > 0)
            bad++;
          continue;
        }
      RspFileId id = { RSP_KDEV ((guint32) major_no, (guint32) minor_no), ino };
      guint64 k = id_slot (self, id);
      if (self->by_id[k].entry != 0)
        continue; /* the first name of an id is kept */
      *line_end = '\0';
      self->entries[self->n] = (FileEntry){ .ino = ino, .dev = id.dev, .path = (guint32) (q - self->text) };
      self->by_id[k] = (IdSlot){ ino, id.dev, ++self->n };
      guint64 j = ino_slot (self, ino);
      if (self->by_ino[j] == 0)
        self->by_ino[j] = self->n;
      else
        self->entries[self->by_ino[j] - 1].ino_shared = TRUE;
    }
  if (n_bad != NULL)
    *n_bad = bad;
  return self;
}

void
rsp_file_table_free (RspFileTable *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_free (self->entries);
  g_free (self->by_id);
  g_free (self->by_ino);
  g_free (self);
}

gint
rsp_file_table_find (const RspFileTable *self, RspFileId id)
{
  if (self == NULL)
    return -1;
  if (id.dev != 0)
    return (gint) self->by_id[id_slot (self, id)].entry - 1;
  guint32 v = self->by_ino[ino_slot (self, id.ino)];
  return v != 0 && !self->entries[v - 1].ino_shared ? (gint) v - 1 : -1;
}

const char *
rsp_file_table_path (const RspFileTable *self, guint entry)
{
  g_return_val_if_fail (self != NULL && entry < self->n, NULL);
  return self->text + self->entries[entry].path;
}

const char *
rsp_file_table_lookup (const RspFileTable *self, RspFileId id)
{
  gint entry = rsp_file_table_find (self, id);
  return entry >= 0 ? rsp_file_table_path (self, (guint) entry) : NULL;
}

guint
rsp_file_table_size (const RspFileTable *self)
{
  return self != NULL ? self->n : 0;
}

/* Decimal digits at *P, advanced past them, at most LIMIT; FALSE when
 * there are none or the number is over LIMIT. */
static gboolean
parse_decimal (const char **p, guint32 limit, guint32 *out)
{
  const char *s = *p;
  guint32 v = 0;
  if (!g_ascii_isdigit (*s))
    return FALSE;
  for (; g_ascii_isdigit (*s); s++)
    {
      v = v * 10 + (guint32) (*s - '0');
      if (v > limit)
        return FALSE;
    }
  *p = s;
  *out = v;
  return TRUE;
}

/* "MAJ:MIN", exactly: one per writeback event, tens of thousands in a
 * flusher's burst, so not through sscanf (5% of such a report). */
guint32
rsp_file_dev_from_bdi (const char *name)
{
  guint32 major_no, minor_no;
  const char *p = name;
  if (p == NULL || !parse_decimal (&p, 0xfff, &major_no) || *p++ != ':' || !parse_decimal (&p, 0xfffff, &minor_no)
      || *p != '\0')
    return 0;
  return RSP_KDEV (major_no, minor_no);
}

/* Which field gives the device (a dev_t, or a backing device's name
 * "MAJ:MIN") and which the inode. */
static const struct {
  const char *event;
  const char *dev;
  gboolean dev_is_bdi;
  const char *ino;
} file_events[] = {
  { "readahead:page_cache_sync_ra", "s_dev", FALSE, "i_ino" },          /* a read missed the page cache */
  { "readahead:page_cache_async_ra", "s_dev", FALSE, "i_ino" },         /* a read reached pages read ahead */
  { "filemap:mm_filemap_fault", "s_dev", FALSE, "i_ino" },              /* a fault on a mapped file */
  { "filemap:file_check_and_advance_wb_err", "s_dev", FALSE, "i_ino" }, /* fsync's data written */
  { "ext4:ext4_sync_file_enter", "dev", FALSE, "ino" },                 /* fsync on ext4 begins */
  { "writeback:folio_wait_writeback", "name", TRUE, "ino" },            /* waits for a page's writeback */
  { "writeback:writeback_single_inode_start", "name", TRUE, "ino" },    /* the flusher writes an inode */
  { "iomap:iomap_dio_rw_begin", "dev", FALSE, "ino" },                  /* direct I/O */
};

const char *const *
rsp_file_events (void)
{
  static const char *names[G_N_ELEMENTS (file_events) + 1];
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      for (gsize i = 0; i < G_N_ELEMENTS (file_events); i++)
        names[i] = file_events[i].event;
      g_once_init_leave (&once, 1);
    }
  return names;
}

static gint
file_event_index (const char *event_name)
{
  for (gsize i = 0; event_name != NULL && i < G_N_ELEMENTS (file_events); i++)
    if (strcmp (event_name, file_events[i].event) == 0)
      return (gint) i;
  return -1;
}

gboolean
rsp_file_event_is (const char *event_name)
{
  return file_event_index (event_name) >= 0;
}

gboolean
rsp_file_event_fields (const RspEvsel *evsel, RspFileEventFields *fields)
{
  if (evsel == NULL || evsel->tp == NULL)
    return FALSE;
  gint k = file_event_index (evsel->name);
  if (k < 0)
    return FALSE;
  fields->dev = tep_find_field (evsel->tp, file_events[k].dev);
  fields->ino = tep_find_field (evsel->tp, file_events[k].ino);
  fields->dev_is_bdi = file_events[k].dev_is_bdi;
  return fields->ino != NULL;
}

gboolean
rsp_file_event_read_with (const RspEvent *event, const RspFileEventFields *f, RspFileId *id)
{
  guint64 ino = 0, dev = 0;
  if (f->ino == NULL || !rsp_event_read_field_u64 (event, f->ino, &ino) || ino == 0)
    return FALSE;
  if (f->dev_is_bdi)
    dev = rsp_file_dev_from_bdi (f->dev != NULL ? rsp_event_read_field_str (event, f->dev) : NULL);
  else if (f->dev == NULL || !rsp_event_read_field_u64 (event, f->dev, &dev))
    dev = 0;
  id->dev = (guint32) dev;
  id->ino = ino;
  return TRUE;
}

gboolean
rsp_file_event_read (const RspEvent *event, RspFileId *id)
{
  RspFileEventFields f;
  return event != NULL && rsp_file_event_fields (event->evsel, &f) && rsp_file_event_read_with (event, &f, id);
}
