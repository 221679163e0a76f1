/* rsp-model.c — model storage, interned stacks, queries. */
#include "rsp-model-private.h"

#include <string.h>
#include <sys/mman.h>

#include "rsp-kernel-sigs.h"

static guint32
hash_frames (const RspModelFrame *frames, guint n)
{
  guint32 h = 5381 + n;
  for (guint i = 0; i < n; i++)
    h = h * 33 + (guint32) (frames[i].ip ^ (frames[i].ip >> 29)) + GPOINTER_TO_UINT (frames[i].symbol);
  return h;
}

static gboolean
same_frames (const RspModelFrame *fa, const RspModelFrame *fb, guint n)
{
  for (guint i = 0; i < n; i++)
    if (fa[i].ip != fb[i].ip || fa[i].offset != fb[i].offset || fa[i].symbol != fb[i].symbol || fa[i].dso != fb[i].dso
        || fa[i].kernel != fb[i].kernel)
      return FALSE;
  return TRUE;
}

/* The records there is one of per context switch (rsp-model.h): their
 * first touch is much of a large recording's report */
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (sizeof (RspRun) == 48);
G_STATIC_ASSERT (sizeof (RspSleep) == 80);
G_STATIC_ASSERT (sizeof (RspLink) == 24);
#endif

/* An array of the model's: not zero-terminated, cleared as it is sized,
 * with room for N elements (0: it grows as it is filled). */
static GArray *
model_array (guint elt_size, guint n)
{
  return g_array_sized_new (FALSE, TRUE, elt_size, n);
}

RspModel *
rsp_model_new (void)
{
  RspModel *m = g_new0 (RspModel, 1);
  m->ref_count = 1;
  g_mutex_init (&m->index_lock);
  g_mutex_init (&m->names_lock);
  m->tasks = model_array (sizeof (RspTask), 0);
  m->runs = model_array (sizeof (RspRun), 0);
  m->sleeps = model_array (sizeof (RspSleep), 0);
  m->samples = model_array (sizeof (RspModelSample), 0);
  m->links = model_array (sizeof (RspLink), 0);
  m->disk_ops = model_array (sizeof (RspDiskOp), 0);
  m->net_ops = model_array (sizeof (RspNetOp), 0);
  m->sock_io = model_array (sizeof (RspSockIo), 0);
  m->probe_hits = model_array (sizeof (RspProbeHit), 0);
  m->frames = model_array (sizeof (RspModelFrame), 0);
  m->stack_index = model_array (sizeof (guint32), 0);
  m->stack_hashes = g_array_new (FALSE, FALSE, sizeof (guint32));
  m->strings = rsp_interner_new ();
  guint32 empty[2] = { 0, 0 };
  g_array_append_vals (m->stack_index, empty, 2);
  g_array_append_val (m->stack_hashes, empty[0]);
  return m;
}

/* Asks for transparent huge pages over the whole 2 MB pages of BYTES at
 * DATA.  An array of a large recording lies in a mapping of its own
 * (glibc's allocator maps each block above its threshold apart, and grows
 * it by moving the mapping, which keeps the advice), where the kernel
 * gives huge pages only when asked: filled in 4 kB pages, the runs,
 * sleeps and links of a 109 MB recording took 19% of its report in page
 * faults.  Where the kernel has none, or gives them unasked, or the block
 * lies on the heap the program advised already (rsp-heap.h), it changes
 * nothing. */
#define HUGE_PAGE ((guintptr) 2 << 20)
static void
advise_huge_pages (void *data, gsize bytes)
{
  guintptr start = ((guintptr) data + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  guintptr end = ((guintptr) data + bytes) & ~(HUGE_PAGE - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE);
}

/* Replaces the empty *ARRAY with one of room for N elements (the caller
 * keeps it to 256 MB; address space: only what is filled is ever
 * touched).  One above glibc's threshold lies in a mapping
 * of its own, advised for huge pages; reserved whole it never grows:
 * capped at 16 MB as they were, the sleeps of a 109 MB recording grew to
 * 64 MB by doubling, in 4 kB pages (17,195 page faults in its report,
 * 4,347 now; 0.83 of the time). */
static void
reserve (GArray **array, guint elt_size, guint64 n)
{
  g_array_unref (*array);
  *array = model_array (elt_size, (guint) n);
  advise_huge_pages ((*array)->data, (gsize) n * elt_size);
}

void
rsp_model_reserve_switches (RspModel *m, guint64 n_switches)
{
  guint64 n = MIN (n_switches, G_MAXUINT64 / 2);
  n += n / 8;
  /* the same room in the three (the largest element's limit) */
  n = MIN (n, (256u << 20) / MAX (MAX (sizeof (RspRun), sizeof (RspSleep)), sizeof (RspLink)));
  if (n <= 1024 || m->runs->len > 0 || m->sleeps->len > 0 || m->links->len > 0)
    return;
  reserve (&m->runs, sizeof (RspRun), n);
  reserve (&m->sleeps, sizeof (RspSleep), n);
  reserve (&m->links, sizeof (RspLink), n);
  m->switch_room = (guint) n;
}

/* The model is read-only once built, so holders on several threads (the
 * viewer's window, its pages, an analysis running beside the UI) share it
 * by reference; the count is the only thing that changes. */
RspModel *
rsp_model_ref (const RspModel *model)
{
  RspModel *m = (RspModel *) model;
  g_return_val_if_fail (m != NULL && g_atomic_int_get (&m->ref_count) > 0, NULL);
  g_atomic_int_inc (&m->ref_count);
  return m;
}

static void
disk_reach_clear (RspDiskReach *r)
{
  if (r->reach != NULL)
    g_array_unref (r->reach);
  if (r->open != NULL)
    g_array_unref (r->open);
  r->reach = r->open = NULL;
}

void
rsp_model_unref (RspModel *m)
{
  if (m == NULL || !g_atomic_int_dec_and_test (&m->ref_count))
    return;
  if (m->index != NULL)
    {
      for (guint t = 0; t < m->index->n_tasks; t++)
        {
          g_array_unref (m->index->task_runs[t]);
          if (m->index->task_disk_ops[t] != NULL)
            g_array_unref (m->index->task_disk_ops[t]);
          disk_reach_clear (&m->index->task_disk_reach[t]);
        }
      g_free (m->index->task_runs);
      g_free (m->index->task_disk_ops);
      g_free (m->index->task_disk_reach);
      g_hash_table_unref (m->index->device_ops);
      g_hash_table_unref (m->index->device_reach);
      g_free (m->index);
    }
  g_mutex_clear (&m->index_lock);
  g_mutex_clear (&m->names_lock);
  g_array_unref (m->tasks);
  g_array_unref (m->runs);
  g_array_unref (m->sleeps);
  g_array_unref (m->samples);
  g_array_unref (m->links);
  g_array_unref (m->disk_ops);
  g_array_unref (m->net_ops);
  g_array_unref (m->sock_io);
  g_array_unref (m->probe_hits);
  g_array_unref (m->frames);
  g_array_unref (m->stack_index);
  g_array_unref (m->stack_hashes);
  g_free (m->stack_slots);
  rsp_recording_meta_free (m->meta);
  g_clear_pointer (&m->symbolizer, rsp_symbolizer_free);
  g_clear_pointer (&m->describing, g_ptr_array_unref);
  rsp_interner_free (m->strings);
  g_free (m);
}

/* The slot of stack_slots that holds the stack of N FRAMES (hash HASH), or
 * the free one (0) where it belongs. */
static guint32 *
stack_slot (RspModel *m, guint32 hash, const RspModelFrame *frames, guint n)
{
  for (guint32 i = hash & m->stack_mask;; i = (i + 1) & m->stack_mask)
    {
      guint32 id = m->stack_slots[i];
      if (id == 0)
        return &m->stack_slots[i];
      if (g_array_index (m->stack_hashes, guint32, id) == hash && g_array_index (m->stack_index, guint32, 2 * id + 1) == n
          && same_frames (&g_array_index (m->frames, RspModelFrame, g_array_index (m->stack_index, guint32, 2 * id)),
                          frames, n))
        return &m->stack_slots[i];
    }
}

/* Room for one more stack in stack_slots, kept at most half full. */
static void
stack_slots_grow (RspModel *m)
{
  guint64 n_slots = m->stack_slots != NULL ? (guint64) m->stack_mask + 1 : 0;
  guint32 n_stacks = m->stack_hashes->len; /* with the empty stack, never in a slot */
  if (2 * (guint64) n_stacks <= n_slots)
    return;
  guint64 n = MAX (n_slots * 2, 1024);
  if (n > G_MAXUINT32)
    g_error ("more than 2^31 distinct stacks"); /* tens of GB of frames before that */
  g_free (m->stack_slots);
  m->stack_slots = g_new0 (guint32, (gsize) n);
  m->stack_mask = (guint32) (n - 1);
  for (guint32 id = 1; id < n_stacks; id++)
    {
      guint32 i = g_array_index (m->stack_hashes, guint32, id) & m->stack_mask;
      while (m->stack_slots[i] != 0)
        i = (i + 1) & m->stack_mask;
      m->stack_slots[i] = id;
    }
}

RspStackId
rsp_model_intern_stack (RspModel *m, const RspModelFrame *frames, guint n)
{
  if (n == 0)
    return 0;
  stack_slots_grow (m);
  guint32 hash = hash_frames (frames, n);
  guint32 *slot = stack_slot (m, hash, frames, n);
  if (*slot != 0)
    return *slot;
  RspStackId id = m->stack_hashes->len;
  guint32 entry[2] = { m->frames->len, n };
  g_array_append_vals (m->frames, frames, n);
  g_array_append_vals (m->stack_index, entry, 2);
  g_array_append_val (m->stack_hashes, hash);
  *slot = id;
  return id;
}

const RspModelFrame *
rsp_model_stack (const RspModel *m, RspStackId stack, guint *n_frames)
{
  rsp_model_name_frames (m);
  return rsp_model_stack_unnamed (m, stack, n_frames);
}

const RspModelFrame *
rsp_model_stack_unnamed (const RspModel *m, RspStackId stack, guint *n_frames)
{
  if (stack == 0 || stack >= m->stack_index->len / 2)
    {
      *n_frames = 0;
      return NULL;
    }
  guint32 offset = g_array_index (m->stack_index, guint32, 2 * stack);
  *n_frames = g_array_index (m->stack_index, guint32, 2 * stack + 1);
  return &g_array_index (m->frames, RspModelFrame, offset);
}

const char *
rsp_model_intern (RspModel *m, const char *text)
{
  return rsp_interner_intern (m->strings, text);
}

/* The frame that names STACK.  A binary without symbols is named "[cc1]",
 * a string kept in STRINGS (and in BINARIES by its dso, when not NULL);
 * with STRINGS NULL such a stack has no name. */
static const char *
compute_describing_frame (const RspModel *m, RspStackId stack, RspInterner *strings, GHashTable *binaries)
{
  guint n;
  const RspModelFrame *frames = rsp_model_stack_unnamed (m, stack, &n);
  const char *user_dso = NULL;
  for (guint i = 0; i < n; i++)
    if (!frames[i].kernel)
      {
        if (frames[i].symbol != NULL)
          return frames[i].symbol;
        if (user_dso == NULL)
          user_dso = frames[i].dso;
      }
  if (user_dso != NULL && strings != NULL)
    {
      /* a binary without symbols: name the binary, as perf's "[unknown] (cc1)" */
      const char *known = binaries != NULL ? g_hash_table_lookup (binaries, user_dso) : NULL;
      if (known != NULL)
        return known;
      g_autofree char *base = g_path_get_basename (user_dso);
      g_autofree char *label = g_strdup_printf ("[%s]", base);
      const char *interned = rsp_interner_intern (strings, label);
      if (binaries != NULL)
        g_hash_table_insert (binaries, (gpointer) user_dso, (gpointer) interned);
      return interned;
    }
  for (guint i = 0; i < n; i++)
    if (frames[i].kernel && frames[i].symbol != NULL && rsp_kernel_sig (frames[i].symbol) != RSP_SIG_SCHED)
      return frames[i].symbol;
  for (guint i = 0; i < n; i++)
    if (frames[i].symbol != NULL)
      return frames[i].symbol;
  return NULL;
}

/* "0x" and V in lower-case hex at P; returns the end. */
static char *
put_hex (char *p, guint64 v)
{
  char digits[16];
  guint n = 0;
  do
    {
      digits[n++] = "0123456789abcdef"[v & 0xf];
      v >>= 4;
    }
  while (v != 0);
  *p++ = '0';
  *p++ = 'x';
  while (n > 0)
    *p++ = digits[--n];
  return p;
}

/* Labels already made, by (prefix, value): a frame's address repeats in
 * every stack it is part of, and each label costs formatting, hashing and
 * a lookup in the string chunk.  Open addressing over a power-of-two
 * table; the prefixes are interned (or static), so equal pointers mean
 * equal text, and a hit returns what rsp_interner_intern() gave
 * for the same text. */
typedef struct {
  const char *prefix;
  guint64 value;
  const char *label; /* NULL: an empty slot */
} LabelSlot;

typedef struct {
  GHashTable *bases; /* dso -> interned "BASE+" */
  LabelSlot *slots;
  gsize mask, used;
} LabelCache;

static gsize
label_hash (const char *prefix, guint64 value)
{
  guint64 h = (guint64) (guintptr) prefix * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ value;
  h ^= h >> 29;
  h *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  return (gsize) (h ^ (h >> 32));
}

static LabelSlot *
label_slot (LabelCache *c, const char *prefix, guint64 value)
{
  if (2 * (c->used + 1) > c->mask + 1)
    {
      gsize old_n = c->slots != NULL ? c->mask + 1 : 0;
      LabelSlot *old = c->slots;
      gsize n = MAX (old_n * 2, 1024);
      c->slots = g_new0 (LabelSlot, n);
      c->mask = n - 1;
      for (gsize i = 0; i < old_n; i++)
        if (old[i].label != NULL)
          {
            gsize k = label_hash (old[i].prefix, old[i].value) & c->mask;
            while (c->slots[k].label != NULL)
              k = (k + 1) & c->mask;
            c->slots[k] = old[i];
          }
      g_free (old);
    }
  gsize k = label_hash (prefix, value) & c->mask;
  while (c->slots[k].label != NULL && (c->slots[k].prefix != prefix || c->slots[k].value != value))
    k = (k + 1) & c->mask;
  return &c->slots[k];
}

/* The label of a frame without a symbol: "[kernel] 0x..", "[unmapped]
 * 0x..", "[anon] 0x.." or "BINARY+0x.." (BINARY the mapping's base name,
 * found once per mapping in C's bases).  Written by hand: formatting them
 * was a tenth of a report of a build, whose compilers have no symbols. */
static const char *
frame_label (RspModel *m, const RspModelFrame *f, LabelCache *c)
{
  if (f->symbol != NULL)
    return f->symbol;
  const char *prefix;
  guint64 value = f->ip;
  if (f->kernel)
    prefix = "[kernel] ";
  else if (f->dso == NULL)
    prefix = "[unmapped] ";
  else if (g_str_has_prefix (f->dso, "//anon") || g_str_has_prefix (f->dso, "[anon"))
    prefix = "[anon] ";
  else
    {
      prefix = g_hash_table_lookup (c->bases, f->dso);
      if (prefix == NULL)
        {
          g_autofree char *base = g_path_get_basename (f->dso);
          g_autofree char *with_plus = g_strconcat (base, "+", NULL);
          prefix = rsp_interner_intern (m->strings, with_plus);
          g_hash_table_insert (c->bases, (gpointer) f->dso, (gpointer) prefix);
        }
      value = f->offset;
    }
  LabelSlot *slot = label_slot (c, prefix, value);
  if (slot->label != NULL)
    return slot->label;
  gsize len = strlen (prefix);
  char stack_buf[256];
  char *buf = len + 19 <= sizeof stack_buf ? stack_buf : g_malloc (len + 19);
  memcpy (buf, prefix, len);
  char *end = put_hex (buf + len, value);
  *end = '\0';
  const char *label = rsp_interner_intern_len (m->strings, buf, (gsize) (end - buf));
  if (buf != stack_buf)
    g_free (buf);
  *slot = (LabelSlot) { prefix, value, label };
  c->used++;
  return label;
}

void
rsp_model_compute_frames (RspModel *m)
{
  GHashTable *binaries = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint n = m->stack_index->len / 2;
  g_clear_pointer (&m->describing, g_ptr_array_unref);
  m->describing = g_ptr_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (m->describing, (gpointer) compute_describing_frame (m, i, m->strings, binaries));
  g_hash_table_unref (binaries);
}

void
rsp_model_name_frames (const RspModel *cm)
{
  RspModel *m = (RspModel *) cm; /* the names are a cache: the frames stay as they are */
  if (g_atomic_int_get (&m->frames_named))
    return;
  g_mutex_lock (&m->names_lock);
  /* describing is set when the assembler is done: no frame comes after */
  if (!m->frames_named && m->describing != NULL)
    {
      LabelCache c = { g_hash_table_new (g_direct_hash, g_direct_equal), NULL, 0, 0 };
      for (guint i = 0; i < m->frames->len; i++)
        {
          RspModelFrame *f = &g_array_index (m->frames, RspModelFrame, i);
          f->name = frame_label (m, f, &c);
        }
      g_hash_table_unref (c.bases);
      g_free (c.slots);
      g_atomic_int_set (&m->frames_named, 1);
    }
  g_mutex_unlock (&m->names_lock);
}

static const char *
describing_frame (const RspModel *m, RspStackId stack)
{
  if (m->describing != NULL && stack < m->describing->len)
    return g_ptr_array_index (m->describing, stack);
  /* not reached once the model is built: rsp_model_compute_frames covers
   * every stack */
  return compute_describing_frame (m, stack, NULL, NULL);
}

const char *
rsp_model_sleep_frame (const RspModel *m, RspIdx sleep)
{
  return describing_frame (m, g_array_index (m->sleeps, RspSleep, sleep).stack);
}

const char *
rsp_model_sample_frame (const RspModel *m, RspIdx sample)
{
  return describing_frame (m, g_array_index (m->samples, RspModelSample, sample).stack);
}

#define ACCESSOR(name, type, array)                                                                      \
  guint rsp_model_n_##name##s (const RspModel *m) { return m->array->len; }                               \
  const type *rsp_model_##name (const RspModel *m, RspIdx i)                                             \
  {                                                                                                      \
    g_return_val_if_fail (i < m->array->len, NULL);                                                       \
    return &g_array_index (m->array, type, i);                                                           \
  }

/* REACH and OPEN (RspDiskReach) over the disk operations LIST names; REACH
 * stays NULL when IN_ORDER_ONLY and LIST's operations are not in insert
 * order. */
static RspDiskReach
completion_reach (const RspModel *m, const GArray *list, gboolean in_order_only)
{
  RspDiskReach r = { NULL, NULL };
  GArray *reach = g_array_sized_new (FALSE, FALSE, sizeof (guint64), list->len);
  g_array_set_size (reach, list->len);
  guint64 latest = 0, last_insert = 0;
  for (guint i = 0; i < list->len; i++)
    {
      const RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, g_array_index (list, RspIdx, i));
      if (in_order_only && op->insert < last_insert)
        {
          g_array_unref (reach);
          if (r.open != NULL)
            g_array_unref (r.open);
          return (RspDiskReach) { NULL, NULL };
        }
      last_insert = op->insert;
      if (op->complete == 0)
        {
          if (r.open == NULL)
            r.open = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (r.open, i);
        }
      latest = MAX (latest, op->complete);
      g_array_index (reach, guint64, i) = latest;
    }
  r.reach = reach;
  return r;
}

static void
disk_reach_free (gpointer data)
{
  disk_reach_clear (data);
  g_free (data);
}

guint8 *
rsp_model_tasks_in_run_order (const RspModel *m)
{
  guint n_tasks = m->tasks->len;
  guint8 *in_order = g_new (guint8, MAX (n_tasks, 1));
  g_autofree RspIdx *expected = g_new (RspIdx, MAX (n_tasks, 1));
  for (guint t = 0; t < n_tasks; t++)
    {
      in_order[t] = 1;
      expected[t] = g_array_index (m->tasks, RspTask, t).first_run;
    }
  for (guint r = 0; r < m->runs->len; r++)
    {
      const RspRun *run = &g_array_index (m->runs, RspRun, r);
      if (run->task >= n_tasks)
        continue; /* no task's: a chain holding it stays waiting for it, below */
      if (expected[run->task] == r)
        expected[run->task] = run->next_run;
      else
        in_order[run->task] = 0;
    }
  for (guint t = 0; t < n_tasks; t++)
    if (expected[t] != RSP_NONE)
      in_order[t] = 0; /* its chain has a run of another task, or goes back */
  return in_order;
}

static RspModelIndex *
build_index (const RspModel *m)
{
  RspModelIndex *x = g_new0 (RspModelIndex, 1);
  guint n_tasks = m->tasks->len;
  x->n_tasks = n_tasks;
  x->task_runs = g_new0 (GArray *, MAX (n_tasks, 1));
  x->task_disk_ops = g_new0 (GArray *, MAX (n_tasks, 1));
  g_autofree guint8 *in_order = rsp_model_tasks_in_run_order (m);
  for (guint t = 0; t < n_tasks; t++)
    {
      const RspTask *task = &g_array_index (m->tasks, RspTask, t);
      /* written in place (an append per run was a fiftieth of a small
       * report): the assembler counts each run it links, n_runs is the
       * chain's length */
      GArray *runs = g_array_sized_new (FALSE, FALSE, sizeof (RspIdx), task->n_runs);
      g_array_set_size (runs, task->n_runs);
      x->task_runs[t] = runs;
      if (in_order[t])
        continue; /* filled in the pass below */
      RspIdx r = task->first_run;
      for (guint k = 0; k < task->n_runs; k++)
        {
          g_assert (r != RSP_NONE);
          g_array_index (runs, RspIdx, k) = r;
          r = g_array_index (m->runs, RspRun, r).next_run;
        }
      g_assert (r == RSP_NONE);
    }
  /* the tasks whose runs are in array order: in one pass over it */
  g_autofree guint *filled = g_new0 (guint, MAX (n_tasks, 1));
  for (guint r = 0; r < m->runs->len; r++)
    {
      RspIdx t = g_array_index (m->runs, RspRun, r).task;
      if (t < n_tasks && in_order[t])
        {
          g_assert (filled[t] < x->task_runs[t]->len);
          g_array_index (x->task_runs[t], RspIdx, filled[t]++) = r;
        }
    }
  for (guint t = 0; t < n_tasks; t++)
    g_assert (!in_order[t] || filled[t] == x->task_runs[t]->len);
  x->device_ops = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < m->disk_ops->len; i++)
    {
      const RspDiskOp *op = &g_array_index (m->disk_ops, RspDiskOp, i);
      GArray *on_dev = g_hash_table_lookup (x->device_ops, GUINT_TO_POINTER (op->dev));
      if (on_dev == NULL)
        {
          on_dev = g_array_new (FALSE, FALSE, sizeof (RspIdx));
          g_hash_table_insert (x->device_ops, GUINT_TO_POINTER (op->dev), on_dev);
        }
      RspIdx op_idx = i;
      g_array_append_val (on_dev, op_idx);
      if (op->task == RSP_NONE || op->task >= n_tasks)
        continue;
      if (x->task_disk_ops[op->task] == NULL)
        x->task_disk_ops[op->task] = g_array_new (FALSE, FALSE, sizeof (RspIdx));
      g_array_append_val (x->task_disk_ops[op->task], op_idx);
    }
  x->device_reach = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, disk_reach_free);
  GHashTableIter it;
  gpointer dev, list;
  g_hash_table_iter_init (&it, x->device_ops);
  while (g_hash_table_iter_next (&it, &dev, &list))
    {
      RspDiskReach *r = g_new (RspDiskReach, 1);
      *r = completion_reach (m, list, FALSE);
      g_hash_table_insert (x->device_reach, dev, r);
    }
  x->task_disk_reach = g_new0 (RspDiskReach, MAX (n_tasks, 1));
  for (guint t = 0; t < n_tasks; t++)
    if (x->task_disk_ops[t] != NULL)
      x->task_disk_reach[t] = completion_reach (m, x->task_disk_ops[t], TRUE);
  return x;
}

const RspModelIndex *
rsp_model_get_index (const RspModel *cm)
{
  RspModel *m = (RspModel *) cm; /* the index is a cache: the model's content stays as it is */
  g_mutex_lock (&m->index_lock);
  if (m->index == NULL)
    m->index = build_index (m);
  g_mutex_unlock (&m->index_lock);
  return m->index;
}

ACCESSOR (task, RspTask, tasks)
ACCESSOR (run, RspRun, runs)
ACCESSOR (sleep, RspSleep, sleeps)
ACCESSOR (sample, RspModelSample, samples)
ACCESSOR (link, RspLink, links)
ACCESSOR (disk_op, RspDiskOp, disk_ops)
ACCESSOR (net_op, RspNetOp, net_ops)
ACCESSOR (sock_io, RspSockIo, sock_io)
ACCESSOR (probe_hit, RspProbeHit, probe_hits)

guint64
rsp_model_anomaly_count (const RspModel *m, RspAnomaly anomaly)
{
  g_return_val_if_fail (anomaly < RSP_ANOMALY_N, 0);
  return m->anomalies[anomaly];
}

const char *
rsp_anomaly_id (RspAnomaly anomaly)
{
  static const char *const ids[RSP_ANOMALY_N] = {
    [RSP_ANOMALY_MISSING_SWITCH_OUT] = "missing_switch_out",
    [RSP_ANOMALY_MISSING_SWITCH_IN] = "missing_switch_in",
    [RSP_ANOMALY_MISSING_WAKEUP] = "missing_wakeup",
    [RSP_ANOMALY_MISSING_COMPLETION] = "missing_completion",
    [RSP_ANOMALY_MISSING_ISSUE] = "missing_issue",
    [RSP_ANOMALY_ORPHAN_SAMPLE] = "orphan_sample",
    [RSP_ANOMALY_LOST_EVENTS] = "lost_events",
    [RSP_ANOMALY_INFERRED_DISK] = "inferred_disk_wait",
    [RSP_ANOMALY_INFERRED_TIMER] = "inferred_timer",
    [RSP_ANOMALY_MISSING_IRQ_EXIT] = "missing_irq_exit",
  };
  return anomaly < RSP_ANOMALY_N ? ids[anomaly] : "unknown";
}

guint64 rsp_model_start_time (const RspModel *m) { return m->start_time; }
guint64 rsp_model_end_time (const RspModel *m) { return m->end_time; }
guint64 rsp_model_n_events (const RspModel *m) { return m->n_events; }
guint64 rsp_model_lost_events (const RspModel *m) { return m->lost_events; }
const RspRecordingMeta *rsp_model_meta (const RspModel *m) { return m->meta; }

static guint64
task_cpu_time (const RspModel *m, const RspTask *t)
{
  guint64 total = 0;
  for (RspIdx r = t->first_run; r != RSP_NONE; r = g_array_index (m->runs, RspRun, r).next_run)
    {
      const RspRun *run = &g_array_index (m->runs, RspRun, r);
      total += run->end - run->start;
    }
  return total;
}

RspIdx
rsp_model_find_process (const RspModel *m, gint32 pid, const char *comm)
{
  RspIdx best = RSP_NONE;
  guint64 best_time = 0;
  for (guint i = 0; i < m->tasks->len; i++)
    {
      const RspTask *t = &g_array_index (m->tasks, RspTask, i);
      if (t->is_idle || t->ignored)
        continue;
      if (pid > 0)
        {
          /* the process's main thread, latest generation */
          if (t->tid == pid && (best == RSP_NONE || t->generation >= g_array_index (m->tasks, RspTask, best).generation))
            best = i;
          continue;
        }
      if (comm != NULL && g_strcmp0 (t->comm, comm) == 0 && t->tid == t->pid)
        {
          guint64 cpu = task_cpu_time (m, t);
          if (best == RSP_NONE || cpu > best_time)
            {
              best = i;
              best_time = cpu;
            }
        }
    }
  return best;
}

static gint
compare_process_time (gconstpointer a, gconstpointer b)
{
  const RspProcessSummary *pa = a, *pb = b;
  return pa->cpu_ns < pb->cpu_ns ? 1 : pa->cpu_ns > pb->cpu_ns ? -1 : 0;
}

GArray *
rsp_model_busiest_processes (const RspModel *m, guint max)
{
  g_autoptr (GHashTable) per_pid = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < m->tasks->len; i++)
    {
      const RspTask *t = &g_array_index (m->tasks, RspTask, i);
      if (t->is_idle || t->ignored || t->pid <= 0)
        continue;
      guint64 cpu = task_cpu_time (m, t);
      gpointer key = GINT_TO_POINTER (t->pid);
      RspProcessSummary *slot = g_hash_table_lookup (per_pid, key);
      if (slot == NULL)
        {
          slot = g_new0 (RspProcessSummary, 1);
          slot->pid = t->pid;
          g_hash_table_insert (per_pid, key, slot);
        }
      slot->cpu_ns += cpu;
      if (t->tid == t->pid || slot->comm == NULL)
        slot->comm = t->comm;
    }
  GArray *list = g_array_new (FALSE, FALSE, sizeof (RspProcessSummary));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, per_pid);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      g_array_append_vals (list, value, 1);
      g_free (value);
    }
  g_array_sort (list, compare_process_time);
  if (list->len > max)
    g_array_set_size (list, max);
  return list;
}
