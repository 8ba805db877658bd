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

/// One commit an integration covered.
public struct Commit: Sendable, Hashable, Codable {
    public var sha: String
    public var author: String
    public var email: String
    /// The committer time: when the commit landed on its branch, not when it was first written.
    public var date: Date
    public var subject: String

    public init(sha: String, author: String, email: String, date: Date, subject: String) {
        self.sha = sha
        self.author = author
        self.email = email
        self.date = date
        self.subject = subject
    }
}

/// Who last changed one line of a file, as of some commit.
public struct BlameLine: Sendable, Hashable {
    public var commit: String
    public var author: String
    public var email: String

    public init(commit: String, author: String, email: String) {
        self.commit = commit
        self.author = author
        self.email = email
    }
}
