/* rsp-stack-names.h — the names a stack's frames are shown and exported
 * with, shared by the flame views and the exports (rsp-profile-export.h), so that
 * a frame is called the same everywhere.
 *
 * A frame is RspModelFrame.name: its symbol, else the file it falls in and
 * the offset there, or its address where there is no file.
 * Unless FULL, the frames the model's kernel table calls scheduler plumbing
 * (schedule, io_schedule, do_syscall_64, finish_task_switch...) are left
 * out: every sleep has them, they say nothing about why it slept, and they
 * cost each layer of a flame five rows.
 */
#pragma once

#include "rsp-model.h"

G_BEGIN_DECLS

typedef struct _RspStackNames RspStackNames;

RspStackNames *rsp_stack_names_new (const RspModel *model, gboolean full);
void rsp_stack_names_free (RspStackNames *names);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspStackNames, rsp_stack_names_free)

/* STACK's frame names, outermost first, each stack resolved once; the
 * array stays valid while NAMES lives (not across calls: it may move).
 * N_USER (may be NULL): how many of the outermost frames are user-space. */
const char *const *rsp_stack_names_get (RspStackNames *names, RspStackId stack, guint *n_frames, guint *n_user);

/* The stack a run is shown with when no sample fell in it: the user-space
 * part of the stack it blocked with at its end, as the accounting names
 * such runs ("ran 4.6 ms in short runs ... each ending in read()"); its
 * kernel part says where it stopped, not where it ran.  0 if none. */
RspStackId rsp_model_unsampled_stack (const RspModel *model, const RspRun *run);

G_END_DECLS
