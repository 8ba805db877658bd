import Foundation
import KilnCore
import KilnStore
import KilnTestSupport

/// A migrated store in a temp data directory, in one call.
struct TestStore {
    let directory: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        directory = try TemporaryDirectory("kiln-store")
        store = try SQLiteStore.open(dataDirectory: directory.path)
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
