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
import KilnCore
import KilnPresentation

/// What a bot page's query asks of its history: a filter (`?result=&author=&branch=&pull=`) and
/// a search for a test (`?test=`), read and checked once, and written back into its links.
struct HistoryQuery {
    var filter = HistoryFilter()
    var test: String?

    init(_ query: Parameters) throws {
        func text(_ name: String) -> String? {
            query.get(name).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let result = text("result") {
            guard let value = IntegrationResult(rawValue: result) else {
                let known = IntegrationResult.allCases.map(\.rawValue).joined(separator: ", ")
                throw WebError.badRequest("result must be one of \(known), not '\(result)'")
            }
            filter.result = value
        }
        filter.author = text("author")
        filter.branch = text("branch")
        if let pull = text("pull") {
            guard let number = Int(pull), number > 0 else { throw WebError.badRequest("pull must be a pull request's number, not '\(pull)'") }
            filter.pullRequest = number
        }
        test = text("test")
    }

    /// The filter as query parameters, to keep on the page's other links (`&result=…`).
    var filterParameters: String {
        let pairs: [(String, String?)] = [
            ("result", filter.result?.rawValue), ("author", filter.author), ("branch", filter.branch), ("pull", filter.pullRequest.map(String.init)),
        ]
        return pairs.compactMap { name, value in value.map { "&\(name)=\(SourceLink.percentEncoded($0))" } }.joined()
    }

    /// The result filter's choices, the chosen one marked.
    var resultOptions: [ResultOption] {
        [ResultOption(value: "", label: "any result", selected: filter.result == nil)]
            + IntegrationResult.allCases.map { ResultOption(value: $0.rawValue, label: $0.rawValue, selected: filter.result == $0) }
    }

    struct ResultOption {
        var value: String
        var label: String
        var selected: Bool
    }
}
