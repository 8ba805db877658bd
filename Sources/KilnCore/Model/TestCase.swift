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

/// One test case's outcome, from XCTest or Swift Testing.
public struct TestCase: Sendable, Hashable, Codable {
    public var suite: String
    public var name: String
    public var status: TestStatus
    /// Seconds.
    public var duration: Double
    public var message: String?
    public var file: String?
    public var line: Int?
    /// It ran under quarantine (`test.quarantine`): a failure fails nothing and mails nobody.
    public var quarantined: Bool
    /// What XCTest's `measure {}` measured; nil for a test that measures nothing.
    public var measurement: TestMeasurement?
    /// The matrix cell it ran in (`Cell.name`); nil for a bot without `matrix`.
    public var cell: String?

    public init(
        suite: String, name: String, status: TestStatus, duration: Double, message: String? = nil, file: String? = nil, line: Int? = nil,
        quarantined: Bool = false, measurement: TestMeasurement? = nil, cell: String? = nil
    ) {
        self.suite = suite
        self.name = name
        self.status = status
        self.duration = duration
        self.message = message
        self.file = file
        self.line = line
        self.quarantined = quarantined
        self.measurement = measurement
        self.cell = cell
    }

    /// A failure that counts: failed, and not under quarantine.
    public var counts: Bool { status == .failed && !quarantined }

    /// The failure that stands for `swift test` itself when it ended badly without any test
    /// failing: no test to re-run, and no history of its own.
    public static func processFailure(_ message: String) -> TestCase {
        TestCase(suite: processSuite, name: "run", status: .failed, duration: 0, message: message)
    }

    static let processSuite = "swift test"

    /// Whether this is `processFailure`'s stand-in rather than a test.
    public var isProcessFailure: Bool { suite == Self.processSuite }

    /// What identifies a test across runs and integrations: its suite and name.
    public var key: String { suite + "/" + name }
}

public enum TestStatus: String, CaseIterable, Codable, Sendable, Hashable {
    case passed, failed, skipped
    /// Failed, then passed when run again (`test.retries`): not a failure, and blames nobody.
    case flaky
    /// Never ran: `test.fail-fast` ended the testing step at a failure before it.
    case notRun = "not-run"
}
