import Foundation
import VaultAPI
import VaultCore
import VaultSync

// `vault-bench [--quick]`: a table of workloads, each with our figure, a baseline measured in this same run, and
// the ratio. Method and recorded figures: docs/performance.md. `--child MODE` runs one measured workload.
if let index = CommandLine.arguments.firstIndex(of: "--child"), index + 1 < CommandLine.arguments.count {
    try await NetworkBenchmarks.runChild(CommandLine.arguments[index + 1])
    exit(0)
}

let quick = CommandLine.arguments.contains("--quick")
let directory = NSTemporaryDirectory() + "vault-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

// `--only import` / `--only essay` / `--only answers`: those rows alone (the importer, the take screen's saves, recordAnswer).
if let index = CommandLine.arguments.firstIndex(of: "--only") {
    switch CommandLine.arguments.dropFirst(index + 1).first {
    case "import":
        printTable(
            try ImportBenchmarks.rows(items: 2_000, rounds: quick ? 2 : 5) + ImportBenchmarks.scoringRows(answers: 100_000, rounds: quick ? 2 : 5)
        )
    case "essay": printTable(try EssayBenchmarks.lineSaves(directory: directory, essays: quick ? 2 : 5))
    case "answers":
        // recordAnswer (with its record's event in the same transaction) against the unkeyed floor.
        let saves = try StoreBenchmarks.answerSave(directory: directory, count: quick ? 200 : 1_000)
        printTable([saves.p50, saves.p99, saves.floor] + (try EssayBenchmarks.lineSaves(directory: directory, essays: quick ? 2 : 5)))
    default: print("--only takes import, essay or answers")
    }
    exit(0)
}

var rows: [BenchRow] = []
rows.append(try StoreBenchmarks.unlock(directory: directory, iterations: KDFParameters.defaultIterations, rounds: quick ? 3 : 7))
let saves = try StoreBenchmarks.answerSave(directory: directory, count: quick ? 200 : 1_000)
rows.append(saves.p50)
rows.append(saves.p99)
rows.append(saves.floor)
rows.append(contentsOf: try StoreBenchmarks.journalModes(directory: directory, count: quick ? 200 : 1_000))
rows.append(contentsOf: try EssayBenchmarks.lineSaves(directory: directory, essays: quick ? 2 : 5))
rows.append(contentsOf: try ImportBenchmarks.rows(items: 2_000, rounds: quick ? 2 : 5))
rows.append(contentsOf: try ImportBenchmarks.scoringRows(answers: 100_000, rounds: quick ? 2 : 5))

let server = try BenchServer(directory: directory)
defer { server.stop() }
let transport = AsyncHTTPTransport(baseURL: server.url)
var client = ServerClient(transport: transport)
client.token = try await client.signIn(user: "demo", password: SecretBytes(Array("demo-password".utf8))).token
let environment = ["BENCH_SERVER": server.url, "BENCH_TOKEN": client.token!, "BENCH_DIR": directory]

// 3. Download a 10 MB assessment.
try server.publish(NetworkBenchmarks.bigAssessment(id: "bench-big"), directory: directory)
_ = try Vault.create(paths: VaultPaths(directory: directory + "/download-vault"), password: NetworkBenchmarks.password, iterations: 1_000)
let downloadOurs = try NetworkBenchmarks.child("download-ours", environment: environment)
let downloadBase = try NetworkBenchmarks.child("download-baseline", environment: environment)
rows.append(
    BenchRow(
        workload: "download + store 10 MB (loopback)",
        ours: downloadOurs.seconds,
        baseline: downloadBase.seconds,
        unit: "s",
        goal: .ratioAtMost(2)
    )
)

// 4. Sync N answers in batches of 100.
let answerCount = quick ? 2_000 : 10_000
try server.publish(SyncSetup.assessment, directory: directory)
try SyncSetup.prepare(directory: directory, answers: answerCount)
let syncOurs = try NetworkBenchmarks.child("sync-ours", environment: environment)
let syncBase = try NetworkBenchmarks.child("sync-baseline", environment: environment)
rows.append(
    BenchRow(
        workload: "sync \(answerCount) answers, batches of 100 (answers/s)",
        ours: Double(syncOurs.count) / syncOurs.seconds,
        baseline: Double(syncBase.count) / syncBase.seconds,
        unit: "/s",
        goal: .ratioAtMost(1.25)
    )
)

// 5. Scale.
rows.append(ScaleBenchmarks.eviction(entries: 5_000))
rows.append(try ScaleBenchmarks.storage(directory: directory, answers: 100_000))

// 6. Peak memory of 3 and 4, each in its own process.
rows.append(
    BenchRow(
        workload: "peak memory, download 10 MB",
        ours: Double(downloadOurs.rssKiB) / 1024,
        baseline: Double(downloadBase.rssKiB) / 1024,
        unit: "MiB",
        goal: "bounded"
    )
)
rows.append(
    BenchRow(
        workload: "peak memory, sync",
        ours: Double(syncOurs.rssKiB) / 1024,
        baseline: Double(syncBase.rssKiB) / 1024,
        unit: "MiB",
        goal: "bounded"
    )
)
await transport.shutdown()
printTable(rows)
