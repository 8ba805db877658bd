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
import KilnTestSupport
import Testing

@Suite("Deploy/")
struct DeployTests {
    /// Deploy/'s units `names`, with ExecStart pointing at the built kiln, copied side by side
    /// (so that one may name another), and what `systemd-analyze verify` said of those `checked`.
    static func verify(_ names: [String], checked: [String]) async throws -> (units: [String: String], verified: ProcessOutput) {
        let analyze = "/usr/bin/systemd-analyze"
        try #require(FileManager.default.isExecutableFile(atPath: analyze), "systemd-analyze is missing: apt-get install systemd")
        let directory = try TemporaryDirectory()
        var units: [String: String] = [:]
        for name in names {
            units[name] = try String(contentsOfFile: Executables.packageRoot + "/Deploy/\(name)", encoding: .utf8)
            _ = try directory.write(name, (units[name] ?? "").replacingOccurrences(of: "/usr/local/bin/kiln", with: Executables.kiln))
        }
        return (units, try await runProcess(analyze, ["verify"] + checked.map { directory.url($0) }))
    }

    @Test("The systemd unit passes systemd-analyze verify, with ExecStart pointing at the built kiln")
    func systemdUnit() async throws {
        let (units, verified) = try await Self.verify(["kiln.service"], checked: ["kiln.service"])
        #expect(units["kiln.service"]?.contains("ExecStart=/usr/local/bin/kiln serve --config /etc/kiln/kiln.yml") == true)
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(!verified.standardError.contains("kiln.service"), "\(verified.standardError)")
    }

    @Test("The watchdog's service and timer pass systemd-analyze verify, and restart kiln.service only after a minute of failed /health")
    func watchdogUnits() async throws {
        let watchdog = ["kiln-health.service", "kiln-health.timer"]
        let (units, verified) = try await Self.verify(["kiln.service"] + watchdog, checked: watchdog)
        let service = units["kiln-health.service"] ?? ""
        #expect(service.contains("curl -fsS --max-time 5 -o /dev/null http://127.0.0.1:8080/health && exit 0"))
        #expect(service.contains("systemctl restart kiln.service"))
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(!verified.standardError.contains("kiln-health"), "\(verified.standardError)")
    }

    @Test("The Containerfile installs the binary and Web/ where the unit and the binary look for them")
    func containerfile() throws {
        let file = try String(contentsOfFile: Executables.packageRoot + "/Deploy/Containerfile", encoding: .utf8)
        #expect(file.contains("cp -r Web /out/share/kiln/Web"))
        #expect(file.contains("VOLUME /var/lib/kiln"))
        let nginx = try String(contentsOfFile: Executables.packageRoot + "/Deploy/nginx.conf", encoding: .utf8)
        #expect(nginx.contains("location /hooks/") && nginx.contains("proxy_buffering off"))
    }
}
