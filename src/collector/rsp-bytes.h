/* rsp-bytes.h — little-endian loads from a byte buffer that need not be
 * aligned (perf.data, its ftrace section and RSP's trailer are all
 * little-endian: rsp-perf-header.c refuses a big-endian file).  The caller
 * has checked the bytes are there.
 */
#pragma once

#include <glib.h>
#include <string.h>

static inline guint32
rsp_read_u32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static inline guint64
rsp_read_u64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}
