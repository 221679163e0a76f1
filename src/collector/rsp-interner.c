/* rsp-interner.c — see rsp-interner.h.
 *
 * Open addressing over a power-of-two table of (hash, length, pointer),
 * at most half full; the text itself in a GStringChunk. */
#include "rsp-interner.h"
#include "rsp-disk-cache.h"

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

/* The project's word-wise hash (rsp-disk-cache.h), then mixed so that
 * the low bits, which pick the slot, depend on every byte. */
static guint64
text_hash (const char *s, gsize len)
{
  guint64 h = rsp_disk_cache_hash (RSP_DISK_CACHE_HASH_INIT ^ len, s, len);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  return h;
}

/* The first empty slot on HASH's probe sequence. */
static Slot *
empty_slot (RspInterner *self, guint64 hash)
{
  gsize k = hash & self->mask;
  while (self->slots[k].text != NULL)
    k = (k + 1) & self->mask;
  return &self->slots[k];
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
      *empty_slot (self, old[i].hash) = old[i];
  g_free (old);
}

/* S of LEN bytes, none of them NUL. */
static const char *
intern (RspInterner *self, const char *s, gsize len)
{
  guint64 h = text_hash (s, len);
  for (gsize k = h & self->mask; self->slots[k].text != NULL; k = (k + 1) & self->mask)
    {
      const Slot *slot = &self->slots[k];
      if (slot->hash == h && slot->len == len && memcmp (slot->text, s, len) == 0)
        return slot->text;
    }
  if (2 * (self->used + 1) > self->mask + 1)
    grow (self);
  const char *text = g_string_chunk_insert_len (self->chunk, s, (gssize) len);
  *empty_slot (self, h) = (Slot){ h, text, len };
  self->used++;
  return text;
}

const char *
rsp_interner_intern_len (RspInterner *self, const char *s, gsize len)
{
  g_return_val_if_fail (self != NULL, NULL);
  /* the text is a C string: up to a NUL */
  return s != NULL ? intern (self, s, strnlen (s, len)) : NULL;
}

const char *
rsp_interner_intern (RspInterner *self, const char *s)
{
  g_return_val_if_fail (self != NULL, NULL);
  return s != NULL ? intern (self, s, strlen (s)) : NULL;
}
