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
import KilnTestSupport
import Testing

@testable import KilnStore

/// The engines the store's behavioural suite runs on: each test takes an `Engine` and runs once
/// on each.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A migrated store in a temp data directory, in one call: SQLite in the directory, or a new
/// database on the tests' PostgreSQL server with its logs in the directory.
struct TestStore {
    let engine: Engine
    let directory: TemporaryDirectory
    let store: any Store
    /// Where another process finds the same store: the SQLite file, or the database's URL.
    let location: String
    /// Opens the same store again, as another process or host would, running it.
    let another: @Sendable () async throws -> any Store
    /// Runs the stores of the test while it lasts.
    let runner = StoreRunner()

    init(_ engine: Engine = .sqlite) async throws {
        self.engine = engine
        let directory = try TemporaryDirectory("kiln-store")
        self.directory = directory
        let data = DataDirectory(directory.path)
        let runner = runner
        switch engine {
        case .sqlite:
            location = data.database
            another = { runner.run(try SQLiteStore.open(dataDirectory: directory.path)) }
        case .postgres:
            let url = try await PostgresServer.shared.database()
            location = url
            another = { runner.run(try await PostgresStore.open(DatabaseSettings(url: url), connections: 4, logsDirectory: data.logs)) }
        }
        store = try await another()
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ seconds: Double) -> Date { Self.t0.addingTimeInterval(seconds) }

    /// Queues, claims and completes one integration of `bot`.
    @discardableResult
    func integrate(_ bot: String, outcome: IntegrationOutcome, at seconds: Double = 0, commit: String? = nil) async throws -> Integration {
        try await store.record(bot, outcome: outcome, commit: commit, at: at(seconds))
    }

    /// Runs one statement as the store would (for what no operation does, such as moving time).
    func execute(_ sql: String, _ arguments: any SQLBindable...) async throws {
        switch store {
        case let store as SQLiteStore: try await store.write("a test's statement") { try $0.execute(sql, arguments) }
        case let store as PostgresStore: try await store.write("a test's statement") { try $0.execute(sql, arguments) }
        default: Issue.record("not a store of either engine: \(type(of: store))")
        }
    }

    /// The whole log of an integration, wherever the engine keeps it.
    func log(_ bot: String, _ number: Int) async throws -> String {
        String(decoding: try await store.readLog(bot: bot, number: number, from: 0, limit: 1 << 30) ?? [], as: UTF8.self)
    }
}

extension IntegrationIssue {
    static func error(_ message: String, file: String = "Sources/App/main.swift", line: Int = 1) -> IntegrationIssue {
        IntegrationIssue(type: .error, message: message, file: file, line: line, fingerprint: "\(file)|\(message)")
    }
}
