/* ftrace-synth.c — see ftrace-synth.h. */
#include "ftrace-synth.h"

#include <string.h>

#include "rsp-ftrace-section.h"

static const char header_page[]
    = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
      "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

/* sched_waking as kernel 6.18 writes it */
static const char waking_format[]
    = "name: sched_waking\n"
      "ID: 375\n"
      "format:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
      "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
      "\n"
      "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
      "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
      "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
      "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
      "\n"
      "print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n";

static void
put_u32 (GByteArray *b, guint32 v)
{
  g_byte_array_append (b, (const guint8 *) &v, 4);
}

static void
put_u64 (GByteArray *b, guint64 v)
{
  g_byte_array_append (b, (const guint8 *) &v, 8);
}

void
waking_payload (guint8 *p, gint32 waker, const char *comm, gint32 pid)
{
  memset (p, 0, WAKING_SIZE);
  guint16 type = WAKING_ID;
  memcpy (p, &type, 2);
  memcpy (p + 4, &waker, 4);
  strncpy ((char *) p + 8, comm, 16);
  memcpy (p + 24, &pid, 4);
  gint32 prio = 120, cpu = 1;
  memcpy (p + 28, &prio, 4);
  memcpy (p + 32, &cpu, 4);
}

void
add_subbuf (GByteArray *cpu_data, const guint64 *times, const gint32 *pids, guint n, guint64 commit_override)
{
  guint8 page[SUBBUF] = { 0 };
  guint64 base = times[0];
  memcpy (page, &base, 8);
  guint off = 16;
  guint64 prev = base;
  for (guint i = 0; i < n; i++)
    {
      guint32 delta = (guint32) (times[i] - prev);
      prev = times[i];
      guint32 header = (WAKING_SIZE / 4) | (delta << 5);
      memcpy (page + off, &header, 4);
      waking_payload (page + off + 4, 7, "dd", pids[i]);
      off += 4 + WAKING_SIZE;
    }
  guint64 commit = commit_override != 0 ? commit_override : off - 16;
  memcpy (page + 8, &commit, 8);
  g_byte_array_append (cpu_data, page, SUBBUF);
}

GByteArray *
section (GByteArray **cpus, guint n_cpus)
{
  GByteArray *b = g_byte_array_new ();
  g_byte_array_append (b, (const guint8 *) RSP_FTRACE_SECTION_MAGIC, 8);
  put_u32 (b, RSP_FTRACE_SECTION_VERSION);
  put_u32 (b, SUBBUF);
  put_u32 (b, 8);
  put_u32 (b, n_cpus);
  put_u64 (b, strlen (header_page));
  g_byte_array_append (b, (const guint8 *) header_page, strlen (header_page));
  put_u32 (b, 1);
  put_u32 (b, 5);
  g_byte_array_append (b, (const guint8 *) "sched", 5);
  put_u64 (b, strlen (waking_format));
  g_byte_array_append (b, (const guint8 *) waking_format, strlen (waking_format));
  for (guint c = 0; c < n_cpus; c++)
    {
      put_u32 (b, c);
      put_u32 (b, 0);
      put_u64 (b, cpus[c]->len);
      g_byte_array_append (b, cpus[c]->data, cpus[c]->len);
    }
  return b;
}
