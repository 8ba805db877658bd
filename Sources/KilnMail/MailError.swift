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

/// Why a mail was not delivered.
public enum MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The SMTP server could not be reached or the connection broke; try again later.
    case unreachable(server: String, detail: String)
    /// The server refused the login; fix `smtp.username` or the password file (retried meanwhile).
    case loginDenied(server: String, detail: String)
    /// The server answered with a temporary (4xx) or permanent (5xx) refusal.
    case rejected(code: Int, detail: String)
    /// STARTTLS was required and the server does not offer it, or the certificate is not trusted.
    case insecure(server: String, detail: String)
    /// libcurl failed for another reason.
    case failed(curlCode: Int, detail: String)

    /// Whether trying again cannot help: the server refused the message itself (5xx).
    public var isPermanent: Bool {
        if case .rejected(let code, _) = self { return (500..<600).contains(code) }
        return false
    }

    public var description: String {
        switch self {
        case .unreachable(let server, let detail): "cannot reach the SMTP server \(server): \(detail) (check smtp.url and that it is up)"
        case .loginDenied(let server, let detail): "\(server) refused the login: \(detail) (check smtp.username and smtp.password-file)"
        case .rejected(let code, let detail): "the SMTP server answered \(code): \(detail)"
        case .insecure(let server, let detail):
            "no trusted TLS connection to \(server): \(detail) (check smtp.starttls and smtp.ca-file)"
        case .failed(let code, let detail): "sending failed (curl error \(code)): \(detail)"
        }
    }
}
