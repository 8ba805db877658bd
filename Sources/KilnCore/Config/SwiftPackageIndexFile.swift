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

import Yams

/// A package's `.spi.yml` (the Swift Package Index's manifest), as far as Kiln reads it: which
/// targets are documented (`builder.configs[].documentation_targets`).
public enum SwiftPackageIndexFile {
    /// The documented targets, in order, each once; nil when the file names none or is not YAML.
    public static func documentationTargets(in text: String) -> [String]? {
        guard let root = try? Yams.compose(yaml: text), let configs = root["builder"]?["configs"]?.sequence else { return nil }
        var targets: [String] = []
        for config in configs {
            for target in config["documentation_targets"]?.sequence ?? [] {
                if let name = target.string, !name.isEmpty, !targets.contains(name) { targets.append(name) }
            }
        }
        return targets.isEmpty ? nil : targets
    }
}
