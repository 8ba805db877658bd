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

import KilnCore

extension Bisection.Failure {
    /// Why the bisection could not name one commit, as the page and the mail say it.
    public var sentence: String {
        switch self {
        case .noneShowed: "no commit of the range showed the failure"
        case .among(let commits):
            "it is one of \(commits.map(ShortHash.text).joined(separator: ", ")): the others failed for other reasons"
        case .limitReached(let integrations): "it took \(integrations) integrations, the most bisect.max-integrations allows"
        case .recorded(let text): text
        }
    }
}

extension TestHistory.Flakiness {
    /// Why a test is flaky by its history, as pages, the API and a flaky test's message say it.
    public var sentence: String {
        switch self {
        case .passedOnRerun(let number): "it failed, then passed when run again, in #\(number)"
        case .sameCommit(let commit, let numbers):
            "it passed and failed on the same commit \(ShortHash.text(commit)) (\(numbers.map { "#\($0)" }.joined(separator: ", ")))"
        case .flipping(let flips, let integrations): "its result changed \(flips) times in its last \(integrations) integrations"
        }
    }
}
