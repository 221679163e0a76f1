/* rsp-symbols.h — turning addresses into function names.
 *
 * Kernel: a stored table (RSP recordings) or /proc/kallsyms (plain perf.data,
 * as perf does).  User space: per-process maps from MMAP/MMAP2 records, ELF
 * symbols read with libdw/libelf (.symtab, .dynsym, build id,
 * .gnu_debuglink, /usr/lib/debug), cached per binary (build id, else path),
 * never per process.  C++ names demangled.  Samples recorded with
 * --call-graph dwarf are unwound with libdw.
 *
 * Names are interned: the same function always yields the same pointer for
 * the symbolizer's lifetime, so callers may compare frames by pointer.
 */
#pragma once

#include <glib.h>

#include "rsp-event.h"

G_BEGIN_DECLS

typedef struct _RspSymbolizer RspSymbolizer;

#define RSP_SYMBOLIZER_ERROR (rsp_symbolizer_error_quark ())
GQuark rsp_symbolizer_error_quark (void);

typedef enum {
  RSP_SYMBOLIZER_ERROR_HIDDEN,  /* kallsyms addresses are all zero */
  RSP_SYMBOLIZER_ERROR_INVALID, /* malformed kallsyms text or stored table */
  RSP_SYMBOLIZER_ERROR_IO,      /* a file could not be read */
} RspSymbolizerError;

typedef struct {
  guint64 ip;          /* address as recorded (user: virtual address in the process) */
  const char *symbol;  /* interned function name, NULL if unknown */
  guint64 offset;      /* ip - symbol start; without a symbol, user space: the offset in the
                        * file the address falls in (ip - map start + pgoff); else 0 */
  const char *dso;     /* interned path ("[kernel.kallsyms]" for the kernel), NULL if unmapped */
  gboolean kernel;
} RspFrame;

RspSymbolizer *rsp_symbolizer_new (void);
void rsp_symbolizer_free (RspSymbolizer *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspSymbolizer, rsp_symbolizer_free)

/* Kernel symbols from kallsyms-format text ("addr type name [module]"). */
gboolean rsp_symbolizer_load_kallsyms (RspSymbolizer *self, const char *text, gsize length,
                                       GError **error);
/* This machine's /proc/kallsyms; fails with a clear message when the
 * addresses are hidden (kptr_restrict, not root).  The table is cached in
 * the user's cache directory (XDG_CACHE_HOME/rsp, see
 * rsp_symbolizer_load_proc_kallsyms_cached) unless RSP_NO_CACHE is set. */
gboolean rsp_symbolizer_load_proc_kallsyms (RspSymbolizer *self, GError **error);

/* The GNU build id among the ELF notes NOTES of LENGTH bytes (the format of
 * /sys/kernel/notes): into ID (20 bytes at most), its size into *SIZE;
 * FALSE when there is none or the notes are damaged. */
gboolean rsp_elf_notes_build_id (const guint8 *notes, gsize length, guint8 *id, guint *size);
/* The running kernel's build id (/sys/kernel/notes), FALSE where it cannot
 * be read. */
gboolean rsp_running_kernel_build_id (guint8 *id, guint *size);
/* The same with the cache in CACHE_DIR (NULL: no cache).  The cache holds
 * the table as it is loaded, sorted and fixed up, keyed by the boot id and
 * the loaded modules (/proc/modules), and is memory-mapped when it
 * matches; an entry that does not (another boot, a module loaded since, a
 * truncated or damaged file, another version) is rebuilt.  It is written
 * to a temporary file and renamed (concurrent writers leave one whole
 * entry), mode 0600; a cache that cannot be written only costs speed. */
gboolean rsp_symbolizer_load_proc_kallsyms_cached (RspSymbolizer *self, const char *cache_dir, GError **error);
/* The same for the kallsyms-format file SOURCE (tests). */
gboolean rsp_symbolizer_load_kallsyms_file_cached (RspSymbolizer *self, const char *source, const char *cache_dir,
                                                   GError **error);
/* Where the kernel table came from: "cache", "kallsyms" (/proc/kallsyms or
 * SOURCE, read and parsed), "text" (a recording's copy, given to
 * rsp_symbolizer_load_kallsyms), or NULL. */
const char *rsp_symbolizer_kernel_source (RspSymbolizer *self);

/* Symbols stored in an RSP recording (the "symbols" section).  They are used
 * first; binaries on this machine fill in what they lack. */
gboolean rsp_symbolizer_load_stored (RspSymbolizer *self, const guint8 *data, gsize size,
                                     GError **error);

/* Build ids from the perf.data header (HEADER_BUILD_ID), so a binary is
 * matched by its build id and a rebuilt binary is not mis-symbolized. */
void rsp_symbolizer_add_build_id (RspSymbolizer *self, const char *filename,
                                  const guint8 *build_id, guint size);

/* Feed every record in time order: MMAP/MMAP2, COMM (exec), FORK, EXIT keep
 * the per-process maps up to date.  Other records are ignored. */
void rsp_symbolizer_process_event (RspSymbolizer *self, const RspEvent *event);

/* Resolves one address in process PID. */
void rsp_symbolizer_resolve (RspSymbolizer *self, gint32 pid, guint64 ip, gboolean kernel,
                             RspFrame *frame);

/* Resolves the callchain of a sample (PERF_CONTEXT_* markers decide kernel
 * or user; with user regs and stack in the sample, the user part is unwound
 * with DWARF CFI).  Innermost frame first.  Returns the number of frames
 * written, at most MAX.
 * As perf script: every entry that is not a marker is a frame; unwound
 * callers' ips are return address - 1.  Unlike perf, a corrupt entry in the
 * marker range ((u64)-1 ends some frame-pointer chains) ends the chain
 * instead of discarding it whole, and guest/hypervisor entries are frames
 * with no symbol.  Without a callchain, the sample's ip is the one frame. */
guint rsp_symbolizer_resolve_callchain (RspSymbolizer *self, const RspEvent *sample,
                                        RspFrame *frames, guint max);

/* What the frames of SAMPLE's callchain depend on besides its entries: two
 * samples of the same pid with the same entries and the same nonzero token
 * resolve to the same frames (the token changes whenever the process's maps
 * do, and names the mode the chain starts in).  0 when the chain must be
 * resolved each time: no callchain, DWARF unwinding (the frames come from
 * the stack's contents), or the bookkeeping of used symbols
 * (rsp_symbolizer_set_track_used). */
guint64 rsp_symbolizer_callchain_token (RspSymbolizer *self, const RspEvent *sample);
/* The same token, and in *OWNER the pid its frames belong to: SAMPLE's, or
 * 0 when they depend on the maps alone (no JIT symbols can be read for any
 * process), so that samples of the processes whose maps are one copy (a
 * parent and the children forked from it, until one changes its maps) with
 * the same entries and token resolve to the same frames. */
guint64 rsp_symbolizer_callchain_key (RspSymbolizer *self, const RspEvent *sample, gint32 *owner);

/* DWARF unwinding of samples that carry user regs and stack (on by
 * default).  Off, such samples keep whatever user callchain they have. */
void rsp_symbolizer_set_dwarf_unwind (RspSymbolizer *self, gboolean enable);

/* Offline: never read binaries from this machine (nor unwind with them);
 * only stored and loaded tables answer.  For output that must not depend on
 * the machine (golden tests). */
void rsp_symbolizer_set_offline (RspSymbolizer *self, gboolean offline);

/* The stored table (rsp_symbolizer_load_stored, which clears this) comes
 * from a recorder that stored every binary it looked the recording's
 * addresses up in, also those where it found no name, and that looked up
 * every address this reader will (the recording's meta says
 * "symbols_searched": RSP_SYMBOLS_SEARCHED_GENERATION).  Then a binary of
 * this machine is not read for a name the table lacks when it can name
 * nothing more (rsp_elf_may_name_more).  A reader that comes to resolve
 * addresses such a recorder did not (deeper callchains, another unwinder,
 * samples it skipped) must raise the generation: older recordings are then
 * read as before. */
#define RSP_SYMBOLS_SEARCHED_GENERATION 1
void rsp_symbolizer_set_stored_searched (RspSymbolizer *self, gboolean searched);

/* JIT code is named from /tmp/perf-PID.map (rsp-symbols-jit.c), read only
 * when owned by root or the user rsp runs as, and, after this call, by UID
 * too (the user rsp record ran the command as). */
void rsp_symbolizer_trust_jit_maps_of (RspSymbolizer *self, guint32 uid);

/* Names user-space symbols as perf script does (rsp dump): C++ and Rust
 * names demangled by libiberty without parameters or return types, OCaml
 * names by perf's rule, symbol versions kept
 * ("ns::Klass::method", where the report says "ns::Klass::method(int)").
 * Set before a stored table is loaded and before the first lookup.
 * Without libiberty at build time, and for
 * the display names an older recording stored, the report's names. */
void rsp_symbolizer_set_perf_names (RspSymbolizer *self, gboolean perf_names);

/* Records which symbols were resolved, so that rsp record can store them in
 * the recording ("symbols" section) for reading on another machine. */
void rsp_symbolizer_set_track_used (RspSymbolizer *self, gboolean track);
GBytes *rsp_symbolizer_export_used (RspSymbolizer *self);

typedef struct {
  guint64 lookups;
  guint64 cache_hits;
  guint64 unknown;     /* addresses with no symbol */
  guint64 unmapped;    /* user addresses outside every known map */
  guint dsos_loaded;
  guint dsos_missing;  /* binaries not found on this machine */
  guint dsos_from_cache; /* of dsos_loaded: tables from the symbol cache */
  guint dsos_stored_whole; /* binaries named by the recording's stored table
                            * alone: same build id, no debug file here */
} RspSymbolizerStats;
const RspSymbolizerStats *rsp_symbolizer_get_stats (RspSymbolizer *self);

G_END_DECLS
