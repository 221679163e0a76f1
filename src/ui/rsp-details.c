/* rsp-details.c — see rsp-details.h. */
#include "rsp-details.h"

#include <glib/gi18n-lib.h>

#include "rsp-describe.h"
#include "rsp-time-axis.h"

typedef struct {
  const RspAnalysis *a;
  const RspModel *m;
  guint64 origin;
  GString *text;
} Writer;

static double
ms (const Writer *w, guint64 t)
{
  return t >= w->origin ? (t - w->origin) / 1e6 : -((w->origin - t) / 1e6);
}

/* "comm (pid P, tid T)", escaped for markup. */
static char *
task_name (const RspModel *m, RspIdx task)
{
  if (task == RSP_NONE)
    return g_strdup ("?");
  const RspTask *t = rsp_model_task (m, task);
  g_autofree char *comm = g_markup_escape_text (t->comm != NULL ? t->comm : "?", -1);
  return g_strdup_printf (_("%s (pid %d, tid %d)"), comm, t->pid, t->tid);
}

static void
line (Writer *w, const char *label, const char *value)
{
  g_string_append_printf (w->text, "%s<b>%s</b> %s", w->text->len > 0 ? "\n" : "", label, value);
}

static void
span (Writer *w, const char *label, guint64 start, guint64 end, const char *extra)
{
  g_autofree char *dur = rsp_format_duration (end - start);
  g_autofree char *v = g_strdup_printf (_("%.3f–%.3f ms (%s)%s"), ms (w, start), ms (w, end), dur,
                                        extra != NULL ? extra : "");
  line (w, label, v);
}

/* The run of the task that woke the sleeper, with the link to it. */
static void
waker_lines (Writer *w, RspDetails *d, RspIdx run, GString *summary)
{
  const RspRun *r = rsp_model_run (w->m, run);
  g_autofree char *who = task_name (w->m, r->task);
  g_autofree char *extra = g_strdup_printf (_(", on CPU %d"), r->cpu);
  g_autofree char *label = g_strdup_printf (_("Woken by %s, in its run"), who);
  span (w, label, r->start, r->end, extra);
  const char *comm = rsp_model_task (w->m, r->task)->comm;
  g_string_append_printf (summary, _(", woken by %s"), comm != NULL ? comm : "?");
  d->jump_start = r->start;
  d->jump_end = r->end;
  d->jump_label = _("_Go to the waker");
}

/* A disk request: device, sector, size, queue and service time, issuer,
 * and the link to it.  Returns its size as text; *SERVICE gets its
 * service time as text ("?" when unknown). */
static char *
disk_op_lines (Writer *w, RspDetails *d, RspIdx op_index, char **service)
{
  const RspDiskOp *op = rsp_model_disk_op (w->m, op_index);
  char *size = g_format_size ((guint64) op->nr_sector * 512);
  g_autofree char *rwbs = g_markup_escape_text (op->rwbs, -1);
  /* the kernel's dev_t in block tracepoints: 12-bit major, 20-bit minor */
  g_autofree char *req = g_strdup_printf (_("device %u:%u, sector %llu, %s, %s"), op->dev >> 20, op->dev & 0xfffff,
                                          (unsigned long long) op->sector, size, rwbs);
  line (w, _("Disk request:"), req);
  RspDiskOpSpans sp = rsp_disk_op_spans (op, 0);
  /* issued and completed: a merged request, or one still queued, never was */
  gboolean served = !op->merged && op->issue != 0 && sp.end >= sp.served;
  if (sp.queued != 0 && op->issue != 0 && sp.served > sp.queued)
    span (w, _("Queued:"), sp.queued, sp.served, NULL);
  if (op->merged)
    {
      /* taken into the request ahead of it while queued: never issued */
      span (w, _("Queued:"), sp.queued, sp.end, op->complete_inferred ? _(", the merge inferred") : NULL);
      line (w, _("Merged:"), _("into the request ahead of it on the disk, which served its data"));
      d->jump_start = op->insert;
      d->jump_end = op->complete;
      d->jump_label = _("_Go to the disk request");
    }
  if (served)
    {
      span (w, _("In service:"), sp.served, sp.end,
            op->complete_inferred || op->issue_inferred ? _(", partly inferred") : NULL);
      d->jump_start = sp.queued != 0 ? sp.queued : sp.served;
      d->jump_end = op->complete;
      d->jump_label = _("_Go to the disk request");
    }
  if (op->task != RSP_NONE)
    {
      g_autofree char *issuer = task_name (w->m, op->task);
      line (w, _("Issued by:"), issuer);
    }
  *service = served      ? rsp_format_duration (sp.end - sp.served)
             : op->merged ? g_strdup (_("another request (merged)"))
                          : g_strdup ("?");
  return size;
}

/* A network wait: the peer, the waiting task (WITH_WAITER), the stretch
 * from the last send to the data, and the link to it.  Returns the peer
 * for the summary (not owned). */
static const char *
net_op_lines (Writer *w, RspDetails *d, RspIdx op_index, gboolean with_waiter)
{
  const RspNetOp *op = rsp_model_net_op (w->m, op_index);
  const char *peer_text = op->endpoint != NULL ? op->endpoint : _("a local peer");
  g_autofree char *peer = g_markup_escape_text (peer_text, -1);
  g_autofree char *sock = g_strdup_printf (_("%s, socket family %u, protocol %u%s"), peer, op->family, op->protocol,
                                           op->loopback_peer ? _(", loopback") : "");
  line (w, _("Network peer:"), sock);
  if (with_waiter && op->task != RSP_NONE)
    {
      g_autofree char *who = task_name (w->m, op->task);
      line (w, _("Waiting:"), who);
    }
  if (op->send != 0 && op->ready >= op->send)
    {
      span (w, _("From the last send to the data:"), op->send, op->ready, NULL);
      d->jump_start = op->send;
      d->jump_end = op->ready;
      d->jump_label = _("_Go to the network wait");
    }
  return peer_text;
}

static void
explain (Writer *w, RspDetails *d, const RspStretch *st, GString *summary)
{
  switch ((RspCauseKind) st->link_kind)
    {
    case RSP_CAUSE_WAKEUP:
      if (st->link != RSP_NONE)
        waker_lines (w, d, st->link, summary);
      break;
    case RSP_CAUSE_DISK:
      if (st->link != RSP_NONE)
        {
          g_autofree char *service = NULL;
          g_autofree char *size = disk_op_lines (w, d, st->link, &service);
          g_string_append_printf (summary, _(", disk request of %s served in %s"), size, service);
        }
      break;
    case RSP_CAUSE_NETWORK:
      if (st->link != RSP_NONE)
        g_string_append_printf (summary, _(", waiting on %s"), net_op_lines (w, d, st->link, FALSE));
      break;
    case RSP_CAUSE_TIMER:
      line (w, _("Explained by:"), _("a timer expired"));
      g_string_append (summary, _(", a timer"));
      break;
    case RSP_CAUSE_IRQ:
      {
        g_autofree char *irq = g_markup_escape_text (st->frame != NULL ? st->frame : "?", -1);
        line (w, _("Explained by:"), irq);
        g_string_append_printf (summary, _(", interrupt %s"), st->frame != NULL ? st->frame : "?");
        break;
      }
    case RSP_CAUSE_SAMPLE:
      if (st->sample != RSP_NONE)
        {
          const RspModelSample *s = rsp_model_sample (w->m, st->sample);
          g_autofree char *v = g_strdup_printf (_("at %.3f ms"), ms (w, s->time));
          line (w, _("CPU sample:"), v);
        }
      break;
    case RSP_CAUSE_NONE:
      break;
    }
}

RspDetails *
rsp_details_new (const RspAnalysis *a, RspIdx segment, guint64 t, const char *name)
{
  g_return_val_if_fail (a != NULL && segment < rsp_analysis_n_segments (a), NULL);
  RspDetails *d = g_new0 (RspDetails, 1);
  Writer w = { a, rsp_analysis_model (a), rsp_analysis_start (a), g_string_new (NULL) };
  const RspSegment *seg = rsp_analysis_segment (a, segment);
  if (name != NULL)
    {
      g_autofree char *n = g_markup_escape_text (name, -1);
      g_string_append_printf (w.text, "<big><b>%s</b></big>", n);
    }
  g_autofree char *task = task_name (w.m, seg->task);
  g_autofree char *where = g_strdup_printf (_("%s, control path #%u"), task, seg->path);
  line (&w, _("Task:"), where);
  if (seg->kind == RSP_SEG_RUN)
    {
      const RspRun *r = rsp_model_run (w.m, seg->item);
      g_autofree char *cpu = g_strdup_printf (_(", on CPU %d"), r->cpu);
      span (&w, _("Running:"), seg->start, seg->end, cpu);
    }
  else
    span (&w, _("Sleeping:"), seg->start, seg->end, NULL);
  RspIdx owner;
  d->stretch = rsp_analysis_stretch_at (a, segment, t, &owner);
  /* the tasks it waited on then, from its lane's up to the stretch's */
  g_autoptr (GArray) waited_on = g_array_new (FALSE, FALSE, sizeof (RspIdx));
  for (RspIdx s = owner; s != segment; s = rsp_analysis_segment (a, s)->parent)
    g_array_prepend_val (waited_on, s);
  for (guint k = 0; k < waited_on->len; k++)
    {
      g_autofree char *other = task_name (w.m, rsp_analysis_segment (a, g_array_index (waited_on, RspIdx, k))->task);
      line (&w, _("Waiting on:"), other);
    }
  GString *summary = g_string_new (NULL);
  if (d->stretch != NULL)
    {
      const RspStretch *st = d->stretch;
      const char *cat = _(rsp_category_label (st->category));
      g_autofree char *catm = g_markup_escape_text (cat, -1);
      g_autofree char *at = g_strdup_printf (_("At %.3f ms:"), ms (&w, t));
      line (&w, at, catm);
      span (&w, _("This stretch:"), st->start, st->end,
            st->inferred ? _(", inferred from the sleeper's own stack (its wake-up was not recorded)")
                         : _(", observed"));
      if (st->frame != NULL)
        {
          g_autofree char *f = g_markup_escape_text (st->frame, -1);
          line (&w, _("Under:"), f);
        }
      if (st->file != NULL)
        {
          g_autofree char *f = g_markup_escape_text (st->file, -1);
          line (&w, _("File:"), f);
        }
      g_string_append (summary, cat);
      if (st->file != NULL)
        g_string_append_printf (summary, _(", on %s"), st->file);
      explain (&w, d, st, summary);
      if (st->finding != G_MAXUINT32 && st->finding < rsp_analysis_n_findings (a))
        {
          g_autofree char *sentence
              = rsp_finding_describe (w.m, rsp_analysis_finding (a, st->finding), RSP_DESCRIBE_LOCAL);
          g_autofree char *s = g_markup_escape_text (sentence, -1);
          g_autofree char *label = g_strdup_printf (_("Finding %u:"), st->finding + 1);
          line (&w, label, s);
        }
    }
  else
    g_string_append (summary, _("no stretch here"));
  d->markup = g_string_free (w.text, FALSE);
  d->summary = g_string_free (summary, FALSE);
  return d;
}

/* ------------------------------------------------------------------ items of the process running view */

/* What ended SLEEP (a task's sleep in the model): the wake-up's reason as
 * the model decided it, and a link to the waker's run or the operation. */
static void
sleep_end_lines (Writer *w, RspDetails *d, const RspSleep *sl, GString *summary)
{
  switch (sl->reason)
    {
    case RSP_WAKE_RUN:
      if (sl->waker_run != RSP_NONE)
        waker_lines (w, d, sl->waker_run, summary);
      break;
    case RSP_WAKE_TIMER:
      line (w, _("Ended by:"), sl->deliberate ? _("its timer: a deliberate sleep") : _("a timer: it timed out"));
      g_string_append (summary, sl->deliberate ? _(", a deliberate sleep") : _(", timed out"));
      break;
    case RSP_WAKE_DISK:
      line (w, _("Ended by:"), _("a disk completion"));
      if (sl->file != NULL)
        {
          g_autofree char *f = g_markup_escape_text (sl->file, -1);
          line (w, _("File:"), f);
        }
      if (sl->disk_op != RSP_NONE)
        {
          g_autofree char *service = NULL;
          g_autofree char *size = disk_op_lines (w, d, sl->disk_op, &service);
          g_string_append (summary, _(", woken by a "));
          g_string_append_printf (summary, _("disk request of %s"), size);
        }
      break;
    case RSP_WAKE_NETWORK:
      line (w, _("Ended by:"), _("network data"));
      if (sl->net_op != RSP_NONE)
        g_string_append_printf (summary, _(", waiting on %s"), net_op_lines (w, d, sl->net_op, TRUE));
      break;
    case RSP_WAKE_IRQ:
      {
        g_autofree char *irq = g_markup_escape_text (sl->irq_name != NULL ? sl->irq_name : "?", -1);
        line (w, _("Ended by:"), irq);
        g_string_append_printf (summary, _(", interrupt %s"), sl->irq_name != NULL ? sl->irq_name : "?");
        break;
      }
    case RSP_WAKE_PREEMPTION:
      line (w, _("Ended by:"), _("the CPU given back (it was preempted)"));
      g_string_append (summary, _(", preempted"));
      break;
    case RSP_WAKE_FORK:
      line (w, _("Ended by:"), _("its first run (a new task)"));
      break;
    case RSP_WAKE_UNKNOWN:
    default:
      line (w, _("Ended by:"), _("no wake-up was recorded"));
      break;
    }
  if (sl->inferred)
    line (w, _("Note:"), _("its wake-up was not recorded: the reason is inferred from its own stack"));
  if (sl->runnable_at > sl->start && sl->end > sl->runnable_at)
    span (w, _("Then waited for a CPU:"), sl->runnable_at, sl->end, NULL);
}

static const char *
state_text (guint32 prev_state)
{
  /* sched_switch's prev_state: 0 running (preempted), 1 S, 2 D */
  if (prev_state == 0)
    return _("runnable (preempted)");
  if (prev_state & 2)
    return _("uninterruptible (D)");
  if (prev_state & 1)
    return _("interruptible (S)");
  return _("other");
}

static void
sleep_lines (Writer *w, RspDetails *d, RspIdx sleep, GString *summary)
{
  const RspSleep *sl = rsp_model_sleep (w->m, sleep);
  span (w, _("Sleeping:"), sl->start, sl->end, NULL);
  line (w, _("State:"), state_text (sl->prev_state));
  const char *frame = rsp_model_sleep_frame (w->m, sleep);
  if (frame != NULL)
    {
      g_autofree char *f = g_markup_escape_text (frame, -1);
      line (w, _("Under:"), f);
    }
  g_autofree char *dur = rsp_format_duration (sl->end - sl->start);
  g_string_append_printf (summary, _("a sleep of %s"), dur);
  if (frame != NULL)
    g_string_append_printf (summary, _(" under %s"), frame);
  sleep_end_lines (w, d, sl, summary);
}

static void
run_lines (Writer *w, RspDetails *d, RspIdx run, GString *summary)
{
  const RspRun *r = rsp_model_run (w->m, run);
  g_autofree char *cpu = g_strdup_printf (_(", on CPU %d"), r->cpu);
  span (w, _("Running:"), r->start, r->end, cpu);
  static const char *const starts[] = {
    [RSP_RUN_START_SWITCH] = N_ ("switched in"),
    [RSP_RUN_START_FORK] = N_ ("the first run of a new task"),
    [RSP_RUN_START_EXEC] = N_ ("continued across an exec"),
    [RSP_RUN_START_INFERRED] = N_ ("inferred: no switch-in was recorded"),
    [RSP_RUN_START_RECORDING] = N_ ("already running when the recording started"),
  };
  if ((guint) r->start_kind < G_N_ELEMENTS (starts) && starts[r->start_kind] != NULL)
    line (w, _("Started:"), _(starts[r->start_kind]));
  g_autofree char *samples = g_strdup_printf ("%u", r->n_samples);
  line (w, _("CPU samples:"), samples);
  g_autofree char *dur = rsp_format_duration (r->end - r->start);
  g_string_append_printf (summary, _("a run of %s on CPU %d"), dur, r->cpu);
  if (r->prev_sleep != RSP_NONE)
    {
      const RspSleep *sl = rsp_model_sleep (w->m, r->prev_sleep);
      g_autofree char *slept = rsp_format_duration (sl->end - sl->start);
      const char *frame = rsp_model_sleep_frame (w->m, r->prev_sleep);
      g_autofree char *before = frame != NULL ? g_strdup_printf (_("%s under %s"), slept, frame) : g_strdup (slept);
      g_autofree char *b = g_markup_escape_text (before, -1);
      line (w, _("After a sleep of:"), b);
      sleep_end_lines (w, d, sl, summary);
    }
}

RspDetails *
rsp_details_new_for_item (const RspModel *m, RspDetailsItem kind, RspIdx item)
{
  g_return_val_if_fail (m != NULL, NULL);
  RspDetails *d = g_new0 (RspDetails, 1);
  Writer w = { NULL, m, rsp_model_start_time (m), g_string_new (NULL) };
  GString *summary = g_string_new (NULL);
  static const char *const titles[] = {
    [RSP_DETAILS_RUN] = N_ ("Run"),
    [RSP_DETAILS_SLEEP] = N_ ("Sleep"),
    [RSP_DETAILS_DISK_OP] = N_ ("Disk request"),
    [RSP_DETAILS_NET_OP] = N_ ("Network wait"),
    [RSP_DETAILS_LINK] = N_ ("Wake-up"),
  };
  g_string_append_printf (w.text, "<big><b>%s</b></big>", _(titles[kind]));
  switch (kind)
    {
    case RSP_DETAILS_RUN:
      {
        g_autofree char *task = task_name (m, rsp_model_run (m, item)->task);
        line (&w, _("Task:"), task);
        run_lines (&w, d, item, summary);
        break;
      }
    case RSP_DETAILS_SLEEP:
      {
        g_autofree char *task = task_name (m, rsp_model_sleep (m, item)->task);
        line (&w, _("Task:"), task);
        sleep_lines (&w, d, item, summary);
        break;
      }
    case RSP_DETAILS_DISK_OP:
      {
        g_autofree char *service = NULL;
        g_autofree char *size = disk_op_lines (&w, d, item, &service);
        g_string_append_printf (summary, _("disk request of %s"), size);
        break;
      }
    case RSP_DETAILS_NET_OP:
      g_string_append_printf (summary, _("waiting on %s"), net_op_lines (&w, d, item, TRUE));
      break;
    case RSP_DETAILS_LINK:
      {
        const RspLink *l = rsp_model_link (m, item);
        static const char *const kinds[] = {
          [RSP_LINK_WAKEUP] = N_ ("a wake-up"),       [RSP_LINK_FORK] = N_ ("a fork"),
          [RSP_LINK_EXEC] = N_ ("an exec"),           [RSP_LINK_INTERRUPT] = N_ ("an interrupted run"),
          [RSP_LINK_PREEMPTION] = N_ ("a preemption"), [RSP_LINK_DISK] = N_ ("a disk completion"),
          [RSP_LINK_NETWORK] = N_ ("network data"),
        };
        const char *what = (guint) l->kind < G_N_ELEMENTS (kinds) ? _(kinds[l->kind]) : "?";
        g_autofree char *at = g_strdup_printf (_("%s at %.3f ms"), what, ms (&w, l->time));
        line (&w, _("Link:"), at);
        g_string_append (summary, what);
        if (l->from_run != RSP_NONE)
          {
            const RspRun *r = rsp_model_run (m, l->from_run);
            g_autofree char *from = task_name (m, r->task);
            line (&w, _("From:"), from);
            d->jump_start = r->start;
            d->jump_end = r->end;
            d->jump_label = _("_Go to the waker");
          }
        else if (l->kind == RSP_LINK_DISK && l->from_op != RSP_NONE)
          {
            g_autofree char *service = NULL;
            g_autofree char *size = disk_op_lines (&w, d, l->from_op, &service);
            g_string_append (summary, _(", from a "));
            g_string_append_printf (summary, _("disk request of %s"), size);
          }
        else if (l->kind == RSP_LINK_NETWORK && l->from_op != RSP_NONE)
          g_string_append_printf (summary, _(", waiting on %s"), net_op_lines (&w, d, l->from_op, TRUE));
        if (l->to_run != RSP_NONE)
          {
            g_autofree char *to = task_name (m, rsp_model_run (m, l->to_run)->task);
            line (&w, _("To:"), to);
          }
        break;
      }
    }
  d->markup = g_string_free (w.text, FALSE);
  d->summary = g_string_free (summary, FALSE);
  return d;
}

void
rsp_details_free (RspDetails *d)
{
  if (d == NULL)
    return;
  g_free (d->markup);
  g_free (d->summary);
  g_free (d);
}
