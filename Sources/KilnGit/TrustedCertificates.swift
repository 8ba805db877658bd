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
import Synchronization

/// Certificates libgit2 trusts for https remotes: the system's, plus every bot's `ca-file`.
///
/// libgit2 (with mbedTLS, as Debian builds it) keeps one set of trusted certificates per process,
/// set with `GIT_OPT_SET_SSL_CERT_LOCATIONS`, which replaces the system's. So a bot's private CA
/// is added to a bundle of the system's certificates and every CA file seen so far, written to the
/// mirrors directory, and that bundle is installed. The consequence, documented in docs/guide.md (How Kiln uses git): a
/// CA file given to one bot is trusted for every bot's https remotes in that server.
enum TrustedCertificates {
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// CA files already in the installed bundle. A Mutex, not an actor: it is used from the
    /// synchronous libgit2 threads, and guards a process-wide C setting.
    private static let included = Mutex<[String]>([])

    /// Makes sure `caFile`'s certificates are trusted; writes the bundle into `directory`.
    static func include(_ caFile: String, directory: String) throws(GitError) {
        let result: Result<Void, GitError> = included.withLock { files in
            guard !files.contains(caFile) else { return .success(()) }
            guard let extra = FileManager.default.contents(atPath: caFile), !extra.isEmpty else {
                return .failure(.failed(operation: "reading the bot's repository.ca-file", detail: "cannot read \(caFile)"))
            }
            var bundle = FileManager.default.contents(atPath: systemBundle) ?? Data()
            for file in files { bundle += FileManager.default.contents(atPath: file) ?? Data() }
            bundle += Data("\n".utf8) + extra
            let path = directory + "/.trusted-certificates.pem"
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try bundle.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                return .failure(.failed(operation: "writing the certificate bundle \(path)", detail: "\(error)"))
            }
            GitLibrary.initialize()
            guard kiln_git_set_ssl_cert_locations(path, nil) == 0 else {
                return .failure(.failed(operation: "trusting \(caFile)", detail: lastGitMessage()))
            }
            files.append(caFile)
            return .success(())
        }
        try result.get()
    }
}
