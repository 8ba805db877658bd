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

internal import CCurl
import Dispatch
import Foundation

/// An HTTP(S) request over libcurl, for what Kiln sends besides mail (commit statuses and
/// reviews to forges): a POST, or another method (`send`).
/// libcurl blocks, so each post runs on a Dispatch thread, never on the cooperative pool.
public struct HTTPPost: Sendable {
    public var connectTimeout: Duration
    public var totalTimeout: Duration
    /// The most of an answer's body that is kept: forges answer in a few hundred bytes.
    public static let maximumAnswer = 64 * 1024

    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30)) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }

    /// What came back: the status code (nil without an answer), the body, and libcurl's words
    /// when the transfer failed.
    public struct Response: Sendable, Equatable {
        public var code: Int?
        public var body: [UInt8]
        public var error: String?
    }

    /// Posts `body` to `url` with `headers` (`Name: value` lines).
    public func post(_ url: String, headers: [String], body: [UInt8]) async -> Response {
        await send("POST", url, headers: headers, body: body)
    }

    /// Sends `body` to `url` with `method` (`GET` sends none).
    public func send(_ method: String, _ url: String, headers: [String], body: [UInt8] = []) async -> Response {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: perform(method, url, headers: headers, body: body))
            }
        }
    }

    private final class Collected {
        var bytes: [UInt8] = []
    }

    private func perform(_ method: String, _ url: String, headers list: [String], body: [UInt8]) -> Response {
        CurlLibrary.initialize()
        guard let handle = curl_easy_init() else { return Response(code: nil, body: [], error: "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in list { headers = curl_slist_append(headers, header) }
        defer { curl_slist_free_all(headers) }
        let collected = Collected()
        let box = Unmanaged.passRetained(collected)
        defer { box.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            body.withUnsafeBufferPointer { body in
                kiln_curl_setopt_string(handle, CURLOPT_URL, url)
                kiln_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
                if method == "GET" {
                    kiln_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
                } else {
                    kiln_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                    kiln_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
                    if method != "POST" { kiln_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) }
                }
                kiln_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, box.toOpaque())
                kiln_curl_setopt_write_function(handle) { data, size, count, userdata in
                    guard let data, let userdata else { return 0 }
                    let collected = Unmanaged<Collected>.fromOpaque(userdata).takeUnretainedValue()
                    let length = size * count
                    if collected.bytes.count < HTTPPost.maximumAnswer {
                        collected.bytes += UnsafeRawBufferPointer(start: data, count: length).prefix(HTTPPost.maximumAnswer - collected.bytes.count)
                    }
                    return length
                }
                kiln_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, CurlLibrary.milliseconds(totalTimeout))
                CurlLibrary.prepareHTTP(handle, connectTimeout: connectTimeout, errors: errors.baseAddress)
                return curl_easy_perform(handle)
            }
        }
        var response = 0
        kiln_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
        guard code == CURLE_OK else {
            return Response(code: response > 0 ? response : nil, body: collected.bytes, error: CurlLibrary.failure(code, errors: errorBuffer))
        }
        return Response(code: response, body: collected.bytes, error: nil)
    }
}
