import Foundation
import Testing

/// `docs/architecture.md`'s module table is the rule for what may import what; it must say what Package.swift
/// does. Every library target has a row, and the row's imports name exactly the target's dependencies inside
/// the package (Foundation, Glibc and the like are not package targets and are free text).
@Suite struct ModuleTableTests {
    struct Target { var name: String; var isSystemLibrary: Bool; var dependencies: Set<String> }

    /// `.target(...)` and `.systemLibrary(...)` declarations of Package.swift, with their quoted dependencies.
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Declarations start their line; `.target(name:condition:)` inside a dependency list does not.
        let pattern = try Regex(#"(?m)^\s+\.(target|systemLibrary)\(name: "([A-Za-z0-9_-]+)"(?:, dependencies: (\[[^\]]*\](?: \+ [a-z]+)?|[a-z]+))?"#)
        return manifest.matches(of: pattern).map { match in
            let kind = match.output[1].substring.map(String.init) ?? ""
            let name = match.output[2].substring.map(String.init) ?? ""
            let list = match.output[3].substring.map(String.init) ?? ""
            // `curl` is the manifest's conditional libcurl dependency (`.target(name: "CCurl", ...)` or none),
            // alone or appended to a list (`["FlagKit"] + curl`).
            var dependencies = Set(list.matches(of: #/"([A-Za-z0-9_-]+)"/#).map { String($0.output.1) })
            if list == "curl" || list.hasSuffix("+ curl") { dependencies.insert("CCurl") }
            return Target(name: name, isSystemLibrary: kind == "systemLibrary", dependencies: dependencies)
        }
    }

    /// The table's rows: the module names of the first column and the text of the second.
    static func rows() throws -> [(modules: [String], imports: String)] {
        let text = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let start = text.range(of: "## Modules and what they may import") else { return [] }
        let section = text[start.upperBound...].prefix { _ in true }
        let body = section.components(separatedBy: "\n## ").first ?? ""
        return body.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let modules = cells.count > 1 ? cells[1].matches(of: #/`([A-Za-z0-9_-]+)`/#).map { String($0.output.1) } : []
            return (modules, cells.count > 2 ? cells[2] : "")
        }
    }

    @Test func everyLibraryTargetHasARowThatNamesItsDependencies() throws {
        let targets = try Self.targets()
        let names = Set(targets.map(\.name))
        #expect(names.contains("FlagKit") && names.contains("ClientHTTP") && names.contains("CCurl"), "the manifest was read")
        let rows = try Self.rows()
        for target in targets where !target.isSystemLibrary {
            guard let row = rows.first(where: { $0.modules.contains(target.name) }) else {
                Issue.record("docs/architecture.md has no row for \(target.name)")
                continue
            }
            let mentioned = Set(row.imports.matches(of: #/[A-Za-z][A-Za-z0-9_-]*/#).map { String($0.output) }).intersection(names)
            #expect(mentioned == target.dependencies,
                    "\(target.name): the table says \(mentioned.sorted()), Package.swift says \(target.dependencies.sorted())")
        }
    }

    @Test func everyRowNamesAModuleThatExists() throws {
        let names = Set(try Self.targets().map(\.name))
        for row in try Self.rows() where !row.modules.contains("flagserver") {
            for module in row.modules { #expect(names.contains(module), "docs/architecture.md names \(module), which Package.swift does not have") }
        }
    }
}
