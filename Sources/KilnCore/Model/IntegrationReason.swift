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

/// Why an integration ended as it did, or why it is asked to stop: a case and its values, never a
/// sentence. The store keeps it as its `code` and values (JSON, `stored`); KilnPresentation makes
/// the one sentence that pages, mail, statuses, reviews and the command line show.
public indirect enum IntegrationReason: Sendable, Hashable {
    /// A member canceled it on the web page or the API (`token`: the API token's name, when one was used).
    case canceledFromWeb(token: String?)
    /// Its executor was canceled: the server is stopping, or a test stopped it.
    case canceled
    /// Its pull request was closed or merged before it ended.
    case pullRequestClosed(number: Int, merged: Bool)
    /// A newer commit of its branch was pushed (`commit`: the newer one).
    case superseded(commit: String)
    /// The server stopped before the integration started.
    case serverStopped
    /// Its bot's file went away or broke before it started.
    case botUnavailable
    /// Its bot's matrix no longer has this cell.
    case cellRemoved(cell: String)
    /// No live host offers the cell's toolchain.
    case noHost(toolchain: String)
    /// Its matrix's integration ended (with `result`) before this cell did.
    case matrixEnded(result: IntegrationResult)
    /// The checkout failed (`message`: the git library's words).
    case checkoutFailed(message: String)
    /// A before trigger exited with `status`.
    case triggerFailed(name: String, status: Int)
    /// It ran longer than its bot's `timeout`.
    case timedOut(limit: Duration)
    /// A step's processes reached one of the bot's `limits` and the step was stopped.
    case limitReached(LimitReached)
    /// A process of the integration deleted its own workspace.
    case workspaceDeleted(path: String)
    /// The archive was over `archive.max-size`, so it was not kept.
    case archiveTooLarge(bytes: Int, limit: Int)
    /// The archive could not be kept (`message`: the store's words).
    case archiveNotKept(message: String)
    /// Kiln itself failed at `stage` (`message`: the error's words).
    case fault(stage: FaultStage, message: String)
    /// The Kiln process running it (`owner`, when known) stopped during `step`; it was ended when
    /// Kiln started again.
    case abandoned(owner: String?, step: IntegrationStep)
    /// Its host stopped answering (`lastHeard`, when ever heard) during `step`; another host
    /// ended it and queued its commit again.
    case hostLost(host: String, lastHeard: Date?, step: IntegrationStep)
    /// Its log file refused output (`message`: the file system's words); `besides` is the reason
    /// it had already, if any.
    case logLost(path: String, bytes: Int, message: String, besides: IntegrationReason?)
    /// A matrix's integration: why each cell that did not pass ended as it did.
    case cells([CellReason])
    /// A failed-only re-run (`Rerun.Scope.failed`) of integration `number` passed: what failed
    /// there did not fail again.
    case failuresDidNotReproduce(number: Int)
    /// A reason written as a sentence by a Kiln from before reasons were data, kept as it was.
    case recorded(text: String)

    /// Where Kiln itself failed, for `fault`.
    public enum FaultStage: Sendable, Hashable {
        case checkout
        /// Recording the start of `step` in the store.
        case recordingStep(IntegrationStep)
        /// Reading the integration to compare with.
        case readingBaseline
        /// Reading a failed test's history (`test`: suite.name) to tell whether it is flaky.
        case readingTestHistory(test: String)
        /// Anywhere else.
        case other
    }

    /// One cell's reason, in `cells`.
    public struct CellReason: Sendable, Hashable {
        public var cell: String
        public var reason: IntegrationReason

        public init(cell: String, reason: IntegrationReason) {
            self.cell = cell
            self.reason = reason
        }
    }

    /// The stable name of the case: what the JSON API's `reason.code` gives, and what the store keeps.
    public var code: String {
        switch self {
        case .canceledFromWeb: "canceled-from-web"
        case .canceled: "canceled"
        case .pullRequestClosed: "pull-request-closed"
        case .superseded: "superseded"
        case .serverStopped: "server-stopped"
        case .botUnavailable: "bot-unavailable"
        case .cellRemoved: "cell-removed"
        case .noHost: "no-host"
        case .matrixEnded: "matrix-ended"
        case .checkoutFailed: "checkout-failed"
        case .triggerFailed: "trigger-failed"
        case .timedOut: "timed-out"
        case .limitReached: "limit-reached"
        case .workspaceDeleted: "workspace-deleted"
        case .archiveTooLarge: "archive-too-large"
        case .archiveNotKept: "archive-not-kept"
        case .fault: "fault"
        case .abandoned: "abandoned"
        case .hostLost: "host-lost"
        case .logLost: "log-lost"
        case .cells: "cells"
        case .failuresDidNotReproduce: "failures-did-not-reproduce"
        case .recorded: "recorded"
        }
    }

    /// The reason as the store keeps it: a JSON object of its `code` and values.
    public var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Every value is a string, a number, a Boolean or a nested reason: encoding cannot fail.
        guard let data = try? encoder.encode(self) else { return #"{"code":"\#(code)"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// A reason as the store keeps it (`stored`). Text that is not such an object, written by an
    /// older Kiln, or a code this version does not know, is kept as `recorded` text.
    public init(stored text: String) {
        if text.hasPrefix("{"), let reason = try? JSONDecoder().decode(IntegrationReason.self, from: Data(text.utf8)) {
            self = reason
        } else {
            self = .recorded(text: text)
        }
    }
}

extension IntegrationReason: Codable {
    private enum Key: String, CodingKey {
        case code, token, number, merged, commit, cell, toolchain, result, message, name, status, seconds, path, bytes, limit
        case stage, step, test, owner, host, lastHeard, besides, cells, reason, text, value
    }

    private enum Unknown: Error { case code(String) }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: Key.self)
        let code = try values.decode(String.self, forKey: .code)
        func string(_ key: Key) throws -> String { try values.decode(String.self, forKey: key) }
        func step() throws -> IntegrationStep { try values.decode(IntegrationStep.self, forKey: .step) }
        switch code {
        case "canceled-from-web": self = .canceledFromWeb(token: try values.decodeIfPresent(String.self, forKey: .token))
        case "canceled": self = .canceled
        case "pull-request-closed":
            self = .pullRequestClosed(number: try values.decode(Int.self, forKey: .number), merged: try values.decode(Bool.self, forKey: .merged))
        case "superseded": self = .superseded(commit: try string(.commit))
        case "server-stopped": self = .serverStopped
        case "bot-unavailable": self = .botUnavailable
        case "cell-removed": self = .cellRemoved(cell: try string(.cell))
        case "no-host": self = .noHost(toolchain: try string(.toolchain))
        case "matrix-ended": self = .matrixEnded(result: try values.decode(IntegrationResult.self, forKey: .result))
        case "checkout-failed": self = .checkoutFailed(message: try string(.message))
        case "trigger-failed": self = .triggerFailed(name: try string(.name), status: try values.decode(Int.self, forKey: .status))
        case "timed-out": self = .timedOut(limit: .seconds(try values.decode(Int64.self, forKey: .seconds)))
        case "limit-reached":
            self = .limitReached(
                LimitReached(
                    limit: try values.decode(ResourceLimit.self, forKey: .limit), value: try values.decode(Double.self, forKey: .value),
                    step: try step()))
        case "workspace-deleted": self = .workspaceDeleted(path: try string(.path))
        case "archive-too-large":
            self = .archiveTooLarge(bytes: try values.decode(Int.self, forKey: .bytes), limit: try values.decode(Int.self, forKey: .limit))
        case "archive-not-kept": self = .archiveNotKept(message: try string(.message))
        case "fault":
            let stage: FaultStage =
                switch try string(.stage) {
                case "checkout": .checkout
                case "recording-step": .recordingStep(try step())
                case "reading-baseline": .readingBaseline
                case "reading-test-history": .readingTestHistory(test: try string(.test))
                default: .other
                }
            self = .fault(stage: stage, message: try string(.message))
        case "abandoned": self = .abandoned(owner: try values.decodeIfPresent(String.self, forKey: .owner), step: try step())
        case "host-lost":
            let heard = try values.decodeIfPresent(Double.self, forKey: .lastHeard).map { Date(timeIntervalSince1970: $0) }
            self = .hostLost(host: try string(.host), lastHeard: heard, step: try step())
        case "log-lost":
            self = .logLost(
                path: try string(.path), bytes: try values.decode(Int.self, forKey: .bytes), message: try string(.message),
                besides: try values.decodeIfPresent(IntegrationReason.self, forKey: .besides))
        case "cells": self = .cells(try values.decode([CellReason].self, forKey: .cells))
        case "failures-did-not-reproduce": self = .failuresDidNotReproduce(number: try values.decode(Int.self, forKey: .number))
        case "recorded": self = .recorded(text: try string(.text))
        default: throw Unknown.code(code)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Key.self)
        try values.encode(code, forKey: .code)
        switch self {
        case .canceled, .serverStopped, .botUnavailable: break
        case .canceledFromWeb(let token): try values.encodeIfPresent(token, forKey: .token)
        case .pullRequestClosed(let number, let merged):
            try values.encode(number, forKey: .number)
            try values.encode(merged, forKey: .merged)
        case .failuresDidNotReproduce(let number): try values.encode(number, forKey: .number)
        case .superseded(let commit): try values.encode(commit, forKey: .commit)
        case .cellRemoved(let cell): try values.encode(cell, forKey: .cell)
        case .noHost(let toolchain): try values.encode(toolchain, forKey: .toolchain)
        case .matrixEnded(let result): try values.encode(result, forKey: .result)
        case .checkoutFailed(let message), .archiveNotKept(let message): try values.encode(message, forKey: .message)
        case .triggerFailed(let name, let status):
            try values.encode(name, forKey: .name)
            try values.encode(status, forKey: .status)
        case .timedOut(let limit): try values.encode(limit.components.seconds, forKey: .seconds)
        case .limitReached(let reached):
            try values.encode(reached.limit, forKey: .limit)
            try values.encode(reached.value, forKey: .value)
            try values.encode(reached.step, forKey: .step)
        case .workspaceDeleted(let path): try values.encode(path, forKey: .path)
        case .archiveTooLarge(let bytes, let limit):
            try values.encode(bytes, forKey: .bytes)
            try values.encode(limit, forKey: .limit)
        case .fault(let stage, let message):
            try values.encode(message, forKey: .message)
            switch stage {
            case .checkout: try values.encode("checkout", forKey: .stage)
            case .recordingStep(let step):
                try values.encode("recording-step", forKey: .stage)
                try values.encode(step, forKey: .step)
            case .readingBaseline: try values.encode("reading-baseline", forKey: .stage)
            case .readingTestHistory(let test):
                try values.encode("reading-test-history", forKey: .stage)
                try values.encode(test, forKey: .test)
            case .other: try values.encode("other", forKey: .stage)
            }
        case .abandoned(let owner, let step):
            try values.encodeIfPresent(owner, forKey: .owner)
            try values.encode(step, forKey: .step)
        case .hostLost(let host, let lastHeard, let step):
            try values.encode(host, forKey: .host)
            try values.encodeIfPresent(lastHeard?.timeIntervalSince1970, forKey: .lastHeard)
            try values.encode(step, forKey: .step)
        case .logLost(let path, let bytes, let message, let besides):
            try values.encode(path, forKey: .path)
            try values.encode(bytes, forKey: .bytes)
            try values.encode(message, forKey: .message)
            try values.encodeIfPresent(besides, forKey: .besides)
        case .cells(let cells): try values.encode(cells, forKey: .cells)
        case .recorded(let text): try values.encode(text, forKey: .text)
        }
    }
}

extension IntegrationReason.CellReason: Codable {}
