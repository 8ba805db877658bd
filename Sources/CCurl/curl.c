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

#include "CCurl.h"

#include <library_loader.h>

static kiln_library libcurl = KILN_LIBRARY("libcurl.so.4", "libcurl4");

const char *kiln_curl_error(void) { return kiln_library_error(&libcurl); }

static CURLcode (*setopt(void))(CURL *, CURLoption, ...) { return kiln_library_symbol(&libcurl, "curl_easy_setopt"); }

CURLcode kiln_curl_setopt_long(CURL *handle, CURLoption option, long value) { return setopt()(handle, option, value); }

CURLcode kiln_curl_setopt_string(CURL *handle, CURLoption option, const char *value) { return setopt()(handle, option, value); }

CURLcode kiln_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return setopt()(handle, option, value); }

CURLcode kiln_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return setopt()(handle, option, value); }

CURLcode kiln_curl_setopt_read_function(CURL *handle, kiln_curl_read_callback callback) {
    return setopt()(handle, CURLOPT_READFUNCTION, callback);
}

CURLcode kiln_curl_setopt_write_function(CURL *handle, kiln_curl_write_callback callback) {
    return setopt()(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode kiln_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    CURLcode (*getinfo)(CURL *, CURLINFO, ...) = kiln_library_symbol(&libcurl, "curl_easy_getinfo");
    return getinfo(handle, info, value);
}

curl_version_info_data *kiln_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }

/* Every other libcurl function Kiln calls: add a line here when Kiln calls one more (the link
   fails with "undefined reference to `curl_…`" until then). */
KILN_FORWARD(libcurl, CURLcode, curl_global_init, (long flags), (flags))
KILN_FORWARD(libcurl, CURL *, curl_easy_init, (void), ())
KILN_FORWARD(libcurl, CURLcode, curl_easy_perform, (CURL *curl), (curl))
KILN_FORWARD_VOID(libcurl, curl_easy_cleanup, (CURL *curl), (curl))
KILN_FORWARD(libcurl, const char *, curl_easy_strerror, (CURLcode code), (code))
KILN_FORWARD(libcurl, struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *data), (list, data))
KILN_FORWARD_VOID(libcurl, curl_slist_free_all, (struct curl_slist *list), (list))
KILN_FORWARD(libcurl, curl_version_info_data *, curl_version_info, (CURLversion version), (version))
