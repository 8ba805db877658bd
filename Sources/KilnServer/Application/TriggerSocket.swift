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
///
/// A request is read on the event loop that accepted it (`RequestReader`) and handed to this
/// service's task in one step: read through async channels, it took four hand-overs between the
/// event loop and the task pool, 0.5–2.5 ms of a trigger that starts its process in about ten.
public struct TriggerSocket: Service {
    let path: String
    let registry: BotRegistry
    let store: any IntegrationQueue
    /// A server's scheduler, which claims the integration in its queueing when an executor is free.
    var scheduler: Scheduler?
    let logger: Logger
    let clock: WallClock
    var patience = Duration.seconds(10)

    /// A request as the event loop read it, and the connection to answer on.
    struct Received: Sendable {
        let line: String
        let channel: any Channel
    }

    public func run() async throws {
        let (requests, arrived) = AsyncStream.makeStream(of: Received.self)
        let patience = TimeAmount.nanoseconds(Int64(patience.components.seconds) * 1_000_000_000 + patience.components.attoseconds / 1_000_000_000)
        let server: any Channel
        do {
            server = try await ServerBootstrap(group: .singletonMultiThreadedEventLoopGroup)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(RequestReader(patience: patience, arrived: arrived))
                    }
                }
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        } catch {
            // Not a reason to stop serving: `kiln trigger` then writes to the store itself.
            logger.warning(
                "kiln trigger will queue through the store: cannot listen on the trigger socket",
                metadata: ["path": "\(path)", "error": "\(error)"])
            // the error above is logged; shutting down is all that is left to do
            try? await gracefulShutdown()
            return
        }
        defer { unlink(path) }
        // When the listener closes (a stop, or a failure), no request can come any more.
        server.closeFuture.whenComplete { result in
            if case .failure(let error) = result {
                logger.warning("the trigger socket stopped listening", metadata: ["path": "\(path)", "error": "\(error)"])
            }
            arrived.finish()
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withDiscardingTaskGroup { answers in
                    for await request in requests {
                        answers.addTask { await answer(request) }
                    }
                }
            } onCancel: {
                server.close(promise: nil)
            }
        } onGracefulShutdown: {
            server.close(promise: nil)
        }
    }

    /// Answers one request and closes its connection. A client gone by then loses nothing: it
    /// queues through the store, which joins the integration queued here.
    private func answer(_ request: Received) async {
        let answer = await answer(to: Request(received: request.line))
        // the command went away: what it asked for is queued all the same, and its answer has no reader
        try? await request.channel.writeAndFlush(ByteBuffer(string: answer.line + "\n"))
        try? await request.channel.close()
    }

    func answer(to request: Request?) async -> Answer {
        guard case .trigger(let name) = request else { return .refused("not a request this server knows") }
        guard let bot = await registry.catalog.bot(named: name) else { return .refused("this server has no bot named \(name)") }
        do {
            let request = QueueRequest(bot, cause: .manual)
            let outcome =
                if let scheduler { try await scheduler.queueAndStart(request, of: bot) } else { try await store.enqueue(request, now: clock.now) }
            return outcome.coalesced ? .joined(outcome.integration.number) : .queued(outcome.integration.number)
        } catch {
            logger.error("cannot queue a kiln trigger", metadata: ["bot": "\(name)", "error": "\(error)"])
            return .refused("\(error)")
        }
    }
}

/// Reads one connection's request on its event loop: the bytes up to the first newline (or
/// `Request.maximumLength` of them), handed on as soon as they are there; a connection that has
/// not said that much within `patience` is closed.
final class RequestReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let patience: TimeAmount
    private let arrived: AsyncStream<TriggerSocket.Received>.Continuation
    private var received = ByteBuffer()
    private var deadline: Scheduled<Void>?
    private var handedOn = false

    init(patience: TimeAmount, arrived: AsyncStream<TriggerSocket.Received>.Continuation) {
        self.patience = patience
        self.arrived = arrived
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: patience) { channel.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !handedOn else { return }
        var chunk = unwrapInboundIn(data)
        received.writeBuffer(&chunk)
        guard received.readableBytesView.contains(UInt8(ascii: "\n")) || received.readableBytes > TriggerSocket.Request.maximumLength else { return }
        handedOn = true
        deadline?.cancel()
        if case .terminated = arrived.yield(TriggerSocket.Received(line: String(buffer: received), channel: context.channel)) {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}
