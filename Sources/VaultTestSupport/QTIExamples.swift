import Foundation

/// The 1EdTech QTI sample items and packages: `../shared/qti-examples` beside the project (a developer's checkout
/// and CI both have it; never committed here).
public enum QTIExamples {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/qti-examples")
}
