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
import KilnStore
import KilnTestSupport
import Testing

@Suite("kiln run: the soundness checks")
struct SoundnessTests {
    static let header = "@@ Copyright YEARS Example\n@@ SPDX-License-Identifier: MIT\n"

    static func library(doc: String = "Adds two numbers.") -> String {
        """
        // Copyright 2024 Example
        // SPDX-License-Identifier: MIT

        /// \(doc)
        ///
        /// - Parameters:
        ///   - a: The first.
        ///   - b: The second.
        public func add(_ a: Int, _ b: Int) -> Int { a + b }

        """
    }

    static func script(_ line: String = "echo \"$1\"") -> String {
        "#!/bin/bash\n## Copyright 2024 Example\n## SPDX-License-Identifier: MIT\nset -eu\n\(line)\n"
    }

    /// A package that passes every check, with a file of each kind they read.
    static let clean: [String: String] = [
        ".gitignore": ".build/\n",
        ".license_header_template": header,
        ".licenseignore": "Package.swift\n",
        "Package.swift": """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
          name: "Fixture",
          products: [.library(name: "Lib", targets: ["Lib"])],
          targets: [.target(name: "Lib")]
        )

        """,
        "Sources/Lib/Lib.swift": library(),
        "README.md": "# Fixture\n\nAdds numbers.\n",
        "scripts/build.sh": script(),
        "config.yml": "key: value\nlist:\n  - one\n",
        "tools/gen.py": "#!/usr/bin/env python3\n## Copyright 2024 Example\n## SPDX-License-Identifier: MIT\n\nprint(\"hello\")\n",
    ]

    static let authors = ["Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan"].map {
        GitFixture.Author("\($0) Tester", "\($0.lowercased())@example.com")
    }

    @Test(
        "One violation of each check, each by its own author: one new analyzer warning each, at its file and line, blamed on its author; a fix resolves only its own"
    )
    func everyCheck() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("A sound package", files: Self.clean)
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/docs-link", withDestinationPath: "README.md")
        try repo.git("add", "docs-link")
        try repo.git("commit", "-q", "-m", "Link the docs")
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nanalyze: {soundness: true}\n")

        // 1. Every check runs and finds nothing.
        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let one = try await home.recorded(1)
        #expect(one.issues.isEmpty, "\(one.issues)")
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        for check in AnalyzerCheck.allCases where check != .apiBreakage {
            #expect(log.contains("\(check.rawValue): 0 findings") || check == .format, "\(check) did not run: \(log)")
        }

        // 2. Seven authors, one violation each.
        let (carol, dave, erin, frank, grace, heidi, ivan) = (
            Self.authors[0], Self.authors[1], Self.authors[2], Self.authors[3], Self.authors[4], Self.authors[5], Self.authors[6]
        )
        var expected: [AnalyzerCheck: (file: String, line: Int, author: String, message: String)] = [:]
        var commit = try repo.commit(
            "Link a symbol", files: ["Sources/Lib/Lib.swift": Self.library(doc: "Adds two numbers, see ``missing``.")], author: carol)
        expected[.documentation] = ("Sources/Lib/Lib.swift", 4, commit, "'missing' doesn't exist")
        commit = try repo.commit("Subtract", files: ["Sources/Lib/Sub.swift": "public func sub(_ a: Int, _ b: Int) -> Int { a - b }\n"], author: dave)
        expected[.licenseHeader] = ("Sources/Lib/Sub.swift", 1, commit, "no license header (expected .license_header_template)")
        let readme = "# Fixture\n\nAdds numbers.\nBuilt from master.\n"  // ignore-unacceptable-language
        commit = try repo.commit("Explain", files: ["README.md": readme], author: erin)
        expected[.language] = ("README.md", 4, commit, "unacceptable language: 'master'")  // ignore-unacceptable-language
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/latest", withDestinationPath: "build/nowhere")
        try repo.git("add", "latest")
        try repo.git("commit", "-q", "-m", "Point at the latest build", author: frank)
        expected[.symlink] = ("latest", 1, try repo.head(), "broken symbolic link: 'build/nowhere' does not exist")
        commit = try repo.commit("Build one", files: ["scripts/build.sh": Self.script("echo $1")], author: grace)
        expected[.shell] = ("scripts/build.sh", 5, commit, "[SC2086]")
        commit = try repo.commit("Configure twice", files: ["config.yml": "key: value\nlist:\n  - one\nkey: other\n"], author: heidi)
        expected[.yaml] = ("config.yml", 4, commit, "[key-duplicates]")
        commit = try repo.commit(
            "Import os",
            files: [
                "tools/gen.py": "#!/usr/bin/env python3\n## Copyright 2024 Example\n## SPDX-License-Identifier: MIT\nimport os\n\nprint(\"hello\")\n"
            ],
            author: ivan)
        expected[.python] = ("tools/gen.py", 4, commit, "[F401] 'os' imported but unused")

        let second = try await home.kilnRun()
        #expect(second.status == 0 && second.output.contains("result: analyzer-warnings"), "\(second.output)")
        #expect(second.output.contains("new analyzer warning (license-header): Sources/Lib/Sub.swift:1: no license header"), "\(second.output)")
        let two = try await home.recorded(2)
        #expect(two.issues.count == expected.count, "\(two.issues)")
        for (check, want) in expected {
            let found = two.issues.filter { $0.check == check }
            #expect(found.count == 1, "\(check): \(found)")
            guard let issue = found.first else { continue }
            #expect(issue.type == .analyzerWarning && issue.status == .new)
            #expect(issue.file == want.file && issue.line == want.line, "\(check): \(issue)")
            #expect(issue.message.contains(want.message), "\(check): \(issue.message)")
            #expect(issue.introducedBy.map(\.commit) == [want.author], "\(check) blamed on \(issue.introducedBy)")
        }

        // 3. Grace quotes her argument: only the shell finding is resolved, the others stay, none new.
        try repo.commit("Quote it", files: ["scripts/build.sh": Self.script()], author: grace)
        let third = try await home.kilnRun()
        #expect(third.output.contains("result: analyzer-warnings"), "\(third.output)")
        let three = try await home.recorded(3)
        #expect(three.issues.filter { $0.status == .new }.isEmpty, "\(three.issues)")
        #expect(three.issues.filter { $0.status == .resolved }.map(\.check) == [.shell], "\(three.issues)")
        #expect(Set(three.issues.filter { $0.status == .unresolved }.compactMap(\.check)) == Set(expected.keys).subtracting([.shell]))
    }

    @Test("network: none runs DocC from the build's own products; a documented target that does not exist is an error naming it")
    func documentationOffline() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("A documented package", files: Self.clean.filter { !$0.key.hasPrefix(".license") })
        try home.write(
            "Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nnetwork: none\nanalyze: {documentation: true}\n")

        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains("docc convert") && log.contains("documentation: 0 findings"), "\(log)")

        try repo.commit("Document more", files: [".spi.yml": "version: 1\nbuilder:\n  configs:\n    - documentation_targets: [Lib, Missing]\n"])
        let second = try await home.kilnRun()
        #expect(second.status == 1 && second.output.contains("result: build-errors"), "\(second.output)")
        let two = try await home.recorded(2)
        let error = try #require(two.issues.first { $0.type == .error })
        #expect(error.message.contains("the package has no target 'Missing' (named by .spi.yml)"), "\(error.message)")
        #expect(two.issues.count == 1, "Lib was still checked, and is clean: \(two.issues)")
    }
}

@Suite("kiln run: the soundness checks on a real package, beside the shared workflow's scripts")
struct SoundnessRealPackageTests {
    /// apple/swift-service-context 1.5.1 (8ed580e), from the machine's copy: `.licenseignore`,
    /// `.spi.yml` naming a target with a path of its own, YAML workflows, a DocC catalog.
    ///
    /// swiftlang/github-workflows' scripts, run by hand on that commit (check-docs.sh,
    /// check-license-header.sh, check-broken-symlinks.sh, check-unacceptable-language.sh with the
    /// default list, yamllint with the workflow's config) pass with PROJECT_NAME="Swift Service
    /// Context"; with PROJECT_NAME="Swift Distributed Tracing", check-license-header.sh lists
    /// exactly `headerless`.
    static let headerless = [
        "Benchmarks/Benchmarks/ServiceContextBenchmarks/Benchmarks.swift",
        "Benchmarks/Benchmarks/ServiceContextBenchmarks/PassAroundStaticStrings.swift",
        "Benchmarks/Benchmarks/ServiceContextBenchmarks/Shared.swift", "Sources/InstrumentationBaggage/CompatibilityShims.swift",
        "Sources/ServiceContextModule/Reexport.swift", "Tests/ServiceContextTests/CompatibilityShimTests.swift",
    ]

    @Test("swift-service-context 1.5.1: clean where the workflow passes, and the workflow's six files where it does not")
    func serviceContext() async throws {
        let home = try TemporaryDirectory()
        let clone = home.url("swift-service-context")
        let cloned = try await runProcess("/usr/bin/git", ["clone", "-q", "https://github.com/apple/swift-service-context", clone], in: home.path)
        #expect(cloned.status == 0, "the machine's copy of apple/swift-service-context is missing: \(cloned.standardError)")
        let checkout = try await runProcess("/usr/bin/git", ["checkout", "-q", "-B", "main", "1.5.1"], in: clone)
        try #require(checkout.status == 0, "swift-service-context 1.5.1 is not in the machine's copy: \(checkout.standardError)")
        let bot = """
            repository: {url: '\(clone)'}
            test: {enabled: false}
            analyze: {soundness: true, lint: false, api-breakage: false, license-header: {project: %@}}

            """
        try home.write("Bots/app.yml", bot.replacingOccurrences(of: "%@", with: "Swift Service Context"))
        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        #expect(try await home.recorded(1).issues.isEmpty)
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains("docc convert /"), "the catalog of a target with a path of its own was found: \(log)")
        for check in ["documentation", "license-header", "language", "symlink", "yaml"] {
            #expect(log.contains("\(check): 0 findings"), "\(check) did not run: \(log)")
        }

        try home.write("Bots/app.yml", bot.replacingOccurrences(of: "%@", with: "Swift Distributed Tracing"))
        let second = try await home.kilnRun()
        #expect(second.output.contains("result: analyzer-warnings"), "\(second.output)")
        let issues = try await home.recorded(2).issues
        #expect(issues.map(\.file) == Self.headerless, "\(issues)")
        #expect(issues.allSatisfy { $0.check == .licenseHeader && $0.line == 3 && $0.message.contains("Swift Distributed Tracing") }, "\(issues)")
    }
}

extension SoundnessTests {
    @Test("A check that cannot run is an error saying why: no header to compare with, a linter missing from the host")
    func checksThatCannotRun() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("A package without a header template", files: Self.clean.filter { $0.key != ".license_header_template" })
        // A PATH with everything of /usr/bin but shellcheck, and the toolchain.
        let bin = home.url("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in try FileManager.default.contentsOfDirectory(atPath: "/usr/bin") where tool != "shellcheck" {
            try FileManager.default.createSymbolicLink(atPath: "\(bin)/\(tool)", withDestinationPath: "/usr/bin/\(tool)")
        }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").filter {
            FileManager.default.isExecutableFile(atPath: "\($0)/swift") && !FileManager.default.fileExists(atPath: "\($0)/shellcheck")
        }
        let toolchain = try #require(path.first, "no swift on PATH without shellcheck beside it")
        try home.write(
            "Bots/app.yml",
            """
            repository: {url: '\(repo.url)'}
            test: {enabled: false}
            sandbox: none
            environment: {PATH: '\(bin):\(toolchain)'}
            analyze: {license-header: true, shell: true}

            """)
        let run = try await home.kilnRun()
        #expect(run.status == 1 && run.output.contains("result: build-errors"), "\(run.output)")
        let errors = try await home.recorded(1).issues.filter { $0.type == .error }.map(\.message).sorted()
        #expect(
            errors == [
                "license-header not checked: the repository has no .license_header_template, and the bot names no project for the shared workflow's "
                    + "header (set `analyze: {license-header: {project: NAME}}`)",
                "shell not checked: shellcheck is not installed on this host (apt-get install shellcheck)",
            ], "\(errors)")
    }
}
