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

/// A report of a sanitizer the tests ran under (`--sanitize=thread|address|undefined`): a data
/// race, a heap overflow, undefined behaviour.
public struct SanitizerReport: Sendable, Hashable {
    /// The sanitizer's summary without its path: `ThreadSanitizer: Swift access race`.
    public var summary: String
    /// How it happened, without addresses: `Modifying access of Swift variable by main thread;
    /// previous write of size 1 by thread T5`.
    public var detail: String?
    /// The first frame in the repository's own sources that has a line (else the first with a
    /// file), relative to the repository: where the issue is.
    public var file: String?
    public var line: Int?
    /// The summary's function, as the report names it (mangled): it stays when lines move.
    public var symbol: String?

    /// The issue's message: the summary, then how it happened.
    public var message: String {
        summary + (detail.map { " (\($0))" } ?? "")
    }

    /// What kind of report it is, for its issue's fingerprint: the summary, but one name for a
    /// Thread Sanitizer race, which it calls a `Swift access race` or a `data race` as it happens
    /// to catch the two writes (the same race was a `data race` in 3 of 41 runs). Named as the
    /// first, which earlier integrations' fingerprints used.
    public var kind: String {
        summary == "ThreadSanitizer: data race" ? "ThreadSanitizer: Swift access race" : summary
    }
}

/// Reads sanitizer reports out of test output as it arrives. A Thread or Address Sanitizer
/// report is a block:
///
///     WARNING: ThreadSanitizer: Swift access race (pid=23)
///       Modifying access of Swift variable at 0x7208… by main thread:
///         #0 $s3Lib9racyCountSiyF /work/app/Sources/Lib/Lib.swift (App.xctest+0x1054) (BuildId: …)
///       Previous write of size 1 at 0x7208… by thread T5:
///         #0 $s3Lib9racyCountSiyFyyYbcfU_ /work/app/Sources/Lib/Lib.swift:6:56 (App.xctest+0x104e) (BuildId: …)
///     SUMMARY: ThreadSanitizer: Swift access race /work/app/Sources/Lib/Lib.swift in $s3Lib9racyCountSiyF
///
/// A closure's frame may name the file without a line, so the first frame with both in the
/// repository's sources (not its `.build`) places the report. The Undefined Behavior Sanitizer
/// prints one line: `/work/app/Sources/C/c.c:3:12: runtime error: signed integer overflow: …`.
public struct SanitizerReportParser: Sendable {
    /// The repository's root as the test process saw it.
    let root: String
    public private(set) var reports: [SanitizerReport] = []
    private var open: Open?

    private struct Open: Sendable {
        var headings: [String] = []
        /// Per stack of an access (the report's own frames, then those under each of the first two
        /// headings), its first frame in the repository's sources.
        var stacks: [Int: Frame] = [:]
    }

    /// An access's stack, as far as it names the repository's sources.
    private struct Frame: Sendable {
        /// Its first frame's function there: which code made the access, however it was caught.
        var symbol: String
        /// Its first frame there with a line (a function's own frame may name only its file).
        var file: String
        var line: Int?
    }

    public init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    public mutating func consume(_ line: Substring) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if Self.opens(text) {
            open = Open()
            return
        }
        if open == nil, let range = text.range(of: ": runtime error: "), let place = place(String(text[..<range.lowerBound])) {
            reports.append(
                SanitizerReport(
                    summary: "UndefinedBehaviorSanitizer: " + text[range.upperBound...], file: place.file, line: place.line,
                    symbol: nil))
            return
        }
        guard var report = open else { return }
        if text.hasPrefix("SUMMARY: ") {
            reports.append(Self.close(report, summary: String(text.dropFirst(9))))
            open = nil
            return
        }
        defer { open = report }
        if text.hasPrefix("#") {
            // "#0 SYMBOL /path:6:56 (…)" (Thread) or "#0 0x55 in SYMBOL /path:12:20" (Address).
            // Only the accesses' stacks count: not where memory was allocated or a thread made.
            let stack = report.headings.count
            guard stack <= 2 else { return }
            let tokens = text.split(separator: " ")
            let symbol = tokens.count > 3 && tokens[1].hasPrefix("0x") && tokens[2] == "in" ? tokens[3] : tokens.dropFirst().first ?? ""
            guard let location = tokens.dropFirst().first(where: { $0.hasPrefix("/") }), let place = place(String(location)) else { return }
            guard let frame = report.stacks[stack] else {
                report.stacks[stack] = Frame(symbol: String(symbol), file: place.file, line: place.line)
                return
            }
            if frame.line == nil, let line = place.line { report.stacks[stack] = Frame(symbol: frame.symbol, file: place.file, line: line) }
        } else if text.hasSuffix(":"), text.contains(" by ") {
            // "Modifying access of Swift variable at 0x… by main thread:", without the address.
            var kept: [Substring] = []
            for word in text.dropLast().split(separator: " ") {
                if word.hasPrefix("0x"), kept.last == "at" {
                    kept.removeLast()
                    continue
                }
                kept.append(word)
            }
            report.headings.append(kept.joined(separator: " "))
        }
    }

    /// Whether `text` opens a report: `WARNING: ThreadSanitizer: data race (pid=…)`,
    /// `ERROR: AddressSanitizer: heap-buffer-overflow on address …`.
    private static func opens(_ text: String) -> Bool {
        ["WARNING: ", "ERROR: "].contains { prefix in
            text.hasPrefix(prefix) && text.dropFirst(prefix.count).prefix { $0 != ":" }.hasSuffix("Sanitizer")
        }
    }

    private static func close(_ report: Open, summary text: String) -> SanitizerReport {
        // "ThreadSanitizer: Swift access race /path/Lib.swift in $s3Lib…": the words before the
        // path (or the address), and the function after " in ".
        var words: [Substring] = []
        for word in text.split(separator: " ") {
            if word.hasPrefix("/") || word.hasPrefix("(") || word.hasPrefix("0x") || word == "in" { break }
            words.append(word)
        }
        let named = text.range(of: " in ", options: .backwards).map { String(text[$0.upperBound...]) }
        let detail = report.headings.prefix(2).enumerated()
            .map { $0.offset == 0 ? $0.element : $0.element.prefix(1).lowercased() + $0.element.dropFirst() }
            .joined(separator: "; ")
        // A race's two accesses come in the order the sanitizer saw them, and only the earlier
        // one's frame has a line: the set of both functions names the race the same way every
        // time (its fingerprint), and its place is the lowest line known this time.
        let frames = report.stacks.values.sorted { ($0.file, $0.line ?? Int.max) < ($1.file, $1.line ?? Int.max) }
        let symbols = Set(frames.map(\.symbol)).sorted()
        return SanitizerReport(
            summary: words.joined(separator: " "), detail: detail.isEmpty ? nil : detail, file: frames.first?.file, line: frames.first?.line,
            symbol: symbols.isEmpty ? named : symbols.joined(separator: ","))
    }

    /// A frame's location in the repository's own sources (`/root/Sources/Lib/Lib.swift:6:56`),
    /// relative to the root; nil for anything else (the toolchain, `.build`, `<compiler-generated>`).
    private func place(_ location: String) -> (file: String, line: Int?)? {
        guard location.hasPrefix(root + "/") else { return nil }
        var relative = Substring(location.dropFirst(root.count + 1))
        guard !relative.hasPrefix(".build/") else { return nil }
        var numbers: [Int] = []
        while let colon = relative.lastIndex(of: ":"), let number = Int(relative[relative.index(after: colon)...]), numbers.count < 2 {
            numbers.insert(number, at: 0)
            relative = relative[..<colon]
        }
        return (String(relative), numbers.first)
    }

    /// How `swift test` ended, as Kiln counts it: the tests passed and the sanitizer's reports
    /// are why it exited non-zero (XCTest exits 66, `swift test` then 1). The reports are issues
    /// that fail the integration; the run itself is no failed test.
    public static func settle(_ end: ProcessEnd, tests: [TestCase], reports: [SanitizerReport]) -> ProcessEnd {
        guard !reports.isEmpty, end == .exited(1) || end == .exited(66), !tests.contains(where: { $0.status == .failed }) else { return end }
        return .exited(0)
    }
}
