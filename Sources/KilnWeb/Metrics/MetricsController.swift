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
import Hummingbird
import KilnCore
import KilnStore
import Prometheus

/// `GET /metrics`: Prometheus text.
///
/// Integrations by result, their durations and webhook deliveries by outcome are counted from the
/// store, so they survive restarts and include integrations run by `kiln run`; queue length and
/// running integrations are read at scrape time; HTTP latency is measured in this process.
///
/// Every series carries this host's name as its `host` label: behind a load balancer, each host's
/// scrape says whose HTTP latencies it holds.
struct MetricsController {
    let store: any IntegrationRecords
    let registry: PrometheusCollectorRegistry
    let host: String

    /// Integration duration buckets, in seconds.
    static let durationBuckets: [Double] = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600]

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("metrics") { _, _ in
            let statistics = try await store.statistics(durationBuckets: Self.durationBuckets)
            var text = Self.render(statistics)
            text += registry.emitToString()
            text = Self.labelled(text, host: host)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    static func render(_ statistics: StoreStatistics) -> String {
        var lines: [String] = []
        lines.append("# HELP kiln_integrations_total Completed integrations by result.")
        lines.append("# TYPE kiln_integrations_total counter")
        for result in IntegrationResult.allCases {
            lines.append("kiln_integrations_total{result=\"\(result.rawValue)\"} \(statistics.integrationsByResult[result] ?? 0)")
        }
        lines.append("# HELP kiln_integrations_queued Integrations waiting for an executor.")
        lines.append("# TYPE kiln_integrations_queued gauge")
        lines.append("kiln_integrations_queued \(statistics.queued)")
        lines.append("# HELP kiln_integrations_running Integrations running now.")
        lines.append("# TYPE kiln_integrations_running gauge")
        lines.append("kiln_integrations_running \(statistics.running)")
        lines.append("# HELP kiln_integration_duration_seconds How long completed integrations took.")
        lines.append("# TYPE kiln_integration_duration_seconds histogram")
        for (bound, count) in zip(durationBuckets, statistics.durationBucketCounts) {
            lines.append("kiln_integration_duration_seconds_bucket{le=\"\(bound)\"} \(count)")
        }
        lines.append("kiln_integration_duration_seconds_bucket{le=\"+Inf\"} \(statistics.durationCount)")
        lines.append("kiln_integration_duration_seconds_sum \(statistics.durationSum)")
        lines.append("kiln_integration_duration_seconds_count \(statistics.durationCount)")
        lines.append("# HELP kiln_webhook_deliveries_total Webhook deliveries by outcome.")
        lines.append("# TYPE kiln_webhook_deliveries_total counter")
        for outcome in WebhookDelivery.Outcome.allCases {
            lines.append("kiln_webhook_deliveries_total{outcome=\"\(outcome.rawValue)\"} \(statistics.webhooksByOutcome[outcome] ?? 0)")
        }
        lines.append("# HELP kiln_mails Mails in the outbox by state.")
        lines.append("# TYPE kiln_mails gauge")
        for state in QueuedMail.State.allCases {
            lines.append("kiln_mails{state=\"\(state.rawValue)\"} \(statistics.outboxByState[state] ?? 0)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` (Prometheus exposition) with `host="…"` first among every sample's labels.
    static func labelled(_ text: String, host: String) -> String {
        let value = host.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let label = "host=\"\(value)\""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard !line.hasPrefix("#"), let end = line.firstIndex(where: { $0 == "{" || $0 == " " }) else { return String(line) }
            let name = line[..<end]
            if line[end] == "{" {
                let rest = line[line.index(after: end)...]
                return "\(name){\(label)\(rest.hasPrefix("}") ? "" : ",")\(rest)"
            }
            return "\(name){\(label)}\(line[end...])"
        }.joined(separator: "\n")
    }
}

/// Times every request into `kiln_http_request_duration_seconds`, by route and status class.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let registry: PrometheusCollectorRegistry

    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "kiln", metricName: "http_request_duration", unitName: "seconds", helpText: "Time to answer HTTP requests, by route.")
    }

    static var buckets: [Duration] {
        [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
            .milliseconds(100), .milliseconds(500), .seconds(1),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = MonotonicClock.system.now
        do {
            let response = try await next(request, context)
            record(context, status: response.status.code, since: start)
            return response
        } catch let error as HTTPResponseError {
            record(context, status: error.status.code, since: start)
            throw error
        } catch {
            record(context, status: 500, since: start)
            throw error
        }
    }

    private func record(_ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "unmatched"
        registry.makeDurationHistogram(
            descriptor: Self.descriptor, labels: [("route", route), ("status", "\(status / 100)xx")], buckets: Self.buckets
        )
        .record(MonotonicClock.system.now - start)
    }
}
