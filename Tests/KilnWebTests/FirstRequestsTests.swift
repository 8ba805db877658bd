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
import Testing

@Suite("The server's own first requests")
struct FirstRequestsTests {
    @Test("Before it says it listens, the server has asked itself for / and /api/bots once, over its own listener")
    func askedItself() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        // Nobody else has asked anything yet: what /metrics counts is the server's own.
        let metrics = try await web.get("/metrics").text
        #expect(metrics.contains(#"kiln_http_request_duration_seconds_count{host="web-1",route="/",status="2xx"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"kiln_http_request_duration_seconds_count{host="web-1",route="/api/bots",status="2xx"} 1"#))
        await web.stop()
    }
}
