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
import KilnGit
import KilnPresentation

/// Dependencies from Kiln's own mirrors (`DependencyMirrors`): every git dependency the
/// package's `Package.resolved` pins is mirrored (fetched from outside the sandbox only when the
/// mirror lacks its revision), and the build's HOME gets a git configuration that sends SwiftPM's
/// fetches of those URLs to the mirrors. An upstream that is down then costs nothing for pins
/// the mirrors hold.
///
/// With `network: none` every mirrored dependency is rewritten, and one that cannot be had is an
/// error issue in one line; otherwise only those verified here are, and one that cannot be
/// fetched is left to SwiftPM and the upstream, as before.
extension IntegrationSteps {
    /// Mirrors the package's pins and writes the build's git configuration; returns the pins as
    /// the mirrors have them, and an error for each pin that cannot be had.
    func mirrorDependencies() async -> (pins: [DependencyPin], errors: [Diagnostic]) {
        let pins = PackageResolved.pins(in: workspace.directory)
        guard !pins.isEmpty || bot.network == .none else { return ([], []) }
        var mirroredPins: [DependencyPin] = []
        var lines: [String] = []
        var errors: [Diagnostic] = []
        var verified: Set<String> = []
        for pin in pins {
            let name = "\(pin.identity) \(pin.version ?? ShortHash.text(pin.revision))"
            var state = DependencyPin.MirrorState.unavailable
            do {
                let mirrored = try await context.dependencies.ensure(pin.location, revision: pin.revision)
                let submodules = mirrored.submodules.isEmpty ? "" : ", with \(mirrored.submodules.count) submodule mirror(s)"
                lines.append("\(name) (\(mirrored.freshness.rawValue)\(submodules))")
                verified.insert(pin.location)
                verified.formUnion(mirrored.submodules)
                state = mirrored.freshness == .current ? .current : .fetched
            } catch {
                lines.append("\(name) (not mirrored: \(error))")
                errors.append(Self.unavailable(pin.location, error))
            }
            mirroredPins.append(
                DependencyPin(identity: pin.identity, location: pin.location, version: pin.version, revision: pin.revision, mirror: state))
        }
        if let unwritten = await writeGitConfig(only: bot.network == .none ? nil : verified) { errors.append(unwritten) }
        if !pins.isEmpty {
            await log.header("dependencies: \(pins.count) resolved from Kiln's mirrors")
            for line in lines { await log.note(line) }
        }
        return (mirroredPins, errors)
    }

    /// Mirrors the dependencies SwiftPM named as unreachable, and with `refreshing` fetches every
    /// mirrored one again (a version the package now requires); returns an error for each that
    /// cannot be had.
    func mirrorMore(_ locations: [String], refreshing: Bool) async -> [Diagnostic] {
        let again = refreshing ? context.dependencies.mirrored().map(\.location) : []
        var errors: [Diagnostic] = []
        for location in locations + again.filter({ !locations.contains($0) }) {
            do {
                let mirrored = try await context.dependencies.ensure(location, revision: nil)
                await log.note("dependency \(location): \(mirrored.freshness.rawValue) for the build, which has no network")
            } catch {
                errors.append(Self.unavailable(location, error))
            }
        }
        if let unwritten = await writeGitConfig(only: nil) { errors.append(unwritten) }
        return errors
    }

    /// The build's HOME's git configuration: the mirrors of `only` those URLs, or of all. One
    /// that cannot be written is an error saying so (the integration's log notes it too): without
    /// it SwiftPM fetches from the upstreams, which a build without network cannot reach.
    func writeGitConfig(only locations: Set<String>?) async -> Diagnostic? {
        let config = context.dependencies.gitConfig { locations?.contains($0) ?? true }
        let path = workspace.home + "/.gitconfig"
        do {
            // Replaced whole, never rewritten in place: the other cells of a matrix share this
            // HOME, and their SwiftPM may be reading it now.
            try FileReplacement.replace(path, with: Data(config.utf8))
            return nil
        } catch {
            let message = "cannot write \(path), which sends SwiftPM to Kiln's dependency mirrors: \(error.localizedDescription)"
            await log.note(message + (bot.network == .none ? "" : "; dependencies come from their upstreams"))
            return .error(message)
        }
    }

    static func unavailable(_ location: String, _ error: GitError) -> Diagnostic {
        .error("dependency \(location) cannot be had: \(error) (Kiln's mirror lacks it and the upstream did not give it)")
    }
}
