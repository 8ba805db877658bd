#ifndef KILN_CMALLOC_SHIM_H
#define KILN_CMALLOC_SHIM_H

#include <malloc.h>

/* M_ARENA_MAX is a negative macro; one function keeps the constant on the C side. */
static inline int kiln_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#endif
