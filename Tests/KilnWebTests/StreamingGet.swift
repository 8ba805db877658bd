import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET whose body arrives piece by piece, as lines (URLSession's `bytes(from:)` is not on Linux).
final class StreamingGet: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue.
    private var pending = Data()
    private let continuation: AsyncStream<String>.Continuation
    let lines: AsyncStream<String>
    private var session: URLSession?

    init(_ url: URL) {
        (lines, continuation) = AsyncStream.makeStream(of: String.self)
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
        self.session = session
        session.dataTask(with: url).resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.append(data)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending = Data(pending[pending.index(after: newline)...])
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
        continuation.finish()
        session.finishTasksAndInvalidate()
    }
}
