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

/// Soundness: what each soundness check costs Kiln beyond the tool it runs (`kiln run` of an
/// unchanged commit with the check, less without it, less the tool alone on the same files),
/// and the documentation check against the shared workflow's command (the DocC plugin's
/// `generate-documentation --analyze`) on a warm copy of the same package.
struct SoundnessBench {
    let kiln: String
    let work: Workspace

    static let yamlRules = "{extends: default, rules: {line-length: disable, document-start: disable, truthy: {check-keys: false}}}"

    /// Each check, and the tool alone as the shared workflow would run it on the same files.
    static let checks: [(name: String, tool: [String])] = [
        ("symlink", ["git", "ls-files", "-s"]),
        ("license-header", ["git", "ls-files", "--", ":(exclude).license_header_template"]),
        ("language", ["sh", "-c", "git grep -i -I -w -H -n --column -E 'master|slave' -- . || test $? = 1"]),  // ignore-unacceptable-language
        ("shell", ["shellcheck", "-f", "gcc", "--", "scripts/build.sh"]),
        ("yaml", ["yamllint", "--strict", "-f", "parsable", "-d", yamlRules, "--", "config.yml"]),
        ("python", ["flake8", "--extend-ignore=E265,E266", "--max-line-length=88", "--", "tools/gen.py"]),
    ]

    func run(into table: Table) async throws {
        let repository = work.url("soundness-package")
        let files: [String: String] = [
            ".gitignore": ".build/\n",
            ".license_header_template": "@@ Copyright YEARS Example\n",
            ".licenseignore": "Package.swift\n",
            "Package.swift": """
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(name: "Sound", products: [.library(name: "Lib", targets: ["Lib"])], targets: [.target(name: "Lib")])

            """,
            "Sources/Lib/Lib.swift": "// Copyright 2026 Example\n\n/// Adds.\npublic func add(_ a: Int, _ b: Int) -> Int { a + b }\n",
            "Sources/Lib/Lib.docc/Lib.md": "# ``Lib``\n\nAdding.\n",
            "scripts/build.sh": "#!/bin/bash\n## Copyright 2026 Example\necho \"$1\"\n",
            "config.yml": "key: value\n",
            "tools/gen.py": "#!/usr/bin/env python3\n## Copyright 2026 Example\nprint(\"hello\")\n",
        ]
        for (path, contents) in files {
            try FileManager.default.createDirectory(
                atPath: (repository + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: repository + "/" + path, atomically: false, encoding: .utf8)
        }
        try AnalyzeBench.git(["init", "-q", "-b", "main"], in: repository)
        try AnalyzeBench.git(["add", "-A"], in: repository)
        try AnalyzeBench.git(["commit", "-q", "-m", "sound"], in: repository)
        let home = work.url("soundness-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        let bots = [("plain", "")] + (Self.checks.map(\.name) + ["documentation"]).map { ($0, "analyze: {\($0): true}\n") }
        for (name, analyze) in bots {
            try "repository: {url: '\(repository)'}\ntest: {enabled: false}\n\(analyze)".write(
                toFile: home + "/Bots/\(name).yml", atomically: false, encoding: .utf8)
            _ = try command(kiln, ["run", name], in: home)  // cold: builds once
        }
        var plain: [Double] = []
        var runs: [String: [Double]] = [:]
        var alone: [String: [Double]] = [:]
        for _ in 0..<7 {
            plain.append(try AnalyzeBench.timed { _ = try command(kiln, ["run", "plain"], in: home) })
            for check in Self.checks {
                runs[check.name, default: []].append(try AnalyzeBench.timed { _ = try command(kiln, ["run", check.name], in: home) })
                alone[check.name, default: []].append(try AnalyzeBench.timed { _ = try command("/usr/bin/env", check.tool, in: repository) })
            }
        }
        for check in Self.checks {
            let (with, tool) = (AnalyzeBench.median(runs[check.name] ?? []), AnalyzeBench.median(alone[check.name] ?? []))
            table.add(
                "analyze \(check.name): Kiln's own cost beyond \(check.tool[0] == "sh" ? "git" : check.tool[0])", target: "≤ 50 ms",
                measured: Measure.format(with - AnalyzeBench.median(plain) - tool),
                comparison:
                    "kiln run with it \(Measure.format(with)), without \(Measure.format(AnalyzeBench.median(plain))), the tool alone \(Measure.format(tool)); medians of 7"
            )
        }
        try documentation(repository, home: home, plain: AnalyzeBench.median(plain), into: table)
    }

    /// `kiln run` with the documentation check against the shared workflow's command, by hand,
    /// in a warm copy of the package with the DocC plugin added (as the workflow adds it).
    private func documentation(_ repository: String, home: String, plain: Double, into table: Table) throws {
        let copy = work.url("soundness-plugin")
        _ = try command("/usr/bin/git", ["clone", "-q", repository, copy])
        let manifest = try String(contentsOfFile: copy + "/Package.swift", encoding: .utf8)
        try (manifest + "package.dependencies.append(.package(url: \"https://github.com/swiftlang/swift-docc-plugin\", from: \"1.0.0\"))\n").write(
            toFile: copy + "/Package.swift", atomically: false, encoding: .utf8)
        let workflow = ["swift", "package", "plugin", "generate-documentation", "--target", "Lib", "--warnings-as-errors", "--analyze"]
        _ = try command("/usr/bin/env", workflow, in: copy)  // cold: builds the plugin and the package once
        var (kilns, plugins): ([Double], [Double]) = ([], [])
        for _ in 0..<5 {
            kilns.append(try AnalyzeBench.timed { _ = try command(kiln, ["run", "documentation"], in: home) })
            plugins.append(try AnalyzeBench.timed { _ = try command("/usr/bin/env", workflow, in: copy) })
        }
        let check = AnalyzeBench.median(kilns) - plain
        table.add(
            "analyze documentation on a warm workspace, against the workflow's command", target: "no slower",
            measured: Measure.format(check),
            comparison:
                "kiln run with it \(Measure.format(AnalyzeBench.median(kilns))), without \(Measure.format(plain)); the DocC plugin by hand \(Measure.format(AnalyzeBench.median(plugins))); medians of 5"
        )
    }
}
