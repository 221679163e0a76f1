/* rsp-interner.c — see rsp-interner.h.
 *
 * Open addressing over a power-of-two table of (hash, length, pointer),
 * at most half full; the text itself in a GStringChunk. */
#include "rsp-interner.h"

#include <string.h>

typedef struct {
  guint64 hash;
  const char *text; /* NULL: an empty slot */
  gsize len;
} Slot;

struct _RspInterner {
  GStringChunk *chunk;
  Slot *slots;
  gsize mask, used;
};

RspInterner *
rsp_interner_new (void)
{
  RspInterner *self = g_new0 (RspInterner, 1);
  self->chunk = g_string_chunk_new (16 * 1024);
  self->mask = 255;
  self->slots = g_new0 (Slot, self->mask + 1);
  return self;
}

void
rsp_interner_free (RspInterner *self)
{
  if (self == NULL)
    return;
  g_string_chunk_free (self->chunk);
  g_free (self->slots);
  g_free (self);
}

guint
rsp_interner_size (const RspInterner *self)
{
  return (guint) self->used;
}

/* Eight bytes at a time (the tail zero-padded), then mixed so that the
 * low bits, which pick the slot, depend on every byte. */
static guint64
text_hash (const char *s, gsize len)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325) ^ len;
  gsize i = 0;
  for (; i + 8 <= len; i += 8)
    {
      guint64 w;
      memcpy (&w, s + i, 8);
      h = (h ^ w) * G_GUINT64_CONSTANT (0x100000001b3);
      h ^= h >> 32;
    }
  if (i < len)
    {
      guint64 w = 0;
      memcpy (&w, s + i, len - i);
      h = (h ^ w) * G_GUINT64_CONSTANT (0x100000001b3);
    }
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  h ^= h >> 33;
  return h;
}

static void
grow (RspInterner *self)
{
  gsize old_n = self->mask + 1;
  Slot *old = self->slots;
  self->mask = old_n * 2 - 1;
  self->slots = g_new0 (Slot, self->mask + 1);
  for (gsize i = 0; i < old_n; i++)
    if (old[i].text != NULL)
      {
        gsize k = old[i].hash & self->mask;
        while (self->slots[k].text != NULL)
          k = (k + 1) & self->mask;
        self->slots[k] = old[i];
      }
  g_free (old);
}

const char *
rsp_interner_intern_len (RspInterner *self, const char *s, gsize len)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (s == NULL)
    return NULL;
  len = strnlen (s, len); /* the text is a C string: up to a NUL */
  guint64 h = text_hash (s, len);
  gsize k = h & self->mask;
  for (;; k = (k + 1) & self->mask)
    {
      Slot *slot = &self->slots[k];
      if (slot->text == NULL)
        break;
      if (slot->hash == h && slot->len == len && memcmp (slot->text, s, len) == 0)
        return slot->text;
    }
  const char *text = g_string_chunk_insert_len (self->chunk, s, (gssize) len);
  if (2 * (self->used + 1) > self->mask + 1)
    {
      grow (self);
      k = h & self->mask;
      while (self->slots[k].text != NULL)
        k = (k + 1) & self->mask;
    }
  self->slots[k] = (Slot){ h, text, len };
  self->used++;
  return text;
}

const char *
rsp_interner_intern (RspInterner *self, const char *s)
{
  return s != NULL ? rsp_interner_intern_len (self, s, strlen (s)) : NULL;
}
