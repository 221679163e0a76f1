/* rsp-unwind.h — DWARF unwinding of --call-graph dwarf samples (x86_64).
 *
 * A sample recorded with PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER
 * carries the user registers and a copy of the top of the user stack.
 * libdwfl unwinds it with the CFI (.eh_frame, .debug_frame) of the binaries
 * mapped in the process.  One Dwfl is kept per process (a few, least
 * recently used first out) and binaries are reported to it as the unwinder
 * reaches them, so a process costs its binaries' CFI parsing once, not once
 * per sample as in perf.
 */
#pragma once

#include <glib.h>
#include <libelf.h>

#include "rsp-event.h"

G_BEGIN_DECLS

/* The binary mapped at an address of a process. */
typedef struct {
  const char *name;    /* module name (the map's file name) */
  const char *path;    /* file to read, or NULL when IMAGE is given */
  const guint8 *image; /* in-memory ELF (the vdso) */
  gsize image_size;
  guint64 start;       /* start of the map: identifies the mapping */
  guint64 bias;        /* process address of ELF vaddr 0 */
} RspUnwindModule;

/* Fills MODULE for ADDR in process PID; FALSE when no usable file is mapped
 * there (anonymous memory, JIT code, missing binary). */
typedef gboolean (*RspUnwindFindModule) (gpointer user_data, gint32 pid, guint64 addr,
                                         RspUnwindModule *module);

typedef struct _RspUnwinder RspUnwinder;

RspUnwinder *rsp_unwinder_new (RspUnwindFindModule find_module, gpointer user_data);
void rsp_unwinder_free (RspUnwinder *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspUnwinder, rsp_unwinder_free)

/* Whether SAMPLE has what unwinding needs (64-bit user regs with IP and SP,
 * stack bytes: user_stack_dyn_size > 0, the part of the buffer the kernel
 * filled). */
gboolean rsp_unwinder_can_unwind (const RspSample *sample);

/* Unwinds the user stack of SAMPLE taken in thread TID of process PID.
 * MAPS_GENERATION is the process's RspProcessMaps generation: when it
 * changes, the process's binaries are reported again.  Writes the frames'
 * addresses innermost first into PCS: the first is the sampled IP, the
 * others are return addresses minus one (the call instruction), as perf
 * reports them.  Returns the number written, at most MAX. */
guint rsp_unwinder_unwind (RspUnwinder *self, gint32 pid, gint32 tid, guint maps_generation,
                           const RspSample *sample, guint64 *pcs, guint max);

/* Drops what was kept for process PID (it exited): a build's hundreds of
 * short processes would otherwise each hold their binaries' parsed CFI
 * until 32 newer ones pushed them out.  Unwinding PID again starts
 * afresh. */
void rsp_unwinder_forget (RspUnwinder *self, gint32 pid);

/* Whether ELF has a non-empty .eh_frame: the unwinder gives libdwfl a
 * binary's debug file (for its .debug_frame) only when it has none, since
 * loading one decompresses all its debug sections. */
gboolean rsp_unwind_elf_has_eh_frame (Elf *elf);

G_END_DECLS
