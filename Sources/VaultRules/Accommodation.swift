/// How an accommodation is stored: per assessment, or for every timed assessment of a student.
public enum AccommodationScope {
    /// The `assessment_id` that stands for every timed assessment.
    public static let everyAssessment = "*"

    /// The stored `assessment_id` of a setting (`nil`: every assessment).
    public static func stored(_ assessmentID: String?) -> String { assessmentID ?? everyAssessment }
}
