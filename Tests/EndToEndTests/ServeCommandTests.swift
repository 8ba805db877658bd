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
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("kiln serve, run as a real process")
struct ServeCommandTests {
    @Test("Loads the bots, reports the broken ones, answers /health, and stops on SIGTERM")
    func serve() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: 'https://ci:s3cret@github.com/example/app.git'}\n")
        try home.write("Bots/broken.yml", "repository: {url: /srv/git/x.git}\nshedule: {}\n")
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()

        let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/health")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"status\":\"ok\""), "\(String(decoding: body, as: UTF8.self))")

        let output = try await server.terminate()
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("bot app: https://github.com/example/app.git main (Bots/app.yml)"))
        #expect(!output.standardOutput.contains("s3cret"))
        #expect(output.standardOutput.contains("bot broken: broken (Bots/broken.yml)"))
        #expect(output.standardOutput.contains("Bots/broken.yml:2:1: error: unknown key 'shedule' (did you mean 'schedule'?)"))
    }

    @Test("A second kiln serve on a data directory in use is refused, naming the running one; after a SIGKILL the directory is free")
    func oneServerPerDataDirectory() async throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\nschedule: {poll: 0}\n")
        let first = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        _ = try await first.waitForPort()
        let second = try await runProcess(Executables.kiln, ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        #expect(second.status == 1)
        let lines = second.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(second.standardError)")
        #expect(second.standardError.hasPrefix("error: the data directory \(home.path)/.kiln is in use by kiln serve (pid "))
        #expect(second.standardError.contains("listening on 127.0.0.1:0"))
        // kiln trigger and kiln status run beside the server.
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path).status == 0)
        first.sigkill()
        try await Task.sleep(for: .milliseconds(300))
        let third = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        _ = try await third.waitForPort()
        #expect(try await third.terminate().status == 0)
    }

    @Test("A listen address in use is refused in one sentence that says what to change")
    func addressInUse() async throws {
        let busy = try TemporaryDirectory()
        try busy.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\nschedule: {poll: 0}\n")
        let holder = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: busy.path)
        let port = try await holder.waitForPort()
        defer { holder.sigkill() }
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\nschedule: {poll: 0}\n")
        let result = try await runProcess(Executables.kiln, ["serve", "--listen", "127.0.0.1:\(port)"], in: home.path)
        #expect(result.status == 1)
        #expect(
            result.standardError.hasSuffix(
                "error: cannot listen on 127.0.0.1:\(port): the address is in use by another program (choose another with --listen or listen: in kiln.yml)\n"
            ),
            "\(result.standardError)")
        #expect(!result.standardError.contains("errno"))
    }
}
