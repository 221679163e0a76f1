/* rsp-elf-cache.h — symbol tables of ELF binaries, loaded once each.
 *
 * A binary is identified by its GNU build id when one is known (from the
 * recording or from the file), else by path + size + mtime.  Loading reads
 * the PT_LOAD program headers and the function symbols, taken, like perf
 * does, from the first of: a separate debug file (build-id path under
 * /usr/lib/debug, perf's ~/.debug cache, .gnu_debuglink) with a .symtab,
 * the binary's .symtab, the binary's .dynsym.
 *
 * Symbol addresses are stored as *file offsets* (st_value translated
 * through the PT_LOAD that contains it), because that is what an mmap
 * record gives for a sampled address (ip - map start + pgoff): a lookup
 * then needs no program-header walk.
 */
#pragma once

#include <gelf.h>
#include <glib.h>

G_BEGIN_DECLS

/* One symbol.  Shared by kernel, ELF and stored tables so that the
 * symbolizer's caches can point at any of them. */
typedef struct {
  guint64 start;    /* ELF: file offset; kernel: absolute address */
  guint64 size;     /* 0 only where nothing bounds it (matches its start only) */
  const char *raw;  /* name as found in the table, owned by the table */
  const char *name; /* display name (demangled, unversioned), interned by the
                     * symbolizer on first use; NULL until then */
} RspSym;

/* Finds the symbol containing ADDR in SYMS (sorted by start).  Among
 * overlapping symbols the one starting last wins. */
const RspSym *rsp_sym_table_lookup (const RspSym *syms, guint n_syms, guint64 addr);
/* The same over any table of N entries of STRIDE bytes, each beginning
 * with a guint64 start and a guint64 size as RspSym does (the kernel
 * symbol cache's mapped entries): the entry's index, or -1. */
gssize rsp_sym_range_find (const void *table, gsize stride, guint n, guint64 addr);
/* How many of the N entries of TABLE (STRIDE bytes each, beginning with a
 * guint64 start, sorted by it) start at or below ADDR. */
guint rsp_sym_count_at_or_below (const void *table, gsize stride, guint n, guint64 addr);

/* perf's choose_best_symbol() for two symbols at the same address: TRUE
 * when the first should be kept (sized over unsized, strong over weak,
 * global over local, fewer leading underscores, longer name). */
gboolean rsp_sym_prefer_first (const char *name_a, guint64 size_a, guint8 binding_a,
                               const char *name_b, guint64 size_b, guint8 binding_b);

typedef struct {
  guint64 offset, vaddr, filesz, memsz;
} RspElfSegment;

typedef struct {
  char *path;       /* the binary that matched, NULL if only a debug file did */
  char *syms_path;  /* file the symbols came from */
  gboolean mini_debuginfo; /* some came from the binary's MiniDebugInfo (.gnu_debugdata) */
  guint8 build_id[20];
  guint8 build_id_size;
  RspElfSegment *segments; /* PT_LOAD, in file order */
  guint n_segments;
  RspSym *syms;     /* sorted by start, duplicates resolved */
  guint n_syms;
  char *names;      /* backing store of syms[].raw, or NULL when ... */
  GMappedFile *mapping; /* ... they live in a symbol cache entry (rsp-elf-store.c) */
  guint8 *image;    /* in-memory images only (vdso): the ELF bytes */
  gsize image_size;
} RspElfFile;

/* Load bias of a mapping: the process address of ELF vaddr 0 for a map of
 * FILE at START with file offset PGOFF.  FALSE when PGOFF is in no PT_LOAD. */
gboolean rsp_elf_file_map_bias (const RspElfFile *file, guint64 start, guint64 pgoff,
                                guint64 *bias);

typedef struct _RspElfCache RspElfCache;

RspElfCache *rsp_elf_cache_new (void);
void rsp_elf_cache_free (RspElfCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspElfCache, rsp_elf_cache_free)

/* The binary at PATH, or the one with BUILD_ID (BUILD_ID_SIZE > 0) when
 * the recording names it: then a file on disk with another build id is not
 * used, and copies found by build id (debug files, perf's ~/.debug cache)
 * stand in for it.  NULL when nothing usable exists; failures are cached
 * too, so the file system is asked once. */
const RspElfFile *rsp_elf_cache_load (RspElfCache *self, const char *path,
                                      const guint8 *build_id, guint build_id_size);

/* An ELF image held in memory (the vdso), copied.  NULL if not an ELF. */
const RspElfFile *rsp_elf_cache_load_image (RspElfCache *self, const char *name,
                                            const guint8 *data, gsize size);

/* Loads one file, uncached (tests, tools).  NULL with ERROR if unusable. */
RspElfFile *rsp_elf_file_load (const char *path, const guint8 *build_id, guint build_id_size,
                               GError **error);
void rsp_elf_file_free (RspElfFile *file);

/* FALSE when this machine cannot name more of the binary with build id
 * BUILD_ID (at PATH) than a symbol table read elsewhere from a file with
 * that build id: the binary here (PATH, or perf's build-id copy) is that
 * file or absent, has no .symtab (which a stripped copy elsewhere may have
 * lacked), and no separate debug file for it is found where
 * rsp_elf_file_load() looks (the build-id directories, the binary's
 * .gnu_debuglink).  BY_PATH: the binary is known by its path only, so a
 * file at PATH with another build id, which a lookup would read, makes it
 * TRUE too.  No BUILD_ID: TRUE.  Reads no symbols. */
gboolean rsp_elf_may_name_more (const char *path, const guint8 *build_id, guint build_id_size,
                                gboolean by_path);
/* The same, also appending to DEPS (may be NULL) every file it looked at,
 * as it was before reading it (rsp_elf_file_load_traced()). */
gboolean rsp_elf_may_name_more_traced (const char *path, const guint8 *build_id, guint build_id_size,
                                       gboolean by_path, GArray *deps);

/* What a file looked like when a load read it (or found it missing). */
typedef struct {
  char *path;
  gboolean present;
  guint64 dev, ino, size, mtime_ns, ctime_ns;
  /* it could not be read for a reason that may pass (no file descriptor
   * or memory left, an I/O error): what was made without it is not kept */
  gboolean unreadable;
} RspElfDep;

/* Fills DEP from stat(PATH). */
void rsp_elf_dep_stat (const char *path, RspElfDep *dep);
/* TRUE when A and B describe the same file in the same state. */
gboolean rsp_elf_dep_equal (const RspElfDep *a, const RspElfDep *b);
/* A GArray of RspElfDep that frees their paths. */
GArray *rsp_elf_deps_new (void);
/* Whether one of DEPS was unreadable: then nothing made from them is kept. */
gboolean rsp_elf_deps_unreadable (const GArray *deps);

/* rsp_elf_file_load(), also appending to DEPS (may be NULL) every file the
 * load looked at, as it was before reading it: the binary, perf's build-id
 * copy, each candidate debug file. */
RspElfFile *rsp_elf_file_load_traced (const char *path, const guint8 *build_id,
                                      guint build_id_size, GArray *deps, GError **error);

/* Where rsp_elf_cache_load() keeps symbol tables between runs (see
 * rsp-elf-store.h); NULL turns that off.  By default rsp_disk_cache_dir()'s
 * "elf" directory. */
void rsp_elf_cache_set_store_dir (RspElfCache *self, const char *dir);
/* How many of the files loaded came from that store. */
guint rsp_elf_cache_n_from_store (const RspElfCache *self);
/* rsp_elf_may_name_more(), its verdict kept in the store with the files it
 * looked at (rsp-elf-store.h) and taken from there while each is as it
 * was: a report of an RSP recording then opens none of the binaries whose
 * stored tables it trusts (3-7% of a small report).  Without a store, the
 * same as rsp_elf_may_name_more(). */
gboolean rsp_elf_cache_may_name_more (RspElfCache *self, const char *path, const guint8 *build_id,
                                      guint build_id_size, gboolean by_path);
/* How many verdicts came from the store. */
guint rsp_elf_cache_n_verdicts_from_store (const RspElfCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RspElfFile, rsp_elf_file_free)

/* The first section of ELF named NAME, its header in SHDR; NULL if none. */
Elf_Scn *rsp_elf_find_section_by_name (Elf *elf, const char *name, GElf_Shdr *shdr);

/* "0123abcd..." for a build id; the result is owned by the caller. */
char *rsp_build_id_to_hex (const guint8 *build_id, guint size);

G_END_DECLS
