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

/// A request to integrate a bot, as the store queues it.
public struct QueueRequest: Sendable, Hashable {
    public var bot: String
    public var cause: IntegrationCause
    public var commit: String?
    public var branch: String
    /// A running integration of another commit is asked to stop.
    public var cancelSuperseded: Bool
    /// The pull request to integrate; nil for the branch. Each pull request queues apart from the
    /// branch and from the others: its request coalesces only with its own queued integration, and
    /// supersedes only its own running one.
    public var pullRequest: PullRequest?
    /// For a re-run (cause `rerun`): the integration it runs again, which it is never joined
    /// with another request for (`Rerun.request`).
    public var rerunOf: Rerun?
    /// A fork's pull request that waits for a member's approval before it runs
    /// (`PullRequestPolicy.awaitsApproval`), unless its commit was approved before on the bot.
    public var awaitsApproval = false

    public init(
        bot: String, cause: IntegrationCause, commit: String? = nil, branch: String, cancelSuperseded: Bool = true, pullRequest: PullRequest? = nil
    ) {
        self.bot = bot
        self.cause = cause
        self.commit = commit
        self.branch = branch
        self.cancelSuperseded = cancelSuperseded
        self.pullRequest = pullRequest
    }

    /// What `cause` queues for `bot`: the one rule behind webhooks, polls, schedules, `kiln trigger`
    /// and `kiln run`. A push (webhook or poll) names its commit and, when the bot says so, stops an
    /// integration of an older one; a schedule or a person integrates the branch head and stops nothing.
    public init(_ bot: Bot, cause: IntegrationCause, commit: String? = nil) {
        let isPush = cause == .webhook || cause == .poll
        self.init(
            bot: bot.name, cause: cause, commit: isPush ? commit : nil, branch: bot.repository.branch,
            cancelSuperseded: isPush && bot.cancelSuperseded)
    }

    /// What a pull request event (or `kiln run --pull`) queues for `bot`: the pull request's head,
    /// stopping an integration of its older head when the bot says so.
    public init(_ bot: Bot, cause: IntegrationCause, pullRequest: PullRequest, commit: String?) {
        self.init(
            bot: bot.name, cause: cause, commit: commit, branch: bot.repository.branch,
            cancelSuperseded: commit != nil && bot.cancelSuperseded, pullRequest: pullRequest)
        // A forge's event; a member's own request (the API, `kiln run --pull`, a re-run) is approval enough.
        awaitsApproval = cause == .webhook && bot.pullRequests.awaitsApproval(pullRequest)
    }
}

/// What queueing did.
public struct QueueOutcome: Sendable, Hashable {
    /// The queued integration: a new one, or the one this request was coalesced into.
    public var integration: Integration
    public var coalesced: Bool
    /// Running integrations asked to stop because this commit superseded theirs.
    public var superseded: [Int64]

    public init(integration: Integration, coalesced: Bool, superseded: [Int64]) {
        self.integration = integration
        self.coalesced = coalesced
        self.superseded = superseded
    }
}

/// A pull request event as a forge reports it, reduced to what decides which bots act on it.
public struct PullRequestChange: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Opened, reopened, or given new commits: integrate its head.
        case integrate
        /// Closed or merged: stop what is queued or running for it.
        case close
    }

    /// Identities (`RepositoryURL.identity`) of every URL the payload gives for the base repository.
    public var repositories: Set<String>
    public var pullRequest: PullRequest
    /// The head commit.
    public var commit: String?
    public var action: Action

    public init(repositories: Set<String>, pullRequest: PullRequest, commit: String?, action: Action) {
        self.repositories = repositories
        self.pullRequest = pullRequest
        self.commit = commit
        self.action = action
    }

    /// The bots this event is for: those that integrate pull requests (forks too, when it is
    /// one) into its base branch of its repository, and that `accepts`.
    public func bots(_ bots: [Bot], accepts: (Bot) -> Bool = { _ in true }) -> [Bot] {
        bots.filter { bot in follows(bot, accepts: accepts) && (action == .close || bot.pullRequests.accepts(pullRequest)) }
    }

    /// Whether bots would have taken this pull request but for its coming from a fork.
    public func refusedAsFork(by bots: [Bot], accepts: (Bot) -> Bool = { _ in true }) -> Bool {
        action == .integrate && pullRequest.fork && bots.contains { follows($0, accepts: accepts) && !$0.pullRequests.forks }
    }

    /// `bot` integrates pull requests into this one's base branch of its repository, and takes its delivery.
    private func follows(_ bot: Bot, accepts: (Bot) -> Bool) -> Bool {
        bot.pullRequests.enabled && bot.repository.branch == pullRequest.base && repositories.contains(bot.repository.url.identity) && accepts(bot)
    }
}

/// A pull request to close for a bot: what is queued is canceled, what runs is asked to stop.
public struct PullRequestClosing: Sendable, Hashable {
    public var bot: String
    public var number: Int
    public var reason: IntegrationReason

    public init(bot: String, number: Int, reason: IntegrationReason) {
        self.bot = bot
        self.number = number
        self.reason = reason
    }
}

/// A push as a forge reports it, reduced to what decides which bots integrate it.
public struct Push: Sendable, Hashable {
    /// Identities (`RepositoryURL.identity`) of every URL the payload gives for the repository.
    public var repositories: Set<String>
    public var branch: String
    public var commit: String?

    public init(repositories: Set<String>, branch: String, commit: String?) {
        self.repositories = repositories
        self.branch = branch
        self.commit = commit
    }

    /// The integrations this push queues: one per on-commit bot that follows its repository and
    /// branch and that `accepts` (the web checks which secret signed the delivery).
    public func requests(for bots: [Bot], accepts: (Bot) -> Bool = { _ in true }) -> [QueueRequest] {
        bots.filter { bot in
            bot.schedule.onCommit && bot.repository.branch == branch && repositories.contains(bot.repository.url.identity) && accepts(bot)
        }.map { QueueRequest($0, cause: .webhook, commit: commit) }
    }
}
