/* rsp-symbols-callchain.c — a sample's callchain as frames: the kernel's
 * context markers switch between kernel, user and guest addresses, and in
 * DWARF mode the unwinder's user frames replace the kernel's user part.
 */
#include "rsp-symbols-private.h"

/* ------------------------------------------------------------------------ */
/* Callchains                                                               */

typedef enum { MODE_USER, MODE_KERNEL, MODE_OTHER } CallchainMode;

static CallchainMode
mode_of_cpumode (guint16 misc, guint64 ip)
{
  switch (misc & PERF_RECORD_MISC_CPUMODE_MASK)
    {
    case PERF_RECORD_MISC_KERNEL:
      return MODE_KERNEL;
    case PERF_RECORD_MISC_USER:
      return MODE_USER;
    case PERF_RECORD_MISC_CPUMODE_UNKNOWN:
      /* x86_64: the kernel lives in the upper half. */
      return ip >= G_GUINT64_CONSTANT (0xffff800000000000) ? MODE_KERNEL : MODE_USER;
    default:
      return MODE_OTHER; /* hypervisor, guest */
    }
}

/* FALSE for a value in the marker range that is no marker: (u64)-1 shows
 * up at the end of user frame-pointer chains that walked into garbage. */
static gboolean
mode_of_marker (guint64 marker, CallchainMode *mode)
{
  switch (marker)
    {
    case PERF_CONTEXT_KERNEL:
      *mode = MODE_KERNEL;
      return TRUE;
    case PERF_CONTEXT_USER:
      *mode = MODE_USER;
      return TRUE;
    case PERF_CONTEXT_HV:
    case PERF_CONTEXT_GUEST:
    case PERF_CONTEXT_GUEST_KERNEL:
    case PERF_CONTEXT_GUEST_USER:
      *mode = MODE_OTHER;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
resolve_in_mode (RspSymbolizer *self, gint32 pid, guint64 ip, CallchainMode mode,
                 RspFrame *frame)
{
  if (mode == MODE_OTHER)
    {
      /* Guest or hypervisor addresses: nothing here can name them. */
      *frame = (RspFrame){ .ip = ip };
      self->stats.lookups++;
      self->stats.unknown++;
      return;
    }
  rsp_symbolizer_resolve (self, pid, ip, mode == MODE_KERNEL, frame);
}

guint
rsp_symbolizer_resolve_callchain (RspSymbolizer *self, const RspEvent *sample, RspFrame *frames,
                                  guint max)
{
  const RspSample *s;
  CallchainMode mode;
  gboolean dwarf;
  guint n = 0, user_entries = 0;

  g_return_val_if_fail (self != NULL && sample != NULL, 0);
  g_return_val_if_fail (frames != NULL || max == 0, 0);

  s = &sample->sample;
  mode = mode_of_cpumode (sample->misc, s->ip);
  dwarf = self->dwarf_unwind && rsp_unwinder_can_unwind (s);

  if (s->callchain == NULL || s->n_callchain == 0)
    {
      /* No callchain: the sampled address alone (in dwarf mode only if it
       * is in the kernel; the unwinder starts from the user IP).  An event
       * that samples no address (the tracefs instance's) has no frame. */
      gboolean has_ip = sample->evsel == NULL || (sample->evsel->attr.sample_type & PERF_SAMPLE_IP);
      if (max > 0 && has_ip && !(dwarf && mode == MODE_USER))
        resolve_in_mode (self, sample->pid, s->ip, mode, &frames[n++]);
    }
  else
    {
      for (guint64 i = 0; i < s->n_callchain && n < max; i++)
        {
          guint64 ip = s->callchain[i];
          if (ip >= PERF_CONTEXT_MAX)
            {
              /* A corrupt entry ends the chain; the frames before it are
               * good (perf drops the whole chain). */
              if (!mode_of_marker (ip, &mode))
                break;
              continue;
            }
          if (mode == MODE_USER)
            {
              user_entries++;
              /* In dwarf mode the unwinder replaces the user part. */
              if (dwarf)
                continue;
            }
          resolve_in_mode (self, sample->pid, ip, mode, &frames[n++]);
        }
    }

  if (dwarf && n < max)
    {
      RspProcessMaps *proc = symbolizer_process_maps (self, sample->pid);
      guint k = rsp_unwinder_unwind (self->unwinder, sample->pid, sample->tid,
                                     proc != NULL ? proc->generation : 0, s, self->pcs,
                                     MIN (max - n, MAX_UNWIND_FRAMES));
      if (k > 0)
        {
          for (guint i = 0; i < k; i++)
            rsp_symbolizer_resolve (self, sample->pid, self->pcs[i], FALSE, &frames[n++]);
        }
      else if (user_entries > 0)
        {
          /* Unwinding failed: keep the user callchain the kernel gave. */
          mode = mode_of_cpumode (sample->misc, s->ip);
          for (guint64 i = 0; i < s->n_callchain && n < max; i++)
            {
              guint64 ip = s->callchain[i];
              if (ip >= PERF_CONTEXT_MAX)
                {
                  if (!mode_of_marker (ip, &mode))
                    break;
                }
              else if (mode == MODE_USER)
                rsp_symbolizer_resolve (self, sample->pid, ip, FALSE, &frames[n++]);
            }
        }
    }
  return n;
}


guint64
rsp_symbolizer_callchain_token (RspSymbolizer *self, const RspEvent *sample)
{
  gint32 owner;
  return rsp_symbolizer_callchain_key (self, sample, &owner);
}

guint64
rsp_symbolizer_callchain_key (RspSymbolizer *self, const RspEvent *sample, gint32 *owner)
{
  g_return_val_if_fail (self != NULL && sample != NULL && owner != NULL, 0);
  *owner = sample->pid;

  const RspSample *s = &sample->sample;
  if (s->callchain == NULL || s->n_callchain == 0 || self->track_used
      || (self->dwarf_unwind && rsp_unwinder_can_unwind (s)))
    return 0;
  /* The kernel's symbols never change while a recording is read; a user
   * address depends on the process's maps (which JIT maps follow: they are
   * looked up again only on an mmap), named by their generation (0: no
   * maps yet), which forked copies of a process share while their maps
   * are the same (rsp-maps.h). */
  RspProcessMaps *proc = symbolizer_process_maps (self, sample->pid);
  guint64 generation = proc != NULL ? proc->generation : 0;
  /* Besides its maps, only JIT code names a process's frames by its pid
   * (its perf map, or what the recording stored of one).  Where none can
   * be read (only stored symbols answer, or none from this machine) and
   * none was stored, the frames depend on the maps alone: the processes
   * of one generation (forked copies, rsp-maps.h) share the chain. */
  if (proc != NULL && (self->has_stored || self->offline) && self->n_stored_jit == 0)
    *owner = 0;
  return ((generation << 2) | mode_of_cpumode (sample->misc, s->ip)) + 1;
}
