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

import Foundation
import KilnCore
import NIOSSL
import PostgresNIO

/// `database.url` as a connection configuration: `postgres://user[:password]@host[:port]/name`, or
/// `postgres://user@/name?host=/socket/dir` for a Unix socket (`.s.PGSQL.<port>` in that
/// directory, as libpq does). `sslmode=disable|prefer|require` as in libpq; the default, prefer,
/// uses TLS when the server offers it. A password file's first line wins over one in the URL.
enum PostgresURL {
    /// Where to connect and as whom.
    struct Target {
        var host: String?
        var port: Int
        var socketPath: String?
        var username: String
        var password: String?
        var database: String
        var tls: String

        /// How each of the store's connections connects.
        func connection() throws -> PostgresConnection.Configuration {
            if let socketPath { return .init(unixSocketPath: socketPath, username: username, password: password, database: database) }
            let tls: PostgresConnection.Configuration.TLS =
                switch self.tls {
                case "disable": .disable
                case "require", "verify-ca", "verify-full": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                }
            return .init(host: host ?? "", port: port, username: username, password: password, database: database, tls: tls)
        }
    }

    static func target(_ settings: DatabaseSettings) throws(StoreError) -> Target {
        let location = settings.redactedURL
        guard let components = URLComponents(string: settings.url), ["postgres", "postgresql"].contains(components.scheme?.lowercased()) else {
            throw .unreachable(url: location, reason: "not a postgres:// URL")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let username = components.user.flatMap { $0.removingPercentEncoding } ?? "kiln"
        var password = components.password.flatMap { $0.removingPercentEncoding }
        if let file = settings.passwordFile {
            guard let secret = SecretFile.read(file) else {
                throw .unreachable(url: location, reason: "cannot read the password file \(file) (it must exist and hold the password)")
            }
            password = String(decoding: secret, as: UTF8.self)
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? username : (path.removingPercentEncoding ?? path)
        let port = components.port ?? Int(query["port"] ?? "") ?? 5432
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            return Target(
                host: nil, port: port, socketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database,
                tls: "disable")
        }
        guard let host = components.host, !host.isEmpty else { throw .unreachable(url: location, reason: "the URL names no host") }
        return Target(
            host: host, port: port, socketPath: nil, username: username, password: password, database: database, tls: query["sslmode"] ?? "prefer")
    }
}
