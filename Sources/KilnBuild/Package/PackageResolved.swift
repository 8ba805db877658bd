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

/// A package's `Package.resolved`, read as data (nothing of the package runs): the git
/// dependencies it pins, transitive ones included, each with its upstream URL and revision.
public enum PackageResolved {
    public struct Pin: Sendable, Hashable {
        public var identity: String
        public var location: String
        public var revision: String
        /// The version it resolved to, or its branch; nil for a bare revision.
        public var version: String?
    }

    /// The pins of `Package.resolved` in `directory`: none when there is no such file (a
    /// library seldom commits one) or it is not one SwiftPM wrote (format 1, 2 or 3).
    public static func pins(in directory: String) -> [Pin] {
        guard let data = FileManager.default.contents(atPath: directory + "/Package.resolved") else { return [] }
        return pins(from: data)
    }

    static func pins(from data: Data) -> [Pin] {
        struct State: Decodable {
            var revision: String?
            var version: String?
            var branch: String?
        }
        struct Modern: Decodable {
            struct Entry: Decodable {
                var identity: String
                var kind: String
                var location: String
                var state: State
            }
            var pins: [Entry]
        }
        struct Original: Decodable {
            struct Object: Decodable {
                struct Entry: Decodable {
                    var package: String
                    var repositoryURL: String
                    var state: State
                }
                var pins: [Entry]
            }
            var object: Object
        }
        if let modern = try? JSONDecoder().decode(Modern.self, from: data) {
            return modern.pins.compactMap { pin in
                guard pin.kind == "remoteSourceControl", let revision = pin.state.revision else { return nil }
                return Pin(identity: pin.identity, location: pin.location, revision: revision, version: pin.state.version ?? pin.state.branch)
            }
        }
        if let original = try? JSONDecoder().decode(Original.self, from: data) {
            return original.object.pins.compactMap { pin in
                guard let revision = pin.state.revision else { return nil }
                return Pin(
                    identity: pin.package.lowercased(), location: pin.repositoryURL, revision: revision,
                    version: pin.state.version ?? pin.state.branch)
            }
        }
        return []
    }

    /// The dependency URLs SwiftPM could not clone, from its messages ("Failed to clone
    /// repository git://host/dep.git:"): those a build without network needs mirrored first.
    public static func unreachable(in messages: [String]) -> [String] {
        var found: [String] = []
        for message in messages {
            guard let range = message.range(of: "Failed to clone repository ") else { continue }
            var url = message[range.upperBound...].prefix { !$0.isWhitespace }
            if url.hasSuffix(":") { url = url.dropLast() }
            if !url.isEmpty, !found.contains(String(url)) { found.append(String(url)) }
        }
        return found
    }
}
