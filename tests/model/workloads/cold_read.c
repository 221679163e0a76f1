/* cold_read — writes a file, drops it from the page cache, reads it back:
 * the read waits for the disk.
 *
 * Usage: cold_read [MB [DIR]]   (defaults: 32 MiB in /var/tmp: a real file
 *        system, not tmpfs)
 * The file is written and fsynced (write_file), dropped from the page cache
 * with posix_fadvise(POSIX_FADV_DONTNEED) (checked with mincore), read
 * sequentially in 128 KiB reads (cold_read_file), and removed.
 * Planted cause: blocking disk I/O (and I/O queue time) under read() in
 * cold_read_file.
 */
#include "workload.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define CHUNK (1024 * 1024)
#define READ_SIZE (128 * 1024)

NOINLINE void
write_file (int fd, size_t size)
{
  char *buf = malloc (CHUNK);
  if (buf == NULL)
    die ("malloc");
  for (size_t done = 0; done < size; done += CHUNK)
    {
      for (size_t i = 0; i < CHUNK; i += 64)
        buf[i] = (char) ((done + i) / 64 * 2654435761u >> 24);
      write_full (fd, buf, CHUNK);
    }
  if (fsync (fd) < 0)
    die ("fsync");
  free (buf);
}

/* Pages of the file still in the page cache. */
static size_t
cached_pages (int fd, size_t size)
{
  void *map = mmap (NULL, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    die ("mmap");
  long page = sysconf (_SC_PAGESIZE);
  size_t n = (size + (size_t) page - 1) / (size_t) page;
  unsigned char *vec = malloc (n);
  if (vec == NULL)
    die ("malloc");
  if (mincore (map, size, vec) < 0)
    die ("mincore");
  size_t cached = 0;
  for (size_t i = 0; i < n; i++)
    cached += vec[i] & 1;
  free (vec);
  munmap (map, size);
  return cached;
}

NOINLINE unsigned long
cold_read_file (int fd)
{
  char *buf = malloc (READ_SIZE);
  if (buf == NULL)
    die ("malloc");
  unsigned long sum = 0;
  for (;;)
    {
      ssize_t n = read (fd, buf, READ_SIZE);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("read");
      if (n == 0)
        break;
      for (ssize_t i = 0; i < n; i += 4096)
        sum += (unsigned char) buf[i];
    }
  free (buf);
  return sum;
}

int
main (int argc, char **argv)
{
  workload_name = "cold_read";
  size_t size = (argc > 1 ? strtoul (argv[1], NULL, 0) : 32) * CHUNK;
  const char *dir = argc > 2 ? argv[2] : "/var/tmp";
  char path[4096];
  snprintf (path, sizeof path, "%s/rsp-cold-read-%d.dat", dir, (int) getpid ());

  int fd = open (path, O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0)
    die (path);
  write_file (fd, size);
  int err = posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  if (err != 0)
    {
      errno = err;
      die ("posix_fadvise");
    }
  struct stat st;
  if (fstat (fd, &st) < 0)
    die ("fstat");
  size_t still = cached_pages (fd, size);
  if (lseek (fd, 0, SEEK_SET) < 0)
    die ("lseek");
  unsigned long sum = cold_read_file (fd);
  close (fd);
  if (unlink (path) < 0)
    die ("unlink");
  printf ("cold_read: %zu MiB from %s, %zu pages still cached before the read (sum %lu), file %s, inode %llu on "
          "device %u:%u\n",
          size / CHUNK, dir, still, sum, path, (unsigned long long) st.st_ino, major (st.st_dev), minor (st.st_dev));
  return 0;
}
