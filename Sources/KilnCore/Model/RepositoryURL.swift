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

/// Where a repository lives: a local path, `file://`, `http(s)://`, `ssh://`, `git://` or scp-like `git@host:path`.
///
/// The text as written may carry credentials (`https://user:token@host/…`); `redacted` never does,
/// and is the only form that may reach logs, errors, the database or pages.
public struct RepositoryURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case file, http, https, ssh, git
    }

    /// The URL as libgit2 should be given it (credentials included, local paths absolute).
    public let raw: String
    public let scheme: Scheme
    /// Host, lowercased; nil for local repositories.
    public let host: String?
    /// The path on the host, or the absolute local path.
    public let path: String

    /// The URL with any user name and password removed.
    public var redacted: String {
        switch scheme {
        case .file: return path
        case .http, .https, .ssh, .git:
            guard var components = URLComponents(string: raw), components.user != nil || components.password != nil else {
                return raw.contains("://") ? raw : scpRedacted
            }
            components.user = nil
            components.password = nil
            return components.string ?? raw
        }
    }

    /// A form that matches across spellings of the same repository: lowercased host, no scheme
    /// difference between ssh and https, no credentials, no `.git` suffix, no trailing slash.
    /// Webhooks match bots on this; mirrors are keyed by it.
    public var identity: String {
        var trimmedPath = path
        while trimmedPath.hasSuffix("/") { trimmedPath.removeLast() }
        if trimmedPath.hasSuffix(".git") { trimmedPath.removeLast(4) }
        while trimmedPath.hasPrefix("/") { trimmedPath.removeFirst() }
        guard let host else { return "/" + trimmedPath }
        return host + "/" + trimmedPath
    }

    public var description: String { redacted }

    private var scpRedacted: String {
        // git@host:path — the user of scp-like URLs is the ssh login, not a secret, but keep only it.
        guard let at = raw.firstIndex(of: "@") else { return raw }
        let user = raw[..<at]
        if user.contains(":") { return String(raw[raw.index(after: at)...]) }
        return raw
    }

    /// Parses `text`; relative paths are resolved against `base` (the bot file's directory).
    public init(parsing text: String, relativeTo base: String) throws(RepositoryURLError) {
        let text = text.trimmingWhitespace()
        guard !text.isEmpty else { throw .empty }
        if text.hasPrefix("/") || text.hasPrefix(".") || !text.contains(":") {
            let absolute = text.hasPrefix("/") ? text : base + "/" + text
            self.raw = URL(fileURLWithPath: absolute).standardizedFileURL.path
            self.scheme = .file
            self.host = nil
            self.path = raw
            return
        }
        if let schemeEnd = text.range(of: "://") {
            let schemeText = text[..<schemeEnd.lowerBound].lowercased()
            guard let scheme = Scheme(rawValue: schemeText) else { throw .unsupportedScheme(schemeText) }
            guard let components = URLComponents(string: text) else { throw .malformed }
            if scheme == .file {
                guard !components.path.isEmpty else { throw .malformed }
                self.raw = components.path
                self.scheme = .file
                self.host = nil
                self.path = components.path
                return
            }
            guard let host = components.host, !host.isEmpty else { throw .missingHost }
            guard !components.path.isEmpty, components.path != "/" else { throw .missingPath }
            self.raw = text
            self.scheme = scheme
            self.host = host.lowercased()
            self.path = components.path
            return
        }
        // scp-like: [user@]host:path
        guard let colon = text.firstIndex(of: ":") else { throw .malformed }
        let authority = text[..<colon]
        let path = String(text[text.index(after: colon)...])
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        guard !host.isEmpty, !host.contains(" ") else { throw .missingHost }
        guard !path.isEmpty else { throw .missingPath }
        self.raw = text
        self.scheme = .ssh
        self.host = host.lowercased()
        self.path = path.hasPrefix("/") ? path : "/" + path
    }
}

public enum RepositoryURLError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case unsupportedScheme(String)
    case missingHost
    case missingPath
    case malformed

    public var description: String {
        switch self {
        case .empty: "the repository URL is empty"
        case .unsupportedScheme(let scheme): "unsupported URL scheme '\(scheme)' (use https, ssh, git, file or a path)"
        case .missingHost: "the repository URL has no host"
        case .missingPath: "the repository URL has no path"
        case .malformed: "the repository URL is malformed"
        }
    }
}
