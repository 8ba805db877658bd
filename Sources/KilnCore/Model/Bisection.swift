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

/// The search for the one commit that brought an integration's new failures, when the
/// integration covered several commits and blame could not tell whose they were.
///
/// Its commits (oldest first) are the integration's range: the last one is the integration's
/// own, known bad; the commit before the first was integrated before, known good. Each round
/// integrates commits inside the range (cause `bisect`); one that shows any of the failures
/// (`fingerprints`) is bad, one that builds and tests without them is good, and one that
/// fails for another reason is skipped, as `git bisect skip` does.
public struct Bisection: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Integrating commits of the range.
        case running
        /// `culprit` is the first bad commit.
        case found
        /// It could not finish; `failure` says why.
        case failed
    }

    public enum Verdict: String, Sendable, Hashable, Codable {
        case good, bad, skip
    }

    public var id: Int64
    public var bot: String
    /// The integration whose failures are bisected.
    public var integrationID: Int64
    public var commits: [Commit]
    public var fingerprints: [String]
    /// What each integrated commit showed, by SHA.
    public var verdicts: [String: Verdict]
    /// The numbers of the bisect integrations, in the order they were queued.
    public var integrations: [Int]
    public var maxIntegrations: Int
    public var state: State
    public var culprit: String?
    /// Why it could not finish, for a failed one.
    public var failure: Failure?
    public var createdAt: Date

    public init(
        id: Int64, bot: String, integrationID: Int64, commits: [Commit], fingerprints: [String], verdicts: [String: Verdict] = [:],
        integrations: [Int] = [], maxIntegrations: Int, state: State = .running, culprit: String? = nil, failure: Failure? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.bot = bot
        self.integrationID = integrationID
        self.commits = commits
        self.fingerprints = fingerprints
        self.verdicts = verdicts
        self.integrations = integrations
        self.maxIntegrations = maxIntegrations
        self.state = state
        self.culprit = culprit
        self.failure = failure
        self.createdAt = createdAt
    }

    /// The culprit's commit, when found.
    public var culpritCommit: Commit? { culprit.flatMap { sha in commits.first { $0.sha == sha } } }

    /// What to do next: the commits to integrate (up to `parallel` at once, splitting what is
    /// left into equal parts), or the end, found or not.
    public func next(parallel: Int) -> Step {
        let verdict = { (index: Int) in index == commits.count - 1 ? Verdict.bad : verdicts[commits[index].sha] }
        // The last good commit before the first bad one bounds the search.
        guard let firstBad = commits.indices.first(where: { verdict($0) == .bad }) else {
            return .failed(.noneShowed)
        }
        let lastGood = commits.indices.last { $0 < firstBad && verdict($0) == .good } ?? -1
        let open = (lastGood + 1..<firstBad).filter { verdict($0) == nil }
        if open.isEmpty {
            let between = lastGood + 1..<firstBad
            if between.isEmpty { return .found(commits[firstBad]) }
            return .failed(.among(between.map { commits[$0].sha } + [commits[firstBad].sha]))
        }
        guard integrations.count < maxIntegrations else {
            return .failed(.limitReached(integrations: integrations.count))
        }
        let count = min(max(1, parallel), open.count, maxIntegrations - integrations.count)
        // Probes split the open commits into count + 1 equal parts.
        let picks = (1...count).map { part in open[min(open.count - 1, part * open.count / (count + 1))] }
        return .integrate(Array(Set(picks)).sorted().map { commits[$0] })
    }

    public enum Step: Sendable, Hashable {
        case integrate([Commit])
        case found(Commit)
        case failed(Failure)
    }

    /// Why a bisection could not name one commit. Stored as its code and values (`stored`).
    public enum Failure: Sendable, Hashable, Codable {
        /// No commit of the range showed the failure.
        case noneShowed
        /// It is one of `commits` (the last one bad, those before it skipped: they failed for
        /// other reasons).
        case among([String])
        /// It took `integrations`, the most `bisect.max-integrations` allows.
        case limitReached(integrations: Int)
        /// Written as a sentence by a Kiln from before reasons were data.
        case recorded(String)

        /// The failure as the store keeps it: JSON.
        public var stored: String {
            // Strings and numbers only: encoding cannot fail.
            (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }

        /// A failure as the store keeps it; an older Kiln's sentence is kept as `recorded`.
        public init(stored text: String) {
            if text.hasPrefix("{"), let failure = try? JSONDecoder().decode(Failure.self, from: Data(text.utf8)) {
                self = failure
            } else {
                self = .recorded(text)
            }
        }
    }

    /// The most commits one bisection integrates at once, each in a workspace of its bot's own
    /// (`Integration.workspaceSlot`); they reuse the same workspaces from one bisection to the
    /// next, so that their builds are warm.
    public static let workspaces = 4

    /// The kinds of new issue a bisection looks for: a build error, a failing test, a measurement
    /// that got slower (a bisect integration judges its measurements against the baseline the
    /// bisected integration had).
    public static let soughtTypes = Set(IssueType.allCases.filter(\.breaks))

    /// What an integration of a commit of the range showed: bad when any of the failures is
    /// among its issues; good when it built and tested without them. A build that failed for
    /// another reason may hide them, and a broken checkout or trigger says nothing: skipped.
    public static func verdict(result: IntegrationResult, found: Set<String>, sought: [String]) -> Verdict {
        if sought.contains(where: found.contains) { return .bad }
        return result.ranTests ? .good : .skip
    }
}

/// `bisect`: whether and how far Kiln searches for the commit that broke an integration.
public struct BisectSettings: Sendable, Hashable {
    public var enabled: Bool
    /// The most bisect integrations one search may run.
    public var maxIntegrations: Int
    /// How long the new-issue mail waits for the search to end.
    public var wait: Duration

    public init(enabled: Bool = true, maxIntegrations: Int = 8, wait: Duration = .seconds(1800)) {
        self.enabled = enabled
        self.maxIntegrations = maxIntegrations
        self.wait = wait
    }
}
