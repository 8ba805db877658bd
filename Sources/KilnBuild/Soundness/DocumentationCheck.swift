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

/// DocC's analysis of each documented target, as the shared workflow's `check-docs.sh` runs the
/// DocC plugin, without editing the package: SwiftPM writes the symbol graphs of what the build
/// built (`swift package dump-symbol-graph`, warm after the build), and the toolchain's `docc
/// convert` reads each target's graphs with its `.docc` catalog, the targets at once (each
/// `docc` spends most of a second waiting). Each DocC warning is a finding at its file and line.
/// The targets are the bot's `documentation: {targets: [...]}`, else `.spi.yml`'s
/// `documentation_targets`, else every library target. A target that does not exist, or that
/// DocC cannot read, is a failure naming it.
struct DocumentationCheck: SoundnessCheck {
    /// Where SwiftPM looks for a target's folder when the manifest gives no `path`.
    static let sourceFolders = ["Sources", "Source", "src", "srcs"]

    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput {
        let fail = { (why: String, end: ProcessEnd) in AnalysisOutput(findings: [], failure: "documentation not checked: \(why)", end: end) }
        guard context.has("docc") else { return fail("docc is not in the toolchain (it ships with Swift since 5.6)", .exited(0)) }
        let graphs = try await symbolGraphs(context)
        guard let directory = graphs.directory else { return fail("swift package dump-symbol-graph \(graphs.end.description)", graphs.end) }
        let source: (targets: [String], from: String)? =
            context.settings.documentationTargets.isEmpty
            ? context.configuration(".spi.yml").flatMap(SwiftPackageIndexFile.documentationTargets(in:)).map { ($0, ".spi.yml") }
            : (context.settings.documentationTargets, "analyze.documentation.targets")
        let listed = Self.symbolGraphs(in: directory, everyTarget: source == nil)
        if let failure = listed.failure { return fail(failure, graphs.end) }
        let written = listed.modules
        let names = source?.targets ?? written.filter { !$0.hasSuffix("PackageTests") && !$0.hasSuffix("PackageDiscoveredTests") }.sorted()
        // A target in its default folder needs no package description; SwiftPM's (0.15 s) says
        // where the others are, and which named ones do not exist.
        var targets: [PackageTarget] = []
        var unplaced: [String] = []
        for name in names {
            let folder = Self.sourceFolders.map { "\($0)/\(name)" }.first { Self.isDirectory(context.workspace.directory + "/" + $0) }
            if let folder, written.contains(Self.moduleName(name)) {
                targets.append(PackageTarget(name: name, path: folder))
            } else {
                unplaced.append(name)
            }
        }
        var failures: [String] = []
        if !unplaced.isEmpty {
            let described = try await context.lines(StepCommand("swift", ["package", "describe", "--type", "json"]))
            let json = Data(described.lines.drop { !$0.hasPrefix("{") }.joined(separator: "\n").utf8)  // after SwiftPM's warnings
            guard described.end.succeeded, let package = try? JSONDecoder().decode(PackageTargets.self, from: json) else {
                return fail("swift package describe \(described.end.description)", described.end)
            }
            for name in unplaced {
                if let target = package.targets.first(where: { $0.name == name }) {
                    targets.append(target)
                } else {
                    failures.append("the package has no target '\(name)' (named by \(source?.from ?? "nobody"))")
                }
            }
        }
        let converted = try await convert(targets, graphs: directory, context: context)
        failures += converted.compactMap(\.failure)
        let failure = failures.isEmpty ? nil : "documentation not checked: " + failures.joined(separator: "; ")
        let end = converted.map(\.end).first { !$0.succeeded } ?? .exited(0)
        return AnalysisOutput(findings: converted.flatMap(\.findings), failure: failure, end: end)
    }

    /// The modules whose symbol graphs `directory` holds (`NAME.symbols.json`; extensions'
    /// `NAME@OTHER` files left out), or why not: a folder that cannot be read, or one without a
    /// graph when every target is to be checked, would otherwise check nothing and pass.
    static func symbolGraphs(in directory: String, everyTarget: Bool) -> (modules: Set<String>, failure: String?) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            return ([], "cannot read the symbol graphs in \(directory): \(error.localizedDescription)")
        }
        let modules = Set(
            names.compactMap { name in
                name.hasSuffix(".symbols.json") && !name.contains("@") ? String(name.dropLast(".symbols.json".count)) : nil
            })
        guard !modules.isEmpty || !everyTarget else {
            return ([], "swift package dump-symbol-graph wrote no symbol graph in \(directory): no target was checked")
        }
        return (modules, nil)
    }

    /// `docc convert` of each target, four at a time; each one's output goes to the log after
    /// the others', in the targets' order, not interleaved.
    private func convert(_ targets: [PackageTarget], graphs: String, context: SoundnessContext) async throws(ProcessError) -> [AnalysisOutput] {
        typealias Converted = Result<(output: AnalysisOutput, lines: [String]), ProcessError>
        let results = await withTaskGroup(of: (Int, Converted).self) { group in
            var results: [(Int, Converted)] = []
            for (index, target) in targets.enumerated() {
                if index >= 4, let done = await group.next() { results.append(done) }
                group.addTask {
                    do throws(ProcessError) {
                        return (index, .success(try await DocC.convert(target, graphs: graphs, context: context)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for await done in group { results.append(done) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var outputs: [AnalysisOutput] = []
        for (target, result) in zip(targets, results) {
            let converted = try result.get()
            await context.workspace.log.note("docc convert of \(target.name):" + converted.lines.map { "\n" + $0 }.joined())
            outputs.append(converted.output)
        }
        return outputs
    }

    /// `swift package dump-symbol-graph` with the bot's configuration and compiler flags, so
    /// that it reuses the build's products: where it wrote the graphs (as the workspace is on
    /// this host, not in the sandbox).
    private func symbolGraphs(_ context: SoundnessContext) async throws(ProcessError) -> (directory: String?, end: ProcessEnd) {
        var flags = context.package.workspace.compilerFlags
        var arguments = context.package.bot.build.arguments[...]
        while let argument = arguments.popFirst() {
            if argument.hasPrefix("-X"), let value = arguments.popFirst() { flags += [argument, value] }
        }
        let written = Mutex<String?>(nil)
        let command = StepCommand(
            "swift", ["package", "-c", context.package.configuration] + flags + ["dump-symbol-graph", "--emit-extension-block-symbols"])
        let end = try await context.run(command) { line in
            if line.hasPrefix("Files written to ") { written.withLock { $0 = String(line.dropFirst("Files written to ".count)) } }
        }
        // It fails on modules nobody documents (a package's generated test runner, "Couldn't load
        // module 'xPackageTests'") after writing the others': a documented target without its
        // graph is named by `DocC.convert`.
        guard end != .timedOut, end != .canceled, let seen = written.withLock({ $0 }) else { return (nil, end) }
        let workspace = context.workspace
        return (seen.hasPrefix(workspace.seenAs) ? workspace.directory + seen.dropFirst(workspace.seenAs.count) : seen, end)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// A target's module name, as its symbol graph is named: characters that cannot be in an
    /// identifier become `_`.
    static func moduleName(_ target: String) -> String {
        let name = String(target.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        return name.first?.isNumber == true ? "_" + name : name
    }
}

/// A target and its folder, relative to the package.
struct PackageTarget: Decodable, Sendable {
    var name: String
    var path: String
}

/// What Kiln reads of `swift package describe --type json`: where each target is.
struct PackageTargets: Decodable {
    var targets: [PackageTarget]
}
