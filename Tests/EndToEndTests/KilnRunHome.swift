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
import KilnStore
import KilnTestSupport
import Testing

/// A directory holding `Bots/`, as `kiln run` is used: run a bot, read what it recorded.
extension TemporaryDirectory {
    /// `kiln run BOT` here: its exit status, and its output and errors together.
    func kilnRun(_ bot: String = "app") async throws -> (status: Int32, output: String) {
        let result = try await runProcess(Executables.kiln, ["run", bot], in: path)
        return (result.status, result.standardOutput + result.standardError)
    }

    /// Lets `bot`'s first integration here start warm from the run's shared build of a
    /// `FixturePackage` (`FixtureSeed`), as a new workspace starts from a snapshot; in a matrix,
    /// those of `cells` that build as the bot without one does.
    func seed(_ bot: String = "app", cells: [String] = ["branch"]) async throws {
        try await FixtureSeed.shared.install(bot: bot, cells: cells, into: url(".kiln"))
    }

    /// Integration `number` of `bot` as `kiln run` recorded it in this directory's store.
    func recorded(_ number: Int, of bot: String = "app") async throws -> IntegrationDetail {
        let store = try SQLiteStore.open(dataDirectory: url(".kiln"))
        return try #require(try await store.integration(bot: bot, number: number))
    }
}
