import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VaultAPI
import VaultCore
import VaultServer

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or update an assessment from a JSON file; prints its version.")
    @OptionGroup var options: DataOptions
    @Argument var file: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw ValidationError("Cannot read \(file).") }
        let assessment: Assessment
        do { assessment = try JSONDecoder().decode(Assessment.self, from: data) } catch {
            throw ValidationError("\(file) is not a valid assessment document.")
        }
        do { try AssessmentValidator.validate(assessment) } catch let problem as AssessmentValidator.Problem {
            throw ValidationError(problem.message)
        }
        let result = try await options.storage().publish(assessment, now: Date())
        print(result.changed ? "Published \(result.id) version \(result.version)." : "\(result.id) is unchanged at version \(result.version).")
    }
}
