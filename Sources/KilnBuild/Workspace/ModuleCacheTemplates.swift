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

import Crypto
import Foundation
import KilnCore
import KilnPresentation
import Synchronization

/// The toolchain's own modules — the standard library's, Foundation's, Dispatch's, XCTest's and
/// Swift Testing's, and the C modules beneath them — compiled once per toolchain and
/// configuration on this host (after the first integration that found none), and copied into
/// the module cache of each new sandboxed workspace, so that its first build compiles only the
/// package. Every cold build compiled them anew: measured on a small package, 9.3 s of CPU
/// cold, 4.9 s from a template.
///
/// A template is only ever made from Kiln's own probe package, never from a bot's build: a
/// build can write anything into its module cache, and what one bot's build wrote must not reach
/// another's. Each workspace gets a copy, so that nothing its build writes reaches the template.
/// It holds because a sandboxed build sees its module cache at one path
/// (`DataDirectory.confinedModuleCache`), where the probe's was too: clang refuses a module cache
/// made at another path.
public actor ModuleCacheTemplates {
    /// Where the templates are: `DataDirectory.moduleCaches`, or the folder `KILN_MODULE_CACHES`
    /// names, which several data directories of one host (and one account) may share.
    let folder: String
    /// The templates being made, by folder.
    private var making: [String: Task<Void, Never>] = [:]
    /// Told of a template that could not be made (the bot whose integration started it, and why).
    let unmade: @Sendable (_ bot: String, _ failure: String) -> Void

    /// The environment variable that names a folder of templates to use instead of the data
    /// directory's own.
    public static let folderVariable = "KILN_MODULE_CACHES"

    public init(folder: String, unmade: @escaping @Sendable (_ bot: String, _ failure: String) -> Void) {
        self.folder = folder
        self.unmade = unmade
    }

    /// Fills the module cache of `workspace`, new and sandboxed, from this host's template for its
    /// toolchain (`swiftVersion`, what it says it is) and configuration; what the log says of it.
    /// Nil when there is nothing to fill: a workspace that is not sandboxed or that has a module
    /// cache already, or a toolchain whose version is unknown. Without a template this build
    /// compiles the modules itself, and `make` is for after it, so that no result waits for one.
    public func fill(_ workspace: Workspace, swiftVersion: String?) async -> String? {
        guard workspace.confined, let swiftVersion else { return nil }
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: workspace.moduleCache)) ?? []
        guard existing.isEmpty else { return nil }
        let template = template(for: workspace, swiftVersion: swiftVersion)
        guard FileManager.default.fileExists(atPath: template) else {
            return "none compiled ahead on this host for this toolchain and configuration yet: this build compiles them, and Kiln after it"
        }
        let began = MonotonicClock.system.now
        do throws(SnapshotError) {
            try await WorkspaceSnapshots.shell(
                #"mkdir -p "$1" && cp -a "$0/." "$1""#, [template, workspace.moduleCache], doing: "copying the module cache template")
        } catch {
            return "the toolchain's modules were not copied (\(error)): this build compiles them itself"
        }
        let seconds = DurationText.prose(MonotonicClock.system.since(began).seconds)
        return "the toolchain's modules compiled ahead, from this host's template (copied in \(seconds))"
    }

    /// Starts making the template `fill` would have used for `workspace` when there is none yet,
    /// and returns: after its integration's result, beside what runs next, so that neither a
    /// result nor an executor waits for it (about 10 s of both cores, once per toolchain and
    /// configuration). Nothing when `workspace` is not sandboxed or one is being made.
    public func make(for workspace: Workspace, swiftVersion: String?) {
        guard workspace.confined, let swiftVersion else { return }
        let template = template(for: workspace, swiftVersion: swiftVersion)
        guard making[template] == nil, !FileManager.default.fileExists(atPath: template) else { return }
        // owned here until it ends (`settle` awaits it); it dies with the process otherwise
        making[template] = Task { [unmade] in
            if let failure = await Self.make(template, for: workspace) { unmade(workspace.bot.name, failure) }
            self.made(template)
        }
    }

    private func made(_ template: String) {
        making[template] = nil
    }

    /// Returns once no template is being made (`kiln run` before it exits); a caller canceled
    /// stops the builds.
    public func settle() async {
        while let (_, task) = making.first {
            await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            if Task.isCancelled { return }
        }
    }

    private func template(for workspace: Workspace, swiftVersion: String) -> String {
        "\(folder)/\(Self.name(swiftVersion: swiftVersion, toolchain: workspace.toolchain, configuration: workspace.bot.build.configuration))"
    }

    /// A template's folder name: the toolchain (its version and, for a matrix toolchain, its
    /// folder) hashed, and the configuration.
    static func name(swiftVersion: String, toolchain: String?, configuration: BuildConfiguration) -> String {
        let toolchain = SHA256.hash(data: Data("\(swiftVersion)\n\(toolchain ?? "default")".utf8))
        return toolchain.prefix(8).map { String(format: "%02x", $0) }.joined() + "-" + configuration.rawValue
    }

    /// Builds the probe package in a sandbox that shows its module cache where a sandboxed
    /// workspace's is, with the flags its builds pass, and moves that cache to `template`;
    /// nil when it did (or another process is making it), else why not, with the probe's last
    /// lines of output (none of it goes to the integration's log, whose result is written).
    static func make(_ template: String, for workspace: Workspace) async -> String? {
        guard !Task.isCancelled else { return "Kiln is stopping" }
        // One probe at a time per template on the host, whichever process: another Kiln making it
        // (a host's other data directory sharing the folder) leaves it to that one.
        try? FileManager.default.createDirectory(atPath: (template as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let lock = open(template + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { return "cannot open \(template).lock: \(String(cString: strerror(errno)))" }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else { return nil }
        guard !FileManager.default.fileExists(atPath: template) else { return nil }
        let probe = "\(template).\(UUID().uuidString).probe"
        defer { try? FileManager.default.removeItem(atPath: probe) }  // whatever the probe left; nothing keeps it
        let package = probe + "/package", cache = probe + "/cache", home = probe + "/home"
        do {
            for folder in [cache, home] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            for (path, text) in ProbePackage.files {
                let file = URL(fileURLWithPath: "\(package)/\(path)")
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
        } catch {
            return "writing Kiln's probe package: \(error.localizedDescription)"
        }
        let seen = "/tmp/kiln/probe"
        var arguments = ["--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if let account = Workspace.accountHome, account != "/" { arguments += ["--bind", home, account] }
        if let toolchain = workspace.toolchain { arguments += ["--ro-bind", toolchain, toolchain] }
        arguments += ["--bind", package, seen, "--bind", cache, DataDirectory.confinedModuleCache, "--die-with-parent", "--chdir", seen, "--"]
        let configuration = workspace.bot.build.configuration.rawValue
        let build = ["swift", "build", "--build-tests", "-c", configuration, "--disable-dependency-cache"] + workspace.compilerFlags
        // the workspace's PATH (the toolchain's folder first), and nothing of the bot's
        let path = workspace.environment(commit: nil, forTrigger: false)["PATH"] ?? "/usr/bin:/bin"
        let environment = ["PATH": path, "HOME": home, "LANG": "C.UTF-8"]
        let said = Mutex<[Substring]>([])
        let end: ProcessEnd
        do {
            end = try await ProcessRunner.run(
                StepCommand("bwrap", arguments + build), in: package, environment: environment, log: workspace.log,
                deadline: MonotonicClock.system.now + .seconds(600), isolated: true, logged: false
            ) { line in
                said.withLock { $0 = Array(($0 + [line]).suffix(5)) }
            }
        } catch {
            return "\(error)"
        }
        guard end.succeeded else { return "Kiln's probe package \(end.description): " + said.withLock { $0.joined(separator: " / ") } }
        do {
            try FileManager.default.moveItem(atPath: cache, toPath: template)
        } catch {
            // another process made it meanwhile: theirs is as good
            guard FileManager.default.fileExists(atPath: template) else { return "keeping it at \(template): \(error.localizedDescription)" }
        }
        return nil
    }
}

/// Kiln's probe package: a library, an executable and a test target that import what packages
/// commonly do, so that its build compiles the modules theirs would.
enum ProbePackage {
    static let files: [String: String] = [
        "Package.swift": """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
            name: "KilnProbe",
            targets: [
                .target(name: "Probe"),
                .executableTarget(name: "probe-tool", dependencies: ["Probe"]),
                .testTarget(name: "ProbeTests", dependencies: ["Probe"]),
            ]
        )

        """,
        "Sources/Probe/Probe.swift": """
        import Dispatch
        import Foundation

        public func probe() -> Int { ProcessInfo.processInfo.processIdentifier > 0 ? DispatchQueue.main.label.count : 0 }

        """,
        "Sources/probe-tool/main.swift": "import Probe\n\nprint(probe())\n",
        "Tests/ProbeTests/ProbeTests.swift": """
        import Foundation
        import Probe
        import Testing
        import XCTest

        final class ProbeTests: XCTestCase {
            func testProbe() { XCTAssertGreaterThan(probe(), 0) }
        }

        @Test func probes() { #expect(probe() > 0) }

        """,
    ]
}
