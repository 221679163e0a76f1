/* rsp-unwind.c — see rsp-unwind.h. */
#include "rsp-unwind.h"

#include <asm/perf_regs.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rsp-elf-cache.h"

/* Processes whose Dwfl is kept; beyond that the least recently used goes. */
#define MAX_CACHED_PROCESSES 32

/* x86_64 DWARF register number -> perf register index (PERF_REG_X86_*),
 * the mapping perf's arch/x86/util/unwind-libdw.c uses; DWARF 16 is the
 * return address column, i.e. the IP. */
static const guint8 dwarf_to_perf[17] = {
  PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
  PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
  PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
  PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
  PERF_REG_X86_IP,
};

typedef struct _UnwindProcess UnwindProcess;

struct _RspUnwinder {
  RspUnwindFindModule find_module;
  gpointer user_data;
  GHashTable *processes; /* pid -> UnwindProcess*, owned */
  GQueue lru;            /* UnwindProcess, most recently used first */
  Dwfl_Callbacks dwfl_callbacks;
  /* A bare x86_64 ELF header: dwfl_attach_state takes the architecture
   * from an ELF, and the sampled IP may be in no file at all (JIT). */
  Elf64_Ehdr arch_ehdr;
  Elf *arch_elf;
};

struct _UnwindProcess {
  RspUnwinder *owner;
  gint32 pid;
  guint generation;
  Dwfl *dwfl;
  gboolean attached;
  GHashTable *tried; /* map starts already reported (or failed) */
  GList lru_link;
  /* The sample being unwound. */
  const RspSample *sample;
  gint32 tid;
  guint64 stack_start, stack_len;
  guint64 *pcs;
  guint n_pcs, max_pcs;
};

/* ------------------------------------------------------------------------ */

static gboolean
get_reg (const RspSample *sample, guint perf_reg, guint64 *value)
{
  guint64 bit = G_GUINT64_CONSTANT (1) << perf_reg;

  if ((sample->user_regs_mask & bit) == 0 || sample->user_regs == NULL)
    return FALSE;
  *value = sample->user_regs[__builtin_popcountll (sample->user_regs_mask & (bit - 1))];
  return TRUE;
}

/* Bytes of stack the kernel really copied: dyn_size (0 when it could copy
 * nothing, e.g. inside execve), within the buffer. */
static guint64
stack_length (const RspSample *sample)
{
  if (sample->user_stack == NULL)
    return 0;
  return MIN (sample->user_stack_dyn_size, sample->user_stack_size);
}

gboolean
rsp_unwinder_can_unwind (const RspSample *sample)
{
  guint64 ip = 0, sp = 0;

  /* Like perf: no stack bytes, no user frames from this sample. */
  return sample->user_regs_abi == PERF_SAMPLE_REGS_ABI_64 && sample->user_regs != NULL &&
         get_reg (sample, PERF_REG_X86_IP, &ip) && get_reg (sample, PERF_REG_X86_SP, &sp) &&
         stack_length (sample) > 0;
}

/* Makes sure the binary mapped at ADDR is reported to P's Dwfl. */
static void
ensure_module (UnwindProcess *p, guint64 addr)
{
  RspUnwinder *u = p->owner;
  RspUnwindModule module = { 0 };
  Dwfl_Module *mod;
  int fd = -1;

  if (dwfl_addrmodule (p->dwfl, addr) != NULL)
    return;
  if (!u->find_module (u->user_data, p->pid, addr, &module))
    return;
  if (!g_hash_table_add (p->tried, GSIZE_TO_POINTER (module.start)))
    return;

  if (module.image != NULL)
    {
      /* libdwfl reads modules from file descriptors: hand it the vdso
       * through an anonymous file. */
      fd = memfd_create ("rsp-vdso", MFD_CLOEXEC);
      if (fd < 0 || write (fd, module.image, module.image_size) != (gssize) module.image_size)
        {
          if (fd >= 0)
            close (fd);
          return;
        }
    }
  else if (module.path == NULL)
    return;

  dwfl_report_begin_add (p->dwfl);
  /* On success the fd belongs to libdwfl; a module overlapping one already
   * reported (stale maps) is refused, which is fine. */
  mod = dwfl_report_elf (p->dwfl, module.name, module.path != NULL ? module.path : module.name,
                         fd, module.bias, false);
  dwfl_report_end (p->dwfl, NULL, NULL);
  if (mod == NULL && fd >= 0)
    close (fd);
}

static gboolean
read_from_module (UnwindProcess *p, guint64 addr, Dwarf_Word *result)
{
  Dwfl_Module *mod;
  Dwarf_Addr bias;
  Elf *elf;
  size_t n_phdrs;

  ensure_module (p, addr);
  mod = dwfl_addrmodule (p->dwfl, addr);
  if (mod == NULL || (elf = dwfl_module_getelf (mod, &bias)) == NULL ||
      elf_getphdrnum (elf, &n_phdrs) != 0)
    return FALSE;
  for (size_t i = 0; i < n_phdrs; i++)
    {
      GElf_Phdr phdr;
      guint64 vaddr = addr - bias;
      Elf_Data *data;

      if (gelf_getphdr (elf, i, &phdr) == NULL || phdr.p_type != PT_LOAD ||
          vaddr < phdr.p_vaddr || phdr.p_filesz < sizeof *result ||
          vaddr - phdr.p_vaddr > phdr.p_filesz - sizeof *result)
        continue;
      data = elf_getdata_rawchunk (elf, phdr.p_offset + (vaddr - phdr.p_vaddr), sizeof *result,
                                   ELF_T_BYTE);
      if (data == NULL || data->d_buf == NULL)
        return FALSE;
      memcpy (result, data->d_buf, sizeof *result);
      return TRUE;
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Dwfl callbacks                                                           */

static pid_t
cb_next_thread (Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
  UnwindProcess *p = dwfl_arg;

  /* One thread per call: the one that was sampled. */
  if (*thread_argp != NULL)
    return 0;
  *thread_argp = p;
  return p->tid;
}

static bool
cb_get_thread (Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
  *thread_argp = dwfl_arg;
  return true;
}

static bool
cb_memory_read (Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
  UnwindProcess *p = dwfl_arg;

  if (addr >= p->stack_start && p->stack_len >= sizeof *result &&
      addr - p->stack_start <= p->stack_len - sizeof *result)
    {
      memcpy (result, p->sample->user_stack + (addr - p->stack_start), sizeof *result);
      return true;
    }
  /* Outside the copied stack: constant data in a binary, if anything. */
  return read_from_module (p, addr, result);
}

static bool
cb_set_initial_registers (Dwfl_Thread *thread, void *thread_arg)
{
  UnwindProcess *p = thread_arg;

  for (guint dw = 0; dw < G_N_ELEMENTS (dwarf_to_perf); dw++)
    {
      guint64 value;
      Dwarf_Word word;
      if (!get_reg (p->sample, dwarf_to_perf[dw], &value))
        continue; /* absent registers stay undefined rather than zero */
      word = value;
      if (!dwfl_thread_state_registers (thread, dw, 1, &word))
        return false;
    }
  return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = cb_next_thread,
  .get_thread = cb_get_thread,
  .memory_read = cb_memory_read,
  .set_initial_registers = cb_set_initial_registers,
};

static int
cb_frame (Dwfl_Frame *state, void *arg)
{
  UnwindProcess *p = arg;
  Dwarf_Addr pc;
  bool activation;

  if (!dwfl_frame_pc (state, &pc, NULL))
    return DWARF_CB_ABORT;
  /* Deciding whether this is an activation unwinds one more step, which
   * needs this frame's binary: report it first (as perf does). */
  ensure_module (p, pc);
  if (!dwfl_frame_pc (state, &pc, &activation))
    return DWARF_CB_ABORT;
  /* A return address points after the call; the call is what ran. */
  p->pcs[p->n_pcs++] = activation ? pc : pc - 1;
  return p->n_pcs < p->max_pcs ? DWARF_CB_OK : DWARF_CB_ABORT;
}

gboolean
rsp_unwind_elf_has_eh_frame (Elf *elf)
{
  GElf_Shdr shdr;
  return elf != NULL && rsp_elf_find_section_by_name (elf, ".eh_frame", &shdr) != NULL
         && shdr.sh_type != SHT_NOBITS && shdr.sh_size > 0;
}

/* Looks for debug files the way the ELF cache does, without debuginfod
 * (dwfl_standard_find_debuginfo may go to the network). */
static int
cb_find_debuginfo (Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                   char **debuginfo_file_name)
{
  /* Unwinding reads .eh_frame from the binary itself (libdwfl tries it
   * first).  It falls back to the DWARF CFI at the outermost frame of
   * every stack (where the return address is undefined), and loading a
   * debug file decompresses all its debug sections, once per process:
   * libc6-dbg's took 87% of a report of a build recorded with
   * --call-graph dwarf.  A binary with .eh_frame gets no debug file;
   * one without (.debug_frame only) gets it. */
  GElf_Addr bias;
  if (rsp_unwind_elf_has_eh_frame (dwfl_module_getelf (mod, &bias)))
    return -1;
  const unsigned char *bits;
  GElf_Addr vaddr;
  int len = dwfl_module_build_id (mod, &bits, &vaddr);
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);

  if (len > 1 && len <= 20)
    {
      g_autofree char *hex = rsp_build_id_to_hex (bits, len);
      g_ptr_array_add (candidates, g_strdup_printf ("/usr/lib/debug/.build-id/%.2s/%s.debug",
                                                    hex, hex + 2));
    }
  if (debuglink_file != NULL && file_name != NULL && strchr (debuglink_file, '/') == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (file_name);
      g_ptr_array_add (candidates, g_build_filename (dir, debuglink_file, NULL));
      g_ptr_array_add (candidates, g_build_filename (dir, ".debug", debuglink_file, NULL));
      g_ptr_array_add (candidates, g_build_filename ("/usr/lib/debug", dir, debuglink_file, NULL));
    }
  for (guint i = 0; i < candidates->len; i++)
    {
      const char *path = candidates->pdata[i];
      int fd;
      if (file_name != NULL && strcmp (path, file_name) == 0)
        continue;
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          /* libdwfl frees it with free(). */
          *debuginfo_file_name = strdup (path);
          return fd;
        }
    }
  return -1;
}

static int
cb_find_elf (Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
             char **file_name, Elf **elfp)
{
  /* Every module is reported with its file: nothing to find. */
  return -1;
}

/* ------------------------------------------------------------------------ */

static void
process_free (UnwindProcess *p)
{
  g_clear_pointer (&p->dwfl, dwfl_end);
  g_clear_pointer (&p->tried, g_hash_table_unref);
  g_free (p);
}

static void
process_reset (UnwindProcess *p, guint generation)
{
  g_clear_pointer (&p->dwfl, dwfl_end);
  g_hash_table_remove_all (p->tried);
  p->dwfl = dwfl_begin (&p->owner->dwfl_callbacks);
  p->attached = FALSE;
  p->generation = generation;
}

static UnwindProcess *
get_process (RspUnwinder *self, gint32 pid, guint generation)
{
  UnwindProcess *p = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));

  if (p == NULL)
    {
      if (self->lru.length >= MAX_CACHED_PROCESSES)
        {
          UnwindProcess *old = g_queue_peek_tail (&self->lru);
          g_queue_unlink (&self->lru, &old->lru_link);
          g_hash_table_remove (self->processes, GINT_TO_POINTER (old->pid));
        }
      p = g_new0 (UnwindProcess, 1);
      p->owner = self;
      p->pid = pid;
      p->lru_link.data = p;
      p->tried = g_hash_table_new (NULL, NULL);
      g_hash_table_insert (self->processes, GINT_TO_POINTER (pid), p);
      process_reset (p, generation);
    }
  else
    {
      g_queue_unlink (&self->lru, &p->lru_link);
      if (p->generation != generation || p->dwfl == NULL)
        process_reset (p, generation);
    }
  g_queue_push_head_link (&self->lru, &p->lru_link);
  return p;
}

void
rsp_unwinder_forget (RspUnwinder *self, gint32 pid)
{
  g_return_if_fail (self != NULL);
  UnwindProcess *p = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));
  if (p == NULL)
    return;
  g_queue_unlink (&self->lru, &p->lru_link);
  g_hash_table_remove (self->processes, GINT_TO_POINTER (pid));
}

RspUnwinder *
rsp_unwinder_new (RspUnwindFindModule find_module, gpointer user_data)
{
  RspUnwinder *self = g_new0 (RspUnwinder, 1);

  elf_version (EV_CURRENT);
  self->find_module = find_module;
  self->user_data = user_data;
  self->processes = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) process_free);
  g_queue_init (&self->lru);
  self->dwfl_callbacks.find_elf = cb_find_elf;
  self->dwfl_callbacks.find_debuginfo = cb_find_debuginfo;
  self->dwfl_callbacks.section_address = dwfl_offline_section_address;

  memcpy (self->arch_ehdr.e_ident, ELFMAG, SELFMAG);
  self->arch_ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  self->arch_ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
  self->arch_ehdr.e_ident[EI_VERSION] = EV_CURRENT;
  self->arch_ehdr.e_type = ET_CORE;
  self->arch_ehdr.e_machine = EM_X86_64;
  self->arch_ehdr.e_version = EV_CURRENT;
  self->arch_ehdr.e_ehsize = sizeof (Elf64_Ehdr);
  self->arch_elf = elf_memory ((char *) &self->arch_ehdr, sizeof self->arch_ehdr);
  return self;
}

void
rsp_unwinder_free (RspUnwinder *self)
{
  if (self == NULL)
    return;
  /* Dwfls first: they use arch_elf. */
  g_hash_table_unref (self->processes);
  g_clear_pointer (&self->arch_elf, elf_end);
  g_free (self);
}

guint
rsp_unwinder_unwind (RspUnwinder *self, gint32 pid, gint32 tid, guint maps_generation,
                     const RspSample *sample, guint64 *pcs, guint max)
{
  UnwindProcess *p;
  guint64 ip = 0, sp = 0;

  g_return_val_if_fail (self != NULL && sample != NULL, 0);
  if (max == 0 || !rsp_unwinder_can_unwind (sample) || self->arch_elf == NULL)
    return 0;
  get_reg (sample, PERF_REG_X86_IP, &ip);
  get_reg (sample, PERF_REG_X86_SP, &sp);

  p = get_process (self, pid, maps_generation);
  if (p->dwfl == NULL)
    return 0;
  p->sample = sample;
  p->tid = tid > 0 ? tid : pid > 0 ? pid : 1;
  p->stack_start = sp;
  p->stack_len = stack_length (sample);
  p->pcs = pcs;
  p->n_pcs = 0;
  p->max_pcs = max;

  ensure_module (p, ip);
  if (!p->attached)
    {
      if (!dwfl_attach_state (p->dwfl, self->arch_elf, pid > 0 ? pid : 1, &thread_callbacks, p))
        {
          /* Unusable Dwfl: start afresh next time. */
          g_clear_pointer (&p->dwfl, dwfl_end);
          return 0;
        }
      p->attached = TRUE;
    }
  /* The return value only says whether the walk ended cleanly; the frames
   * gathered before an error are good. */
  dwfl_getthread_frames (p->dwfl, p->tid, cb_frame, p);

  p->sample = NULL;
  p->pcs = NULL;
  return p->n_pcs;
}
