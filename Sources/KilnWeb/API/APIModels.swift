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
import KilnStore

/// The JSON of docs/http.md's API, shared by `GET /api/…` and `kiln status --json` so both print
/// exactly the same thing. Optional fields are written as `null`, never left out.
public enum API {
    /// Encodes API values: camelCase keys in a stable order, ISO 8601 times.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// A bot: `{name, repository, branch, status, problems, last, running, queued}`.
    public struct Bot: Encodable, Sendable {
        public var name: String
        public var repository: String
        public var branch: String
        public var status: BotOverview.Status
        public var problems: [String]
        @Nullable public var last: Integration?
        @Nullable public var running: Integration?
        public var queued: [Integration]

        public init(_ overview: BotOverview) {
            name = overview.state.name
            repository = overview.state.repository
            branch = overview.state.branch
            problems = overview.state.problems
            status = overview.status
            last = overview.last.map(Integration.init)
            running = overview.running.first.map(Integration.init)
            queued = overview.queued.map(Integration.init)
        }
    }

    /// An integration: `{bot, number, cause, commit, step, result, reason, queuedAt, startedAt,
    /// endedAt, duration, summary, host, pullRequest, workspace, rerunOf, progress, shards,
    /// approvedBy, coverage}`.
    public struct Integration: Encodable, Sendable, Hashable {
        public var bot: String
        public var number: Int
        public var cause: IntegrationCause
        @Nullable public var commit: String?
        public var step: IntegrationStep
        @Nullable public var result: IntegrationResult?
        /// Why it ended as it did, or why it is asked to stop; null when nothing needs saying.
        @Nullable public var reason: Reason?
        public var queuedAt: Date
        @Nullable public var startedAt: Date?
        @Nullable public var endedAt: Date?
        /// Seconds.
        @Nullable public var duration: Double?
        @Nullable public var summary: Summary?
        /// The host that ran it (`host:` in kiln.yml); null while queued.
        @Nullable public var host: String?
        /// The pull request it integrates; null for the branch.
        @Nullable public var pullRequest: PullRequest?
        /// Where its workspace came from; null until it had one, and for a matrix's integration
        /// (its cells say).
        @Nullable public var workspace: Workspace?
        /// For a re-run (cause `rerun`): `{number, only: all|failed}`, the integration it runs
        /// again; null otherwise.
        @Nullable public var rerunOf: Rerun?
        /// While its tests run: `{tests, failed}` so far; null before then.
        @Nullable public var progress: TestProgress?
        /// Its tests' parts when they ran in shards: `[{index, host, tests, duration,
        /// workspace}]` (`workspace`: `integration`, the built workspace they shared); empty
        /// otherwise.
        public var shards: [ShardRun]
        /// For a fork's pull request that waited at the step `awaiting-approval`: who approved
        /// it (a token's name, or its author, a member as the forge says); null otherwise.
        @Nullable public var approvedBy: String?
        /// With coverage measured: `{percent, patch}`, the package's own lines covered and how
        /// much of the change the tests ran (`{covered, coverable, percent, files: [{path,
        /// covered, coverable, uncovered: [line]}]}`, null with nothing to compare with); null
        /// otherwise.
        @Nullable public var coverage: Coverage?

        public init(_ integration: KilnCore.Integration) {
            bot = integration.bot
            number = integration.number
            cause = integration.cause
            commit = integration.commit
            step = integration.step
            result = integration.result
            reason = integration.reason.map(Reason.init)
            queuedAt = integration.queuedAt
            startedAt = integration.startedAt
            endedAt = integration.endedAt
            duration = integration.duration
            summary = integration.summary
            host = integration.host
            pullRequest = integration.pullRequest.map(PullRequest.init)
            workspace = integration.workspace.map(Workspace.init)
            rerunOf = integration.rerunOf
            progress = integration.progress
            shards = integration.shards
            approvedBy = integration.approvedBy
            if integration.summary?.coverage != nil || integration.patchCoverage != nil {
                coverage = Coverage(percent: integration.summary?.coverage, patch: integration.patchCoverage.map(Patch.init))
            }
        }
    }

    public struct Coverage: Encodable, Sendable, Hashable {
        @Nullable public var percent: Double?
        @Nullable public var patch: Patch?
    }

    public struct Patch: Encodable, Sendable, Hashable {
        public var covered: Int
        public var coverable: Int
        @Nullable public var percent: Double?
        public var files: [File]

        /// A file's share: `{path, covered, coverable, uncovered}`.
        public struct File: Encodable, Sendable, Hashable {
            public var path: String
            public var covered: Int
            public var coverable: Int
            public var uncovered: [Int]
        }

        init(_ patch: PatchCoverage) {
            (covered, coverable, percent) = (patch.covered, patch.coverable, patch.percent)
            files = patch.files.map { File(path: $0.path, covered: $0.covered, coverable: $0.coverable, uncovered: $0.uncovered) }
        }
    }

    /// A reason: `{code, text}`, the stable code (`IntegrationReason.code`: `superseded`,
    /// `host-lost`, `no-host`, …) and the sentence the pages and mail show.
    public struct Reason: Encodable, Sendable, Hashable {
        public var code: String
        public var text: String

        public init(_ reason: IntegrationReason) {
            code = reason.code
            text = reason.sentence
        }
    }

    /// Where an integration's workspace came from: `{origin: warm|copy|snapshot|cold, snapshot:
    /// {host, number, commit}, bytes, seconds, reason}` (`snapshot`, `bytes` and `seconds` for a
    /// workspace started from a snapshot; `reason` for a cold one).
    public struct Workspace: Encodable, Sendable, Hashable {
        public var origin: WorkspaceOrigin.Kind
        @Nullable public var snapshot: WorkspaceOrigin.Source?
        @Nullable public var bytes: Int?
        @Nullable public var seconds: Double?
        @Nullable public var reason: String?

        init(_ origin: WorkspaceOrigin) {
            self.origin = origin.origin
            snapshot = origin.snapshot
            bytes = origin.bytes
            seconds = origin.seconds
            reason = origin.reason?.sentence
        }
    }

    /// A pull request: `{number, title, author, url, head, base}`.
    public struct PullRequest: Encodable, Sendable, Hashable {
        public var number: Int
        public var title: String
        public var author: String
        @Nullable public var url: String?
        public var head: String
        public var base: String

        public init(_ pullRequest: KilnCore.PullRequest) {
            number = pullRequest.number
            title = pullRequest.title
            author = pullRequest.author
            url = pullRequest.url
            head = pullRequest.head
            base = pullRequest.base
        }
    }

    /// A host: `{name, lastHeard, executors, busy, version, lease, gone, botsDiffer}`; `botsDiffer`
    /// when it reads other bot files than most live hosts.
    public struct Host: Encodable, Sendable, Hashable {
        public var name: String
        public var lastHeard: Date
        public var executors: Int
        public var busy: Int
        public var version: String
        /// Seconds.
        public var lease: Double
        public var gone: Bool
        public var botsDiffer: Bool

        public init(_ host: HostRecord, botsDiffer: Bool) {
            name = host.name
            lastHeard = host.lastHeard
            executors = host.executors
            busy = host.busy
            version = host.version
            lease = host.lease
            gone = host.gone
            self.botsDiffer = botsDiffer
        }
    }

    /// `GET /api/hosts`: every host that has reported, by name.
    public static func hosts(from store: some HostRegistry) async throws(StoreError) -> [Host] {
        let hosts = try await store.hosts()
        let differing = hosts.readingOtherBots
        return hosts.map { Host($0, botsDiffer: differing.contains($0.name)) }
    }

    /// `GET /api/bots`: the loaded bots, by name.
    /// The bots `access` may see (nil: every one, for `kiln status` on the host itself).
    public static func bots(from store: some IntegrationRecords, visibleTo access: Access? = nil) async throws(StoreError) -> [Bot] {
        try await store.botOverviews().filter { $0.loaded && access?.maySee($0.state.name, isPrivate: $0.state.isPrivate) ?? true }.map(Bot.init)
    }
}
