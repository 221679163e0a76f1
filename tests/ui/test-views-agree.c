/* test-views-agree.c — the report, its JSON and the flame views show the
 * same numbers as the analysis they read, on every recording in tests/data/
 * and on ranges cut out of it (the same cuts `rsp report --from --to`
 * takes):
 *   - `rsp report --json`: every category, the wall and the total time to
 *     its three decimals; the text report to its two;
 *   - the chronological flame view, laid out at 1 ns per pixel: its disk
 *     boxes add up to the disk and I/O queue time, its network boxes to the
 *     network time, and its paths' totals to the total;
 *   - the consolidated flame view: the root is the total, no node is
 *     smaller than its children together, and its disk and network leaves
 *     add up to the same categories; inverted (bottom-up), the root is
 *     the same total and each name at the bottom holds exactly the own time
 *     of that name's nodes in the top-down tree, which is also its "self"
 *     in the callers/callees table, whose callers add up to its total;
 *   - the CSV export (rsp_report_csv): every cell of the table, per path
 *     too, and every finding's time, read back through an RFC 4180 parser.
 */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "rsp-analysis.h"
#include "rsp-consolidated-view.h"
#include "rsp-flame-view.h"
#include "rsp-model.h"
#include "rsp-report.h"

static const char *const recordings[] = {
  "pingpong.rsp", "forkexec.rsp", "tcp_loop.rsp", "dio_read.rsp", "dio_ftrace.rsp", "cold_read_files.rsp", "pingpong-plain.perf.data",
};

typedef struct {
  guint64 disk, network; /* the categories the boxes stand for */
} Boxes;

static char *
run_rsp (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("RSP"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;
  const char *env[] = { "LC_ALL=C", "LANGUAGE=", NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, (char **) env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("rsp %s failed: %s", args[0], err);
  return g_steal_pointer (&out);
}

static void
assert_ms (const char *what, double shown, guint64 ns, double precision)
{
  if (fabs (shown - ns / 1e6) > precision / 2 + 1e-9)
    g_error ("%s: shown %.6f ms, the analysis has %.6f ms", what, shown, ns / 1e6);
}

/* The value after LABEL at the start of a line of the text report. */
static double
text_value (const char *text, const char *label)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      while (*line == ' ')
        line++;
      if (g_str_has_prefix (line, label) && line[strlen (label)] == ' ')
        return g_ascii_strtod (line + strlen (label), NULL);
    }
  g_error ("the text report has no line '%s'", label);
}

static void
check_cli (const RspAnalysis *a, const char *path, const char *const *range)
{
  const char *args[16];
  g_autofree char *pid = g_strdup_printf ("%d", rsp_analysis_pid (a));
  guint n = 0;
  args[n++] = "report";
  args[n++] = "--pid";
  args[n++] = pid;
  for (guint i = 0; range[i] != NULL; i++)
    args[n++] = range[i];
  args[n++] = path;
  args[n] = NULL;
  g_autofree char *text = run_rsp (args);
  args[n++] = "--json";
  args[n] = NULL;
  g_autofree char *json = run_rsp (args);

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  JsonObject *acc = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "accounting");
  assert_ms ("JSON wall_ms", json_object_get_double_member (acc, "wall_ms"), rsp_analysis_wall_ns (a), 0.001);
  assert_ms ("JSON total_ms", json_object_get_double_member (acc, "total_ms"), rsp_analysis_total_ns (a), 0.001);
  assert_ms ("text Wall time", text_value (text, "Wall time"), rsp_analysis_wall_ns (a), 0.01);
  assert_ms ("text Total time", text_value (text, "Total time"), rsp_analysis_total_ns (a), 0.01);
  JsonArray *cats = json_object_get_array_member (acc, "categories");
  g_assert_cmpuint (json_array_get_length (cats), ==, RSP_CAT_N);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      JsonObject *cat = json_array_get_object_element (cats, c);
      g_assert_cmpstr (json_object_get_string_member (cat, "id"), ==, rsp_category_id (c));
      assert_ms (rsp_category_id (c), json_object_get_double_member (cat, "ms"), rsp_analysis_category_ns (a, c), 0.001);
      assert_ms (rsp_category_id (c), json_object_get_double_member (cat, "inferred_ms"),
                 rsp_analysis_inferred_ns (a, c), 0.001);
      assert_ms (rsp_category_label (c), text_value (text, rsp_category_label (c)), rsp_analysis_category_ns (a, c),
                 0.01);
    }
}

/* RFC 4180: rows of fields, quoted fields may hold separators, quotes
 * (doubled) and line breaks.  Returns GPtrArray of GStrv. */
static GPtrArray *
parse_csv (const char *text)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  GPtrArray *fields = g_ptr_array_new ();
  GString *field = g_string_new (NULL);
  const char *c = text;
  while (*c != '\0')
    {
      if (*c == '"')
        {
          for (c++; *c != '\0' && !(c[0] == '"' && c[1] != '"'); c++)
            {
              if (c[0] == '"')
                c++; /* a doubled quote */
              g_string_append_c (field, *c);
            }
          g_assert_true (*c == '"');
          c++;
        }
      else if (*c == ',' || *c == '\r')
        {
          g_ptr_array_add (fields, g_strdup (field->str));
          g_string_truncate (field, 0);
          if (*c == '\r')
            {
              g_assert_true (c[1] == '\n');
              g_ptr_array_add (fields, NULL);
              g_ptr_array_add (rows, g_ptr_array_free (fields, FALSE));
              fields = g_ptr_array_new ();
              c++;
            }
          c++;
        }
      else
        g_string_append_c (field, *c++);
    }
  g_assert_cmpuint (fields->len, ==, 0); /* every row ends in CRLF */
  g_ptr_array_free (fields, TRUE);
  g_string_free (field, TRUE);
  return rows;
}

static void
check_csv (const RspAnalysis *a)
{
  g_autofree char *csv = rsp_report_csv (a);
  g_autoptr (GPtrArray) rows = parse_csv (csv);
  guint n_paths = rsp_analysis_n_paths (a);
  /* header, wall, total, the categories, accounted, an empty line */
  g_assert_cmpuint (rows->len, >=, RSP_CAT_N + 5);
  char **header = rows->pdata[0];
  g_assert_cmpuint (g_strv_length (header), ==, 5 + n_paths);
  g_assert_cmpstr (header[2], ==, "ms");
  char **total = rows->pdata[2];
  g_assert_cmpstr (total[0], ==, "total");
  assert_ms ("CSV total", g_ascii_strtod (total[2], NULL), rsp_analysis_total_ns (a), 0.001);
  for (guint c = 0; c < RSP_CAT_N; c++)
    {
      char **row = rows->pdata[3 + c];
      g_assert_cmpuint (g_strv_length (row), ==, 5 + n_paths);
      g_assert_cmpstr (row[0], ==, rsp_category_id (c));
      assert_ms ("CSV category", g_ascii_strtod (row[2], NULL), rsp_analysis_category_ns (a, c), 0.001);
      assert_ms ("CSV inferred", g_ascii_strtod (row[4], NULL), rsp_analysis_inferred_ns (a, c), 0.001);
      for (guint p = 0; p < n_paths; p++)
        assert_ms ("CSV path", g_ascii_strtod (row[5 + p], NULL), rsp_analysis_path (a, p)->category_ns[c], 0.001);
    }
  char **accounted = rows->pdata[3 + RSP_CAT_N];
  g_assert_cmpstr (accounted[0], ==, "accounted");
  assert_ms ("CSV accounted", g_ascii_strtod (accounted[2], NULL), rsp_analysis_accounted_ns (a), 0.001);
  char **empty = rows->pdata[4 + RSP_CAT_N];
  g_assert_true (g_strv_length (empty) == 1 && empty[0][0] == '\0');
  char **findings_header = rows->pdata[5 + RSP_CAT_N];
  g_assert_cmpstr (findings_header[0], ==, "rank");
  g_assert_cmpuint (rows->len, ==, 6 + RSP_CAT_N + rsp_analysis_n_findings (a));
  for (guint i = 0; i < rsp_analysis_n_findings (a); i++)
    {
      char **row = rows->pdata[6 + RSP_CAT_N + i];
      const RspFinding *f = rsp_analysis_finding (a, i);
      g_assert_cmpuint (g_strv_length (row), ==, g_strv_length (findings_header));
      g_assert_cmpstr (row[1], ==, rsp_category_id (f->category));
      assert_ms ("CSV finding", g_ascii_strtod (row[2], NULL), f->ns, 0.001);
      g_assert_cmpstr (row[10], ==, f->frame != NULL ? f->frame : "");
    }
}

static void
add_box (const RspFlameBox *b, Boxes *boxes)
{
  if (b->kind == RSP_FLAME_BOX_DISK)
    boxes->disk += b->end - b->start;
  else if (b->kind == RSP_FLAME_BOX_NETWORK)
    boxes->network += b->end - b->start;
}

static void
check_boxes (const Boxes *boxes, const RspAnalysis *a, const char *view)
{
  guint64 disk = rsp_analysis_category_ns (a, RSP_CAT_DISK_IO) + rsp_analysis_category_ns (a, RSP_CAT_IO_QUEUE);
  if (boxes->disk != disk)
    g_error ("%s: disk boxes %" G_GUINT64_FORMAT " ns, disk and queue time %" G_GUINT64_FORMAT " ns", view,
             boxes->disk, disk);
  if (boxes->network != rsp_analysis_category_ns (a, RSP_CAT_NETWORK))
    g_error ("%s: network boxes %" G_GUINT64_FORMAT " ns, network time %" G_GUINT64_FORMAT " ns", view,
             boxes->network, rsp_analysis_category_ns (a, RSP_CAT_NETWORK));
}

static void
check_flame (const RspAnalysis *a, const RspTheme *theme)
{
  RspFlameOptions options;
  rsp_flame_options_init (&options);
  options.t0 = rsp_analysis_start (a);
  options.t1 = MAX (rsp_analysis_end (a), options.t0 + 1);
  /* one nanosecond per pixel: no two boxes merge across a gap */
  g_autoptr (RspFlameLayout) l = rsp_flame_view_layout (a, &options, theme, (double) (options.t1 - options.t0));
  Boxes boxes = { 0 };
  for (guint r = 0; r < rsp_flame_layout_n_rows (l); r++)
    {
      guint n;
      const RspFlameBox *row = rsp_flame_layout_row (l, r, &n);
      for (guint i = 0; i < n; i++)
        add_box (&row[i], &boxes);
    }
  check_boxes (&boxes, a, "flame view");
  guint64 paths = 0;
  for (guint p = 0; p < rsp_analysis_n_paths (a); p++)
    paths += rsp_analysis_path (a, p)->total;
  g_assert_cmpuint (paths, ==, rsp_analysis_total_ns (a));
}

static guint
count_zero (GHashTable *own)
{
  guint n = 0;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, own);
  while (g_hash_table_iter_next (&it, NULL, &v))
    n += *(guint64 *) v == 0;
  return n;
}

static const char *
node_name (const RspFlameLayout *l, guint32 node, GPtrArray *keep)
{
  char **path = rsp_consolidated_view_node_path (l, node);
  g_ptr_array_add (keep, path);
  return path[g_strv_length (path) - 1];
}

/* The bottom-up view against the top-down tree TOP, and the
 * callers/callees table against both. */
static void
check_inverted (const RspAnalysis *a, const RspTheme *theme, const RspFlameLayout *top)
{
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  /* own time per name in the top-down tree */
  guint32 n = rsp_consolidated_view_n_nodes (top);
  g_autofree guint64 *self = g_new0 (guint64, n);
  for (guint32 i = 1; i < n; i++)
    self[i] += rsp_consolidated_view_node_ns (top, i);
  for (guint32 i = 1; i < n; i++)
    {
      guint32 p = rsp_consolidated_view_node_parent (top, i);
      if (p != 0)
        self[p] -= rsp_consolidated_view_node_ns (top, i);
    }
  g_autoptr (GHashTable) own = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint32 i = 1; i < n; i++)
    {
      const char *name = node_name (top, i, keep);
      guint64 *v = g_hash_table_lookup (own, name);
      if (v == NULL)
        g_hash_table_insert (own, (gpointer) name, v = g_new0 (guint64, 1));
      *v += self[i];
    }

  RspConsolidatedOptions options;
  rsp_consolidated_options_init (&options);
  options.inverted = TRUE;
  g_assert_false (rsp_consolidated_view_layout_fits (top, a, &options, theme));
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (a, &options, theme);
  g_assert_true (rsp_consolidated_view_layout_fits (l, a, &options, theme));
  g_assert_cmpuint (rsp_consolidated_view_total_ns (l), ==, rsp_analysis_total_ns (a));
  g_autoptr (RspCallGraph) calls = rsp_call_graph_new (a, FALSE);
  guint32 m = rsp_consolidated_view_n_nodes (l);
  g_autofree guint64 *kids = g_new0 (guint64, m);
  guint bottoms = 0;
  for (guint32 i = 1; i < m; i++)
    {
      guint32 parent = rsp_consolidated_view_node_parent (l, i);
      kids[parent] += rsp_consolidated_view_node_ns (l, i);
      if (parent != 0)
        continue;
      const char *name = node_name (l, i, keep);
      guint64 *v = g_hash_table_lookup (own, name);
      g_assert_nonnull (v);
      g_assert_cmpuint (rsp_consolidated_view_node_ns (l, i), ==, *v);
      /* the table's self time is the same; its callers share its total */
      g_autoptr (RspCallers) c = rsp_call_graph_callers (calls, name);
      g_assert_cmpuint (c->self_ns, ==, *v);
      g_assert_cmpuint (c->self_ns, <=, c->total_ns);
      g_assert_cmpuint (c->total_ns, <=, c->all_ns);
      guint64 callers = 0, callees = 0;
      for (guint k = 0; k < c->callers->len; k++)
        callers += g_array_index (c->callers, RspCallTotal, k).ns;
      for (guint k = 0; k < c->callees->len; k++)
        callees += g_array_index (c->callees, RspCallTotal, k).ns;
      g_assert_cmpuint (callers, <=, c->total_ns);
      g_assert_cmpuint (callees, <=, c->total_ns);
      bottoms++;
    }
  g_assert_cmpuint (bottoms, ==, g_hash_table_size (own) - count_zero (own));
  g_assert_cmpuint (kids[0], ==, rsp_consolidated_view_total_ns (l));
  for (guint32 i = 0; i < m; i++)
    g_assert_cmpuint (kids[i], <=, rsp_consolidated_view_node_ns (l, i));
}

static void
check_consolidated (const RspAnalysis *a, const RspTheme *theme)
{
  RspConsolidatedOptions options;
  rsp_consolidated_options_init (&options);
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (a, &options, theme);
  g_assert_cmpuint (rsp_consolidated_view_total_ns (l), ==, rsp_analysis_total_ns (a));
  guint32 n = rsp_consolidated_view_n_nodes (l);
  g_autofree guint64 *kids = g_new0 (guint64, n);
  Boxes boxes = { 0 };
  for (guint32 i = 1; i < n; i++)
    {
      guint32 parent = rsp_consolidated_view_node_parent (l, i);
      g_assert_cmpuint (parent, <, n);
      kids[parent] += rsp_consolidated_view_node_ns (l, i);
    }
  for (guint32 i = 0; i < n; i++)
    if (kids[i] > rsp_consolidated_view_node_ns (l, i))
      g_error ("consolidated node %u: %" G_GUINT64_FORMAT " ns, its children %" G_GUINT64_FORMAT " ns", i,
               rsp_consolidated_view_node_ns (l, i), kids[i]);
  /* the root's children share the whole total */
  g_assert_cmpuint (kids[0], ==, rsp_consolidated_view_total_ns (l));
  for (guint r = 0; r < rsp_flame_layout_n_rows (l); r++)
    {
      guint nb;
      const RspFlameBox *row = rsp_flame_layout_row (l, r, &nb);
      for (guint i = 0; i < nb; i++)
        add_box (&row[i], &boxes);
    }
  check_boxes (&boxes, a, "consolidated view");
  check_inverted (a, theme, l);
}

static void
test_recording (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (RSP_SOURCE_ROOT, "tests", "data", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (RspModel) model = rsp_model_load (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const RspRecordingMeta *meta = rsp_model_meta (model);
  gint32 pid = meta != NULL && meta->target_pid > 0 ? meta->target_pid : -1;
  if (pid < 0)
    {
      g_autoptr (GArray) busiest = rsp_model_busiest_processes (model, 1);
      pid = g_array_index (busiest, RspProcessSummary, 0).pid;
    }
  RspTheme theme;
  rsp_theme_init (&theme, FALSE, 1.0);
  guint64 origin = rsp_model_start_time (model), end = rsp_model_end_time (model);
  double length_ms = (end - origin) / 1e6;
  /* the whole recording, then ranges as --from/--to give them */
  const double cuts[][2] = { { -1, -1 }, { 0, length_ms / 3 }, { length_ms / 3, 2 * length_ms / 3 },
                             { length_ms / 2, length_ms / 2 + length_ms / 50 } };
  guint analysed = 0;
  for (gsize k = 0; k < G_N_ELEMENTS (cuts); k++)
    {
      char from_text[32] = "", to_text[32] = "";
      const char *range[5] = { NULL };
      guint64 from = 0, to = G_MAXUINT64;
      if (cuts[k][0] >= 0)
        {
          g_ascii_formatd (from_text, sizeof from_text, "%.3f", cuts[k][0]);
          g_ascii_formatd (to_text, sizeof to_text, "%.3f", cuts[k][1]);
          range[0] = "--from", range[1] = from_text, range[2] = "--to", range[3] = to_text;
          /* as the command line turns them into times */
          from = origin + (guint64) (g_ascii_strtod (from_text, NULL) * 1e6);
          to = origin + (guint64) (g_ascii_strtod (to_text, NULL) * 1e6);
        }
      g_autoptr (GError) range_error = NULL;
      g_autoptr (RspAnalysis) a = rsp_analysis_new (model, pid, from, to, &range_error);
      if (a == NULL)
        continue; /* the process did not exist then: test-invariants checks the message */
      check_cli (a, path, range);
      check_csv (a);
      check_flame (a, &theme);
      check_consolidated (a, &theme);
      analysed++;
    }
  g_assert_cmpuint (analysed, >=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("RSP"));
  for (gsize i = 0; i < G_N_ELEMENTS (recordings); i++)
    {
      g_autofree char *name = g_strdup_printf ("/views-agree/%s", recordings[i]);
      g_test_add_data_func (name, recordings[i], test_recording);
    }
  return g_test_run ();
}
