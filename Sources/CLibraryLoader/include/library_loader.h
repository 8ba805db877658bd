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

#ifndef KILN_LIBRARY_LOADER_H
#define KILN_LIBRARY_LOADER_H

#include <pthread.h>

/* A shared library opened on first use with dlopen(3) instead of at process start: `kiln
   trigger` and the other short commands need neither libgit2 nor libcurl, and the dynamic
   loader would spend ~10 ms mapping and relocating them and their 40 dependencies. */
typedef struct {
    const char *soname;    /* what dlopen(3) is given, such as "libgit2.so.1.5" */
    const char *package;   /* the Debian package that installs it, for the error */
    pthread_once_t once;
    void *handle;          /* written once, under `once` */
    const char *error;     /* dlerror(3) when it could not be opened */
} kiln_library;

#define KILN_LIBRARY(soname, package) { soname, package, PTHREAD_ONCE_INIT, 0, 0 }

/* Why `library` cannot be opened, or NULL when it is open. Opens it on the first call. */
const char *kiln_library_error(kiln_library *library);

/* The address of `name` in `library`. A library or symbol missing ends the process with a
   message naming the package to install: callers check `kiln_library_error` at start first. */
void *kiln_library_symbol(kiln_library *library, const char *name);

/* Defines `name` with the library's signature: it calls the library's `name`, looked up once. */
#define KILN_FORWARD(library, ret, name, params, args)                                  \
    ret name params {                                                                  \
        typedef ret(*kiln_function) params;                                            \
        static kiln_function _Atomic resolved;                                         \
        kiln_function function = resolved;                                             \
        if (!function) resolved = function = (kiln_function)kiln_library_symbol(&library, #name); \
        return function args;                                                          \
    }

/* KILN_FORWARD for a function returning void. */
#define KILN_FORWARD_VOID(library, name, params, args)                                  \
    void name params {                                                                 \
        typedef void(*kiln_function) params;                                           \
        static kiln_function _Atomic resolved;                                         \
        kiln_function function = resolved;                                             \
        if (!function) resolved = function = (kiln_function)kiln_library_symbol(&library, #name); \
        function args;                                                                 \
    }

#endif
