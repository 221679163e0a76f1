/* rsp-symbols-private.h — what the parts of the symbolizer share.
 *
 *   rsp-symbols.c          the symbolizer (rsp-symbols.h): its life cycle,
 *                          the address cache, display names, kernel and
 *                          user addresses resolved (pid -> map -> binary ->
 *                          symbol), mmap/comm/fork records, settings
 *   rsp-symbols-kernel.c   kernel symbol tables from kallsyms text
 *   rsp-symbols-callchain.c a sample's callchain: context markers, the
 *                          DWARF unwinder for the user part
 *   rsp-symbols-stored.c   the symbols a recording carries: the used ones
 *                          written out, a stored table read back
 */
#pragma once

#include "rsp-symbols.h"
#include "rsp-elf-cache.h"
#include "rsp-maps.h"
#include "rsp-unwind.h"
#include "rsp-interner.h"

G_BEGIN_DECLS

#define KERNEL_DSO "[kernel.kallsyms]"
/* Version 2 stores the names as the binary has them (mangled, with their
 * version), named as ELF symbols are when used; version 1 stored display
 * names (demangled by __cxa_demangle, no version), still read. */
#define STORED_MAGIC "RSP-SYMBOLS 2"
#define STORED_MAGIC_V1 "RSP-SYMBOLS 1"
#define KERNEL_CACHE_ID 1 /* address-cache id of the kernel; binaries start at 2 */
#define CACHE_MIN_SLOTS (1u << 12)
#define CACHE_MAX_SLOTS (1u << 21) /* 48 MiB at most; beyond, start over */
#define MAX_UNWIND_FRAMES 256


/* An entry of the kernel symbol cache as its file holds it
 * (rsp-symbols-kernel.c). */
#define KCACHE_KERNEL G_MAXUINT32 /* an entry's dso: the kernel itself */
typedef struct {
  guint64 start, size;
  guint32 name, dso; /* offsets into the names; dso KCACHE_KERNEL for the kernel */
} KcacheEntry;
/* searched as RspSyms are (rsp_sym_range_find): start and size first */
G_STATIC_ASSERT (G_STRUCT_OFFSET (KcacheEntry, start) == G_STRUCT_OFFSET (RspSym, start)
                 && G_STRUCT_OFFSET (KcacheEntry, size) == G_STRUCT_OFFSET (RspSym, size));

/* The entries of the cache come in blocks of KCACHE_BLOCK, each checked
 * (its hash, names and order) the first time a lookup lands in it: a
 * report checks the few hundred kilobytes it uses, not all 6 MB. */
#define KCACHE_BLOCK 32u
typedef enum { KCACHE_BLOCK_UNCHECKED, KCACHE_BLOCK_SOUND, KCACHE_BLOCK_DAMAGED } KcacheBlockState;
typedef struct {
  guint64 first;                /* start of the block's first entry */
  guint64 hash;                 /* of its entries, then of names[names_from, names_to) */
  guint32 names_from, names_to; /* where its entries' names lie */
} KcacheBlock;

/* A symbol of a mapped kernel table, made when a lookup first finds it. */
typedef struct {
  RspSym sym; /* first: a MappedKsym* is its RspSym* */
  const char *dso;
} MappedKsym;

/* Sorted kernel symbols with, in parallel, the dso each belongs to
 * ("[kernel.kallsyms]" or "[module]").  Or, from the kernel symbol cache,
 * its entries where they are mapped (sorted by start, the names after
 * them), each made into an RspSym the first time a lookup finds it:
 * converting the whole table (about 150,000 symbols, 6 MB of new memory)
 * was a third of a report of a plain perf.data. */
typedef struct {
  RspSym *syms;
  const char **dsos;
  guint n;
  const KcacheEntry *entries; /* NULL: SYMS */
  guint n_entries;
  const char *names;          /* NUL-terminated at names[names_size - 1] */
  gsize names_size;
  GHashTable *made;           /* entry index -> MappedKsym* (owned); their raw
                               * names lie in NAMES, which is how a symbol is
                               * known as one of them (symbolizer_kernel_sym_dso) */
  const KcacheBlock *blocks;  /* with ENTRIES: their index, checked when mapped */
  guint n_blocks;
  guint8 *block_state;        /* per block: a KcacheBlockState */
  gsize dsos_size;            /* the modules' names: names[0, dsos_size) */
} KernelTable;

/* A binary of a stored table. */
typedef struct {
  const char *path; /* interned */
  guint8 build_id[20];
  guint8 build_id_size;
  RspSym *syms;
  guint n_syms;
} StoredDso;

/* A binary as the recording names it: one per build id, else per path. */
typedef struct {
  guint id; /* address-cache id */
  const char *path;
  guint8 build_id[20];
  guint8 build_id_size;
  gboolean pseudo;    /* no file behind it: [heap], //anon, ... */
  gboolean load_tried;
  gboolean stored_whole_tried;
  gboolean stored_whole; /* see stored_whole() in rsp-symbols.c */
  const RspElfFile *elf;
  const StoredDso *stored;
} RspDso;

typedef struct {
  guint64 addr;
  const RspSym *sym; /* NULL: known to be unknown */
  guint32 dso_id;    /* 0: free slot */
} CacheSlot;

struct _RspSymbolizer {
  RspInterner *strings;  /* interned names and paths */
  GStringChunk *raw_names; /* kallsyms names, not interned */
  GMappedFile *kallsyms_cache; /* the cache entry the kallsyms table's names point into, or NULL */
  /* with KALLSYMS_CACHE: where the entry came from, to make the table again
   * from the text (and the entry) if a block of it turns out damaged */
  struct _KcacheOrigin *kcache_origin;
  const char *kernel_source;

  KernelTable kallsyms;
  KernelTable stored_kernel;
  GPtrArray *stored_dsos;           /* StoredDso*, owned */
  GHashTable *stored_by_build_id;   /* hex -> StoredDso* */
  GHashTable *stored_by_path;       /* interned path -> StoredDso* */

  RspMaps *maps;
  RspElfCache *elf_cache;
  GPtrArray *dsos;                  /* RspDso*, owned; dsos[i]->id == i + 2 */
  GHashTable *dso_by_key;           /* "b:hex" / "p:path" -> RspDso* */
  GHashTable *header_build_ids;     /* filename -> GBytes */

  /* the pid lookups, cached by the pid's low bits: samples of many
   * processes interleave (each sample's callchain key asks), and the hash
   * table's lookup was a sixtieth of a large report.  A process's maps
   * live as long as the symbolizer; a pid not found is not kept. */
  struct {
    gint32 pid;
    RspProcessMaps *proc;
  } maps_cache[256];

  CacheSlot *cache;
  guint cache_mask;
  guint cache_used;

  RspUnwinder *unwinder;
  gboolean dwarf_unwind;
  gboolean offline;       /* never read binaries from this machine */
  gboolean stored_searched; /* rsp_symbolizer_set_stored_searched() */
  guint64 pcs[MAX_UNWIND_FRAMES];

  gboolean vdso_tried;
  const RspElfFile *vdso;

  gboolean track_used;
  GHashTable *used; /* RspSym* -> RspDso* (NULL for the kernel) */
  gboolean perf_names; /* rsp_symbolizer_set_perf_names() */

  /* JIT code (rsp-symbols-jit.c) */
  gboolean has_stored;      /* a stored table was loaded: its JIT symbols only, never /tmp */
  guint32 jit_trusted_uid;  /* map files of this user are read too; (guint32) -1: none */
  GHashTable *jit_maps;     /* pid -> JitMap* (NULL: none), owned */
  guint n_stored_jit;       /* the processes the stored table has JIT symbols of */
  gint32 jit_last_pid;      /* one-entry cache of jit_maps (0: empty): a process's unmapped frames come in runs */
  const struct _JitMap *jit_last;
  GHashTable *jitdumps;     /* pid -> interned path of the jit-PID.dump it mapped (perf's jitdump) */
  GPtrArray *jit_retired;   /* JitMap*: replaced once a jitdump was mapped, kept for the symbols used */
  GHashTable *used_jit;     /* RspSym* -> JitMap* */

  RspSymbolizerStats stats;
};

/* rsp-symbols-jit.c: a mapping of FILENAME by PID, which may be its jitdump */
void symbolizer_jit_note_mmap (RspSymbolizer *self, gint32 pid, const char *filename);

/* rsp-symbols.c */
/* S (or its first LEN bytes) as a string that lives as long as SELF. */
const char *symbolizer_intern (RspSymbolizer *self, const char *s);
const char *symbolizer_intern_len (RspSymbolizer *self, const char *s, gsize len);
void symbolizer_cache_clear (RspSymbolizer *self);
/* The name to show for SYM (demangled, without version), interned. */
const char *symbolizer_sym_name (RspSymbolizer *self, const RspSym *sym, gboolean kernel);
/* Whether the user-space name RAW (LEN bytes) is its own name: no version
 * to drop, nothing to demangle (symbolizer_sym_name() would intern it as
 * it is). */
gboolean symbolizer_name_as_is (const RspSymbolizer *self, const char *raw, gsize len);
/* Before a table is freed: its symbols leave the used set. */
void symbolizer_forget_used_in (RspSymbolizer *self, const RspSym *syms, guint n);
void symbolizer_kernel_table_clear (KernelTable *t);
/* rsp-symbols-kernel.c */
void symbolizer_kcache_origin_free (struct _KcacheOrigin *origin);
/* Before T is cleared: its symbols leave the used set. */
void symbolizer_kernel_table_forget_used (RspSymbolizer *self, KernelTable *t);
/* The symbol of T containing IP, or NULL. */
const RspSym *symbolizer_kernel_table_lookup (RspSymbolizer *self, KernelTable *t, guint64 ip);
/* rsp-symbols-kernel.c: the index of the entry of T (mapped from the
 * cache) containing IP in *INDEX (-1: none), the blocks it reads checked
 * first; FALSE when one is damaged and SELF's kallsyms table was made
 * again from its text instead (then look again). */
gboolean symbolizer_kcache_find (RspSymbolizer *self, KernelTable *t, guint64 ip, gssize *index);
void symbolizer_stored_dso_free (gpointer stored_dso);
/* "[kernel.kallsyms]" or "[module]" for a kernel symbol. */
const char *symbolizer_kernel_sym_dso (RspSymbolizer *self, const RspSym *sym);
/* The maps of PID (one-entry cache), or NULL. */
RspProcessMaps *symbolizer_process_maps (RspSymbolizer *self, gint32 pid);

/* rsp-symbols-stored.c */
/* Appends S to a stored table, control characters (the format's
 * separators) written as '?'. */
void symbolizer_append_clean (GString *out, const char *s);

/* rsp-symbols-jit.c */
typedef struct _JitMap JitMap;
void symbolizer_jit_map_free (gpointer map);
/* The JIT symbol of IP in process PID, from its perf map: fills FRAME's
 * symbol, offset and dso ("/tmp/perf-PID.map"); FALSE if none. */
gboolean symbolizer_jit_resolve (RspSymbolizer *self, gint32 pid, guint64 ip, RspFrame *frame);
/* The used JIT symbols as "P" lines of a stored table. */
void symbolizer_jit_export_used (RspSymbolizer *self, GString *out);
/* A stored "P" line into PENDING (pid -> entries), FALSE if malformed;
 * then the whole table's into SELF. */
gboolean symbolizer_jit_parse_stored_line (RspSymbolizer *self, GHashTable *pending, const char *line, gsize len);
void symbolizer_jit_install_stored (RspSymbolizer *self, GHashTable *pending);

/* rsp-symbols-kernel.c */
/* LEN (1-16) lowercase or uppercase hex digits. */
gboolean symbolizer_parse_hex (const char *s, gsize len, guint64 *value);

G_END_DECLS
