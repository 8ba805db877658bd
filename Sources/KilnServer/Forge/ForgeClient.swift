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
import KilnMail

/// Posts commit statuses to forges over KilnMail's libcurl (`HTTPPost`), each the way its forge
/// says (`Forge.statusRequest`), and tells what the answer means.
public struct ForgeClient: Sendable {
    public var connectTimeout: Duration
    public var totalTimeout: Duration

    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30)) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }

    /// How a forge answered a status.
    public enum Answer: Sendable, Equatable {
        /// It took it (2xx).
        case delivered(code: Int)
        /// It refused it for a reason that another attempt will not change: a bad token (401,
        /// 403), an unknown repository or commit (404), an invalid status (422).
        case refused(code: Int, message: String)
        /// It could not be reached or failed (5xx, 429, timeouts): worth trying again.
        case failed(code: Int?, message: String)
    }

    public func post(_ status: CommitStatus, token: String) async -> Answer {
        guard let request = status.kind.forge.statusRequest(status, token: token) else {
            return .refused(code: 0, message: "\(status.kind) takes no commit statuses")
        }
        let response = await HTTPPost(connectTimeout: connectTimeout, totalTimeout: totalTimeout).post(
            request.url, headers: request.headers, body: request.body)
        return Self.answer(to: status, (response.code, response.body, response.error))
    }

    /// Whether the forge counts `login` a member of the bot's repository (`Forge.memberRequest`):
    /// nil when it could not say (unreachable, a refusal, a forge that cannot tell).
    public func isMember(_ login: String, of project: String, forge: ForgeSettings, token: String) async -> Bool? {
        let api = forge.apiURL.hasSuffix("/") ? String(forge.apiURL.dropLast()) : forge.apiURL
        guard let request = forge.kind.forge.memberRequest(api: api, project: project, login: login, token: token) else { return nil }
        let response = await HTTPPost(connectTimeout: connectTimeout, totalTimeout: totalTimeout).send(
            request.method, request.url, headers: request.headers, body: request.body)
        guard let code = response.code, code > 0 else { return nil }
        return forge.kind.forge.isMember(login, code: code, body: response.body)
    }

    /// What the forge's HTTP answer means for `status`.
    static func answer(to status: CommitStatus, _ response: (code: Int?, body: [UInt8], error: String?)) -> Answer {
        guard let code = response.code, code > 0 else { return .failed(code: nil, message: response.error ?? "no answer") }
        let message = Self.message(in: response.body) ?? "HTTP \(code)"
        switch code {
        case 200..<300: return .delivered(code: code)
        case 400..<500 where status.kind.forge.hasStatus(despite: code, message: message): return .delivered(code: code)
        case 408, 429: return .failed(code: code, message: message)
        case 400..<500: return .refused(code: code, message: message)
        default: return .failed(code: code, message: message)
        }
    }

    /// The forge's own words: GitHub's and Gitea's `message`, GitLab's `message` or `error`.
    static func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            for key in ["message", "error"] {
                if let text = object[key] as? String { return text }
                if let nested = object[key], JSONSerialization.isValidJSONObject(nested),
                    let data = try? JSONSerialization.data(withJSONObject: nested, options: [.sortedKeys])
                {
                    return String(decoding: data, as: UTF8.self)
                }
            }
        }
        let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
