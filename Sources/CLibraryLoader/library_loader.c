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

#include "library_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pthread_once takes no argument: the library being opened is passed through a thread-local. */
static _Thread_local kiln_library *opening;

/* Lazy binding: each function the library (or one it loads) calls is looked up on its first
   call, not all at once: binding libgit2 and what it loads (mbedtls, libssh2, …) up front took
   ~5 ms of every `kiln run`. Kiln's own uses are looked up here, by kiln_library_symbol. */
static void kiln_library_open(void) {
    kiln_library *library = opening;
    library->handle = dlopen(library->soname, RTLD_LAZY | RTLD_LOCAL);
    if (!library->handle) library->error = strdup(dlerror());
}

const char *kiln_library_error(kiln_library *library) {
    opening = library;
    pthread_once(&library->once, kiln_library_open);
    return library->error;
}

void *kiln_library_symbol(kiln_library *library, const char *name) {
    const char *error = kiln_library_error(library);
    void *symbol = error ? 0 : dlsym(library->handle, name);
    if (!symbol) {
        fprintf(stderr, "kiln: cannot use %s from %s: %s. Install it with `apt-get install %s`.\n", name, library->soname,
                error ? error : dlerror(), library->package);
        abort();
    }
    return symbol;
}
