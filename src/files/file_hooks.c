/* file_hooks.c - the tests' settings of a run of files (file_hooks.h), zero unless set; in
 * the test builds only. */
#include "file_hooks.h"

#ifdef TILEDCONV_TEST_HOOKS
file_test_hooks file_hooks;
#else
/* ISO C wants a declaration in every file; the product has no hooks. */
typedef file_test_hooks file_hooks_absent;
#endif
