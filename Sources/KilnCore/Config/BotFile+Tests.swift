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
import Yams

extension BotFile {
    static func decodeTest(_ node: Node, path: ConfigPath, into test: inout TestSettings, reader: ConfigReader) {
        guard
            let fields = reader.mapping(
                node, path: path, keys: ["enabled", "arguments", "coverage", "retries", "quarantine", "order", "fail-fast", "shards"])
        else {
            return
        }
        if let node = fields["enabled"], let value = reader.bool(node, path: fields.path("enabled")) { test.enabled = value }
        if let node = fields["arguments"], let value = reader.strings(node, path: fields.path("arguments")) { test.arguments = value }
        if let node = fields["coverage"], let value = reader.bool(node, path: fields.path("coverage")) { test.coverage = value }
        if let node = fields["retries"], let value = reader.integer(node, path: fields.path("retries"), range: 0...10) { test.retries = value }
        if let node = fields["order"], let value = reader.choice(node, path: fields.path("order"), as: TestOrder.self) { test.order = value }
        if let node = fields["shards"], let value = decodeShards(node, path: fields.path("shards"), reader: reader) { test.shards = value }
        if let node = fields["fail-fast"], let value = reader.choice(node, path: fields.path("fail-fast"), as: FailFast.self) {
            test.failFast = value
        }
        if let node = fields["quarantine"], let value = decodeQuarantine(node, path: fields.path("quarantine"), reader: reader) {
            test.quarantine = value
        }
    }

    /// `shards: 4` or `shards: auto`.
    private static func decodeShards(_ node: Node, path: ConfigPath, reader: ConfigReader) -> TestShardCount? {
        if case .scalar(let scalar) = node, scalar.style == .plain, scalar.string == "auto" { return .auto }
        guard case .scalar(let scalar) = node, scalar.style == .plain, let count = Int(scalar.string) else {
            reader.error(
                "'shards' must be a whole number from 1 to \(TestShardCount.most), or auto, not \(ConfigReader.kind(of: node))", at: node, path: path)
            return nil
        }
        return reader.integer(node, path: path, range: 1...TestShardCount.most).map { _ in .fixed(count) }
    }

    /// `["Suite/test", {test: "Suite/other", until: 2026-12-31}]`: each entry a test's name as
    /// `Suite/test`, or a mapping with the last day it holds.
    private static func decodeQuarantine(_ node: Node, path: ConfigPath, reader: ConfigReader) -> [QuarantinedTest]? {
        guard case .sequence(let items) = node else {
            reader.error("'quarantine' must be a list of tests (\"Suite/test\" or {test: \"Suite/test\", until: 2026-12-31})", at: node, path: path)
            return nil
        }
        var entries: [QuarantinedTest] = []
        for (index, item) in items.enumerated() {
            let itemPath = path.index(index)
            var nameNode = item
            var until: Date?
            if case .mapping = item {
                guard let fields = reader.mapping(item, path: itemPath, keys: ["test", "until"], what: "a quarantined test"),
                    let node = fields.required("test", in: reader, hint: ": the test's name, as \"Suite/test\"")
                else { continue }
                nameNode = node
                if let node = fields["until"] {
                    guard let text = reader.string(node, path: fields.path("until"), expected: "a day such as 2026-12-31"),
                        let day = QuarantinedTest.day(text)
                    else {
                        reader.error("'until' must be a day such as 2026-12-31", at: node, path: fields.path("until"))
                        continue
                    }
                    until = day
                }
            }
            guard let name = reader.string(nameNode, path: itemPath, expected: "a test's name such as \"Suite/test\"") else { continue }
            guard QuarantinedTest.isValidName(name) else {
                reader.error(
                    "'\(name)' is not a test's name: write it as \"Suite/test\" (as kiln shows it on the test's page)", at: nameNode, path: itemPath)
                continue
            }
            let mark = nameNode.mark
            entries.append(QuarantinedTest(test: name, until: until, line: mark?.line ?? 1, column: mark?.column ?? 1))
        }
        return entries
    }

    /// `bisect: true | false | {max-integrations: 8, wait: 30m}`.
    static func decodeBisect(_ node: Node, path: ConfigPath, into bisect: inout BisectSettings, reader: ConfigReader) {
        if case .scalar = node {
            if let enabled = reader.bool(node, path: path) { bisect.enabled = enabled }
            return
        }
        guard let fields = reader.mapping(node, path: path, keys: ["enabled", "max-integrations", "wait"]) else { return }
        if let node = fields["enabled"], let value = reader.bool(node, path: fields.path("enabled")) { bisect.enabled = value }
        if let node = fields["max-integrations"], let value = reader.integer(node, path: fields.path("max-integrations"), range: 1...64) {
            bisect.maxIntegrations = value
        }
        if let node = fields["wait"], let value = reader.duration(node, path: fields.path("wait"), allowZero: true) { bisect.wait = value }
    }

    /// `analyze: {soundness: true, lint: true, api-breakage: true | false | error, documentation:
    /// true | {targets: [...]}, license-header: true | {project: NAME}, language: true | {words:
    /// [...]}, symlink, shell, yaml, python: true | false}`. `soundness: true` turns every check
    /// on; a check named beside it says whether that one runs.
    static func decodeAnalyze(_ node: Node, path: ConfigPath, into analyze: inout AnalyzeSettings, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["soundness"] + AnalyzerCheck.allCases.map(\.key)) else { return }
        if let node = fields["soundness"], reader.bool(node, path: fields.path("soundness")) == true {
            analyze.checks = Set(AnalyzerCheck.allCases)
        }
        for check in AnalyzerCheck.allCases {
            guard let node = fields[check.key] else { continue }
            let path = fields.path(check.key)
            switch (check, node) {
            case (.apiBreakage, .scalar(let scalar)) where scalar.string == "error":
                analyze.apiBreakage = .error
            case (.apiBreakage, .scalar(let scalar)) where !["true", "false"].contains(scalar.string.lowercased()):
                reader.error("'api-breakage' must be true, false or error, not \(ConfigReader.kind(of: node))", at: node, path: path)
            case (.licenseHeader, .mapping), (.language, .mapping), (.documentation, .mapping):
                decodeCheckOptions(check, node, path: path, into: &analyze, reader: reader)
            default:
                if let on = reader.bool(node, path: path) { analyze.set(check, on) }
            }
        }
    }

    /// A check's options, which also turn it on: `license-header: {project: NAME}`, `language:
    /// {words: [...]}`, `documentation: {targets: [...]}`.
    private static func decodeCheckOptions(
        _ check: AnalyzerCheck, _ node: Node, path: ConfigPath, into analyze: inout AnalyzeSettings, reader: ConfigReader
    ) {
        let key = [AnalyzerCheck.licenseHeader: "project", .language: "words", .documentation: "targets"][check] ?? ""
        guard let fields = reader.mapping(node, path: path, keys: ["enabled", key]) else { return }
        var on = true
        if let node = fields["enabled"], let value = reader.bool(node, path: fields.path("enabled")) { on = value }
        analyze.set(check, on)
        guard let node = fields[key] else { return }
        switch check {
        case .licenseHeader:
            if let project = reader.string(node, path: fields.path(key), expected: "the project's name"), !project.isEmpty {
                analyze.licenseProject = project
            }
        case .language:
            let words = reader.strings(node, path: fields.path(key)) ?? []
            if words.isEmpty || words.contains(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) {
                reader.error("'words' must list single words", at: node, path: fields.path(key))
            } else {
                analyze.words = words
            }
        default:
            analyze.documentationTargets = reader.strings(node, path: fields.path(key)) ?? []
        }
    }

    /// `performance: {tolerance: 10%, baseline: 5, regressions: failure | warning, benchmarks: true | [TARGET]}`.
    static func decodePerformance(_ node: Node, path: ConfigPath, into performance: inout PerformanceSettings, reader: ConfigReader) {
        guard let fields = reader.mapping(node, path: path, keys: ["tolerance", "baseline", "regressions", "benchmarks"]) else { return }
        if let node = fields["benchmarks"] {
            if case .sequence = node {
                performance.benchmarks =
                    reader.list(node, path: fields.path("benchmarks")) { item, path in
                        reader.string(item, path: path, expected: "a benchmark target's name")
                    } ?? []
            } else if let enabled = reader.bool(node, path: fields.path("benchmarks")) {
                performance.benchmarks = enabled ? [] : nil
            }
        }
        if let node = fields["tolerance"] {
            let text = reader.string(node, path: fields.path("tolerance"), expected: "a percentage such as 10%")
            if let text, text.hasSuffix("%"), let percent = Double(text.dropLast()), (0...1000).contains(percent) {
                performance.tolerance = percent / 100
            } else if text != nil {
                reader.error("'tolerance' must be a percentage such as 10%, not '\(text ?? "")'", at: node, path: fields.path("tolerance"))
            }
        }
        if let node = fields["baseline"], let value = reader.integer(node, path: fields.path("baseline"), range: 1...50) {
            performance.baseline = value
        }
        if let node = fields["regressions"],
            let value = reader.choice(node, path: fields.path("regressions"), as: PerformanceSettings.Regressions.self)
        {
            performance.regressions = value
        }
    }

    /// `archive: {products: [NAME], arguments: [...], files: [GLOB], on: [RESULT], max-size: 512MiB, pull-requests: false}`.
    static func decodeArchive(
        _ node: Node, path: ConfigPath, into archive: inout ArchiveSettings, cell archiveCell: inout (node: Node, path: ConfigPath)?,
        reader: ConfigReader
    ) {
        guard let fields = reader.mapping(node, path: path, keys: ["products", "arguments", "files", "on", "max-size", "pull-requests", "cell"])
        else {
            return
        }
        if let node = fields["products"], let names = reader.strings(node, path: fields.path("products")) {
            for name in names where name.isEmpty || name.contains("/") || name.hasPrefix("-") {
                reader.error("'products' names executable products of the package, not '\(name)'", at: node, path: fields.path("products"))
            }
            archive.products = names
        }
        if let node = fields["arguments"], let values = reader.strings(node, path: fields.path("arguments")) { archive.arguments = values }
        if let node = fields["files"], let globs = reader.strings(node, path: fields.path("files")) {
            for glob in globs where glob.hasPrefix("/") || glob.split(separator: "/").contains("..") {
                reader.error("'files' are globs inside the workspace, not '\(glob)'", at: node, path: fields.path("files"))
            }
            archive.files = globs
        }
        if let node = fields["on"],
            let names = reader.choices(node, path: fields.path("on"), names: IntegrationResult.allCases.map(\.rawValue), what: "a result")
        {
            archive.on = Set(names.compactMap(IntegrationResult.init(rawValue:)))
        }
        if let node = fields["max-size"] {
            let text = reader.string(node, path: fields.path("max-size"), expected: "a size such as 512MiB")
            if let text, let bytes = ArchiveSettings.bytes(text) {
                archive.maxSize = bytes
            } else if text != nil {
                reader.error("'max-size' must be a size such as 512MiB or 20MB, not '\(text ?? "")'", at: node, path: fields.path("max-size"))
            }
        }
        if let node = fields["pull-requests"], let value = reader.bool(node, path: fields.path("pull-requests")) { archive.pullRequests = value }
        if let node = fields["cell"], let name = reader.string(node, path: fields.path("cell"), expected: "a matrix cell's name") {
            archive.cell = name
            archiveCell = (node, fields.path("cell"))
        }
    }
}
