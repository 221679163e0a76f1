/* fuzz-replay.c — runs the fuzz target without libFuzzer, so that every
 * build (gcc, ASan, UBSan) checks the reader on the seed corpus and on
 * deterministic damage: every file whole, cut at many lengths, and with
 * bytes overwritten at seeded random positions.
 *
 *   fuzz-replay [--mutations N] FILE...
 *
 * Each input is copied into a buffer of exactly its size, so that a read
 * past the end is caught by ASan.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
run_copy (const guint8 *data, gsize size)
{
  guint8 *copy = g_malloc (size ? size : 1);
  memcpy (copy, data, size);
  LLVMFuzzerTestOneInput (copy, size);
  g_free (copy);
}

static guint
replay_file (const char *path, guint mutations)
{
  g_autofree char *contents = NULL;
  gsize size = 0;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (path, &contents, &size, &error))
    {
      fprintf (stderr, "fuzz-replay: %s\n", error->message);
      exit (1);
    }
  const guint8 *data = (const guint8 *) contents;
  guint runs = 0;

  run_copy (data, size);
  runs++;

  /* Every 8th length up to 512 bytes (header, attrs), then 50 cuts. */
  for (gsize cut = 0; cut < MIN (size, 512); cut += 8, runs++)
    run_copy (data, cut);
  for (gsize i = 1; i < 50 && size > 512; i++, runs++)
    run_copy (data, 512 + (size - 512) * i / 50);

  GRand *rand = g_rand_new_with_seed (0x5eed + (guint32) size);
  guint8 *buf = g_malloc (size ? size : 1);
  for (guint m = 0; m < mutations && size > 0; m++)
    {
      memcpy (buf, data, size);
      guint n = g_rand_int_range (rand, 1, 9);
      for (guint i = 0; i < n; i++)
        {
          /* Half the damage lands in the first 4 KiB, where sizes and
           * offsets live. */
          gsize limit = g_rand_boolean (rand) ? MIN (size, 4096) : size;
          gsize pos = (gsize) g_rand_double_range (rand, 0, (double) limit);
          static const guint8 values[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
          buf[MIN (pos, size - 1)] = g_rand_boolean (rand)
                                       ? values[g_rand_int_range (rand, 0, G_N_ELEMENTS (values))]
                                       : (guint8) g_rand_int_range (rand, 0, 256);
        }
      run_copy (buf, size);
      runs++;
    }
  g_free (buf);
  g_rand_free (rand);
  return runs;
}

int
main (int argc, char **argv)
{
  guint mutations = 100;
  int first = 1;
  if (argc > 2 && strcmp (argv[1], "--mutations") == 0)
    {
      mutations = (guint) strtoul (argv[2], NULL, 10);
      first = 3;
    }
  if (first >= argc)
    {
      fprintf (stderr, "usage: fuzz-replay [--mutations N] FILE...\n");
      return 2;
    }
  LLVMFuzzerInitialize (&argc, &argv);
  guint total = 0;
  for (int i = first; i < argc; i++)
    {
      guint runs = replay_file (argv[i], mutations);
      printf ("%s: %u inputs\n", argv[i], runs);
      total += runs;
    }
  printf ("fuzz-replay: %u inputs, no crash\n", total);
  return 0;
}
