import Foundation
import VaultAPI
@_spi(Testing) import VaultCore
import VaultSync

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Download and sync on loopback against the real `vault-server`, each side in its own child process so that
/// peak memory belongs to one workload. A child prints `seconds rss_kib count`.
enum NetworkBenchmarks {
    static let password = SecretBytes(Array("bench".utf8))

    /// A served document just under 10 MB, with enough variety that gzip is not trivial.
    static func bigAssessment(id: String) -> Assessment {
        var generator = SplitMix64(seed: 42)
        let words = ["photosynthesis", "equation", "village", "river", "triangle", "بازار", "کتاب", "学校", "numbers", "history"]
        let questions = (0..<1_900).map { index -> Question in
            var prompt = ""
            while prompt.utf8.count < 5_000 { prompt += words[Int(generator.next() % UInt64(words.count))] + " \(generator.next() % 1000) " }
            return Question(id: "q\(index)", type: .shortText, prompt: prompt, maxLength: 200)
        }
        return Assessment(id: id, title: "Benchmark \(id)", questions: questions)
    }

    /// Runs one child workload and returns its figures.
    static func child(_ mode: String, environment: [String: String]) throws -> (seconds: Double, rssKiB: Int, count: Int) {
        let process = Process()
        // `VAULT_BENCH_PROFILE=sync-ours scripts/bench --quick` records that child under `perf` (call graphs) into
        // perf-sync-ours.data, for `perf report -i perf-sync-ours.data --no-children`.
        if ProcessInfo.processInfo.environment["VAULT_BENCH_PROFILE"] == mode {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/perf")
            process.arguments = ["record", "-q", "-F", "4000", "-g", "-o", "perf-\(mode).data", CommandLine.arguments[0], "--child", mode]
        } else {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--child", mode]
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, fields.count >= 3, let seconds = Double(fields[0]), let rss = Int(fields[1]), let count = Int(fields[2])
        else { throw BenchError("child \(mode) failed: \(output)") }
        return (seconds, rss, count)
    }

    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    // MARK: Children

    static func runChild(_ mode: String) async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = environment["BENCH_SERVER"]!
        let token = environment["BENCH_TOKEN"]!
        let directory = environment["BENCH_DIR"]!
        let transport = AsyncHTTPTransport(baseURL: url)
        defer { Task { await transport.shutdown() } }
        let client = ServerClient(transport: transport, token: token)
        var samples = Samples()
        var count = 0
        switch mode {
        case "download-ours":
            let vault = try Vault.open(paths: VaultPaths(directory: directory + "/download-vault"), password: password)
            try vault.setSetting("cache.max_bytes", to: "100000000000")
            let downloader = Downloader(client: client, vault: vault)
            for round in 0..<3 {
                try vault.database.execute("DELETE FROM assessments", [])
                _ = try await samples.timeAsync { try await downloader.download("bench-big") }
                count = round + 1
            }
        case "download-baseline":
            for round in 0..<3 {
                try await samples.timeAsync {
                    let reply = try await transport.send(
                        HTTPRequestSpec(
                            method: "GET",
                            path: APIPath.assessment("bench-big"),
                            headers: ["authorization": "Bearer \(token)", "accept-encoding": "gzip"]
                        ),
                        maxResponseBytes: 12 * 1024 * 1024
                    )
                    let body = reply.headers["content-encoding"] == "gzip" ? try Gzip.decompress(reply.body) : reply.body
                    let path = directory + "/plain-\(round).json.gz"
                    FileManager.default.createFile(atPath: path, contents: try Gzip.compress(body))
                    try SecureFiles.fsyncFile(path)
                }
                count = round + 1
            }
        case "sync-ours":
            let vault = try Vault.open(paths: VaultPaths(directory: directory + "/sync-vault"), password: password)
            var options = SyncEngine.Options()
            options.batchSize = 100
            options.maxBatchBytes = 4 * 1024 * 1024
            let report = try await samples.timeAsync { try await SyncEngine(vault: vault, client: client, options: options).run() }
            count = report.uploaded + report.duplicates
        case "sync-baseline":
            let batches = try JSONDecoder().decode([Data].self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/baseline-batches.json")))
            try await samples.timeAsync {
                for body in batches {
                    let reply = try await transport.send(
                        HTTPRequestSpec(
                            method: "POST",
                            path: APIPath.batch,
                            headers: ["authorization": "Bearer \(token)", "content-encoding": "gzip", "content-type": "application/json"],
                            body: body
                        ),
                        maxResponseBytes: 4 * 1024 * 1024
                    )
                    guard reply.status == 200 else { throw BenchError("baseline batch got \(reply.status)") }
                    count += 100
                }
            }
        default:
            throw BenchError("unknown child \(mode)")
        }
        print(String(format: "%.6f %d %d", samples.median, peakRSSKiB(), count))
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Samples {
    mutating func timeAsync<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        let result = try await body()
        seconds.append((ContinuousClock.now - start).inSeconds)
        return result
    }
}
