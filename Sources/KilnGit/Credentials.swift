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

internal import CGit2
import Foundation
import KilnCore

/// What libgit2's credentials callback may use for one remote operation.
///
/// Created for one call and confined to its thread; libgit2 reaches it through the callbacks' payload.
final class Credentials {
    let user: String?
    let password: String?
    /// The host the password belongs to: a submodule on another host never receives it.
    let host: String?
    let sshKeyFile: String?
    /// Where ssh host keys are remembered; nil accepts none.
    let knownHosts: KnownHosts?
    /// `host` or `host:port`, as the known hosts name the remote.
    let hostKeyName: String?
    /// libgit2 asks again after every rejected attempt: stop after a few.
    var attempts = 0
    static let maximumAttempts = 3

    init(url: RepositoryURL, sshKeyFile: String?, knownHosts: KnownHosts?) {
        let components = URLComponents(string: url.raw)
        var user = components?.user?.removingPercentEncoding
        if user == nil, url.scheme == .ssh, !url.raw.contains("://"), let at = url.raw.firstIndex(of: "@") {
            user = String(url.raw[..<at])
        }
        self.user = user
        self.password = components?.password?.removingPercentEncoding
        self.host = url.host
        self.sshKeyFile = sshKeyFile
        self.knownHosts = knownHosts
        let port = url.raw.contains("://") ? components?.port : nil
        self.hostKeyName = url.host.map { host in port.map { "\(host):\($0)" } ?? host }
    }

    /// Remote callbacks that answer credential requests from this object. Keep `self` alive
    /// for as long as the callbacks are in use.
    func callbacks() -> git_remote_callbacks {
        var callbacks = git_remote_callbacks()
        git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION))
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        callbacks.credentials = { out, url, usernameFromURL, allowedTypes, payload in
            guard let out, let payload else { return GIT_EAUTH.rawValue }
            let credentials = Unmanaged<Credentials>.fromOpaque(payload).takeUnretainedValue()
            let host = url.flatMap { URLComponents(string: String(cString: $0))?.host?.lowercased() }
            return credentials.acquire(
                out, host: host, usernameFromURL: usernameFromURL.map { String(cString: $0) }, allowed: allowedTypes)
        }
        callbacks.certificate_check = { cert, valid, _, payload in
            guard let cert, let payload else { return GIT_ECERTIFICATE.rawValue }
            let credentials = Unmanaged<Credentials>.fromOpaque(payload).takeUnretainedValue()
            return credentials.check(cert, valid: valid != 0)
        }
        return callbacks
    }

    /// TLS certificates: libgit2's own verdict (against the trusted CAs). ssh host keys: trusted
    /// on first use, refused when they change (see `KnownHosts`).
    private func check(_ cert: UnsafeMutablePointer<git_cert>, valid: Bool) -> Int32 {
        guard cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 else { return valid ? 0 : GIT_PASSTHROUGH.rawValue }
        let hostkey = UnsafeMutableRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        guard hostkey.type.rawValue & GIT_CERT_SSH_SHA256.rawValue != 0, let knownHosts, let hostKeyName else {
            git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), "cannot verify the ssh host key of \(hostKeyName ?? "the server")")
            return GIT_ECERTIFICATE.rawValue
        }
        let digest = withUnsafeBytes(of: hostkey.hash_sha256) { Data($0) }
        let fingerprint = "SHA256:" + digest.base64EncodedString().replacingOccurrences(of: "=", with: "")
        switch knownHosts.check(host: hostKeyName, fingerprint: fingerprint) {
        case .known, .added:
            return 0
        case .changed(let expected):
            git_error_set_str(
                Int32(GIT_ERROR_SSH.rawValue),
                "the ssh host key of \(hostKeyName) changed: it is \(fingerprint), Kiln knows \(expected); if the change is expected, remove the host's line from \(knownHosts.path)"
            )
            return GIT_ECERTIFICATE.rawValue
        case .unusable(let reason):
            git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), "cannot verify the ssh host key of \(hostKeyName): \(reason)")
            return GIT_ECERTIFICATE.rawValue
        }
    }

    private func acquire(
        _ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>, host: String?, usernameFromURL: String?, allowed: UInt32
    ) -> Int32 {
        attempts += 1
        guard attempts <= Self.maximumAttempts else {
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication failed: the credentials were refused")
            return GIT_EAUTH.rawValue
        }
        let user = usernameFromURL ?? self.user
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, let user, let password, host == self.host {
            return git_credential_userpass_plaintext_new(out, user, password)
        }
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0, let sshKeyFile {
            return git_credential_ssh_key_new(out, user ?? "git", nil, sshKeyFile, nil)
        }
        if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
            return git_credential_username_new(out, user ?? "git")
        }
        git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication required and no credentials are configured")
        return GIT_EAUTH.rawValue
    }
}
