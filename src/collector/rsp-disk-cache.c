/* rsp-disk-cache.c — see rsp-disk-cache.h. */
#include "rsp-disk-cache.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

char *
rsp_disk_cache_dir (void)
{
  const char *off = g_getenv ("RSP_NO_CACHE");

  if (off != NULL && *off != '\0')
    return NULL;
  return g_build_filename (g_get_user_cache_dir (), "rsp", NULL);
}

/* FNV-1a over 64-bit words, then the tail byte by byte: about eight times
 * the speed of the byte-wise FNV-1a on the megabytes of a large symbol
 * table. */
guint64
rsp_disk_cache_hash (guint64 h, const void *data, gsize len)
{
  const guint8 *p = data;
  const guint64 prime = G_GUINT64_CONSTANT (0x100000001b3);
  gsize i = 0;

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
