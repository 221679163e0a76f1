/* rsp-stack-names.c — frame names of stacks, for the views and the exports. */
#include "rsp-stack-names.h"

#include "rsp-kernel-sigs.h"

struct _RspStackNames {
  const RspModel *m;
  gboolean full;
  GArray *names; /* const char *: every resolved stack, outermost frame first */
  GArray *where; /* per stack id: offset into names + 1 (0 = not resolved yet), length, user frames */
};

RspStackNames *
rsp_stack_names_new (const RspModel *model, gboolean full)
{
  RspStackNames *s = g_new0 (RspStackNames, 1);
  s->m = model;
  s->full = full;
  s->names = g_array_new (FALSE, FALSE, sizeof (const char *));
  s->where = g_array_new (FALSE, TRUE, 3 * sizeof (guint32));
  return s;
}

void
rsp_stack_names_free (RspStackNames *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->names);
  g_array_unref (s->where);
  g_free (s);
}

const char *const *
rsp_stack_names_get (RspStackNames *s, RspStackId stack, guint *n_frames, guint *n_user)
{
  *n_frames = 0;
  if (n_user != NULL)
    *n_user = 0;
  if (stack == 0)
    return NULL;
  if (stack >= s->where->len)
    g_array_set_size (s->where, stack + 1);
  guint32 *w = &g_array_index (s->where, guint32, 3 * stack);
  if (w[0] == 0)
    {
      guint n;
      const RspModelFrame *frames = rsp_model_stack (s->m, stack, &n);
      guint32 offset = s->names->len, user = 0;
      for (guint k = n; k > 0; k--)
        {
          const RspModelFrame *f = &frames[k - 1];
          if (!s->full && f->kernel && rsp_kernel_sig (f->symbol) == RSP_SIG_SCHED)
            continue;
          if (!f->kernel && user == s->names->len - offset)
            user++;
          const char *name = f->name != NULL ? f->name : "?";
          g_array_append_val (s->names, name);
        }
      w[0] = offset + 1;
      w[1] = s->names->len - offset;
      w[2] = user;
    }
  *n_frames = w[1];
  if (n_user != NULL)
    *n_user = w[2];
  return w[1] > 0 ? &g_array_index (s->names, const char *, w[0] - 1) : NULL;
}

RspStackId
rsp_model_unsampled_stack (const RspModel *m, const RspRun *run)
{
  if (run->n_samples > 0 || run->next_sleep == RSP_NONE)
    return 0;
  return rsp_model_sleep (m, run->next_sleep)->stack;
}

