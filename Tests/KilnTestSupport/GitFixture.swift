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

/// A real git repository in a temp directory, driven with the git CLI, for tests to integrate.
public final class GitFixture: Sendable {
    public let directory: TemporaryDirectory
    /// The work tree; `url` is the same path, as a bot would name it.
    public let path: String
    public var url: String { path }

    public struct Author: Sendable {
        public var name: String
        public var email: String

        public init(_ name: String, _ email: String) {
            self.name = name
            self.email = email
        }

        public static let alice = Author("Alice Archer", "alice@example.com")
        public static let bob = Author("Bob Builder", "bob@example.com")
    }

    public init(branch: String = "main") throws {
        directory = try TemporaryDirectory("kiln-git")
        path = directory.url("origin")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try git("init", "-q", "-b", branch)
    }

    /// Runs git in the work tree; fails the test with git's own words when git fails.
    @discardableResult
    public func git(_ arguments: String..., author: Author = .alice, date: String? = nil) throws -> String {
        try git(arguments, author: author, date: date)
    }

    @discardableResult
    public func git(_ arguments: [String], author: Author = .alice, date: String? = nil) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_AUTHOR_NAME"] = author.name
        environment["GIT_AUTHOR_EMAIL"] = author.email
        environment["GIT_COMMITTER_NAME"] = author.name
        environment["GIT_COMMITTER_EMAIL"] = author.email
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["HOME"] = directory.path
        environment["GIT_ALLOW_PROTOCOL"] = "file"
        if let date {
            environment["GIT_AUTHOR_DATE"] = date
            environment["GIT_COMMITTER_DATE"] = date
        }
        let result = try runProcessSync("/usr/bin/git", ["-c", "protocol.file.allow=always"] + arguments, in: path, environment: environment)
        guard result.status == 0 else { throw GitFixtureError.failed(arguments.joined(separator: " "), result.standardError) }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `files` (path → contents) and commits them; returns the new commit's sha.
    @discardableResult
    public func commit(_ message: String, files: [String: String], author: Author = .alice, date: String? = nil) throws -> String {
        for (file, contents) in files {
            let full = path + "/" + file
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: full, atomically: true, encoding: .utf8)
            try git("add", file)
        }
        try git("commit", "-q", "--allow-empty", "-m", message, author: author, date: date)
        return try head()
    }

    public func head(_ revision: String = "HEAD") throws -> String {
        try git("rev-parse", revision)
    }
}

public enum GitFixtureError: Error, CustomStringConvertible {
    case failed(String, String)

    public var description: String {
        switch self {
        case .failed(let command, let output): "git \(command) failed: \(output)"
        }
    }
}
