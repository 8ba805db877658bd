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

/// A linter of the shared workflow run on the repository's tracked files of its kind, with the
/// package's own configuration when it has one and the workflow's otherwise: `shellcheck`,
/// `yamllint --strict`, `flake8`. Each finding is one at its file, line and column, its rule in
/// brackets. A repository without such files has nothing to check.
struct ToolCheck: SoundnessCheck {
    let check: AnalyzerCheck
    let tool: String
    let suffixes: [String]
    /// The arguments, given the repository's configuration file when present.
    let arguments: @Sendable (SoundnessContext) -> [String]
    let parse: @Sendable (Substring) -> (file: String, line: Int, column: Int, message: String)?

    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput {
        let files = context.tracked.ending(with: suffixes)
        guard !files.isEmpty else { return AnalysisOutput(findings: [], failure: nil, end: .exited(0)) }
        let check = check
        return try await context.lint(check, tool: tool, arguments(context), files: files, findingsExit: [1, 2]) { [parse] line in
            parse(line).map { context.finding(check, file: $0.file, line: $0.line, column: $0.column, $0.message) }
        }
    }

    /// `shellcheck -f gcc` (which reads `.shellcheckrc` itself): `FILE:LINE:COL: LEVEL: MESSAGE [SC1234]`.
    static let shell = ToolCheck(check: .shell, tool: "shellcheck", suffixes: [".sh"], arguments: { _ in ["-f", "gcc"] }) { line in
        guard let match = line.firstMatch(of: /^(.+?):([0-9]+):([0-9]+): (?:error|warning|note): (.*) \[(SC[0-9]+)\]$/),
            let number = Int(match.2), let column = Int(match.3)
        else { return nil }
        return (String(match.1), number, column, "[\(match.5)] \(match.4)")
    }

    /// `yamllint --strict -f parsable` with `.yamllint.yml`, or the workflow's rules (yamllint's
    /// defaults less `line-length` and `document-start`, `truthy` keys allowed):
    /// `FILE:LINE:COL: [LEVEL] MESSAGE (RULE)`.
    static let yaml = ToolCheck(
        check: .yaml, tool: "yamllint", suffixes: [".yml", ".yaml"],
        arguments: { context in
            let configuration =
                context.configuration(".yamllint.yml") != nil
                ? ["-c", ".yamllint.yml"]
                : ["-d", "{extends: default, rules: {line-length: disable, document-start: disable, truthy: {check-keys: false}}}"]
            return ["--strict", "-f", "parsable"] + configuration
        }
    ) { line in
        guard let match = line.firstMatch(of: /^(.+?):([0-9]+):([0-9]+): \[(?:error|warning)\] (.*?)(?: \(([a-z-]+)\))?$/),
            let number = Int(match.2), let column = Int(match.3)
        else { return nil }
        return (String(match.1), number, column, match.5.map { "[\($0)] \(match.4)" } ?? String(match.4))
    }

    /// `flake8` (which reads `.flake8` itself), or with the workflow's settings when the
    /// repository has none: `FILE:LINE:COL: CODE MESSAGE`.
    static let python = ToolCheck(
        check: .python, tool: "flake8", suffixes: [".py"],
        arguments: { context in
            context.configuration(".flake8") != nil ? [] : ["--extend-ignore=E265,E266", "--max-line-length=88"]
        }
    ) { line in
        guard let match = line.firstMatch(of: /^(.+?):([0-9]+):([0-9]+): ([A-Z]+[0-9]+) (.*)$/), let number = Int(match.2), let column = Int(match.3)
        else { return nil }
        return (String(match.1), number, column, "[\(match.4)] \(match.5)")
    }
}
