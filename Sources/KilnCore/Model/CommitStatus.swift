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

/// A commit status's state, in the words all three forges share, and `running`: an integration
/// that started, which GitHub and Gitea are told as `pending` and GitLab as `running`.
public enum CommitState: String, CaseIterable, Sendable, Hashable, Codable {
    case pending, running, success, failure, error
}

/// How far an integration has gone, as commit statuses tell it: a status is posted when it is
/// queued, when it starts and when it ends.
public enum StatusStage: String, CaseIterable, Sendable, Hashable, Codable, Comparable {
    /// `failing`: running, with a test failed already (`TestProgress`): the forge hears it at once.
    /// `awaiting`: a fork's pull request waiting for a member's approval.
    case awaiting, queued, started, failing, completed

    public init(_ integration: Integration) {
        switch integration.step {
        case .awaitingApproval: self = .awaiting
        case .pending: self = .queued
        case .completed: self = .completed
        default: self = (integration.progress?.failed ?? 0) > 0 ? .failing : .started
        }
    }

    public init(_ step: IntegrationStep) {
        switch step {
        case .awaitingApproval: self = .awaiting
        case .pending: self = .queued
        case .completed: self = .completed
        default: self = .started
        }
    }

    public static func < (lhs: StatusStage, rhs: StatusStage) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// One commit status to post: what the forge is told, and where.
public struct CommitStatus: Sendable, Hashable, Codable {
    public var bot: String
    public var integrationID: Int64?
    public var kind: ForgeKind
    public var apiURL: String
    /// `ForgeSettings.project(of:)`.
    public var project: String
    /// Read when the status is sent; the token itself is never stored.
    public var tokenFile: String
    public var sha: String
    /// `kiln/<bot>`.
    public var context: String
    public var state: CommitState
    /// At most `maximumDescription` characters (GitHub's limit).
    public var description: String
    public var targetURL: String?

    public static let maximumDescription = 140

    public init(
        bot: String, integrationID: Int64?, kind: ForgeKind, apiURL: String, project: String, tokenFile: String, sha: String, context: String,
        state: CommitState, description: String, targetURL: String?
    ) {
        self.bot = bot
        self.integrationID = integrationID
        self.kind = kind
        self.apiURL = apiURL
        self.project = project
        self.tokenFile = tokenFile
        self.sha = sha
        self.context = context
        self.state = state
        self.description = String(description.prefix(Self.maximumDescription))
        self.targetURL = targetURL
    }

    public static func state(of result: IntegrationResult, forge: ForgeSettings) -> CommitState {
        switch result {
        case .succeeded: .success
        case .analyzerWarnings, .warnings: forge.warnings == .success ? .success : .failure
        case .testFailures, .buildErrors, .triggerError, .timeout: .failure
        case .checkoutError, .canceled, .internalError: .error
        }
    }
}

/// A commit status in the outbox.
public struct QueuedStatus: Sendable, Hashable {
    public enum Delivery: String, Sendable, Hashable, CaseIterable, Codable {
        /// Waiting for its next attempt.
        case queued
        /// The forge took it.
        case sent
        /// The forge refused it for good (401, 403, 404, 422), or it kept failing for a day.
        case refused
    }

    public var id: Int64
    public var status: CommitStatus
    public var delivery: Delivery
    public var attempts: Int
    public var createdAt: Date
    public var lastError: String?
    /// The forge's HTTP answer to the last attempt; nil when it never answered.
    public var responseCode: Int?

    public init(
        id: Int64, status: CommitStatus, delivery: Delivery, attempts: Int, createdAt: Date, lastError: String? = nil, responseCode: Int? = nil
    ) {
        self.id = id
        self.status = status
        self.delivery = delivery
        self.attempts = attempts
        self.createdAt = createdAt
        self.lastError = lastError
        self.responseCode = responseCode
    }
}

extension CommitStatus {
    /// The status as the outbox keeps it: a context's statuses for one commit go in order.
    public var outboxDelivery: NewDelivery {
        NewDelivery(kind: .status, lane: "\(project) \(sha) \(context)", bot: bot, integrationID: integrationID, item: self)
    }
}

extension QueuedStatus {
    /// Nil for a delivery that is no commit status, or one this version cannot read.
    public init?(_ stored: StoredDelivery) {
        guard stored.kind == .status, let status = stored.item(CommitStatus.self) else { return nil }
        self.init(
            id: stored.id, status: status, delivery: Delivery(stored.state), attempts: stored.attempts, createdAt: stored.createdAt,
            lastError: stored.lastError, responseCode: stored.responseCode)
    }
}

extension QueuedStatus.Delivery {
    /// A status or a review given up is `refused`: the forge said no, or never answered for a day.
    public init(_ state: OutboxState) { self = state == .givenUp ? .refused : Self(rawValue: state.rawValue) ?? .queued }
}

/// An integration whose commit status lags behind it: the stage and commit last composed for it
/// (nil when none was) against where it is now.
public struct StatusCandidate: Sendable, Hashable {
    public var integration: Integration
    public var postedStage: StatusStage?
    public var postedCommit: String?

    public init(integration: Integration, postedStage: StatusStage?, postedCommit: String?) {
        self.integration = integration
        self.postedStage = postedStage
        self.postedCommit = postedCommit
    }
}

/// Why a bot's statuses do not reach its forge: the latest refusal, when nothing was delivered since.
public struct StatusProblem: Sendable, Hashable {
    public var bot: String
    public var responseCode: Int?
    /// The forge's own message, or what went wrong on the way.
    public var message: String
    public var at: Date

    public init(bot: String, responseCode: Int?, message: String, at: Date) {
        self.bot = bot
        self.responseCode = responseCode
        self.message = message
        self.at = at
    }
}

/// A pull request as the forge last described it, with its latest integration.
public struct PullRequestOverview: Sendable, Hashable {
    public var pullRequest: PullRequest
    public var open: Bool
    public var latest: Integration?

    public init(pullRequest: PullRequest, open: Bool, latest: Integration?) {
        self.pullRequest = pullRequest
        self.open = open
        self.latest = latest
    }
}
