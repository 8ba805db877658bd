import Logging
import PostgresNIO

/// `LISTEN kiln` on a connection leased from the pool for as long as anyone subscribes, leased
/// again after a lost connection. Every notification is a change, of the log when its payload
/// says `log`, else of the data; a reconnection (changes may have been missed meanwhile) is both.
final class PostgresListener: ChangeSource {
    private let task: Task<Void, Never>

    init(client: PostgresClient, logger: Logger, onChange: @escaping @Sendable (ChangeKind) -> Void) {
        task = Task {
            var delay = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: "kiln") { notifications in
                            delay = .milliseconds(100)
                            onChange(.data)
                            onChange(.log)
                            for try await notification in notifications { onChange(notification.payload == "log" ? .log : .data) }
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
