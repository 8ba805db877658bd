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

#include "CGit2.h"

#include <library_loader.h>

static kiln_library libgit2 = KILN_LIBRARY("libgit2.so." LIBGIT2_SOVERSION, "libgit2-" LIBGIT2_SOVERSION);

const char *kiln_git_error(void) { return kiln_library_error(&libgit2); }

int kiln_git_set_owner_validation(int enabled) {
    int (*options)(int, ...) = kiln_library_symbol(&libgit2, "git_libgit2_opts");
    return options(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}

int kiln_git_set_ssl_cert_locations(const char *file, const char *path) {
    int (*options)(int, ...) = kiln_library_symbol(&libgit2, "git_libgit2_opts");
    return options(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

/* Every libgit2 function Kiln calls: add a line here when Kiln calls one more (the link fails
   with "undefined reference to `git_…`" until then). */
KILN_FORWARD(libgit2, int, git_blame_file, (git_blame **out, git_repository *repo, const char *path, git_blame_options *options), (out, repo, path, options))
KILN_FORWARD_VOID(libgit2, git_blame_free, (git_blame *blame), (blame))
KILN_FORWARD(libgit2, const git_blame_hunk*, git_blame_get_hunk_byline, (git_blame *blame, size_t lineno), (blame, lineno))
KILN_FORWARD(libgit2, int, git_blame_options_init, (git_blame_options *opts, unsigned int version), (opts, version))
KILN_FORWARD_VOID(libgit2, git_blob_free, (git_blob *blob), (blob))
KILN_FORWARD(libgit2, int, git_blob_lookup, (git_blob **blob, git_repository *repo, const git_oid *id), (blob, repo, id))
KILN_FORWARD(libgit2, const void *, git_blob_rawcontent, (const git_blob *blob), (blob))
KILN_FORWARD(libgit2, int, git_checkout_options_init, (git_checkout_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_checkout_tree, (git_repository *repo, const git_object *treeish, const git_checkout_options *opts), (repo, treeish, opts))
KILN_FORWARD(libgit2, int, git_clone, (git_repository **out, const char *url, const char *local_path, const git_clone_options *options), (out, url, local_path, options))
KILN_FORWARD(libgit2, int, git_clone_options_init, (git_clone_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, const git_signature *, git_commit_author, (const git_commit *commit), (commit))
KILN_FORWARD_VOID(libgit2, git_commit_free, (git_commit *commit), (commit))
KILN_FORWARD(libgit2, const git_oid *, git_commit_id, (const git_commit *commit), (commit))
KILN_FORWARD(libgit2, int, git_commit_lookup, (git_commit **commit, git_repository *repo, const git_oid *id), (commit, repo, id))
KILN_FORWARD(libgit2, const char *, git_commit_summary, (git_commit *commit), (commit))
KILN_FORWARD(libgit2, int, git_commit_tree, (git_tree **tree_out, const git_commit *commit), (tree_out, commit))
KILN_FORWARD(libgit2, int, git_config_foreach, (const git_config *cfg, git_config_foreach_cb callback, void *payload), (cfg, callback, payload))
KILN_FORWARD_VOID(libgit2, git_config_free, (git_config *cfg), (cfg))
KILN_FORWARD(libgit2, int, git_config_open_default, (git_config **out), (out))
KILN_FORWARD(libgit2, int, git_config_open_ondisk, (git_config **out, const char *path), (out, path))
KILN_FORWARD(libgit2, int, git_config_set_string, (git_config *cfg, const char *name, const char *value), (cfg, name, value))
KILN_FORWARD(libgit2, int, git_credential_ssh_key_new, (git_credential **out, const char *username, const char *publickey, const char *privatekey, const char *passphrase), (out, username, publickey, privatekey, passphrase))
KILN_FORWARD(libgit2, int, git_credential_username_new, (git_credential **out, const char *username), (out, username))
KILN_FORWARD(libgit2, int, git_credential_userpass_plaintext_new, (git_credential **out, const char *username, const char *password), (out, username, password))
KILN_FORWARD(libgit2, int, git_diff_find_options_init, (git_diff_find_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_diff_find_similar, (git_diff *diff, const git_diff_find_options *options), (diff, options))
KILN_FORWARD_VOID(libgit2, git_diff_free, (git_diff *diff), (diff))
KILN_FORWARD(libgit2, size_t, git_diff_num_deltas, (const git_diff *diff), (diff))
KILN_FORWARD(libgit2, int, git_diff_options_init, (git_diff_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_diff_tree_to_tree, (git_diff **diff, git_repository *repo, git_tree *old_tree, git_tree *new_tree, const git_diff_options *opts), (diff, repo, old_tree, new_tree, opts))
KILN_FORWARD(libgit2, const git_error *, git_error_last, (void), ())
KILN_FORWARD(libgit2, int, git_error_set_str, (int error_class, const char *string), (error_class, string))
KILN_FORWARD(libgit2, int, git_fetch_options_init, (git_fetch_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_graph_descendant_of, (git_repository *repo, const git_oid *commit, const git_oid *ancestor), (repo, commit, ancestor))
KILN_FORWARD(libgit2, int, git_libgit2_init, (void), ())
KILN_FORWARD(libgit2, int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev))
KILN_FORWARD(libgit2, int, git_merge_base, (git_oid *out, git_repository *repo, const git_oid *one, const git_oid *two), (out, repo, one, two))
KILN_FORWARD(libgit2, git_object_size_t, git_blob_rawsize, (const git_blob *blob), (blob))
KILN_FORWARD(libgit2, git_object_t, git_tree_entry_type, (const git_tree_entry *entry), (entry))
KILN_FORWARD(libgit2, int, git_oid_fmt, (char *out, const git_oid *id), (out, id))
KILN_FORWARD(libgit2, int, git_oid_fromstr, (git_oid *out, const char *str), (out, str))
KILN_FORWARD_VOID(libgit2, git_patch_free, (git_patch *patch), (patch))
KILN_FORWARD(libgit2, int, git_patch_from_diff, (git_patch **out, git_diff *diff, size_t idx), (out, diff, idx))
KILN_FORWARD(libgit2, const git_diff_delta *, git_patch_get_delta, (const git_patch *patch), (patch))
KILN_FORWARD(libgit2, int, git_patch_get_line_in_hunk, (const git_diff_line **out, git_patch *patch, size_t hunk_idx, size_t line_of_hunk), (out, patch, hunk_idx, line_of_hunk))
KILN_FORWARD(libgit2, size_t, git_patch_num_hunks, (const git_patch *patch), (patch))
KILN_FORWARD(libgit2, int, git_patch_num_lines_in_hunk, (const git_patch *patch, size_t hunk_idx), (patch, hunk_idx))
KILN_FORWARD(libgit2, int, git_reference_name_to_id, (git_oid *out, git_repository *repo, const char *name), (out, repo, name))
KILN_FORWARD(libgit2, int, git_remote_connect, (git_remote *remote, git_direction direction, const git_remote_callbacks *callbacks, const git_proxy_options *proxy_opts, const git_strarray *custom_headers), (remote, direction, callbacks, proxy_opts, custom_headers))
KILN_FORWARD(libgit2, int, git_remote_create_detached, (git_remote **out, const char *url), (out, url))
KILN_FORWARD(libgit2, int, git_remote_create_options_init, (git_remote_create_options *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_remote_create_with_opts, (git_remote **out, const char *url, const git_remote_create_options *opts), (out, url, opts))
KILN_FORWARD(libgit2, int, git_remote_disconnect, (git_remote *remote), (remote))
KILN_FORWARD(libgit2, int, git_remote_fetch, (git_remote *remote, const git_strarray *refspecs, const git_fetch_options *opts, const char *reflog_message), (remote, refspecs, opts, reflog_message))
KILN_FORWARD_VOID(libgit2, git_remote_free, (git_remote *remote), (remote))
KILN_FORWARD(libgit2, int, git_remote_init_callbacks, (git_remote_callbacks *opts, unsigned int version), (opts, version))
KILN_FORWARD(libgit2, int, git_remote_ls, (const git_remote_head ***out, size_t *size, git_remote *remote), (out, size, remote))
KILN_FORWARD(libgit2, int, git_remote_set_url, (git_repository *repo, const char *remote, const char *url), (repo, remote, url))
KILN_FORWARD(libgit2, int, git_repository_config, (git_config **out, git_repository *repo), (out, repo))
KILN_FORWARD_VOID(libgit2, git_repository_free, (git_repository *repo), (repo))
KILN_FORWARD(libgit2, int, git_repository_init, (git_repository **out, const char *path, unsigned is_bare), (out, path, is_bare))
KILN_FORWARD(libgit2, int, git_repository_open, (git_repository **out, const char *path), (out, path))
KILN_FORWARD(libgit2, const char *, git_repository_path, (const git_repository *repo), (repo))
KILN_FORWARD(libgit2, int, git_repository_set_head_detached, (git_repository *repo, const git_oid *committish), (repo, committish))
KILN_FORWARD_VOID(libgit2, git_revwalk_free, (git_revwalk *walk), (walk))
KILN_FORWARD(libgit2, int, git_revwalk_hide, (git_revwalk *walk, const git_oid *commit_id), (walk, commit_id))
KILN_FORWARD(libgit2, int, git_revwalk_new, (git_revwalk **out, git_repository *repo), (out, repo))
KILN_FORWARD(libgit2, int, git_revwalk_next, (git_oid *out, git_revwalk *walk), (out, walk))
KILN_FORWARD(libgit2, int, git_revwalk_push, (git_revwalk *walk, const git_oid *id), (walk, id))
KILN_FORWARD(libgit2, int, git_revwalk_sorting, (git_revwalk *walk, unsigned int sort_mode), (walk, sort_mode))
KILN_FORWARD(libgit2, git_time_t, git_commit_time, (const git_commit *commit), (commit))
KILN_FORWARD(libgit2, int, git_tree_entry_bypath, (git_tree_entry **out, const git_tree *root, const char *path), (out, root, path))
KILN_FORWARD_VOID(libgit2, git_tree_entry_free, (git_tree_entry *entry), (entry))
KILN_FORWARD(libgit2, const git_oid *, git_tree_entry_id, (const git_tree_entry *entry), (entry))
KILN_FORWARD_VOID(libgit2, git_tree_free, (git_tree *tree), (tree))
