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

extension IntegrationReason {
    /// The reason as every page, mail, status, review, log and command says it: "superseded by
    /// a newer commit, 3f2a9c1d0b7e", "host 'build-1' stopped answering (last heard at …)".
    public var sentence: String {
        switch self {
        case .canceledFromWeb(let token): "canceled from the web\(token.map { " (token \($0))" } ?? "")"
        case .canceled: "canceled"
        case .pullRequestClosed(let number, let merged): "pull request #\(number) was \(merged ? "merged" : "closed")"
        case .superseded(let commit): "superseded by a newer commit, \(ShortHash.text(commit))"
        case .serverStopped: "the server stopped before it started"
        case .botUnavailable: "the bot's file is gone or broken"
        case .cellRemoved(let cell): "the bot's matrix no longer has the cell \(cell)"
        case .noHost(let toolchain): "no live host offers the toolchain '\(toolchain)' (name it under `toolchains:` in a host's kiln.yml)"
        case .matrixEnded(let result): "its matrix ended as \(result.rawValue) first"
        case .checkoutFailed(let message): message
        case .triggerFailed(let name, let status): "before trigger '\(name)' failed with exit status \(status)"
        case .timedOut(let limit): "the integration ran longer than its timeout of \(limit.configSpelling)"
        case .limitReached(let reached): LimitText.sentence(reached)
        case .workspaceDeleted(let path): "the workspace \(path) is gone: a process of this integration deleted it"
        case .archiveTooLarge(let bytes, let limit):
            "archive not kept: \(ByteCount.text(bytes)) is over archive.max-size (\(ByteCount.text(limit)))"
        case .archiveNotKept(let message): "archive not kept: \(message)"
        case .fault(let stage, let message): Self.fault(stage, message)
        case .abandoned(let owner, let step):
            "the Kiln process running this integration (\(owner ?? "unknown")) stopped during step '\(step.rawValue)'; "
                + "it was ended when Kiln started again"
        case .hostLost(let host, let lastHeard, let step):
            "host '\(host)' stopped answering (\(lastHeard.map { "last heard at \($0.formatted(.iso8601))" } ?? "never heard from")) "
                + "during step '\(step.rawValue)'; another host ended this integration and queued its commit again"
        case .logLost(let path, let bytes, let message, let besides):
            [besides?.sentence, "the log file \(path) could not be written (\(message)): \(ByteCount.text(bytes)) of output lost"]
                .compactMap { $0 }.joined(separator: "; ")
        case .cells(let cells): cells.map { "\($0.cell): \($0.reason.sentence)" }.joined(separator: "; ")
        case .failuresDidNotReproduce(let number): "the failures of #\(number) did not reproduce: its failed tests passed when run again"
        case .recorded(let text): text
        }
    }

    private static func fault(_ stage: FaultStage, _ message: String) -> String {
        switch stage {
        case .checkout: "checkout: \(message)"
        case .recordingStep(let step): "recording step \(step.rawValue): \(message)"
        case .readingBaseline: "cannot read the integration to compare with: \(message)"
        case .readingTestHistory(let test): "cannot read the history of \(test) to tell whether its failure is flaky: \(message)"
        case .other: message
        }
    }
}
