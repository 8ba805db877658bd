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

#ifndef KILN_CCURL_H
#define KILN_CCURL_H

#include <curl/curl.h>

/* libcurl is opened on first use (`curl.c`), not at process start. */

/* Why libcurl cannot be opened, or NULL when it can: checked before the first libcurl call. */
const char *kiln_curl_error(void);

/* curl_easy_setopt and curl_easy_getinfo are variadic and cannot be called from Swift:
   one typed wrapper per argument type. */
CURLcode kiln_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode kiln_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode kiln_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode kiln_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

typedef size_t (*kiln_curl_read_callback)(char *buffer, size_t size, size_t count, void *userdata);
CURLcode kiln_curl_setopt_read_function(CURL *handle, kiln_curl_read_callback callback);

typedef size_t (*kiln_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);
CURLcode kiln_curl_setopt_write_function(CURL *handle, kiln_curl_write_callback callback);

CURLcode kiln_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

/* CURLVERSION_NOW is a macro aliasing an enum case, which Swift does not import. */
curl_version_info_data *kiln_curl_version_info(void);

#endif
