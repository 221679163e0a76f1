/* rsp-elf-store.h — ELF symbol tables kept on disk between runs.
 *
 * Reading a binary's symbols (the debug file's .symtab, or .dynsym and
 * MiniDebugInfo, sorted and de-duplicated as perf does) is most of the time
 * of a small report.  Each table read is written to one entry in the
 * cache directory (rsp-disk-cache.h), named by the binary's build id and a
 * hash of its path, and memory-mapped by later runs.
 *
 * An entry records every file the load looked at — the binary, perf's
 * build-id copy, each candidate debug file, present or not — with its
 * device, inode, size, mtime and ctime, taken before the file was read.
 * It is used only while each of them is exactly as recorded: a rebuilt
 * binary at the same path, a debug package installed or removed since, all
 * make it stale and it is read again and rewritten.  A truncated or damaged
 * entry (size, version, key or body hash wrong) is rebuilt the same way.
 */
#pragma once

#include "rsp-elf-cache.h"

G_BEGIN_DECLS

/* The table for PATH (and BUILD_ID, when the recording names one) from
 * the entry in DIR, or NULL when there is none that is whole and current. */
RspElfFile *rsp_elf_store_load (const char *dir, const char *path, const guint8 *build_id,
                                guint build_id_size);

/* Writes FILE, read with DEPS (rsp_elf_file_load_traced()), as the entry
 * for PATH and BUILD_ID in DIR.  FALSE if it could not be written (that only
 * costs time).  Keeps at most a few thousand entries: the oldest go (checked
 * at the first save of each process). */
gboolean rsp_elf_store_save (const char *dir, const char *path, const guint8 *build_id,
                             guint build_id_size, const RspElfFile *file, const GArray *deps);

/* rsp_elf_may_name_more()'s verdict for PATH, BUILD_ID and BY_PATH from
 * the entry in DIR (1: TRUE, 0: FALSE), or -1 when there is none that is
 * whole and current: a report of a recording whose stored tables say all
 * there is then opens none of those binaries and no debug file. */
int rsp_elf_store_load_verdict (const char *dir, const char *path, const guint8 *build_id,
                                guint build_id_size, gboolean by_path);
/* Writes that verdict MORE, found with DEPS (the files it looked at, as
 * they were), as an entry of its own.  FALSE if it could not. */
gboolean rsp_elf_store_save_verdict (const char *dir, const char *path, const guint8 *build_id,
                                     guint build_id_size, gboolean by_path, gboolean more,
                                     const GArray *deps);

/* The entry's file name in DIR for PATH and BUILD_ID, and the verdict's
 * (for tests). */
char *rsp_elf_store_entry_path (const char *dir, const char *path, const guint8 *build_id,
                                guint build_id_size);
char *rsp_elf_store_verdict_path (const char *dir, const char *path, const guint8 *build_id,
                                  guint build_id_size, gboolean by_path);

G_END_DECLS
