/* Fixture for test-symbols: a shared library with known function names.
 * The test dlopen()s it and resolves the addresses dlsym() gives through
 * RspSymbolizer, with maps taken from /proc/self/maps. */
#include "symfix.h"

#include <unistd.h>

/* noinline + the empty asm keep each function a real, distinct frame. */
static __attribute__ ((noinline)) int
symfix_static_helper (int x)
{
  __asm__ volatile ("" ::: "memory");
  return x * 3 + 1;
}

int
symfix_c_function (int x)
{
  int r = symfix_static_helper (x);
  __asm__ volatile ("" ::: "memory");
  return r + 2;
}

void *
symfix_static_helper_address (void)
{
  return (void *) symfix_static_helper;
}

int
symfix_call_getpid (void)
{
  /* A call into libc through this library's PLT: a "getpid@plt" stub. */
  return (int) getpid ();
}
