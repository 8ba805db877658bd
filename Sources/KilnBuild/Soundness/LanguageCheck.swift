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
import Synchronization

/// No word of the unacceptable-language list in a tracked text file (the shared workflow's
/// `check-unacceptable-language.sh`): `git grep -i -w` of the words, paths in
/// `.unacceptablelanguageignore` left out, and lines that say `ignore-unacceptable-language`.
/// Each line is a finding at the first word's line and column.
struct LanguageCheck: SoundnessCheck {
    static let marker = "ignore-unacceptable-language"

    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput {
        var pathspecs: [String] = []
        if let ignored = context.configuration(".unacceptablelanguageignore") {
            pathspecs = ignored.split(separator: "\n").filter { !$0.isEmpty }.map { ":(exclude)\($0)" } + [":!*.unacceptablelanguageignore"]
        }
        let pattern = context.settings.words.joined(separator: "|")
        let arguments = ["-c", "core.quotePath=false", "grep", "-i", "-I", "-w", "-H", "-n", "--column", "-E", pattern, "--"]
        let found = Mutex<[Diagnostic]>([])
        let end = try await context.run(StepCommand("git", arguments + pathspecs)) { line in
            // PATH:LINE:COLUMN:TEXT, the path as git prints it (quoted when it holds a control character)
            guard !line.contains(Self.marker), let match = line.firstMatch(of: /^(.+?):([0-9]+):([0-9]+):/), let number = Int(match.2),
                let column = Int(match.3)
            else { return }
            let text = line[match.range.upperBound...].utf8.dropFirst(max(column - 1, 0))
            let word = String(
                decoding: text.prefix { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0 & 0xDF) }, as: UTF8.self)
            let finding = context.finding(
                .language, file: TrackedFiles.unquoted(String(match.1)), line: number, column: column,
                "unacceptable language: '\(word)' (reword it, or end the line with a comment saying \(Self.marker))")
            found.withLock { $0.append(finding) }
        }
        let findings = found.withLock { $0 }
        switch end {
        case .exited(0), .exited(1), .timedOut, .canceled:
            return AnalysisOutput(findings: findings, failure: nil, end: end)
        default:
            return AnalysisOutput(findings: findings, failure: "language not checked: git grep \(end.description)", end: end)
        }
    }
}
