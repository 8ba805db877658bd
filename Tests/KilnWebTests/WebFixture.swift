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
import Hummingbird
import KilnCore
import KilnServer
import KilnStore
import KilnTestSupport
import KilnWeb
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP application on a loopback port, over a real store in a temp dir, with bot files
/// written by the test. No scheduler runs, so what the tests queue stays queued for them to see.
final class WebFixture: Sendable {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let registry: BotRegistry
    let port: Int
    private let task: Task<Void, any Error>

    static let secret = "It's a Secret to Everybody"

    /// Starts a server with `bots` (file name → contents) and, optionally, the server-wide secret.
    static func start(
        bots: [String: String], secret: String? = WebFixture.secret, configure: (inout ServerConfig) -> Void = { _ in }
    ) async throws -> WebFixture {
        let directory = try TemporaryDirectory("kiln-web")
        for (name, text) in bots { try directory.write("Bots/\(name).yml", text) }
        try FileManager.default.createDirectory(atPath: directory.url("Bots"), withIntermediateDirectories: true)
        var config = ServerConfig(listen: ListenAddress(host: "127.0.0.1", port: 0))
        config.bots = directory.url("Bots")
        config.data = directory.url("data")
        config.host = "web-1"
        // No executor: what the tests queue stays queued for them to see.
        config.executors = 0
        if let secret {
            try directory.write("webhook-secret", secret)
            config.webhookSecretFile = directory.url("webhook-secret")
        }
        configure(&config)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try await KilnApplication.build(
            settings: ServerSettings(config: config), role: .server { continuation.yield($0) }, logger: logger)
        _ = try await application.loadBots()
        let task = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError.noPort }
        let store = try SQLiteStore.open(dataDirectory: config.data)
        return WebFixture(directory: directory, store: store, registry: application.registry, port: port, task: task)
    }

    private init(
        directory: TemporaryDirectory, store: SQLiteStore, registry: BotRegistry, port: Int, task: Task<Void, any Error>
    ) {
        self.directory = directory
        self.store = store
        self.registry = registry
        self.port = port
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }

    enum FixtureError: Error { case noPort, notHTTP }

    struct Reply: Sendable {
        var status: Int
        var contentType: String
        var body: Data
        var headers: [String: String] = [:]
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> Any { try JSONSerialization.jsonObject(with: body) }
    }

    func get(_ path: String) async throws -> Reply {
        try await send(URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))))
    }

    /// A GET with request headers, past any cache (so that a 304 is seen as the server sent it).
    func get(_ path: String, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request, session: Self.uncached)
    }

    static let uncached: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    func post(_ path: String, body: Data, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    /// Any request, as sent: redirects are answered, not followed.
    func send(_ method: String, _ path: String, body: Data, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        if method != "GET" { request.httpBody = body }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request, session: Self.unredirected)
    }

    /// A session that answers redirects instead of following them, and keeps no cookies.
    static let unredirected: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    private func send(_ request: URLRequest, session: URLSession = .shared) async throws -> Reply {
        // URLSession's 60 s counts the time a request waits for one of its few connections to
        // the host: a burst of 200 on a loaded machine can wait that long, and these tests are
        // about what is answered, not how fast.
        var request = request
        request.timeoutInterval = 300
        let (body, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FixtureError.notHTTP }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type") ?? "", body: body, headers: headers)
    }

    /// Records a completed integration of `bot` with everything the pages show.
    @discardableResult
    func integrate(_ bot: String, result: IntegrationResult, outcome: IntegrationOutcome? = nil, log: String = "", commit: String = "abc1234")
        async throws -> Integration
    {
        try await store.record(
            bot, outcome: outcome ?? IntegrationOutcome(result: result), commit: commit, at: Date(), duration: 3, steps: [.building], log: log)
    }
}

/// Bot files used across the web tests.
enum Bots {
    static let app = """
        repository:
          url: https://github.com/example/app.git
        schedule:
          poll: 0
        """
    static func following(_ url: String, branch: String = "main", secretFile: String? = nil) -> String {
        var text = "repository:\n  url: \(url)\n  branch: \(branch)\nschedule:\n  poll: 0\n"
        if let secretFile { text += "webhook-secret-file: \(secretFile)\n" }
        return text
    }
}
