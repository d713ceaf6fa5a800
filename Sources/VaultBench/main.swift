import Foundation
import VaultCore

// `vault-bench [--quick]`: prints a table of workloads, each with our figure, a baseline measured in this same
// run, and the ratio. See docs/performance.md for the method.
let quick = CommandLine.arguments.contains("--quick")
let directory = NSTemporaryDirectory() + "/vault-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

var rows: [BenchRow] = []
rows.append(try StoreBenchmarks.unlock(directory: directory, iterations: KDFParameters.defaultIterations, rounds: quick ? 3 : 7))
let saves = try StoreBenchmarks.answerSave(directory: directory, count: quick ? 200 : 1_000)
rows.append(saves.p50)
rows.append(saves.p99)
printTable(rows)
