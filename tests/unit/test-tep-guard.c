/* test-tep-guard.c — the grammar check that stands between a recording and
 * libtraceevent (rsp-tep-guard.h).  Real formats pass untouched; each input
 * fuzzing found to crash or leak inside libtraceevent is refused, or loses
 * only its print fmt. */
#include <glib.h>
#include <string.h>

#include <event-parse.h>

#include "rsp-tep-fields.h"
#include "rsp-tep-guard.h"

#define COMMON \
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* A format with the fields of block_rq_issue and PRINT as its print fmt. */
static char *
block_format (const char *print)
{
  return g_strconcat ("name: block_rq_issue\nID: 2105\nformat:\n" COMMON
                      "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
                      "\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
                      "\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
                      "\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
                      "\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
                      "\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
                      "\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
                      "print fmt: ", print, "\n", NULL);
}

/* The check without the print fmt agrees on the fields: BAD where the whole
 * check says BAD, else NO_PRINT with the text's print fmt emptied. */
static void
check_fields_only (const char *text)
{
  RspTepFormatCheck whole = rsp_tep_check_format (text, strlen (text), NULL);
  g_autofree char *fixed = NULL;
  RspTepFormatCheck fields = rsp_tep_check_format_fields (text, strlen (text), &fixed);
  if (whole == RSP_TEP_FORMAT_BAD)
    {
      g_assert_cmpint (fields, ==, RSP_TEP_FORMAT_BAD);
      g_assert_null (fixed);
      return;
    }
  g_assert_cmpint (fields, ==, RSP_TEP_FORMAT_NO_PRINT);
  g_assert_nonnull (fixed);
  g_assert_true (g_str_has_suffix (fixed, "print fmt: \"\"\n"));
  const char *print = strstr (text, "print fmt: ");
  g_assert_nonnull (print);
  g_assert_cmpint (strncmp (fixed, text, (gsize) (print - text)), ==, 0);
  g_assert_cmpint (rsp_tep_check_format (fixed, strlen (fixed), NULL), ==, RSP_TEP_FORMAT_OK);
}

static RspTepFormatCheck
check_print (const char *print)
{
  g_autofree char *text = block_format (print);
  g_autofree char *fixed = NULL;
  RspTepFormatCheck c = rsp_tep_check_format (text, strlen (text), &fixed);
  check_fields_only (text);
  if (c == RSP_TEP_FORMAT_NO_PRINT)
    {
      /* the fields stay, the print fmt is an empty string */
      g_assert_nonnull (fixed);
      g_assert_true (g_str_has_suffix (fixed, "print fmt: \"\"\n"));
      g_assert_cmpint (rsp_tep_check_format (fixed, strlen (fixed), NULL), ==, RSP_TEP_FORMAT_OK);
    }
  else
    g_assert_null (fixed);
  return c;
}

static void
test_real_formats (void)
{
  /* as the kernel writes them (6.18): the shapes our events use */
  static const char *const prints[] = {
    /* block_rq_issue: casts, shifts, __get_str, __print_symbolic with enum names */
    "\"%d,%d %s (%s) %llu + %u %s,%u,%u [%s]\", ((unsigned int) ((REC->dev) >> 20)), "
    "((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, __get_str(cmd), "
    "(unsigned long long)REC->sector, REC->nr_sector, __print_symbolic((((REC->ioprio) >> 13) & (8 - 1)), "
    "{ IOPRIO_CLASS_NONE, \"none\" }, { IOPRIO_CLASS_RT, \"rt\" }, { IOPRIO_CLASS_INVALID, \"invalid\"}), "
    "(((REC->ioprio) >> 3) & ((1 << 10) - 1)), ((REC->ioprio) & ((1 << 3) - 1)), REC->comm",
    /* sched_switch's shape: __print_flags under ?:, strings as branches */
    "\"state=%s%s\", (REC->ioprio & 255) ? __print_flags(REC->ioprio & 255, \"|\", { 0x00000001, \"S\" }, "
    "{ 0x00000002, \"D\" }) : \"R\", REC->ioprio & 256 ? \"+\" : \"\"",
    /* kmalloc's list end: { 0, NULL } spelled out */
    "\"flags=%s\", (REC->ioprio) ? __print_flags(REC->ioprio, \"|\", {( unsigned long)(( gfp_t)((((1UL))) << (1))), "
    "\"A\"}, { 0, ((void *)0) } ) : \"none\"",
    /* a division by a literal, array index, character literal */
    "\"%u %c\", REC->nr_sector / 8, REC->rwbs[0] ? 'y' : 'n'",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (prints); i++)
    {
      g_test_message ("print fmt %" G_GSIZE_FORMAT, i);
      g_assert_cmpint (check_print (prints[i]), ==, RSP_TEP_FORMAT_OK);
    }
  const char *header_page = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                            "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                            "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                            "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
  g_assert_true (rsp_tep_check_header_page (header_page, strlen (header_page)));
  const char *flexible = "name: print\nID: 5\nformat:\n" COMMON
                         "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
                         "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
                         "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";
  g_assert_cmpint (rsp_tep_check_format (flexible, strlen (flexible), NULL), ==, RSP_TEP_FORMAT_OK);
  /* pointers: the '*' stands between the type and the name */
  const char *pointer = "name: sk_data_ready\nID: 6\nformat:\n" COMMON
                        "\tfield:const void * skaddr;\toffset:8;\tsize:8;\tsigned:0;\n"
                        "\tfield:char *buf;\toffset:16;\tsize:8;\tsigned:0;\n\n"
                        "print fmt: \"%p %lx\", REC->skaddr, (unsigned long)REC->buf\n";
  g_assert_cmpint (rsp_tep_check_format (pointer, strlen (pointer), NULL), ==, RSP_TEP_FORMAT_OK);
  const char *printk = "0xffffffff8a1b2c3d : \"hello %d\\n\"\n0xffffffff8a1b2c4e : \"x\"\n";
  g_assert_true (rsp_tep_check_printk (printk, strlen (printk)));
  /* the clean copy: one line per address, no one-character text (both
   * made libtraceevent read outside its buffers) */
  const char *repeated = "0xffffffff8a1b2c3d : \"hello %d\\n\"\n0xFFFFFFFF8A1B2C3D : \"again\"\n"
                         "0xffffffff8a1b2c4e : \"x\"\n0xffffffff8a1b2c5f : \"ok\"\n";
  g_autofree char *clean = rsp_tep_clean_printk (repeated, strlen (repeated));
  g_assert_cmpstr (clean, ==, "0xffffffff8a1b2c3d : \"hello %d\\n\"\n0xffffffff8a1b2c5f : \"ok\"\n");
}

/* Each of these crashed libtraceevent or made it leak (found by fuzzing,
 * kept in tests/fuzz-regressions/); the fields survive, the print fmt goes. */
static void
test_dangerous_print_fmts (void)
{
  static const char *const prints[] = {
    "\"%u\", REC->no_such_field",                    /* NULL field dereferenced */
    "\"%d\", REC->nr_sector > 0 ? dREC->ioprio : 0", /* x->y off REC leaked */
    "\"%u\", REC->nr_sector / REC->ioprio",          /* SIGFPE on a 0 field */
    "\"%u\", REC->nr_sector % 0",                    /* a literal 0 divisor */
    "\"%s\", __print_symbolic(REC->ioprio, { 4, !\"A\" })", /* operator on a string leaked */
    "\"%s\", __get_str(comm)",                       /* __get_str of a fixed array */
    "\"%s\", __get_str(nothing)",                    /* of no field */
    "\"%s\", no_such_helper(REC->dev)",              /* a function libtraceevent lacks */
    "\"%s\", __print_symbolic(REC->ioprio)",         /* no value list */
    "\"%s\", __print_flags(REC->ioprio, { 1, \"A\" })", /* flags without a delimiter */
    "\"%d\", (REC->dev",                             /* unbalanced */
    "\"%d\", REC->dev +",                            /* dangling operator */
    "\"%d\" REC->dev",                               /* no comma */
    "\"unterminated, REC->dev",
    "REC->dev",                                      /* no format string */
    "\"%d\", REC->dev ? STA_PR_FMT : 0",               /* rewritten by libtraceevent's tokenizer */
    "\"%d\", !(REC->dev|& 2)",                        /* "|&" read as one operator leaked */
    "\"%d\", !(REC->dev - & 2)",                       /* address-of after an operator leaked */
    "\"%d\", *REC->dev",                               /* no dereference */
    "\"%d\", REC->dev ? 1 : x[16] > REC->ioprio",     /* an indexed last branch of ?: dereferenced NULL */
    "\"%d\", REC->dev ? 1 : REC->ioprio[1]",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (prints); i++)
    {
      g_test_message ("print fmt %s", prints[i]);
      g_assert_cmpint (check_print (prints[i]), ==, RSP_TEP_FORMAT_NO_PRINT);
    }
  /* nesting beyond any kernel's is refused before it exhausts the stack */
  GString *deep = g_string_new ("\"%d\", ");
  for (int i = 0; i < 10000; i++)
    g_string_append_c (deep, '(');
  g_string_append (deep, "REC->dev");
  for (int i = 0; i < 10000; i++)
    g_string_append_c (deep, ')');
  g_assert_cmpint (check_print (deep->str), ==, RSP_TEP_FORMAT_NO_PRINT);
  g_string_free (deep, TRUE);
}

static void
test_bad_formats (void)
{
  static const char *const texts[] = {
    "",
    "name: x\nID: 1\nformat:\n\n",                                                     /* no fields */
    "name: x\nID: 1\nformat:\n" COMMON "print fmt: \"\"",                             /* fine … */
    "name: x y\nID: 1\nformat:\n" COMMON "print fmt: \"\"",                           /* a name with a space */
    "name: x\nID: -1\nformat:\n" COMMON "print fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int;\toffset:8;\tsize:4;\tsigned:1;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:__data_loc0char[] cmd;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:char a[4] b;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int a;\toffset:99999999;\tsize:4;\tsigned:1;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int a;\toffset:8;\tsize:4;\tsigned:2;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int common_pid;\toffset:8;\tsize:4;\tsigned:1;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n", /* no print fmt */
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int a;\toffset:8;\tsize:4;\tsi\xffned:1;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:bool STA_PR_FMT;\toffset:8;\tsize:1;\tsigned:0;\nprint fmt: \"\"",
    "name: VIF_PR_FMT\nID: 1\nformat:\n" COMMON "print fmt: \"\"",
    /* a '*' after the name: libtraceevent names the field "*", and a print
     * fmt naming REC->vec made it dereference NULL */
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:unsigned int vec*;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:unsigned int vec *;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int *[4];\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    /* a bracket after a space, words after a dynamic field's bracket: the
     * first made libtraceevent leak (fuzz-perf-reader, "__data_loc []rhca
     * filename") */
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:__data_loc []rhca filename;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:char comm [16];\toffset:8;\tsize:16;\tsigned:0;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:__data_loc char[] a b;\toffset:8;\tsize:4;\tsigned:0;\nprint fmt: \"\"",
    /* a leading zero: octal to libtraceevent (strtoul base 0), decimal to
     * RSP's own reading of the fields and ids (fuzz-perf-reader: "ID: 0567"
     * made an event another's) */
    "name: x\nID: 0567\nformat:\n" COMMON "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\nprint fmt: \"\"",
    "name: x\nID: 1\nformat:\n" COMMON "\tfield:int a;\toffset:010;\tsize:4;\tsigned:1;\nprint fmt: \"\"",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_test_message ("format %" G_GSIZE_FORMAT, i);
      RspTepFormatCheck expected = i == 2 ? RSP_TEP_FORMAT_OK : RSP_TEP_FORMAT_BAD;
      g_assert_cmpint (rsp_tep_check_format (texts[i], strlen (texts[i]), NULL), ==, expected);
      check_fields_only (texts[i]);
    }
  const char *header_page = "\tfield u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
  g_assert_false (rsp_tep_check_header_page (header_page, strlen (header_page)));
  g_assert_false (rsp_tep_check_header_page ("", 0));
  const char *printk = "ffffffff8a1b2c3d : \"no 0x\"\n";
  g_assert_false (rsp_tep_check_printk (printk, strlen (printk)));
  printk = "0xffffffff8a1b2c3d : \"unterminated\n";
  g_assert_false (rsp_tep_check_printk (printk, strlen (printk)));
}

/* ---- fields without libtraceevent's parser (rsp-tep-fields.h) ---------- */

static void
assert_same_fields (const struct tep_format_field *a, const struct tep_format_field *b)
{
  for (; a != NULL && b != NULL; a = a->next, b = b->next)
    {
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpstr (a->alias, ==, b->alias);
      g_assert_cmpstr (a->type, ==, b->type);
      g_assert_cmpint (a->offset, ==, b->offset);
      g_assert_cmpint (a->size, ==, b->size);
      g_assert_cmpuint (a->arraylen, ==, b->arraylen);
      g_assert_cmpuint (a->elementsize, ==, b->elementsize);
      g_assert_cmpuint (a->flags, ==, b->flags);
    }
  g_assert_true (a == NULL && b == NULL);
}

/* TEXT (a whole format) read as a reader that never prints reads it: the
 * guard's text with the print fmt emptied, parsed by libtraceevent and by
 * rsp_tep_fields_event_new().  Where the latter takes it, the two events
 * must be the same; returns whether it took it. */
static gboolean
compare_with_libtraceevent (const char *text, const char *system)
{
  g_autofree char *fixed = rsp_tep_format_text (text, strlen (text), FALSE);
  if (fixed == NULL)
    return FALSE;
  struct tep_handle *tep = tep_alloc ();
  tep_set_long_size (tep, 8);
  struct tep_event *light = rsp_tep_fields_event_new (tep, fixed, system);
  if (light == NULL)
    {
      tep_free (tep);
      return FALSE;
    }
  enum tep_errno err = tep_parse_event (tep, fixed, strlen (fixed), system);
  g_assert_cmpint (err, ==, 0);
  struct tep_event *parsed = tep_find_event (tep, light->id);
  g_assert_nonnull (parsed);
  g_assert_cmpstr (light->name, ==, parsed->name);
  g_assert_cmpstr (light->system, ==, parsed->system);
  g_assert_cmpint (light->flags, ==, parsed->flags);
  g_assert_cmpstr (light->print_fmt.format, ==, parsed->print_fmt.format);
  g_assert_null (parsed->print_fmt.args);
  g_assert_cmpint (light->format.nr_common, ==, parsed->format.nr_common);
  g_assert_cmpint (light->format.nr_fields, ==, parsed->format.nr_fields);
  assert_same_fields (light->format.common_fields, parsed->format.common_fields);
  assert_same_fields (light->format.fields, parsed->format.fields);
  rsp_tep_fields_event_free (light);
  tep_free (tep);
  return TRUE;
}

static char *
fields_format (const char *fields)
{
  return g_strconcat ("name: x\nID: 7\nformat:\n" COMMON, fields, "\nprint fmt: \"%d\", REC->common_pid\n", NULL);
}

static void
test_fields_same (void)
{
  /* the shapes of field lines, each taken and equal to libtraceevent's */
  static const char *const taken[] = {
    "\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n",
    "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n",
    "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n",
    "\tfield:__data_loc u32[] ids;\toffset:8;\tsize:4;\tsigned:0;\n",
    "\tfield:__data_loc unsigned long[] ips;\toffset:8;\tsize:4;\tsigned:0;\n",
    "\tfield:char buf[];\toffset:8;\tsize:0;\tsigned:0;\n",
    "\tfield:u32 words[];\toffset:8;\tsize:0;\tsigned:0;\n",
    "\tfield:unsigned long caller[4];\toffset:8;\tsize:32;\tsigned:0;\n",
    "\tfield:unsigned long stack[0];\toffset:8;\tsize:0;\tsigned:0;\n",
    "\tfield:u8 addr[6];\toffset:8;\tsize:6;\tsigned:0;\n",
    "\tfield:const void * skaddr;\toffset:8;\tsize:8;\tsigned:0;\n",
    "\tfield:char *buf;\toffset:8;\tsize:8;\tsigned:0;\n",
    "\tfield:char* buf;\toffset:8;\tsize:8;\tsigned:0;\n",
    "\tfield:const char * const * argv;\toffset:8;\tsize:8;\tsigned:0;\n",
    "\tfield:long long delta;\toffset:8;\tsize:8;\tsigned:1;\n",
    "\tfield:int  spaced;\toffset:8;\tsize:4;\tsigned:1;\n",
    "\tfield:int old;\toffset:8;\tsize:4;\n",
    "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:s8 prio;\toffset:12;\tsize:1;\tsigned:1;\n",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (taken); i++)
    {
      g_test_message ("fields %" G_GSIZE_FORMAT ": %s", i, taken[i]);
      g_autofree char *text = fields_format (taken[i]);
      g_assert_true (compare_with_libtraceevent (text, "sched"));
    }
  /* left to libtraceevent: not the kernel's shape, or a number that is not
   * plain decimal */
  static const char *const refused[] = {
    "\tfield:int a;\toffset:010;\tsize:4;\tsigned:1;\n",
    "\tfield:char c[010];\toffset:8;\tsize:8;\tsigned:0;\n",
    "\tfield:char **argv;\toffset:8;\tsize:8;\tsigned:0;\n",
    /* libtraceevent gives __rel_loc fields flags of their own */
    "\tfield:__rel_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n",
    "\tfield:__rel_locshort x;\toffset:8;\tsize:2;\tsigned:0;\n",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *text = fields_format (refused[i]);
      g_assert_false (compare_with_libtraceevent (text, "sched"));
    }
  g_autofree char *ok = fields_format ("\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n");
  g_assert_false (compare_with_libtraceevent (ok, "ftrace")); /* libtraceevent's special case */
  /* no empty line after the common fields, or two: libtraceevent reads
   * those otherwise */
  const char *one_list = "name: x\nID: 7\nformat:\n"
                         "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                         "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n";
  g_assert_false (compare_with_libtraceevent (one_list, "sched"));
  g_autofree char *two_blanks = g_strconcat ("name: x\nID: 7\nformat:\n" COMMON,
                                             "\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n", NULL);
  g_assert_false (compare_with_libtraceevent (two_blanks, "sched"));

  /* every format of the running kernel, where tracefs can be read */
  const char *roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
  guint seen = 0, took = 0;
  for (gsize r = 0; r < G_N_ELEMENTS (roots) && seen == 0; r++)
    {
      g_autoptr (GDir) systems = g_dir_open (roots[r], 0, NULL);
      const char *system;
      while (systems != NULL && (system = g_dir_read_name (systems)) != NULL)
        {
          g_autofree char *sdir = g_build_filename (roots[r], system, NULL);
          g_autoptr (GDir) events = g_dir_open (sdir, 0, NULL);
          const char *name;
          while (events != NULL && (name = g_dir_read_name (events)) != NULL)
            {
              g_autofree char *path = g_build_filename (sdir, name, "format", NULL);
              g_autofree char *text = NULL;
              if (!g_file_get_contents (path, &text, NULL, NULL))
                continue;
              seen++;
              took += compare_with_libtraceevent (text, system);
            }
        }
    }
  if (seen == 0)
    g_test_message ("no tracefs to read: the running kernel's formats were not compared");
  else
    {
      g_test_message ("the running kernel's formats: %u, %u taken and equal to libtraceevent's", seen, took);
      /* the shapes above are the kernel's: nearly all of them are taken */
      g_assert_cmpuint (took, >=, seen * 9 / 10);
    }
}

/* Every byte value at every place of a word (and of the tail after the
 * last whole word), alone among printable text: the text is taken exactly
 * when the byte is printable ASCII or a tab.  (The check reads eight bytes
 * at a time.)  A quote or a newline would end the line's text; they are
 * left out. */
static void
test_printable_bytes (void)
{
  guint checked = 0;
  for (guint n = 2; n <= 27; n++)
    for (guint at = 0; at < n; at++)
      for (guint ch = 0; ch < 256; ch++)
        {
          if (ch == '"' || ch == '\n')
            continue;
          GString *line = g_string_new ("0x1234 : \"");
          for (guint i = 0; i < n; i++)
            g_string_append_c (line, i == at ? (char) ch : (char) ('a' + i % 26));
          g_string_append_c (line, '"');
          gboolean want = (ch >= 0x20 && ch < 0x7f) || ch == '\t';
          if (rsp_tep_check_printk (line->str, line->len) != want)
            g_error ("byte 0x%02x at %u of %u: %s", ch, at, n, want ? "refused" : "taken");
          g_string_free (line, TRUE);
          checked++;
        }
  /* two bad bytes in one word, and a bad byte after a good tab in it */
  static const char *const bad[] = { "0x1 : \"ab\x01\x7f\"", "0x1 : \"a\tb\x80" "cdefgh\"", "0x1 : \"\t\t\t\t\t\t\t\x1f\"" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (rsp_tep_check_printk (bad[i], strlen (bad[i])));
  g_test_message ("%u texts", checked);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tep-guard/real-formats", test_real_formats);
  g_test_add_func ("/tep-guard/dangerous-print-fmts", test_dangerous_print_fmts);
  g_test_add_func ("/tep-guard/bad-formats", test_bad_formats);
  g_test_add_func ("/tep-guard/printable-bytes", test_printable_bytes);
  g_test_add_func ("/tep-fields/same-as-libtraceevent", test_fields_same);
  return g_test_run ();
}
