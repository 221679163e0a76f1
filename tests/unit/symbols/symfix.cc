// Fixture for test-symbols: a C++ method whose demangled name is checked.
#include "symfix.h"

namespace ns {
class Klass {
public:
  __attribute__ ((noinline)) int method (int x);
};

int
Klass::method (int x)
{
  __asm__ volatile ("" ::: "memory");
  return x + 40;
}
} // namespace ns

extern "C" void *
symfix_cxx_method_address (void)
{
  int (ns::Klass::*pm) (int) = &ns::Klass::method;
  void *p;
  static_assert (sizeof pm >= sizeof p, "member pointer layout");
  // Itanium ABI: a non-virtual member function pointer starts with the
  // function's address.
  __builtin_memcpy (&p, &pm, sizeof p);
  return p;
}

extern "C" int
symfix_cxx_call (int x)
{
  ns::Klass k;
  return k.method (x);
}
