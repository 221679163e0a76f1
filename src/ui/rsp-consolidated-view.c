/* rsp-consolidated-view.c — the consolidated flame view (paper §4.2
 * "Consolidated Flame View").
 *
 * Every moment of every lane of every control path has a pseudo-stack:
 * the task of each layer and its frames, bottom-up, and a disk or network
 * box on top when the accounting says it waited for one.  Pseudo-stacks
 * that match — the same sequence of (task comm, frame) from the bottom —
 * are merged into a tree; "the bottommost stack frames are sorted by
 * duration, then for each of those the next frames up are sorted and so
 * on".  A node's width is its total time, so x is a share of the total,
 * and the widest child is leftmost.  The tree is laid out once; zooming
 * into a subtree only changes which node spans the width.
 *
 * Inverted (bottom-up), every node's own time — what its children do not
 * cover — stands on a root of its name with its callers above it, so the
 * widest roots are where the time is spent, whoever called them.  The
 * callers and callees of one name are summed over the top-down tree.
 */
#include "rsp-consolidated-view.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rsp-time-axis.h"

#define ROOT 0u
#define CRUMB_SEP " › "
/* a frame is purple when running and sleeping each take 1/10 of its time or more */
#define BOTH_SHARE_DENOMINATOR 10

typedef enum {
  NODE_TASK,
  NODE_FRAME,
  NODE_DISK,
  NODE_NETWORK,
} NodeClass;

typedef struct {
  const char *name;
  guint32 parent;
  guint32 first_kid, n_kids; /* into Tree.kids, widest first */
  guint64 total, run_ns, sleep_ns;
  guint64 offset;            /* left edge on the axis, ns of total time */
  guint32 box;               /* its box in the layout; RSP_FLAME_NO_BOX for the root */
  guint16 cats;
  guint16 depth;             /* the root is 0; its children stand on row 0 */
  guint8 cls;                /* NodeClass */
} Node;

typedef struct {
  guint32 parent;
  guint32 cls;
  const char *name;
} NodeKey;

typedef struct {
  const RspAnalysis *a;
  RspStackNames *stacks;
  gboolean full_stacks;
  gboolean inverted;
  GArray *nodes;     /* Node; 0 is the root */
  guint32 *kids;     /* children of every node, each node's slice sorted */
  GHashTable *index; /* NodeKey -> node + 1, while building */
  GHashTable *crumb_widths; /* name -> width (px x 64 + 1) */
  GStringChunk *names;      /* the disk and network boxes' labels */
  double row_height;
} Tree;

static guint
node_key_hash (gconstpointer p)
{
  const NodeKey *k = p;
  return k->parent * 2654435761u + k->cls * 31u + g_str_hash (k->name);
}

static gboolean
node_key_equal (gconstpointer pa, gconstpointer pb)
{
  const NodeKey *a = pa, *b = pb;
  return a->parent == b->parent && a->cls == b->cls && (a->name == b->name || strcmp (a->name, b->name) == 0);
}

static void
tree_free (gpointer p)
{
  Tree *t = p;
  rsp_stack_names_free (t->stacks);
  g_array_unref (t->nodes);
  g_free (t->kids);
  g_clear_pointer (&t->index, g_hash_table_unref);
  g_hash_table_unref (t->crumb_widths);
  g_string_chunk_free (t->names);
  g_free (t);
}

void
rsp_consolidated_options_init (RspConsolidatedOptions *o)
{
  memset (o, 0, sizeof *o);
  o->highlight_category = -1;
}

static Node *
node_at (const Tree *t, guint32 i)
{
  return &g_array_index (t->nodes, Node, i);
}

/* The child of PARENT for (CLS, NAME), made on first use. */
static guint32
child (Tree *t, guint32 parent, NodeClass cls, const char *name)
{
  NodeKey key = { parent, cls, name != NULL ? name : "?" };
  gpointer found = g_hash_table_lookup (t->index, &key);
  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;
  Node n = { 0 };
  n.name = key.name;
  n.parent = parent;
  n.cls = cls;
  n.box = RSP_FLAME_NO_BOX;
  n.depth = node_at (t, parent)->depth + 1;
  g_array_append_val (t->nodes, n);
  guint32 idx = t->nodes->len - 1;
  g_hash_table_insert (t->index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (idx + 1));
  return idx;
}

static void
add_time (Tree *t, guint32 node, guint64 ns, gboolean run, gboolean sleep, guint16 cats)
{
  Node *n = node_at (t, node);
  n->total += ns;
  if (run)
    n->run_ns += ns;
  if (sleep)
    n->sleep_ns += ns;
  n->cats |= cats;
}

/* Frames of STACK (its user-space part if USER_ONLY) bottom-up on top of
 * NODE, each getting NS. Returns the top node. */
static guint32
add_stack (Tree *t, guint32 node, RspStackId stack, gboolean user_only, guint64 ns, gboolean run, guint16 cats)
{
  guint n, n_user;
  const char *const *names = rsp_stack_names_get (t->stacks, stack, &n, &n_user);
  if (user_only)
    n = n_user;
  for (guint k = 0; k < n; k++)
    {
      node = child (t, node, NODE_FRAME, names[k]);
      add_time (t, node, ns, run, !run, cats);
    }
  return node;
}

typedef struct {
  Tree *t;
  guint32 top;
  const RspSegment *seg;
  guint16 cats;
} SleepCtx;

static void
add_stretch (const RspStretch *st, SleepCtx *c)
{
  RspCategory cat = st->category;
  c->cats |= 1u << cat;
  if (c->top == G_MAXUINT32)
    return; /* first pass: only the categories */
  RspFlameBoxKind kind;
  const char *name = rsp_flame_stretch_box (c->t->a, c->seg, st, c->t->names, &kind);
  if (name == NULL)
    return;
  guint32 node = child (c->t, c->top, kind == RSP_FLAME_BOX_NETWORK ? NODE_NETWORK : NODE_DISK, name);
  add_time (c->t, node, st->end - st->start, FALSE, FALSE, 1u << cat);
}

static void
add_segment (Tree *t, RspIdx i, guint32 parent)
{
  const RspAnalysis *a = t->a;
  const RspModel *m = rsp_analysis_model (a);
  const RspSegment *s = rsp_analysis_segment (a, i);
  guint32 task = child (t, parent, NODE_TASK, rsp_model_task (m, s->task)->comm);
  if (s->kind == RSP_SEG_RUN)
    {
      const RspRun *run = rsp_model_run (m, s->item);
      RspCategory cat = run->n_samples > 0 ? RSP_CAT_CPU_SAMPLED : RSP_CAT_CPU_UNSAMPLED;
      add_time (t, task, s->end - s->start, FALSE, FALSE, 1u << cat);
      if (run->n_samples == 0)
        {
          add_stack (t, task, rsp_model_unsampled_stack (m, run), TRUE, s->end - s->start, TRUE, 1u << cat);
          return;
        }
      /* each sample's share of the run, as the accounting divided it */
      guint n_st;
      const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n_st);
      for (guint k = 0; k < n_st; k++)
        if (st[k].sample != RSP_NONE)
          add_stack (t, task, rsp_model_sample (m, st[k].sample)->stack, FALSE, st[k].end - st[k].start, TRUE,
                     1u << RSP_CAT_CPU_SAMPLED);
      return;
    }
  /* a sleep's frames span it all; what no child covers may end in a disk
   * or network box; the children stand on its top frame */
  SleepCtx c = { t, G_MAXUINT32, s, 0 };
  guint n_st;
  const RspStretch *st = rsp_analysis_segment_stretches (a, i, &n_st);
  for (guint k = 0; k < n_st; k++)
    add_stretch (&st[k], &c);
  add_time (t, task, s->end - s->start, FALSE, FALSE, c.cats);
  c.top = add_stack (t, task, rsp_model_sleep (m, s->item)->stack, FALSE, s->end - s->start, FALSE, c.cats);
  for (guint k = 0; k < n_st; k++)
    add_stretch (&st[k], &c);
  for (guint k = 0; k < s->n_children; k++)
    add_segment (t, s->first_child + k, c.top);
}

static gint
compare_kids (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Tree *t = data;
  const Node *a = node_at (t, *(const guint32 *) pa), *b = node_at (t, *(const guint32 *) pb);
  if (a->total != b->total)
    return a->total > b->total ? -1 : 1;
  gint c = strcmp (a->name, b->name);
  return c != 0 ? c : (gint) a->cls - (gint) b->cls;
}

/* Children lists, widest first, and every node's left edge. */
static void
sort_tree (Tree *t)
{
  guint n = t->nodes->len;
  t->kids = g_new0 (guint32, MAX (n, 1));
  for (guint i = 1; i < n; i++)
    node_at (t, node_at (t, i)->parent)->n_kids++;
  guint32 next = 0;
  for (guint i = 0; i < n; i++)
    {
      Node *node = node_at (t, i);
      node->first_kid = next;
      next += node->n_kids;
      node->n_kids = 0;
    }
  for (guint i = 1; i < n; i++)
    {
      Node *p = node_at (t, node_at (t, i)->parent);
      t->kids[p->first_kid + p->n_kids++] = i;
    }
  /* parents are made before their children: offsets in index order */
  for (guint i = 0; i < n; i++)
    {
      Node *node = node_at (t, i);
      g_qsort_with_data (t->kids + node->first_kid, node->n_kids, sizeof (guint32), compare_kids, t);
      guint64 x = node->offset;
      for (guint k = 0; k < node->n_kids; k++)
        {
          Node *kid = node_at (t, t->kids[node->first_kid + k]);
          kid->offset = x;
          x += kid->total;
        }
    }
}

static RspFlameBoxKind
node_kind (const Node *n)
{
  switch ((NodeClass) n->cls)
    {
    case NODE_TASK:
      return RSP_FLAME_BOX_TASK;
    case NODE_DISK:
      return RSP_FLAME_BOX_DISK;
    case NODE_NETWORK:
      return RSP_FLAME_BOX_NETWORK;
    case NODE_FRAME:
      break;
    }
  /* summed over a whole recording nearly every frame both ran and slept
   * somewhere (a sample taken just after a wake-up has the sleep's stack):
   * purple is for frames where both are a real part of their time */
  guint64 both = n->run_ns + n->sleep_ns;
  if (n->run_ns * BOTH_SHARE_DENOMINATOR < both)
    return RSP_FLAME_BOX_SLEEP;
  if (n->sleep_ns * BOTH_SHARE_DENOMINATOR < both)
    return RSP_FLAME_BOX_RUN;
  return RSP_FLAME_BOX_BOTH;
}

/* One row per depth; walking the tree depth-first with the children
 * widest first puts every row in start order. */
static void
lay_out (Tree *t, RspFlameLayout *l)
{
  guint depth = 0;
  for (guint i = 0; i < t->nodes->len; i++)
    depth = MAX (depth, node_at (t, i)->depth);
  if (depth == 0)
    return;
  GArray **rows = g_new (GArray *, depth);
  for (guint r = 0; r < depth; r++)
    rows[r] = g_array_new (FALSE, FALSE, sizeof (RspFlameBox));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint k = node_at (t, ROOT)->n_kids; k > 0; k--)
    g_array_append_val (stack, t->kids[node_at (t, ROOT)->first_kid + k - 1]);
  while (stack->len > 0)
    {
      guint32 i = g_array_index (stack, guint32, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      Node *n = node_at (t, i);
      guint row = n->depth - 1;
      const Node *p = node_at (t, n->parent);
      RspFlameBox box = { n->offset, n->offset + n->total, n->name, p->box, i, 0, n->cats, node_kind (n), 0,
                          rsp_flame_name_shade (n->name) };
      /* for now the local index in its row; made global below */
      n->box = rows[row]->len;
      if (n->total > 0)
        g_array_append_val (rows[row], box);
      else
        n->box = RSP_FLAME_NO_BOX;
      for (guint k = n->n_kids; k > 0; k--)
        g_array_append_val (stack, t->kids[n->first_kid + k - 1]);
    }
  for (guint r = 0; r < depth; r++)
    {
      guint32 first = l->boxes->len;
      rsp_flame_layout_add_row (l, r * l->row_height, (const RspFlameBox *) rows[r]->data, rows[r]->len);
      for (guint k = 0; k < rows[r]->len; k++)
        node_at (t, g_array_index (rows[r], RspFlameBox, k).ref)->box = first + k;
      g_array_unref (rows[r]);
    }
  g_free (rows);
}

/* The merged tree, top-down, without a layout: children unsorted; the
 * control paths of N analyses of one model merged into one tree. */
static Tree *
tree_build (const RspAnalysis *const *analyses, guint n_analyses, gboolean full_stacks)
{
  Tree *t = g_new0 (Tree, 1);
  t->names = g_string_chunk_new (256);
  t->a = analyses[0];
  t->full_stacks = full_stacks;
  t->stacks = rsp_stack_names_new (rsp_analysis_model (analyses[0]), full_stacks);
  t->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  t->index = g_hash_table_new_full (node_key_hash, node_key_equal, g_free, NULL);
  t->crumb_widths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Node root = { 0 };
  root.name = _("All");
  root.box = RSP_FLAME_NO_BOX;
  g_array_append_val (t->nodes, root);
  for (guint j = 0; j < n_analyses; j++)
    {
      const RspAnalysis *analysis = analyses[j];
      t->a = analysis; /* add_segment reads the analysis it adds */
      for (guint p = 0; p < rsp_analysis_n_paths (analysis); p++)
        {
          const RspControlPath *path = rsp_analysis_path (analysis, p);
          for (guint k = 0; k < path->n_roots; k++)
            {
              add_segment (t, path->first_root + k, ROOT);
              const RspSegment *s = rsp_analysis_segment (analysis, path->first_root + k);
              node_at (t, ROOT)->total += s->end - s->start;
            }
        }
    }
  t->a = analyses[0];
  return t;
}

/* What a node spent itself, not in its children: its time, and (unless
 * RUN and SLEEP are NULL) of its running and sleeping time what the frames
 * above it in the same stacks do not have (a child task's frames carry
 * their own). */
static void
self_times (const Tree *t, guint64 *total, guint64 *run, guint64 *sleep)
{
  guint n = t->nodes->len;
  for (guint i = 0; i < n; i++)
    total[i] = node_at (t, i)->total;
  for (guint i = 0; run != NULL && i < n; i++)
    {
      run[i] = node_at (t, i)->run_ns;
      sleep[i] = node_at (t, i)->sleep_ns;
    }
  for (guint i = 1; i < n; i++)
    {
      const Node *c = node_at (t, i);
      total[c->parent] -= MIN (total[c->parent], c->total);
      if (run != NULL && c->cls == NODE_FRAME && node_at (t, c->parent)->cls == NODE_FRAME)
        {
          run[c->parent] -= MIN (run[c->parent], c->run_ns);
          sleep[c->parent] -= MIN (sleep[c->parent], c->sleep_ns);
        }
    }
}

/* Bottom-up: every node's own time stands on a root of its own name, its
 * callers above it down to the task, as Sysprof's "Invert" and
 * speedscope's sandwich read them.  The root's total is unchanged. */
static void
invert (Tree *t)
{
  GArray *old = t->nodes;
  guint n = old->len;
  guint64 *self = g_new (guint64, 3 * (gsize) n);
  self_times (t, self, self + n, self + 2 * (gsize) n);
  t->nodes = g_array_new (FALSE, TRUE, sizeof (Node));
  g_array_append_val (t->nodes, g_array_index (old, Node, ROOT));
  g_hash_table_remove_all (t->index);
  for (guint i = 1; i < n; i++)
    {
      if (self[i] == 0)
        continue;
      guint16 cats = g_array_index (old, Node, i).cats;
      guint32 node = ROOT;
      for (guint32 j = i; j != ROOT; j = g_array_index (old, Node, j).parent)
        {
          const Node *o = &g_array_index (old, Node, j);
          node = child (t, node, o->cls, o->name);
          Node *x = node_at (t, node);
          x->total += self[i];
          x->run_ns += self[n + i];
          x->sleep_ns += self[2 * (gsize) n + i];
          x->cats |= cats;
        }
    }
  g_free (self);
  g_array_unref (old);
}

static RspFlameLayout *
layout_of (const RspAnalysis *const *analyses, guint n, const RspConsolidatedOptions *options, const RspTheme *theme)
{
  RspFlameLayout *l = rsp_flame_layout_new (theme);
  Tree *t = tree_build (analyses, n, options->full_stacks);
  t->inverted = !!options->inverted;
  t->row_height = l->row_height;
  l->view_data = t;
  l->view_data_free = tree_free;
  if (t->inverted)
    invert (t);
  g_clear_pointer (&t->index, g_hash_table_unref);
  sort_tree (t);
  lay_out (t, l);
  return l;
}

RspFlameLayout *
rsp_consolidated_view_layout (const RspAnalysis *analysis, const RspConsolidatedOptions *options,
                              const RspTheme *theme)
{
  g_return_val_if_fail (analysis != NULL && options != NULL && theme != NULL, NULL);
  return layout_of (&analysis, 1, options, theme);
}

RspFlameLayout *
rsp_consolidated_view_layout_group (const RspAnalysis *const *analyses, guint n,
                                    const RspConsolidatedOptions *options, const RspTheme *theme)
{
  g_return_val_if_fail (analyses != NULL && n > 0 && options != NULL && theme != NULL, NULL);
  return layout_of (analyses, n, options, theme);
}

/* ------------------------------------------------------------------ callers and callees */

static void
add_call (GHashTable *totals, const char *name, guint64 ns)
{
  guint64 *v = g_hash_table_lookup (totals, name);
  if (v == NULL)
    {
      v = g_new0 (guint64, 1);
      g_hash_table_insert (totals, (gpointer) name, v);
    }
  *v += ns;
}

static gint
compare_calls (gconstpointer pa, gconstpointer pb)
{
  const RspCallTotal *a = pa, *b = pb;
  if (a->ns != b->ns)
    return a->ns > b->ns ? -1 : 1;
  return strcmp (a->name, b->name);
}

static GArray *
sorted_calls (GHashTable *totals)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RspCallTotal));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, totals);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      RspCallTotal c = { g_strdup (k), *(guint64 *) v };
      g_array_append_val (out, c);
    }
  g_array_sort (out, compare_calls);
  return out;
}

static void
call_total_clear (gpointer p)
{
  g_free (((RspCallTotal *) p)->name);
}

struct _RspCallGraph {
  Tree *tree;     /* top-down */
  guint64 *self;  /* each node's own time */
};

RspCallGraph *
rsp_call_graph_new (const RspAnalysis *analysis, gboolean full_stacks)
{
  g_return_val_if_fail (analysis != NULL, NULL);
  RspCallGraph *g = g_new0 (RspCallGraph, 1);
  g->tree = tree_build (&analysis, 1, full_stacks);
  g->self = g_new (guint64, MAX (g->tree->nodes->len, 1));
  self_times (g->tree, g->self, NULL, NULL);
  return g;
}

void
rsp_call_graph_free (RspCallGraph *g)
{
  if (g == NULL)
    return;
  tree_free (g->tree);
  g_free (g->self);
  g_free (g);
}

RspCallers *
rsp_call_graph_callers (const RspCallGraph *g, const char *name)
{
  g_return_val_if_fail (g != NULL && name != NULL, NULL);
  const Tree *t = g->tree;
  const guint64 *self = g->self;
  guint n = t->nodes->len;
  g_autoptr (GHashTable) callers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) callees = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  RspCallers *c = g_new0 (RspCallers, 1);
  c->name = g_strdup (name);
  c->all_ns = node_at (t, ROOT)->total;
  /* parents come before their children: one pass finds, for each node,
   * whether NAME is below it on its path (recursion counts once) */
  g_autofree guint8 *under = g_new0 (guint8, n);
  for (guint i = 1; i < n; i++)
    {
      const Node *x = node_at (t, i);
      gboolean is = strcmp (x->name, name) == 0;
      under[i] = under[x->parent] || is;
      if (!is)
        continue;
      c->self_ns += self[i];
      if (!under[x->parent])
        {
          c->total_ns += x->total;
          if (x->parent != ROOT)
            add_call (callers, node_at (t, x->parent)->name, x->total);
        }
    }
  /* callees: every child of an occurrence, outside the recursion's repeats */
  for (guint i = 1; i < n; i++)
    {
      const Node *x = node_at (t, i);
      const Node *p = node_at (t, x->parent);
      if (x->parent != ROOT && strcmp (p->name, name) == 0 && !under[p->parent])
        add_call (callees, x->name, x->total);
    }
  c->callers = sorted_calls (callers);
  c->callees = sorted_calls (callees);
  g_array_set_clear_func (c->callers, call_total_clear);
  g_array_set_clear_func (c->callees, call_total_clear);
  return c;
}

void
rsp_callers_free (RspCallers *c)
{
  if (c == NULL)
    return;
  g_free (c->name);
  g_array_unref (c->callers);
  g_array_unref (c->callees);
  g_free (c);
}

gboolean
rsp_consolidated_view_layout_fits (const RspFlameLayout *l, const RspAnalysis *analysis,
                                   const RspConsolidatedOptions *options, const RspTheme *theme)
{
  if (l == NULL || l->view_data_free != tree_free)
    return FALSE;
  const Tree *t = l->view_data;
  return t->a == analysis && t->full_stacks == options->full_stacks && t->inverted == !!options->inverted
         && l->scale == theme->scale
         && l->row_height == theme->row_height;
}

/* ------------------------------------------------------------------ zoom */

guint32
rsp_consolidated_view_find (const RspFlameLayout *l, const char *const *zoom_path)
{
  const Tree *t = l->view_data;
  guint32 node = ROOT;
  for (guint d = 0; zoom_path != NULL && zoom_path[d] != NULL; d++)
    {
      const Node *n = node_at (t, node);
      guint32 next = G_MAXUINT32;
      for (guint k = 0; k < n->n_kids && next == G_MAXUINT32; k++)
        if (strcmp (node_at (t, t->kids[n->first_kid + k])->name, zoom_path[d]) == 0)
          next = t->kids[n->first_kid + k];
      if (next == G_MAXUINT32 || node_at (t, next)->total == 0)
        break;
      node = next;
    }
  return node;
}

char **
rsp_consolidated_view_node_path (const RspFlameLayout *l, guint32 node)
{
  const Tree *t = l->view_data;
  g_return_val_if_fail (node < t->nodes->len, NULL);
  guint depth = node_at (t, node)->depth;
  char **path = g_new0 (char *, depth + 1);
  for (guint32 i = node; i != ROOT; i = node_at (t, i)->parent)
    path[node_at (t, i)->depth - 1] = g_strdup (node_at (t, i)->name);
  return path;
}

guint64
rsp_consolidated_view_node_ns (const RspFlameLayout *l, guint32 node)
{
  const Tree *t = l->view_data;
  g_return_val_if_fail (node < t->nodes->len, 0);
  return node_at (t, node)->total;
}

guint64
rsp_consolidated_view_total_ns (const RspFlameLayout *l)
{
  return node_at (l->view_data, ROOT)->total;
}

guint32
rsp_consolidated_view_n_nodes (const RspFlameLayout *l)
{
  const Tree *t = l->view_data;
  return t->nodes->len;
}

guint32
rsp_consolidated_view_node_parent (const RspFlameLayout *l, guint32 node)
{
  const Tree *t = l->view_data;
  g_return_val_if_fail (node < t->nodes->len, G_MAXUINT32);
  return node == ROOT ? G_MAXUINT32 : node_at (t, node)->parent;
}

static double
crumb_height (const RspFlameLayout *l)
{
  return l->row_height + 8;
}

void
rsp_consolidated_view_viewport (const RspFlameLayout *l, const RspConsolidatedOptions *o, double width, double height,
                                RspFlameViewport *vp)
{
  const Tree *t = l->view_data;
  const Node *zoom = node_at (t, rsp_consolidated_view_find (l, o->zoom_path));
  memset (vp, 0, sizeof *vp);
  vp->t0 = zoom->offset;
  vp->ns_per_px = MAX (zoom->total, 1) / MAX (width, 1.0);
  vp->left = 0;
  vp->width = width;
  vp->top = crumb_height (l);
  vp->bottom = MAX (height, vp->top);
  /* the zoomed node stands at the bottom: the rows under it are its
   * ancestors, named in the breadcrumb instead */
  vp->scroll_y = o->scroll_y + (zoom->depth > 0 ? (zoom->depth - 1) * l->row_height : 0);
  vp->search = o->search;
  vp->highlight_category = o->highlight_category;
}

double
rsp_consolidated_view_content_height (const RspFlameLayout *l)
{
  return l->content_height + crumb_height (l);
}

/* ------------------------------------------------------------------ breadcrumb */

typedef struct {
  guint32 node;
  double x, width;
} Crumb;

static double
crumb_text_width (const RspFlameLayout *l, const char *text)
{
  Tree *t = l->view_data;
  gpointer cached = g_hash_table_lookup (t->crumb_widths, text);
  if (cached != NULL)
    return (GPOINTER_TO_UINT (cached) - 1) / 64.0;
  double w = rsp_flame_layout_text_width (l, text);
  g_hash_table_insert (t->crumb_widths, g_strdup (text), GUINT_TO_POINTER ((guint) (w * 64) + 1));
  return w;
}

static char *
zoom_summary (const Tree *t, guint32 zoom)
{
  const Node *z = node_at (t, zoom), *root = node_at (t, ROOT);
  g_autofree char *ns = rsp_format_duration (z->total);
  g_autofree char *all = rsp_format_duration (root->total);
  if (zoom == ROOT)
    return g_strdup_printf (_("%s total time"), all);
  return g_strdup_printf (_("%s, %.1f%% of %s"), ns, root->total > 0 ? 100.0 * z->total / root->total : 0.0, all);
}

/* The breadcrumb's elements that fit in front of the summary: "All", then
 * the path to ZOOM, its start elided when too long.  *ELIDED_X is where the
 * "…" goes, or < 0. */
static GArray *
crumbs (const RspFlameLayout *l, guint32 zoom, double width, double *summary_x, double *elided_x)
{
  const Tree *t = l->view_data;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Crumb));
  g_autofree char *summary = zoom_summary (t, zoom);
  double sep = crumb_text_width (l, CRUMB_SEP);
  double ell = crumb_text_width (l, "…");
  double avail = width - 16 - crumb_text_width (l, summary) - 24;
  *summary_x = width - 8 - crumb_text_width (l, summary);
  *elided_x = -1;
  guint depth = node_at (t, zoom)->depth;
  g_autofree guint32 *chain = g_new (guint32, depth + 1);
  for (guint32 i = zoom, d = depth;; i = node_at (t, i)->parent, d--)
    {
      chain[d] = i;
      if (i == ROOT)
        break;
    }
  /* keep "All" and as many of the innermost as fit */
  double used = crumb_text_width (l, _("All"));
  guint first = 1;
  for (guint d = depth; d >= 1; d--)
    {
      double w = sep + crumb_text_width (l, node_at (t, chain[d])->name);
      double extra = d > 1 ? sep + ell : 0;
      if (used + w + extra > avail && d < depth)
        {
          first = d + 1;
          break;
        }
      used += w;
    }
  double x = 8;
  Crumb c = { ROOT, x, crumb_text_width (l, _("All")) };
  g_array_append_val (out, c);
  x += c.width;
  if (first > 1)
    {
      *elided_x = x + sep;
      x += sep + ell;
    }
  for (guint d = first; d <= depth; d++)
    {
      x += sep;
      Crumb k = { chain[d], x, crumb_text_width (l, node_at (t, chain[d])->name) };
      k.width = MIN (k.width, MAX (avail - (x - 8), 0));
      g_array_append_val (out, k);
      x += k.width;
    }
  return out;
}

static void
draw_breadcrumb (RspFlameLayout *l, const RspTheme *theme, cairo_t *cr, guint32 zoom, double width)
{
  const Tree *t = l->view_data;
  double h = crumb_height (l), s = l->scale;
  rsp_flame_set_color (cr, theme->grid, 1.0);
  cairo_rectangle (cr, 0, h - 1.0 / s, width, 1.0 / s);
  cairo_fill (cr);
  double summary_x, elided_x;
  g_autoptr (GArray) items = crumbs (l, zoom, width, &summary_x, &elided_x);
  double y = 4;
  for (guint k = 0; k < items->len; k++)
    {
      const Crumb *c = &g_array_index (items, Crumb, k);
      if (k > 0)
        {
          rsp_flame_set_color (cr, theme->muted, 1.0);
          rsp_flame_layout_text (l, cr, CRUMB_SEP, c->x - crumb_text_width (l, CRUMB_SEP), y, -1,
                                 PANGO_ELLIPSIZE_NONE);
        }
      /* the zoomed node in the text colour, the way back muted like links */
      rsp_flame_set_color (cr, k + 1 == items->len ? theme->foreground : theme->sleep, 1.0);
      rsp_flame_layout_text (l, cr, node_at (t, c->node)->name, c->x, y, c->width + 0.5, PANGO_ELLIPSIZE_END);
    }
  if (elided_x >= 0)
    {
      rsp_flame_set_color (cr, theme->muted, 1.0);
      rsp_flame_layout_text (l, cr, "…", elided_x, y, -1, PANGO_ELLIPSIZE_NONE);
    }
  g_autofree char *summary = zoom_summary (t, zoom);
  rsp_flame_set_color (cr, theme->muted, 1.0);
  rsp_flame_layout_text (l, cr, summary, summary_x, y, -1, PANGO_ELLIPSIZE_NONE);
}

/* The view from its layout; DELTA (per box, or NULL) makes it a
 * differential flame (rsp_consolidated_view_diff). */
static void
draw_layout (RspFlameLayout *l, const RspConsolidatedOptions *options, const RspTheme *theme, cairo_t *cr,
             double width, double height, const float *delta)
{
  RspFlameViewport vp;
  rsp_consolidated_view_viewport (l, options, width, height, &vp);
  if (delta != NULL && rsp_flame_layout_n_rows (l) > 0)
    {
      vp.box_delta = delta;
      vp.box_base = rsp_flame_layout_box (l, 0);
    }
  cairo_save (cr);
  rsp_flame_set_color (cr, theme->background, 1.0);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  rsp_flame_layout_draw (l, &vp, theme, cr);
  draw_breadcrumb (l, theme, cr, rsp_consolidated_view_find (l, options->zoom_path), width);
  cairo_restore (cr);
}

void
rsp_consolidated_view_draw_layout (RspFlameLayout *l, const RspConsolidatedOptions *options, const RspTheme *theme,
                                   cairo_t *cr, double width, double height)
{
  g_return_if_fail (l != NULL && options != NULL && theme != NULL && cr != NULL);
  draw_layout (l, options, theme, cr, width, height, NULL);
}

void
rsp_consolidated_view_draw (const RspAnalysis *analysis, const RspConsolidatedOptions *options,
                            const RspTheme *theme, cairo_t *cr, double width, double height)
{
  g_return_if_fail (analysis != NULL && options != NULL && theme != NULL && cr != NULL);
  g_autoptr (RspFlameLayout) l = rsp_consolidated_view_layout (analysis, options, theme);
  rsp_consolidated_view_draw_layout (l, options, theme, cr, width, height);
}

/* A node's path from the root as one key ("" for the root). */
static char *
node_key (const RspFlameLayout *l, guint32 node)
{
  g_auto (GStrv) path = rsp_consolidated_view_node_path (l, node);
  return path != NULL ? g_strjoinv ("\x1f", path) : g_strdup ("");
}

float *
rsp_consolidated_view_diff (const RspFlameLayout *la, const RspFlameLayout *lb)
{
  return rsp_consolidated_view_diff_scaled (la, 1.0, lb, 1.0);
}

float *
rsp_consolidated_view_diff_scaled (const RspFlameLayout *la, double scale_a, const RspFlameLayout *lb,
                                   double scale_b)
{
  g_autoptr (GHashTable) a_ns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint32 node = 0; node < rsp_consolidated_view_n_nodes (la); node++)
    {
      guint64 *ns = g_new (guint64, 1);
      *ns = rsp_consolidated_view_node_ns (la, node);
      g_hash_table_insert (a_ns, node_key (la, node), ns);
    }
  guint n_boxes = 0;
  for (guint row = 0; row < rsp_flame_layout_n_rows (lb); row++)
    {
      guint n;
      rsp_flame_layout_row (lb, row, &n);
      n_boxes += n;
    }
  float *delta = g_new0 (float, MAX (n_boxes, 1));
  g_autofree double *raw = g_new0 (double, MAX (n_boxes, 1));
  g_autoptr (GHashTable) per_node = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  double largest = 0;
  for (guint32 i = 0; i < n_boxes; i++)
    {
      const RspFlameBox *box = rsp_flame_layout_box (lb, i);
      double *known = g_hash_table_lookup (per_node, GUINT_TO_POINTER (box->ref));
      if (known == NULL)
        {
          g_autofree char *key = node_key (lb, box->ref);
          const guint64 *before = g_hash_table_lookup (a_ns, key);
          known = g_new (double, 1);
          *known = scale_b * (double) rsp_consolidated_view_node_ns (lb, box->ref)
                   - scale_a * (double) (before != NULL ? *before : 0);
          g_hash_table_insert (per_node, GUINT_TO_POINTER (box->ref), known);
        }
      raw[i] = *known;
      largest = MAX (largest, fabs (*known));
    }
  for (guint32 i = 0; i < n_boxes; i++)
    delta[i] = largest > 0 ? (float) (raw[i] / largest) : 0.0f;
  return delta;
}

void
rsp_consolidated_view_draw_diff (const RspAnalysis *a, const RspAnalysis *b, const RspConsolidatedOptions *options,
                                 const RspTheme *theme, cairo_t *cr, double width, double height)
{
  g_return_if_fail (a != NULL && b != NULL && options != NULL && theme != NULL && cr != NULL);
  g_autoptr (RspFlameLayout) la = rsp_consolidated_view_layout (a, options, theme);
  g_autoptr (RspFlameLayout) lb = rsp_consolidated_view_layout (b, options, theme);
  g_autofree float *delta = rsp_consolidated_view_diff (la, lb);
  draw_layout (lb, options, theme, cr, width, height, delta);
}

void
rsp_consolidated_view_draw_layout_delta (RspFlameLayout *layout, const float *delta,
                                         const RspConsolidatedOptions *options, const RspTheme *theme, cairo_t *cr,
                                         double width, double height)
{
  g_return_if_fail (layout != NULL && options != NULL && theme != NULL && cr != NULL);
  draw_layout (layout, options, theme, cr, width, height, delta);
}

gboolean
rsp_consolidated_view_hit_test (const RspFlameLayout *l, const RspConsolidatedOptions *options, double width,
                                double height, double x, double y, RspFlameHit *hit)
{
  g_return_val_if_fail (l != NULL && options != NULL && hit != NULL, FALSE);
  const Tree *t = l->view_data;
  RspFlameViewport vp;
  rsp_consolidated_view_viewport (l, options, width, height, &vp);
  rsp_flame_hit_init (hit);
  guint64 all = node_at (t, ROOT)->total;
  if (y >= 0 && y < vp.top)
    {
      double summary_x, elided_x;
      g_autoptr (GArray) items = crumbs (l, rsp_consolidated_view_find (l, options->zoom_path), width, &summary_x,
                                         &elided_x);
      for (guint k = 0; k < items->len; k++)
        {
          const Crumb *c = &g_array_index (items, Crumb, k);
          if (x >= c->x && x < c->x + c->width)
            {
              const Node *n = node_at (t, c->node);
              hit->what = RSP_FLAME_HIT_BREADCRUMB;
              hit->node = c->node;
              hit->name = n->name;
              hit->depth = n->depth;
              hit->ns = n->total;
              hit->percent = all > 0 ? 100.0 * n->total / all : 0;
              hit->x = c->x;
              hit->y = 0;
              hit->width = c->width;
              hit->height = vp.top;
              return TRUE;
            }
        }
      return FALSE;
    }
  if (!rsp_flame_layout_hit (l, &vp, x, y, hit))
    return FALSE;
  const RspFlameBox *box = rsp_flame_layout_box (l, hit->box);
  const Node *n = node_at (t, box->ref);
  hit->node = box->ref;
  hit->depth = n->depth - 1;
  hit->ns = n->total;
  hit->percent = all > 0 ? 100.0 * n->total / all : 0;
  /* the consolidated axis is not time */
  hit->start = hit->end = 0;
  return TRUE;
}
