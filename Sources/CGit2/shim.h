#ifndef KILN_CGIT2_SHIM_H
#define KILN_CGIT2_SHIM_H

#include <git2.h>

/* git_libgit2_opts is variadic and cannot be called from Swift: typed wrappers. */
static inline int kiln_git_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}

static inline int kiln_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

#endif
