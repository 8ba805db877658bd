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

/// Which of a bot's integrations its history shows (the bot page's `?result=&author=&branch=&pull=`):
/// all of them when empty.
public struct HistoryFilter: Sendable, Hashable {
    public var result: IntegrationResult?
    /// Part of the name of its commit's author, in any case.
    public var author: String?
    public var branch: String?
    /// Integrations of this pull request alone.
    public var pullRequest: Int?

    public init(result: IntegrationResult? = nil, author: String? = nil, branch: String? = nil, pullRequest: Int? = nil) {
        self.result = result
        self.author = author
        self.branch = branch
        self.pullRequest = pullRequest
    }

    public var isEmpty: Bool { result == nil && author == nil && branch == nil && pullRequest == nil }
}

/// A test a bot's history knows, as a search finds it.
public struct TestName: Sendable, Hashable {
    public var suite: String
    public var name: String

    public init(suite: String, name: String) {
        self.suite = suite
        self.name = name
    }
}
