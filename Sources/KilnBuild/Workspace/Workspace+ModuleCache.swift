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

extension Workspace {
    /// The Swift module cache of the workspace's builds: in `.build`, so that snapshots, bisect
    /// copies and `clean` take it with the rest, and named `ModuleCache` like SwiftPM's own, so
    /// that a copy seen at another path drops it (`settleSeenPath`).
    public var moduleCache: String { directory + "/.build/kiln/ModuleCache" }

    /// Where the builds see it: for a sandboxed build, one path whatever the bot, workspace or
    /// host (`DataDirectory.confinedModuleCache`), so that a new workspace can start with the
    /// toolchain's modules compiled once (`ModuleCacheTemplates`); otherwise where it is.
    public var moduleCacheSeenAs: String { confined ? DataDirectory.confinedModuleCache : moduleCache }

    /// What every build of the workspace passes the compiler (`swift build`, the archive's, the
    /// plugins', the symbol graphs'), so that each reuses what another built: the module cache.
    /// Not `-enable-incremental-file-hashing`: a snapshot gives unchanged sources back their
    /// times (`SourceTimes`), and the option made a cold build 7 % dearer in CPU, every link
    /// hashing each object it links (docs/performance.md, "Warm workspaces").
    public var compilerFlags: [String] { ["-Xswiftc", "-module-cache-path", "-Xswiftc", moduleCacheSeenAs] }
}
