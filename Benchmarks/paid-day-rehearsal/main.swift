import Foundation
import PaidDayRehearsal

// `swift run -c release paid-day-rehearsal [--installs N] [--document FILE] [--runbook DIR] [--switch RFC3339] [--days N]
// [--experiments N] [--effect-experiments N] [--installs-per-day N] [--guard-weeks N] [--flags DIR]`: the paid day of docs/monetization.md
// rehearsed on a synthetic population; with --experiments or --guard-weeks, weeks of App Store notifications through
// the real receiver instead (docs/guards.md, "Through the real receiver"). Exit 1 when a subscriber, an early user or an
// install whose date is unknown loses access at any step, or a server report differs from the analysis of the truth,
// or the guard did not trip and roll back; 2 when the runbook or the server fails, 64 on a usage error.
let usage = "usage: paid-day-rehearsal [--installs N] [--document FILE] [--runbook DIR] [--switch RFC3339] [--days N] "
    + "[--experiments N] [--effect-experiments N] [--installs-per-day N] [--guard-weeks N] [--flags DIR]\n"
var options = ["--installs": "100000", "--document": "flags/production.json", "--runbook": "flags/paid-day",
               "--switch": "2027-03-01T00:00:00Z", "--days": "30", "--experiments": "0", "--effect-experiments": "-1", "--installs-per-day": "8000",
               "--guard-weeks": "-1", "--flags": "flags"]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard options[name] != nil, let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data(usage.utf8))
        exit(64)
    }
    options[name] = value
}
guard let count = Int(options["--installs"] ?? ""), count > 0, let days = Int(options["--days"] ?? ""), days > 0,
      let switchDate = ISO8601DateFormatter().date(from: options["--switch"] ?? ""),
      let experiments = Int(options["--experiments"] ?? ""), experiments >= 0,
      let effectExperiments = Int(options["--effect-experiments"] ?? ""), effectExperiments >= -1,
      let installsPerDay = Double(options["--installs-per-day"] ?? ""), installsPerDay > 0,
      let guardWeeks = Int(options["--guard-weeks"] ?? ""), guardWeeks >= -1 else {
    FileHandle.standardError.write(Data(("paid-day-rehearsal: --installs, --days and --installs-per-day take positive whole numbers, "
        + "--experiments, --effect-experiments and --guard-weeks whole numbers ≥ 0, --switch an RFC 3339 date-time\n").utf8))
    exit(64)
}

if experiments > 0 || guardWeeks >= 0 {
    let flags = options["--flags"] ?? "flags"
    // The simulated weeks end before today (UTC), so every record is inside the receiver's retention.
    let today = Int64(Date().timeIntervalSince1970 * 1000) / NotificationWeek.day * NotificationWeek.day
    var failed = false
    do {
        if experiments > 0 {
            var settings = ExperimentRehearsal.Settings()
            settings.experiments = experiments
            settings.effectExperiments = effectExperiments >= 0 ? effectExperiments : experiments
            settings.installsPerDay = installsPerDay
            let figures = try ExperimentRehearsal.run(settings, flagsDirectory: flags, start: today - 8 * NotificationWeek.day) {
                FileHandle.standardError.write(Data(("  " + $0 + "\n").utf8))
            }
            print(ExperimentRehearsal.report(figures, settings), terminator: "")
            failed = failed || figures.reportsEqual != figures.reportsChecked
        }
        if guardWeeks >= 0 {
            let figures = try GuardRehearsal.run(weeks: guardWeeks, flagsDirectory: flags, today: today) {
                FileHandle.standardError.write(Data(("  " + $0 + "\n").utf8))
            }
            print(GuardRehearsal.report(figures), terminator: "")
            failed = failed || !figures.rolledBack
        }
    } catch {
        FileHandle.standardError.write(Data("paid-day-rehearsal: \(error)\n".utf8))
        exit(2)
    }
    exit(failed ? 1 : 0)
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
