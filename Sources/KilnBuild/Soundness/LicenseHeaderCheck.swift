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

/// Each tracked source file starts with the license header (the shared workflow's
/// `check-license-header.sh`): the repository's `.license_header_template`, or the workflow's
/// Apache 2.0 header for `license-header: {project: NAME}`, with `@@` as the file's line-comment
/// marker and any year or year range; paths in `.licenseignore` (git pathspecs) left out. A file
/// whose header differs is a finding at its first differing line; a file of a kind the workflow
/// has no comment marker for is one too, as the workflow refuses it.
struct LicenseHeaderCheck: SoundnessCheck {
    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput {
        let template: String
        let source: String
        if let file = context.configuration(".license_header_template") {
            (template, source) = (file, ".license_header_template")
        } else if let project = context.settings.licenseProject {
            (template, source) = (Self.defaultTemplate(project: project), "the shared workflow's header for \(project)")
        } else {
            let why =
                "license-header not checked: the repository has no .license_header_template, and the bot names no project for the "
                + "shared workflow's header (set `analyze: {license-header: {project: NAME}}`)"
            return AnalysisOutput(findings: [], failure: why, end: .exited(0))
        }
        var pathspecs = [":(exclude).license_header_template"]
        if let ignored = context.configuration(".licenseignore") {
            pathspecs += [":(exclude).licenseignore"] + ignored.split(separator: "\n").filter { !$0.isEmpty }.map { ":(exclude)\($0)" }
        }
        let listed = try await context.list(pathspecs)
        if let failure = listed.failure { return AnalysisOutput(findings: [], failure: "license-header not checked: \(failure)", end: .exited(0)) }
        let links = Set(context.tracked.entries.filter { $0.mode == "120000" }.map(\.path))
        var trimmed = Substring(template)
        while trimmed.hasSuffix("\n") { trimmed.removeLast() }  // as the workflow's `$(cat …)` does
        let templateLines = Self.lines(String(trimmed))
        var findings: [Diagnostic] = []
        for path in listed.files where !links.contains(path) {
            let name = (path as NSString).lastPathComponent
            let suffix = name.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? name
            let style: Style
            switch Self.styles[suffix] {
            case .skip?: continue
            case .comment(let marker, let prefix)?: style = Style(marker: marker, prefix: prefix)
            case nil:
                findings.append(
                    context.finding(
                        .licenseHeader, file: path, line: 1,
                        "no license header rule for files ending in '.\(suffix)' (the shared workflow refuses them): add the path to .licenseignore"))
                continue
            }
            let expected = (style.prefix.map { [$0] } ?? []) + templateLines
            let header = Self.lines(WorkspaceFile.read(path, in: context.workspace.directory, limit: 64 * 1024) ?? "").prefix(expected.count)
            for (index, line) in expected.enumerated() {
                let wanted = line.replacingOccurrences(of: "@@", with: style.marker)
                let found = index < header.count ? Self.normalizedYears(header[header.startIndex + index]) : nil
                guard found != wanted else { continue }
                let message =
                    index == 0
                    ? "no license header (expected \(source))"
                    : "the license header differs from \(source) at line \(index + 1): expected '\(wanted)'"
                findings.append(context.finding(.licenseHeader, file: path, line: index + 1, message))
                break
            }
        }
        return AnalysisOutput(findings: findings, failure: nil, end: .exited(0))
    }

    struct Style {
        var marker: String
        var prefix: String?
    }

    enum Rule {
        case skip
        case comment(String, prefix: String?)
    }

    /// The workflow's table: by what follows a file name's last dot (or the whole name).
    static let styles: [String: Rule] = {
        var rules: [String: Rule] = [:]
        for name in ["code-workspace", "CODEOWNERS", "flake8", "gitattributes", "gitignore", "json", "md", "mobileconfig", "modulemap", "plist"]
            + ["swift-format", "txt", "yml", "yaml"]
        {
            rules[name] = .skip
        }
        for name in ["bazel", "bazelrc", "bzl", "cmake", "Dockerfile", "editorconfig", "in", "ps1", "psm1", "toml"] {
            rules[name] = .comment("##", prefix: nil)
        }
        for name in ["c", "cpp", "gradle", "groovy", "gyb", "h", "java", "js", "jsx", "kts", "kt", "proto", "strings", "swift", "ts", "tsx"]
            + ["xcbuildrules", "xcspec"]
        {
            rules[name] = .comment("//", prefix: nil)
        }
        rules["py"] = .comment("##", prefix: "#!/usr/bin/env python3")
        rules["rb"] = .comment("##", prefix: "#!/usr/bin/env ruby")
        rules["sh"] = .comment("##", prefix: "#!/bin/bash")
        return rules
    }()

    /// The workflow's header when the repository has no template of its own.
    static func defaultTemplate(project: String) -> String {
        """
        @@===----------------------------------------------------------------------===@@
        @@
        @@ This source file is part of the \(project) open source project
        @@
        @@ Copyright (c) YEARS Apple Inc. and the \(project) project authors
        @@ Licensed under Apache License v2.0
        @@
        @@ See LICENSE.txt for license information
        @@ See CONTRIBUTORS.txt for the list of \(project) project authors
        @@
        @@ SPDX-License-Identifier: Apache-2.0
        @@
        @@===----------------------------------------------------------------------===@@
        """
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A header line with its first year range, then its first remaining year, written `YEARS`
    /// (the workflow's `sed -E`).
    static func normalizedYears(_ line: String) -> String {
        var line = line
        if let range = line.firstMatch(of: /20[12][0-9] ?[-–] ?20[12][0-9]/)?.range { line.replaceSubrange(range, with: "YEARS") }
        if let year = line.firstMatch(of: /20[12][0-9]/)?.range { line.replaceSubrange(year, with: "YEARS") }
        return line
    }
}
