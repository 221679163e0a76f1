/* rsp-disk-cache.c — see rsp-disk-cache.h. */
#include "rsp-disk-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *
rsp_disk_cache_dir (void)
{
  const char *off = g_getenv ("RSP_NO_CACHE");

  if (off != NULL && *off != '\0')
    return NULL;
  return g_build_filename (g_get_user_cache_dir (), "rsp", NULL);
}

/* FNV-1a-like over 64-bit words in four independent lanes (32 bytes a
 * step: the lanes' multiplies overlap), then the remaining words and the
 * tail byte by byte, the lanes folded in order.  About four times the speed
 * of one lane, which was a tenth of a report that maps the kernel's cached
 * symbol table (6 MB). */
guint64
rsp_disk_cache_hash (guint64 h, const void *data, gsize len)
{
  const guint8 *p = data;
  const guint64 prime = G_GUINT64_CONSTANT (0x100000001b3);
  gsize i = 0;

  if (len >= 32)
    {
      guint64 a = h, b = h ^ G_GUINT64_CONSTANT (0x9e3779b97f4a7c15), c = h ^ G_GUINT64_CONSTANT (0xc2b2ae3d27d4eb4f),
              d = h ^ G_GUINT64_CONSTANT (0x165667b19e3779f9);
      for (; i + 32 <= len; i += 32)
        {
          guint64 w[4];
          memcpy (w, p + i, 32);
          a = (a ^ w[0]) * prime;
          b = (b ^ w[1]) * prime;
          c = (c ^ w[2]) * prime;
          d = (d ^ w[3]) * prime;
          a ^= a >> 29;
          b ^= b >> 29;
          c ^= c >> 29;
          d ^= d >> 29;
        }
      h = a;
      guint64 rest[3] = { b, c, d };
      for (guint k = 0; k < 3; k++)
        {
          h = (h ^ rest[k]) * prime;
          h ^= h >> 29;
        }
    }
  for (; i + 8 <= len; i += 8)
    {
      guint64 w;
      memcpy (&w, p + i, 8);
      h = (h ^ w) * prime;
      h ^= h >> 29;
    }
  for (; i < len; i++)
    h = (h ^ p[i]) * prime;
  return h;
}

gboolean
rsp_disk_cache_populate (const void *data, gsize len)
{
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
  long page = sysconf (_SC_PAGESIZE);
  guintptr start = (guintptr) data & ~((guintptr) page - 1);
  /* up to 16 pages the first read's fault maps them all (the kernel's
   * fault-around) and the call would cost more than it saves: a third of
   * the time of reading a small entry */
  if (len <= 16 * (gsize) MAX (page, 0) || page <= 0)
    return TRUE;
  return madvise ((void *) start, (guintptr) data + len - start, MADV_POPULATE_READ) == 0;
}

int
rsp_open_regular (const char *path, struct stat *st)
{
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0 && (fstat (fd, st) != 0 || !S_ISREG (st->st_mode)))
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

char *
rsp_read_fd (int fd, gsize size, gsize *got)
{
  char *data = g_malloc (size + 1); /* g_malloc: aligned for what it holds */
  *got = 0;
  while (*got < size)
    {
      ssize_t n = pread (fd, data + *got, size - *got, (off_t) *got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      *got += (gsize) n;
    }
  data[*got] = '\0';
  return data;
}

gboolean
rsp_disk_cache_write (const char *dir, const char *path, const void *data, gsize len)
{
  g_autofree char *existing = g_strdup (dir);
  GStatBuf st;

  g_return_val_if_fail (dir != NULL && path != NULL, FALSE);
  /* the nearest directory that exists must be ours */
  while (g_stat (existing, &st) != 0)
    {
      char *up = g_path_get_dirname (existing);
      gboolean top = strcmp (up, existing) == 0;
      g_free (existing);
      existing = up;
      if (top)
        return FALSE;
    }
  if (st.st_uid != geteuid ())
    return FALSE;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return FALSE;
  return g_file_set_contents_full (path, data, len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
}
