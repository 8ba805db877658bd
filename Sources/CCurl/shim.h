#ifndef KILN_CCURL_SHIM_H
#define KILN_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic and cannot be called from Swift:
   one typed wrapper per argument type. */
static inline CURLcode kiln_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiln_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiln_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiln_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*kiln_curl_read_callback)(char *buffer, size_t size, size_t count, void *userdata);

static inline CURLcode kiln_curl_setopt_read_function(CURL *handle, kiln_curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

typedef size_t (*kiln_curl_write_callback)(char *data, size_t size, size_t count, void *userdata);

static inline CURLcode kiln_curl_setopt_write_function(CURL *handle, kiln_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode kiln_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLVERSION_NOW is a macro aliasing an enum case, which Swift does not import. */
static inline curl_version_info_data *kiln_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
