/* rsp-user-file.h — files rsp writes for the user who asked for them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Under sudo a file written for the user belongs to the user who asked
 * for it (SUDO_UID, SUDO_GID): a root-owned file in their directory is one
 * they cannot replace.  A failure is only a warning: the file is written. */
void rsp_give_to_invoking_user (const char *path);

/* Writes SIZE bytes of DATA to FD, again after a short write or EINTR:
 * 0, or the errno of the write that failed (ENOSPC for one that wrote
 * nothing). */
int rsp_write_all (int fd, const void *data, gsize size);

G_END_DECLS
