/* The ASan test run's sanitizer options against the runtime of Debian 12's
 * gcc (libasan.so.8): it takes a dynamic TLS block whose address ends in
 * 0x010 for glibc 2.19's layout, reads a "start" from the 16 bytes before
 * it (ASan's chunk header) and LeakSanitizer segfaults at exit scanning from
 * there ("Tracer caught signal 11").  The test setup turns that guess off
 * (intercept_tls_get_addr=0, tests/meson.build).
 *
 * This program puts the TLS block of a dlopen()ed library at such an
 * address (the allocator hands out a fresh size class's chunks in order:
 * it allocates blocks of the same size until the next one lands there),
 * keeps a heap block reachable only from that TLS, and exits.  It passes
 * when it exits 0 with no leak reported: no crash at exit, and the block
 * held in TLS is still found reachable.  Usage: asan-tls-at-exit MODULE */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TLS_BLOCK_SIZE 24
#define MAX_FILL 100000

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: %s MODULE\n", argv[0]);
      return 2;
    }
  void *module = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  if (module == NULL)
    {
      fprintf (stderr, "cannot load %s: %s\n", argv[1], dlerror ());
      return 1;
    }
  void *(*hold) (void) = NULL;
  *(void **) &hold = dlsym (module, "rsp_test_tls_hold");
  if (hold == NULL)
    {
      fprintf (stderr, "%s has no rsp_test_tls_hold\n", argv[1]);
      return 1;
    }

  /* fill the size class until its next chunk's address ends in 0x010 */
  static void *fill[MAX_FILL];
  int n = 0;
  fill[n++] = malloc (TLS_BLOCK_SIZE);
  fill[n++] = malloc (TLS_BLOCK_SIZE);
  intptr_t stride = (intptr_t) fill[1] - (intptr_t) fill[0];
  while (n < MAX_FILL && (((uintptr_t) fill[n - 1] + (uintptr_t) stride) & 0xfff) != 0x010)
    fill[n++] = malloc (TLS_BLOCK_SIZE);
  void *block = hold ();
  printf ("TLS block at %p after %d blocks of %d bytes (stride %ld)\n", block, n, TLS_BLOCK_SIZE, (long) stride);
  for (int i = 0; i < n; i++)
    free (fill[i]);
  if (((uintptr_t) block & 0xfff) != 0x010)
    {
      fprintf (stderr, "FAIL: the TLS block does not lie at an address ending in 0x010: the test proves nothing\n");
      return 1;
    }
  return 0;
}
