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

import KilnCore
import KilnPresentation

/// Turns diagnostics and failed tests into issues with fingerprints that survive line shifts.
public enum IssueBuilder {
    /// Errors and warnings, then one test-failure issue per failed test, then one sanitizer issue
    /// per sanitizer report.
    ///
    /// A diagnostic's fingerprint is its type, file and message, plus its position among identical
    /// ones in that file (the second "unused variable 'x'" in a file stays the second): no line
    /// numbers, so code moving up or down keeps the issue the same. A sanitizer report's is its
    /// kind (`SanitizerReport.kind`: a race however TSan words it), file and functions, for the
    /// same reason.
    public static func issues(
        diagnostics: [Diagnostic], findings: [Diagnostic] = [], tests: [TestCase], sanitizerReports: [SanitizerReport] = []
    ) -> [IntegrationIssue] {
        var occurrences: [String: Int] = [:]
        var issues: [IntegrationIssue] = []
        let located: (Diagnostic, Diagnostic) -> Bool = {
            ($0.file ?? "", $0.line ?? 0, $0.column ?? 0) < ($1.file ?? "", $1.line ?? 0, $1.column ?? 0)
        }
        let kinds = diagnostics.sorted(by: located).map { ($0, $0.severity == .error ? IssueType.error : .warning) }
        for (diagnostic, type) in kinds + findings.sorted(by: located).map({ ($0, IssueType.analyzerWarning) }) {
            let base = "\(type.rawValue)|\(diagnostic.file ?? "")|\(diagnostic.message)"
            let occurrence = occurrences[base, default: 0]
            occurrences[base] = occurrence + 1
            let notes = diagnostic.notes.isEmpty ? "" : "\n" + diagnostic.notes.map { "note: \($0)" }.joined(separator: "\n")
            issues.append(
                IntegrationIssue(
                    type: type, message: diagnostic.message + notes, file: diagnostic.file, line: diagnostic.line,
                    fingerprint: hash("\(base)|\(occurrence)"), check: type == .analyzerWarning ? diagnostic.check : nil))
        }
        for test in tests where test.counts {
            let message = "\(test.suite).\(test.name): \(test.message ?? "failed")"
            issues.append(
                IntegrationIssue(
                    type: .testFailure, message: message, file: test.file, line: test.line,
                    fingerprint: hash("test-failure|\(test.suite)|\(test.name)")))
        }
        for report in sanitizerReports {
            issues.append(
                IntegrationIssue(
                    type: .sanitizer, message: report.message, file: report.file, line: report.line,
                    fingerprint: hash("sanitizer|\(report.kind)|\(report.file ?? "")|\(report.symbol ?? "")")))
        }
        return issues
    }

    /// The `error` issue of a limit the step's processes reached (`limits:`): one per limit, the
    /// same from one integration to the next while the change that reaches it stays.
    public static func issue(_ reached: LimitReached) -> IntegrationIssue {
        IntegrationIssue(
            type: .error, message: LimitText.sentence(reached), file: nil, line: nil, fingerprint: hash("limit|\(reached.limit.rawValue)"))
    }

    /// FNV-1a, 64 bits, as 16 hex digits: short, stable across runs and platforms.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
