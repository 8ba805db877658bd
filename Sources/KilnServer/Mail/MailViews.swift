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
import KilnPresentation

// What the mail templates render. Stored properties only (Mustache reads them by reflection).

struct IssueLine {
    var type: String
    var location: String?
    var message: String
    var commit: String
    /// For a matrix: the cells it was found in, "in default-debug-thread".
    var cells: String?
}

struct TestLine {
    var name: String
    var duration: String
}

struct NewIssuesMail {
    var name: String
    var bot: String
    var number: Int
    var result: String
    var count: Int
    /// `1 new issue`, `3 new issues`.
    var issuesText: String
    var pullRequest: PullRequestLine?
    var url: String
    var issues: [IssueLine]
    /// What bisection found, or why it could not say whose commit it was; nil without one.
    var bisection: String?
}

struct PullRequestLine {
    var number: Int
    var title: String
}

/// A report mail: the integration's `IntegrationReport`, the one its page renders too, with the
/// trigger's headline and the page's address.
struct ReportMail {
    var report: IntegrationReport
    var headline: String?
    var url: String
}

struct ResultCount {
    var result: String
    var count: Int
}

struct DigestBot {
    var name: String
    var url: String
    var status: String
    var count: Int
    /// `1 integration`, `3 integrations`.
    var countText: String
    var results: [ResultCount]
    var trend: String
    var averageDuration: String
    var introduced: Int
    var resolved: Int
    var slowest: [TestLine]
    var hasSlowest: Bool
    /// Tests that were flaky in the period: failed, then passed when run again.
    var flaky: [TestLine]
    var hasFlaky: Bool
}

struct DigestMail {
    var period: String
    var from: String
    var to: String
    var bots: [DigestBot]
}
