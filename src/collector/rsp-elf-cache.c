/* rsp-elf-cache.c — see rsp-elf-cache.h.
 *
 * The symbol selection and the size/duplicate fix-ups follow perf 6.1
 * (tools/perf/util/symbol-elf.c, dso__load_sym, and symbol.c,
 * symbols__fixup_end / symbols__fixup_duplicate), so that a sampled
 * address gets the same name perf script prints for it.
 */
#include "rsp-elf-cache.h"
#include "rsp-disk-cache.h"
#include "rsp-elf-store.h"

#include <glib/gi18n-lib.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <lzma.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u

/* ------------------------------------------------------------------------ */
/* Symbol tables                                                            */

guint
rsp_sym_count_at_or_below (const void *table, gsize stride, guint n, guint64 addr)
{
  const guint8 *base = table;
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      guint64 start;
      memcpy (&start, base + (gsize) mid * stride, sizeof start);
      if (start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gssize
rsp_sym_range_find (const void *table, gsize stride, guint n, guint64 addr)
{
  const guint8 *base = table;
  /* Last symbol with start <= addr: the one before LO. */
  guint lo = rsp_sym_count_at_or_below (table, stride, n, addr);
  /* Symbols may nest (an assembler label inside a sized function): look
   * back a little for one that contains ADDR.  The bound keeps a bogus
   * address from walking the whole table. */
  for (guint i = lo, steps = 0; i > 0 && steps < 8; i--, steps++)
    {
      guint64 range[2]; /* start, size */
      memcpy (range, base + (gsize) (i - 1) * stride, sizeof range);
      if (addr - range[0] < range[1] || (range[1] == 0 && addr == range[0]))
        return (gssize) i - 1;
    }
  return -1;
}

const RspSym *
rsp_sym_table_lookup (const RspSym *syms, guint n_syms, guint64 addr)
{
  gssize i = rsp_sym_range_find (syms, sizeof *syms, n_syms, addr);
  return i >= 0 ? &syms[i] : NULL;
}

char *
rsp_build_id_to_hex (const guint8 *build_id, guint size)
{
  static const char digits[] = "0123456789abcdef";
  char *hex = g_malloc (size * 2 + 1);

  for (guint i = 0; i < size; i++)
    {
      hex[2 * i] = digits[build_id[i] >> 4];
      hex[2 * i + 1] = digits[build_id[i] & 0xf];
    }
  hex[size * 2] = '\0';
  return hex;
}

/* ------------------------------------------------------------------------ */
/* Opening ELF files                                                        */

typedef struct {
  int fd;
  Elf *elf;
  char *path;
  const guint8 *build_id; /* points into the ELF data */
  gssize build_id_size;
  /* elf_handle_open() failed for a reason that may pass: not "no such
   * file", "not a regular file" or "not ELF" */
  gboolean transient;
} ElfHandle;

static void
elf_handle_close (ElfHandle *h)
{
  g_clear_pointer (&h->elf, elf_end);
  if (h->fd >= 0)
    close (h->fd);
  h->fd = -1;
  g_clear_pointer (&h->path, g_free);
  h->build_id = NULL;
  h->build_id_size = 0;
}

static gboolean
elf_handle_init (ElfHandle *h, Elf *elf)
{
  GElf_Ehdr ehdr;
  const void *id = NULL;

  h->elf = elf;
  if (elf_kind (elf) != ELF_K_ELF || gelf_getehdr (elf, &ehdr) == NULL)
    return FALSE;
  h->build_id_size = dwelf_elf_gnu_build_id (elf, &id);
  if (h->build_id_size <= 0 || h->build_id_size > 20)
    h->build_id_size = 0;
  else
    h->build_id = id;
  return TRUE;
}

static gboolean
elf_handle_open (ElfHandle *h, const char *path)
{
  struct stat st;
  Elf *elf;

  *h = (ElfHandle){ .fd = -1 };
  h->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (h->fd < 0)
    {
      h->transient = errno != ENOENT && errno != ENOTDIR && errno != EACCES && errno != EPERM
                     && errno != ELOOP && errno != ENAMETOOLONG && errno != ENXIO && errno != ENODEV
                     && errno != EISDIR;
      return FALSE;
    }
  /* Only regular files: a FIFO or device named like a library would block
   * or lie. */
  int stat_failed = fstat (h->fd, &st);
  if (stat_failed != 0 || !S_ISREG (st.st_mode))
    {
      elf_handle_close (h);
      h->transient = stat_failed != 0;
      return FALSE;
    }
  elf = elf_begin (h->fd, ELF_C_READ_MMAP, NULL);
  if (elf == NULL || !elf_handle_init (h, elf))
    {
      /* no descriptor at all: out of memory, or the mapping failed (a
       * file that is not ELF gets one, of another kind) */
      gboolean transient = elf == NULL && st.st_size > 0;
      if (elf != NULL && h->elf == NULL)
        elf_end (elf);
      elf_handle_close (h);
      h->transient = transient;
      return FALSE;
    }
  h->path = g_strdup (path);
  return TRUE;
}

void
rsp_elf_dep_stat (const char *path, RspElfDep *dep)
{
  struct stat st;

  *dep = (RspElfDep){ .path = g_strdup (path) };
  if (stat (path, &st) != 0)
    return;
  dep->present = TRUE;
  dep->dev = st.st_dev;
  dep->ino = st.st_ino;
  dep->size = st.st_size;
  dep->mtime_ns = (guint64) st.st_mtim.tv_sec * G_GUINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  dep->ctime_ns = (guint64) st.st_ctim.tv_sec * G_GUINT64_CONSTANT (1000000000) + st.st_ctim.tv_nsec;
}

gboolean
rsp_elf_dep_equal (const RspElfDep *a, const RspElfDep *b)
{
  if (a->present != b->present)
    return FALSE;
  return !a->present || (a->dev == b->dev && a->ino == b->ino && a->size == b->size
                         && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns);
}

static void
elf_dep_clear (gpointer data)
{
  g_free (((RspElfDep *) data)->path);
}

GArray *
rsp_elf_deps_new (void)
{
  GArray *deps = g_array_new (FALSE, FALSE, sizeof (RspElfDep));
  g_array_set_clear_func (deps, elf_dep_clear);
  return deps;
}

gboolean
rsp_elf_deps_unreadable (const GArray *deps)
{
  for (guint i = 0; deps != NULL && i < deps->len; i++)
    if (g_array_index (deps, RspElfDep, i).unreadable)
      return TRUE;
  return FALSE;
}

/* Marks DEPS' last file (the one just opened into H) unreadable when H's
 * open failed for a reason that may pass. */
static void
note_transient (GArray *deps, const ElfHandle *h)
{
  if (deps != NULL && deps->len > 0 && h->elf == NULL && h->transient)
    g_array_index (deps, RspElfDep, deps->len - 1).unreadable = TRUE;
}

static gboolean
build_id_equal (const guint8 *a, gsize a_size, const guint8 *b, gsize b_size)
{
  return a_size > 0 && a_size == b_size && memcmp (a, b, a_size) == 0;
}

static gboolean
elf_has_symtab (Elf *elf)
{
  Elf_Scn *scn = NULL;

  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr;
      if (gelf_getshdr (scn, &shdr) != NULL && shdr.sh_type == SHT_SYMTAB &&
          shdr.sh_size > shdr.sh_entsize)
        return TRUE;
    }
  return FALSE;
}

/* Opens PATH if it is an ELF file whose build id is ID (when ID is given).
 * DEPS (may be NULL) gets what PATH was before it was read: a cached
 * result stays valid while every file it looked at is as it was. */
static gboolean
open_matching (ElfHandle *h, const char *path, const guint8 *id, gsize id_size, GArray *deps)
{
  if (deps != NULL)
    {
      RspElfDep dep;
      rsp_elf_dep_stat (path, &dep);
      g_array_append_val (deps, dep);
    }
  if (!elf_handle_open (h, path))
    {
      note_transient (deps, h);
      return FALSE;
    }
  if (id_size > 0 && !build_id_equal (h->build_id, h->build_id_size, id, id_size))
    {
      elf_handle_close (h);
      return FALSE;
    }
  return TRUE;
}

/* perf record keeps a copy of every binary it saw in its build-id cache:
 * the right one even after the file on disk was rebuilt. */
static gboolean
open_perf_copy (ElfHandle *h, const guint8 *id, gsize id_size, GArray *deps)
{
  g_autofree char *hex = rsp_build_id_to_hex (id, id_size);
  g_autofree char *cached = g_strdup_printf ("%s/.debug/.build-id/%.2s/%s/elf", g_get_home_dir (),
                                             hex, hex + 2);
  return open_matching (h, cached, id, id_size, deps);
}

/* The file name H's .gnu_debuglink gives, or NULL; it lives as long as H. */
static const char *
debuglink_of (ElfHandle *h)
{
  GElf_Word crc;
  return dwelf_elf_gnu_debuglink (h->elf, &crc);
}

/* Finds a separate debug file with a .symtab for a binary with build id ID
 * (may be empty) and .gnu_debuglink DEBUGLINK (may be NULL), as perf and
 * gdb do. */
static gboolean
find_debug_file (ElfHandle *h, const char *binary_path, const guint8 *id, gsize id_size,
                 const char *debuglink, GArray *deps)
{
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);

  if (id_size > 1)
    {
      g_autofree char *hex = rsp_build_id_to_hex (id, id_size);
      g_ptr_array_add (candidates, g_strdup_printf ("/usr/lib/debug/.build-id/%.2s/%s.debug",
                                                    hex, hex + 2));
      g_ptr_array_add (candidates, g_strdup_printf ("%s/.debug/.build-id/%.2s/%s/debug",
                                                    g_get_home_dir (), hex, hex + 2));
    }
  if (debuglink != NULL && *debuglink != '\0' && strchr (debuglink, '/') == NULL &&
      binary_path != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (binary_path);
      g_ptr_array_add (candidates, g_build_filename (dir, debuglink, NULL));
      g_ptr_array_add (candidates, g_build_filename (dir, ".debug", debuglink, NULL));
      g_ptr_array_add (candidates, g_build_filename ("/usr/lib/debug", dir, debuglink, NULL));
    }

  for (guint i = 0; i < candidates->len; i++)
    {
      const char *path = candidates->pdata[i];
      if (binary_path != NULL && strcmp (path, binary_path) == 0)
        continue;
      if (!open_matching (h, path, id, id_size, deps))
        continue;
      if (elf_has_symtab (h->elf))
        return TRUE;
      elf_handle_close (h);
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Reading symbols                                                          */

typedef struct {
  guint64 start, size;
  guint32 name;  /* offset in the copied string table */
  guint32 index; /* position in the ELF table: ties keep table order */
  guint8 binding;
} ElfSymTmp;

static gint
sym_tmp_compare (gconstpointer pa, gconstpointer pb)
{
  const ElfSymTmp *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

static int
sym_tmp_start_compare (const void *key, const void *elem)
{
  guint64 start = *(const guint64 *) key;
  const ElfSymTmp *t = elem;

  return start < t->start ? -1 : start > t->start;
}

static guint
leading_underscores (const char *s)
{
  guint n = 0;
  while (s[n] == '_')
    n++;
  return n;
}

gboolean
rsp_sym_prefer_first (const char *na, guint64 size_a, guint8 bind_a, const char *nb,
                      guint64 size_b, guint8 bind_b)
{
  gsize la, lb;
  guint ua, ub;

  if (size_a > 0 && size_b == 0)
    return TRUE;
  if (size_a == 0 && size_b > 0)
    return FALSE;
  if ((bind_a == STB_WEAK) != (bind_b == STB_WEAK))
    return bind_b == STB_WEAK;
  if ((bind_a == STB_GLOBAL) != (bind_b == STB_GLOBAL))
    return bind_a == STB_GLOBAL;
  ua = leading_underscores (na);
  ub = leading_underscores (nb);
  if (ua != ub)
    return ua < ub;
  la = strlen (na);
  lb = strlen (nb);
  if (la != lb)
    return la > lb;
  /* perf's x86 tie-break: avoid the "SyS" syscall aliases. */
  return !g_str_has_prefix (na, "SyS") && !g_str_has_prefix (na, "compat_SyS");
}

static gboolean
vaddr_to_offset (const RspElfSegment *segs, guint n, guint64 vaddr, guint64 *offset)
{
  for (guint i = 0; i < n; i++)
    {
      guint64 span = MAX (segs[i].memsz, segs[i].filesz);
      if (vaddr >= segs[i].vaddr && vaddr - segs[i].vaddr < span)
        {
          *offset = vaddr - segs[i].vaddr + segs[i].offset;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
read_segments (Elf *elf, RspElfFile *file)
{
  size_t n_phdrs = 0;
  g_autoptr (GArray) segs = g_array_new (FALSE, FALSE, sizeof (RspElfSegment));

  if (elf_getphdrnum (elf, &n_phdrs) != 0)
    return FALSE;
  for (size_t i = 0; i < n_phdrs && i < 4096; i++)
    {
      GElf_Phdr phdr;
      RspElfSegment seg;
      if (gelf_getphdr (elf, i, &phdr) == NULL || phdr.p_type != PT_LOAD)
        continue;
      seg = (RspElfSegment){ phdr.p_offset, phdr.p_vaddr, phdr.p_filesz, phdr.p_memsz };
      g_array_append_val (segs, seg);
    }
  if (segs->len == 0)
    return FALSE;
  file->n_segments = segs->len;
  file->segments = (RspElfSegment *) g_array_free (g_steal_pointer (&segs), FALSE);
  return TRUE;
}

static Elf_Scn *
find_section (Elf *elf, GElf_Word type, GElf_Shdr *shdr)
{
  Elf_Scn *scn = NULL;

  while ((scn = elf_nextscn (elf, scn)) != NULL)
    if (gelf_getshdr (scn, shdr) != NULL && shdr->sh_type == type)
      return scn;
  return NULL;
}

/* Whether section INDEX of ELF holds code; FLAGS caches the answers. */
static gboolean
section_is_exec (Elf *elf, size_t index, GHashTable *flags)
{
  gpointer cached;
  GElf_Shdr shdr;
  gboolean exec;

  if (g_hash_table_lookup_extended (flags, GSIZE_TO_POINTER (index), NULL, &cached))
    return GPOINTER_TO_INT (cached);
  exec = gelf_getshdr (elf_getscn (elf, index), &shdr) != NULL &&
         (shdr.sh_flags & SHF_EXECINSTR) != 0;
  g_hash_table_insert (flags, GSIZE_TO_POINTER (index), GINT_TO_POINTER (exec));
  return exec;
}

/* Symbols being gathered for one file: names are offsets into NAMES until
 * the table is final, so NAMES may grow. */
typedef struct {
  GArray *syms;   /* ElfSymTmp */
  GString *names;
} SymBuilder;

/* Reads the function symbols of the table of TYPE (SHT_SYMTAB / SHT_DYNSYM)
 * in ELF into B, with perf's size and duplicate fix-ups. */
static gboolean
read_symbols (Elf *elf, GElf_Word type, const RspElfFile *file, SymBuilder *b)
{
  GElf_Shdr shdr, str_shdr;
  Elf_Scn *scn = find_section (elf, type, &shdr);
  Elf_Data *data, *str_data;
  size_t sym_size = gelf_fsize (elf, ELF_T_SYM, 1, EV_CURRENT);
  size_t n;
  g_autoptr (GArray) tmp = NULL;
  g_autoptr (GHashTable) exec_sections = NULL;
  const char *strs;
  gsize base;
  ElfSymTmp *v;
  guint out;

  if (scn == NULL || sym_size == 0 || shdr.sh_type == SHT_NOBITS)
    return FALSE;
  data = elf_getdata (scn, NULL);
  str_data = elf_getdata (elf_getscn (elf, shdr.sh_link), NULL);
  if (data == NULL || str_data == NULL || str_data->d_buf == NULL || str_data->d_size == 0 ||
      gelf_getshdr (elf_getscn (elf, shdr.sh_link), &str_shdr) == NULL ||
      str_shdr.sh_type != SHT_STRTAB || str_data->d_size >= G_MAXUINT32 / 2)
    return FALSE;
  strs = str_data->d_buf;

  n = data->d_size / sym_size;
  tmp = g_array_sized_new (FALSE, FALSE, sizeof (ElfSymTmp), MIN (n, 1 << 16));
  exec_sections = g_hash_table_new (NULL, NULL);
  for (size_t i = 1; i < n && i < G_MAXUINT32; i++)
    {
      GElf_Sym sym;
      guint8 st_type, vis;
      gboolean function, label;
      ElfSymTmp t;

      if (gelf_getsym (data, i, &sym) == NULL)
        break;
      if (sym.st_name == 0 || sym.st_name >= str_data->d_size || sym.st_shndx == SHN_UNDEF ||
          sym.st_shndx >= SHN_LORESERVE)
        continue;
      st_type = GELF_ST_TYPE (sym.st_info);
      vis = GELF_ST_VISIBILITY (sym.st_other);
      function = st_type == STT_FUNC || st_type == STT_GNU_IFUNC;
      /* Assembler entry points without a type (perf keeps them when they
       * are in code). */
      label = st_type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL &&
              section_is_exec (elf, sym.st_shndx, exec_sections);
      if (!function && !label)
        continue;
      if (strs[sym.st_name] == '$') /* ARM mapping symbols */
        continue;
      if (!vaddr_to_offset (file->segments, file->n_segments, sym.st_value, &t.start))
        continue;
      t.size = sym.st_size;
      t.name = sym.st_name;
      t.index = i;
      t.binding = GELF_ST_BIND (sym.st_info);
      g_array_append_val (tmp, t);
    }
  if (tmp->len == 0)
    return FALSE;

  /* Copy the string table so the file can be closed; terminate it in case
   * the last string runs off the end of a corrupt table. */
  base = b->names->len;
  g_string_append_len (b->names, strs, str_data->d_size);
  g_string_append_c (b->names, '\0');
  strs = b->names->str + base;

  g_array_sort (tmp, sym_tmp_compare);
  v = (ElfSymTmp *) tmp->data;

  /* symbols__fixup_end: zero sizes (assembler functions) run to the next
   * symbol; the last one to the end of the next page. */
  for (guint i = 0; i < tmp->len; i++)
    if (v[i].size == 0)
      v[i].size = i + 1 < tmp->len ? v[i + 1].start - v[i].start
                                   : (v[i].start / PAGE + 1) * PAGE + PAGE - v[i].start;

  /* symbols__fixup_duplicate: one symbol per start address. */
  out = 0;
  for (guint i = 1; i < tmp->len; i++)
    {
      if (v[i].start == v[out].start)
        {
          if (!rsp_sym_prefer_first (strs + v[out].name, v[out].size, v[out].binding,
                                     strs + v[i].name, v[i].size, v[i].binding))
            v[out] = v[i];
        }
      else
        v[++out] = v[i];
    }
  out++;
  for (guint i = 0; i < out; i++)
    v[i].name += base;
  g_array_append_vals (b->syms, v, out);
  return TRUE;
}

Elf_Scn *
rsp_elf_find_section_by_name (Elf *elf, const char *name, GElf_Shdr *shdr)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;

  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *s;
      if (gelf_getshdr (scn, shdr) == NULL)
        continue;
      s = elf_strptr (elf, shstrndx, shdr->sh_name);
      if (s != NULL && strcmp (s, name) == 0)
        return scn;
    }
  return NULL;
}

/* MiniDebugInfo: a stripped binary's local function symbols in an
 * xz-compressed ELF in its .gnu_debugdata section (what Fedora and others
 * ship; gdb, perf and elfutils read it).  At most this much decompressed. */
#define MINI_DEBUGINFO_MAX (64u << 20)

static guint8 *
xz_decompress (const guint8 *in, gsize in_size, gsize *out_size)
{
  lzma_stream strm = LZMA_STREAM_INIT;
  if (lzma_stream_decoder (&strm, MINI_DEBUGINFO_MAX, 0) != LZMA_OK)
    return NULL;
  gsize cap = MIN (MAX (in_size * 4, (gsize) 4096), (gsize) MINI_DEBUGINFO_MAX);
  guint8 *out = g_malloc (cap);
  strm.next_in = in;
  strm.avail_in = in_size;
  strm.next_out = out;
  strm.avail_out = cap;
  for (;;)
    {
      lzma_ret r = lzma_code (&strm, LZMA_FINISH);
      if (r == LZMA_STREAM_END)
        break;
      if (r == LZMA_OK && strm.avail_out == 0 && cap < MINI_DEBUGINFO_MAX)
        {
          gsize used = cap;
          cap = MIN (cap * 2, (gsize) MINI_DEBUGINFO_MAX);
          out = g_realloc (out, cap);
          strm.next_out = out + used;
          strm.avail_out = cap - used;
          continue;
        }
      if (r == LZMA_OK && strm.avail_in > 0)
        continue;
      /* damaged, cut, or larger than MINI_DEBUGINFO_MAX */
      lzma_end (&strm);
      g_free (out);
      return NULL;
    }
  *out_size = (gsize) strm.total_out;
  lzma_end (&strm);
  return out;
}

/* Reads the function symbols of BIN's MiniDebugInfo into B; FALSE when it
 * has none (or a damaged one). */
static gboolean
read_mini_debuginfo (Elf *bin, const RspElfFile *file, SymBuilder *b)
{
  GElf_Shdr shdr;
  Elf_Scn *scn = rsp_elf_find_section_by_name (bin, ".gnu_debugdata", &shdr);
  if (scn == NULL || shdr.sh_type == SHT_NOBITS)
    return FALSE;
  Elf_Data *data = elf_rawdata (scn, NULL);
  if (data == NULL || data->d_buf == NULL || data->d_size == 0)
    return FALSE;
  gsize size = 0;
  g_autofree guint8 *image = xz_decompress (data->d_buf, data->d_size, &size);
  if (image == NULL)
    return FALSE;
  Elf *mini = elf_memory ((char *) image, size);
  if (mini == NULL)
    return FALSE;
  GElf_Ehdr ehdr;
  gboolean ok = elf_kind (mini) == ELF_K_ELF && gelf_getehdr (mini, &ehdr) != NULL
                && read_symbols (mini, SHT_SYMTAB, file, b);
  elf_end (mini);
  return ok;
}

/* PLT stubs have no symbols; perf names them "<function>@plt" from the PLT
 * relocations (dso__synthesize_plt_symbols), one entry per relocation after
 * the lazy-binding header.  Samples in stubs are common enough (every call
 * to a shared library goes through one) to be worth naming. */
static void
synthesize_plt (Elf *elf, const RspElfFile *file, SymBuilder *b)
{
  GElf_Shdr plt, plt_sec, rel, dynsym, dynstr;
  GElf_Ehdr ehdr;
  Elf_Scn *rel_scn, *dynsym_scn, *dynstr_scn;
  Elf_Data *rel_data, *sym_data, *str_data;
  guint64 entry_size, offset, n_rel;
  gboolean has_sec, x86_64;
  /* The table symbols, sorted: IRELATIVE stubs are named after them. */
  const ElfSymTmp *table = (const ElfSymTmp *) b->syms->data;
  guint n_table = b->syms->len;
  g_autoptr (GArray) stubs = g_array_new (FALSE, FALSE, sizeof (ElfSymTmp));

  if (rsp_elf_find_section_by_name (elf, ".plt", &plt) == NULL || plt.sh_type != SHT_PROGBITS)
    return;
  rel_scn = rsp_elf_find_section_by_name (elf, ".rela.plt", &rel);
  if (rel_scn == NULL)
    rel_scn = rsp_elf_find_section_by_name (elf, ".rel.plt", &rel);
  if (rel_scn == NULL || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) ||
      rel.sh_entsize == 0)
    return;
  dynsym_scn = elf_getscn (elf, rel.sh_link);
  if (dynsym_scn == NULL || gelf_getshdr (dynsym_scn, &dynsym) == NULL ||
      (dynstr_scn = elf_getscn (elf, dynsym.sh_link)) == NULL ||
      gelf_getshdr (dynstr_scn, &dynstr) == NULL || dynstr.sh_type != SHT_STRTAB)
    return;
  rel_data = elf_getdata (rel_scn, NULL);
  sym_data = elf_getdata (dynsym_scn, NULL);
  str_data = elf_getdata (dynstr_scn, NULL);
  if (rel_data == NULL || sym_data == NULL || str_data == NULL || str_data->d_buf == NULL)
    return;

  x86_64 = gelf_getehdr (elf, &ehdr) != NULL && ehdr.e_machine == EM_X86_64;
  n_rel = MIN (rel.sh_size / rel.sh_entsize, 1u << 20);
  has_sec = rsp_elf_find_section_by_name (elf, ".plt.sec", &plt_sec) != NULL &&
            plt_sec.sh_type == SHT_PROGBITS;
  if (has_sec)
    {
      /* IBT layout: the callable stubs are in .plt.sec, no header. */
      entry_size = plt_sec.sh_entsize != 0 ? plt_sec.sh_entsize : 16;
      offset = plt_sec.sh_offset;
    }
  else
    {
      entry_size = plt.sh_entsize != 0 ? plt.sh_entsize : 16;
      offset = plt.sh_offset;
      /* A .plt exactly as long as its relocations has no header. */
      if (n_rel * entry_size != plt.sh_size)
        offset += entry_size;
    }

  for (guint64 i = 0; i < n_rel; i++, offset += entry_size)
    {
      GElf_Rela rela;
      GElf_Rel rel_entry;
      GElf_Sym sym;
      guint64 sym_index;
      const char *name = NULL;
      ElfSymTmp t;

      if (rel.sh_type == SHT_RELA)
        {
          if (gelf_getrela (rel_data, i, &rela) == NULL)
            break;
          sym_index = GELF_R_SYM (rela.r_info);
        }
      else
        {
          if (gelf_getrel (rel_data, i, &rel_entry) == NULL)
            break;
          sym_index = GELF_R_SYM (rel_entry.r_info);
        }
      if (sym_index != 0)
        {
          if (gelf_getsym (sym_data, sym_index, &sym) == NULL || sym.st_name == 0 ||
              sym.st_name >= str_data->d_size)
            continue;
          name = (const char *) str_data->d_buf + sym.st_name;
          if (memchr (name, '\0', str_data->d_size - sym.st_name) == NULL)
            continue;
        }
      else if (x86_64 && rel.sh_type == SHT_RELA &&
               GELF_R_TYPE (rela.r_info) == R_X86_64_IRELATIVE)
        {
          /* A call to the library's own IFUNC (memcpy in libc): the addend
           * is the resolver, which has the function's name (as newer perf
           * names it; 6.1 prints a bare "@plt"). */
          guint64 target;
          const ElfSymTmp *found;
          if (!vaddr_to_offset (file->segments, file->n_segments, rela.r_addend, &target))
            continue;
          found = bsearch (&target, table, n_table, sizeof *table, sym_tmp_start_compare);
          if (found == NULL)
            continue;
          name = b->names->str + found->name;
        }
      if (name == NULL)
        continue;
      t.start = offset;
      t.size = entry_size;
      t.name = b->names->len;
      t.index = G_MAXUINT32; /* after table symbols at the same address */
      t.binding = STB_GLOBAL;
      {
        /* NAME may live in b->names itself, which the append can move. */
        g_autofree char *copy = g_strconcat (name, "@plt", NULL);
        g_string_append (b->names, copy);
      }
      g_string_append_c (b->names, '\0');
      g_array_append_val (stubs, t);
    }
  /* Appended last: TABLE points into b->syms. */
  g_array_append_vals (b->syms, stubs->data, stubs->len);
}

/* Fills FILE from the binary BIN (may be closed) and debug file DBG (may
 * be closed). */
static gboolean
fill_file (RspElfFile *file, ElfHandle *bin, ElfHandle *dbg, GError **error)
{
  Elf *layout = bin->elf != NULL ? bin->elf : dbg->elf;
  SymBuilder b;

  if (layout == NULL || !read_segments (layout, file))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("no loadable segments"));
      return FALSE;
    }

  b.syms = g_array_new (FALSE, FALSE, sizeof (ElfSymTmp));
  b.names = g_string_new (NULL);
  if (dbg->elf != NULL && read_symbols (dbg->elf, SHT_SYMTAB, file, &b))
    file->syms_path = g_strdup (dbg->path);
  else if (bin->elf != NULL && read_symbols (bin->elf, SHT_SYMTAB, file, &b))
    file->syms_path = g_strdup (bin->path);
  else if (bin->elf != NULL)
    {
      /* stripped: the exported functions, and the local ones of its
       * MiniDebugInfo */
      gboolean dynsym = read_symbols (bin->elf, SHT_DYNSYM, file, &b);
      file->mini_debuginfo = read_mini_debuginfo (bin->elf, file, &b);
      if (dynsym || file->mini_debuginfo)
        file->syms_path = g_strdup (bin->path);
    }
  /* Stub sections are only real in the binary (NOBITS in debug files). */
  if (bin->elf != NULL)
    synthesize_plt (bin->elf, file, &b);

  g_array_sort (b.syms, sym_tmp_compare);
  file->n_syms = b.syms->len;
  file->syms = g_new (RspSym, MAX (b.syms->len, 1));
  file->names = g_string_free (b.names, FALSE);
  for (guint i = 0; i < b.syms->len; i++)
    {
      const ElfSymTmp *t = &g_array_index (b.syms, ElfSymTmp, i);
      file->syms[i] = (RspSym){ t->start, t->size, file->names + t->name, NULL };
    }
  g_array_unref (b.syms);

  /* A binary without symbols is still loaded: its frames are known to be
   * in it, they just have no names. */
  file->path = g_strdup (bin->path);
  return TRUE;
}

RspElfFile *
rsp_elf_file_load (const char *path, const guint8 *build_id, guint build_id_size,
                   GError **error)
{
  return rsp_elf_file_load_traced (path, build_id, build_id_size, NULL, error);
}

RspElfFile *
rsp_elf_file_load_traced (const char *path, const guint8 *build_id, guint build_id_size,
                          GArray *deps, GError **error)
{
  ElfHandle bin = { .fd = -1 }, dbg = { .fd = -1 };
  g_autoptr (RspElfFile) file = g_new0 (RspElfFile, 1);
  const guint8 *id = build_id;
  gsize id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;
  const char *debuglink = NULL;
  gboolean ok;

  elf_version (EV_CURRENT);

  if (path != NULL && !open_matching (&bin, path, id, id_size, deps) && id_size > 0)
    open_perf_copy (&bin, id, id_size, deps);
  if (bin.elf != NULL && id_size == 0 && bin.build_id_size > 0)
    {
      id = bin.build_id;
      id_size = bin.build_id_size;
    }
  if (bin.elf != NULL)
    debuglink = debuglink_of (&bin);
  /* Binaries with a .symtab of their own may still have a fuller one in a
   * debug file; perf prefers the debug file, so do we. */
  find_debug_file (&dbg, path, id, id_size, debuglink, deps);

  if (bin.elf == NULL && dbg.elf == NULL)
    {
      if (build_id_size > 0 && path != NULL && g_file_test (path, G_FILE_TEST_EXISTS))
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     _("%s: build id differs from the recording's"), path);
      else
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, _("%s: not found or not ELF"),
                     path != NULL ? path : "(no path)");
      return NULL;
    }

  if (id_size > 0)
    memcpy (file->build_id, id, id_size);
  file->build_id_size = id_size;
  ok = fill_file (file, &bin, &dbg, error);
  if (!ok)
    g_prefix_error (error, "%s: ", path != NULL ? path : "(no path)");
  elf_handle_close (&bin);
  elf_handle_close (&dbg);
  return ok ? g_steal_pointer (&file) : NULL;
}

gboolean
rsp_elf_may_name_more_traced (const char *path, const guint8 *build_id, guint build_id_size, gboolean by_path,
                      GArray *deps)
{
  ElfHandle bin = { .fd = -1 }, dbg = { .fd = -1 };
  gsize id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;
  const char *debuglink = NULL;
  gboolean more = FALSE;

  if (id_size == 0)
    return TRUE;
  elf_version (EV_CURRENT);
  /* Where rsp_elf_file_load_traced() would read the binary: PATH when it
   * has the build id, else perf's build-id copy. */
  if (path != NULL && open_matching (&bin, path, NULL, 0, deps)
      && !build_id_equal (bin.build_id, bin.build_id_size, build_id, id_size))
    {
      elf_handle_close (&bin);
      if (by_path)
        return TRUE; /* a lookup by path reads this other file */
    }
  if (bin.elf == NULL)
    open_perf_copy (&bin, build_id, id_size, deps);
  if (bin.elf != NULL)
    {
      /* a .symtab the other copy may not have had (stripped there) */
      more = elf_has_symtab (bin.elf);
      debuglink = debuglink_of (&bin);
    }
  if (!more)
    more = find_debug_file (&dbg, path, build_id, id_size, debuglink, deps);
  elf_handle_close (&dbg);
  elf_handle_close (&bin);
  return more;
}

gboolean
rsp_elf_may_name_more (const char *path, const guint8 *build_id, guint build_id_size,
                       gboolean by_path)
{
  return rsp_elf_may_name_more_traced (path, build_id, build_id_size, by_path, NULL);
}

static RspElfFile *
load_image (const char *name, const guint8 *data, gsize size)
{
  g_autoptr (RspElfFile) file = g_new0 (RspElfFile, 1);
  ElfHandle img = { .fd = -1 }, none = { .fd = -1 };
  Elf *elf;
  gboolean ok;

  elf_version (EV_CURRENT);
  file->image = g_memdup2 (data, size);
  file->image_size = size;
  elf = elf_memory ((char *) file->image, size);
  if (elf == NULL)
    return NULL;
  if (!elf_handle_init (&img, elf))
    {
      elf_handle_close (&img);
      return NULL;
    }
  img.path = g_strdup (name);
  file->build_id_size = img.build_id_size;
  if (img.build_id_size > 0)
    memcpy (file->build_id, img.build_id, img.build_id_size);
  ok = fill_file (file, &img, &none, NULL);
  elf_handle_close (&img);
  return ok ? g_steal_pointer (&file) : NULL;
}

void
rsp_elf_file_free (RspElfFile *file)
{
  if (file == NULL)
    return;
  g_free (file->path);
  g_free (file->syms_path);
  g_free (file->segments);
  g_free (file->syms);
  g_free (file->names);
  g_free (file->image);
  g_clear_pointer (&file->mapping, g_mapped_file_unref);
  g_free (file);
}

gboolean
rsp_elf_file_map_bias (const RspElfFile *file, guint64 start, guint64 pgoff, guint64 *bias)
{
  for (guint i = 0; i < file->n_segments; i++)
    {
      const RspElfSegment *seg = &file->segments[i];
      if (pgoff >= seg->offset && pgoff - seg->offset < MAX (seg->filesz, 1))
        {
          /* address(o) = start + o - pgoff; vaddr(o) = seg.vaddr + o - seg.offset */
          *bias = start - pgoff + seg->offset - seg->vaddr;
          return TRUE;
        }
    }
  /* Page rounding can put PGOFF just before a segment's unaligned offset. */
  for (guint i = 0; i < file->n_segments; i++)
    {
      const RspElfSegment *seg = &file->segments[i];
      if (pgoff <= seg->offset && seg->offset - pgoff < PAGE)
        {
          *bias = start - pgoff + seg->offset - seg->vaddr;
          return TRUE;
        }
    }
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* The cache                                                                */

struct _RspElfCache {
  /* "b:<hex>" or "p:<path>:<size>:<mtime>" -> RspElfFile* (NULL: unusable) */
  GHashTable *by_key;
  GPtrArray *files; /* owns the RspElfFile */
  char *store_dir;  /* symbol tables kept between runs; NULL: none */
  guint n_from_store;
  guint n_verdicts_from_store;
};

RspElfCache *
rsp_elf_cache_new (void)
{
  RspElfCache *self = g_new0 (RspElfCache, 1);
  g_autofree char *dir = rsp_disk_cache_dir ();

  self->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->files = g_ptr_array_new_with_free_func ((GDestroyNotify) rsp_elf_file_free);
  if (dir != NULL)
    self->store_dir = g_build_filename (dir, "elf", NULL);
  return self;
}

void
rsp_elf_cache_set_store_dir (RspElfCache *self, const char *dir)
{
  g_return_if_fail (self != NULL);
  g_free (self->store_dir);
  self->store_dir = g_strdup (dir);
}

guint
rsp_elf_cache_n_from_store (const RspElfCache *self)
{
  return self->n_from_store;
}

/* The symbol table of PATH: from the store when its entry is still true,
 * else read from the files and stored for the next run. */
static RspElfFile *
load_through_store (RspElfCache *self, const char *path, const guint8 *build_id,
                    guint build_id_size)
{
  RspElfFile *file;

  if (self->store_dir == NULL || path == NULL)
    return rsp_elf_file_load (path, build_id, build_id_size, NULL);
  file = rsp_elf_store_load (self->store_dir, path, build_id, build_id_size);
  if (file != NULL)
    {
      self->n_from_store++;
      return file;
    }
  g_autoptr (GArray) deps = rsp_elf_deps_new ();
  file = rsp_elf_file_load_traced (path, build_id, build_id_size, deps, NULL);
  if (file != NULL && !rsp_elf_deps_unreadable (deps))
    rsp_elf_store_save (self->store_dir, path, build_id, build_id_size, file, deps);
  return file;
}

void
rsp_elf_cache_free (RspElfCache *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_key);
  g_ptr_array_unref (self->files);
  g_free (self->store_dir);
  g_free (self);
}

static char *
build_id_key (const guint8 *id, guint size)
{
  g_autofree char *hex = rsp_build_id_to_hex (id, size);
  return g_strconcat ("b:", hex, NULL);
}

const RspElfFile *
rsp_elf_cache_load (RspElfCache *self, const char *path, const guint8 *build_id,
                    guint build_id_size)
{
  g_autofree char *key = NULL;
  gpointer value;
  RspElfFile *file;
  struct stat st;

  g_return_val_if_fail (self != NULL, NULL);
  if (build_id == NULL)
    build_id_size = 0;
  build_id_size = MIN (build_id_size, 20);

  if (build_id_size > 0)
    key = build_id_key (build_id, build_id_size);
  else if (path != NULL && stat (path, &st) == 0)
    key = g_strdup_printf ("p:%s:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, path,
                           (gint64) st.st_size, (gint64) st.st_mtime);
  else
    key = g_strdup_printf ("p:%s:missing", path != NULL ? path : "");

  if (g_hash_table_lookup_extended (self->by_key, key, NULL, &value))
    return value;

  file = load_through_store (self, path, build_id, build_id_size);
  if (file != NULL)
    {
      g_ptr_array_add (self->files, file);
      /* Reachable by its build id as well, for maps that name it. */
      if (build_id_size == 0 && file->build_id_size > 0)
        {
          char *id_key = build_id_key (file->build_id, file->build_id_size);
          if (!g_hash_table_contains (self->by_key, id_key))
            g_hash_table_insert (self->by_key, id_key, file);
          else
            g_free (id_key);
        }
    }
  g_hash_table_insert (self->by_key, g_steal_pointer (&key), file);
  return file;
}

gboolean
rsp_elf_cache_may_name_more (RspElfCache *self, const char *path, const guint8 *build_id,
                             guint build_id_size, gboolean by_path)
{
  g_return_val_if_fail (self != NULL, TRUE);
  build_id_size = build_id != NULL ? MIN (build_id_size, 20) : 0;
  if (self->store_dir == NULL || path == NULL || build_id_size == 0)
    return rsp_elf_may_name_more (path, build_id, build_id_size, by_path);
  int verdict = rsp_elf_store_load_verdict (self->store_dir, path, build_id, build_id_size, by_path);
  if (verdict >= 0)
    {
      self->n_verdicts_from_store++;
      return verdict != 0;
    }
  g_autoptr (GArray) deps = rsp_elf_deps_new ();
  gboolean more = rsp_elf_may_name_more_traced (path, build_id, build_id_size, by_path, deps);
  /* a file that could not be opened now (no descriptor left, say) may
   * hold what the verdict would have found: not kept */
  if (!rsp_elf_deps_unreadable (deps))
    rsp_elf_store_save_verdict (self->store_dir, path, build_id, build_id_size, by_path, more, deps);
  return more;
}

guint
rsp_elf_cache_n_verdicts_from_store (const RspElfCache *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_verdicts_from_store;
}

const RspElfFile *
rsp_elf_cache_load_image (RspElfCache *self, const char *name, const guint8 *data, gsize size)
{
  RspElfFile *file;

  g_return_val_if_fail (self != NULL, NULL);
  if (data == NULL || size < 64)
    return NULL;
  file = load_image (name, data, size);
  if (file != NULL)
    g_ptr_array_add (self->files, file);
  return file;
}
