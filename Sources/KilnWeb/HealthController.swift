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

import Hummingbird

/// `GET /health`: 200 `ok` while the server runs, for load balancers and monitors.
struct HealthController {
    func addRoutes(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in "ok" }
    }
}
