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

/// Reads Swift Testing's event stream (`swift test --experimental-event-stream-output FILE`, one
/// JSON object per line) into test cases.
///
/// The stream is written as tests run, so a test process that crashes still leaves the tests
/// before the crash; a test that started and never ended is reported failed.
public struct SwiftTestingEventParser: Sendable {
    public let root: String
    private var definitions: [String: Definition] = [:]
    private var started: [String: Double] = [:]
    private var issues: [String: (message: String, file: String?, line: Int?)] = [:]
    private var order: [String] = []
    private(set) public var tests: [TestCase] = []

    private struct Definition {
        var suite: String
        var name: String
        var isSuite: Bool
    }

    public init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    public static func parse(_ stream: String, root: String) -> [TestCase] {
        var parser = SwiftTestingEventParser(root: root)
        for line in stream.split(separator: "\n", omittingEmptySubsequences: true) { parser.consume(line) }
        return parser.finish(crash: nil)
    }

    public mutating func consume(_ line: Substring) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let kind = object["kind"] as? String, let payload = object["payload"] as? [String: Any]
        else { return }
        if kind == "test" {
            define(payload)
        } else if kind == "event" {
            handle(payload)
        }
    }

    private mutating func define(_ payload: [String: Any]) {
        guard let id = payload["id"] as? String, let name = payload["name"] as? String else { return }
        let isSuite = payload["kind"] as? String == "suite"
        // `Module.Suite/test()/File.swift:4:6`: the suite is the part before the first slash.
        let suite = id.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        let display = payload["displayName"] as? String
        definitions[id] = Definition(suite: isSuite ? id : suite, name: display.map { "\(name) \"\($0)\"" } ?? name, isSuite: isSuite)
    }

    private mutating func handle(_ payload: [String: Any]) {
        guard let kind = payload["kind"] as? String, let id = payload["testID"] as? String else { return }
        guard let definition = definitions[id], !definition.isSuite else { return }
        let instant = (payload["instant"] as? [String: Any])?["absolute"] as? Double ?? 0
        switch kind {
        case "testStarted":
            started[id] = instant
            order.append(id)
        case "issueRecorded":
            guard issues[id] == nil else { return }
            let isKnown = (payload["issue"] as? [String: Any])?["isKnown"] as? Bool ?? false
            guard !isKnown else { return }
            let message = ((payload["messages"] as? [[String: Any]])?.first?["text"] as? String) ?? "issue recorded"
            let location = (payload["issue"] as? [String: Any])?["sourceLocation"] as? [String: Any]
            let path = location?["_filePath"] as? String
            let file = path.map { $0.hasPrefix(root + "/") ? String($0.dropFirst(root.count + 1)) : $0 }
            issues[id] = (message, file, location?["line"] as? Int)
        case "testEnded", "testSkipped":
            let symbol = (payload["messages"] as? [[String: Any]])?.first?["symbol"] as? String
            let status: TestStatus =
                kind == "testSkipped" || symbol == "skip" ? .skipped : (issues[id] != nil || symbol == "fail" ? .failed : .passed)
            let duration = started[id].map { max(0, instant - $0) } ?? 0
            started[id] = nil
            let issue = issues[id]
            tests.append(
                TestCase(
                    suite: definition.suite, name: definition.name, status: status, duration: duration,
                    message: status == .failed ? issue?.message : nil, file: status == .failed ? issue?.file : nil,
                    line: status == .failed ? issue?.line : nil))
        default:
            return
        }
    }

    /// The tests read so far, plus those still running if the process died.
    /// Those still running when the process was `stopped` on purpose (at another test's failure)
    /// did not end, and are left out.
    public func finish(crash: String?, stopped: Bool = false) -> [TestCase] {
        var result = tests
        for id in order where started[id] != nil && !stopped {
            guard let definition = definitions[id] else { continue }
            let issue = issues[id]
            result.append(
                TestCase(
                    suite: definition.suite, name: definition.name, status: .failed, duration: 0,
                    message: issue?.message ?? crash ?? "the test process ended while this test was running", file: issue?.file, line: issue?.line))
        }
        return result
    }
}
