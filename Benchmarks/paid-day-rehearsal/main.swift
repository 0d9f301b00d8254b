import Foundation
import PaidDayRehearsal

// `swift run -c release paid-day-rehearsal [--installs N] [--document FILE] [--runbook DIR] [--switch RFC3339] [--days N]`:
// the paid day of docs/monetization.md rehearsed on a synthetic population; exit 1 when a subscriber, an early user or
// an install whose date is unknown loses access at any step, 2 when the runbook cannot be read, 64 on a usage error.
var options = ["--installs": "100000", "--document": "flags/production.json", "--runbook": "flags/paid-day",
               "--switch": "2027-03-01T00:00:00Z", "--days": "30"]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard options[name] != nil, let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: paid-day-rehearsal [--installs N] [--document FILE] [--runbook DIR] [--switch RFC3339] [--days N]\n".utf8))
        exit(64)
    }
    options[name] = value
}
guard let count = Int(options["--installs"] ?? ""), count > 0, let days = Int(options["--days"] ?? ""), days > 0,
      let switchDate = ISO8601DateFormatter().date(from: options["--switch"] ?? "") else {
    FileHandle.standardError.write(Data("paid-day-rehearsal: --installs and --days take positive whole numbers, --switch an RFC 3339 date-time\n".utf8))
    exit(64)
}
let steps: [RunbookStep]
do {
    steps = try RunbookStep.load(base: options["--document"] ?? "", runbook: options["--runbook"] ?? "")
} catch {
    FileHandle.standardError.write(Data("paid-day-rehearsal: \(error)\n".utf8))
    exit(2)
}
let population = Population(count: count, switchDate: switchDate, daysSince: days)
let started = Date()
let results = PaidDayRehearsal.run(population, steps: steps, now: switchDate.addingTimeInterval(Double(days) * 86_400))
print(PaidDayRehearsal.report(results), terminator: "")
print(String(format: "%d installs x %d steps in %.2f s", count, steps.count, Date().timeIntervalSince(started)))
let losses = PaidDayRehearsal.lossesToAvoid(results)
exit(losses.subscribers + losses.earlyUsers + losses.unknownOrigin == 0 ? 0 : 1)
