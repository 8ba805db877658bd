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

/// Paths of the things a test drives as real processes.
public enum Executables {
    /// The `kiln` binary built next to the test bundle (`swift build --build-tests` builds both).
    public static var kiln: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The test executable may sit inside `kilnPackageTests.xctest/` on some platforms.
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("kiln").path
    }

    /// The repository root, for tests that read its checked-in files (Bots/, Deploy/).
    public static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}

/// What a finished process left behind.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Runs `executable` with `arguments` in `directory` and waits for it, blocking the calling
/// thread: for synchronous code only (set-up and tear-down that cannot await). An async test
/// calls `runProcess`, which never holds a thread. Either kills the process and throws after
/// `timeout`, so a process that never ends fails its test instead of stalling the suite. Nothing
/// here is used by the product, which starts its processes through swift-subprocess.
public func runProcessSync(
    _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
    timeout: Duration = .seconds(300)
) throws -> ProcessOutput {
    try ChildProcess(executable, arguments, in: directory, environment: environment).finishBlocking(within: timeout)
}

/// Runs `executable` with `arguments` in `directory` and awaits its end. A test that waits for a
/// process (a whole `kiln run` takes half a minute) never holds one of the two threads Swift
/// concurrency runs every test on here, so it cannot starve the tests running beside it.
public func runProcess(
    _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
    timeout: Duration = .seconds(600)
) async throws -> ProcessOutput {
    try await ChildProcess(executable, arguments, in: directory, environment: environment).finish(within: timeout)
}

extension Executables {
    /// The store stress helper, built next to `kiln`.
    public static var storeStress: String {
        URL(fileURLWithPath: kiln).deletingLastPathComponent().appendingPathComponent("kiln-store-stress").path
    }
}

/// The processes whose command line matches `pattern` that are still there after up to `timeout`:
/// a stopped process may take a moment to be gone on a busy machine. Empty when none is left.
public func leftoverProcesses(matching pattern: String, timeout: Duration = .seconds(10)) async throws -> String {
    let deadline = ContinuousClock.now + timeout
    while true {
        // A stopped process that nobody has reaped yet (a zombie) runs nothing: it does not count.
        let found = try await runProcess("/usr/bin/pgrep", ["-f", pattern]).standardOutput.split(separator: "\n").filter { pid in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            guard let close = stat.lastIndex(of: ")") else { return false }
            return !stat[stat.index(after: close)...].hasPrefix(" Z")
        }.map { "\($0)\n" }.joined()
        if found.isEmpty || ContinuousClock.now >= deadline { return found }
        try await Task.sleep(for: .milliseconds(50))
    }
}
