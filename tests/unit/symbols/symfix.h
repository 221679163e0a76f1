/* Fixture for test-symbols: what libsymfix.so exports. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

int symfix_c_function (int x);
/* Address of a static (local-symbol) function: only .symtab names it. */
void *symfix_static_helper_address (void);
/* Address of ns::Klass::method(int). */
void *symfix_cxx_method_address (void);
int symfix_cxx_call (int x);
/* Calls getpid() through the PLT. */
int symfix_call_getpid (void);

#ifdef __cplusplus
}
#endif
