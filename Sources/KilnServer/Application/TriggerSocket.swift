import Foundation
import KilnCore
import KilnStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Where `kiln trigger` on this machine asks the server of its data directory to queue an
/// integration (`DataDirectory.triggerSocket`, a Unix socket): the server queues it with its own
/// store connection, warm, and the command neither parses the bot's file nor opens the store. The
/// command takes the store's path as before whenever the socket is not there or answers anything
/// but `queued`/`joined` (`TriggerSocket.ask`).
///
/// Who may connect is who may write the store: the socket is made with the server's umask, as the
/// database file is. One line each way (`Request`, `Answer`); a connection that says nothing for
/// `patience` is closed.
public struct TriggerSocket: Service {
    let path: String
    let registry: BotRegistry
    let store: any IntegrationQueue
    let logger: Logger
    let clock: WallClock
    var patience = Duration.seconds(10)

    public func run() async throws {
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: .singletonMultiThreadedEventLoopGroup)
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { child in
                    child.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child) }
                }
        } catch {
            // Not a reason to stop serving: `kiln trigger` then writes to the store itself.
            logger.warning(
                "kiln trigger will queue through the store: cannot listen on the trigger socket",
                metadata: ["path": "\(path)", "error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        defer { unlink(path) }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                do {
                    try await withThrowingDiscardingTaskGroup { connections in
                        try await server.executeThenClose { inbound in
                            for try await connection in inbound {
                                connections.addTask { await answer(connection) }
                            }
                        }
                    }
                } catch {
                    // Nothing is lost: `kiln trigger` queues through the store from now on.
                    if !Task.isCancelled {
                        logger.warning("the trigger socket stopped listening", metadata: ["path": "\(path)", "error": "\(error)"])
                    }
                }
            } onCancel: {
                server.channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    /// Reads one request from `connection`, answers it, and closes it.
    private func answer(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let patience = patience
        try? await connection.executeThenClose { inbound, outbound in
            let line = try await withThrowingTaskGroup(of: String?.self) { reading in
                reading.addTask {
                    var received = ByteBuffer()
                    for try await var chunk in inbound {
                        received.writeBuffer(&chunk)
                        if received.readableBytesView.contains(UInt8(ascii: "\n")) || received.readableBytes > Request.maximumLength { break }
                    }
                    return String(buffer: received)
                }
                reading.addTask {
                    try await Task.sleep(for: patience)
                    return nil
                }
                let first = try await reading.next() ?? nil
                reading.cancelAll()
                return first
            }
            guard let line else { return }
            let answer = await answer(to: Request(received: line))
            try await outbound.write(ByteBuffer(string: answer.line + "\n"))
        }
    }

    func answer(to request: Request?) async -> Answer {
        guard case .trigger(let name) = request else { return .refused("not a request this server knows") }
        guard let bot = await registry.catalog.bot(named: name) else { return .refused("this server has no bot named \(name)") }
        do {
            let outcome = try await store.enqueue(QueueRequest(bot, cause: .manual), now: clock.now)
            return outcome.coalesced ? .joined(outcome.integration.number) : .queued(outcome.integration.number)
        } catch {
            logger.error("cannot queue a kiln trigger", metadata: ["bot": "\(name)", "error": "\(error)"])
            return .refused("\(error)")
        }
    }
}
