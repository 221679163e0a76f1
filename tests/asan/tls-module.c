/* A library with thread-local storage, loaded by tls-at-exit.c with
 * dlopen(): glibc gives it a dynamic TLS block (malloc'ed) in each thread
 * that touches it, as it does GTK's modules in the viewer. */
#include <stdlib.h>

__attribute__ ((visibility ("default"))) void *rsp_test_tls_hold (void);

/* 24 bytes: the block is a malloc (24) */
static __thread void *held[3];

/* Stores a heap block in this thread's TLS (reachable only from there) and
 * returns where the TLS block lies. */
void *
rsp_test_tls_hold (void)
{
  if (held[0] == NULL)
    held[0] = malloc (100);
  return held;
}
