/* rsp-user-file.c — handing written files to the invoking user. */
#include "rsp-user-file.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <sys/stat.h>
#include <unistd.h>

int
rsp_write_all (int fd, const void *data, gsize size)
{
  const guint8 *p = data;
  while (size > 0)
    {
      ssize_t w = write (fd, p, size);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return w < 0 ? errno : ENOSPC;
      p += w;
      size -= (gsize) w;
    }
  return 0;
}

void
rsp_give_to_invoking_user (const char *path)
{
  const char *uid_text = g_getenv ("SUDO_UID"), *gid_text = g_getenv ("SUDO_GID");
  if (geteuid () != 0 || uid_text == NULL || gid_text == NULL)
    return;
  guint64 uid, gid;
  if (!g_ascii_string_to_unsigned (uid_text, 10, 0, G_MAXUINT32, &uid, NULL)
      || !g_ascii_string_to_unsigned (gid_text, 10, 0, G_MAXUINT32, &gid, NULL))
    return;
  /* a file this process wrote: never a device, a FIFO or what a link
   * points to (rsp export -o /dev/null under sudo) */
  struct stat st;
  if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return;
  if (chown (path, (uid_t) uid, (gid_t) gid) != 0)
    g_printerr (_("rsp: warning: cannot give %s to uid %s: %s\n"), path, uid_text, g_strerror (errno));
}
