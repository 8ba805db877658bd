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
import KilnBuild
import KilnCore
import KilnTestSupport
import Testing

/// Kiln passes the checks it runs on others: its own soundness checks, run by its own code on
/// this repository's tracked files, as `Bots/kiln.yml` (`analyze: {soundness: true}`) runs them.
@Suite("Kiln's own soundness")
struct OwnSoundnessTests {
    /// The checks of the Swift project's shared soundness workflow that read the repository.
    static let checks: [AnalyzerCheck] = [.licenseHeader, .language, .symlink, .shell, .yaml, .python]

    @Test("License headers, language, symbolic links, shell, YAML and Python: no finding on Kiln's own repository", arguments: checks)
    func check(_ check: AnalyzerCheck) async throws {
        let data = try TemporaryDirectory()
        let layout = DataDirectory(data.path)
        let bot = Bot(
            name: "kiln", repository: Repository(url: try RepositoryURL(parsing: Executables.packageRoot, relativeTo: "/")), sandbox: .none)
        try FileManager.default.createDirectory(
            atPath: (layout.workspace(of: bot.name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // The workspace is the repository itself: the working tree, as a commit would hold it.
        try FileManager.default.createSymbolicLink(atPath: layout.workspace(of: bot.name), withDestinationPath: Executables.packageRoot)
        let log = IntegrationLog(path: layout.log(of: bot.name, number: 1), secrets: [])
        let workspace = Workspace(
            bot: bot, number: 1, layout: layout, serverEnvironment: ProcessInfo.processInfo.environment, log: log, deadline: .now + .seconds(120))
        let output = try await PackageBuild(workspace: workspace, layout: layout).soundness(AnalyzeSettings(checks: [check]), commit: nil).run(check)
        await log.close()
        #expect(output.failure == nil, "\(check.rawValue) could not run: \(output.failure ?? "")")
        let findings = output.findings.map { "\($0.file ?? "?"):\($0.line ?? 0): \($0.message)" }
        #expect(findings.isEmpty, "\(findings.count) \(check.rawValue) findings:\n\(findings.prefix(40).joined(separator: "\n"))")
    }

    /// The files the workflow cannot read a header in (`.licenseignore`: scripts without a suffix,
    /// templates, SQL, CSS, the deployment files) carry it all the same, in their own comments.
    @Test("Every source and script file the license check leaves out carries the license header too")
    func headersBeyondTheWorkflow() async throws {
        let root = Executables.packageRoot
        let listed = try await runProcess("/usr/bin/git", ["-C", root, "ls-files", "--"] + Self.ignoredPatterns(root).map { ":(glob)\($0)" })
        let data = ["LICENSE", "Package.resolved", ".unacceptablelanguageignore"]
        let files = listed.standardOutput.split(separator: "\n").map(String.init).filter { !data.contains($0) && !$0.hasSuffix(".sqlite") }
        #expect(files.count >= 20, "the pathspecs of .licenseignore selected only \(files)")
        let bare = try files.filter { path in
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            return !text.split(separator: "\n", maxSplits: 16).prefix(16).contains { $0.contains("SPDX-License-Identifier: Apache-2.0") }
        }
        #expect(bare.isEmpty, "files without the license header: \(bare)")
    }

    static func ignoredPatterns(_ root: String) throws -> [String] {
        try String(contentsOfFile: root + "/.licenseignore", encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}
