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

/// A bot as the registry last loaded it.
public struct BotState: Sendable, Hashable {
    public var name: String
    public var file: String
    /// Redacted repository URL.
    public var repository: String
    public var branch: String
    /// `file:line:col: error: …` lines; empty when the file is valid.
    public var problems: [String]
    /// `visibility: private`. A broken file's is not known: it keeps what the store had, or is
    /// private when the file so much as mentions `private`.
    public var isPrivate: Bool

    public init(name: String, file: String, repository: String, branch: String, problems: [String] = [], isPrivate: Bool = false) {
        self.isPrivate = isPrivate
        self.name = name
        self.file = file
        self.repository = repository
        self.branch = branch
        self.problems = problems
    }
}

/// A bot with what the front page shows of it.
public struct BotOverview: Sendable, Hashable {
    public var state: BotState
    /// False when its file is gone; its history is kept.
    public var loaded: Bool
    public var last: Integration?
    public var running: [Integration]
    public var queued: [Integration]

    public init(state: BotState, loaded: Bool, last: Integration?, running: [Integration], queued: [Integration]) {
        self.state = state
        self.loaded = loaded
        self.last = last
        self.running = running
        self.queued = queued
    }

    /// What the bot is doing, as the API and the pages name it.
    public enum Status: String, Sendable, Codable {
        case idle, queued, running, broken
    }

    public var status: Status {
        if !state.problems.isEmpty { return .broken }
        if !running.isEmpty { return .running }
        return queued.isEmpty ? .idle : .queued
    }
}

extension BotCatalog {
    /// The bots as the store records them: good ones with their repository, broken ones with problems.
    public var states: [BotState] {
        bots.map {
            BotState(
                name: $0.bot.name, file: $0.file, repository: $0.bot.repository.url.redacted, branch: $0.bot.repository.branch,
                isPrivate: $0.bot.visibility == .private)
        }
            + broken.map {
                BotState(
                    name: $0.name, file: $0.file, repository: "", branch: "", problems: $0.problems.map(\.description), isPrivate: $0.mayBePrivate)
            }
    }
}
