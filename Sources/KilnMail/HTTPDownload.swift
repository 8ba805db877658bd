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

/// A GET over libcurl whose body goes to a file as it arrives: a workspace snapshot from another
/// host (tens or hundreds of megabytes). Like `HTTPPost`, each runs on a Dispatch thread.
public struct HTTPDownload: Sendable {
    public var connectTimeout: Duration
    /// A transfer slower than `minimumSpeed` bytes a second for `stallTimeout` is given up: a
    /// host that went away mid-transfer costs that long, not the whole transfer's time.
    public var stallTimeout: Duration
    public var minimumSpeed: Int

    public init(connectTimeout: Duration = .seconds(5), stallTimeout: Duration = .seconds(15), minimumSpeed: Int = 64 * 1024) {
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.minimumSpeed = minimumSpeed
    }

    /// How it ended: the status code (nil without an answer), the bytes written, and libcurl's
    /// words when the transfer failed.
    public struct Outcome: Sendable, Equatable {
        public var code: Int?
        public var bytes: Int
        public var error: String?
    }

    /// Writes the body of `url` (with `headers`, `Name: value` lines) to the file at `path`,
    /// which it creates or empties; a failed transfer leaves what arrived.
    public func get(_ url: String, headers: [String], to path: String) async -> Outcome {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: perform(url, headers: headers, to: path))
            }
        }
    }

    private final class Sink {
        let file: UnsafeMutablePointer<FILE>
        var bytes = 0
        var failed = false

        init(file: UnsafeMutablePointer<FILE>) {
            self.file = file
        }
    }

    private func perform(_ url: String, headers list: [String], to path: String) -> Outcome {
        CurlLibrary.initialize()
        guard let file = fopen(path, "wb") else {
            return Outcome(code: nil, bytes: 0, error: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let sink = Sink(file: file)
        defer { fclose(file) }
        guard let handle = curl_easy_init() else { return Outcome(code: nil, bytes: 0, error: "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in list { headers = curl_slist_append(headers, header) }
        defer { curl_slist_free_all(headers) }
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            kiln_curl_setopt_string(handle, CURLOPT_URL, url)
            kiln_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
            kiln_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
            kiln_curl_setopt_long(handle, CURLOPT_FAILONERROR, 1)
            kiln_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, box.toOpaque())
            kiln_curl_setopt_write_function(handle) { data, size, count, userdata in
                guard let data, let userdata else { return 0 }
                let sink = Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue()
                let written = fwrite(data, 1, size * count, sink.file)
                sink.bytes += written
                if written != size * count { sink.failed = true }
                return written
            }
            kiln_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, minimumSpeed)
            kiln_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(stallTimeout.components.seconds)))
            CurlLibrary.prepareHTTP(handle, connectTimeout: connectTimeout, errors: errors.baseAddress)
            return curl_easy_perform(handle)
        }
        var response = 0
        kiln_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
        guard code == CURLE_OK, !sink.failed else {
            let said = sink.failed ? "writing \(path): \(String(cString: strerror(errno)))" : CurlLibrary.failure(code, errors: errorBuffer)
            return Outcome(code: response > 0 ? response : nil, bytes: sink.bytes, error: said)
        }
        return Outcome(code: response, bytes: sink.bytes, error: nil)
    }
}
