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

/// Network namespaces that a test makes for itself (`ip netns`, veth, a bridge), so that several
/// hosts talk over a network the test can cut:
///
/// ```
///   test process (10.213.N.254) ──┐
///                                 ├── br0 in <lab>-net (10.213.N.1: PostgreSQL, SMTP)
///   <lab>-h1 eth0 (10.213.N.11) ──┤
///   <lab>-h2 eth0 (10.213.N.12) ──┘   …
/// ```
///
/// Each namespace has only the addresses the lab gives it; nothing outside the machine is
/// reachable from them. `remove()` (or the next lab, for a test process that was stopped) deletes
/// them.
public final class NetworkLab: Sendable {
    public static let ip = "/usr/sbin/ip"

    public enum LabError: Error, CustomStringConvertible {
        case command(String, String)

        public var description: String {
            switch self {
            case .command(let command, let output):
                "ip \(command) failed: \(output) (the network tests need root and iproute2: apt-get install iproute2; make test installs it)"
            }
        }
    }

    /// The lab's name, the prefix of its namespaces and of its interface in this namespace.
    public let name: String
    /// The first three numbers of the lab's addresses.
    public let subnet: String
    /// The namespace of the bridge, where PostgreSQL and SMTP listen.
    public var network: String { "\(name)-net" }
    /// The bridge's address, in `network`.
    public var networkAddress: String { "\(subnet).1" }
    private let hosts = Mutex(0)

    private static let labs = Mutex(0)
    /// Every namespace made, to delete when the test process exits.
    private static let made = Mutex<[String]>([])

    public init() throws {
        Self.removeAbandoned()
        let number = Self.labs.withLock { count in
            count += 1
            return count
        }
        let pid = Int(getpid())
        name = "kl\(pid)x\(number)"
        subnet = "10.213.\((pid * 7 + number) % 250 + 1)"
        do {
            try Self.addNamespace(network)
            try Self.run(["-n", network, "link", "set", "dev", "lo", "up"])
            // A bridge takes the lowest address of its ports unless given one: each host joining
            // could change it, and the test process's ARP entry for the bridge would then point
            // nowhere for half a minute (seen as PostgreSQL connect timeouts).
            try Self.run(["-n", network, "link", "add", "br0", "address", "02:6b:69:6c:6e:01", "type", "bridge"])
            try Self.run(["-n", network, "addr", "add", "\(networkAddress)/24", "dev", "br0"])
            try Self.run(["-n", network, "link", "set", "dev", "br0", "up"])
            // This process's own way in.
            try Self.run(["link", "add", "\(name)t", "type", "veth", "peer", "name", "tester", "netns", network])
            try Self.run(["-n", network, "link", "set", "dev", "tester", "master", "br0", "up"])  // ignore-unacceptable-language: iproute2's word
            try Self.run(["addr", "add", "\(subnet).254/24", "dev", "\(name)t"])
            try Self.run(["link", "set", "dev", "\(name)t", "up"])
        } catch {
            remove()
            throw error
        }
    }

    /// A namespace of its own for a host, joined to the bridge; returns its name and address.
    public func addHost() throws -> (namespace: String, address: String) {
        let index = hosts.withLock { count in
            count += 1
            return count
        }
        let namespace = "\(name)-h\(index)"
        let address = "\(subnet).\(10 + index)"
        try Self.addNamespace(namespace)
        try Self.run(["-n", namespace, "link", "set", "dev", "lo", "up"])
        try Self.run(["-n", network, "link", "add", "h\(index)", "type", "veth", "peer", "name", "eth0", "netns", namespace])
        try Self.run(["-n", network, "link", "set", "dev", "h\(index)", "master", "br0", "up"])  // ignore-unacceptable-language: iproute2's word
        try Self.run(["-n", namespace, "addr", "add", "\(address)/24", "dev", "eth0"])
        try Self.run(["-n", namespace, "link", "set", "dev", "eth0", "up"])
        return (namespace, address)
    }

    /// Takes `namespace`'s link to the bridge down: it hears nothing and nobody hears it, as a
    /// pulled cable; its processes go on.
    public func cut(_ namespace: String) throws {
        try Self.run(["-n", network, "link", "set", "dev", bridgePort(of: namespace), "down"])
    }

    /// Brings the link back.
    public func restore(_ namespace: String) throws {
        try Self.run(["-n", network, "link", "set", "dev", bridgePort(of: namespace), "up"])
    }

    private func bridgePort(of namespace: String) -> String {
        String(namespace.dropFirst(name.count + 1))
    }

    /// The command line that runs `command` in `namespace`.
    public static func inNamespace(_ namespace: String, _ command: [String]) -> [String] {
        [ip, "netns", "exec", namespace] + command
    }

    /// Deletes the lab's namespaces (their interfaces go with them).
    public func remove() {
        for namespace in Self.namespaces() where namespace.hasPrefix(name + "-") {
            _ = try? runProcessSync(Self.ip, ["netns", "delete", namespace])
        }
        _ = try? runProcessSync(Self.ip, ["link", "delete", "\(name)t"])
    }

    deinit {
        remove()
    }

    private static func namespaces() -> [String] {
        let listed = (try? runProcessSync(ip, ["netns", "list"]).standardOutput) ?? ""
        return listed.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Labs of test processes that were stopped before they could remove theirs.
    private static func removeAbandoned() {
        for namespace in namespaces() where namespace.hasPrefix("kl") {
            guard let x = namespace.firstIndex(of: "x"), let pid = Int32(namespace[namespace.index(namespace.startIndex, offsetBy: 2)..<x]),
                pid != getpid(), sendSignal(0, to: pid) != 0
            else { continue }
            _ = try? runProcessSync(ip, ["netns", "delete", namespace])
        }
    }

    private static func addNamespace(_ namespace: String) throws {
        try run(["netns", "add", namespace])
        let first = made.withLock { made in
            made.append(namespace)
            return made.count == 1
        }
        guard first else { return }
        // No process may be started while this one exits: a namespace is deleted as `ip netns
        // delete` does it, and goes (with its interfaces) once its last process has ended.
        atexit {
            for namespace in NetworkLab.made.withLock({ $0 }) {
                let path = "/run/netns/\(namespace)"
                _ = umount2(path, 2)  // MNT_DETACH
                _ = unlink(path)
            }
        }
    }

    private static func run(_ arguments: [String]) throws {
        let result = try runProcessSync(ip, arguments)
        guard result.status == 0 else { throw LabError.command(arguments.joined(separator: " "), result.standardError) }
    }
}
