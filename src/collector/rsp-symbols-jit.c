/* rsp-symbols-jit.c — names of JIT-compiled code: perf's map files.
 *
 * A JIT (node --perf-basic-prof, the JVM with perf-map-agent, LuaJIT,
 * CPython 3.12's -X perf, .NET with DOTNET_PerfMapEnabled) writes
 * /tmp/perf-PID.map, one line per piece of code it emits:
 *
 *   START SIZE NAME          hex, with or without 0x; NAME to the end of the line
 *
 * at addresses in anonymous memory, which no binary names.  perf script
 * reads the file of the process when it reports; so does rsp for a plain
 * perf.data.  rsp record reads it when the recording ends and stores the
 * symbols the samples used in the recording ("P" lines of the stored
 * table, rsp-symbols-stored.c), so a recording names its JIT frames on any
 * machine, after the process and its file are gone; a recording with a
 * stored table never reads /tmp.
 *
 * /tmp is everyone's: like perf, a map file is read only when it is a
 * regular file (not a link) owned by root, by the user rsp runs as, or by
 * the user rsp record ran the command as.  Where entries overlap (code
 * freed and emitted again), the later line of the file wins, as the JIT's
 * latest word on that address.
 *
 * perf's jitdump (tools/perf/Documentation/jitdump-specification.txt): a
 * JIT (node --perf-prof, the JVM's agent, ...) writes jit-PID.dump and maps
 * it executable once, so that the recording has an mmap of it; perf inject
 * --jit turns it into ELF files.  rsp reads its JIT_CODE_LOAD records
 * (address, size, name) directly, under the same rules, after the map
 * file's lines.
 */
#include "rsp-symbols-private.h"
#include "rsp-disk-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JIT_MAP_MAX_BYTES (512u << 20)

struct _JitMap {
  gint32 pid;
  const char *path; /* "/tmp/perf-PID.map", interned: the frames' dso, as perf script names it */
  RspSym *syms;     /* sorted by start, not overlapping */
  guint n;
};

void
symbolizer_jit_map_free (gpointer p)
{
  JitMap *m = p;
  if (m == NULL)
    return;
  g_free (m->syms);
  g_free (m);
}

typedef struct {
  RspSym sym;
  guint line; /* later lines win */
} Entry;

static gint
compare_entries (gconstpointer pa, gconstpointer pb)
{
  const Entry *a = pa, *b = pb;
  if (a->sym.start != b->sym.start)
    return a->sym.start < b->sym.start ? -1 : 1;
  return a->line < b->line ? -1 : a->line > b->line;
}

static gboolean
parse_hex_field (const char **p, const char *end, guint64 *value)
{
  const char *s = *p;
  if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  const char *e = s;
  while (e < end && g_ascii_isxdigit (*e))
    e++;
  if (e == s || e - s > 16 || (e < end && *e != ' ' && *e != '\t'))
    return FALSE;
  if (!symbolizer_parse_hex (s, e - s, value))
    return FALSE;
  while (e < end && (*e == ' ' || *e == '\t'))
    e++;
  *p = e;
  return TRUE;
}

/* Sorted, without overlaps.  Where two entries overlap, the one from the
 * later line wins: an earlier one is cut where the later one starts (and
 * loses what lies beyond it), an earlier one that a later one at a lower
 * or equal start covers is dropped. */
static void
jit_map_set (JitMap *map, GArray *entries)
{
  g_array_sort (entries, compare_entries);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (RspSym), entries->len);
  g_autoptr (GArray) lines = g_array_sized_new (FALSE, FALSE, sizeof (guint), entries->len);
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);
      if (out->len > 0)
        {
          RspSym *prev = &g_array_index (out, RspSym, out->len - 1);
          guint prev_line = g_array_index (lines, guint, lines->len - 1);
          if (prev->start + prev->size > e->sym.start)
            {
              if (prev_line > e->line)
                continue; /* the later entry keeps its addresses */
              prev->size = e->sym.start - prev->start;
              if (prev->size == 0)
                {
                  g_array_set_size (out, out->len - 1);
                  g_array_set_size (lines, lines->len - 1);
                }
            }
        }
      g_array_append_val (out, e->sym);
      g_array_append_val (lines, e->line);
    }
  map->n = out->len;
  map->syms = (RspSym *) g_array_free (out, FALSE);
}

/* Parses the text of a map file into MAP; malformed lines are skipped, as
 * perf does. */
static void
jit_map_entries (RspSymbolizer *self, const char *text, gsize len, GArray *entries, guint *line)
{
  const char *p = text, *end = text + len;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *eol = nl != NULL ? nl : end;
      const char *q = p;
      guint64 start, size;
      ++*line;
      if (parse_hex_field (&q, eol, &start) && parse_hex_field (&q, eol, &size) && size > 0 && q < eol
          && start + size > start)
        {
          const char *name_end = eol;
          while (name_end > q && (name_end[-1] == '\r' || name_end[-1] == ' '))
            name_end--;
          if (name_end > q)
            {
              Entry e = { { start, size, NULL, NULL }, *line };
              e.sym.name = symbolizer_intern_len (self, q, name_end - q);
              e.sym.raw = e.sym.name;
              g_array_append_val (entries, e);
            }
        }
      p = nl != NULL ? nl + 1 : end;
    }
}

/* The map file of PID on this machine, read under the rules above; NULL
 * if there is none or it may not be trusted. */
static char *
read_map_file (RspSymbolizer *self, const char *path, gsize *len)
{
  struct stat st;
  int fd = rsp_open_regular (path, &st);
  if (fd < 0)
    return NULL;
  char *data = NULL;
  if ((guint64) st.st_size <= JIT_MAP_MAX_BYTES
      && (st.st_uid == 0 || st.st_uid == geteuid () || (self->jit_trusted_uid != (guint32) -1
                                                         && st.st_uid == self->jit_trusted_uid)))
    data = rsp_read_fd (fd, (gsize) st.st_size, len);
  close (fd);
  return data;
}

/* The jitdump header: magic "JiTD" (0x4A695444, written in the JIT's byte
 * order), version, its own size, ...; then records of a u32 id and a u32
 * total size.  JIT_CODE_LOAD (id 0): timestamp u64, pid u32, tid u32, vma
 * u64, code_addr u64, code_size u64, code_index u64, the name
 * (NUL-terminated), the code. */
#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_CODE_LOAD 0
#define JITDUMP_LOAD_FIXED 56 /* the header and the fields before the name */

static guint32
read_u32_order (const guint8 *p, gboolean swap)
{
  guint32 v;
  memcpy (&v, p, 4);
  return swap ? GUINT32_SWAP_LE_BE (v) : v;
}

static guint64
read_u64_order (const guint8 *p, gboolean swap)
{
  guint64 v;
  memcpy (&v, p, 8);
  return swap ? GUINT64_SWAP_LE_BE (v) : v;
}

/* Appends the code loads of the jitdump DATA to ENTRIES, numbered after
 * *LINE; stops at the first record that does not fit. */
static void
jitdump_parse (RspSymbolizer *self, const guint8 *data, gsize len, GArray *entries, guint *line)
{
  if (len < 12)
    return;
  guint32 magic;
  memcpy (&magic, data, 4);
  gboolean swap = magic == GUINT32_SWAP_LE_BE (JITDUMP_MAGIC);
  if (magic != JITDUMP_MAGIC && !swap)
    return;
  guint32 header_size = read_u32_order (data + 8, swap);
  if (header_size < 12 || header_size > len)
    return;
  gsize pos = header_size;
  while (pos + 8 <= len)
    {
      guint32 id = read_u32_order (data + pos, swap);
      guint32 size = read_u32_order (data + pos + 4, swap);
      if (size < 8 || size > len - pos)
        break;
      if (id == JITDUMP_CODE_LOAD && size > JITDUMP_LOAD_FIXED)
        {
          const guint8 *r = data + pos;
          guint64 code_addr = read_u64_order (r + 32, swap);
          guint64 code_size = read_u64_order (r + 40, swap);
          const char *name = (const char *) r + JITDUMP_LOAD_FIXED;
          const char *nul = memchr (name, '\0', size - JITDUMP_LOAD_FIXED);
          if (nul != NULL && nul > name && code_size > 0 && code_addr + code_size > code_addr)
            {
              Entry e = { { code_addr, code_size, NULL, NULL }, ++*line };
              e.sym.name = symbolizer_intern_len (self, name, nul - name);
              e.sym.raw = e.sym.name;
              g_array_append_val (entries, e);
            }
        }
      pos += size;
    }
}

void
symbolizer_jit_note_mmap (RspSymbolizer *self, gint32 pid, const char *filename)
{
  /* a recording's stored symbols are all there is: nothing to read again */
  if (pid <= 0 || filename == NULL || self->has_stored)
    return;
  const char *base = strrchr (filename, '/');
  base = base != NULL ? base + 1 : filename;
  /* "jit-PID.dump", asked of every mapping: read, not printed (PID > 0
   * is written without a sign or a leading zero) */
  if (strncmp (base, "jit-", 4) != 0 || base[4] < '1' || base[4] > '9')
    return;
  char *end = NULL;
  if (g_ascii_strtoull (base + 4, &end, 10) != (guint64) pid || strcmp (end, ".dump") != 0
      || g_hash_table_contains (self->jitdumps, GINT_TO_POINTER (pid)))
    return;
  g_hash_table_insert (self->jitdumps, GINT_TO_POINTER (pid), (gpointer) filename);
  /* JIT code ran before the dump was mapped (its map looked up then, and
   * found without the dump): looked up again, with it.  The old map stays
   * alive, the symbols used may point into it. */
  gpointer old;
  if (g_hash_table_steal_extended (self->jit_maps, GINT_TO_POINTER (pid), NULL, &old) && old != NULL)
    g_ptr_array_add (self->jit_retired, old);
  self->jit_last_pid = 0;
}

/* jit_map_for() of a PID not looked up before: read, and kept in jit_maps
 * (NULL too). */
static const JitMap *
jit_map_load (RspSymbolizer *self, gint32 pid)
{
  JitMap *map = NULL;
  if (!self->has_stored && !self->offline && pid > 0)
    {
      g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", pid);
      gsize len = 0;
      g_autofree char *text = read_map_file (self, path, &len);
      const char *dump_path = g_hash_table_lookup (self->jitdumps, GINT_TO_POINTER (pid));
      gsize dump_len = 0;
      g_autofree char *dump = dump_path != NULL ? read_map_file (self, dump_path, &dump_len) : NULL;
      if (text != NULL || dump != NULL)
        {
          map = g_new0 (JitMap, 1);
          map->pid = pid;
          map->path = symbolizer_intern (self, text != NULL ? path : dump_path);
          g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
          guint line = 0;
          if (text != NULL)
            jit_map_entries (self, text, len, entries, &line);
          if (dump != NULL)
            jitdump_parse (self, (const guint8 *) dump, dump_len, entries, &line);
          jit_map_set (map, entries);
        }
    }
  g_hash_table_insert (self->jit_maps, GINT_TO_POINTER (pid), map);
  return map;
}

/* The JIT symbols of PID: stored in the recording, else (without a stored
 * table, and not offline) its map file and its jitdump on this machine;
 * NULL if none. */
static const JitMap *
jit_map_for (RspSymbolizer *self, gint32 pid)
{
  if (pid > 0 && pid == self->jit_last_pid)
    return self->jit_last;
  gpointer found;
  const JitMap *map = g_hash_table_lookup_extended (self->jit_maps, GINT_TO_POINTER (pid), NULL, &found)
                          ? found
                          : jit_map_load (self, pid);
  self->jit_last_pid = pid;
  self->jit_last = map;
  return map;
}

gboolean
symbolizer_jit_resolve (RspSymbolizer *self, gint32 pid, guint64 ip, RspFrame *frame)
{
  const JitMap *map = jit_map_for (self, pid);
  if (map == NULL || map->n == 0)
    return FALSE;
  const RspSym *sym = rsp_sym_table_lookup (map->syms, map->n, ip);
  if (sym == NULL || ip - sym->start >= sym->size)
    return FALSE;
  frame->symbol = sym->name;
  frame->offset = ip - sym->start;
  frame->dso = map->path;
  if (self->track_used)
    g_hash_table_insert (self->used_jit, (gpointer) sym, (gpointer) map);
  return TRUE;
}

/* ------------------------------------------------------------------ stored */

static gint
compare_used (gconstpointer pa, gconstpointer pb)
{
  const RspSym *a = *(const RspSym *const *) pa, *b = *(const RspSym *const *) pb;
  return a->start < b->start ? -1 : a->start > b->start;
}

static gint
compare_maps (gconstpointer pa, gconstpointer pb)
{
  const JitMap *a = *(const JitMap *const *) pa, *b = *(const JitMap *const *) pb;
  return a->pid - b->pid;
}

void
symbolizer_jit_export_used (RspSymbolizer *self, GString *out)
{
  g_autoptr (GHashTable) by_map = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, self->used_jit);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GPtrArray *list = g_hash_table_lookup (by_map, value);
      if (list == NULL)
        g_hash_table_insert (by_map, value, list = g_ptr_array_new ());
      g_ptr_array_add (list, key);
    }
  g_autoptr (GPtrArray) maps = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, by_map);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (maps, key);
  g_ptr_array_sort (maps, compare_maps);
  for (guint m = 0; m < maps->len; m++)
    {
      const JitMap *map = maps->pdata[m];
      GPtrArray *list = g_hash_table_lookup (by_map, map);
      g_ptr_array_sort (list, compare_used);
      for (guint i = 0; i < list->len; i++)
        {
          const RspSym *sym = list->pdata[i];
          g_string_append_printf (out, "P %x %" G_GINT64_MODIFIER "x %" G_GINT64_MODIFIER "x ", (guint) map->pid,
                                  sym->start, sym->size);
          symbolizer_append_clean (out, sym->name);
          g_string_append_c (out, '\n');
        }
    }
}

/* Stored "P" lines, collected while a table is parsed: pid -> GArray of Entry. */
gboolean
symbolizer_jit_parse_stored_line (RspSymbolizer *self, GHashTable *pending, const char *line, gsize len)
{
  /* "P <pid> <start> <size> <name>" */
  const char *p = line + 2, *end = line + len;
  guint64 pid, start, size;
  if (!parse_hex_field (&p, end, &pid) || pid == 0 || pid > G_MAXINT32 || !parse_hex_field (&p, end, &start)
      || !parse_hex_field (&p, end, &size) || size == 0 || start + size < start || p >= end)
    return FALSE;
  GArray *entries = g_hash_table_lookup (pending, GUINT_TO_POINTER ((guint) pid));
  if (entries == NULL)
    {
      entries = g_array_new (FALSE, FALSE, sizeof (Entry));
      g_hash_table_insert (pending, GUINT_TO_POINTER ((guint) pid), entries);
    }
  Entry e = { { start, size, NULL, NULL }, entries->len };
  e.sym.name = symbolizer_intern_len (self, p, end - p);
  e.sym.raw = e.sym.name;
  g_array_append_val (entries, e);
  return TRUE;
}

/* Replaces the JIT maps by the stored ones in PENDING. */
void
symbolizer_jit_install_stored (RspSymbolizer *self, GHashTable *pending)
{
  g_hash_table_remove_all (self->used_jit);
  g_hash_table_remove_all (self->jit_maps);
  self->jit_last_pid = 0;
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      JitMap *map = g_new0 (JitMap, 1);
      map->pid = (gint32) GPOINTER_TO_UINT (key);
      g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", map->pid);
      map->path = symbolizer_intern (self, path);
      jit_map_set (map, value);
      g_hash_table_insert (self->jit_maps, key, map);
    }
  self->n_stored_jit = g_hash_table_size (self->jit_maps);
}

void
rsp_symbolizer_trust_jit_maps_of (RspSymbolizer *self, guint32 uid)
{
  g_return_if_fail (self != NULL);
  self->jit_trusted_uid = uid;
}
