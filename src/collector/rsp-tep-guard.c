/* rsp-tep-guard.c — the grammar tracefs writes, checked before libtraceevent
 * parses it (see rsp-tep-guard.h).
 *
 * An event format:
 *   name: IDENT\n
 *   ID: DIGITS\n
 *   format:\n
 *   \tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;\n     (one per field;
 *   \n                                                       blank lines allowed)
 *   print fmt: "STRING", EXPR, EXPR…\n
 *
 * The print fmt is a C expression list; it is parsed here by a small
 * recursive-descent parser with bounded depth and length, and only the
 * helper functions libtraceevent implements may be called, each with the
 * number of arguments it takes; a field is named only as REC->NAME (or as
 * the argument of __get_str and its kin) and must be one the format
 * declares; a divisor is a literal other than 0.  Everything else is
 * rejected: each of these rules stops a
 * crash or a leak inside libtraceevent that fuzzing found.
 */
#include "rsp-tep-guard.h"

#include <string.h>

#define MAX_FORMAT_LEN (256 * 1024)
#define MAX_FIELDS 512
#define MAX_FIELD_NUMBER 65536
#define MAX_DEPTH 128
#define MAX_TOKENS 8192
#define MAX_IDENT 128

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* libtraceevent's tokenizer turns these three identifiers into strings
 * wherever they appear (a workaround for an old mac80211 bug), which leaks
 * and confuses its parser: a text naming them is refused. */
static gboolean
rewritten_ident (const char *w, gsize len)
{
  static const char *const words[] = { "LOCAL_PR_FMT", "STA_PR_FMT", "VIF_PR_FMT" };
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (len == strlen (words[i]) && memcmp (w, words[i], len) == 0)
      return TRUE;
  return FALSE;
}

static inline gboolean
char_printable (guchar ch)
{
  return (ch >= 0x20 && ch < 0x7f) || ch == '\n' || ch == '\t';
}

/* Printable ASCII, tabs and newlines only.  Eight bytes at a time: a word
 * none of whose bytes is below 0x20, 0x7f or above passes whole (each test
 * says exactly whether some byte is such, not which); one with a tab or a
 * newline in it is looked at byte by byte. */
static gboolean
text_printable (const char *text, gsize len)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 w, del;
      memcpy (&w, text + i, 8);
      del = w ^ (ones * 0x7f);
      if (((w | ((w - ones * 0x20) & ~w) | ((del - ones) & ~del)) & highs) == 0)
        continue;
      for (gsize k = i; k < i + 8; k++)
        if (!char_printable ((guchar) text[k]))
          return FALSE;
    }
  for (; i < len; i++)
    if (!char_printable ((guchar) text[i]))
      return FALSE;
  return TRUE;
}

/* ---- field lines ------------------------------------------------------ */

static gboolean
parse_number (const char **p, const char *end, guint64 max)
{
  const char *s = *p;
  guint64 v = 0;
  if (s >= end || !g_ascii_isdigit (*s))
    return FALSE;
  /* decimal, as the kernel writes it: libtraceevent reads numbers with
   * strtoul (…, 0), so "ID: 0567" was event 375 to it and 567 to RSP's
   * own reading (found by fuzz-perf-reader) */
  if (*s == '0' && s + 1 < end && g_ascii_isdigit (s[1]))
    return FALSE;
  while (s < end && g_ascii_isdigit (*s))
    {
      v = v * 10 + (guint64) (*s - '0');
      if (v > max)
        return FALSE;
      s++;
    }
  *p = s;
  return TRUE;
}

static gboolean
expect (const char **p, const char *end, const char *word)
{
  gsize n = strlen (word);
  if ((gsize) (end - *p) < n || memcmp (*p, word, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* "TYPE NAME" or "TYPE NAME[N]" or "__data_loc TYPE[] NAME": words of
 * identifier characters, '*' and spaces, one optional bracket of digits,
 * identifiers or sizeof(…) — as the kernel writes them. */
typedef struct {
  const char *name; /* the field's name: the last word */
  gsize name_len;
  gboolean dynamic; /* __data_loc or __rel_loc: a 4-byte offset and length */
  guint64 size;
} FieldInfo;

static gboolean
check_type_and_name (const char *s, const char *end, FieldInfo *info)
{
  guint words = 0, brackets = 0, words_after_bracket = 0;
  gboolean last_was_word = FALSE, empty_bracket = FALSE;
  /* libtraceevent takes the last token before ';' or '[' for the name: a
   * '*' there ("int vec*") would be the name, and the print fmt's REC->vec
   * would name no field (found by fuzz-trace-data) */
  gboolean star_since_word = FALSE;
  const char *start = s;
  if (end - s > 256)
    return FALSE;
  while (s < end)
    {
      char c = *s;
      if (c == ' ' || c == '*')
        {
          s++;
          last_was_word = FALSE;
          star_since_word |= c == '*';
        }
      else if (is_ident_start (c))
        {
          const char *w = s;
          while (s < end && is_ident_char (*s))
            s++;
          if (s - w > MAX_IDENT || rewritten_ident (w, (gsize) (s - w)))
            return FALSE;
          /* the name is the last word: "char comm[16]", and
           * "__data_loc char[] name" */
          info->name = w;
          info->name_len = (gsize) (s - w);
          words++;
          words_after_bracket += brackets;
          last_was_word = TRUE;
          star_since_word = FALSE;
        }
      else if (c == '[')
        {
          int parens = 0;
          const char *open = s;
          /* right after a word, as the kernel writes it ("char[]",
           * "comm[16]"): "__data_loc []char name" made libtraceevent
           * leak (found by fuzz-perf-reader) */
          if (++brackets > 1 || words == 0 || star_since_word || !last_was_word)
            return FALSE;
          s++;
          while (s < end && *s != ']')
            {
              if (*s == '(')
                parens++;
              else if (*s == ')' && --parens < 0)
                return FALSE;
              else if (!is_ident_char (*s) && *s != ' ')
                return FALSE;
              s++;
            }
          if (s >= end || parens != 0)
            return FALSE;
          s++; /* ']' */
          /* "[]" in "__data_loc TYPE[] NAME" and in a flexible array;
           * any other bracket holds a size and ends the line
           * ("char comm[16]") */
          empty_bracket = s - open == 2;
          if (!empty_bracket && s != end)
            return FALSE;
          last_was_word = FALSE;
        }
      else
        return FALSE;
    }
  if (star_since_word)
    return FALSE;
  /* a type and a name */
  info->dynamic = g_str_has_prefix (start, "__data_loc ") || g_str_has_prefix (start, "__rel_loc ");
  /* "__data_loc char[] name" (one word, the name, after the bracket), or
   * a flexible array "u32 buf[]" last */
  if (empty_bracket && info->dynamic != last_was_word)
    return FALSE;
  if (empty_bracket && info->dynamic && words_after_bracket != 1)
    return FALSE;
  return words >= 2;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (signed is optional,
 * as in old kernels).  LINE excludes the newline. */
static gboolean
parse_number_value (const char **p, const char *end, guint64 max, guint64 *value)
{
  const char *start = *p;
  if (!parse_number (p, end, max))
    return FALSE;
  *value = g_ascii_strtoull (start, NULL, 10);
  return TRUE;
}

/* HEADER_PAGE: the header page writes "field: u64 timestamp" with a space */
static gboolean
check_field_line (const char *line, const char *end, gboolean header_page, FieldInfo *info)
{
  const char *p = line;
  guint64 offset;
  if (!expect (&p, end, header_page ? "\tfield: " : "\tfield:"))
    return FALSE;
  const char *semi = memchr (p, ';', (gsize) (end - p));
  if (semi == NULL || !check_type_and_name (p, semi, info))
    return FALSE;
  p = semi + 1;
  if (!expect (&p, end, "\toffset:") || !parse_number_value (&p, end, MAX_FIELD_NUMBER, &offset)
      || !expect (&p, end, ";") || !expect (&p, end, "\tsize:")
      || !parse_number_value (&p, end, MAX_FIELD_NUMBER, &info->size) || !expect (&p, end, ";"))
    return FALSE;
  if (p < end)
    {
      if (!expect (&p, end, "\tsigned:") || p >= end || (*p != '0' && *p != '1'))
        return FALSE;
      p++;
      if (!expect (&p, end, ";"))
        return FALSE;
    }
  return p == end;
}

gboolean
rsp_tep_check_header_page (const char *text, gsize len)
{
  if (len == 0 || len > MAX_FORMAT_LEN || !text_printable (text, len))
    return FALSE;
  const char *end = text + len;
  guint fields = 0;
  for (const char *l = text; l < end;)
    {
      const char *nl = memchr (l, '\n', (gsize) (end - l));
      const char *eol = nl ? nl : end;
      if (eol > l)
        {
          FieldInfo info;
          if (!check_field_line (l, eol, TRUE, &info) || ++fields > 64)
            return FALSE;
        }
      l = nl ? nl + 1 : end;
    }
  return fields > 0;
}

/* ---- print fmt -------------------------------------------------------- */

typedef enum {
  T_END,
  T_IDENT,
  T_NUMBER,
  T_STRING,
  T_CHAR,
  T_PUNCT,
} TokKind;

typedef struct {
  TokKind kind;
  const char *start;
  gsize len;
} Tok;

typedef struct {
  Tok *toks;
  guint n, pos;
  guint depth;
  const GArray *fields; /* FieldInfo: the fields the format declares */
} Parser;

/* A field the expression names must be one the format declares:
 * libtraceevent dereferences the field it looks up. */
static const FieldInfo *
field_named (Parser *p, const Tok *t)
{
  for (guint i = 0; i < p->fields->len; i++)
    {
      const FieldInfo *f = &g_array_index (p->fields, FieldInfo, i);
      if (f->name_len == t->len && memcmp (f->name, t->start, t->len) == 0)
        return f;
    }
  return NULL;
}

static const char *const puncts[] = {
  "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
  "(", ")", "[", "]", "{", "}", ",", "?", ":", ".", "+", "-", "*", "/", "%",
  "<", ">", "&", "|", "^", "!", "~",
};

static gboolean
tokenize (const char *s, const char *end, GArray *out)
{
  while (s < end)
    {
      char c = *s;
      Tok t = { T_END, s, 0 };
      if (c == ' ' || c == '\t')
        {
          s++;
          continue;
        }
      if (is_ident_start (c))
        {
          while (s < end && is_ident_char (*s))
            s++;
          t.kind = T_IDENT;
          if (s - t.start > MAX_IDENT || rewritten_ident (t.start, (gsize) (s - t.start)))
            return FALSE;
        }
      else if (g_ascii_isdigit (c))
        {
          while (s < end && (g_ascii_isalnum (*s)))
            s++;
          t.kind = T_NUMBER;
          if (s - t.start > 24)
            return FALSE;
        }
      else if (c == '"' || c == '\'')
        {
          char quote = c;
          s++;
          while (s < end && *s != quote)
            {
              if (*s == '\\')
                {
                  s++;
                  if (s >= end)
                    return FALSE;
                }
              s++;
            }
          if (s >= end)
            return FALSE;
          s++;
          t.kind = quote == '"' ? T_STRING : T_CHAR;
          if (t.kind == T_CHAR && (s - t.start < 3 || s - t.start > 6))
            return FALSE;
        }
      else
        {
          for (gsize i = 0; i < G_N_ELEMENTS (puncts); i++)
            {
              gsize n = strlen (puncts[i]);
              if ((gsize) (end - s) >= n && memcmp (s, puncts[i], n) == 0)
                {
                  s += n;
                  t.kind = T_PUNCT;
                  break;
                }
            }
          if (t.kind != T_PUNCT)
            return FALSE;
        }
      t.len = (gsize) (s - t.start);
      g_array_append_val (out, t);
      if (out->len > MAX_TOKENS)
        return FALSE;
    }
  Tok t = { T_END, end, 0 };
  g_array_append_val (out, t);
  return TRUE;
}

static const Tok *
peek (Parser *p)
{
  return &p->toks[p->pos];
}

static gboolean
is_punct (const Tok *t, const char *s)
{
  return t->kind == T_PUNCT && t->start[0] == s[0] && t->len == strlen (s) && memcmp (t->start, s, t->len) == 0;
}

static gboolean
accept (Parser *p, const char *s)
{
  if (!is_punct (peek (p), s))
    return FALSE;
  p->pos++;
  return TRUE;
}

static gboolean
is_ident (const Tok *t, const char *s)
{
  return t->kind == T_IDENT && t->len == strlen (s) && memcmp (t->start, s, t->len) == 0;
}

static gboolean parse_cond (Parser *p, gboolean allow_string);

typedef enum { H_GET, H_FLAGS, H_SYMBOLIC, H_FIXED } HelperKind;

/* The helpers libtraceevent implements, with the arguments each takes. */
static const struct {
  const char *name;
  HelperKind kind;
  int args; /* H_FIXED: how many */
} helpers[] = {
  { "__print_flags", H_FLAGS, 0 },
  { "__print_symbolic", H_SYMBOLIC, 0 },
  { "__print_hex", H_FIXED, 2 },
  { "__print_hex_str", H_FIXED, 2 },
  { "__print_array", H_FIXED, 3 },
  { "__get_str", H_GET, 1 },
  { "__get_bitmask", H_GET, 1 },
  { "__get_cpumask", H_GET, 1 },
  { "__get_dynamic_array", H_GET, 1 },
  { "__get_dynamic_array_len", H_GET, 1 },
  { "__get_sockaddr", H_GET, 1 },
};

static gboolean
accept_strings (Parser *p)
{
  if (peek (p)->kind != T_STRING)
    return FALSE;
  while (peek (p)->kind == T_STRING)
    p->pos++;
  return TRUE;
}

/* The kernel ends some lists with { 0, NULL }, NULL spelled ((void *)0). */
static gboolean
accept_null (Parser *p)
{
  static const char *const spelled[] = { "(", "(", "void", "*", ")", "0", ")" };
  const Tok *t = peek (p);
  if (is_ident (t, "NULL"))
    {
      p->pos++;
      return TRUE;
    }
  if (p->pos + G_N_ELEMENTS (spelled) >= p->n)
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (spelled); i++)
    {
      const Tok *u = &p->toks[p->pos + i];
      if (u->len != strlen (spelled[i]) || memcmp (u->start, spelled[i], u->len) != 0)
        return FALSE;
    }
  p->pos += G_N_ELEMENTS (spelled);
  return TRUE;
}

/* __print_flags (VALUE, "DELIM", { V, "NAME" }…) and
 * __print_symbolic (VALUE, { V, "NAME" }…): libtraceevent takes each
 * initializer as exactly a value and a string. */
static gboolean
parse_flag_list (Parser *p, gboolean flags)
{
  if (!parse_cond (p, FALSE))
    return FALSE;
  if (flags && (!accept (p, ",") || !accept_strings (p)))
    return FALSE;
  guint pairs = 0;
  while (accept (p, ","))
    {
      if (!accept (p, "{") || !parse_cond (p, FALSE) || !accept (p, ",")
          || !(accept_strings (p) || accept_null (p)) || !accept (p, "}"))
        return FALSE;
      pairs++;
    }
  return pairs > 0 && accept (p, ")");
}

/* libtraceevent reads a field reference as REC->NAME and a helper's first
 * argument as a field: keep to those shapes. */
static gboolean
parse_call (Parser *p, const Tok *name)
{
  gssize h = -1;
  for (gsize i = 0; i < G_N_ELEMENTS (helpers); i++)
    if (name->len == strlen (helpers[i].name) && memcmp (name->start, helpers[i].name, name->len) == 0)
      h = (gssize) i;
  if (h < 0)
    return FALSE; /* a function libtraceevent does not know */
  switch (helpers[h].kind)
    {
    case H_GET:
      {
        /* __get_str(field) and its kin: a dynamic field of the format */
        const Tok *arg = peek (p);
        if (arg->kind != T_IDENT)
          return FALSE;
        const FieldInfo *f = field_named (p, arg);
        if (f == NULL || !f->dynamic || f->size != 4)
          return FALSE;
        p->pos++;
        return accept (p, ")");
      }
    case H_FLAGS:
    case H_SYMBOLIC:
      return parse_flag_list (p, helpers[h].kind == H_FLAGS);
    case H_FIXED:
    default:
      for (int i = 0; i < helpers[h].args; i++)
        if ((i > 0 && !accept (p, ",")) || !parse_cond (p, FALSE))
          return FALSE;
      return accept (p, ")");
    }
}

/* "(TYPE WORDS *)" ahead: identifiers and stars up to ')' followed by
 * something that starts an operand. */
static gboolean
cast_ahead (Parser *p)
{
  guint i = p->pos + 1, words = 0;
  for (; i < p->n; i++)
    {
      const Tok *t = &p->toks[i];
      if (t->kind == T_IDENT)
        words++;
      else if (!is_punct (t, "*"))
        break;
    }
  if (words == 0 || i + 1 >= p->n || !is_punct (&p->toks[i], ")"))
    return FALSE;
  const Tok *next = &p->toks[i + 1];
  return next->kind == T_IDENT || next->kind == T_NUMBER || next->kind == T_CHAR || is_punct (next, "(")
         || is_punct (next, "-") || is_punct (next, "!") || is_punct (next, "~") || is_punct (next, "*")
         || is_punct (next, "&");
}

static gboolean
parse_primary (Parser *p)
{
  const Tok *t = peek (p);
  switch (t->kind)
    {
    case T_NUMBER:
    case T_CHAR:
      p->pos++;
      return TRUE;
    case T_STRING: /* only where parse_cond allows it */
      return FALSE;
    case T_IDENT:
      p->pos++;
      if (is_ident (t, "REC"))
        {
          /* REC->field, a field of the format */
          if (!accept (p, "->") || peek (p)->kind != T_IDENT || field_named (p, peek (p)) == NULL)
            return FALSE;
          p->pos++;
          return TRUE;
        }
      if (accept (p, "("))
        return parse_call (p, t);
      return TRUE;
    case T_PUNCT:
      if (accept (p, "("))
        return parse_cond (p, FALSE) && accept (p, ")");
      return FALSE;
    case T_END:
    default:
      return FALSE;
    }
}

static gboolean
parse_postfix (Parser *p)
{
  if (!parse_primary (p))
    return FALSE;
  for (;;)
    {
      if (accept (p, "["))
        {
          if (!parse_cond (p, FALSE) || !accept (p, "]"))
            return FALSE;
        }
      else
        return TRUE;
    }
}

/* libtraceevent's tokenizer reads a run of operator characters as one
 * token: "|&" or "!!" would be one operator it does not know (a leak found
 * by fuzzing).  An operator may touch the next token only when that is an
 * operand or "(". */
static gboolean
operator_touches_next (Parser *p)
{
  const Tok *prev = &p->toks[p->pos - 1], *next = peek (p);
  return next->kind == T_PUNCT && !is_punct (next, "(") && next->start == prev->start + prev->len;
}

static gboolean
parse_unary (Parser *p)
{
  if (++p->depth > MAX_DEPTH)
    return FALSE;
  gboolean ok;
  /* the unary operators libtraceevent evaluates: no '&' or '*' (an
   * address-of after a binary operator leaked, found by fuzzing), no '+' */
  if (accept (p, "-") || accept (p, "!") || accept (p, "~"))
    ok = !operator_touches_next (p) && parse_unary (p);
  else if (is_punct (peek (p), "(") && cast_ahead (p))
    {
      p->pos++;
      while (!accept (p, ")"))
        p->pos++;
      ok = parse_unary (p);
    }
  else
    ok = parse_postfix (p);
  p->depth--;
  return ok;
}

static const char *const binops[] = {
  "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "&&", "||",
};

static const char *
accept_binop (Parser *p)
{
  if (peek (p)->kind != T_PUNCT)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (binops); i++)
    if (accept (p, binops[i]))
      return binops[i];
  return NULL;
}

/* libtraceevent evaluates the print fmt with the record's values: a
 * division by a field of value 0 kills the process (SIGFPE).  A divisor must
 * be a literal other than 0. */
static gboolean
divisor_ok (Parser *p)
{
  const Tok *t = peek (p);
  if (t->kind != T_NUMBER)
    return FALSE;
  char digits[32];
  gsize n = MIN (t->len, sizeof digits - 1);
  memcpy (digits, t->start, n);
  digits[n] = 0;
  return g_ascii_strtoull (digits, NULL, 0) != 0;
}

/* An indexed operand ("x[1]", "REC->f[2]") next: libtraceevent
 * dereferences NULL on one that starts the last branch of "?:"
 * ("c ? a : x[1]", found by fuzzing). */
static gboolean
indexed_ahead (Parser *p)
{
  guint pos = p->pos, depth = p->depth;
  gboolean indexed = parse_primary (p) && is_punct (peek (p), "[");
  p->pos = pos;
  p->depth = depth;
  return indexed;
}

/* ALLOW_STRING: a string literal may stand here alone (an argument of
 * the print fmt, a branch of ?:); never as an operand of an operator, which
 * libtraceevent does not expect. */
static gboolean
parse_cond (Parser *p, gboolean allow_string)
{
  if (allow_string && accept_strings (p))
    return TRUE;
  if (++p->depth > MAX_DEPTH)
    return FALSE;
  gboolean ok = parse_unary (p);
  const char *op;
  while (ok && (op = accept_binop (p)) != NULL)
    ok = !operator_touches_next (p) && ((op[0] != '/' && op[0] != '%') || divisor_ok (p)) && parse_unary (p);
  if (ok && accept (p, "?"))
    ok = parse_cond (p, TRUE) && accept (p, ":") && !indexed_ahead (p) && parse_cond (p, TRUE);
  p->depth--;
  return ok;
}

static gboolean
check_print_fmt (const char *text, gsize len, const GArray *fields)
{
  if (len > MAX_FORMAT_LEN || !text_printable (text, len) || memchr (text, '\n', len) != NULL)
    return FALSE;
  g_autoptr (GArray) toks = g_array_sized_new (FALSE, FALSE, sizeof (Tok), 512);
  if (!tokenize (text, text + len, toks))
    return FALSE;
  Parser p = { (Tok *) toks->data, toks->len, 0, 0, fields };
  /* the format string first, then its arguments */
  if (peek (&p)->kind != T_STRING)
    return FALSE;
  while (peek (&p)->kind == T_STRING)
    p.pos++;
  while (accept (&p, ","))
    if (!parse_cond (&p, TRUE))
      return FALSE;
  return peek (&p)->kind == T_END;
}


/* ---- whole formats ---------------------------------------------------- */

static RspTepFormatCheck
check_format (const char *text, gsize len, gboolean with_print, char **fixed)
{
  if (fixed != NULL)
    *fixed = NULL;
  if (len == 0 || len > MAX_FORMAT_LEN || !text_printable (text, len))
    return RSP_TEP_FORMAT_BAD;
  const char *end = text + len;
  const char *l = text, *nl;

  /* name: IDENT */
  nl = memchr (l, '\n', (gsize) (end - l));
  if (nl == NULL || !expect (&l, nl, "name: ") || l == nl || !is_ident_start (*l))
    return RSP_TEP_FORMAT_BAD;
  for (const char *q = l; q < nl; q++)
    if (!is_ident_char (*q))
      return RSP_TEP_FORMAT_BAD;
  if (nl - l > MAX_IDENT || rewritten_ident (l, (gsize) (nl - l)))
    return RSP_TEP_FORMAT_BAD;
  l = nl + 1;

  /* ID: DIGITS */
  nl = memchr (l, '\n', (gsize) (end - l));
  if (nl == NULL || !expect (&l, nl, "ID: ") || !parse_number (&l, nl, G_MAXINT32) || l != nl)
    return RSP_TEP_FORMAT_BAD;
  l = nl + 1;

  nl = memchr (l, '\n', (gsize) (end - l));
  if (nl == NULL || !expect (&l, nl, "format:") || l != nl)
    return RSP_TEP_FORMAT_BAD;
  l = nl + 1;

  guint fields = 0;
  const char *print = NULL;
  g_autoptr (GArray) names = g_array_sized_new (FALSE, FALSE, sizeof (FieldInfo), 32);
  while (l < end)
    {
      nl = memchr (l, '\n', (gsize) (end - l));
      const char *eol = nl ? nl : end;
      const char *p = l;
      if (expect (&p, eol, "print fmt: "))
        {
          print = l;
          break;
        }
      if (eol > l)
        {
          FieldInfo info;
          if (!check_field_line (l, eol, FALSE, &info) || ++fields > MAX_FIELDS)
            return RSP_TEP_FORMAT_BAD;
          /* two fields of one name: libtraceevent would find either */
          Tok name = { T_IDENT, info.name, info.name_len };
          Parser lookup = { NULL, 0, 0, 0, names };
          if (field_named (&lookup, &name) != NULL)
            return RSP_TEP_FORMAT_BAD;
          g_array_append_val (names, info);
        }
      l = nl ? nl + 1 : end;
    }
  if (fields == 0 || print == NULL)
    return RSP_TEP_FORMAT_BAD;

  /* the print fmt runs to the end of the text (one line, maybe a final
   * newline) */
  const char *expr = print + strlen ("print fmt: ");
  const char *expr_end = end;
  while (expr_end > expr && (expr_end[-1] == '\n' || expr_end[-1] == ' '))
    expr_end--;
  if (with_print && check_print_fmt (expr, (gsize) (expr_end - expr), names))
    return RSP_TEP_FORMAT_OK;
  if (fixed != NULL)
    {
      g_autofree char *head = g_strndup (text, (gsize) (expr - text));
      *fixed = g_strconcat (head, "\"\"\n", NULL);
    }
  return RSP_TEP_FORMAT_NO_PRINT;
}

RspTepFormatCheck
rsp_tep_check_format (const char *text, gsize len, char **fixed)
{
  return check_format (text, len, TRUE, fixed);
}

RspTepFormatCheck
rsp_tep_check_format_fields (const char *text, gsize len, char **fixed)
{
  return check_format (text, len, FALSE, fixed);
}

char *
rsp_tep_format_text (const char *text, gsize len, gboolean with_print)
{
  char *fixed = NULL;
  switch (check_format (text, len, with_print, &fixed))
    {
    case RSP_TEP_FORMAT_BAD:
      return NULL;
    case RSP_TEP_FORMAT_NO_PRINT:
      return fixed;
    case RSP_TEP_FORMAT_OK:
      break;
    }
  return g_strndup (text, len);
}

/* ---- printk formats and saved command lines ---------------------------- */

char *
rsp_tep_clean_printk (const char *text, gsize len)
{
  if (len > 4 * 1024 * 1024 || !text_printable (text, len))
    return NULL;
  const char *end = text + len;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GString *out = g_string_new (NULL);
  for (const char *l = text; l < end;)
    {
      const char *nl = memchr (l, '\n', (gsize) (end - l));
      const char *eol = nl ? nl : end;
      if (eol > l)
        {
          /* 0xADDR : "text" */
          const char *p = l;
          if (!expect (&p, eol, "0x"))
            goto bad;
          const char *hex = p;
          while (p < eol && g_ascii_isxdigit (*p))
            p++;
          if (p == hex || p - hex > 16 || !expect (&p, eol, " : \"") || eol - p < 1 || eol[-1] != '"')
            goto bad;
          const char *body = p, *body_end = eol - 1;
          for (const char *q = body; q < body_end; q++)
            if (*q == '"' && (q == body || q[-1] != '\\'))
              goto bad; /* a quote inside the text */
          g_autofree char *digits = g_strndup (hex, (gsize) (p - 4 - hex));
          gint64 addr = (gint64) g_ascii_strtoull (digits, NULL, 16);
          /* one text per address; and libtraceevent reads before a text
           * shorter than two characters (it looks for a final "\n"): such
           * a line is dropped */
          if (body_end - body >= 2 && !g_hash_table_contains (seen, &addr))
            {
              g_hash_table_add (seen, g_memdup2 (&addr, sizeof addr));
              g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x : \"%.*s\"\n", (guint64) addr,
                                      (int) (body_end - body), body);
            }
        }
      l = nl ? nl + 1 : end;
    }
  return g_string_free (out, FALSE);
bad:
  g_string_free (out, TRUE);
  return NULL;
}

gboolean
rsp_tep_check_printk (const char *text, gsize len)
{
  g_autofree char *clean = rsp_tep_clean_printk (text, len);
  return clean != NULL;
}
