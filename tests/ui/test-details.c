/* test-details.c — the details pane's content (rsp_details_new) on every
 * recording in tests/data/: at the middle of every stretch of the table it
 * finds that very stretch, through the segment's own stretches or, where
 * the segment waited on another task, through its children; its summary
 * starts with the stretch's category; its link goes to what explains the
 * stretch (the waker's run, the disk request until its completion, the
 * network wait until the data came). */
#include <glib.h>
#include <string.h>

#include "rsp-analysis.h"
#include "rsp-details.h"
#include "rsp-model-event.h"
#include "rsp-model.h"

static const char *const recordings[] = {
  "pingpong.rsp", "forkexec.rsp", "tcp_loop.rsp", "dio_read.rsp", "dio_ftrace.rsp", "cold_read_files.rsp",
};

/* The top of SEGMENT's lane: the segment of depth 0 it stands on. */
static RspIdx
root_of (const RspAnalysis *a, RspIdx segment)
{
  while (rsp_analysis_segment (a, segment)->parent != RSP_NONE)
    segment = rsp_analysis_segment (a, segment)->parent;
  return segment;
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
  g_assert_nonnull (meta);
  g_autoptr (RspAnalysis) a = rsp_analysis_new (model, meta->target_pid, 0, G_MAXUINT64, &error);
  g_assert_no_error (error);
  guint n = rsp_analysis_n_stretches (a), checked = 0, links = 0, through_children = 0, with_file = 0;
  guint step = MAX (n / 4000, 1);
  for (guint i = 0; i < n; i += step)
    {
      const RspStretch *st = rsp_analysis_stretch (a, i);
      if (st->end - st->start < 2)
        continue;
      guint64 mid = st->start + (st->end - st->start) / 2;
      /* from its own segment, and from the root of its lane */
      g_autoptr (RspDetails) d = rsp_details_new (a, st->segment, mid, "x");
      g_assert_true (d->stretch == st);
      g_assert_true (g_str_has_prefix (d->summary, rsp_category_label (st->category)));
      g_assert_nonnull (strstr (d->markup, "<b>x</b>"));
      /* a disk wait names its file */
      if (st->file != NULL)
        {
          g_autofree char *file = g_markup_escape_text (st->file, -1);
          g_autofree char *want = g_strdup_printf ("<b>File:</b> %s", file);
          g_assert_nonnull (strstr (d->markup, want));
          with_file++;
        }
      else
        g_assert_null (strstr (d->markup, "<b>File:</b>"));
      RspIdx root = root_of (a, st->segment);
      if (root != st->segment)
        {
          g_autoptr (RspDetails) r = rsp_details_new (a, root, mid, NULL);
          g_assert_true (r->stretch == st);
          through_children++;
        }
      const RspModel *m = rsp_analysis_model (a);
      switch ((RspCauseKind) st->link_kind)
        {
        case RSP_CAUSE_WAKEUP:
          if (st->link != RSP_NONE)
            {
              const RspRun *run = rsp_model_run (m, st->link);
              g_assert_nonnull (d->jump_label);
              g_assert_cmpuint (d->jump_start, ==, run->start);
              g_assert_cmpuint (d->jump_end, ==, run->end);
              links++;
            }
          break;
        case RSP_CAUSE_DISK:
          if (st->link != RSP_NONE && d->jump_label != NULL)
            {
              g_assert_cmpuint (d->jump_end, ==, rsp_model_disk_op (m, st->link)->complete);
              g_assert_cmpuint (d->jump_start, <=, d->jump_end);
              links++;
            }
          break;
        case RSP_CAUSE_NETWORK:
          if (st->link != RSP_NONE && d->jump_label != NULL)
            {
              g_assert_cmpuint (d->jump_end, ==, rsp_model_net_op (m, st->link)->ready);
              links++;
            }
          break;
        default:
          g_assert_null (d->jump_label);
          break;
        }
      checked++;
    }
  g_test_message ("%s: %u stretches checked, %u through a lane's root, %u with a link, %u naming a file", name,
                  checked, through_children, links, with_file);
  g_assert_cmpuint (checked, >, 0);
  /* recorded with the file events: its read's disk waits name the file */
  if (strcmp (name, "cold_read_files.rsp") == 0)
    g_assert_cmpuint (with_file, >, 0);
}

/* The process running view's items (rsp_details_new_for_item), from the
 * model alone: every sleep's details say its state and what ended it, and
 * link to the waker's run, the disk request or the network wait exactly
 * when the model recorded one; every run's details name its CPU and, after
 * a sleep, what ended that sleep; disk and network operations link to
 * themselves. */
static void
test_items (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspModel) m = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  guint wakers = 0, disks = 0, nets = 0, timers = 0;
  for (RspIdx i = 0; i < rsp_model_n_sleeps (m); i++)
    {
      const RspSleep *sl = rsp_model_sleep (m, i);
      g_autoptr (RspDetails) d = rsp_details_new_for_item (m, RSP_DETAILS_SLEEP, i);
      g_assert_true (g_str_has_prefix (d->summary, "a sleep of "));
      g_assert_nonnull (strstr (d->markup, "<b>State:</b>"));
      g_assert_true (sl->reason == RSP_WAKE_RUN || strstr (d->markup, "<b>Ended by:</b>") != NULL);
      if (sl->reason == RSP_WAKE_RUN && sl->waker_run != RSP_NONE)
        {
          const RspRun *w = rsp_model_run (m, sl->waker_run);
          g_assert_nonnull (d->jump_label);
          g_assert_cmpuint (d->jump_start, ==, w->start);
          g_assert_cmpuint (d->jump_end, ==, w->end);
          g_assert_nonnull (strstr (d->summary, ", woken by "));
          wakers++;
        }
      else if (sl->reason == RSP_WAKE_DISK && sl->disk_op != RSP_NONE && d->jump_label != NULL)
        {
          g_assert_cmpuint (d->jump_end, ==, rsp_model_disk_op (m, sl->disk_op)->complete);
          disks++;
        }
      else if (sl->reason == RSP_WAKE_NETWORK && sl->net_op != RSP_NONE && d->jump_label != NULL)
        {
          g_assert_cmpuint (d->jump_end, ==, rsp_model_net_op (m, sl->net_op)->ready);
          nets++;
        }
      else if (sl->reason == RSP_WAKE_TIMER)
        {
          g_assert_null (d->jump_label);
          g_assert_nonnull (strstr (d->summary, sl->deliberate ? "deliberate" : "timed out"));
          timers++;
        }
    }
  for (RspIdx i = 0; i < rsp_model_n_runs (m); i++)
    {
      const RspRun *r = rsp_model_run (m, i);
      g_autoptr (RspDetails) d = rsp_details_new_for_item (m, RSP_DETAILS_RUN, i);
      g_autofree char *cpu = g_strdup_printf ("on CPU %d", r->cpu);
      g_assert_nonnull (strstr (d->summary, cpu));
      g_assert_true (r->prev_sleep != RSP_NONE || strstr (d->markup, "After a sleep of") == NULL);
    }
  for (RspIdx i = 0; i < rsp_model_n_disk_ops (m); i++)
    {
      const RspDiskOp *op = rsp_model_disk_op (m, i);
      g_autoptr (RspDetails) d = rsp_details_new_for_item (m, RSP_DETAILS_DISK_OP, i);
      g_assert_true (g_str_has_prefix (d->summary, "disk request of "));
      if (d->jump_label != NULL)
        g_assert_cmpuint (d->jump_end, ==, op->complete);
    }
  for (RspIdx i = 0; i < rsp_model_n_links (m); i++)
    {
      g_autoptr (RspDetails) d = rsp_details_new_for_item (m, RSP_DETAILS_LINK, i);
      const RspLink *l = rsp_model_link (m, i);
      if (l->from_run != RSP_NONE)
        g_assert_cmpuint (d->jump_start, ==, rsp_model_run (m, l->from_run)->start);
    }
  g_test_message ("%s: %u sleeps (%u linked to the waker, %u to a disk request, %u to a network wait, %u timers), "
                  "%u runs", name, rsp_model_n_sleeps (m), wakers, disks, nets, timers, rsp_model_n_runs (m));
  g_assert_cmpuint (wakers, >, 0);
  if (strcmp (name, "dio_read.rsp") == 0 || strcmp (name, "dio_ftrace.rsp") == 0
      || strcmp (name, "cold_read_files.rsp") == 0)
    g_assert_cmpuint (disks, >, 0);
}

static void
disk_event (RspAssembler *as, RspModelEventKind kind, guint64 t, guint64 sector)
{
  RspModelEvent ev = { .kind = kind, .time = t, .cpu = 0, .pid = 100, .tid = 100 };
  ev.u.rq.dev = 0x800010;
  ev.u.rq.sector = sector;
  ev.u.rq.nr_sector = 8;
  ev.u.rq.rwbs = "W";
  rsp_assembler_feed (as, &ev);
}

/* A request merged into another while queued: queued until the merge,
 * merged, never in service; its link goes to the request from its insert
 * to the merge.  Another that was served says so. */
static void
test_merged_op (void)
{
  RspAssembler *as = rsp_assembler_new (NULL);
  const guint64 t0 = 1000000000;
  disk_event (as, RSP_MEV_RQ_INSERT, t0, 1008);
  disk_event (as, RSP_MEV_RQ_INSERT, t0 + 10000, 1000);
  disk_event (as, RSP_MEV_RQ_MERGE, t0 + 20000, 1008);
  disk_event (as, RSP_MEV_RQ_ISSUE, t0 + 30000, 1000);
  disk_event (as, RSP_MEV_RQ_COMPLETE, t0 + 90000, 1000);
  g_autoptr (RspModel) m = rsp_assembler_finish (as);
  g_assert_cmpuint (rsp_model_n_disk_ops (m), ==, 2);
  g_autoptr (RspDetails) merged = rsp_details_new_for_item (m, RSP_DETAILS_DISK_OP, 0);
  g_assert_nonnull (strstr (merged->markup, "Merged:"));
  g_assert_nonnull (strstr (merged->markup, "Queued:"));
  g_assert_null (strstr (merged->markup, "In service:"));
  g_assert_true (g_str_has_prefix (merged->summary, "disk request of "));
  g_assert_cmpuint (merged->jump_start, ==, t0);
  g_assert_cmpuint (merged->jump_end, ==, t0 + 20000);
  g_autoptr (RspDetails) served = rsp_details_new_for_item (m, RSP_DETAILS_DISK_OP, 1);
  g_assert_null (strstr (served->markup, "Merged:"));
  g_assert_nonnull (strstr (served->markup, "In service:"));
  g_assert_cmpuint (served->jump_end, ==, t0 + 90000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/details/merged-disk-request", test_merged_op);
  for (guint i = 0; i < G_N_ELEMENTS (recordings); i++)
    {
      g_autofree char *p = g_strdup_printf ("/details/%s", recordings[i]);
      g_test_add_data_func (p, recordings[i], test_recording);
      g_autofree char *q = g_strdup_printf ("/details/items/%s", recordings[i]);
      g_test_add_data_func (q, recordings[i], test_items);
    }
  return g_test_run ();
}
