/* test-files.c — the names of the files behind disk waits (rsp-files.h):
 * the snapshot of open and mapped files, the bounded walk, the section's
 * round trip and its damage, backing device names. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rsp-files.h"
#include "rsp-ftrace.h"

static RspFileId
id_of (const char *path)
{
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  RspFileId id = { RSP_KDEV (major (st.st_dev), minor (st.st_dev)), (guint64) st.st_ino };
  return id;
}

static char *
section_text (const RspFileNames *names)
{
  g_autoptr (GBytes) bytes = rsp_file_names_section (names);
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  return g_strndup (data != NULL ? data : "", size);
}

/* A file this process holds open is named by the snapshot of /proc; one
 * nobody holds is not, until the walk finds it. */
static void
test_snapshot_and_walk (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rsp-files-XXXXXX", NULL);
  g_assert_nonnull (dir);
  /* this process works in DIR: its working directory is walked first */
  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (chdir (dir), ==, 0);
  g_autofree char *open_path = g_build_filename (dir, "held open", NULL);
  g_autofree char *sub = g_build_filename (dir, "a", "b", NULL);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_autofree char *closed_path = g_build_filename (sub, "closed.db", NULL);
  g_assert_true (g_file_set_contents (open_path, "x", 1, NULL));
  g_assert_true (g_file_set_contents (closed_path, "y", 1, NULL));
  int fd = open (open_path, O_RDONLY);
  g_assert_cmpint (fd, >=, 0);

  g_autoptr (RspFileNames) names = rsp_file_names_new ();
  g_assert_cmpuint (rsp_file_names_snapshot (names, "/proc"), >, 0);
  RspFileId held = id_of (open_path), closed = id_of (closed_path);
  rsp_file_names_want (names, held);
  rsp_file_names_want (names, closed);
  g_assert_cmpuint (rsp_file_names_n_wanted (names), ==, 2);
  g_assert_cmpuint (rsp_file_names_n_named (names), ==, 1);
  /* the walk finds the other (from the working directories first, this
   * process's among them) */
  g_assert_cmpuint (rsp_file_names_walk (names, dir, 1000000), ==, 1);
  g_assert_cmpuint (rsp_file_names_n_named (names), ==, 2);
  /* without a snapshot, from DIR alone; an entry bound of 0 finds nothing */
  g_autoptr (RspFileNames) walked = rsp_file_names_new ();
  rsp_file_names_want (walked, closed);
  g_assert_cmpuint (rsp_file_names_walk (walked, dir, 0), ==, 0);
  g_assert_cmpuint (rsp_file_names_walk (walked, dir, 1000), ==, 1);
  g_assert_cmpuint (rsp_file_names_n_named (walked), ==, 1);

  g_autofree char *text = section_text (names);
  g_autoptr (RspFileTable) table = rsp_file_table_parse ((const guint8 *) text, strlen (text), NULL);
  g_assert_cmpuint (rsp_file_table_size (table), ==, 2);
  g_assert_cmpstr (rsp_file_table_lookup (table, held), ==, open_path);
  g_assert_cmpstr (rsp_file_table_lookup (table, closed), ==, closed_path);
  /* an event without a device (a backing device not named MAJ:MIN) */
  RspFileId no_dev = { 0, closed.ino };
  g_assert_cmpstr (rsp_file_table_lookup (table, no_dev), ==, closed_path);
  RspFileId other = { closed.dev + 1, closed.ino };
  g_assert_null (rsp_file_table_lookup (table, other));

  close (fd);
  g_assert_cmpint (chdir (cwd), ==, 0);
  g_unlink (open_path);
  g_unlink (closed_path);
  g_rmdir (sub);
  g_autofree char *a = g_build_filename (dir, "a", NULL);
  g_rmdir (a);
  g_rmdir (dir);
}

/* The section skips what it cannot read and counts it; a path's control
 * characters were replaced when it was written. */
static void
test_section_damage (void)
{
  const char text[] = "254 0 12 /var/lib/db\n"
                      "254 0 13 relative/path\n" /* not absolute */
                      "254 0 0 /zero/inode\n"
                      "4096 0 14 /bad/major\n"
                      "254 0 x /bad/number\n"
                      "254 0 18446744073709551616 /overflow\n" /* 2^64 */
                      "254 0 17/no/blank\n"
                      "\n"
                      "8 1 12 /other/device\n"
                      "254 0 15 /with spaces/and\ttab\n"
                      "254 0 12 /var/lib/db-renamed\n" /* the first name of an id is kept */
                      "254 0 16 /no/newline";
  guint bad = 0;
  g_autoptr (RspFileTable) table = rsp_file_table_parse ((const guint8 *) text, sizeof text - 1, &bad);
  g_assert_cmpuint (bad, ==, 6);
  g_assert_cmpuint (rsp_file_table_size (table), ==, 4);
  RspFileId db = { RSP_KDEV (254, 0), 12 }, other = { RSP_KDEV (8, 1), 12 }, spaces = { RSP_KDEV (254, 0), 15 },
            last = { RSP_KDEV (254, 0), 16 }, ambiguous = { 0, 12 };
  g_assert_cmpstr (rsp_file_table_lookup (table, db), ==, "/var/lib/db");
  g_assert_cmpstr (rsp_file_table_lookup (table, other), ==, "/other/device");
  g_assert_cmpstr (rsp_file_table_lookup (table, spaces), ==, "/with spaces/and\ttab");
  g_assert_cmpstr (rsp_file_table_lookup (table, last), ==, "/no/newline");
  /* inode 12 is on two devices: without a device it names neither */
  g_assert_null (rsp_file_table_lookup (table, ambiguous));
  /* a NUL inside a line spoils that line only */
  const char nul[] = "254 0 20 /a\0b\n254 0 21 /c\n";
  g_autoptr (RspFileTable) t2 = rsp_file_table_parse ((const guint8 *) nul, sizeof nul - 1, &bad);
  g_assert_cmpuint (bad, ==, 1);
  g_assert_cmpuint (rsp_file_table_size (t2), ==, 1);
  /* many names (a copy of a tree): each found, by its id and, where no
   * other device has its inode, by its inode alone */
  GString *many = g_string_new (NULL);
  for (guint i = 1; i <= 20000; i++)
    g_string_append_printf (many, "%u %u %u /tree/%u\n", i % 3 == 0 ? 8u : 254u, i % 3 == 0 ? 1u : 0u, i % 5000 + 1, i);
  g_autoptr (RspFileTable) t4 = rsp_file_table_parse ((const guint8 *) many->str, many->len, &bad);
  g_assert_cmpuint (bad, ==, 0);
  guint distinct = 0;
  for (guint i = 1; i <= 20000; i++)
    {
      /* lines i and j name the same id when their devices and inodes are equal: the first is kept */
      guint32 dev = i % 3 == 0 ? RSP_KDEV (8, 1) : RSP_KDEV (254, 0);
      guint first = i;
      for (guint j = i % 5000 == 0 ? 5000 : i % 5000; j < i; j += 5000)
        if ((j % 3 == 0) == (i % 3 == 0))
          {
            first = j;
            break;
          }
      distinct += first == i;
      RspFileId id = { dev, i % 5000 + 1 };
      g_autofree char *want = g_strdup_printf ("/tree/%u", first);
      g_assert_cmpstr (rsp_file_table_lookup (t4, id), ==, want);
      /* in two steps: the entry, the same for every line of the id */
      gint entry = rsp_file_table_find (t4, id);
      g_assert_cmpint (entry, >=, 0);
      g_assert_cmpint (entry, <, (gint) rsp_file_table_size (t4));
      g_assert_cmpstr (rsp_file_table_path (t4, (guint) entry), ==, want);
      /* every inode of these is on both devices: none by the inode alone */
      RspFileId no_dev = { 0, i % 5000 + 1 };
      g_assert_null (rsp_file_table_lookup (t4, no_dev));
      g_assert_cmpint (rsp_file_table_find (t4, no_dev), ==, -1);
    }
  g_assert_cmpuint (rsp_file_table_size (t4), ==, distinct);
  RspFileId absent = { RSP_KDEV (254, 0), 5002 };
  g_assert_null (rsp_file_table_lookup (t4, absent));
  g_assert_cmpint (rsp_file_table_find (t4, absent), ==, -1);
  g_assert_cmpint (rsp_file_table_find (NULL, absent), ==, -1);
  g_string_free (many, TRUE);
  /* nothing at all */
  g_autoptr (RspFileTable) t3 = rsp_file_table_parse (NULL, 0, &bad);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (rsp_file_table_size (t3), ==, 0);
}

static void
test_bdi_names (void)
{
  g_assert_cmpuint (rsp_file_dev_from_bdi ("254:0"), ==, RSP_KDEV (254, 0));
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8:17"), ==, RSP_KDEV (8, 17));
  g_assert_cmpuint (rsp_file_dev_from_bdi ("btrfs-1"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("254:0x"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("99999:0"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi (""), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi (NULL), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("4095:1048575"), ==, RSP_KDEV (4095, 1048575));
  g_assert_cmpuint (rsp_file_dev_from_bdi ("4096:0"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8:1048576"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8:99999999999999999999"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8:"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi (":0"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8-0"), ==, 0);
  g_assert_cmpuint (rsp_file_dev_from_bdi ("8:0:1"), ==, 0);
}

/* Every event that names a file is one the instance records. */
static void
test_events_recorded (void)
{
  const char *const *files = rsp_file_events ();
  g_assert_cmpuint (g_strv_length ((char **) files), >=, 5);
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_assert_true (g_strv_contains (rsp_ftrace_events (), files[i]));
      g_assert_true (rsp_file_event_is (files[i]));
    }
  g_assert_false (rsp_file_event_is ("sched:sched_switch"));
  g_assert_false (rsp_file_event_is (NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/files/snapshot-and-walk", test_snapshot_and_walk);
  g_test_add_func ("/files/section-damage", test_section_damage);
  g_test_add_func ("/files/bdi-names", test_bdi_names);
  g_test_add_func ("/files/events-recorded", test_events_recorded);
  return g_test_run ();
}
