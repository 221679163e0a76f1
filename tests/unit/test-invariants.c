/* test-invariants.c — the accounting adds up, exactly, on every recording
 * the tests have (tests/data/), over the whole recording and over ranges
 * cut out of it:
 *   - the table of stretches covers every segment's time no child covers,
 *     without overlap, inside the segment;
 *   - per control path, its categories add up to its total in integer
 *     nanoseconds, and so do the stretches of its segments;
 *   - over the analysis, the categories add up to the total, each category
 *     is the sum of its stretches, and the inferred part never exceeds it;
 *   - the findings add up to the total too.
 * And the decoder's cache of callchains changes nothing: the model is the
 * same with it, without it and with a cache so small it empties itself all
 * the time.
 */
#include <glib.h>

#include "rsp-analysis.h"
#include "rsp-model.h"
#include "rsp-model-private.h"

static const char *const recordings[] = {
  "pingpong.rsp", "forkexec.rsp", "tcp_loop.rsp", "dio_read.rsp", "dio_ftrace.rsp", "cold_read_files.rsp", "pingpong-plain.perf.data",
};

/* time of segment I that no child covers */
static guint64
uncovered (const RspAnalysis *a, RspIdx i)
{
  const RspSegment *s = rsp_analysis_segment (a, i);
  guint64 cursor = s->start, sum = 0;
  for (guint k = 0; k < s->n_children; k++)
    {
      const RspSegment *c = rsp_analysis_segment (a, s->first_child + k);
      guint64 c0 = MAX (c->start, cursor);
      if (c0 > cursor)
        sum += MIN (c0, s->end) - cursor;
      cursor = MAX (cursor, MIN (c->end, s->end));
    }
  if (cursor < s->end)
    sum += s->end - cursor;
  return sum;
}

static void
check_analysis (const RspAnalysis *a, const char *what)
{
  guint64 cat_sum[RSP_CAT_N] = { 0 };
  guint n_paths = rsp_analysis_n_paths (a);
  guint64 *path_stretch = g_new0 (guint64, MAX (n_paths, 1));
  guint64 stretches_total = 0;
  guint links[RSP_CAUSE_SAMPLE + 1] = { 0 };

  for (guint i = 0; i < rsp_analysis_n_segments (a); i++)
    {
      const RspSegment *s = rsp_analysis_segment (a, i);
      guint n;
      const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n);
      guint64 sum = 0, last_end = s->start;
      for (guint k = 0; k < n; k++)
        {
          g_assert_cmpuint (st[k].segment, ==, i);
          g_assert_cmpuint (st[k].start, <, st[k].end);
          g_assert_cmpuint (st[k].start, >=, last_end); /* in time order, no overlap */
          g_assert_cmpuint (st[k].end, <=, s->end);
          g_assert_cmpuint (st[k].category, <, RSP_CAT_N);
          /* every link names something of its kind */
          switch (st[k].link_kind)
            {
            case RSP_CAUSE_DISK:
              g_assert_cmpuint (st[k].link, <, rsp_model_n_disk_ops (rsp_analysis_model (a)));
              g_assert_true (st[k].category == RSP_CAT_DISK_IO || st[k].category == RSP_CAT_IO_QUEUE
                             || st[k].category == RSP_CAT_SCHEDULER);
              break;
            case RSP_CAUSE_SAMPLE:
              g_assert_cmpuint (st[k].category, ==, RSP_CAT_CPU_SAMPLED);
              g_assert_cmpuint (st[k].link, ==, st[k].sample);
              break;
            case RSP_CAUSE_WAKEUP:
              g_assert_cmpuint (st[k].link, !=, RSP_NONE);
              break;
            default:
              break;
            }
          if (st[k].category == RSP_CAT_CPU_SAMPLED)
            g_assert_cmpuint (st[k].link_kind, ==, RSP_CAUSE_SAMPLE);
          links[st[k].link_kind]++;
          last_end = st[k].end;
          sum += st[k].end - st[k].start;
          cat_sum[st[k].category] += st[k].end - st[k].start;
        }
      /* every uncovered nanosecond is in exactly one stretch */
      if (sum != uncovered (a, i))
        g_error ("%s: segment %u: stretches %" G_GUINT64_FORMAT " ns, uncovered %" G_GUINT64_FORMAT " ns", what, i,
                 sum, uncovered (a, i));
      path_stretch[s->path] += sum;
      stretches_total += sum;
    }
  g_assert_cmpuint (rsp_analysis_n_stretches (a), >, 0);
  if (g_test_verbose ())
    g_printerr ("%s: %u stretches; links: none %u, wake-up %u, disk %u, network %u, timer %u, irq %u, sample %u\n", what,
                rsp_analysis_n_stretches (a), links[0], links[1], links[2], links[3], links[4], links[5], links[6]);

  guint64 total = 0;
  for (guint p = 0; p < n_paths; p++)
    {
      const RspControlPath *path = rsp_analysis_path (a, p);
      guint64 cats = 0;
      for (guint c = 0; c < RSP_CAT_N; c++)
        cats += path->category_ns[c];
      if (cats != path->total || path_stretch[p] != path->total)
        g_error ("%s: path %u: categories %" G_GUINT64_FORMAT ", stretches %" G_GUINT64_FORMAT ", total %" G_GUINT64_FORMAT,
                 what, p, cats, path_stretch[p], path->total);
      total += path->total;
    }
  g_assert_cmpuint (total, ==, rsp_analysis_total_ns (a));
  g_assert_cmpuint (stretches_total, ==, total);

  guint64 cats = 0;
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      g_assert_cmpuint (rsp_analysis_category_ns (a, c), ==, cat_sum[c]);
      g_assert_cmpuint (rsp_analysis_inferred_ns (a, c), <=, rsp_analysis_category_ns (a, c));
      cats += rsp_analysis_category_ns (a, c);
    }
  g_assert_cmpuint (cats, ==, total);
  g_assert_cmpuint (rsp_analysis_accounted_ns (a) + rsp_analysis_category_ns (a, RSP_CAT_UNACCOUNTED), ==, total);

  /* every stretch is an instance of exactly one finding, and a finding is
   * the sum of its instances, listed in time order */
  guint64 findings = 0;
  guint instances = 0;
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      const RspFinding *f = rsp_analysis_finding (a, i);
      findings += f->ns;
      if (i > 0)
        g_assert_cmpuint (f->ns, <=, rsp_analysis_finding (a, i - 1)->ns);
      guint n;
      const guint32 *idx = rsp_analysis_finding_stretches (a, i, &n);
      g_assert_cmpuint (n, >, 0);
      guint64 sum = 0, last_start = 0;
      gboolean best_seen = FALSE;
      for (guint k = 0; k < n; k++)
        {
          const RspStretch *st = rsp_analysis_stretch (a, idx[k]);
          g_assert_cmpuint (st->finding, ==, i);
          g_assert_cmpuint (st->category, ==, f->category);
          g_assert_cmpuint (st->start, >=, last_start);
          last_start = st->start;
          sum += st->end - st->start;
          best_seen |= st->start == f->best_start && st->end == f->best_end;
        }
      if (sum != f->ns)
        g_error ("%s: finding %u: %" G_GUINT64_FORMAT " ns, its instances %" G_GUINT64_FORMAT " ns", what, i, f->ns, sum);
      g_assert_true (best_seen); /* the instance the views scroll to is one of them */
      instances += n;
    }
  g_assert_cmpuint (findings, ==, total);
  g_assert_cmpuint (instances, ==, rsp_analysis_n_stretches (a));
  g_free (path_stretch);
}

static void
test_recording (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspModel) model = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const RspRecordingMeta *meta = rsp_model_meta (model);
  gint32 pid = meta != NULL && meta->target_pid > 0 ? meta->target_pid : -1;
  if (pid < 0)
    {
      /* a plain perf.data: the busiest process */
      g_autoptr (GArray) busiest = rsp_model_busiest_processes (model, 1);
      g_assert_cmpuint (busiest->len, ==, 1);
      pid = g_array_index (busiest, RspProcessSummary, 0).pid;
    }
  g_assert_cmpint (pid, >, 0);
  guint64 origin = rsp_model_start_time (model), end = rsp_model_end_time (model);
  /* the whole recording, then thirds and a thin slice */
  guint64 cuts[][2] = {
    { 0, G_MAXUINT64 },
    { origin, origin + (end - origin) / 3 },
    { origin + (end - origin) / 3, origin + 2 * (end - origin) / 3 },
    { origin + (end - origin) / 2, origin + (end - origin) / 2 + (end - origin) / 50 + 1 },
  };
  guint analysed = 0;
  for (gsize k = 0; k < G_N_ELEMENTS (cuts); k++)
    {
      g_autoptr (GError) range_error = NULL;
      g_autoptr (RspAnalysis) a = rsp_analysis_new (model, pid, cuts[k][0], cuts[k][1], &range_error);
      if (a == NULL)
        {
          /* a range where the process did not exist: said, not crashed */
          g_assert_nonnull (range_error);
          continue;
        }
      g_autofree char *what = g_strdup_printf ("%s [%" G_GSIZE_FORMAT "]", name, k);
      check_analysis (a, what);
      analysed++;
    }
  g_assert_cmpuint (analysed, >=, 1);
}

static RspModel *
build_with (const char *path, RspChainCacheMode mode)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RspPerfReader) reader = rsp_perf_reader_open_full (path, RSP_PERF_READER_NO_PRINT, &error);
  g_assert_no_error (error);
  RspModel *m = rsp_model_build_from_reader (reader, FALSE, mode, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return m;
}

/* The same stacks, with the same ids and frames, the same samples and
 * sleeps (each model has its own symbolizer: names compare as text). */
static void
assert_same_model (RspModel *a, RspModel *b, const char *what)
{
  rsp_model_name_frames (a);
  rsp_model_name_frames (b);
  g_assert_cmpuint (a->stack_index->len, ==, b->stack_index->len);
  g_assert_cmpmem (a->stack_index->data, a->stack_index->len * sizeof (guint32), b->stack_index->data,
                   b->stack_index->len * sizeof (guint32));
  g_assert_cmpuint (a->frames->len, ==, b->frames->len);
  for (guint i = 0; i < a->frames->len; i++)
    {
      const RspModelFrame *x = &g_array_index (a->frames, RspModelFrame, i);
      const RspModelFrame *y = &g_array_index (b->frames, RspModelFrame, i);
      if (g_strcmp0 (x->symbol, y->symbol) != 0 || g_strcmp0 (x->dso, y->dso) != 0 || x->ip != y->ip
          || x->offset != y->offset || x->kernel != y->kernel || x->name == NULL || g_strcmp0 (x->name, y->name) != 0)
        g_error ("%s: frame %u: %s %s 0x%" G_GINT64_MODIFIER "x against %s %s 0x%" G_GINT64_MODIFIER "x", what, i,
                 x->symbol, x->dso, x->ip, y->symbol, y->dso, y->ip);
    }
  g_assert_cmpuint (a->samples->len, ==, b->samples->len);
  for (guint i = 0; i < a->samples->len; i++)
    {
      const RspModelSample *x = &g_array_index (a->samples, RspModelSample, i);
      const RspModelSample *y = &g_array_index (b->samples, RspModelSample, i);
      g_assert_true (x->time == y->time && x->run == y->run && x->stack == y->stack);
    }
  g_assert_cmpuint (a->sleeps->len, ==, b->sleeps->len);
  for (guint i = 0; i < a->sleeps->len; i++)
    {
      const RspSleep *x = &g_array_index (a->sleeps, RspSleep, i);
      const RspSleep *y = &g_array_index (b->sleeps, RspSleep, i);
      g_assert_true (x->task == y->task && x->start == y->start && x->end == y->end && x->stack == y->stack
                     && x->reason == y->reason && x->waker_run == y->waker_run && x->net_op == y->net_op
                     && x->inferred == y->inferred && g_strcmp0 (x->irq_name, y->irq_name) == 0);
    }
  g_assert_cmpuint (a->runs->len, ==, b->runs->len);
  g_assert_cmpuint (a->links->len, ==, b->links->len);
  g_assert_cmpmem (a->anomalies, sizeof a->anomalies, b->anomalies, sizeof b->anomalies);
}

/* Threads that ask for a model's stacks at once, as the viewer's pages do:
 * each frame is named once, and every thread sees the names. */
typedef struct {
  RspModel *m;
  GPtrArray *names; /* the thread's: frame names, stack by stack */
} NamingThread;

static gpointer
read_names (gpointer data)
{
  NamingThread *t = data;
  for (RspStackId id = 1; id < t->m->stack_index->len / 2; id++)
    {
      guint n;
      const RspModelFrame *frames = rsp_model_stack (t->m, id, &n);
      for (guint k = 0; k < n; k++)
        g_ptr_array_add (t->names, (gpointer) frames[k].name);
    }
  return NULL;
}

static void
assert_named_from_threads (RspModel *m)
{
  NamingThread t[4];
  GThread *threads[G_N_ELEMENTS (t)];
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    {
      t[i] = (NamingThread){ m, g_ptr_array_new () };
      threads[i] = g_thread_new ("names", read_names, &t[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (t[0].names->len, ==, m->frames->len);
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    {
      g_assert_cmpuint (t[i].names->len, ==, t[0].names->len);
      for (guint k = 0; k < t[i].names->len; k++)
        g_assert_true (g_ptr_array_index (t[i].names, k) != NULL
                       && g_ptr_array_index (t[i].names, k) == g_ptr_array_index (t[0].names, k));
    }
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    g_ptr_array_unref (t[i].names);
}

static void
test_chain_cache (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (RspModel) on = build_with (path, RSP_CHAIN_CACHE_ON);
  g_autoptr (RspModel) off = build_with (path, RSP_CHAIN_CACHE_OFF);
  g_autoptr (RspModel) tiny = build_with (path, RSP_CHAIN_CACHE_TINY);
  /* a built model's frames are named when first asked for */
  for (guint i = 0; i < on->frames->len; i++)
    g_assert_null (g_array_index (on->frames, RspModelFrame, i).name);
  assert_named_from_threads (on);
  /* the recordings have stacks, and repeat them */
  g_assert_cmpuint (off->stack_index->len / 2, >, 1);
  g_assert_cmpuint (off->samples->len + off->sleeps->len, >, off->stack_index->len / 2);
  g_autofree char *on_what = g_strdup_printf ("%s, cache on", name);
  g_autofree char *tiny_what = g_strdup_printf ("%s, tiny cache", name);
  assert_same_model (on, off, on_what);
  assert_same_model (tiny, off, tiny_what);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (recordings); i++)
    {
      g_autofree char *name = g_strdup_printf ("/invariants/%s", recordings[i]);
      g_test_add_data_func (name, recordings[i], test_recording);
      g_autofree char *cache_name = g_strdup_printf ("/invariants/chain-cache/%s", recordings[i]);
      g_test_add_data_func (cache_name, recordings[i], test_chain_cache);
    }
  return g_test_run ();
}
