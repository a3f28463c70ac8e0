import Foundation

/// Parses a format string of Core Data's predicate language into a template
/// ("Predicate Format String Syntax": keywords are case-insensitive, whitespace does
/// not matter, `%@`/`%K`/`$VAR` inside quotes are literal text).
struct PredicateParser {
    /// What a format specifier takes.
    enum Specifier: Sendable, Equatable {
        case object  // %@
        case key  // %K
        case integer(String)  // %d %i %ld %lld %u …
        case real(String)  // %f %lf %a %la
    }

    struct Template: Sendable {
        let node: PredicateNode
        let specifiers: [Specifier]
    }

    private enum Token: Equatable {
        case identifier(String)
        case keyword(String)  // upper-cased
        case atName(String)  // @count
        case string(String)
        case integer(Int64)
        case real(Double)
        case argument(Specifier)
        case variable(String)
        case symbol(String)
        case end
    }

    private static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
        "ANY", "ALL", "NONE", "SOME", "NIL", "NULL", "TRUE", "YES", "FALSE", "NO", "SELF",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "FUNCTION",
    ]

    private let format: String
    private var tokens: [(token: Token, position: Int)] = []
    private var index = 0
    private var specifiers: [Specifier] = []

    static func parse(_ format: String) throws(PredicateSyntaxError) -> Template {
        var parser = PredicateParser(format: format)
        try parser.tokenize()
        let node = try parser.parsePredicate()
        guard case .end = parser.current else { throw parser.error("unexpected \(parser.describeCurrent()) after a complete predicate") }
        return Template(node: node, specifiers: parser.specifiers)
    }

    private init(format: String) { self.format = format }

    // MARK: Tokens

    private mutating func tokenize() throws(PredicateSyntaxError) {
        var tokenizer = Tokenizer(format: format)
        tokens = try tokenizer.tokens()
    }

    /// Reads the format's tokens, one reader for each kind: names and keywords, `@` and
    /// `$` names, quoted strings, numbers, format specifiers and symbols. Each reader
    /// starts at the token's first character and leaves `i` after its last.
    private struct Tokenizer {
        let format: String
        let chars: [Character]
        var i = 0

        init(format: String) {
            self.format = format
            chars = Array(format)
        }

        mutating func tokens() throws(PredicateSyntaxError) -> [(token: Token, position: Int)] {
            var tokens: [(token: Token, position: Int)] = []
            while i < chars.count {
                let c = chars[i]
                if c.isWhitespace { i += 1; continue }
                let start = i
                let token: Token
                if c.isLetter || c == "_" || c == "#" {
                    token = try name()
                } else if c == "@" {
                    token = .atName(try sigilName("'@' must be followed by a name such as @count"))
                } else if c == "$" {
                    token = .variable(try sigilName("'$' must be followed by a variable name"))
                } else if c == "\"" || c == "'" {
                    token = .string(try quoted())
                } else if c.isNumber || (c == "." && i + 1 < chars.count && chars[i + 1].isNumber) {
                    token = try number()
                } else if c == "%" {
                    token = .argument(try specifier())
                } else {
                    token = .symbol(try symbol())
                }
                tokens.append((token, start))
            }
            tokens.append((.end, chars.count))
            return tokens
        }

        private func fail(_ at: Int, _ reason: String) -> PredicateSyntaxError {
            PredicateSyntaxError(format: format, position: at, reason: reason)
        }

        private mutating func skipNameCharacters() {
            while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
        }

        /// A key name or a keyword; `#name` is a key even when it is spelled as a keyword.
        private mutating func name() throws(PredicateSyntaxError) -> Token {
            let start = i
            let escaped = chars[i] == "#"
            if escaped { i += 1 }
            let nameStart = i
            skipNameCharacters()
            let name = String(chars[nameStart..<i])
            if name.isEmpty { throw fail(start, "'#' must be followed by a key name") }
            if !escaped && PredicateParser.keywords.contains(name.uppercased()) { return .keyword(name.uppercased()) }
            return .identifier(name)
        }

        /// The name after `@` (`@count`) or `$` (`$VAR`).
        private mutating func sigilName(_ missing: String) throws(PredicateSyntaxError) -> String {
            let start = i
            i += 1
            let nameStart = i
            skipNameCharacters()
            if i == nameStart { throw fail(start, missing) }
            return String(chars[nameStart..<i])
        }

        /// A string in double or single quotes, with its backslash escapes; `%%` in it is `%`.
        private mutating func quoted() throws(PredicateSyntaxError) -> String {
            let start = i
            let quote = chars[i]
            i += 1
            var text = ""
            while i < chars.count {
                let d = chars[i]
                if d == quote { i += 1; return text }
                if d == "\\", i + 1 < chars.count {
                    switch chars[i + 1] {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "0": text.append("\0")
                    case let e: text.append(e)
                    }
                    i += 2
                    continue
                }
                if d == "%", i + 1 < chars.count, chars[i + 1] == "%" { text.append("%"); i += 2; continue }
                text.append(d)
                i += 1
            }
            throw fail(start, "the string that starts here is not closed")
        }

        /// An integer (decimal, or `0x`, `0o`, `0b`) or a real (a fraction or an exponent).
        private mutating func number() throws(PredicateSyntaxError) -> Token {
            let start = i
            if chars[i] == "0", i + 1 < chars.count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][chars[i + 1]] {
                i += 2
                let digitsStart = i
                while i < chars.count, chars[i].isHexDigit { i += 1 }
                guard let v = Int64(String(chars[digitsStart..<i]), radix: radix) else { throw fail(start, "malformed number") }
                return .integer(v)
            }
            while i < chars.count, chars[i].isNumber { i += 1 }
            var isReal = false
            if i < chars.count, chars[i] == ".", i + 1 < chars.count, chars[i + 1].isNumber {
                isReal = true
                i += 1
                while i < chars.count, chars[i].isNumber { i += 1 }
            }
            if i < chars.count, chars[i] == "e" || chars[i] == "E" {
                var j = i + 1
                if j < chars.count, chars[j] == "-" || chars[j] == "+" { j += 1 }
                if j < chars.count, chars[j].isNumber {
                    isReal = true
                    i = j
                    while i < chars.count, chars[i].isNumber { i += 1 }
                }
            }
            let text = String(chars[start..<i])
            if !isReal, let v = Int64(text) { return .integer(v) }
            if let d = Double(text) { return .real(d) }
            throw fail(start, "malformed number '\(text)'")
        }

        /// A format specifier: `%@`, `%K`, or a C integer or real conversion with its length.
        private mutating func specifier() throws(PredicateSyntaxError) -> Specifier {
            let start = i
            guard i + 1 < chars.count else { throw fail(start, "a '%' must begin a format specifier such as %@ or %K") }
            var j = i + 1
            var length = ""
            while j < chars.count, chars[j] == "l" || chars[j] == "h" || chars[j] == "q" || chars[j] == "z" { length.append(chars[j]); j += 1 }
            guard j < chars.count else { throw fail(start, "the format specifier is not finished") }
            let conversion = chars[j]
            i = j + 1
            switch conversion {
            case "@" where length.isEmpty: return .object
            case "K" where length.isEmpty: return .key
            case "d", "i", "u", "D", "U", "c", "o", "O", "x", "X": return .integer("%" + length + String(conversion))
            case "f", "a", "e", "g", "F", "A", "E", "G": return .real("%" + length + String(conversion))
            case "%" where length.isEmpty:
                throw fail(start, "'%%' stands for a literal '%' only inside a quoted string")
            default:
                throw fail(start, "'%\(length)\(conversion)' is not a format specifier the predicate parser takes (use %@, %K, %d, %i, %ld, %lld, %u, %f or %lf)")
            }
        }

        /// An operator or punctuation, two characters first (`==`, `<=`, `&&`…).
        private mutating func symbol() throws(PredicateSyntaxError) -> String {
            let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                i += 2
                return two
            }
            let c = chars[i]
            guard "=<>!(){}[],.+-*/".contains(c) else { throw fail(i, "'\(c)' is not a valid token here") }
            i += 1
            return String(c)
        }
    }

    // MARK: Predicates

    private var current: Token { tokens[index].token }
    private var position: Int { tokens[index].position }

    private func error(_ reason: String) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, position: position, reason: reason)
    }

    private func describeCurrent() -> String {
        switch current {
        case .identifier(let s): "'\(s)'"
        case .keyword(let s): "'\(s)'"
        case .atName(let s): "'@\(s)'"
        case .string(let s): "the string \"\(s)\""
        case .integer(let v): "the number \(v)"
        case .real(let v): "the number \(v)"
        case .argument: "a format specifier"
        case .variable(let s): "'$\(s)'"
        case .symbol(let s): "'\(s)'"
        case .end: "the end of the format"
        }
    }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private mutating func accept(keyword: String) -> Bool {
        if case .keyword(keyword) = current { advance(); return true }
        return false
    }

    private mutating func accept(symbol: String) -> Bool {
        if case .symbol(symbol) = current { advance(); return true }
        return false
    }

    private mutating func expect(symbol: String, _ what: String) throws(PredicateSyntaxError) {
        guard accept(symbol: symbol) else { throw error("expected \(what), found \(describeCurrent())") }
    }

    private mutating func parsePredicate() throws(PredicateSyntaxError) -> PredicateNode {
        var parts = [try parseAnd()]
        while accept(keyword: "OR") || accept(symbol: "||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws(PredicateSyntaxError) -> PredicateNode {
        var parts = [try parseNot()]
        while accept(keyword: "AND") || accept(symbol: "&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws(PredicateSyntaxError) -> PredicateNode {
        if accept(keyword: "NOT") || accept(symbol: "!") { return .not(try parseNot()) }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws(PredicateSyntaxError) -> PredicateNode {
        if accept(keyword: "TRUEPREDICATE") { return .constant(true) }
        if accept(keyword: "FALSEPREDICATE") { return .constant(false) }
        if case .symbol("(") = current {
            // A parenthesized predicate, or a comparison whose left side starts with '('.
            let saved = (index, specifiers)
            advance()
            var firstError: PredicateSyntaxError?
            do throws(PredicateSyntaxError) {
                let inner = try parsePredicate()
                if accept(symbol: ")") {
                    if !startsOperator() { return inner }
                } else {
                    firstError = error("expected ')' to close the parenthesis, found \(describeCurrent())")
                }
            } catch {
                firstError = error
            }
            (index, specifiers) = saved
            do throws(PredicateSyntaxError) {
                return .comparison(try parseComparison())
            } catch {
                // Report whichever reading got further into the format.
                if let firstError, firstError.position > error.position { throw firstError }
                throw error
            }
        }
        return .comparison(try parseComparison())
    }

    private func startsOperator() -> Bool {
        switch current {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "."].contains(s)
        case .keyword(let k): return ["IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"].contains(k)
        default: return false
        }
    }

    private mutating func parseComparison() throws(PredicateSyntaxError) -> PredicateComparison {
        var modifier = PredicateComparison.Modifier.direct
        if accept(keyword: "ANY") || accept(keyword: "SOME") {
            modifier = .any
        } else if accept(keyword: "ALL") {
            modifier = .all
        } else if accept(keyword: "NONE") {
            modifier = .none
        }
        let lhs = try parseExpression()
        let op: PredicateComparison.Operator
        switch current {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .keyword("BETWEEN"): op = .between
        case .keyword("IN"): op = .in
        case .keyword("CONTAINS"): op = .contains
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("LIKE"): op = .like
        case .keyword("MATCHES"): op = .matches
        default:
            throw error("expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES), found \(describeCurrent())")
        }
        advance()
        var comparison = PredicateComparison(modifier: modifier, lhs: lhs, op: op, rhs: .constant(PredicateConstant(nil)))
        if case .symbol("[") = current {
            advance()
            guard case .identifier(let letters) = current else { throw error("expected options such as c, d or cd inside [ ]") }
            for letter in letters {
                switch letter {
                case "c", "C": comparison.caseInsensitive = true
                case "d", "D": comparison.diacriticInsensitive = true
                case "n", "N": break  // normalized: Swift strings compare canonically already
                default: throw error("'\(letter)' is not a comparison option (use c, d or cd)")
                }
            }
            advance()
            try expect(symbol: "]", "']' after the comparison options")
        }
        comparison.rhs = try parseExpression()
        return comparison
    }

    // MARK: Expressions

    private mutating func parseExpression() throws(PredicateSyntaxError) -> PredicateExpression {
        var lhs = try parseTerm()
        while case .symbol(let s) = current, s == "+" || s == "-" {
            advance()
            lhs = .arithmetic(Character(s), lhs, try parseTerm())
        }
        return lhs
    }

    private mutating func parseTerm() throws(PredicateSyntaxError) -> PredicateExpression {
        var lhs = try parseUnary()
        while case .symbol(let s) = current, s == "*" || s == "/" {
            advance()
            lhs = .arithmetic(Character(s), lhs, try parseUnary())
        }
        return lhs
    }

    private mutating func parseUnary() throws(PredicateSyntaxError) -> PredicateExpression {
        if accept(symbol: "-") {
            switch current {
            case .integer(let v): advance(); return try parsePostfix(.constant(PredicateConstant(-v)))
            case .real(let v): advance(); return try parsePostfix(.constant(PredicateConstant(-v)))
            default: return .arithmetic("-", .constant(PredicateConstant(0)), try parseUnary())
            }
        }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: PredicateExpression) throws(PredicateSyntaxError) -> PredicateExpression {
        var e = base
        while accept(symbol: ".") {
            let name: String
            switch current {
            case .identifier(let s): name = s
            case .atName(let s): name = "@" + s
            case .keyword(let k) where k == "SELF": name = "self"
            default: throw error("expected a key after '.', found \(describeCurrent())")
            }
            advance()
            if case .keyPath(let b, let parts) = e {
                e = .keyPath(base: b, parts + [name])
            } else {
                e = .keyPath(base: e, [name])
            }
        }
        return e
    }

    private mutating func parsePrimary() throws(PredicateSyntaxError) -> PredicateExpression {
        let token = current
        switch token {
        case .string(let s): advance(); return .constant(PredicateConstant(s))
        case .integer(let v): advance(); return .constant(PredicateConstant(Int(v)))
        case .real(let v): advance(); return .constant(PredicateConstant(v))
        case .variable(let name): advance(); return .variable(name)
        case .atName(let name): advance(); return .keyPath(base: nil, ["@" + name])
        case .argument(let spec):
            advance()
            specifiers.append(spec)
            return spec == .key ? .keyArgument(specifiers.count - 1) : .argument(specifiers.count - 1)
        case .identifier(let name):
            advance()
            if case .symbol("(") = current {
                return .function(name, try parseArguments())
            }
            return .keyPath(base: nil, [name])
        case .keyword(let k):
            switch k {
            case "NIL", "NULL": advance(); return .constant(PredicateConstant(nil))
            case "TRUE", "YES": advance(); return .constant(PredicateConstant(true))
            case "FALSE", "NO": advance(); return .constant(PredicateConstant(false))
            case "SELF": advance(); return .keyPath(base: nil, [])
            case "SUBQUERY":
                advance()
                try expect(symbol: "(", "'(' after SUBQUERY")
                let collection = try parseExpression()
                try expect(symbol: ",", "',' after SUBQUERY's collection")
                guard case .variable(let variable) = current else { throw error("expected SUBQUERY's variable, such as $x, found \(describeCurrent())") }
                advance()
                try expect(symbol: ",", "',' after SUBQUERY's variable")
                let predicate = try parsePredicate()
                try expect(symbol: ")", "')' to close SUBQUERY")
                return .subquery(collection, variable: variable, predicate)
            case "FUNCTION":
                advance()
                return .function("FUNCTION", try parseArguments())
            default:
                throw error("expected an expression, found the keyword \(k) (escape a key of that name as #\(k.lowercased()))")
            }
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expect(symbol: ")", "')'")
            return inner
        case .symbol("{"):
            advance()
            var items: [PredicateExpression] = []
            if !accept(symbol: "}") {
                repeat { items.append(try parseExpression()) } while accept(symbol: ",")
                try expect(symbol: "}", "'}' to close the aggregate")
            }
            return .aggregate(items)
        default:
            throw error("expected an expression, found \(describeCurrent())")
        }
    }

    private mutating func parseArguments() throws(PredicateSyntaxError) -> [PredicateExpression] {
        try expect(symbol: "(", "'('")
        var args: [PredicateExpression] = []
        if accept(symbol: ")") { return args }
        repeat { args.append(try parseExpression()) } while accept(symbol: ",")
        try expect(symbol: ")", "')' to close the argument list")
        return args
    }
}
