import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

/// The engines the store's behavioural suite runs on: each test that takes an `Engine` runs once
/// on each.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A migrated store in a temp data directory, in one call: SQLite in the directory, or a new
/// database on the tests' PostgreSQL server with its logs in the directory.
struct TestStore {
    let directory: TemporaryDirectory
    let store: any Store
    /// Opens the same store again, as another process or host would.
    let another: @Sendable () async throws -> any Store

    init(_ engine: Engine = .sqlite) async throws {
        let directory = try TemporaryDirectory("kiln-store")
        self.directory = directory
        let logs = DataDirectory(directory.path).logs
        switch engine {
        case .sqlite:
            another = { try SQLiteStore.open(dataDirectory: directory.path) }
        case .postgres:
            let settings = DatabaseSettings(url: try await PostgresServer.shared.database())
            another = { try await PostgresStore.open(settings, logsDirectory: logs) }
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
}

extension IntegrationIssue {
    static func error(_ message: String, file: String = "Sources/App/main.swift", line: Int = 1) -> IntegrationIssue {
        IntegrationIssue(type: .error, message: message, file: file, line: line, fingerprint: "\(file)|\(message)")
    }
}
