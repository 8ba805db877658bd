import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

/// Counts calls from the watcher's thread.
final class Calls: @unchecked Sendable {
    // Guarded by `lock`.
    private var count = 0
    private let lock = NSLock()

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Watching the store for changes")
struct ChangeWatcherTests {
    @Test("A commit from another connection is seen within milliseconds, without polling")
    func seesCommits() async throws {
        let test = try TestStore()
        let calls = Calls()
        let watcher = try #require(ChangeWatcher(databasePath: test.store.path) { calls.add() })
        defer { watcher.stop() }
        try await Task.sleep(for: .milliseconds(100))
        let before = calls.value
        // Another process would do the same: open the file and commit.
        let other = try SQLiteStore.open(path: test.store.path)
        _ = try await other.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        let deadline = ContinuousClock.now + .milliseconds(500)
        while calls.value == before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(calls.value > before, "no change noticed within 500 ms")
    }
}
