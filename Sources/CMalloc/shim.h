//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CMALLOC_SHIM_H
#define KILN_CMALLOC_SHIM_H

#include <malloc.h>

/* M_ARENA_MAX is a negative macro; one function keeps the constant on the C side. */
static inline int kiln_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

#endif
