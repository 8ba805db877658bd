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
    @Test("The systemd unit passes systemd-analyze verify, with ExecStart pointing at the built kiln")
    func systemdUnit() async throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            Issue.record("systemd-analyze is missing: apt-get install systemd")
            return
        }
        let unit = try String(contentsOfFile: Executables.packageRoot + "/Deploy/kiln.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/kiln serve --config /etc/kiln/kiln.yml"))
        let directory = try TemporaryDirectory()
        let path = try directory.write("kiln.service", unit.replacingOccurrences(of: "/usr/local/bin/kiln", with: Executables.kiln))
        let verified = try await runProcess(analyze, ["verify", path])
        #expect(verified.status == 0, "\(verified.standardError)")
        #expect(!verified.standardError.contains("kiln.service"), "\(verified.standardError)")
    }

    @Test("The watchdog's service and timer pass systemd-analyze verify, and restart kiln.service only after a minute of failed /health")
    func watchdogUnits() async throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            Issue.record("systemd-analyze is missing: apt-get install systemd")
            return
        }
        let directory = try TemporaryDirectory()
        var paths: [String] = []
        for name in ["kiln.service", "kiln-health.service", "kiln-health.timer"] {
            let unit = try String(contentsOfFile: Executables.packageRoot + "/Deploy/\(name)", encoding: .utf8)
            paths.append(try directory.write(name, unit.replacingOccurrences(of: "/usr/local/bin/kiln", with: Executables.kiln)))
        }
        let watchdog = try String(contentsOfFile: paths[1], encoding: .utf8)
        #expect(watchdog.contains("curl -fsS --max-time 5 -o /dev/null http://127.0.0.1:8080/health && exit 0"))
        #expect(watchdog.contains("systemctl restart kiln.service"))
        let verified = try await runProcess(analyze, ["verify"] + paths.dropFirst())
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
