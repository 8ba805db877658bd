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
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The Swift toolchain integrations build with.
public enum Toolchain {
    /// The first line of `swift --version`, such as `Swift version 6.3.1 (swift-6.3.1-RELEASE)`,
    /// of the `swift` at `executable` (by default the one on the PATH); nil when there is none.
    public static func version(of executable: String? = nil) async -> String? {
        do {
            let result = try await Subprocess.run(
                executable.map { .path(FilePath($0)) } ?? .name("swift"), arguments: ["--version"], output: .string(limit: 64 * 1024),
                error: .discarded)
            guard result.terminationStatus.isSuccess else { return nil }
            let text = result.standardOutput
            return text.split(separator: "\n").first { $0.contains("Swift version") }.map { String($0.trimmingCharacters(in: .whitespaces)) }
        } catch {
            return nil
        }
    }
}

/// Whether builds can run under bubblewrap here, as `sandbox: bubblewrap` (the default) runs
/// them: a process namespace of their own, the file system read-only.
public enum SandboxProbe {
    /// Nil when bubblewrap runs; else why not, in words ("bwrap is not installed",
    /// "bwrap: No permissions to create a new namespace…").
    public static func problem(executable: String = "bwrap") async -> String? {
        do {
            // found on PATH here: swift-subprocess starts a process for each folder it tries
            let found = ProcessRunner.executable(executable, path: ProcessInfo.processInfo.environment["PATH"])
            let result = try await Subprocess.run(
                found, arguments: ["--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true"],
                output: .discarded, error: .string(limit: 4096))
            guard !result.terminationStatus.isSuccess else { return nil }
            let said = result.standardError.split(separator: "\n").first.map(String.init) ?? ""
            return said.isEmpty ? "\(executable) failed (\(result.terminationStatus))" : said
        } catch {
            return "\(executable) is not installed"
        }
    }
}
