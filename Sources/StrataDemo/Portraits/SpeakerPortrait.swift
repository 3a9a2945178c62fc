import Foundation

/// The demo's stand-in for a speaker photo: the speaker's initials in white on a disc of a colour
/// chosen from the name, as a 128×128 JPEG. The same name always gives the same bytes.
enum SpeakerPortrait {
    static let size = 128
    /// Pixels per font pixel.
    static let scale = 6

    /// Muted backgrounds; the name picks one.
    static let palette: [(UInt8, UInt8, UInt8)] = [
        (38, 70, 83), (42, 157, 143), (233, 196, 106), (244, 162, 97), (231, 111, 81),
        (69, 123, 157), (29, 53, 87), (106, 76, 147), (181, 101, 118), (76, 149, 108),
    ]

    static func jpeg(for name: String) -> [UInt8] {
        JPEGEncoder(quality: 90).encode(width: size, height: size, rgb: pixels(for: name))
    }

    /// `Bart Tubalinal` → `BT`: the first letters of the first and last words, without accents.
    static func initials(of name: String) -> String {
        let words = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
            .split(whereSeparator: { !$0.isLetter })
        guard let first = words.first?.first else { return "?" }
        guard words.count > 1, let last = words.last?.first else { return String(first) }
        return String([first, last])
    }

    static func pixels(for name: String) -> [UInt8] {
        // A sum of scalars, not Hasher: Swift's hashes change from run to run.
        let colour = palette[name.unicodeScalars.reduce(0) { $0 &+ Int($1.value) } % palette.count]
        let background: (UInt8, UInt8, UInt8) = (236, 236, 236)
        let letters = Array(initials(of: name))
        let glyphWidth = PixelFont.width * scale, gap = scale
        let textWidth = letters.count * glyphWidth + (letters.count - 1) * gap
        let textLeft = (size - textWidth) / 2, textTop = (size - PixelFont.height * scale) / 2
        var rgb = [UInt8](repeating: 0, count: size * size * 3)
        let centre = Double(size - 1) / 2, radius = Double(size) / 2 - 4
        for y in 0..<size {
            for x in 0..<size {
                var pixel = background
                let dx = Double(x) - centre, dy = Double(y) - centre
                if dx * dx + dy * dy <= radius * radius { pixel = colour }
                let tx = x - textLeft, ty = y - textTop
                if tx >= 0, ty >= 0, ty < PixelFont.height * scale, tx < textWidth, tx % (glyphWidth + gap) < glyphWidth {
                    let glyph = PixelFont.glyph(letters[tx / (glyphWidth + gap)])
                    if PixelFont.isSet(glyph, x: tx % (glyphWidth + gap) / scale, y: ty / scale) { pixel = (255, 255, 255) }
                }
                let p = (y * size + x) * 3
                (rgb[p], rgb[p + 1], rgb[p + 2]) = pixel
            }
        }
        return rgb
    }
}
