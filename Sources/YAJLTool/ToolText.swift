import YAJLCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text helpers for the tool's help and progress output (Foundation's `padding(toLength:)` and
/// `String(format:)`, which are not in FoundationEssentials).
extension String {
    /// The text cut or padded with spaces to exactly `width` characters, as
    /// `padding(toLength: width, withPad: " ", startingAt: 0)`.
    func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}

/// `value` with `digits` digits after the point, rounded half away from zero (`%.1f`, `%.0f` for
/// the progress line's sizes and rates); non-finite values as `inf`, `-inf`, `nan`.
func fixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let magnitude = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard magnitude < 9e18 else { return "\(value)" }
    let scaled = Int(magnitude)
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + String(scaled) }
    let text = String(scaled).leftPadded(to: digits + 1)
    return sign + text.dropLast(digits) + "." + text.suffix(digits)
}
