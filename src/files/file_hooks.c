/* file_hooks.c - the tests' settings of a run of files (file_hooks.h), zero unless set. */
#include "file_hooks.h"

file_test_hooks file_hooks;
