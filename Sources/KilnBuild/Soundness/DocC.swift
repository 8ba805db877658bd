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
import Synchronization

/// `docc convert` of one documented target, for `DocumentationCheck`.
enum DocC {
    /// Its symbol graphs (its own and its extensions' files) in a folder of their own, its
    /// catalog when it has one; the findings, and the output for the log.
    static func convert(_ target: PackageTarget, graphs: String, context: SoundnessContext) async throws(ProcessError) -> (
        output: AnalysisOutput, lines: [String]
    ) {
        let workspace = context.workspace
        let scratch = "/.build/kiln-docc/\(target.name)"
        let own = workspace.directory + scratch + "/symbol-graphs"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: graphs)) ?? []
        let module = DocumentationCheck.moduleName(target.name)
        let mine = names.filter { $0 == "\(module).symbols.json" || $0.hasPrefix("\(module)@") && $0.hasSuffix(".symbols.json") }
        let failed = { (why: String) in (AnalysisOutput(findings: [], failure: why, end: ProcessEnd.exited(0)), [String]()) }
        guard !mine.isEmpty else { return failed("SwiftPM wrote no symbol graph for '\(target.name)' (it writes them for library targets)") }
        do {
            // a leftover scratch folder is written over; the copies below report their own failure
            try? FileManager.default.removeItem(atPath: workspace.directory + scratch)
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
            for name in mine { try FileManager.default.copyItem(atPath: graphs + "/" + name, toPath: own + "/" + name) }
        } catch {
            return failed("could not gather the symbol graphs of '\(target.name)': \(error)")
        }
        var arguments = ["convert"]
        if let catalog = catalog(in: workspace.directory + "/" + target.path) {
            arguments.append(workspace.seenAs + "/" + target.path + "/" + catalog)
        }
        arguments += [
            "--additional-symbol-graph-dir", workspace.seenAs + scratch + "/symbol-graphs", "--output-path",
            workspace.seenAs + scratch + "/\(target.name).doccarchive", "--fallback-display-name", target.name, "--fallback-bundle-identifier",
            target.name, "--ide-console-output",
        ]
        let parser = Mutex(DiagnosticParser(root: workspace.seenAs))
        let lines = Mutex<[String]>([])
        let end = try await context.run(StepCommand("docc", arguments), logged: false) { line in
            parser.withLock { $0.consume(line.utf8) }
            lines.withLock { $0.append(String(line)) }
        }
        let findings = parser.withLock { $0.diagnostics }.map { diagnostic in
            var finding = diagnostic
            finding.check = .documentation
            finding.severity = .warning
            return finding
        }
        let failure: String? =
            switch end {
            case .exited(0), .timedOut, .canceled: nil
            default: "docc convert of '\(target.name)' \(end.description)"
            }
        return (AnalysisOutput(findings: findings, failure: failure, end: end), lines.withLock { $0 })
    }

    /// The first `.docc` folder in a target's folder, as the DocC plugin finds it.
    static func catalog(in directory: String) -> String? {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return nil }
        while let path = walker.nextObject() as? String {
            if path.hasSuffix(".docc") { return path }
        }
        return nil
    }
}
