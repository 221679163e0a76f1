/* rsp-disk-cache.h — the user's cache directory, shared by the caches that
 * outlive a run (the kernel's symbol table per boot, ELF symbol tables).
 *
 * Entries live in $XDG_CACHE_HOME/rsp (mode 0700, files 0600) and are
 * written whole through a temporary file and a rename, so a reader sees an
 * old entry or a new one, never half of one.  Every entry carries a hash of
 * its body; a reader that finds it damaged rebuilds it.  A cache that cannot
 * be written only costs time.  RSP_NO_CACHE=1 in the environment turns
 * every cache off.
 */
#pragma once

#include <glib.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* $XDG_CACHE_HOME/rsp, or NULL when RSP_NO_CACHE is set (non-empty). */
char *rsp_disk_cache_dir (void);

/* A 64-bit hash of LEN bytes at DATA, continuing H (start with
 * RSP_DISK_CACHE_HASH_INIT).  Not cryptographic: it finds damage, not
 * malice (the cache directory is the user's own). */
#define RSP_DISK_CACHE_HASH_INIT G_GUINT64_CONSTANT (0xcbf29ce484222325)
guint64 rsp_disk_cache_hash (guint64 h, const void *data, gsize len);

/* Maps in the pages of a mapped file's range at once (a cache entry about
 * to be read whole by the hash, the next chunk of a recording), instead of
 * a fault per few pages.  FALSE, with errno set, when the kernel refused:
 * one without MADV_POPULATE_READ (Linux 5.14) does every time. */
gboolean rsp_disk_cache_populate (const void *data, gsize len);

/* Opens PATH for reading if it is a regular file, never through a
 * symbolic link nor blocking on a FIFO or device (root reads a user's
 * files here: the cache under sudo -E, a JIT's /tmp/perf-PID.map); its
 * status in *ST.  -1 otherwise. */
int rsp_open_regular (const char *path, struct stat *st);
/* The first SIZE bytes of FD, read from its start into a new buffer with
 * a NUL after them; *GOT says how many could be read (fewer where the file
 * was cut short or a read failed). */
char *rsp_read_fd (int fd, gsize size, gsize *got);

/* Writes LEN bytes at DATA as the entry PATH inside DIR (created 0700 if
 * missing), through a temporary file and a rename.  FALSE, with nothing
 * left behind, if it cannot: a full disk, a read-only directory, or a
 * directory that belongs to another user (root under sudo -E with the
 * user's HOME: files written for a user belong to that user). */
gboolean rsp_disk_cache_write (const char *dir, const char *path, const void *data, gsize len);

G_END_DECLS
