// C++ workload for the recording tests: its functions' names are mangled
// in the binary (a namespace, a class, a template, an overload), so rsp's
// names of them come from the C++ demangler, as perf script's do.
#include <cstdlib>
#include <ctime>

namespace rsp_cxx {

static double
now_ms ()
{
  timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

template <typename T>
__attribute__ ((noinline)) T
accumulate (T seed, int n)
{
  volatile T sum = seed;
  for (int i = 0; i < n; i++)
    sum = sum + static_cast<T> (i);
  return sum;
}

class Spinner
{
public:
  __attribute__ ((noinline)) long spin (int rounds);
  __attribute__ ((noinline)) long spin (double scale);
};

long
Spinner::spin (int rounds)
{
  long total = 0;
  for (int r = 0; r < rounds; r++)
    total += accumulate<long> (r, 20000);
  return total;
}

long
Spinner::spin (double scale)
{
  return static_cast<long> (accumulate<double> (scale, 20000));
}

} // namespace rsp_cxx

int
main (int argc, char **argv)
{
  double ms = argc > 1 ? std::atof (argv[1]) : 300;
  rsp_cxx::Spinner s;
  double start = rsp_cxx::now_ms ();
  long total = 0;
  while (rsp_cxx::now_ms () - start < ms)
    total += s.spin (8) + s.spin (1.5);
  return total == 42 ? 1 : 0;
}
