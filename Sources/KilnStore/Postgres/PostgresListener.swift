import Logging
import PostgresNIO

/// `LISTEN kiln` on a connection leased from the pool for as long as anyone subscribes, leased
/// again after a lost connection. Every notification, and every reconnection (changes may have been
/// missed meanwhile), is a change.
final class PostgresListener: ChangeSource {
    private let task: Task<Void, Never>

    init(client: PostgresClient, logger: Logger, onChange: @escaping @Sendable () -> Void) {
        task = Task {
            var delay = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: "kiln") { notifications in
                            delay = .milliseconds(100)
                            onChange()
                            for try await _ in notifications { onChange() }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning("listening for database changes: \(error.reason); connecting again in \(delay)")
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    func stop() {
        task.cancel()
    }
}
