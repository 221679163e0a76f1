/* dio_read — creates a 4 MiB file, reads it back with O_DIRECT so that every
 * read goes to the block device (block:block_rq_* fire), then removes it.
 *
 * Usage: dio_read [DIR [BLOCK_SIZE [PASSES]]]
 *        (defaults: /var/tmp, 4096, 2).  DIR must be on a real block-device
 *        file system: tmpfs does not support O_DIRECT.
 * Stacks show dio_read_work (the read loop) above dio_read_block (pread)
 * and dio_write_file (creating the file).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline))
#define FILE_SIZE (4u << 20)
#define ALIGNMENT 4096

static char path[4096];

static void
die (const char *what)
{
  int saved = errno;
  if (path[0])
    unlink (path);
  fprintf (stderr, "dio_read: %s: %s\n", what, strerror (saved));
  exit (1);
}

/* Fills the file with a pattern and forces it to the disk, so that the
 * direct reads below find it there. */
NOINLINE void
dio_write_file (int fd, unsigned char *buf, size_t block)
{
  for (size_t off = 0; off < FILE_SIZE; off += block)
    {
      for (size_t i = 0; i < block; i++)
        buf[i] = (unsigned char) ((off + i) * 31u >> 3);
      if (pwrite (fd, buf, block, (off_t) off) != (ssize_t) block)
        die ("write");
    }
  if (fsync (fd) < 0)
    die ("fsync");
}

NOINLINE ssize_t
dio_read_block (int fd, unsigned char *buf, size_t block, off_t off)
{
  ssize_t n;
  do
    n = pread (fd, buf, block, off);
  while (n < 0 && errno == EINTR);
  return n;
}

/* Reads the whole file with O_DIRECT, PASSES times; returns a checksum. */
NOINLINE unsigned long
dio_read_work (int fd, unsigned char *buf, size_t block, unsigned passes)
{
  unsigned long sum = 0;
  for (unsigned p = 0; p < passes; p++)
    for (size_t off = 0; off < FILE_SIZE; off += block)
      {
        ssize_t n = dio_read_block (fd, buf, block, (off_t) off);
        if (n != (ssize_t) block)
          die ("O_DIRECT read");
        sum += buf[0] + buf[block - 1];
      }
  return sum;
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : "/var/tmp";
  size_t block = argc > 2 ? strtoul (argv[2], NULL, 0) : 4096;
  unsigned passes = argc > 3 ? (unsigned) strtoul (argv[3], NULL, 0) : 2;

  if (block < ALIGNMENT || block % ALIGNMENT || FILE_SIZE % block)
    {
      fprintf (stderr, "dio_read: block size must be a multiple of %d dividing 4 MiB\n", ALIGNMENT);
      return 2;
    }
  unsigned char *buf;
  if (posix_memalign ((void **) &buf, ALIGNMENT, block) != 0)
    {
      fprintf (stderr, "dio_read: out of memory\n");
      return 1;
    }

  snprintf (path, sizeof path, "%s/rsp-dio-read-XXXXXX", dir);
  int wfd = mkstemp (path);
  if (wfd < 0)
    {
      path[0] = '\0';
      die (dir);
    }
  dio_write_file (wfd, buf, block);
  close (wfd);

  int fd = open (path, O_RDONLY | O_DIRECT);
  if (fd < 0)
    {
      if (errno == EINVAL)
        fprintf (stderr, "dio_read: %s does not support O_DIRECT (tmpfs?); "
                         "give a directory on a disk file system\n", dir);
      die ("open O_DIRECT");
    }
  unsigned long sum = dio_read_work (fd, buf, block, passes);
  close (fd);
  if (unlink (path) < 0)
    die ("unlink");
  free (buf);
  printf ("dio_read: read %u x 4 MiB in %zu-byte blocks (checksum %lu)\n", passes, block, sum);
  return 0;
}
