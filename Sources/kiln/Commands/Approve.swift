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

import ArgumentParser
import Foundation
import KilnCore
import KilnStore

struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Let a fork's pull request that waits for a member's approval run.",
        discussion: """
            Under `pull-requests: {forks: approve}`, a pull request from a fork whose author is not \
            trusted is queued at the step awaiting-approval and does not run until a member approves \
            it. This approves integration N of the bot: it runs when an executor is free. The \
            approval is kept in the audit trail, and a new push to the pull request waits again.

            Examples:
              kiln approve app 42
              kiln approve app 42 --data /var/lib/kiln
            """
    )

    @OptionGroup var location: LocationOptions

    @Argument(help: ArgumentHelp("The bot.", valueName: "bot"))
    var bot: String

    @Argument(help: ArgumentHelp("The integration waiting for approval.", valueName: "N"))
    var number: Int

    func run() async throws {
        try await Token.withStore(location) { store in
            let event = Token.audit(.approved, nil, bot: bot, number: number, detail: [])
            let approver = event.detail.map { String($0.dropFirst("by ".count)) } ?? "the command line"
            guard try await store.approve(bot: bot, number: number, by: approver, now: event.at) != nil else {
                guard let integration = try await store.integration(bot: bot, number: number) else {
                    Console.error("error: bot '\(bot)' has no integration #\(number) (kiln status lists its integrations)")
                    throw ExitCode.failure
                }
                Console.error("error: \(bot) #\(number) waits for no approval: it is \(integration.integration.step.rawValue)")
                throw ExitCode.failure
            }
            try await store.recordAudit(event)
            Console.out("approved \(bot) #\(number): it runs when an executor is free")
        }
    }
}
