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

#ifndef KILN_CGIT2_H
#define KILN_CGIT2_H

#include <git2.h>

/* libgit2 is opened on first use (`git2.c`), not at process start. */

/* Why libgit2 cannot be opened, or NULL when it can: checked before the first libgit2 call. */
const char *kiln_git_error(void);

/* git_libgit2_opts is variadic and cannot be called from Swift: typed wrappers. */
int kiln_git_set_owner_validation(int enabled);
int kiln_git_set_ssl_cert_locations(const char *file, const char *path);

#endif
